/* Local buffers that are not symmetric, over libfabric: run with
 * SHOAL_OFI_ASSUME_MODES=mr_local,context2 (ofi_modes.c), where every
 * buffer handed to libfabric needs a registration covering it (checked
 * at each call: a missing one ends the job) and every operation a context
 * of Shoal's, recycled at quiet.  Each PE, to its right neighbour (itself
 * at 1 PE):
 *   - blocking and nbi puts from malloc'd and stack memory, above and
 *     below the inject size, then quiet: the values arrived;
 *   - blocking and nbi gets into malloc'd and stack memory (small
 *     blocking ones through the endpoint's bounce area); more nbi
 *     operations between quiets than an endpoint's ring of contexts and
 *     its held registrations hold (both recycled by quiet or by the
 *     endpoint itself);
 *   - every AMO on int and long, fetching ones into stack and malloc'd
 *     memory, blocking and nbi (on a context of its own too);
 *   - put-with-signal from a private source. */
#include "shoal_test.h"

#include <shmemx.h>

#define BIG (256u << 10)     /* bytes of a large put or get */
#define MID 40000u           /* above the providers' inject sizes here */
#define MANY_NBI 1500        /* nbi gets between two quiets: over a ring's half */
#define SIGNAL_BYTES 100000u /* put-with-signal's data */

static long pattern(int pe, size_t i, long round)
{
    return (long)pe * 1000003L + (long)i * 7 + round;
}

static void test_puts(int me, int right, int left)
{
    ST_PHASE("puts from private and stack memory");
    const size_t words = BIG / sizeof(long), mid = MID / sizeof(long);
    long *dst = shmem_calloc(words, sizeof(long));
    long *src = malloc(BIG);
    CHECK_NOT_NULL(dst);
    CHECK_NOT_NULL(src);
    for (long round = 0; round < 3; round++) {
        long stack_src[MID / sizeof(long)];
        for (size_t i = 0; i < words; i++)
            src[i] = pattern(me, i, round);
        for (size_t i = 0; i < mid; i++)
            stack_src[i] = pattern(me, i, round + 100);
        shmem_barrier_all(); /* the previous round was checked */
        if (round == 0) {
            shmem_long_put(dst, src, words, right);
        } else if (round == 1) { /* nbi, in pieces */
            for (size_t i = 0; i < words; i += mid)
                shmem_long_put_nbi(dst + i, src + i, i + mid <= words ? mid : words - i, right);
        } else {
            shmem_long_put(dst + mid, src + mid, words - mid, right);
            shmem_long_put_nbi(dst, stack_src, mid, right);
        }
        shmem_quiet();
        shmem_barrier_all();
        for (size_t i = 0; i < words; i++) {
            const long want =
                round == 2 && i < mid ? pattern(left, i, round + 100) : pattern(left, i, round);
            CHECK_MSG(dst[i] == want, "round %ld: word %zu is %ld, not %ld", round, i, dst[i],
                      want);
            if (dst[i] != want)
                break;
        }
    }
    shmem_free(dst);
    free(src);
}

static void test_gets(int me, int right)
{
    ST_PHASE("gets into private and stack memory");
    const size_t words = BIG / sizeof(long), mid = MID / sizeof(long);
    long *sym = shmem_malloc(BIG);
    long *priv = malloc(BIG);
    long stack_dst[MID / sizeof(long)];
    CHECK_NOT_NULL(sym);
    CHECK_NOT_NULL(priv);
    for (size_t i = 0; i < words; i++)
        sym[i] = pattern(me, i, 5);
    shmem_barrier_all();
    shmem_long_get(priv, sym, words, right);
    for (size_t i = 0; i < words; i++)
        CHECK_EQ_I(priv[i], pattern(right, i, 5));
    memset(priv, 0, BIG);
    shmem_long_get_nbi(priv, sym, words, right);
    shmem_long_get_nbi(stack_dst, sym + 1, mid, right);
    shmem_quiet();
    for (size_t i = 0; i < words; i++)
        CHECK_EQ_I(priv[i], pattern(right, i, 5));
    for (size_t i = 0; i < mid; i++)
        CHECK_EQ_I(stack_dst[i], pattern(right, i + 1, 5));
    /* Small blocking gets into the stack (a bounce slot stands in). */
    long small[64];
    for (size_t at = 0; at < 8; at++) {
        memset(small, 0, sizeof small);
        shmem_long_get(small, sym + at * 64, 64, right);
        for (size_t i = 0; i < 64; i++)
            CHECK_EQ_I(small[i], pattern(right, at * 64 + i, 5));
    }
    /* Many small nbi gets, each into its own private word. */
    memset(priv, 0, BIG);
    for (size_t i = 0; i < MANY_NBI; i++)
        shmem_long_get_nbi(&priv[i * 3], &sym[i], 1, right);
    shmem_quiet();
    for (size_t i = 0; i < MANY_NBI; i++)
        CHECK_EQ_I(priv[i * 3], pattern(right, i, 5));
    shmem_barrier_all();
    shmem_free(sym);
    free(priv);
}

