/* The libfabric (OFI) transport, run with SHOAL_TRANSPORTS=ofi (every
 * operation through libfabric, FI_PROVIDER choosing the provider).
 *
 *   ofi_net visible  remote completion: each PE puts a large block on one
 *                    context (nbi: its first words one by one, then the
 *                    rest; then a quiet of that context), then
 *                    raises a flag on its right neighbour through another
 *                    context; the neighbour, seeing the flag, must see the
 *                    whole block.  Over tcp;ofi_rxm a write completes once
 *                    sent, so without quiet's reads of the written peers
 *                    the flag (another connection) overtakes the data
 *   ofi_net pool     contexts created and destroyed in a loop: their
 *                    endpoints come back from the pool
 *                    (shmemx_net_worker_counts), every operation lands
 *   ofi_net basic    puts, gets and AMOs of each kind to every PE (this one
 *                    included), blocking and nbi, values checked: what a
 *                    provider must do for Shoal
 *   ofi_net compute  PE 0 computes for 5 s without calling Shoal while the
 *                    others get from it, fetch-add on it and then set a
 *                    flag on it: with a provider that progresses only
 *                    manually, only the progress thread serves them, and
 *                    PE 0 must find every flag set when it stops */
#include "shoal_test.h"

#include <shmemx.h>
#include <time.h>

#define BLOCK (8u << 20) /* bytes of one visible round's block */
#define ROUNDS 12
#define SMALL_PUTS 4096 /* of its first words, one by one */

static long g_flag;

/* ---------------------------------------------------------- visible */

static void test_visible(void)
{
    ST_PHASE("visible: put on ctx A, quiet A, flag through ctx B");
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    shmem_ctx_t a, b;
    CHECK_EQ_I(shmem_ctx_create(0, &a), 0);
    CHECK_EQ_I(shmem_ctx_create(0, &b), 0);
    const size_t words = BLOCK / sizeof(long);
    long *src = malloc(BLOCK), *dst = shmem_malloc(BLOCK);
    CHECK_NOT_NULL(src);
    CHECK_NOT_NULL(dst);
    g_flag = 0;
    shmem_barrier_all();
    for (long r = 1; r <= ROUNDS; r++) {
        for (size_t i = 0; i < words; i++)
            src[i] = r * 1000003L + (long)i;
        /* Words one by one (puts small enough to be injected: complete
         * once sent), then the rest as one block. */
        for (size_t i = 0; i < SMALL_PUTS; i++)
            shmem_ctx_long_put_nbi(a, &dst[i], &src[i], 1, right);
        shmem_ctx_putmem_nbi(a, dst + SMALL_PUTS, src + SMALL_PUTS,
                             BLOCK - SMALL_PUTS * sizeof(long), right);
        shmem_ctx_quiet(a);
        shmem_ctx_long_atomic_set(b, &g_flag, r, right);
        shmem_long_wait_until(&g_flag, SHMEM_CMP_EQ, r);
        /* The flag came after the left neighbour's quiet: its block is here. */
        size_t bad = words;
        for (size_t i = 0; i < words && bad == words; i++)
            if (dst[i] != r * 1000003L + (long)i)
                bad = i;
        CHECK_MSG(bad == words, "round %ld: word %zu of PE %d's block is %ld after its flag", r,
                  bad, left, bad < words ? dst[bad] : 0L);
        shmem_barrier_all(); /* before the next round overwrites it */
    }
    shmem_free(dst);
    free(src);
    shmem_ctx_destroy(a);
    shmem_ctx_destroy(b);
    st_note("visible");
}

/* ------------------------------------------------------------- pool */

static void test_pool(void)
{
    ST_PHASE("pool: contexts created and destroyed");
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
    long c0, u0, r0, c1, u1, r1;
    shmemx_net_worker_counts(&c0, &u0, &r0);
    CHECK_MSG(c0 >= 1 && u0 >= 1, "at start: %ld endpoints created, %ld in use", c0, u0);
    long *dst = shmem_calloc((size_t)n, sizeof(long));
    CHECK_NOT_NULL(dst);
    shmem_barrier_all();
    const int iters = 50;
    for (int i = 0; i < iters; i++) {
        shmem_ctx_t c;
        CHECK_EQ_I(shmem_ctx_create(i % 2 ? SHMEM_CTX_PRIVATE : 0, &c), 0);
        shmem_ctx_long_atomic_add(c, &dst[me], 1, right);
        shmem_ctx_quiet(c);
        shmem_ctx_destroy(c);
    }
    shmemx_net_worker_counts(&c1, &u1, &r1);
    CHECK_MSG(c1 == c0 + 1, "%ld endpoints created for %d contexts one at a time (had %ld)", c1,
              iters, c0);
    CHECK_EQ_I(u1, u0);
    CHECK_EQ_I(r1, r0 + iters - 1);
    shmem_barrier_all();
    CHECK_EQ_I(dst[(me + n - 1) % n], iters);
    shmem_free(dst);
    st_note("pool");
}

