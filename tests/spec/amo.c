/* AMOs: every operation on every type of its table, fetching and
 * non-fetching, blocking and nbi, default and created context, targeting
 * another PE (the right neighbour; itself with one PE), with exact old and
 * new values.  Then contention: every PE and 4 threads per PE
 * (SHMEM_THREAD_MULTIPLE) hammer counters on PE 0 (heap and global), and a
 * compare_swap spin lock must give mutual exclusion. */
#include "shoal_test.h"

#include <sched.h>

#define MAXPE 64

static shmem_ctx_t g_ctx;

/* Moderate values (no signed overflow in a few additions), negative ones
 * for signed types (huge ones for unsigned types), high bits for 64-bit. */
#define AV(T, pe, k)                                                             \
    ((T)(((int64_t)(st_u64((pe), (uint64_t)(k), 77) % (1u << 29)) - (1 << 28)) * \
         (sizeof(T) == 8 ? 4096 : 1)))
#define FV(T, pe, k) ((T)((double)(int)(st_u64((pe), (uint64_t)(k), 78) % 100000) * 0.25 - 777.5))

#define EXT_TYPES(X)                     \
    X(float, float, FV)                  \
    X(double, double, FV)                \
    X(int, int, AV)                      \
    X(long, long, AV)                    \
    X(long long, longlong, AV)           \
    X(unsigned int, uint, AV)            \
    X(unsigned long, ulong, AV)          \
    X(unsigned long long, ulonglong, AV) \
    X(int32_t, int32, AV)                \
    X(int64_t, int64, AV)                \
    X(uint32_t, uint32, AV)              \
    X(uint64_t, uint64, AV)              \
    X(size_t, size, AV)                  \
    X(ptrdiff_t, ptrdiff, AV)

#define STD_TYPES(X)                 \
    X(int, int)                      \
    X(long, long)                    \
    X(long long, longlong)           \
    X(unsigned int, uint)            \
    X(unsigned long, ulong)          \
    X(unsigned long long, ulonglong) \
    X(int32_t, int32)                \
    X(int64_t, int64)                \
    X(uint32_t, uint32)              \
    X(uint64_t, uint64)              \
    X(size_t, size)                  \
    X(ptrdiff_t, ptrdiff)

#define BIT_TYPES(X)                 \
    X(unsigned int, uint)            \
    X(unsigned long, ulong)          \
    X(unsigned long long, ulonglong) \
    X(int32_t, int32)                \
    X(int64_t, int64)                \
    X(uint32_t, uint32)              \
    X(uint64_t, uint64)

#define EQ(T, NAME, what, actual, expected)                                          \
    do {                                                                             \
        T a_ = (actual), e_ = (expected);                                            \
        CHECK_MSG(a_ == e_, "shmem_%s %s: expected %.21Lg, got %.21Lg", #NAME, what, \
                  (long double)e_, (long double)a_);                                 \
    } while (0)

