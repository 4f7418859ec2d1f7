/* Signaling: put_signal and put_signal_nbi (typed for every standard RMA
 * type, sized, mem; default and created context) with SHMEM_SIGNAL_SET and
 * SHMEM_SIGNAL_ADD; the data must be complete when the signal is seen;
 * signal_fetch, signal_add, signal_set and their ctx forms.
 *
 * Each case uses its own signal word (fresh, zero), so a stale signal from
 * an earlier case cannot satisfy a wait. */
#include "shoal_test.h"

#define MAXPE 64
#define NEL 53
#define NSIGWORDS 1024
#define BIGPAY ((size_t)1 << 20)

static shmem_ctx_t g_ctx;
static uint64_t *g_sigs; /* NSIGWORDS signal words */
static int g_next_sig;
static uint64_t g_gsig[4]; /* signal words in static memory */

static uint64_t *next_sig(void)
{
    CHECK(g_next_sig < NSIGWORDS);
    return &g_sigs[g_next_sig++];
}

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

static char g_ph[160];
#define PHASE(...) (snprintf(g_ph, sizeof g_ph, __VA_ARGS__), ST_PHASE(g_ph))

/* variant bits: 1 = nbi, 2 = ctx, 4 = ADD (else SET) */
#define DEF_SIG_TYPE(T, NAME, VAL)                                                              \
    static void sig_##NAME(T *area, int variant)                                                \
    {                                                                                           \
        int me = shmem_my_pe(), n = shmem_n_pes(), r = (me + 1) % n, l = (me + n - 1) % n;      \
        int nbi = variant & 1, ctx = variant & 2, add = variant & 4;                            \
        int op = add ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET;                                     \
        uint64_t *sig = next_sig();                                                             \
        unsigned s = 300u + (unsigned)variant;                                                  \
        T src[NEL];                                                                             \
        PHASE("shmem_%s%s_put_signal%s %s", ctx ? "ctx_" : "", #NAME, nbi ? "_nbi" : "",        \
              add ? "ADD" : "SET");                                                             \
        for (int i = 0; i < NEL; i++)                                                           \
            src[i] = VAL(T, me, i, s);                                                          \
        for (int i = 0; i < NEL + 2; i++)                                                       \
            area[i] = (T)90;                                                                    \
        shmem_barrier_all();                                                                    \
        /* SET: the signal becomes 1000 + me; ADD: 2 is added to 40 (set first). */             \
        uint64_t sv = add ? 2 : 1000u + (uint64_t)me;                                           \
        if (add) {                                                                              \
            shmem_signal_set(sig, 40, r);                                                       \
            shmem_quiet(); /* the ADD below may travel on another context */                    \
        }                                                                                       \
        if (ctx && nbi)                                                                         \
            shmem_ctx_##NAME##_put_signal_nbi(g_ctx, area + 1, src, NEL, sig, sv, op, r);       \
        else if (ctx)                                                                           \
            shmem_ctx_##NAME##_put_signal(g_ctx, area + 1, src, NEL, sig, sv, op, r);           \
        else if (nbi)                                                                           \
            shmem_##NAME##_put_signal_nbi(area + 1, src, NEL, sig, sv, op, r);                  \
        else                                                                                    \
            shmem_##NAME##_put_signal(area + 1, src, NEL, sig, sv, op, r);                      \
        uint64_t want = add ? 42 : 1000u + (uint64_t)l;                                         \
        uint64_t got = shmem_signal_wait_until(sig, SHMEM_CMP_EQ, want);                        \
        CHECK_EQ_U(got, want);                                                                  \
        CHECK_EQ_U(shmem_signal_fetch(sig), want);                                              \
        for (int i = 0; i < NEL; i++) {                                                         \
            T e = VAL(T, l, i, s);                                                              \
            CHECK_MSG(area[i + 1] == e, "%s element %d: expected %.21Lg, got %.21Lg", #NAME, i, \
                      (long double)e, (long double)area[i + 1]);                                \
        }                                                                                       \
        CHECK(area[0] == (T)90);                                                                \
        CHECK(area[NEL + 1] == (T)90);                                                          \
        if (nbi) {                                                                              \
            if (ctx)                                                                            \
                shmem_ctx_quiet(g_ctx);                                                         \
            else                                                                                \
                shmem_quiet();                                                                  \
        }                                                                                       \
    }

RMA_TYPES(DEF_SIG_TYPE)

