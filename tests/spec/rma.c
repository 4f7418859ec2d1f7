/* RMA: put/get/p/g, nbi forms, strided iput/iget and blocked ibput/ibget
 * (1.6), for every standard RMA type, every SIZE and *mem; on the
 * symmetric heap and on global/static arrays; to every PE including self;
 * on the default context and on a created one.
 *
 * Every transfer is checked element by element, and the bytes around it
 * (gaps of strided transfers, guards before and after) must be untouched. */
#include "shoal_test.h"

#define MAXPE 64
#define BIG ((size_t)(1 << 20) + 3)
#define GUARD 64
#define REGION (BIG + 8192 + 2 * GUARD)

static unsigned char g_region[REGION];           /* .bss: symmetric */
static unsigned char g_dregion[256] = {1, 2, 3}; /* .data: symmetric */
static shmem_ctx_t g_ctx;

/* ---------------------------------------------------------- *mem forms */

enum { VIA_BLOCKING, VIA_NBI, VIA_CTX, VIA_CTX_NBI, VIA_COUNT };
static const char *const via_name[VIA_COUNT] = {"blocking", "nbi+quiet", "ctx", "ctx nbi+quiet"};

static void do_putmem(int via, void *d, const void *s, size_t n, int pe)
{
    switch (via) {
    case VIA_BLOCKING: shmem_putmem(d, s, n, pe); break;
    case VIA_NBI:
        shmem_putmem_nbi(d, s, n, pe);
        shmem_quiet();
        break;
    /* shmem_barrier_all completes the default context only: a blocking
     * put on another context is complete at the target after its quiet
     * (it is on the network path). */
    case VIA_CTX:
        shmem_ctx_putmem(g_ctx, d, s, n, pe);
        shmem_ctx_quiet(g_ctx);
        break;
    default:
        shmem_ctx_putmem_nbi(g_ctx, d, s, n, pe);
        shmem_ctx_quiet(g_ctx);
        break;
    }
}

static void do_getmem(int via, void *d, const void *s, size_t n, int pe)
{
    switch (via) {
    case VIA_BLOCKING: shmem_getmem(d, s, n, pe); break;
    case VIA_NBI:
        shmem_getmem_nbi(d, s, n, pe);
        shmem_quiet();
        break;
    case VIA_CTX: shmem_ctx_getmem(g_ctx, d, s, n, pe); break;
    default:
        shmem_ctx_getmem_nbi(g_ctx, d, s, n, pe);
        shmem_ctx_quiet(g_ctx);
        break;
    }
}

/* One round: every PE puts `size` bytes at `off` of `region` on PE me+k,
 * and then gets them back from PE me+k. */
static void mem_round(unsigned char *region, const char *rname, size_t size, size_t off, int k,
                      int via, unsigned seed, unsigned char *src, unsigned char *dst)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int target = (me + k) % n, from = (me + n - k % n) % n;
    static char phase[160];
    snprintf(phase, sizeof phase, "putmem/getmem %s size %zu off %zu k %d %s", rname, size, off, k,
             via_name[via]);
    ST_PHASE(phase);

    /* put */
    memset(region, 0xEE, off + size + GUARD);
    st_fill(src + 5, size, me, seed);
    shmem_barrier_all();
    do_putmem(via, region + off, src + 5, size, target);
    shmem_barrier_all();
    CHECK_BYTES(region, off, 0xEE);
    CHECK_PATTERN(region + off, size, from, seed);
    CHECK_BYTES(region + off + size, GUARD, 0xEE);
    shmem_barrier_all();

    /* get: every PE's region holds its own pattern */
    st_fill(region + off, size, me, seed + 1);
    memset(dst, 0xDD, size + 2 * GUARD);
    shmem_barrier_all();
    do_getmem(via, dst + GUARD, region + off, size, target);
    CHECK_BYTES(dst, GUARD, 0xDD);
    CHECK_PATTERN(dst + GUARD, size, target, seed + 1);
    CHECK_BYTES(dst + GUARD + size, GUARD, 0xDD);
    shmem_barrier_all();
}