/* The op on the default context or on g_ctx. */
#define AMO(c, NAME, op, ...)                                 \
    ((c) ? shmem_ctx_##NAME##_atomic_##op(g_ctx, __VA_ARGS__) \
         : shmem_##NAME##_atomic_##op(__VA_ARGS__))
#define AMO_V(c, NAME, op, ...)                                 \
    do {                                                        \
        if (c)                                                  \
            shmem_ctx_##NAME##_atomic_##op(g_ctx, __VA_ARGS__); \
        else                                                    \
            shmem_##NAME##_atomic_##op(__VA_ARGS__);            \
    } while (0)
#define QUIET(c)                    \
    do {                            \
        if (c)                      \
            shmem_ctx_quiet(g_ctx); \
        else                        \
            shmem_quiet();          \
    } while (0)

/* fetch, set, swap (+ nbi) over the extended AMO types.  `v` is a
 * symmetric array; this PE works on v[me] of its right neighbour, and its
 * left neighbour works on v[left] here, which is checked by load at the
 * end. */
#define DEF_EXT(T, NAME, V)                                                                \
    static void ext_##NAME(void *vv, int c)                                                \
    {                                                                                      \
        T *v = vv;                                                                         \
        int me = shmem_my_pe(), n = shmem_n_pes(), r = (me + 1) % n, l = (me + n - 1) % n; \
        T a = V(T, me, 1), b = V(T, me, 2), f = 0;                                         \
        ST_PHASE("shmem_" #NAME "_atomic_fetch/set/swap[_nbi]");                           \
        shmem_barrier_all();                                                               \
        AMO_V(c, NAME, set, &v[me], a, r);                                                 \
        EQ(T, NAME, "fetch after set", AMO(c, NAME, fetch, &v[me], r), a);                 \
        EQ(T, NAME, "swap old value", AMO(c, NAME, swap, &v[me], b, r), a);                \
        EQ(T, NAME, "fetch after swap", AMO(c, NAME, fetch, &v[me], r), b);                \
        AMO_V(c, NAME, fetch_nbi, &f, &v[me], r);                                          \
        QUIET(c);                                                                          \
        EQ(T, NAME, "fetch_nbi", f, b);                                                    \
        f = 0;                                                                             \
        AMO_V(c, NAME, swap_nbi, &f, &v[me], a, r);                                        \
        QUIET(c);                                                                          \
        EQ(T, NAME, "swap_nbi old value", f, b);                                           \
        EQ(T, NAME, "fetch after swap_nbi", AMO(c, NAME, fetch, &v[me], r), a);            \
        shmem_barrier_all();                                                               \
        EQ(T, NAME, "value seen by the target", v[l], V(T, l, 1));                         \
        shmem_barrier_all();                                                               \
    }
EXT_TYPES(DEF_EXT)

/* compare_swap, fetch_inc, inc, fetch_add, add (+ nbi) over the standard
 * AMO types. */
#define DEF_STD(T, NAME)                                                                          \
    static void std_##NAME(void *vv, int c)                                                       \
    {                                                                                             \
        T *v = vv;                                                                                \
        int me = shmem_my_pe(), n = shmem_n_pes(), r = (me + 1) % n, l = (me + n - 1) % n;        \
        T a = AV(T, me, 3), b = AV(T, me, 4), cc = AV(T, me, 5), d = AV(T, me, 6),                \
          e = AV(T, me, 7), f = 0, g = 0, h = 0;                                                  \
        if (b == a)                                                                               \
            b = (T)(a + 1);                                                                       \
        ST_PHASE("shmem_" #NAME "_atomic_compare_swap/fetch_inc/inc/fetch_add/add[_nbi]");        \
        shmem_barrier_all();                                                                      \
        AMO_V(c, NAME, set, &v[me], a, r);                                                        \
        /* cswap with a wrong condition: no change, returns the value */                          \
        EQ(T, NAME, "compare_swap (no match) old", AMO(c, NAME, compare_swap, &v[me], b, cc, r),  \
           a);                                                                                    \
        EQ(T, NAME, "value after failed compare_swap", AMO(c, NAME, fetch, &v[me], r), a);        \
        EQ(T, NAME, "compare_swap (match) old", AMO(c, NAME, compare_swap, &v[me], a, cc, r), a); \
        EQ(T, NAME, "value after compare_swap", AMO(c, NAME, fetch, &v[me], r), cc);              \
        EQ(T, NAME, "fetch_inc old", AMO(c, NAME, fetch_inc, &v[me], r), cc);                     \
        EQ(T, NAME, "value after fetch_inc", AMO(c, NAME, fetch, &v[me], r), (T)(cc + 1));        \
        AMO_V(c, NAME, inc, &v[me], r);                                                           \
        EQ(T, NAME, "value after inc", AMO(c, NAME, fetch, &v[me], r), (T)(cc + 2));              \
        EQ(T, NAME, "fetch_add old", AMO(c, NAME, fetch_add, &v[me], d, r), (T)(cc + 2));         \
        EQ(T, NAME, "value after fetch_add", AMO(c, NAME, fetch, &v[me], r), (T)(cc + 2 + d));    \
        AMO_V(c, NAME, add, &v[me], e, r);                                                        \
        T now = (T)(cc + 2 + d + e);                                                              \
        EQ(T, NAME, "value after add", AMO(c, NAME, fetch, &v[me], r), now);                      \
        /* nbi forms: results land by quiet */                                                    \
        AMO_V(c, NAME, compare_swap_nbi, &f, &v[me], now, a, r);                                  \
        QUIET(c);                                                                                 \
        EQ(T, NAME, "compare_swap_nbi old", f, now);                                              \
        AMO_V(c, NAME, compare_swap_nbi, &f, &v[me], b, cc, r); /* no match */                    \
        AMO_V(c, NAME, fetch_inc_nbi, &g, &v[me], r);                                             \
        QUIET(c);                                                                                 \
        EQ(T, NAME, "compare_swap_nbi (no match) old", f, a);                                     \
        EQ(T, NAME, "fetch_inc_nbi old", g, a);                                                   \
        AMO_V(c, NAME, fetch_add_nbi, &h, &v[me], d, r);                                          \
        QUIET(c);                                                                                 \
        EQ(T, NAME, "fetch_add_nbi old", h, (T)(a + 1));                                          \
        EQ(T, NAME, "value after nbi ops", AMO(c, NAME, fetch, &v[me], r), (T)(a + 1 + d));       \
        shmem_barrier_all();                                                                      \
        {                                                                                         \
            T la = AV(T, l, 3), ld = AV(T, l, 6);                                                 \
            EQ(T, NAME, "value seen by the target", v[l], (T)(la + 1 + ld));                      \
        }                                                                                         \
        shmem_barrier_all();                                                                      \
    }
STD_TYPES(DEF_STD)

#define DEF_BIT(T, NAME)                                                                       \
    static void bit_##NAME(void *vv, int c)                                                    \
    {                                                                                          \
        T *v = vv;                                                                             \
        int me = shmem_my_pe(), n = shmem_n_pes(), r = (me + 1) % n, l = (me + n - 1) % n;     \
        T m0 = (T)st_u64(me, 10, 79), m1 = (T)st_u64(me, 11, 79), m2 = (T)st_u64(me, 12, 79),  \
          f = 0, g = 0, h = 0;                                                                 \
        ST_PHASE("shmem_" #NAME "_atomic_[fetch_]and/or/xor[_nbi]");                           \
        shmem_barrier_all();                                                                   \
        AMO_V(c, NAME, set, &v[me], m0, r);                                                    \
        EQ(T, NAME, "fetch_and old", AMO(c, NAME, fetch_and, &v[me], m1, r), m0);              \
        T x = (T)(m0 & m1);                                                                    \
        EQ(T, NAME, "value after fetch_and", AMO(c, NAME, fetch, &v[me], r), x);               \
        AMO_V(c, NAME, and, &v[me], m2, r);                                                    \
        x = (T)(x & m2);                                                                       \
        EQ(T, NAME, "value after and", AMO(c, NAME, fetch, &v[me], r), x);                     \
        EQ(T, NAME, "fetch_or old", AMO(c, NAME, fetch_or, &v[me], m1, r), x);                 \
        x = (T)(x | m1);                                                                       \
        EQ(T, NAME, "value after fetch_or", AMO(c, NAME, fetch, &v[me], r), x);                \
        AMO_V(c, NAME, or, &v[me], m2, r);                                                     \
        x = (T)(x | m2);                                                                       \
        EQ(T, NAME, "value after or", AMO(c, NAME, fetch, &v[me], r), x);                      \
        EQ(T, NAME, "fetch_xor old", AMO(c, NAME, fetch_xor, &v[me], m0, r), x);               \
        x = (T)(x ^ m0);                                                                       \
        EQ(T, NAME, "value after fetch_xor", AMO(c, NAME, fetch, &v[me], r), x);               \
        AMO_V(c, NAME, xor, &v[me], m1, r);                                                    \
        x = (T)(x ^ m1);                                                                       \
        EQ(T, NAME, "value after xor", AMO(c, NAME, fetch, &v[me], r), x);                     \
        AMO_V(c, NAME, fetch_and_nbi, &f, &v[me], m2, r);                                      \
        QUIET(c);                                                                              \
        EQ(T, NAME, "fetch_and_nbi old", f, x);                                                \
        x = (T)(x & m2);                                                                       \
        AMO_V(c, NAME, fetch_or_nbi, &g, &v[me], m0, r);                                       \
        QUIET(c);                                                                              \
        EQ(T, NAME, "fetch_or_nbi old", g, x);                                                 \
        x = (T)(x | m0);                                                                       \
        AMO_V(c, NAME, fetch_xor_nbi, &h, &v[me], m1, r);                                      \
        QUIET(c);                                                                              \
        EQ(T, NAME, "fetch_xor_nbi old", h, x);                                                \
        x = (T)(x ^ m1);                                                                       \
        EQ(T, NAME, "value after nbi ops", AMO(c, NAME, fetch, &v[me], r), x);                 \
        shmem_barrier_all();                                                                   \
        {                                                                                      \
            T l0 = (T)st_u64(l, 10, 79), l1 = (T)st_u64(l, 11, 79), l2 = (T)st_u64(l, 12, 79); \
            T y = (T)(l0 & l1 & l2);                                                           \
            y = (T)(y | l1 | l2);                                                              \
            y = (T)(y ^ l0 ^ l1);                                                              \
            y = (T)((y & l2) | l0);                                                            \
            y = (T)(y ^ l1);                                                                   \
            EQ(T, NAME, "value seen by the target", v[l], y);                                  \
        }                                                                                      \
        shmem_barrier_all();                                                                   \
    }
BIT_TYPES(DEF_BIT)

/* Neighbouring 4-byte words must not be disturbed by 4-byte AMOs (and an
 * 8-byte AMO changes exactly 8 bytes). */
static void test_widths(void)
{
    ST_PHASE("AMO widths");
    int me = shmem_my_pe(), n = shmem_n_pes(), r = (me + 1) % n, l = (me + n - 1) % n;
    uint32_t *w = shmem_calloc(4 * MAXPE, sizeof(uint32_t));
    CHECK_NOT_NULL(w);
    for (int i = 0; i < 4; i++)
        w[4 * l + i] = 0xA5A5A5A5u; /* l writes this quadruple here */
    shmem_barrier_all();
    shmem_uint32_atomic_set(&w[4 * me + 1], 0x11111111u, r);
    shmem_uint32_atomic_add(&w[4 * me + 2], 1, r);
    shmem_uint64_atomic_xor((uint64_t *)(void *)&w[4 * me + 2], 0, r);
    shmem_barrier_all();
    CHECK_EQ_U(w[4 * l + 0], 0xA5A5A5A5u);
    CHECK_EQ_U(w[4 * l + 1], 0x11111111u);
    CHECK_EQ_U(w[4 * l + 2], 0xA5A5A5A6u);
    CHECK_EQ_U(w[4 * l + 3], 0xA5A5A5A5u);
    shmem_barrier_all();
    shmem_free(w);
}

/* Deprecated (1.0-1.3) names and the C11 generics. */
static long g_dep[MAXPE];
static double g_depd[MAXPE];

static void test_deprecated_and_generic(void)
{
    ST_PHASE("deprecated AMO names");
    int me = shmem_my_pe(), n = shmem_n_pes(), r = (me + 1) % n, l = (me + n - 1) % n;
    int *vi = shmem_calloc(MAXPE, sizeof(int));
    long long *vll = shmem_calloc(MAXPE, sizeof(long long));
    float *vf = shmem_calloc(MAXPE, sizeof(float));
    CHECK_NOT_NULL(vi);
    CHECK_NOT_NULL(vll);
    CHECK_NOT_NULL(vf);
    shmem_barrier_all(); /* (the memory tests check calloc's own barrier) */
    shmem_int_set(&vi[me], 10, r);
    CHECK_EQ_I(shmem_int_fetch(&vi[me], r), 10);
    CHECK_EQ_I(shmem_int_swap(&vi[me], 20, r), 10);
    CHECK_EQ_I(shmem_int_cswap(&vi[me], 20, 30, r), 20);
    CHECK_EQ_I(shmem_int_cswap(&vi[me], 20, 40, r), 30);
    CHECK_EQ_I(shmem_int_finc(&vi[me], r), 30);
    shmem_int_inc(&vi[me], r);
    CHECK_EQ_I(shmem_int_fadd(&vi[me], -5, r), 32);
    shmem_int_add(&vi[me], 100, r);
    CHECK_EQ_I(shmem_int_fetch(&vi[me], r), 127);
    shmem_long_set(&g_dep[me], -(1L << 40), r);
    CHECK_EQ_I(shmem_long_finc(&g_dep[me], r), -(1L << 40));
    shmem_long_inc(&g_dep[me], r);
    shmem_long_add(&g_dep[me], 3, r);
    CHECK_EQ_I(shmem_long_fadd(&g_dep[me], 0, r), (-(1L << 40)) + 5);
    CHECK_EQ_I(shmem_long_cswap(&g_dep[me], (-(1L << 40)) + 5, 9, r), (-(1L << 40)) + 5);
    CHECK_EQ_I(shmem_long_swap(&g_dep[me], 8, r), 9);
    CHECK_EQ_I(shmem_long_fetch(&g_dep[me], r), 8);
    shmem_longlong_set(&vll[me], 1LL << 50, r);
    shmem_longlong_add(&vll[me], 1, r);
    shmem_longlong_inc(&vll[me], r);
    CHECK_EQ_I(shmem_longlong_finc(&vll[me], r), (1LL << 50) + 2);
    CHECK_EQ_I(shmem_longlong_fadd(&vll[me], 10, r), (1LL << 50) + 3);
    CHECK_EQ_I(shmem_longlong_cswap(&vll[me], (1LL << 50) + 13, 5, r), (1LL << 50) + 13);
    CHECK_EQ_I(shmem_longlong_swap(&vll[me], 6, r), 5);
    CHECK_EQ_I(shmem_longlong_fetch(&vll[me], r), 6);
    shmem_float_set(&vf[me], 1.5f, r);
    CHECK_EQ_D(shmem_float_swap(&vf[me], -2.5f, r), 1.5f);
    CHECK_EQ_D(shmem_float_fetch(&vf[me], r), -2.5f);
    shmem_double_set(&g_depd[me], 3.25, r);
    CHECK_EQ_D(shmem_double_swap(&g_depd[me], 4.5, r), 3.25);
    CHECK_EQ_D(shmem_double_fetch(&g_depd[me], r), 4.5);

    ST_PHASE("C11 generic AMOs");
    long f = 0;
    shmem_atomic_set(&g_dep[me], 100L, r);
    CHECK_EQ_I(shmem_atomic_fetch_add(&g_dep[me], 5L, r), 100);
    CHECK_EQ_I(shmem_atomic_fetch_inc(g_ctx, &g_dep[me], r), 105);
    shmem_atomic_add(g_ctx, &g_dep[me], 10L, r);
    shmem_atomic_inc(&g_dep[me], r);
    CHECK_EQ_I(shmem_atomic_compare_swap(&g_dep[me], 117L, 200L, r), 117);
    CHECK_EQ_I(shmem_atomic_swap(&g_dep[me], 300L, r), 200);
    CHECK_EQ_I(shmem_atomic_fetch(&g_dep[me], r), 300);
    shmem_atomic_fetch_add_nbi(&f, &g_dep[me], 1L, r);
    shmem_quiet();
    CHECK_EQ_I(f, 300);
    CHECK_EQ_D(shmem_atomic_swap(&g_depd[me], 1.0, r), 4.5);
    unsigned int *vu = (unsigned int *)vi;
    shmem_atomic_set(&vu[me], 0xF0F0u, r);
    CHECK_EQ_U(shmem_atomic_fetch_or(&vu[me], 0x0F00u, r), 0xF0F0u);
    shmem_atomic_and(&vu[me], 0xFF00u, r);
    shmem_atomic_xor(&vu[me], 0x1u, r);
    CHECK_EQ_U(shmem_atomic_fetch(&vu[me], r), 0xFF01u);

    shmem_barrier_all();
    CHECK_EQ_U(vu[l], 0xFF01u);
    CHECK_EQ_I(g_dep[l], 301);
    CHECK_EQ_D(g_depd[l], 1.0);
    CHECK_EQ_I(vll[l], 6);
    CHECK_EQ_D(vf[l], -2.5f);
    shmem_barrier_all();
    shmem_free(vi);
    shmem_free(vll);
    shmem_free(vf);
}

/* --------------------------------------------------------- contention */

#define NTHREADS 4
#define KOPS 50000

static long g_counter;   /* global, on PE 0 */
static uint64_t g_sum;   /* sum of fetched values, on PE 0 */
static long *h_counter;  /* heap, on PE 0 */
static int32_t *h_ctr32; /* two adjacent 32-bit counters, on PE 0 */
static int g_bad_order;  /* a thread saw its fetches go backwards */

static void *contend(void *arg)
{
    int t = (int)(intptr_t)arg;
    long prev = -1;
    uint64_t sum = 0;
    for (int k = 0; k < KOPS; k++) {
        long old = shmem_long_atomic_fetch_add(h_counter, 1, 0);
        if (old <= prev)
            __atomic_store_n(&g_bad_order, 1, __ATOMIC_RELAXED);
        prev = old;
        sum += (uint64_t)old;
        shmem_long_atomic_inc(&g_counter, 0);
        if (k % 4 == 0)
            shmem_int32_atomic_fetch_inc(&h_ctr32[t & 1], 0);
    }
    shmem_uint64_atomic_add(&g_sum, sum, 0);
    return NULL;
}

static void test_contention(void)
{
    ST_PHASE("AMO contention (threads)");
    int me = shmem_my_pe(), n = shmem_n_pes();
    h_counter = shmem_calloc(1, sizeof(long));
    h_ctr32 = shmem_calloc(2, sizeof(int32_t));
    CHECK_NOT_NULL(h_counter);
    CHECK_NOT_NULL(h_ctr32);
    g_counter = 0;
    g_sum = 0;
    shmem_barrier_all();
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        CHECK_EQ_I(pthread_create(&th[t], NULL, contend, (void *)(intptr_t)t), 0);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    CHECK_MSG(!g_bad_order, "a thread's successive fetch_add results did not increase");
    shmem_barrier_all();
    const uint64_t total = (uint64_t)n * NTHREADS * KOPS;
    if (me == 0) {
        CHECK_EQ_I(*h_counter, (long)total);
        CHECK_EQ_I(g_counter, (long)total);
        /* Every value 0..total-1 was fetched exactly once iff the sum matches
         * (together with the count above and per-thread monotonicity). */
        CHECK_EQ_U(g_sum, total * (total - 1) / 2);
        CHECK_EQ_I(h_ctr32[0], (int32_t)((uint64_t)n * (NTHREADS / 2) * (KOPS / 4)));
        CHECK_EQ_I(h_ctr32[1], (int32_t)((uint64_t)n * (NTHREADS / 2) * (KOPS / 4)));
    }
    CHECK_EQ_I(shmem_long_atomic_fetch(h_counter, 0), (long)total);
    CHECK_EQ_I(shmem_long_atomic_fetch(&g_counter, 0), (long)total);
    shmem_barrier_all();
    shmem_free(h_counter);
    shmem_free(h_ctr32);
    st_note("AMO contention: exact totals");
}

/* A compare_swap spin lock protecting a non-atomic read-modify-write. */
static int64_t g_lockword;
static long g_shared;

static void test_cswap_mutex(void)
{
    ST_PHASE("compare_swap mutual exclusion");
    int me = shmem_my_pe(), n = shmem_n_pes();
    const int iters = 500;
    g_lockword = 0;
    g_shared = 0;
    shmem_barrier_all();
    for (int i = 0; i < iters; i++) {
        while (shmem_int64_atomic_compare_swap(&g_lockword, 0, me + 1, 0) != 0)
            sched_yield();
        long v = shmem_long_g(&g_shared, 0);
        CHECK_EQ_I(shmem_int64_atomic_fetch(&g_lockword, 0), me + 1);
        if (i % 16 == 0)
            sched_yield(); /* let the others try while we hold it */
        shmem_long_p(&g_shared, v + 1, 0);
        shmem_quiet();
        int64_t old = shmem_int64_atomic_compare_swap(&g_lockword, me + 1, 0, 0);
        CHECK_EQ_I(old, me + 1);
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ_I(g_shared, (long)n * iters);
    shmem_barrier_all();
    st_note("compare_swap mutual exclusion");
}

int main(void)
{
    int provided = -1;
    CHECK_EQ_I(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), 0);
    st_begin();
    CHECK_EQ_I(provided, SHMEM_THREAD_MULTIPLE);
    CHECK_EQ_I(shmem_ctx_create(0, &g_ctx), 0);

    void *v = shmem_calloc(MAXPE, 16);
    CHECK_NOT_NULL(v);
    for (int c = 0; c < 2; c++) {
#define CALL_EXT(T, NAME, V) ext_##NAME(v, c);
#define CALL_STD(T, NAME) std_##NAME(v, c);
#define CALL_BIT(T, NAME) bit_##NAME(v, c);
        EXT_TYPES(CALL_EXT)
        STD_TYPES(CALL_STD)
        BIT_TYPES(CALL_BIT)
    }
    shmem_free(v);
    st_note("every AMO on every type, default and created ctx");
    test_widths();
    test_deprecated_and_generic();
    test_contention();
    test_cswap_mutex();

    ST_PHASE("finalize");
    shmem_ctx_destroy(g_ctx);
    shmem_finalize();
    if (st_me == 0)
        printf("ok: amo (%d PEs)\n", st_npes);
    return 0;
}