#define SIZED(X) X(8) X(16) X(32) X(64) X(128)
#define DEF_SIG_SIZED(S)                                                                   \
    static void sig_sized_##S(unsigned char *area, int variant)                            \
    {                                                                                      \
        int me = shmem_my_pe(), n = shmem_n_pes(), r = (me + 1) % n, l = (me + n - 1) % n; \
        int nbi = variant & 1, ctx = variant & 2, add = variant & 4;                       \
        int op = add ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET;                                \
        const size_t es = (S) / 8;                                                         \
        uint64_t *sig = next_sig();                                                        \
        unsigned char src[NEL * 16];                                                       \
        PHASE("shmem_%sput%d_signal%s %s", ctx ? "ctx_" : "", S, nbi ? "_nbi" : "",        \
              add ? "ADD" : "SET");                                                        \
        st_fill(src, NEL *es, me, 400u + (unsigned)variant);                               \
        memset(area, 0xEE, (NEL + 2) * es);                                                \
        shmem_barrier_all();                                                               \
        uint64_t sv = add ? 7 : 77;                                                        \
        if (ctx && nbi)                                                                    \
            shmem_ctx_put##S##_signal_nbi(g_ctx, area + es, src, NEL, sig, sv, op, r);     \
        else if (ctx)                                                                      \
            shmem_ctx_put##S##_signal(g_ctx, area + es, src, NEL, sig, sv, op, r);         \
        else if (nbi)                                                                      \
            shmem_put##S##_signal_nbi(area + es, src, NEL, sig, sv, op, r);                \
        else                                                                               \
            shmem_put##S##_signal(area + es, src, NEL, sig, sv, op, r);                    \
        CHECK_EQ_U(shmem_signal_wait_until(sig, SHMEM_CMP_EQ, sv), sv);                    \
        CHECK_BYTES(area, es, 0xEE);                                                       \
        CHECK_PATTERN(area + es, NEL * es, l, 400u + (unsigned)variant);                   \
        CHECK_BYTES(area + (NEL + 1) * es, es, 0xEE);                                      \
        if (ctx)                                                                           \
            shmem_ctx_quiet(g_ctx);                                                        \
        else                                                                               \
            shmem_quiet();                                                                 \
    }
SIZED(DEF_SIG_SIZED)

/* putmem_signal with a large payload: the whole payload is there when the
 * signal is seen.  Also: ADD from every PE into PE 0, each with its own
 * chunk. */
