/* Point-to-point synchronization: wait_until / test with every comparison
 * on every standard AMO type (and the deprecated short/ushort/long forms),
 * signed and unsigned (values chosen so that comparing with the wrong
 * signedness returns early or never), the multi-element forms
 * wait_until_{all,any,some}[_vector] and test_{all,any,some}[_vector] with
 * status masks (NULL, partial, everything excluded, nelems 0), and
 * shmem_signal_wait_until.
 *
 * The values a waiter waits for are set by another PE (the left
 * neighbour; with one PE, by a thread of this PE) with AMOs, after a delay:
 * each PE runs a helper thread (SHMEM_THREAD_MULTIPLE) that updates its
 * right neighbour while its main thread waits on its own variables.  After
 * every wait the variables must really satisfy the condition (an early
 * return is caught).
 *
 *   p2p_sync            everything above
 *   p2p_sync any_fair   test_any / wait_until_any [_vector] with several
 *                       elements satisfying: successive calls of one thread
 *                       return every one of them (none is starved)
 *   p2p_sync short      the short / unsigned short forms of the
 *                       multi-element routines (deprecated types, kept by
 *                       other libraries) and their C11 generic names */
#include "shoal_test.h"

#define N 6
#define DELAY_US 1500

/* --------------------------------------------------- remote updaters */

struct remote {
    void (*go)(struct remote *);
    void *ivars;
    int pe;
    int count;
    int idx[N];
    uint64_t vbits[N]; /* the values, as the bytes of a T */
    long delay_us;
    pthread_t th;
};

static void *remote_main(void *p)
{
    struct remote *r = p;
    r->go(r);
    return NULL;
}

/* Everyone has set up its variables: start the updater (it first sleeps). */
static void remote_start(struct remote *r)
{
    shmem_barrier_all();
    CHECK_EQ_I(pthread_create(&r->th, NULL, remote_main, r), 0);
}

static void remote_end(struct remote *r)
{
    pthread_join(r->th, NULL);
    shmem_barrier_all();
}

/* ------------------------------------------------------- type tables */

#define P2P_TYPES(X)                 \
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

static const int cmps[6] = {SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT,
                            SHMEM_CMP_GE, SHMEM_CMP_LT, SHMEM_CMP_LE};
static const char *const cmp_names[6] = {"EQ", "NE", "GT", "GE", "LT", "LE"};

#define HOLDS(cmp, x, c)                  \
    ((cmp) == SHMEM_CMP_EQ   ? (x) == (c) \
     : (cmp) == SHMEM_CMP_NE ? (x) != (c) \
     : (cmp) == SHMEM_CMP_GT ? (x) > (c)  \
     : (cmp) == SHMEM_CMP_GE ? (x) >= (c) \
     : (cmp) == SHMEM_CMP_LT ? (x) < (c)  \
                             : (x) <= (c))

static char g_ph[200];
#define PHASE(...) (snprintf(g_ph, sizeof g_ph, __VA_ARGS__), ST_PHASE(g_ph))

/* Per type: a waiting case for each comparison (c, initial, final), the
 * initial value failing the condition and the final one meeting it.  For
 * unsigned types H has the top bit set, so that a signed comparison would
 * get the answer wrong (and return early, which is detected). */
