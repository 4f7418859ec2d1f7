/* Threads over the libfabric (OFI) transport, SHMEM_THREAD_MULTIPLE,
 * SHOAL_TRANSPORTS=ofi (every operation through libfabric).
 *
 *   ofi_threads default  threads on SHMEM_CTX_DEFAULT, each posting nbi puts
 *                        and adds and fetch-adds to its right neighbour: each
 *                        thread gets an endpoint of its own
 *                        (shmemx_net_worker_counts: one created and in use
 *                        per thread), a second set of threads, started
 *                        after the first exited, takes the same endpoints
 *                        back (none created, one reuse each); while the
 *                        threads are still alive and have not quieted, one
 *                        shmem_quiet by the main thread completes what every
 *                        thread posted (the neighbour, told by a set after
 *                        it, finds every value); a third set exits before
 *                        the main thread's quiet, which still completes
 *                        what it posted
 *   ofi_threads private  threads, each with a SHMEM_CTX_PRIVATE context of
 *                        its own, puts and fetch-adds concurrently: exact
 *                        results, an endpoint per context */
#include "shoal_test.h"

#include <shmemx.h>

#define NTHREADS 4
#define TOPS 200

static long g_cnt;
static long g_slot[NTHREADS][TOPS];
static long g_mine[NTHREADS];
static long g_flag;
static long g_src[NTHREADS][TOPS];
/* Each thread's last operation: a block put (nbi) that only the main
 * thread's quiet completes; the flag that follows on the main thread's
 * endpoint (another connection) overtakes it without that quiet. */
#define BLOCK_WORDS (1u << 20) /* 8 MiB */
static long *g_block;          /* symmetric [NTHREADS][BLOCK_WORDS] */
static long *g_block_src;      /* [NTHREADS][BLOCK_WORDS] */
static pthread_barrier_t g_tb;
static int g_round;

static int right_pe(void)
{
    return (shmem_my_pe() + 1) % shmem_n_pes();
}