static void test_mem(void)
{
    int n = shmem_n_pes();
    static const size_t sizes[] = {0, 1, 7, 4095, 4097, BIG};
    /* Offsets chosen so that transfers start just before a page boundary
     * of the region's start and cross it (the region itself may start
     * anywhere in a page: both the aligned and the odd case are covered). */
    static const size_t offs[] = {0, 4093};
    unsigned char *heap = shmem_malloc(REGION);
    CHECK_NOT_NULL(heap);
    unsigned char *src = malloc(REGION + 16);
    unsigned char *dst = malloc(REGION + 2 * GUARD);
    CHECK_NOT_NULL(src);
    CHECK_NOT_NULL(dst);
    unsigned seed = 1;
    for (int r = 0; r < 2; r++) {
        unsigned char *region = r == 0 ? heap : g_region;
        const char *rname = r == 0 ? "heap" : "global";
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (size_t oi = 0; oi < sizeof offs / sizeof offs[0]; oi++)
                for (int k = 0; k < n; k++) {
                    /* All four ways for small sizes; the big one rotates. */
                    for (int via = 0; via < VIA_COUNT; via++) {
                        if (sizes[si] == BIG && via != (k + (int)oi) % VIA_COUNT)
                            continue;
                        mem_round(region, rname, sizes[si], offs[oi], k, via, seed, src, dst);
                        seed += 2;
                    }
                }
    }
    /* Initialised data (.data) works as well as .bss. */
    ST_PHASE("putmem into .data");
    int me = shmem_my_pe();
    CHECK_EQ_I(g_dregion[1], 2);
    unsigned char small[100];
    st_fill(small, sizeof small, me, 777);
    shmem_barrier_all();
    shmem_putmem(g_dregion + 7, small, sizeof small, (me + 1) % n);
    shmem_barrier_all();
    CHECK_PATTERN(g_dregion + 7, sizeof small, (me + n - 1) % n, 777);
    CHECK_EQ_I(g_dregion[1], 2);
    shmem_barrier_all();

    free(src);
    free(dst);
    shmem_free(heap);
    st_note("putmem/getmem all sizes, offsets, PEs, heap and global");
}

/* -------------------------------------------------------- typed forms */

#define NEL 37
#define AREA (8 * NEL)

/* Deterministic values exact in every type. */
#define VAL_I(T, pe, i, s) ((T)st_u64((pe), (uint64_t)(i), (s)))
#define VAL_F(T, pe, i, s) ((T)(st_u64((pe), (uint64_t)(i), (s)) & 0xfffff) + (T)0.5)

#define RMA_TYPES(X)                        \
    X(float, float, VAL_F)                  \
    X(double, double, VAL_F)                \
    X(long double, longdouble, VAL_F)       \
    X(char, char, VAL_I)                    \
    X(signed char, schar, VAL_I)            \
    X(short, short, VAL_I)                  \
    X(int, int, VAL_I)                      \
    X(long, long, VAL_I)                    \
    X(long long, longlong, VAL_I)           \
    X(unsigned char, uchar, VAL_I)          \
    X(unsigned short, ushort, VAL_I)        \
    X(unsigned int, uint, VAL_I)            \
    X(unsigned long, ulong, VAL_I)          \
    X(unsigned long long, ulonglong, VAL_I) \
    X(int8_t, int8, VAL_I)                  \
    X(int16_t, int16, VAL_I)                \
    X(int32_t, int32, VAL_I)                \
    X(int64_t, int64, VAL_I)                \
    X(uint8_t, uint8, VAL_I)                \
    X(uint16_t, uint16, VAL_I)              \
    X(uint32_t, uint32, VAL_I)              \
    X(uint64_t, uint64, VAL_I)              \
    X(size_t, size, VAL_I)                  \
    X(ptrdiff_t, ptrdiff, VAL_I)

/* Expected contents of the AREA elements of the destination: written[i]
 * says whether element i must hold exp[i] or still hold the sentinel. */
static unsigned char g_written[AREA];