#define DEF_P2P(T, NAME)                                                                           \
    static void go_##NAME(struct remote *r)                                                        \
    {                                                                                              \
        T *iv = r->ivars;                                                                          \
        for (int j = 0; j < r->count; j++) {                                                       \
            st_sleep_us(r->delay_us);                                                              \
            T v;                                                                                   \
            memcpy(&v, &r->vbits[j], sizeof v);                                                    \
            shmem_##NAME##_atomic_set(&iv[r->idx[j]], v, r->pe);                                   \
        }                                                                                          \
    }                                                                                              \
    static void upd_##NAME(struct remote *r, T *iv, int count, const int *idx, const T *vals,      \
                           long delay)                                                             \
    {                                                                                              \
        int me = shmem_my_pe(), n = shmem_n_pes();                                                 \
        r->go = go_##NAME;                                                                         \
        r->ivars = iv;                                                                             \
        r->pe = (me + 1) % n;                                                                      \
        r->count = count;                                                                          \
        r->delay_us = delay;                                                                       \
        for (int j = 0; j < count; j++) {                                                          \
            r->idx[j] = idx[j];                                                                    \
            r->vbits[j] = 0;                                                                       \
            memcpy(&r->vbits[j], &vals[j], sizeof(T));                                             \
        }                                                                                          \
    }                                                                                              \
    static void set_local_##NAME(T *iv, const T *vals, int count)                                  \
    {                                                                                              \
        int me = shmem_my_pe();                                                                    \
        for (int i = 0; i < count; i++)                                                            \
            shmem_##NAME##_atomic_set(&iv[i], vals[i], me);                                        \
    }                                                                                              \
    static void p2p_##NAME(T *iv)                                                                  \
    {                                                                                              \
        T minus1_ = (T)-1, zero_ = 0;                                                              \
        const int is_signed = minus1_ < zero_;                                                     \
        const T H = (T)(((uint64_t)1 << (sizeof(T) * 8 - 1)) | 5u);                                \
        struct {                                                                                   \
            int cmp;                                                                               \
            T c, i0, v;                                                                            \
        } cs[6];                                                                                   \
        if (is_signed) {                                                                           \
            T t[6][3] = {{(T)-7, (T)-8, (T)-7}, {(T)-7, (T)-7, (T)7}, {(T)-2, (T)-3, (T)-1},       \
                         {(T)-2, (T)-3, (T)-2}, {(T)-2, (T)2, (T)-3}, {(T)-2, (T)1, (T)-2}};       \
            for (int k = 0; k < 6; k++)                                                            \
                cs[k].cmp = cmps[k], cs[k].c = t[k][0], cs[k].i0 = t[k][1], cs[k].v = t[k][2];     \
        } else {                                                                                   \
            T t[6][3] = {                                                                          \
                {H, 5, H}, {H, H, 0}, {H, 5, (T)(H + 1)}, {H, 5, H}, {5, H, 3}, {5, H, 5}};        \
            for (int k = 0; k < 6; k++)                                                            \
                cs[k].cmp = cmps[k], cs[k].c = t[k][0], cs[k].i0 = t[k][1], cs[k].v = t[k][2];     \
        }                                                                                          \
        /* shmem_test: every comparison on a grid of values. */                                    \
        PHASE("shmem_%s_test grid", #NAME);                                                        \
        {                                                                                          \
            T sv[5] = {(T)-5, (T)-1, 0, 1, 7};                                                     \
            T uv[5] = {0, 1, 7, H, (T)-1};                                                         \
            const T *vals = is_signed ? sv : uv;                                                   \
            for (int a = 0; a < 5; a++)                                                            \
                for (int b = 0; b < 5; b++)                                                        \
                    for (int k = 0; k < 6; k++) {                                                  \
                        shmem_##NAME##_atomic_set(iv, vals[a], shmem_my_pe());                     \
                        int got = shmem_##NAME##_test(iv, cmps[k], vals[b]);                       \
                        int want = HOLDS(cmps[k], vals[a], vals[b]);                               \
                        CHECK_MSG(got == want,                                                     \
                                  "shmem_%s_test(%.20Lg %s %.20Lg) returned %d, expected %d",      \
                                  #NAME, (long double)vals[a], cmp_names[k], (long double)vals[b], \
                                  got, want);                                                      \
                    }                                                                              \
        }                                                                                          \
        /* shmem_wait_until: the value arrives from another PE. */                                 \
        for (int k = 0; k < 6; k++) {                                                              \
            PHASE("shmem_%s_wait_until %s", #NAME, cmp_names[k]);                                  \
            struct remote r;                                                                       \
            set_local_##NAME(iv, &cs[k].i0, 1);                                                    \
            CHECK_EQ_I(shmem_##NAME##_test(iv, cs[k].cmp, cs[k].c), 0);                            \
            int zero = 0;                                                                          \
            upd_##NAME(&r, iv, 1, &zero, &cs[k].v, DELAY_US);                                      \
            remote_start(&r);                                                                      \
            shmem_##NAME##_wait_until(iv, cs[k].cmp, cs[k].c);                                     \
            T now = shmem_##NAME##_atomic_fetch(iv, shmem_my_pe());                                \
            CHECK_MSG(HOLDS(cs[k].cmp, now, cs[k].c) && now == cs[k].v,                            \
                      "shmem_%s_wait_until(%s %.20Lg) returned with the value %.20Lg", #NAME,      \
                      cmp_names[k], (long double)cs[k].c, (long double)now);                       \
            CHECK_EQ_I(shmem_##NAME##_test(iv, cs[k].cmp, cs[k].c), 1);                            \
            remote_end(&r);                                                                        \
        }                                                                                          \
        /* Multi-element forms.  c/i0/v of the GE, EQ and NE cases. */                             \
        const int K_GE = 3, K_EQ = 0, K_NE = 1;                                                    \
        T init[N], sat[N], cv[N], vinit[N];                                                        \
        size_t idxs[N];                                                                            \
        struct remote r;                                                                           \
        for (int i = 0; i < N; i++) {                                                              \
            init[i] = cs[K_GE].i0;                                                                 \
            sat[i] = cs[K_GE].v;                                                                   \
            cv[i] = (T)(cs[K_EQ].v + (T)i); /* vector EQ: element i waits for v + i */             \
            vinit[i] = cs[K_EQ].i0;                                                                \
        }                                                                                          \
        const int all_idx[N] = {0, 1, 2, 3, 4, 5};                                                 \
        /* wait_until_all, NULL status: all six arrive one after another. */                       \
        PHASE("shmem_%s_wait_until_all NULL status", #NAME);                                       \
        set_local_##NAME(iv, init, N);                                                             \
        upd_##NAME(&r, iv, N, all_idx, sat, 300);                                                  \
        remote_start(&r);                                                                          \
        shmem_##NAME##_wait_until_all(iv, N, NULL, SHMEM_CMP_GE, cs[K_GE].c);                      \
        for (int i = 0; i < N; i++)                                                                \
            CHECK_MSG(shmem_##NAME##_atomic_fetch(&iv[i], shmem_my_pe()) == sat[i],                \
                      "wait_until_all returned before element %d arrived", i);                     \
        remote_end(&r);                                                                            \
        /* wait_until_all, partial status: excluded elements never satisfy. */                     \
        PHASE("shmem_%s_wait_until_all partial status", #NAME);                                    \
        {                                                                                          \
            const int st[N] = {0, 1, 0, 1, 1, 0};                                                  \
            const int inc[3] = {0, 2, 5};                                                          \
            set_local_##NAME(iv, init, N);                                                         \
            upd_##NAME(&r, iv, 3, inc, sat, 300);                                                  \
            remote_start(&r);                                                                      \
            shmem_##NAME##_wait_until_all(iv, N, st, SHMEM_CMP_GE, cs[K_GE].c);                    \
            for (int j = 0; j < 3; j++)                                                            \
                CHECK_MSG(shmem_##NAME##_atomic_fetch(&iv[inc[j]], shmem_my_pe()) == sat[0],       \
                          "wait_until_all returned before element %d arrived", inc[j]);            \
            remote_end(&r);                                                                        \
        }                                                                                          \
        /* wait_until_any, NULL status: only element 4 arrives. */                                 \
        PHASE("shmem_%s_wait_until_any NULL status", #NAME);                                       \
        {                                                                                          \
            T a[N];                                                                                \
            for (int i = 0; i < N; i++)                                                            \
                a[i] = cs[K_EQ].i0;                                                                \
            const int four = 4;                                                                    \
            set_local_##NAME(iv, a, N);                                                            \
            upd_##NAME(&r, iv, 1, &four, &cs[K_EQ].v, DELAY_US);                                   \
            remote_start(&r);                                                                      \
            size_t got = shmem_##NAME##_wait_until_any(iv, N, NULL, SHMEM_CMP_EQ, cs[K_EQ].c);     \
            CHECK_EQ_U(got, 4);                                                                    \
            remote_end(&r);                                                                        \
        }                                                                                          \
        /* wait_until_any, partial status: excluded elements already satisfy. */                   \
        PHASE("shmem_%s_wait_until_any partial status", #NAME);                                    \
        {                                                                                          \
            const int st[N] = {1, 0, 1, 0, 0, 1};                                                  \
            T a[N];                                                                                \
            for (int i = 0; i < N; i++)                                                            \
                a[i] = st[i] ? cs[K_EQ].v : cs[K_EQ].i0;                                           \
            const int three = 3;                                                                   \
            set_local_##NAME(iv, a, N);                                                            \
            upd_##NAME(&r, iv, 1, &three, &cs[K_EQ].v, DELAY_US);                                  \
            remote_start(&r);                                                                      \
            size_t got = shmem_##NAME##_wait_until_any(iv, N, st, SHMEM_CMP_EQ, cs[K_EQ].c);       \
            CHECK_EQ_U(got, 3);                                                                    \
            remote_end(&r);                                                                        \
        }                                                                                          \
        /* wait_until_some, NULL status: elements 1 and 4 change (NE). */                          \
        PHASE("shmem_%s_wait_until_some NULL status", #NAME);                                      \
        {                                                                                          \
            T a[N];                                                                                \
            for (int i = 0; i < N; i++)                                                            \
                a[i] = cs[K_NE].i0;                                                                \
            const int which[2] = {1, 4};                                                           \
            const T vals[2] = {cs[K_NE].v, cs[K_NE].v};                                            \
            set_local_##NAME(iv, a, N);                                                            \
            upd_##NAME(&r, iv, 2, which, vals, DELAY_US);                                          \
            remote_start(&r);                                                                      \
            int seen1 = 0, seen4 = 0;                                                              \
            double t0_ = st_now();                                                                 \
            while (!(seen1 && seen4) && st_now() - t0_ < 20.0) {                                   \
                for (int i = 0; i < N; i++)                                                        \
                    idxs[i] = 99;                                                                  \
                size_t cnt =                                                                       \
                    shmem_##NAME##_wait_until_some(iv, N, idxs, NULL, SHMEM_CMP_NE, cs[K_NE].c);   \
                CHECK_MSG(cnt >= 1 && cnt <= 2, "wait_until_some returned %zu", cnt);              \
                for (size_t j = 0; j < cnt; j++) {                                                 \
                    CHECK_MSG(idxs[j] == 1 || idxs[j] == 4,                                        \
                              "wait_until_some returned index %zu, which does not satisfy",        \
                              idxs[j]);                                                            \
                    for (size_t j2 = 0; j2 < j; j2++)                                              \
                        CHECK_MSG(idxs[j2] != idxs[j], "wait_until_some: duplicate index");        \
                    seen1 |= idxs[j] == 1;                                                         \
                    seen4 |= idxs[j] == 4;                                                         \
                }                                                                                  \
            }                                                                                      \
            CHECK(seen1 &&seen4);                                                                  \
            remote_end(&r);                                                                        \
        }                                                                                          \
        /* wait_until_some, partial status: excluded elements already satisfy. */                  \
        PHASE("shmem_%s_wait_until_some partial status", #NAME);                                   \
        {                                                                                          \
            const int st[N] = {1, 0, 0, 0, 0, 1};                                                  \
            T a[N];                                                                                \
            for (int i = 0; i < N; i++)                                                            \
                a[i] = st[i] ? cs[K_NE].v : cs[K_NE].i0;                                           \
            const int two = 2;                                                                     \
            set_local_##NAME(iv, a, N);                                                            \
            upd_##NAME(&r, iv, 1, &two, &cs[K_NE].v, DELAY_US);                                    \
            remote_start(&r);                                                                      \
            size_t cnt =                                                                           \
                shmem_##NAME##_wait_until_some(iv, N, idxs, st, SHMEM_CMP_NE, cs[K_NE].c);         \
            CHECK_EQ_U(cnt, 1);                                                                    \
            CHECK_EQ_U(idxs[0], 2);                                                                \
            remote_end(&r);                                                                        \
        }                                                                                          \
        /* Vector forms: element i waits for EQ v + i. */                                          \
        PHASE("shmem_%s_wait_until_all_vector", #NAME);                                            \
        set_local_##NAME(iv, vinit, N);                                                            \
        upd_##NAME(&r, iv, N, all_idx, cv, 300);                                                   \
        remote_start(&r);                                                                          \
        shmem_##NAME##_wait_until_all_vector(iv, N, NULL, SHMEM_CMP_EQ, cv);                       \
        for (int i = 0; i < N; i++)                                                                \
            CHECK_MSG(shmem_##NAME##_atomic_fetch(&iv[i], shmem_my_pe()) == cv[i],                 \
                      "wait_until_all_vector returned before element %d arrived", i);              \
        remote_end(&r);                                                                            \
        PHASE("shmem_%s_wait_until_any_vector partial status", #NAME);                             \
        {                                                                                          \
            const int st[N] = {1, 1, 0, 0, 1, 0};                                                  \
            T a[N];                                                                                \
            for (int i = 0; i < N; i++)                                                            \
                a[i] = st[i] ? cv[i] : vinit[i];                                                   \
            const int three = 3;                                                                   \
            set_local_##NAME(iv, a, N);                                                            \
            upd_##NAME(&r, iv, 1, &three, &cv[3], DELAY_US);                                       \
            remote_start(&r);                                                                      \
            size_t got = shmem_##NAME##_wait_until_any_vector(iv, N, st, SHMEM_CMP_EQ, cv);        \
            CHECK_EQ_U(got, 3);                                                                    \
            remote_end(&r);                                                                        \
        }                                                                                          \
        PHASE("shmem_%s_wait_until_some_vector", #NAME);                                           \
        {                                                                                          \
            const int st[N] = {0, 1, 0, 0, 0, 0};                                                  \
            T a[N];                                                                                \
            for (int i = 0; i < N; i++)                                                            \
                a[i] = st[i] ? cv[i] : vinit[i];                                                   \
            const int five = 5;                                                                    \
            set_local_##NAME(iv, a, N);                                                            \
            upd_##NAME(&r, iv, 1, &five, &cv[5], DELAY_US);                                        \
            remote_start(&r);                                                                      \
            size_t cnt = shmem_##NAME##_wait_until_some_vector(iv, N, idxs, st, SHMEM_CMP_EQ, cv); \
            CHECK_EQ_U(cnt, 1);                                                                    \
            CHECK_EQ_U(idxs[0], 5);                                                                \
            remote_end(&r);                                                                        \
        }                                                                                          \
        /* Empty wait sets: every status excluded, or nelems 0. */                                 \
        PHASE("shmem_%s empty wait sets", #NAME);                                                  \
        {                                                                                          \
            const int none[N] = {1, 1, 1, 1, 1, 1};                                                \
            set_local_##NAME(iv, vinit, N); /* nothing satisfies EQ cv */                          \
            shmem_barrier_all();                                                                   \
            shmem_##NAME##_wait_until_all(iv, N, none, SHMEM_CMP_EQ, cv[0]);                       \
            shmem_##NAME##_wait_until_all(iv, 0, NULL, SHMEM_CMP_EQ, cv[0]);                       \
            shmem_##NAME##_wait_until_all_vector(iv, N, none, SHMEM_CMP_EQ, cv);                   \
            shmem_##NAME##_wait_until_all_vector(iv, 0, NULL, SHMEM_CMP_EQ, cv);                   \
            CHECK_EQ_U(shmem_##NAME##_wait_until_any(iv, N, none, SHMEM_CMP_EQ, cv[0]), SIZE_MAX); \
            CHECK_EQ_U(shmem_##NAME##_wait_until_any(iv, 0, NULL, SHMEM_CMP_EQ, cv[0]), SIZE_MAX); \
            CHECK_EQ_U(shmem_##NAME##_wait_until_any_vector(iv, N, none, SHMEM_CMP_EQ, cv),        \
                       SIZE_MAX);                                                                  \
            CHECK_EQ_U(shmem_##NAME##_wait_until_any_vector(iv, 0, NULL, SHMEM_CMP_EQ, cv),        \
                       SIZE_MAX);                                                                  \
            CHECK_EQ_U(shmem_##NAME##_wait_until_some(iv, N, idxs, none, SHMEM_CMP_EQ, cv[0]), 0); \
            CHECK_EQ_U(shmem_##NAME##_wait_until_some(iv, 0, idxs, NULL, SHMEM_CMP_EQ, cv[0]), 0); \
            CHECK_EQ_U(shmem_##NAME##_wait_until_some_vector(iv, N, idxs, none, SHMEM_CMP_EQ, cv), \
                       0);                                                                         \
            CHECK_EQ_U(shmem_##NAME##_wait_until_some_vector(iv, 0, idxs, NULL, SHMEM_CMP_EQ, cv), \
                       0);                                                                         \
            CHECK_EQ_I(shmem_##NAME##_test_all(iv, N, none, SHMEM_CMP_EQ, cv[0]), 1);              \
            CHECK_EQ_I(shmem_##NAME##_test_all(iv, 0, NULL, SHMEM_CMP_EQ, cv[0]), 1);              \
            CHECK_EQ_I(shmem_##NAME##_test_all_vector(iv, N, none, SHMEM_CMP_EQ, cv), 1);          \
            CHECK_EQ_I(shmem_##NAME##_test_all_vector(iv, 0, NULL, SHMEM_CMP_EQ, cv), 1);          \
            CHECK_EQ_U(shmem_##NAME##_test_any(iv, N, none, SHMEM_CMP_EQ, cv[0]), SIZE_MAX);       \
            CHECK_EQ_U(shmem_##NAME##_test_any(iv, 0, NULL, SHMEM_CMP_EQ, cv[0]), SIZE_MAX);       \
            CHECK_EQ_U(shmem_##NAME##_test_any_vector(iv, N, none, SHMEM_CMP_EQ, cv), SIZE_MAX);   \
            CHECK_EQ_U(shmem_##NAME##_test_any_vector(iv, 0, NULL, SHMEM_CMP_EQ, cv), SIZE_MAX);   \
            CHECK_EQ_U(shmem_##NAME##_test_some(iv, N, idxs, none, SHMEM_CMP_EQ, cv[0]), 0);       \
            CHECK_EQ_U(shmem_##NAME##_test_some(iv, 0, idxs, NULL, SHMEM_CMP_EQ, cv[0]), 0);       \
            CHECK_EQ_U(shmem_##NAME##_test_some_vector(iv, N, idxs, none, SHMEM_CMP_EQ, cv), 0);   \
            CHECK_EQ_U(shmem_##NAME##_test_some_vector(iv, 0, idxs, NULL, SHMEM_CMP_EQ, cv), 0);   \
            shmem_barrier_all();                                                                   \
        }                                                                                          \
        /* test_all/any/some on fixed contents: elements 0, 2, 5 satisfy. */                       \
        PHASE("shmem_%s_test_all/any/some[_vector]", #NAME);                                       \
        {                                                                                          \
            T a[N];                                                                                \
            const int good[N] = {1, 0, 1, 0, 0, 1};                                                \
            for (int i = 0; i < N; i++)                                                            \
                a[i] = good[i] ? cv[i] : vinit[i];                                                 \
            set_local_##NAME(iv, a, N);                                                            \
            T c0 = cv[0];                                                                          \
            T b[N];                                                                                \
            for (int i = 0; i < N; i++)                                                            \
                b[i] = good[i] ? c0 : vinit[i];                                                    \
            T *ivb = iv + N;                                                                       \
            set_local_##NAME(ivb, b, N);              /* scalar form: elements 0, 2, 5 equal c0 */ \
            const int st_bad[N] = {0, 1, 0, 1, 1, 0}; /* excludes the failing ones */              \
            const int st_good[N] = {1, 0, 1, 0, 0, 1}; /* excludes the satisfying ones */          \
            const int st_0[N] = {1, 0, 0, 0, 0, 0};                                                \
            CHECK_EQ_I(shmem_##NAME##_test_all(ivb, N, NULL, SHMEM_CMP_EQ, c0), 0);                \
            CHECK_EQ_I(shmem_##NAME##_test_all(ivb, N, st_bad, SHMEM_CMP_EQ, c0), 1);              \
            CHECK_EQ_I(shmem_##NAME##_test_all_vector(iv, N, NULL, SHMEM_CMP_EQ, cv), 0);          \
            CHECK_EQ_I(shmem_##NAME##_test_all_vector(iv, N, st_bad, SHMEM_CMP_EQ, cv), 1);        \
            size_t any = shmem_##NAME##_test_any(ivb, N, NULL, SHMEM_CMP_EQ, c0);                  \
            CHECK_MSG(any < N && good[any], "test_any returned %zu", any);                         \
            CHECK_EQ_U(shmem_##NAME##_test_any(ivb, N, st_good, SHMEM_CMP_EQ, c0), SIZE_MAX);      \
            CHECK_EQ_U(shmem_##NAME##_test_any(ivb, 3, st_0, SHMEM_CMP_EQ, c0), 2);                \
            any = shmem_##NAME##_test_any_vector(iv, N, NULL, SHMEM_CMP_EQ, cv);                   \
            CHECK_MSG(any < N && good[any], "test_any_vector returned %zu", any);                  \
            CHECK_EQ_U(shmem_##NAME##_test_any_vector(iv, N, st_good, SHMEM_CMP_EQ, cv),           \
                       SIZE_MAX);                                                                  \
            for (int form = 0; form < 2; form++) {                                                 \
                for (int withst = 0; withst < 2; withst++) {                                       \
                    for (int i = 0; i < N; i++)                                                    \
                        idxs[i] = 99;                                                              \
                    const int *st = withst ? st_0 : NULL;                                          \
                    size_t cnt =                                                                   \
                        form ? shmem_##NAME##_test_some_vector(iv, N, idxs, st, SHMEM_CMP_EQ, cv)  \
                             : shmem_##NAME##_test_some(ivb, N, idxs, st, SHMEM_CMP_EQ, c0);       \
                    size_t want = withst ? 2 : 3;                                                  \
                    CHECK_MSG(cnt == want, "test_some%s (status %s) returned %zu, expected %zu",   \
                              form ? "_vector" : "", withst ? "excl. 0" : "NULL", cnt, want);      \
                    int mask = 0;                                                                  \
                    for (size_t j = 0; j < cnt; j++) {                                             \
                        CHECK_MSG(idxs[j] < N && good[idxs[j]] && !(withst && idxs[j] == 0),       \
                                  "test_some returned index %zu", idxs[j]);                        \
                        CHECK_MSG(!(mask & (1 << idxs[j])), "test_some: duplicate index");         \
                        mask |= 1 << idxs[j];                                                      \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
            shmem_barrier_all();                                                                   \
        }                                                                                          \
    }

P2P_TYPES(DEF_P2P)

/* ------------------------------------------- deprecated and generic forms */

static short g_short;
static unsigned short g_ushort;
static long g_long;
static int g_int;

struct dep_arg {
    int pe;
};

static void *dep_updater(void *p)
{
    struct dep_arg *a = p;
    st_sleep_us(DELAY_US);
    shmem_short_p(&g_short, -3, a->pe);
    shmem_quiet();
    st_sleep_us(DELAY_US);
    shmem_ushort_p(&g_ushort, 0xFFF0, a->pe);
    shmem_quiet();
    st_sleep_us(DELAY_US);
    shmem_long_atomic_set(&g_long, -9, a->pe);
    st_sleep_us(DELAY_US);
    shmem_int_atomic_set(&g_int, 12, a->pe);
    st_sleep_us(DELAY_US);
    shmem_long_atomic_set(&g_long, 33, a->pe);
    st_sleep_us(DELAY_US);
    shmem_int_atomic_set(&g_int, -1, a->pe);
    return NULL;
}

static void test_deprecated_and_generic(void)
{
    PHASE("deprecated short/ushort/long wait forms and C11 generics");
    int me = shmem_my_pe(), n = shmem_n_pes();
    g_short = 1;
    g_ushort = 1;
    g_long = 0;
    g_int = 0;
    CHECK_EQ_I(shmem_short_test(&g_short, SHMEM_CMP_LT, 0), 0);
    CHECK_EQ_I(shmem_ushort_test(&g_ushort, SHMEM_CMP_GT, 0x8000), 0);
    CHECK_EQ_I(shmem_test(&g_int, SHMEM_CMP_EQ, 0), 1);
    shmem_barrier_all();
    struct dep_arg a = {(me + 1) % n};
    pthread_t th;
    CHECK_EQ_I(pthread_create(&th, NULL, dep_updater, &a), 0);
    shmem_short_wait_until(&g_short, SHMEM_CMP_LT, 0);
    CHECK_EQ_I(g_short, -3);
    shmem_ushort_wait_until(&g_ushort, SHMEM_CMP_GT, 0x8000);
    CHECK_EQ_U(g_ushort, 0xFFF0);
    shmem_wait(&g_long, 0); /* until != 0 */
    long lnow = shmem_long_atomic_fetch(&g_long, me);
    CHECK_MSG(lnow == -9 || lnow == 33, "shmem_wait returned with the value %ld", lnow);
    shmem_int_wait(&g_int, 0);
    int inow = shmem_int_atomic_fetch(&g_int, me);
    CHECK_MSG(inow == 12 || inow == -1, "shmem_int_wait returned with the value %d", inow);
    (shmem_wait_until)(&g_long, SHMEM_CMP_GT, 0); /* the deprecated C function */
    CHECK_EQ_I(shmem_long_atomic_fetch(&g_long, me), 33);
    shmem_wait_until(&g_int, SHMEM_CMP_LT, 0); /* the C11 generic */
    CHECK_EQ_I(shmem_int_atomic_fetch(&g_int, me), -1);
    CHECK_EQ_I(shmem_test(&g_long, SHMEM_CMP_EQ, 33L), 1);
    pthread_join(th, NULL);
    shmem_barrier_all();

    long *iv = shmem_calloc(N, sizeof(long));
    CHECK_NOT_NULL(iv);
    size_t idx[N];
    CHECK_EQ_U(shmem_test_any(iv, N, NULL, SHMEM_CMP_EQ, 0L) < N, 1);
    CHECK_EQ_I(shmem_test_all(iv, N, NULL, SHMEM_CMP_EQ, 0L), 1);
    CHECK_EQ_U(shmem_test_some(iv, N, idx, NULL, SHMEM_CMP_EQ, 0L), N);
    shmem_wait_until_all(iv, N, NULL, SHMEM_CMP_GE, 0L);
    CHECK(shmem_wait_until_any(iv, N, NULL, SHMEM_CMP_EQ, 0L) < N);
    CHECK_EQ_U(shmem_wait_until_some(iv, N, idx, NULL, SHMEM_CMP_LE, 0L), N);
    const long cvs[N] = {0, 0, 0, 0, 0, 0};
    shmem_wait_until_all_vector(iv, N, NULL, SHMEM_CMP_EQ, cvs);
    CHECK_EQ_I(shmem_test_all_vector(iv, N, NULL, SHMEM_CMP_EQ, cvs), 1);
    shmem_barrier_all();
    shmem_free(iv);
}

/* ------------------------------------------------ signal_wait_until */

static uint64_t g_sig;

struct sig_arg {
    int pe;
    int step;
};

static void *sig_updater(void *p)
{
    struct sig_arg *a = p;
    st_sleep_us(DELAY_US);
    switch (a->step) {
    case 0:
        shmem_signal_add(&g_sig, 3, a->pe);
        st_sleep_us(DELAY_US);
        shmem_signal_add(&g_sig, 4, a->pe);
        break;
    case 1: shmem_signal_set(&g_sig, (1ull << 63) + 10, a->pe); break;
    case 2: shmem_signal_set(&g_sig, 5, a->pe); break;
    default: shmem_signal_add(&g_sig, 1, a->pe); break;
    }
    return NULL;
}

static void test_signal_wait(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    struct {
        uint64_t init;
        int cmp;
        uint64_t value, want;
    } cases[] = {
        {0, SHMEM_CMP_GE, 7, 7},                          /* two adds: 3 then 7 */
        {5, SHMEM_CMP_GT, 1ull << 63, (1ull << 63) + 10}, /* unsigned comparison */
        {1ull << 63, SHMEM_CMP_LT, 100, 5},               /* unsigned comparison */
        {41, SHMEM_CMP_EQ, 42, 42},
    };
    for (int k = 0; k < 4; k++) {
        PHASE("shmem_signal_wait_until case %d", k);
        g_sig = cases[k].init;
        shmem_barrier_all();
        struct sig_arg a = {(me + 1) % n, k};
        pthread_t th;
        CHECK_EQ_I(pthread_create(&th, NULL, sig_updater, &a), 0);
        uint64_t got = shmem_signal_wait_until(&g_sig, cases[k].cmp, cases[k].value);
        CHECK_EQ_U(got, cases[k].want);
        CHECK_EQ_U(shmem_signal_fetch(&g_sig), cases[k].want);
        pthread_join(th, NULL);
        shmem_barrier_all();
    }
    /* NE and LE on a value that already satisfies: returns it at once. */
    g_sig = 9;
    CHECK_EQ_U(shmem_signal_wait_until(&g_sig, SHMEM_CMP_NE, 8), 9);
    CHECK_EQ_U(shmem_signal_wait_until(&g_sig, SHMEM_CMP_LE, 9), 9);
    shmem_barrier_all();
}

/* ---------------------------------------- fairness of test_any / wait_until_any */

enum { F_TEST_ANY, F_TEST_ANY_VECTOR, F_WAIT_ANY, F_WAIT_ANY_VECTOR, F_FORMS };
static const char *const any_form_names[F_FORMS] = {
    "shmem_int_test_any", "shmem_int_test_any_vector", "shmem_int_wait_until_any",
    "shmem_int_wait_until_any_vector"};

static size_t any_call(int form, int *flags, const int *status)
{
    static const int ones[N] = {1, 1, 1, 1, 1, 1};
    switch (form) {
    case F_TEST_ANY: return shmem_int_test_any(flags, N, status, SHMEM_CMP_EQ, 1);
    case F_TEST_ANY_VECTOR: return shmem_int_test_any_vector(flags, N, status, SHMEM_CMP_EQ, ones);
    case F_WAIT_ANY: return shmem_int_wait_until_any(flags, N, status, SHMEM_CMP_EQ, 1);
    default: return shmem_int_wait_until_any_vector(flags, N, status, SHMEM_CMP_EQ, ones);
    }
}

/* N successive calls of one form from this thread: every element in
 * `want` comes back, nothing outside it does. */
static void check_any_serves_all(int form, int *flags, const int *status, const int *want,
                                 const char *what)
{
    int seen[N] = {0};
    for (int k = 0; k < N; k++) {
        size_t i = any_call(form, flags, status);
        CHECK_MSG(i < N && want[i], "%s (%s): call %d returned %zu, not a satisfying index",
                  any_form_names[form], what, k, i);
        seen[i] = 1;
    }
    for (int i = 0; i < N; i++)
        CHECK_MSG(!want[i] || seen[i],
                  "%s (%s): index %d was never returned in %d successive calls",
                  any_form_names[form], what, i, N);
}

struct fair_arg {
    int *flags;
    pthread_barrier_t *start;
};

/* Another thread polling the same flags at the same time: its calls must
 * not take turns away from this thread's (the rotation is per thread). */
static void *fair_thread(void *p)
{
    struct fair_arg *a = p;
    static const int all[N] = {1, 1, 1, 1, 1, 1};
    pthread_barrier_wait(a->start);
    for (int form = 0; form < F_FORMS; form++)
        check_any_serves_all(form, a->flags, NULL, all, "second thread");
    return NULL;
}

static void test_any_fairness(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int *flags = shmem_calloc(N, sizeof(int));
    CHECK_NOT_NULL(flags);
    /* A server: the left neighbour raises every flag of this PE, and this
     * PE serves whichever test_any names until each was served once. */
    PHASE("test_any server loop, all flags raised");
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        shmem_int_atomic_set(&flags[i], 1, (me + 1) % n);
    shmem_barrier_all();
    int served[N] = {0}, nserved = 0, calls = 0;
    while (nserved < N && calls < 100 * N) {
        size_t i = shmem_int_test_any(flags, N, NULL, SHMEM_CMP_EQ, 1);
        calls++;
        CHECK_MSG(i < N, "shmem_int_test_any returned %zu with every flag raised", i);
        if (!served[i]) {
            served[i] = 1;
            nserved++;
        }
    }
    CHECK_MSG(nserved == N, "after %d calls of shmem_int_test_any only %d of %d flags were served",
              calls, nserved, N);
    CHECK_MSG(calls <= N, "serving %d raised flags took %d calls of shmem_int_test_any", N, calls);

    static const int all[N] = {1, 1, 1, 1, 1, 1};
    for (int form = 0; form < F_FORMS; form++) {
        PHASE("%s: every index within %d calls", any_form_names[form], N);
        check_any_serves_all(form, flags, NULL, all, "status NULL");
        /* With a status mask: only the included ones, all of them. */
        const int st[N] = {0, 1, 0, 1, 1, 0}, included[N] = {1, 0, 1, 0, 0, 1};
        check_any_serves_all(form, flags, st, included, "status excludes 1, 3, 4");
    }
    /* Only some satisfy: those, in turn. */
    PHASE("test_any with flags 1 and 4 raised");
    for (int i = 0; i < N; i++)
        flags[i] = 0;
    shmem_barrier_all();
    shmem_int_atomic_set(&flags[1], 1, (me + 1) % n);
    shmem_int_atomic_set(&flags[4], 1, (me + 1) % n);
    shmem_barrier_all();
    const int raised[N] = {0, 1, 0, 0, 1, 0};
    for (int form = 0; form < F_FORMS; form++)
        check_any_serves_all(form, flags, NULL, raised, "flags 1 and 4");

    /* Two threads polling at once each see every index. */
    PHASE("test_any from two threads");
    for (int i = 0; i < N; i++)
        flags[i] = 1;
    pthread_barrier_t start;
    CHECK_EQ_I(pthread_barrier_init(&start, NULL, 2), 0);
    struct fair_arg a = {flags, &start};
    pthread_t th;
    CHECK_EQ_I(pthread_create(&th, NULL, fair_thread, &a), 0);
    pthread_barrier_wait(&start);
    for (int form = 0; form < F_FORMS; form++)
        check_any_serves_all(form, flags, NULL, all, "main thread");
    pthread_join(th, NULL);
    pthread_barrier_destroy(&start);
    shmem_barrier_all();
    shmem_free(flags);
}

/* ---------------------------------- short / unsigned short multi-element forms */

/* Per type: the condition the waits use (CMP against C), a value meeting
 * it (HI; for unsigned short it has the top bit set, for short it is
 * negative, so a comparison of the wrong signedness fails or returns
 * early) and one failing it (LO). */
struct short_upd {
    void (*go)(struct short_upd *);
    void *ivars;
    int pe, count, idx[N];
    int vals[N];
    pthread_t th;
};

static void *short_upd_main(void *p)
{
    struct short_upd *u = p;
    u->go(u);
    return NULL;
}

/* short_start_T: after a barrier, a thread sets elements idx of the right
 * neighbour's copy (with one PE, of this PE's) to vals, one by one. */
#define SHORT_TYPES(X)                      \
    X(short, short, SHMEM_CMP_LT, 0, -3, 1) \
    X(unsigned short, ushort, SHMEM_CMP_GT, 0x8000, 0xFFF0, 1)

#define DEF_SHORT(T, NAME, CMP, C, HI, LO)                                                         \
    static void short_go_##NAME(struct short_upd *u)                                               \
    {                                                                                              \
        T *iv = u->ivars;                                                                          \
        for (int j = 0; j < u->count; j++) {                                                       \
            st_sleep_us(300);                                                                      \
            shmem_##NAME##_p(&iv[u->idx[j]], (T)u->vals[j], u->pe);                                \
            shmem_quiet();                                                                         \
        }                                                                                          \
    }                                                                                              \
    static void short_start_##NAME(struct short_upd *u, T *iv, int count, const int *idx,          \
                                   const int *vals)                                                \
    {                                                                                              \
        u->go = short_go_##NAME;                                                                   \
        u->ivars = iv;                                                                             \
        u->pe = (shmem_my_pe() + 1) % shmem_n_pes();                                               \
        u->count = count;                                                                          \
        for (int j = 0; j < count; j++)                                                            \
            u->idx[j] = idx[j], u->vals[j] = vals[j];                                              \
        shmem_barrier_all();                                                                       \
        CHECK_EQ_I(pthread_create(&u->th, NULL, short_upd_main, u), 0);                            \
    }                                                                                              \
    static void short_end_##NAME(struct short_upd *u)                                              \
    {                                                                                              \
        pthread_join(u->th, NULL);                                                                 \
        shmem_barrier_all();                                                                       \
    }                                                                                              \
    static void short_fill_##NAME(T *iv, T v)                                                      \
    {                                                                                              \
        for (int i = 0; i < N; i++)                                                                \
            iv[i] = v;                                                                             \
    }                                                                                              \
    static void short_forms_##NAME(T *iv)                                                          \
    {                                                                                              \
        const T hi = (T)(HI), lo = (T)(LO), c = (T)(C);                                            \
        const int all_idx[N] = {0, 1, 2, 3, 4, 5};                                                 \
        int his[N], vhis[N];                                                                       \
        T cv[N];                                                                                   \
        for (int i = 0; i < N; i++) {                                                              \
            his[i] = (int)hi;                                                                      \
            cv[i] = (T)(hi - i); /* vector EQ: element i waits for HI - i */                       \
            vhis[i] = (int)cv[i];                                                                  \
        }                                                                                          \
        size_t idx[N], r;                                                                          \
        struct short_upd u;                                                                        \
        PHASE("shmem_%s_wait_until_all", #NAME);                                                   \
        short_fill_##NAME(iv, lo);                                                                 \
        CHECK_EQ_I(shmem_##NAME##_test_all(iv, N, NULL, CMP, c), 0);                               \
        short_start_##NAME(&u, iv, N, all_idx, his);                                               \
        shmem_##NAME##_wait_until_all(iv, N, NULL, CMP, c);                                        \
        for (int i = 0; i < N; i++)                                                                \
            CHECK_MSG(iv[i] == hi,                                                                 \
                      "shmem_%s_wait_until_all returned before element %d "                        \
                      "arrived",                                                                   \
                      #NAME, i);                                                                   \
        CHECK_EQ_I(shmem_##NAME##_test_all(iv, N, NULL, CMP, c), 1);                               \
        short_end_##NAME(&u);                                                                      \
                                                                                                   \
        PHASE("shmem_%s_wait_until_any", #NAME);                                                   \
        short_fill_##NAME(iv, lo);                                                                 \
        CHECK_EQ_U(shmem_##NAME##_test_any(iv, N, NULL, CMP, c), SIZE_MAX);                        \
        short_start_##NAME(&u, iv, 1, &all_idx[4], his);                                           \
        CHECK_EQ_U(shmem_##NAME##_wait_until_any(iv, N, NULL, CMP, c), 4);                         \
        CHECK_EQ_U(shmem_##NAME##_test_any(iv, N, NULL, CMP, c), 4);                               \
        short_end_##NAME(&u);                                                                      \
                                                                                                   \
        PHASE("shmem_%s_wait_until_some", #NAME);                                                  \
        short_fill_##NAME(iv, lo);                                                                 \
        CHECK_EQ_U(shmem_##NAME##_test_some(iv, N, idx, NULL, CMP, c), 0);                         \
        const int odd[2] = {1, 3};                                                                 \
        short_start_##NAME(&u, iv, 2, odd, his);                                                   \
        r = shmem_##NAME##_wait_until_some(iv, N, idx, NULL, CMP, c);                              \
        CHECK_MSG(r >= 1 && r <= 2, "shmem_%s_wait_until_some returned %zu", #NAME, r);            \
        for (size_t j = 0; j < r; j++)                                                             \
            CHECK_MSG(idx[j] == 1 || idx[j] == 3, "shmem_%s_wait_until_some: index %zu", #NAME,    \
                      idx[j]);                                                                     \
        short_end_##NAME(&u);                                                                      \
        CHECK_EQ_U(shmem_##NAME##_test_some(iv, N, idx, NULL, CMP, c), 2);                         \
                                                                                                   \
        PHASE("shmem_%s_wait_until_*_vector", #NAME);                                              \
        short_fill_##NAME(iv, lo);                                                                 \
        CHECK_EQ_I(shmem_##NAME##_test_all_vector(iv, N, NULL, SHMEM_CMP_EQ, cv), 0);              \
        short_start_##NAME(&u, iv, N, all_idx, vhis);                                              \
        shmem_##NAME##_wait_until_all_vector(iv, N, NULL, SHMEM_CMP_EQ, cv);                       \
        for (int i = 0; i < N; i++)                                                                \
            CHECK_MSG(iv[i] == cv[i], "shmem_%s_wait_until_all_vector: element %d = %d", #NAME, i, \
                      (int)iv[i]);                                                                 \
        short_end_##NAME(&u);                                                                      \
        short_fill_##NAME(iv, lo);                                                                 \
        short_start_##NAME(&u, iv, 1, &all_idx[2], &vhis[2]);                                      \
        CHECK_EQ_U(shmem_##NAME##_wait_until_any_vector(iv, N, NULL, SHMEM_CMP_EQ, cv), 2);        \
        short_end_##NAME(&u);                                                                      \
        short_fill_##NAME(iv, lo);                                                                 \
        const int ends[2] = {0, 5}, ends_v[2] = {vhis[0], vhis[5]};                                \
        short_start_##NAME(&u, iv, 2, ends, ends_v);                                               \
        r = shmem_##NAME##_wait_until_some_vector(iv, N, idx, NULL, SHMEM_CMP_EQ, cv);             \
        CHECK_MSG(r >= 1 && r <= 2 && (idx[0] == 0 || idx[0] == 5),                                \
                  "shmem_%s_wait_until_some_vector returned %zu (first index %zu)", #NAME, r,      \
                  idx[0]);                                                                         \
        short_end_##NAME(&u);                                                                      \
                                                                                                   \
        PHASE("shmem_%s_test_*[_vector] with status masks", #NAME);                                \
        {                                                                                          \
            const int good[N] = {1, 0, 1, 0, 0, 1};                                                \
            const int st_bad[N] = {0, 1, 0, 1, 1, 0}; /* excludes the failing ones */              \
            T *ivv = iv + N;                                                                       \
            for (int i = 0; i < N; i++) {                                                          \
                iv[i] = good[i] ? hi : lo;                                                         \
                ivv[i] = good[i] ? cv[i] : lo;                                                     \
            }                                                                                      \
            CHECK_EQ_I(shmem_##NAME##_test_all(iv, N, NULL, CMP, c), 0);                           \
            CHECK_EQ_I(shmem_##NAME##_test_all(iv, N, st_bad, CMP, c), 1);                         \
            CHECK_EQ_I(shmem_##NAME##_test_all_vector(ivv, N, st_bad, SHMEM_CMP_EQ, cv), 1);       \
            r = shmem_##NAME##_test_any(iv, N, NULL, CMP, c);                                      \
            CHECK_MSG(r < N && good[r], "shmem_%s_test_any returned %zu", #NAME, r);               \
            r = shmem_##NAME##_test_any_vector(ivv, N, NULL, SHMEM_CMP_EQ, cv);                    \
            CHECK_MSG(r < N && good[r], "shmem_%s_test_any_vector returned %zu", #NAME, r);        \
            CHECK_EQ_U(shmem_##NAME##_test_some(iv, N, idx, NULL, CMP, c), 3);                     \
            CHECK_EQ_U(shmem_##NAME##_test_some_vector(ivv, N, idx, st_bad, SHMEM_CMP_EQ, cv), 3); \
            CHECK_EQ_U(shmem_##NAME##_test_some(iv, N, idx, good, CMP, c), 0);                     \
                                                                                                   \
            /* The C11 generic names select these routines by the pointer type. */                 \
            PHASE("C11 generics on %s", #T);                                                       \
            CHECK_EQ_I(shmem_test_all(iv, N, st_bad, CMP, c), 1);                                  \
            r = shmem_test_any(iv, N, NULL, CMP, c);                                               \
            CHECK_MSG(r < N && good[r], "shmem_test_any(%s *) returned %zu", #T, r);               \
            CHECK_EQ_U(shmem_test_some(iv, N, idx, NULL, CMP, c), 3);                              \
            CHECK_EQ_I(shmem_test_all_vector(ivv, N, st_bad, SHMEM_CMP_EQ, cv), 1);                \
            r = shmem_test_any_vector(ivv, N, NULL, SHMEM_CMP_EQ, cv);                             \
            CHECK_MSG(r < N && good[r], "shmem_test_any_vector(%s *) returned %zu", #T, r);        \
            CHECK_EQ_U(shmem_test_some_vector(ivv, N, idx, NULL, SHMEM_CMP_EQ, cv), 3);            \
            shmem_wait_until_all(iv, N, st_bad, CMP, c);                                           \
            r = shmem_wait_until_any(iv, N, NULL, CMP, c);                                         \
            CHECK_MSG(r < N && good[r], "shmem_wait_until_any(%s *) returned %zu", #T, r);         \
            CHECK_EQ_U(shmem_wait_until_some(iv, N, idx, NULL, CMP, c), 3);                        \
            shmem_wait_until_all_vector(ivv, N, st_bad, SHMEM_CMP_EQ, cv);                         \
            r = shmem_wait_until_any_vector(ivv, N, NULL, SHMEM_CMP_EQ, cv);                       \
            CHECK_MSG(r < N && good[r], "shmem_wait_until_any_vector(%s *) returned %zu", #T, r);  \
            CHECK_EQ_U(shmem_wait_until_some_vector(ivv, N, idx, st_bad, SHMEM_CMP_EQ, cv), 3);    \
            shmem_barrier_all();                                                                   \
        }                                                                                          \
    }

SHORT_TYPES(DEF_SHORT)

static void test_short_forms(void)
{
    void *iv = shmem_calloc(2 * N, sizeof(short));
    CHECK_NOT_NULL(iv);
#define CALL_SHORT(T, NAME, CMP, C, HI, LO) \
    short_forms_##NAME((T *)iv);            \
    st_note("multi-element wait/test " #NAME);
    SHORT_TYPES(CALL_SHORT)
    shmem_free(iv);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    int provided = -1;
    CHECK_EQ_I(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), 0);
    st_begin();
    CHECK_EQ_I(provided, SHMEM_THREAD_MULTIPLE);
    if (!strcmp(mode, "any_fair") || !strcmp(mode, "short")) {
        if (!strcmp(mode, "any_fair"))
            test_any_fairness();
        else
            test_short_forms();
        ST_PHASE("finalize");
        shmem_finalize();
        if (st_me == 0)
            printf("ok: p2p_sync %s (%d PEs)\n", mode, st_npes);
        return 0;
    }
    void *iv = shmem_calloc(2 * N, 8);
    CHECK_NOT_NULL(iv);
#define CALL_P2P(T, NAME) \
    p2p_##NAME((T *)iv);  \
    st_note("wait/test " #NAME);
    P2P_TYPES(CALL_P2P)
    shmem_free(iv);
    test_deprecated_and_generic();
    test_signal_wait();
    ST_PHASE("finalize");
    shmem_finalize();
    if (st_me == 0)
        printf("ok: p2p_sync (%d PEs)\n", st_npes);
    return 0;
}
