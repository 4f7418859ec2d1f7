/* Small reductions, fcollects and collects: the sizes that Shoal sends
 * through its gather lines on one node (a block of at most 48 bytes per
 * PE, src/coll/gather_ring.c) and just above them, where it falls back to
 * the general algorithms.  Every result is compared with a serial
 * reference computed in team-member order, bit for bit (floating point
 * included: every PE must get exactly the same bits).
 *
 *   small ops    every operator of 14 types at 1, L-1, L, L+1 and 2L+3
 *                elements (L: the elements that fit 48 bytes), fcollect of
 *                0..64 and 200 bytes, collect with per-PE sizes below and
 *                across the limit, on the world, the reversed world and
 *                the odd PEs
 *   small reuse  thousands of reduce/fcollect/collect calls back to back
 *                into ONE dest, sizes on both sides of the limit, the
 *                source rewritten right before each call, and in turn one
 *                member delayed before it calls (so that a fast member
 *                starts a round while a slow one has not read the last):
 *                results checked right after each call
 *   small teams  teams split, used and destroyed over and over (their ctl
 *                slot is reused: the lines must start again at rest), and
 *                teams of one PE
 *
 * One dest for back-to-back calls is legal for these routines in Shoal on
 * every transport: a member's dest is written by that member only. */
#include "coll_test.h"

#include <complex.h>
#include <time.h>

#define LINE 48 /* bytes of a block that travels in a gather line */
#define BUF 4096

static int me, npes;
static unsigned char *src, *dst;
static double *fl_res; /* symmetric: every PE's double results, compared */

static ct_tdesc_t tw, trev, todd;

/* A strided split of the world (tw's model). */
static void make_team(ct_tdesc_t *d, const char *name, int start, int stride, int size)
{
    ct_make_team(d, name, SHMEM_TEAM_WORLD, &tw.m, start, stride, size);
}

/* ============================================================ values */

/* Operands: distinct per member, element and iteration; products stay
 * small; floating-point ones are inexact so that the order matters. */
#define V_INT(T, k, i, it) ((T)((((k)*7 + (i)*3 + (it)) % 23) - 9 + ((k) << ((i) % 5))))
#define V_PROD(T, k, i, it) ((T)(1 + ((k) + (i) + (it)) % 3))
#define V_FLT(T, k, i, it) ((T)(1.0 / ((k) + 3) + (i)*0.1 + (it)*1e-3))
#define V_FPROD(T, k, i, it) ((T)(1.0 + 1.0 / ((k) + (i) + (it) + 3)))
#define V_CPX(T, k, i, it) ((T)(V_FLT(double, k, i, it) + V_FLT(double, k + 5, i, it) * I))
#define V_CPROD(T, k, i, it) ((T)(V_FPROD(double, k, i, it) + 0.01 * ((k) + 1) * I))

/* acc = acc OP b, as the spec defines it (integers wrap: computed in the
 * unsigned type of the same width, U). */
#define C_AND(T, U, a, b) ((T)((a) & (b)))
#define C_OR(T, U, a, b) ((T)((a) | (b)))
#define C_XOR(T, U, a, b) ((T)((a) ^ (b)))
#define C_MAX(T, U, a, b) ((b) > (a) ? (b) : (a))
#define C_MIN(T, U, a, b) ((b) < (a) ? (b) : (a))
#define C_ISUM(T, U, a, b) ((T)(U)((unsigned long long)(U)(a) + (unsigned long long)(U)(b)))
#define C_IPROD(T, U, a, b) ((T)(U)((unsigned long long)(U)(a) * (unsigned long long)(U)(b)))
#define C_FSUM(T, U, a, b) ((a) + (b))
#define C_FPROD(T, U, a, b) ((a) * (b))

/* Same bits; long double compares by value (its padding bytes are not
 * part of it). */
#define SAME_BITS(T, a, b) (memcmp(&(a), &(b), sizeof(T)) == 0)
#define SAME_VAL(T, a, b) ((a) == (b))

/* One reduction of nr elements on team d, checked; dest's next element
 * must stay untouched. */