/* Check one area against expectations. */
#define CHECK_AREA(T, area, exp, sentinel, what)                                                \
    do {                                                                                        \
        for (int i_ = 0; i_ < AREA; i_++) {                                                     \
            if (g_written[i_])                                                                  \
                CHECK_MSG((area)[i_] == (exp)[i_],                                              \
                          "%s %s: element %d expected %.21Lg, got %.21Lg", #T, what, i_,        \
                          (long double)(exp)[i_], (long double)(area)[i_]);                     \
            else                                                                                \
                CHECK_MSG((area)[i_] == (sentinel),                                             \
                          "%s %s: element %d is outside the transfer but was written (%.21Lg)", \
                          #T, what, i_, (long double)(area)[i_]);                               \
        }                                                                                       \
    } while (0)

/* The strided shapes: (dst, sst, nelems) for iput/iget and (dst, sst,
 * bsize, nblocks) for ibput/ibget.  Extents stay inside AREA. */
static const struct {
    ptrdiff_t dst, sst;
    size_t n;
} i_shapes[] = {
    {1, 1, NEL}, {3, 1, NEL}, {1, 3, NEL}, {2, 3, NEL}, {3, 3, 20}, {1, 1, 0},
};
static const struct {
    ptrdiff_t dst, sst;
    size_t bsize, nblocks;
} ib_shapes[] = {
    {4, 7, 3, 5}, {3, 3, 3, 9}, {5, 2, 2, 11}, {1, 1, 1, NEL}, {6, 4, 4, 0}, {6, 4, 0, 3},
};

#define DEF_RMA_TYPE(T, NAME, VAL)                                                                 \
    static void rma_##NAME(T *area, int use_ctx)                                                   \
    {                                                                                              \
        int me = shmem_my_pe(), n = shmem_n_pes();                                                 \
        int right = (me + 1) % n, left = (me + n - 1) % n;                                         \
        const T sentinel = (T)90;                                                                  \
        T src[AREA], exp[AREA], loc[AREA];                                                         \
        unsigned s = 1000u * (unsigned)use_ctx;                                                    \
        const char *how = use_ctx ? "(ctx)" : "(default ctx)";                                     \
        static char ph[128];                                                                       \
        _Static_assert(sizeof(T) * AREA <= 16 * AREA, "area too small");                           \
        /* put */                                                                                  \
        snprintf(ph, sizeof ph, "shmem_%s_put %s", #NAME, how);                                    \
        ST_PHASE(ph);                                                                              \
        for (int i = 0; i < AREA; i++)                                                             \
            area[i] = sentinel;                                                                    \
        for (int i = 0; i < NEL; i++)                                                              \
            src[i] = VAL(T, me, i, s + 1);                                                         \
        shmem_barrier_all();                                                                       \
        if (use_ctx)                                                                               \
            shmem_ctx_##NAME##_put(g_ctx, area + 1, src, NEL, right);                              \
        else                                                                                       \
            shmem_##NAME##_put(area + 1, src, NEL, right);                                         \
        if (use_ctx) /* barrier_all completes the default context only */                          \
            shmem_ctx_quiet(g_ctx);                                                                \
        shmem_barrier_all();                                                                       \
        memset(g_written, 0, sizeof g_written);                                                    \
        for (int i = 0; i < NEL; i++) {                                                            \
            g_written[i + 1] = 1;                                                                  \
            exp[i + 1] = VAL(T, left, i, s + 1);                                                   \
        }                                                                                          \
        CHECK_AREA(T, area, exp, sentinel, "put");                                                 \
        shmem_barrier_all();                                                                       \
        /* put_nbi + quiet, zero elements: nothing */                                              \
        snprintf(ph, sizeof ph, "shmem_%s_put_nbi %s", #NAME, how);                                \
        ST_PHASE(ph);                                                                              \
        for (int i = 0; i < AREA; i++)                                                             \
            area[i] = sentinel;                                                                    \
        for (int i = 0; i < NEL; i++)                                                              \
            src[i] = VAL(T, me, i, s + 2);                                                         \
        shmem_barrier_all();                                                                       \
        if (use_ctx) {                                                                             \
            shmem_ctx_##NAME##_put_nbi(g_ctx, area + 3, src, NEL, right);                          \
            shmem_ctx_##NAME##_put_nbi(g_ctx, area + NEL + 5, src, 0, right);                      \
            shmem_ctx_quiet(g_ctx);                                                                \
        } else {                                                                                   \
            shmem_##NAME##_put_nbi(area + 3, src, NEL, right);                                     \
            shmem_##NAME##_put_nbi(area + NEL + 5, src, 0, right);                                 \
            shmem_quiet();                                                                         \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        memset(g_written, 0, sizeof g_written);                                                    \
        for (int i = 0; i < NEL; i++) {                                                            \
            g_written[i + 3] = 1;                                                                  \
            exp[i + 3] = VAL(T, left, i, s + 2);                                                   \
        }                                                                                          \
        CHECK_AREA(T, area, exp, sentinel, "put_nbi");                                             \
        shmem_barrier_all();                                                                       \
        /* get and get_nbi: every PE's area holds its own values */                                \
        snprintf(ph, sizeof ph, "shmem_%s_get/get_nbi %s", #NAME, how);                            \
        ST_PHASE(ph);                                                                              \
        for (int i = 0; i < AREA; i++)                                                             \
            area[i] = VAL(T, me, i, s + 3);                                                        \
        shmem_barrier_all();                                                                       \
        for (int nbi = 0; nbi < 2; nbi++) {                                                        \
            for (int i = 0; i < AREA; i++)                                                         \
                loc[i] = sentinel;                                                                 \
            if (use_ctx && nbi) {                                                                  \
                shmem_ctx_##NAME##_get_nbi(g_ctx, loc + 2, area + 4, NEL, right);                  \
                shmem_ctx_quiet(g_ctx);                                                            \
            } else if (use_ctx) {                                                                  \
                shmem_ctx_##NAME##_get(g_ctx, loc + 2, area + 4, NEL, right);                      \
            } else if (nbi) {                                                                      \
                shmem_##NAME##_get_nbi(loc + 2, area + 4, NEL, right);                             \
                shmem_quiet();                                                                     \
            } else {                                                                               \
                shmem_##NAME##_get(loc + 2, area + 4, NEL, right);                                 \
            }                                                                                      \
            memset(g_written, 0, sizeof g_written);                                                \
            for (int i = 0; i < NEL; i++) {                                                        \
                g_written[i + 2] = 1;                                                              \
                exp[i + 2] = VAL(T, right, i + 4, s + 3);                                          \
            }                                                                                      \
            CHECK_AREA(T, loc, exp, sentinel, nbi ? "get_nbi" : "get");                            \
        }                                                                                          \
        /* g reads remote values one by one */                                                     \
        for (int i = 0; i < NEL; i += 5) {                                                         \
            T v = use_ctx ? shmem_ctx_##NAME##_g(g_ctx, area + i, right)                           \
                          : shmem_##NAME##_g(area + i, right);                                     \
            T e = VAL(T, right, i, s + 3);                                                         \
            CHECK_MSG(v == e, "%s g element %d: expected %.21Lg, got %.21Lg", #NAME, i,            \
                      (long double)e, (long double)v);                                             \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        /* p writes them one by one */                                                             \
        snprintf(ph, sizeof ph, "shmem_%s_p %s", #NAME, how);                                      \
        ST_PHASE(ph);                                                                              \
        for (int i = 0; i < AREA; i++)                                                             \
            area[i] = sentinel;                                                                    \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < NEL; i += 2) {                                                         \
            if (use_ctx)                                                                           \
                shmem_ctx_##NAME##_p(g_ctx, area + i, VAL(T, me, i, s + 4), right);                \
            else                                                                                   \
                shmem_##NAME##_p(area + i, VAL(T, me, i, s + 4), right);                           \
        }                                                                                          \
        if (use_ctx) /* barrier_all completes the default context only */                          \
            shmem_ctx_quiet(g_ctx);                                                                \
        shmem_barrier_all();                                                                       \
        memset(g_written, 0, sizeof g_written);                                                    \
        for (int i = 0; i < NEL; i += 2) {                                                         \
            g_written[i] = 1;                                                                      \
            exp[i] = VAL(T, left, i, s + 4);                                                       \
        }                                                                                          \
        CHECK_AREA(T, area, exp, sentinel, "p");                                                   \
        shmem_barrier_all();                                                                       \
        /* iput / iget */                                                                          \
        for (size_t sh = 0; sh < sizeof i_shapes / sizeof i_shapes[0]; sh++) {                     \
            ptrdiff_t dst = i_shapes[sh].dst, sst = i_shapes[sh].sst;                              \
            size_t ne = i_shapes[sh].n;                                                            \
            snprintf(ph, sizeof ph, "shmem_%s_iput dst %td sst %td n %zu %s", #NAME, dst, sst, ne, \
                     how);                                                                         \
            ST_PHASE(ph);                                                                          \
            for (int i = 0; i < AREA; i++) {                                                       \
                area[i] = sentinel;                                                                \
                src[i] = VAL(T, me, i, s + 5 + (unsigned)sh);                                      \
            }                                                                                      \
            shmem_barrier_all();                                                                   \
            if (use_ctx)                                                                           \
                shmem_ctx_##NAME##_iput(g_ctx, area, src, dst, sst, ne, right);                    \
            else                                                                                   \
                shmem_##NAME##_iput(area, src, dst, sst, ne, right);                               \
            if (use_ctx) /* barrier_all completes the default context only */                      \
                shmem_ctx_quiet(g_ctx);                                                            \
            shmem_barrier_all();                                                                   \
            memset(g_written, 0, sizeof g_written);                                                \
            for (size_t j = 0; j < ne; j++) {                                                      \
                g_written[j * (size_t)dst] = 1;                                                    \
                exp[j * (size_t)dst] = VAL(T, left, j * (size_t)sst, s + 5 + (unsigned)sh);        \
            }                                                                                      \
            CHECK_AREA(T, area, exp, sentinel, "iput");                                            \
            shmem_barrier_all();                                                                   \
            snprintf(ph, sizeof ph, "shmem_%s_iget dst %td sst %td n %zu %s", #NAME, dst, sst, ne, \
                     how);                                                                         \
            ST_PHASE(ph);                                                                          \
            for (int i = 0; i < AREA; i++) {                                                       \
                area[i] = VAL(T, me, i, s + 20 + (unsigned)sh);                                    \
                loc[i] = sentinel;                                                                 \
            }                                                                                      \
            shmem_barrier_all();                                                                   \
            if (use_ctx)                                                                           \
                shmem_ctx_##NAME##_iget(g_ctx, loc, area, dst, sst, ne, right);                    \
            else                                                                                   \
                shmem_##NAME##_iget(loc, area, dst, sst, ne, right);                               \
            memset(g_written, 0, sizeof g_written);                                                \
            for (size_t j = 0; j < ne; j++) {                                                      \
                g_written[j * (size_t)dst] = 1;                                                    \
                exp[j * (size_t)dst] = VAL(T, right, j * (size_t)sst, s + 20 + (unsigned)sh);      \
            }                                                                                      \
            CHECK_AREA(T, loc, exp, sentinel, "iget");                                             \
            shmem_barrier_all();                                                                   \
        }                                                                                          \
        /* ibput / ibget (1.6): block b of bsize elements goes from                           \
         * source + b*sst to dest + b*dst */    \
        for (size_t sh = 0; sh < sizeof ib_shapes / sizeof ib_shapes[0]; sh++) {                   \
            ptrdiff_t dst = ib_shapes[sh].dst, sst = ib_shapes[sh].sst;                            \
            size_t bs = ib_shapes[sh].bsize, nb = ib_shapes[sh].nblocks;                           \
            snprintf(ph, sizeof ph, "shmem_%s_ibput dst %td sst %td bsize %zu nblocks %zu %s",     \
                     #NAME, dst, sst, bs, nb, how);                                                \
            ST_PHASE(ph);                                                                          \
            for (int i = 0; i < AREA; i++) {                                                       \
                area[i] = sentinel;                                                                \
                src[i] = VAL(T, me, i, s + 40 + (unsigned)sh);                                     \
            }                                                                                      \
            shmem_barrier_all();                                                                   \
            if (use_ctx)                                                                           \
                shmem_ctx_##NAME##_ibput(g_ctx, area + 1, src, dst, sst, bs, nb, right);           \
            else                                                                                   \
                shmem_##NAME##_ibput(area + 1, src, dst, sst, bs, nb, right);                      \
            if (use_ctx) /* barrier_all completes the default context only */                      \
                shmem_ctx_quiet(g_ctx);                                                            \
            shmem_barrier_all();                                                                   \
            memset(g_written, 0, sizeof g_written);                                                \
            for (size_t b = 0; b < nb; b++)                                                        \
                for (size_t j = 0; j < bs; j++) {                                                  \
                    size_t di = 1 + b * (size_t)dst + j, si = b * (size_t)sst + j;                 \
                    g_written[di] = 1;                                                             \
                    exp[di] = VAL(T, left, si, s + 40 + (unsigned)sh);                             \
                }                                                                                  \
            CHECK_AREA(T, area, exp, sentinel, "ibput");                                           \
            shmem_barrier_all();                                                                   \
            snprintf(ph, sizeof ph, "shmem_%s_ibget dst %td sst %td bsize %zu nblocks %zu %s",     \
                     #NAME, dst, sst, bs, nb, how);                                                \
            ST_PHASE(ph);                                                                          \
            for (int i = 0; i < AREA; i++) {                                                       \
                area[i] = VAL(T, me, i, s + 60 + (unsigned)sh);                                    \
                loc[i] = sentinel;                                                                 \
            }                                                                                      \
            shmem_barrier_all();                                                                   \
            if (use_ctx)                                                                           \
                shmem_ctx_##NAME##_ibget(g_ctx, loc, area + 2, dst, sst, bs, nb, right);           \
            else                                                                                   \
                shmem_##NAME##_ibget(loc, area + 2, dst, sst, bs, nb, right);                      \
            memset(g_written, 0, sizeof g_written);                                                \
            for (size_t b = 0; b < nb; b++)                                                        \
                for (size_t j = 0; j < bs; j++) {                                                  \
                    size_t di = b * (size_t)dst + j, si = 2 + b * (size_t)sst + j;                 \
                    g_written[di] = 1;                                                             \
                    exp[di] = VAL(T, right, si, s + 60 + (unsigned)sh);                            \
                }                                                                                  \
            CHECK_AREA(T, loc, exp, sentinel, "ibget");                                            \
            shmem_barrier_all();                                                                   \
        }                                                                                          \
    }

RMA_TYPES(DEF_RMA_TYPE)

static void test_typed(void)
{
    /* One heap area big enough for AREA long doubles. */
    void *area = shmem_align(64, 16 * AREA);
    CHECK_NOT_NULL(area);
    for (int use_ctx = 0; use_ctx < 2; use_ctx++) {
#define CALL_RMA_TYPE(T, NAME, VAL) rma_##NAME((T *)area, use_ctx);
        RMA_TYPES(CALL_RMA_TYPE)
#undef CALL_RMA_TYPE
    }
    shmem_free(area);
    st_note("typed put/get/p/g/nbi/iput/iget/ibput/ibget, 24 types, default and created ctx");
}

/* ------------------------------------------------------- sized forms */

#define SIZED(X) X(8) X(16) X(32) X(64) X(128)

/* Elements of SIZE bits as bytes: value byte b of element i from pe. */
#define DEF_RMA_SIZED(S)                                                                 \
    static void rma_sized_##S(unsigned char *area, int use_ctx)                          \
    {                                                                                    \
        const size_t es = (S) / 8;                                                       \
        int me = shmem_my_pe(), n = shmem_n_pes();                                       \
        int right = (me + 1) % n, left = (me + n - 1) % n;                               \
        unsigned char src[AREA * 16], loc[AREA * 16];                                    \
        unsigned s = 500u + 50u * (unsigned)use_ctx;                                     \
        static char ph[96];                                                              \
        snprintf(ph, sizeof ph, "shmem_put%d/get%d/nbi %s", S, S, use_ctx ? "ctx" : ""); \
        ST_PHASE(ph);                                                                    \
        /* put + put_nbi into two halves */                                              \
        memset(area, 0xEE, AREA *es);                                                    \
        st_fill(src, NEL *es, me, s);                                                    \
        shmem_barrier_all();                                                             \
        if (use_ctx) {                                                                   \
            shmem_ctx_put##S(g_ctx, area + es, src, NEL, right);                         \
            shmem_ctx_put##S##_nbi(g_ctx, area + (NEL + 2) * es, src, NEL, right);       \
            shmem_ctx_quiet(g_ctx);                                                      \
        } else {                                                                         \
            shmem_put##S(area + es, src, NEL, right);                                    \
            shmem_put##S##_nbi(area + (NEL + 2) * es, src, NEL, right);                  \
            shmem_quiet();                                                               \
        }                                                                                \
        shmem_barrier_all();                                                             \
        CHECK_BYTES(area, es, 0xEE);                                                     \
        CHECK_PATTERN(area + es, NEL * es, left, s);                                     \
        CHECK_BYTES(area + (NEL + 1) * es, es, 0xEE);                                    \
        CHECK_PATTERN(area + (NEL + 2) * es, NEL * es, left, s);                         \
        CHECK_BYTES(area + (2 * NEL + 2) * es, (AREA - 2 * NEL - 2) * es, 0xEE);         \
        shmem_barrier_all();                                                             \
        /* get + get_nbi */                                                              \
        st_fill(area, AREA *es, me, s + 1);                                              \
        shmem_barrier_all();                                                             \
        memset(loc, 0xDD, sizeof loc);                                                   \
        if (use_ctx) {                                                                   \
            shmem_ctx_get##S(g_ctx, loc, area + 3 * es, NEL, right);                     \
            shmem_ctx_get##S##_nbi(g_ctx, loc + NEL * es, area, NEL, right);             \
            shmem_ctx_quiet(g_ctx);                                                      \
        } else {                                                                         \
            shmem_get##S(loc, area + 3 * es, NEL, right);                                \
            shmem_get##S##_nbi(loc + NEL * es, area, NEL, right);                        \
            shmem_quiet();                                                               \
        }                                                                                \
        unsigned char want[AREA * 16];                                                   \
        st_fill(want, AREA *es, right, s + 1);                                           \
        CHECK(memcmp(loc, want + 3 * es, NEL * es) == 0);                                \
        CHECK(memcmp(loc + NEL * es, want, NEL * es) == 0);                              \
        CHECK_BYTES(loc + 2 * NEL * es, 16, 0xDD);                                       \
        shmem_barrier_all();                                                             \
        /* iput: dst 3, sst 2; gaps untouched */                                         \
        snprintf(ph, sizeof ph, "shmem_iput%d/iget%d/ibput%d/ibget%d %s", S, S, S, S,    \
                 use_ctx ? "ctx" : "");                                                  \
        ST_PHASE(ph);                                                                    \
        memset(area, 0xEE, AREA *es);                                                    \
        st_fill(src, AREA *es, me, s + 2);                                               \
        shmem_barrier_all();                                                             \
        if (use_ctx)                                                                     \
            shmem_ctx_iput##S(g_ctx, area, src, 3, 2, 20, right);                        \
        else                                                                             \
            shmem_iput##S(area, src, 3, 2, 20, right);                                   \
        if (use_ctx)                                                                     \
            shmem_ctx_quiet(g_ctx);                                                      \
        shmem_barrier_all();                                                             \
        st_fill(want, AREA *es, left, s + 2);                                            \
        for (size_t i = 0; i < AREA; i++) {                                              \
            if (i % 3 == 0 && i / 3 < 20)                                                \
                CHECK_MSG(memcmp(area + i * es, want + (i / 3) * 2 * es, es) == 0,       \
                          "iput%d element %zu", S, i);                                   \
            else                                                                         \
                CHECK_BYTES(area + i * es, es, 0xEE);                                    \
        }                                                                                \
        shmem_barrier_all();                                                             \
        /* iget: dst 2, sst 3 */                                                         \
        st_fill(area, AREA *es, me, s + 3);                                              \
        memset(loc, 0xDD, sizeof loc);                                                   \
        shmem_barrier_all();                                                             \
        if (use_ctx)                                                                     \
            shmem_ctx_iget##S(g_ctx, loc, area, 2, 3, 20, right);                        \
        else                                                                             \
            shmem_iget##S(loc, area, 2, 3, 20, right);                                   \
        st_fill(want, AREA *es, right, s + 3);                                           \
        for (size_t i = 0; i < 40; i++) {                                                \
            if (i % 2 == 0)                                                              \
                CHECK_MSG(memcmp(loc + i * es, want + (i / 2) * 3 * es, es) == 0,        \
                          "iget%d element %zu", S, i);                                   \
            else                                                                         \
                CHECK_BYTES(loc + i * es, es, 0xDD);                                     \
        }                                                                                \
        shmem_barrier_all();                                                             \
        /* ibput: dst 5, sst 4, bsize 3, nblocks 6 */                                    \
        memset(area, 0xEE, AREA *es);                                                    \
        st_fill(src, AREA *es, me, s + 4);                                               \
        shmem_barrier_all();                                                             \
        if (use_ctx)                                                                     \
            shmem_ctx_ibput##S(g_ctx, area, src, 5, 4, 3, 6, right);                     \
        else                                                                             \
            shmem_ibput##S(area, src, 5, 4, 3, 6, right);                                \
        if (use_ctx)                                                                     \
            shmem_ctx_quiet(g_ctx);                                                      \
        shmem_barrier_all();                                                             \
        st_fill(want, AREA *es, left, s + 4);                                            \
        for (size_t i = 0; i < AREA; i++) {                                              \
            size_t b = i / 5, j = i % 5;                                                 \
            if (b < 6 && j < 3)                                                          \
                CHECK_MSG(memcmp(area + i * es, want + (b * 4 + j) * es, es) == 0,       \
                          "ibput%d element %zu", S, i);                                  \
            else                                                                         \
                CHECK_BYTES(area + i * es, es, 0xEE);                                    \
        }                                                                                \
        shmem_barrier_all();                                                             \
        /* ibget: dst 4, sst 6, bsize 2, nblocks 7 */                                    \
        st_fill(area, AREA *es, me, s + 5);                                              \
        memset(loc, 0xDD, sizeof loc);                                                   \
        shmem_barrier_all();                                                             \
        if (use_ctx)                                                                     \
            shmem_ctx_ibget##S(g_ctx, loc, area, 4, 6, 2, 7, right);                     \
        else                                                                             \
            shmem_ibget##S(loc, area, 4, 6, 2, 7, right);                                \
        st_fill(want, AREA *es, right, s + 5);                                           \
        for (size_t i = 0; i < 40; i++) {                                                \
            size_t b = i / 4, j = i % 4;                                                 \
            if (b < 7 && j < 2)                                                          \
                CHECK_MSG(memcmp(loc + i * es, want + (b * 6 + j) * es, es) == 0,        \
                          "ibget%d element %zu", S, i);                                  \
            else                                                                         \
                CHECK_BYTES(loc + i * es, es, 0xDD);                                     \
        }                                                                                \
        shmem_barrier_all();                                                             \
    }

SIZED(DEF_RMA_SIZED)

static void test_sized(void)
{
    unsigned char *area = shmem_align(64, 16 * AREA);
    CHECK_NOT_NULL(area);
    for (int use_ctx = 0; use_ctx < 2; use_ctx++) {
#define CALL_SIZED(S) rma_sized_##S(area, use_ctx);
        SIZED(CALL_SIZED)
#undef CALL_SIZED
    }
    shmem_free(area);
    st_note("sized put/get/nbi/iput/iget/ibput/ibget 8..128");
}

/* ------------------------------------------------------- C11 generics */

static int g_gi[NEL];
static double g_gd[NEL];

static void test_generic(void)
{
    ST_PHASE("C11 generic put/get/p/g/iput/iget/ibput/ibget");
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int si[NEL], li[NEL];
    double sd[NEL], ld[NEL];
    for (int i = 0; i < NEL; i++) {
        si[i] = me * 1000 + i;
        sd[i] = me * 1000.5 + i;
    }
    memset(g_gi, 0, sizeof g_gi);
    memset(g_gd, 0, sizeof g_gd);
    shmem_barrier_all();
    shmem_put(g_gi, si, NEL, right);
    shmem_put(g_ctx, g_gd, sd, NEL, right);
    shmem_ctx_quiet(g_ctx); /* shmem_barrier_all completes the default context only */
    shmem_barrier_all();
    for (int i = 0; i < NEL; i++) {
        CHECK_EQ_I(g_gi[i], left * 1000 + i);
        CHECK_EQ_D(g_gd[i], left * 1000.5 + i);
    }
    shmem_barrier_all();
    shmem_get(li, g_gi, NEL, right);
    shmem_get(g_ctx, ld, g_gd, NEL, right);
    for (int i = 0; i < NEL; i++) {
        CHECK_EQ_I(li[i], me * 1000 + i);
        CHECK_EQ_D(ld[i], me * 1000.5 + i);
    }
    CHECK_EQ_I(shmem_g(&g_gi[3], right), me * 1000 + 3);
    CHECK_EQ_D(shmem_g(g_ctx, &g_gd[4], right), me * 1000.5 + 4);
    shmem_barrier_all();
    shmem_p(&g_gi[0], -me - 1, right);
    shmem_p(g_ctx, &g_gd[0], -0.25 * me, right);
    shmem_put_nbi(&g_gi[1], si, 2, right);
    shmem_quiet();
    shmem_ctx_quiet(g_ctx);
    shmem_barrier_all();
    CHECK_EQ_I(g_gi[0], -left - 1);
    CHECK_EQ_D(g_gd[0], -0.25 * left);
    CHECK_EQ_I(g_gi[1], left * 1000);
    CHECK_EQ_I(g_gi[2], left * 1000 + 1);
    shmem_barrier_all();
    memset(li, 0, sizeof li);
    shmem_get_nbi(li, g_gi, 3, right);
    shmem_quiet();
    CHECK_EQ_I(li[0], -me - 1);
    shmem_barrier_all();
    memset(g_gi, 0, sizeof g_gi);
    shmem_barrier_all();
    shmem_iput(g_gi, si, 2, 3, 5, right);
    shmem_ibput(g_ctx, g_gi + 20, si, 3, 4, 2, 3, right);
    shmem_ctx_quiet(g_ctx);
    shmem_barrier_all();
    for (int j = 0; j < 5; j++)
        CHECK_EQ_I(g_gi[2 * j], left * 1000 + 3 * j);
    for (int b = 0; b < 3; b++)
        for (int j = 0; j < 2; j++)
            CHECK_EQ_I(g_gi[20 + 3 * b + j], left * 1000 + 4 * b + j);
    CHECK_EQ_I(g_gi[1], 0);
    CHECK_EQ_I(g_gi[22], 0);
    shmem_barrier_all();
    memset(li, 0, sizeof li);
    shmem_iget(li, g_gi, 1, 2, 5, right);
    for (int j = 0; j < 5; j++)
        CHECK_EQ_I(li[j], me * 1000 + 3 * j);
    memset(li, 0, sizeof li);
    shmem_ibget(g_ctx, li, g_gi + 20, 2, 3, 2, 3, right);
    for (int b = 0; b < 3; b++)
        for (int j = 0; j < 2; j++)
            CHECK_EQ_I(li[2 * b + j], me * 1000 + 4 * b + j);
    shmem_barrier_all();
    st_note("C11 generic RMA");
}

int main(void)
{
    shmem_init();
    st_begin();
    ST_PHASE("ctx create");
    CHECK_EQ_I(shmem_ctx_create(0, &g_ctx), 0);
    CHECK(g_ctx != SHMEM_CTX_INVALID);
    test_mem();
    test_typed();
    test_sized();
    test_generic();
    ST_PHASE("finalize");
    shmem_ctx_destroy(g_ctx);
    shmem_finalize();
    if (st_me == 0)
        printf("ok: rma (%d PEs)\n", st_npes);
    return 0;
}