/* Every AMO on a word of `right`'s, through ctx; each PE its own word. */
static void test_amos_on(shmem_ctx_t ctx, int me, int right)
{
    static long lw[4096];
    static int iw[4096];
    static long kw[4 * 1024];
    long *lf = malloc(sizeof(long) * 4);
    CHECK_NOT_NULL(lf);
    long *l = &lw[me % 4096];
    int *w = &iw[me % 4096];
    shmem_ctx_long_atomic_set(ctx, l, 10, right);
    CHECK_EQ_I(shmem_ctx_long_atomic_fetch(ctx, l, right), 10);
    shmem_ctx_long_atomic_add(ctx, l, 5, right);
    shmem_ctx_long_atomic_inc(ctx, l, right);
    CHECK_EQ_I(shmem_ctx_long_atomic_fetch_add(ctx, l, 4, right), 16);
    CHECK_EQ_I(shmem_ctx_long_atomic_fetch_inc(ctx, l, right), 20);
    CHECK_EQ_I(shmem_ctx_long_atomic_swap(ctx, l, 7, right), 21);
    CHECK_EQ_I(shmem_ctx_long_atomic_compare_swap(ctx, l, 7, 9, right), 7);
    CHECK_EQ_I(shmem_ctx_long_atomic_compare_swap(ctx, l, 7, 11, right), 9);
    shmem_ctx_ulong_atomic_and(ctx, (unsigned long *)l, 12, right); /* 9 & 12 = 8 */
    shmem_ctx_ulong_atomic_or(ctx, (unsigned long *)l, 3, right);   /* 11 */
    shmem_ctx_ulong_atomic_xor(ctx, (unsigned long *)l, 6, right);  /* 13 */
    CHECK_EQ_I((long)shmem_ctx_ulong_atomic_fetch_and(ctx, (unsigned long *)l, 7, right), 13);
    CHECK_EQ_I((long)shmem_ctx_ulong_atomic_fetch_or(ctx, (unsigned long *)l, 8, right), 5);
    CHECK_EQ_I((long)shmem_ctx_ulong_atomic_fetch_xor(ctx, (unsigned long *)l, 1, right), 13);
    /* Fetching nbi AMOs into stack and private memory, each on a word of
     * its own (unordered until quiet), completed by quiet. */
    long *k = &kw[4 * (me % 1024)];
    int old32 = -1;
    for (int i = 0; i < 4; i++)
        shmem_ctx_long_atomic_set(ctx, &k[i], 10 + i, right);
    shmem_ctx_int_atomic_set(ctx, w, 40, right);
    shmem_ctx_long_atomic_fetch_nbi(ctx, &lf[0], l, right);
    shmem_ctx_long_atomic_fetch_add_nbi(ctx, &lf[1], &k[1], 100, right);
    shmem_ctx_long_atomic_swap_nbi(ctx, &lf[2], &k[2], 3, right);
    shmem_ctx_long_atomic_compare_swap_nbi(ctx, &lf[3], &k[3], 13, 4, right);
    shmem_ctx_int_atomic_fetch_inc_nbi(ctx, &old32, w, right);
    shmem_ctx_quiet(ctx);
    CHECK_EQ_I(lf[0], 12);
    CHECK_EQ_I(lf[1], 11);
    CHECK_EQ_I(lf[2], 12);
    CHECK_EQ_I(lf[3], 13);
    CHECK_EQ_I(old32, 40);
    CHECK_EQ_I(shmem_ctx_long_atomic_fetch(ctx, &k[1], right), 111);
    CHECK_EQ_I(shmem_ctx_long_atomic_fetch(ctx, &k[2], right), 3);
    CHECK_EQ_I(shmem_ctx_long_atomic_fetch(ctx, &k[3], right), 4);
    CHECK_EQ_I(shmem_ctx_int_atomic_fetch(ctx, w, right), 41);
    CHECK_EQ_I(shmem_ctx_int_atomic_compare_swap(ctx, w, 41, 1, right), 41);
    shmem_ctx_int_atomic_add(ctx, w, 2, right);
    CHECK_EQ_I(shmem_ctx_int_atomic_fetch_add(ctx, w, 1, right), 3);
    free(lf);
}

static void test_amos(int me, int right)
{
    ST_PHASE("AMOs, fetching into private memory");
    shmem_barrier_all();
    test_amos_on(SHMEM_CTX_DEFAULT, me, right);
    shmem_barrier_all();
    shmem_ctx_t ctx;
    CHECK_EQ_I(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
    test_amos_on(ctx, me, right);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
}

static void test_signal(int me, int right, int left)
{
    ST_PHASE("put-with-signal from private memory");
    static uint64_t sig;
    const size_t n = SIGNAL_BYTES;
    unsigned char *dst = shmem_calloc(n, 1), *src = malloc(n);
    CHECK_NOT_NULL(dst);
    CHECK_NOT_NULL(src);
    for (size_t i = 0; i < n; i++)
        src[i] = (unsigned char)(me * 31 + i);
    sig = 0;
    shmem_barrier_all();
    shmem_putmem_signal(dst, src, n, &sig, 1, SHMEM_SIGNAL_SET, right);
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1);
    for (size_t i = 0; i < n; i++)
        CHECK_EQ_I(dst[i], (unsigned char)(left * 31 + i));
    shmem_barrier_all();
    shmem_free(dst);
    free(src);
}

int main(void)
{
    shmem_init();
    st_begin();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    test_puts(me, right, left);
    test_gets(me, right);
    test_amos(me, right);
    test_signal(me, right, left);
    st_note("modes");
    shmem_finalize();
    return 0;
}