#define RED_FN(TN, T, U, OPN, COMB, VAL, SAME)                                                 \
    static void red_##TN##_##OPN(const ct_tdesc_t *d, size_t nr, int it)                       \
    {                                                                                          \
        T *s = (T *)(void *)src, *r = (T *)(void *)dst;                                        \
        const int n = d->m.n, t = d->m.me;                                                     \
        PHASE("%s_%s_reduce of %zu on the %s team, iteration %d", #TN, #OPN, nr, d->name, it); \
        for (size_t i = 0; i < nr; i++)                                                        \
            s[i] = VAL(T, t, i, it);                                                           \
        memset(r, 0xa5, (nr + 1) * sizeof(T));                                                 \
        CHECK_EQ_I(shmem_##TN##_##OPN##_reduce(d->t, r, s, nr), 0);                            \
        for (size_t i = 0; i < nr; i++) {                                                      \
            T a = VAL(T, 0, i, it);                                                            \
            for (int k = 1; k < n; k++) {                                                      \
                T b = VAL(T, k, i, it);                                                        \
                a = COMB(T, U, a, b);                                                          \
            }                                                                                  \
            CHECK_MSG(SAME(T, a, r[i]), "shmem_%s_%s_reduce(%zu) on the %s team: element %zu", \
                      #TN, #OPN, nr, d->name, i);                                              \
        }                                                                                      \
        CHECK_MSG(st_verify_byte(r + nr, sizeof(T), 0xa5) == SIZE_MAX,                         \
                  "shmem_%s_%s_reduce(%zu): wrote past dest", #TN, #OPN, nr);                  \
    }

/* The reductions of each kind of type, as lists of X(TN, T, U, op, combine,
 * values, compare): integers with and/or/xor too (ALL7) or max/min/sum/prod
 * only (ARITH4), floating point (FLOAT4: U is the comparison), complex
 * (CPX2).  TYPE_TESTS defines a test per operation and all_<TN>, which runs
 * them in the list's order. */
#define BIT3(X, TN, T, U)                     \
    X(TN, T, U, and, C_AND, V_INT, SAME_BITS) \
    X(TN, T, U, or, C_OR, V_INT, SAME_BITS)   \
    X(TN, T, U, xor, C_XOR, V_INT, SAME_BITS)
#define ARITH4(X, TN, T, U)                    \
    X(TN, T, U, max, C_MAX, V_INT, SAME_BITS)  \
    X(TN, T, U, min, C_MIN, V_INT, SAME_BITS)  \
    X(TN, T, U, sum, C_ISUM, V_INT, SAME_BITS) \
    X(TN, T, U, prod, C_IPROD, V_PROD, SAME_BITS)
#define ALL7(X, TN, T, U) BIT3(X, TN, T, U) ARITH4(X, TN, T, U)
#define FLOAT4(X, TN, T, SAME)            \
    X(TN, T, T, max, C_MAX, V_FLT, SAME)  \
    X(TN, T, T, min, C_MIN, V_FLT, SAME)  \
    X(TN, T, T, sum, C_FSUM, V_FLT, SAME) \
    X(TN, T, T, prod, C_FPROD, V_FPROD, SAME)
#define CPX2(X, TN, T, SAME)              \
    X(TN, T, T, sum, C_FSUM, V_CPX, SAME) \
    X(TN, T, T, prod, C_FPROD, V_CPROD, SAME)
#define CALL_RED(TN, T, U, OPN, COMB, VAL, SAME) red_##TN##_##OPN(d, nr, it);
#define TYPE_TESTS(OPS, TN, T, U)                                \
    OPS(RED_FN, TN, T, U)                                        \
    static void all_##TN(const ct_tdesc_t *d, size_t nr, int it) \
    {                                                            \
        OPS(CALL_RED, TN, T, U)                                  \
    }

TYPE_TESTS(ALL7, uchar, unsigned char, unsigned char)
TYPE_TESTS(ALL7, ushort, unsigned short, unsigned short)
TYPE_TESTS(ALL7, uint, unsigned int, unsigned int)
TYPE_TESTS(ALL7, int8, int8_t, uint8_t)
TYPE_TESTS(ALL7, int16, int16_t, uint16_t)
TYPE_TESTS(ALL7, int32, int32_t, uint32_t)
TYPE_TESTS(ALL7, int64, int64_t, uint64_t)
TYPE_TESTS(ALL7, uint64, uint64_t, uint64_t)
TYPE_TESTS(ARITH4, schar, signed char, unsigned char)
TYPE_TESTS(ARITH4, short, short, unsigned short)
TYPE_TESTS(ARITH4, int, int, unsigned int)
TYPE_TESTS(ARITH4, long, long, unsigned long)
TYPE_TESTS(FLOAT4, float, float, SAME_BITS)
TYPE_TESTS(FLOAT4, double, double, SAME_BITS)
TYPE_TESTS(FLOAT4, longdouble, long double, SAME_VAL)
TYPE_TESTS(CPX2, complexf, float _Complex, SAME_BITS)
TYPE_TESTS(CPX2, complexd, double _Complex, SAME_BITS)

typedef void (*all_fn)(const ct_tdesc_t *, size_t, int);
static const struct {
    all_fn fn;
    size_t size;
} types[] = {
    {all_uchar, 1},
    {all_ushort, 2},
    {all_uint, sizeof(unsigned)},
    {all_int8, 1},
    {all_int16, 2},
    {all_int32, 4},
    {all_int64, 8},
    {all_uint64, 8},
    {all_schar, 1},
    {all_short, 2},
    {all_int, sizeof(int)},
    {all_long, sizeof(long)},
    {all_float, 4},
    {all_double, 8},
    {all_longdouble, sizeof(long double)},
    {all_complexf, sizeof(float _Complex)},
    {all_complexd, sizeof(double _Complex)},
};

static void reduce_all_sizes(const ct_tdesc_t *d, int it)
{
    for (size_t k = 0; k < sizeof types / sizeof *types; k++) {
        size_t l = LINE / types[k].size;
        size_t counts[] = {1, l - 1, l, l + 1, 2 * l + 3};
        for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
            if (counts[c] > 0)
                types[k].fn(d, counts[c], it);
    }
}

/* ========================================================== (f)collect */

static void check_fcollect(const ct_tdesc_t *d, size_t nb, int it)
{
    const int n = d->m.n, t = d->m.me;
    const unsigned seed = (unsigned)it * 13u + (unsigned)nb;
    PHASE("fcollectmem of %zu bytes on the %s team, iteration %d", nb, d->name, it);
    st_fill(src, nb, t, seed);
    memset(dst, 0x5a, (size_t)n * nb + 8);
    CHECK_EQ_I(shmem_fcollectmem(d->t, dst, src, nb), 0);
    for (int k = 0; k < n; k++) {
        size_t bad = st_verify(dst + (size_t)k * nb, nb, k, seed);
        CHECK_MSG(bad == SIZE_MAX, "fcollectmem(%zu) on the %s team: block of member %d, byte %zu",
                  nb, d->name, k, bad);
    }
    CHECK_MSG(st_verify_byte(dst + (size_t)n * nb, 8, 0x5a) == SIZE_MAX,
              "fcollectmem(%zu): wrote past dest", nb);
}

/* Member k's collect size in pattern p (0: all below the limit, 1: one
 * member above it, 2: all zero, 3: all exactly at it, 4: every size). */
static size_t collect_size(int p, int k, int n, int it)
{
    switch (p) {
    case 0: return (size_t)(k * 5 + it) % (LINE + 1);
    case 1: return k == it % n ? LINE + 1 + (size_t)k : (size_t)(k % 3) * 10;
    case 2: return 0;
    case 3: return LINE;
    default: return (size_t)(k * 31 + it * 7) % 130;
    }
}

static void check_collect(const ct_tdesc_t *d, int p, int it)
{
    const int n = d->m.n, t = d->m.me;
    const unsigned seed = (unsigned)it * 17u + (unsigned)p;
    PHASE("collectmem pattern %d on the %s team, iteration %d", p, d->name, it);
    size_t total = 0;
    for (int k = 0; k < n; k++)
        total += collect_size(p, k, n, it);
    st_fill(src, collect_size(p, t, n, it), t, seed);
    memset(dst, 0x5a, total + 8);
    CHECK_EQ_I(shmem_collectmem(d->t, dst, src, collect_size(p, t, n, it)), 0);
    size_t off = 0;
    for (int k = 0; k < n; k++) {
        size_t len = collect_size(p, k, n, it);
        size_t bad = st_verify(dst + off, len, k, seed);
        CHECK_MSG(bad == SIZE_MAX,
                  "collectmem pattern %d on the %s team: block of member %d (%zu bytes at %zu), "
                  "byte %zu",
                  p, d->name, k, len, off, bad);
        off += len;
    }
    CHECK_MSG(st_verify_byte(dst + total, 8, 0x5a) == SIZE_MAX, "collectmem: wrote past dest");
}

/* ================================================================ ops */

static void mode_ops(void)
{
    const ct_tdesc_t *ts[] = {&tw, &trev, &todd};
    static const size_t fsizes[] = {0, 1, 7, 8, 47, 48, 49, 56, 57, 64, 200};
    for (int ti = 0; ti < 3; ti++) {
        const ct_tdesc_t *d = ts[ti];
        if (d->m.me < 0)
            continue;
        reduce_all_sizes(d, ti);
        for (size_t k = 0; k < sizeof fsizes / sizeof *fsizes; k++)
            check_fcollect(d, fsizes[k], ti);
        for (int p = 0; p < 5; p++)
            check_collect(d, p, ti);
    }
}

/* ============================================================== reuse */

/* Busy for about `us` microseconds (a sleep would let the scheduler's
 * granularity decide). */
static void delay_us(long us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static void reuse_on(const ct_tdesc_t *d, int iters)
{
    const int n = d->m.n, t = d->m.me;
    if (t < 0)
        return;
    for (int it = 0; it < iters; it++) {
        /* Member (it / 16) % n is the slow one for 16 calls, on every
         * third of them. */
        if (t == (it / 16) % n && it % 3 == 0)
            delay_us(20 + it % 50);
        switch (it % 5) {
        case 0: red_long_sum(d, (size_t)(1 + it % (LINE / sizeof(long) + 1)), it); break;
        case 1: red_double_sum(d, (size_t)(1 + it % 8), it); break;
        case 2: check_fcollect(d, (size_t)(it % 3 == 0 ? LINE + 1 : 1 + it % LINE), it); break;
        case 3: check_collect(d, it % 2 ? 0 : 4, it); break;
        default: red_int_max(d, (size_t)(1 + it % 20), it); break;
        }
    }
}

static void mode_reuse(void)
{
    reuse_on(&tw, 3000);
    reuse_on(&trev, 800);
    reuse_on(&todd, 800);
}

/* ============================================================== teams */

/* double sums: every member's result bit for bit the same as every
 * other's (read from them), as well as the serial one. */
static void float_agree(const ct_tdesc_t *d, int it)
{
    const int n = d->m.n, t = d->m.me;
    const size_t nr = LINE / sizeof(double);
    double *s = (double *)(void *)src;
    for (size_t i = 0; i < nr; i++)
        s[i] = V_FLT(double, t, i, it);
    CHECK_EQ_I(shmem_double_sum_reduce(d->t, fl_res, s, nr), 0);
    shmem_barrier_all();
    double other[LINE / sizeof(double)];
    for (int k = 0; k < n; k++) {
        shmem_getmem(other, fl_res, sizeof other, d->m.world[k]);
        CHECK_MSG(memcmp(other, fl_res, sizeof other) == 0,
                  "double sum on the %s team: member %d got other bits than member %d", d->name, k,
                  t);
    }
    shmem_barrier_all();
}

static void mode_teams(void)
{
    for (int r = 0; r < 12; r++) {
        ct_tdesc_t a, b, one;
        int stride = 1 + r % 3, start = r % 2 < npes ? r % 2 : 0;
        int size = npes > start ? (npes - start + stride - 1) / stride : 1;
        make_team(&a, "strided", start, stride, size);
        make_team(&b, "reversed", npes - 1, -1, npes);
        make_team(&one, "one PE", r % npes, 1, 1);
        for (int it = 0; it < 40; it++) {
            const ct_tdesc_t *d = it % 3 == 0 ? &b : it % 3 == 1 ? &a : &one;
            if (d->m.me < 0)
                continue;
            red_double_sum(d, (size_t)(1 + it % 7), it);
            red_uint64_xor(d, (size_t)(1 + it % 8), it);
            check_fcollect(d, (size_t)(8 * (1 + it % 8)), it);
            check_collect(d, it % 5, it);
        }
        if (a.m.me >= 0)
            float_agree(&a, r);
        else {
            shmem_barrier_all();
            shmem_barrier_all();
        }
        shmem_barrier_all();
        shmem_team_destroy(a.t);
        shmem_team_destroy(b.t);
        shmem_team_destroy(one.t);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ops";
    shmem_init();
    st_begin();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= CT_MAXPE);
    src = (unsigned char *)shmem_malloc(BUF);
    dst = (unsigned char *)shmem_malloc(BUF);
    fl_res = (double *)shmem_malloc(LINE);
    CHECK_NOT_NULL(src);
    CHECK_NOT_NULL(dst);
    CHECK_NOT_NULL(fl_res);
    tw.name = "world";
    tw.t = SHMEM_TEAM_WORLD;
    ct_world_model(&tw.m);
    make_team(&trev, "world reversed", npes - 1, -1, npes);
    make_team(&todd, "odd PEs", npes > 1 ? 1 : 0, 2, npes > 1 ? npes / 2 : 1);
    if (!strcmp(mode, "ops"))
        mode_ops();
    else if (!strcmp(mode, "reuse"))
        mode_reuse();
    else if (!strcmp(mode, "teams"))
        mode_teams();
    else
        CHECK_MSG(0, "unknown mode %s", mode);
    shmem_barrier_all();
    shmem_team_destroy(trev.t);
    shmem_team_destroy(todd.t);
    shmem_free(fl_res);
    shmem_free(dst);
    shmem_free(src);
    ST_PHASE("finalize");
    shmem_finalize();
    if (me == 0)
        printf("ok: small %s (%d PEs)\n", mode, npes);
    return 0;
}