static void test_mem(unsigned char *big)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), r = (me + 1) % n, l = (me + n - 1) % n;
    unsigned char *src = malloc(BIGPAY);
    CHECK_NOT_NULL(src);
    for (int variant = 0; variant < 8; variant++) {
        int nbi = variant & 1, ctx = variant & 2, add = variant & 4;
        int op = add ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET;
        PHASE("shmem_%sputmem_signal%s %s, 1 MiB", ctx ? "ctx_" : "", nbi ? "_nbi" : "",
              add ? "ADD" : "SET");
        uint64_t *sig = next_sig();
        st_fill(src, BIGPAY, me, 500u + (unsigned)variant);
        memset(big, 0, BIGPAY);
        shmem_barrier_all();
        uint64_t sv = add ? 1 : 0xFEEDFACECAFEBEEFull;
        if (ctx && nbi)
            shmem_ctx_putmem_signal_nbi(g_ctx, big, src, BIGPAY, sig, sv, op, r);
        else if (ctx)
            shmem_ctx_putmem_signal(g_ctx, big, src, BIGPAY, sig, sv, op, r);
        else if (nbi)
            shmem_putmem_signal_nbi(big, src, BIGPAY, sig, sv, op, r);
        else
            shmem_putmem_signal(big, src, BIGPAY, sig, sv, op, r);
        CHECK_EQ_U(shmem_signal_wait_until(sig, SHMEM_CMP_NE, 0), sv);
        CHECK_PATTERN(big, BIGPAY, l, 500u + (unsigned)variant);
        if (ctx)
            shmem_ctx_quiet(g_ctx);
        else
            shmem_quiet();
    }

    /* Every PE adds 1 to PE 0's signal after putting its own chunk. */
    for (int variant = 0; variant < 2; variant++) {
        PHASE("putmem_signal%s ADD from every PE into PE 0", variant ? "_nbi" : "");
        uint64_t *sig = next_sig();
        const size_t chunk = 4097;
        st_fill(src, chunk, me, 600u + (unsigned)variant);
        memset(big, 0, chunk * (size_t)n);
        shmem_barrier_all();
        if (variant)
            shmem_putmem_signal_nbi(big + chunk * (size_t)me, src, chunk, sig, 1, SHMEM_SIGNAL_ADD,
                                    0);
        else
            shmem_putmem_signal(big + chunk * (size_t)me, src, chunk, sig, 1, SHMEM_SIGNAL_ADD, 0);
        if (me == 0) {
            CHECK_EQ_U(shmem_signal_wait_until(sig, SHMEM_CMP_EQ, (uint64_t)n), (uint64_t)n);
            for (int pe = 0; pe < n; pe++)
                CHECK_PATTERN(big + chunk * (size_t)pe, chunk, pe, 600u + (unsigned)variant);
        }
        shmem_quiet();
    }
    /* Signal words in static memory, signal_add/set, ctx forms. */
    PHASE("signal_set/signal_add (default and ctx), static signal word");
    memset(g_gsig, 0, sizeof g_gsig);
    shmem_barrier_all();
    shmem_signal_set(&g_gsig[0], 100, r);
    shmem_quiet(); /* the adds must come after the set */
    shmem_signal_add(&g_gsig[0], 5, r);
    shmem_ctx_signal_add(g_ctx, &g_gsig[0], 7, r);
    shmem_ctx_quiet(g_ctx);
    shmem_quiet();
    CHECK_EQ_U(shmem_signal_wait_until(&g_gsig[0], SHMEM_CMP_EQ, 112), 112);
    shmem_barrier_all();
    shmem_ctx_signal_set(g_ctx, &g_gsig[0], 1, r);
    shmem_ctx_quiet(g_ctx);
    CHECK_EQ_U(shmem_signal_wait_until(&g_gsig[0], SHMEM_CMP_LT, 2), 1);
    /* C11 generic signal_add/signal_set take ctx. */
    shmem_signal_add(g_ctx, &g_gsig[1], 3, r);
    shmem_signal_set(g_ctx, &g_gsig[2], 4, r);
    shmem_ctx_quiet(g_ctx);
    CHECK_EQ_U(shmem_signal_wait_until(&g_gsig[1], SHMEM_CMP_EQ, 3), 3);
    CHECK_EQ_U(shmem_signal_wait_until(&g_gsig[2], SHMEM_CMP_EQ, 4), 4);
    /* ADD wraps modulo 2^64. */
    shmem_barrier_all();
    shmem_signal_set(&g_gsig[3], UINT64_MAX, r);
    shmem_fence();
    shmem_signal_add(&g_gsig[3], 2, r);
    shmem_quiet();
    shmem_barrier_all();
    CHECK_EQ_U(shmem_signal_fetch(&g_gsig[3]), 1);
    /* put_signal into static memory, signal word in static memory. */
    PHASE("put_signal with static data and signal");
    static long sdata[NEL];
    long lsrc[NEL];
    for (int i = 0; i < NEL; i++)
        lsrc[i] = 1000L * me + i;
    memset(sdata, 0, sizeof sdata);
    g_gsig[0] = 0;
    shmem_barrier_all();
    shmem_put_signal(sdata, lsrc, NEL, &g_gsig[0], 9, SHMEM_SIGNAL_SET, r);
    CHECK_EQ_U(shmem_signal_wait_until(&g_gsig[0], SHMEM_CMP_EQ, 9), 9);
    for (int i = 0; i < NEL; i++)
        CHECK_EQ_I(sdata[i], 1000L * l + i);
    shmem_barrier_all();
    free(src);
}

int main(void)
{
    shmem_init();
    st_begin();
    CHECK_EQ_I(shmem_ctx_create(0, &g_ctx), 0);
    g_sigs = shmem_calloc(NSIGWORDS, sizeof(uint64_t));
    CHECK_NOT_NULL(g_sigs);
    void *area = shmem_align(64, 16 * (NEL + 2));
    CHECK_NOT_NULL(area);
    for (int variant = 0; variant < 8; variant++) {
#define CALL_SIG(T, NAME, VAL) sig_##NAME((T *)area, variant);
        RMA_TYPES(CALL_SIG)
#define CALL_SIZED(S) sig_sized_##S(area, variant);
        SIZED(CALL_SIZED)
    }
    st_note("typed and sized put_signal[_nbi], SET and ADD, default and ctx");
    unsigned char *big = shmem_malloc(BIGPAY);
    CHECK_NOT_NULL(big);
    test_mem(big);
    st_note("putmem_signal, signal_add/set/fetch");
    ST_PHASE("finalize");
    shmem_barrier_all();
    shmem_free(big);
    shmem_free(area);
    shmem_free(g_sigs);
    shmem_ctx_destroy(g_ctx);
    shmem_finalize();
    if (st_me == 0)
        printf("ok: signal (%d PEs)\n", st_npes);
    return 0;
}