static int left_pe(void)
{
    return (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes();
}

/* ----------------------------------------------------------- default */

static void *default_main(void *arg)
{
    const int t = (int)(intptr_t)arg, me = shmem_my_pe(), right = right_pe();
    long prev = -1;
    for (int k = 0; k < TOPS; k++) {
        g_src[t][k] = 1000L * me + k;
        shmem_long_put_nbi(&g_slot[t][k], &g_src[t][k], 1, right);
        shmem_long_atomic_add(&g_cnt, 1, right);
        /* Only this thread adds to its word: the old values count up. */
        const long old = shmem_long_atomic_fetch_add(&g_mine[t], 1, right);
        CHECK_MSG(old > prev, "thread %d: fetch_add returned %ld after %ld", t, old, prev);
        prev = old;
    }
    long *src = g_block_src + (size_t)t * BLOCK_WORDS;
    for (size_t i = 0; i < BLOCK_WORDS; i++)
        src[i] = g_round * 1000003L + 7919L * me + (long)i;
    shmem_putmem_nbi(g_block + (size_t)t * BLOCK_WORDS, src, BLOCK_WORDS * sizeof(long), right);
    /* Posted, not quieted: the main thread's quiet must complete it,
     * while this thread lives (rounds 1, 2) or after it exited (3). */
    if (g_round < 3) {
        pthread_barrier_wait(&g_tb);
        pthread_barrier_wait(&g_tb);
    }
    return NULL;
}

/* One set of threads on the default context; the main thread quiets for
 * them and checks what its left neighbour's threads wrote here. */
static void default_round(int round)
{
    const int me = shmem_my_pe(), left = left_pe();
    g_cnt = 0;
    g_flag = 0;
    memset(g_slot, 0, sizeof g_slot);
    memset(g_mine, 0, sizeof g_mine);
    shmem_barrier_all();
    g_round = round;
    pthread_barrier_init(&g_tb, NULL, NTHREADS + 1);
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        CHECK_EQ_I(pthread_create(&th[t], NULL, default_main, (void *)(intptr_t)t), 0);
    if (round < 3)
        pthread_barrier_wait(&g_tb); /* every thread posted everything */
    else
        for (int t = 0; t < NTHREADS; t++)
            pthread_join(th[t], NULL);
    shmem_quiet(); /* completes what every thread posted */
    shmem_long_atomic_set(&g_flag, 1, right_pe());
    shmem_long_wait_until(&g_flag, SHMEM_CMP_EQ, 1);
    CHECK_EQ_I(g_cnt, (long)NTHREADS * TOPS);
    for (int t = 0; t < NTHREADS; t++) {
        const long *b = g_block + (size_t)t * BLOCK_WORDS;
        size_t bad = BLOCK_WORDS;
        for (size_t i = 0; i < BLOCK_WORDS && bad == BLOCK_WORDS; i++)
            if (b[i] != round * 1000003L + 7919L * left + (long)i)
                bad = i;
        CHECK_MSG(bad == BLOCK_WORDS, "round %d: word %zu of thread %d's block from PE %d is %ld",
                  round, bad, t, left, bad < BLOCK_WORDS ? b[bad] : 0L);
        CHECK_EQ_I(g_mine[t], (long)TOPS);
        for (int k = 0; k < TOPS; k++)
            CHECK_MSG(g_slot[t][k] == 1000L * left + k,
                      "round %d: thread %d's put %d from PE %d is %ld after its quiet", round, t, k,
                      left, g_slot[t][k]);
    }
    if (round < 3) {
        pthread_barrier_wait(&g_tb);
        for (int t = 0; t < NTHREADS; t++)
            pthread_join(th[t], NULL);
    }
    pthread_barrier_destroy(&g_tb);
    shmem_barrier_all();
    (void)me;
}

static void test_default(void)
{
    ST_PHASE("default: threads on SHMEM_CTX_DEFAULT");
    long c0, u0, r0, c1, u1, r1, c2, u2, r2;
    g_block = shmem_calloc((size_t)NTHREADS * BLOCK_WORDS, sizeof(long));
    g_block_src = malloc((size_t)NTHREADS * BLOCK_WORDS * sizeof(long));
    CHECK_NOT_NULL(g_block);
    CHECK_NOT_NULL(g_block_src);
    /* The main thread's endpoint, made now (a barrier of one PE makes
     * none). */
    (void)shmem_long_atomic_fetch(&g_flag, right_pe());
    shmem_barrier_all();
    shmemx_net_worker_counts(&c0, &u0, &r0);
    default_round(1);
    shmemx_net_worker_counts(&c1, &u1, &r1);
    /* The threads exited: their endpoints are free again. */
    CHECK_MSG(c1 - c0 == NTHREADS, "%ld endpoints created for %d threads on SHMEM_CTX_DEFAULT",
              c1 - c0, NTHREADS);
    CHECK_MSG(u1 == u0, "%ld endpoints still in use after the %d threads exited", u1 - u0,
              NTHREADS);
    default_round(2);
    shmemx_net_worker_counts(&c2, &u2, &r2);
    CHECK_MSG(c2 == c1 && r2 - r1 == NTHREADS,
              "second set of %d threads: %ld endpoints created, %ld reused", NTHREADS, c2 - c1,
              r2 - r1);
    CHECK_EQ_I(u2, u0);
    default_round(3); /* the threads exit before the quiet */
    shmem_free(g_block);
    free(g_block_src);
    st_note("default: an endpoint per thread, reused by the next threads; one quiet "
            "completes every thread's operations");
}

/* ----------------------------------------------------------- private */

static void *private_main(void *arg)
{
    const int t = (int)(intptr_t)arg, me = shmem_my_pe(), right = right_pe();
    shmem_ctx_t c;
    CHECK_EQ_I(shmem_ctx_create(SHMEM_CTX_PRIVATE, &c), 0);
    long prev = -1;
    for (int k = 0; k < TOPS; k++) {
        shmem_ctx_long_p(c, &g_slot[t][k], 1000L * me + k, right);
        const long old = shmem_ctx_long_atomic_fetch_add(c, &g_mine[t], 1, right);
        CHECK_MSG(old > prev, "thread %d: fetch_add returned %ld after %ld", t, old, prev);
        prev = old;
        shmem_ctx_long_atomic_add(c, &g_cnt, 1, right);
    }
    pthread_barrier_wait(&g_tb); /* every context open at once */
    shmem_ctx_destroy(c);        /* quiets first */
    return NULL;
}

static void test_private(void)
{
    ST_PHASE("private: a SHMEM_CTX_PRIVATE context per thread");
    const int left = left_pe();
    g_cnt = 0;
    memset(g_slot, 0, sizeof g_slot);
    memset(g_mine, 0, sizeof g_mine);
    shmem_barrier_all();
    long c0, u0;
    shmemx_net_worker_counts(&c0, &u0, NULL);
    pthread_barrier_init(&g_tb, NULL, NTHREADS);
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        CHECK_EQ_I(pthread_create(&th[t], NULL, private_main, (void *)(intptr_t)t), 0);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&g_tb);
    long c1, u1;
    shmemx_net_worker_counts(&c1, &u1, NULL);
    CHECK_MSG(c1 - c0 == NTHREADS, "%ld endpoints created for %d private contexts open at once",
              c1 - c0, NTHREADS);
    CHECK_EQ_I(u1, u0);
    shmem_barrier_all();
    CHECK_EQ_I(g_cnt, (long)NTHREADS * TOPS);
    for (int t = 0; t < NTHREADS; t++) {
        CHECK_EQ_I(g_mine[t], (long)TOPS);
        for (int k = 0; k < TOPS; k++)
            CHECK_EQ_I(g_slot[t][k], 1000L * left + k);
    }
    shmem_barrier_all();
    st_note("private: exact results, an endpoint per context");
}

int main(int argc, char **argv)
{
    int provided = -1;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    st_begin();
    CHECK_EQ_I(provided, SHMEM_THREAD_MULTIPLE);
    const char *mode = argc > 1 ? argv[1] : "default";
    if (!strcmp(mode, "default"))
        test_default();
    else if (!strcmp(mode, "private"))
        test_private();
    else
        CHECK_MSG(0, "unknown test '%s'", mode);
    shmem_finalize();
    return 0;
}