/* ------------------------------------------------------------ basic */

static void test_basic(void)
{
    ST_PHASE("basic: puts, gets and AMOs to every PE");
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *w = shmem_calloc((size_t)n, sizeof(long));
    unsigned long *u = shmem_calloc((size_t)n, sizeof(unsigned long));
    int *w32 = shmem_calloc((size_t)n, sizeof(int));
    CHECK_NOT_NULL(w);
    CHECK_NOT_NULL(u);
    CHECK_NOT_NULL(w32);
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++) {
        long v = 100L * me + pe, g = -1;
        shmem_long_put(&w[me], &v, 1, pe);
        shmem_quiet();
        shmem_long_get(&g, &w[me], 1, pe);
        CHECK_EQ_I(g, v);
        CHECK_EQ_I(shmem_long_atomic_fetch_add(&w[me], 5, pe), v);
        shmem_long_atomic_add(&w[me], 5, pe);
        CHECK_EQ_I(shmem_long_atomic_compare_swap(&w[me], v + 10, 7, pe), v + 10);
        CHECK_EQ_I(shmem_long_atomic_swap(&w[me], 6, pe), 7);
        CHECK_EQ_I(shmem_long_atomic_fetch(&w[me], pe), 6);
        shmem_ulong_atomic_set(&u[me], 9, pe);
        shmem_ulong_atomic_xor(&u[me], 3, pe);
        CHECK_EQ_I(shmem_ulong_atomic_fetch_or(&u[me], 4, pe), 10);
        CHECK_EQ_I(shmem_ulong_atomic_fetch_and(&u[me], 6, pe), 14);
        int old = -1;
        shmem_int_atomic_fetch_inc_nbi(&old, &w32[me], pe);
        shmem_quiet();
        CHECK_EQ_I(old, 0);
        shmem_int_atomic_set(&w32[me], 41, pe);
        CHECK_EQ_I(shmem_int_atomic_fetch_inc(&w32[me], pe), 41);
        shmem_int_atomic_set(&w32[me], 0, pe);
    }
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++) {
        CHECK_EQ_I(w[pe], 6);
        CHECK_EQ_I((long)u[pe], 6);
        CHECK_EQ_I(w32[pe], 0);
    }
    shmem_free(w);
    shmem_free(u);
    shmem_free(w32);
    st_note("basic");
}

/* ---------------------------------------------------------- compute */

#define COMPUTE_NS 5000000000LL
#define COMPUTE_OPS 200
#define COMPUTE_WORDS 128

static long g_block[COMPUTE_WORDS], g_count, g_done;

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* PE 0's part: no Shoal call for COMPUTE_NS; then the flags, read with
 * plain loads before any call could progress the network. */
static void compute_target(int n)
{
    volatile long *done = &g_done;
    const long long until = now_ns() + COMPUTE_NS;
    long long spins = 0;
    while (now_ns() < until)
        spins++;
    const long seen = *done;
    CHECK_MSG(seen == n - 1, "after %lld spins of computing, %ld of %d peers had finished", spins,
              seen, n - 1);
}

/* The others: gets and fetch-adds on PE 0 while it computes. */
static void compute_peer(void)
{
    long got[COMPUTE_WORDS];
    for (int i = 0; i < COMPUTE_OPS; i++) {
        shmem_long_get(got, g_block, COMPUTE_WORDS, 0);
        for (int w = 0; w < COMPUTE_WORDS; w++)
            CHECK_EQ_I(got[w], 7L * w + 1);
        shmem_long_atomic_fetch_add(&g_count, 1, 0);
    }
    shmem_long_atomic_add(&g_done, 1, 0);
    shmem_quiet();
}

static void test_compute(void)
{
    ST_PHASE("compute: PE 0 computes outside Shoal while peers get and add");
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int w = 0; w < COMPUTE_WORDS; w++)
        g_block[w] = 7L * w + 1;
    g_count = g_done = 0;
    shmem_barrier_all();
    if (me == 0)
        compute_target(n);
    else
        compute_peer();
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ_I(shmem_long_atomic_fetch(&g_count, 0), (long)(n - 1) * COMPUTE_OPS);
    st_note("compute");
}

int main(int argc, char **argv)
{
    shmem_init();
    st_begin();
    const char *mode = argc > 1 ? argv[1] : "basic";
    if (!strcmp(mode, "visible"))
        test_visible();
    else if (!strcmp(mode, "pool"))
        test_pool();
    else if (!strcmp(mode, "basic"))
        test_basic();
    else if (!strcmp(mode, "compute"))
        test_compute();
    else
        CHECK_MSG(0, "unknown mode '%s'", mode);
    shmem_finalize();
    return 0;
}
