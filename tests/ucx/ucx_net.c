/* The UCX transport's contexts, threads and progress, run with
 * SHOAL_TRANSPORTS=ucx (every operation through UCX) over tcp and sm.
 *
 *   ucx_net pool         contexts created and destroyed in a loop: workers
 *                        come back from the pool (shmemx_net_worker_counts),
 *                        none leaks, every operation lands
 *   ucx_net independent  (3+ PEs, SHOAL_PROGRESS_THREAD=0) an nbi get on ctx A
 *                        from a PE that does not progress stays pending while
 *                        a blocking AMO and a quiet on ctx B to another PE
 *                        complete: B never waits for A; A's quiet then
 *                        completes A's get
 *   ucx_net private      threads, each with a PRIVATE context, puts and
 *                        fetch-adds concurrently: exact results
 *   ucx_net default MODE SHMEM_THREAD_MULTIPLE, threads on SHMEM_CTX_DEFAULT
 *                        (SHOAL_DEFAULT_CTX_WORKERS=shared|thread|N, MODE says
 *                        which, to check the worker counts): nbi puts and
 *                        adds from every thread, one shmem_quiet by the main
 *                        thread completes them all
 *   ucx_net progress     the target sleeps in nanosleep, never calling Shoal,
 *                        while the initiator's gets and AMOs on it complete
 *                        (fails, by the target's deadline, without progress)
 *   ucx_net polling      the target polls in loops whose calls return at
 *                        once (wait_until_some and test_some while element 0
 *                        satisfies, test on a word, signal_fetch on a
 *                        signal) while the initiators' atomic sets and adds
 *                        land element 1, the word and the signal: polling
 *                        progresses the network, with or without the
 *                        progress thread
 *   ucx_net die          a PE dies while the others are blocked on it: the
 *                        job ends promptly with its status
 *
 * Deadlines (progress, polling) catch hangs: 60 s, or SHOAL_TEST_DEADLINE_S
 * (progress_off, which must fail, needs no more than 5 s to show it). */
#include "shoal_test.h"

#include <shmemx.h>

#define NTHREADS 4
#define TOPS 300

static char g_ph[160];
#define PHASE(...) (snprintf(g_ph, sizeof g_ph, __VA_ARGS__), ST_PHASE(g_ph))

static long g_cnt;
static long g_slot[NTHREADS][TOPS];
static long g_thr_cnt[NTHREADS];
static long g_flag;
static long g_word = 0;
static long g_src[1024];

static void counts(long *c, long *u, long *r)
{
    shmemx_net_worker_counts(c, u, r);
}

/* ------------------------------------------------------------- pool */

static void test_pool(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
    static const long opts[] = {0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED,
                                SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE};
    const int nopts = 4, iters = 150, live = 3;
    long c0, u0, r0;
    counts(&c0, &u0, &r0);
    CHECK_MSG(c0 >= 1 && u0 >= 1,
              "at start: %ld workers created, %ld in use (the default "
              "context holds one)",
              c0, u0);
    PHASE("create/destroy %d x %d contexts", iters, live);
    g_cnt = 0;
    shmem_barrier_all();
    long c1 = 0;
    for (int i = 0; i < iters; i++) {
        shmem_ctx_t c[3];
        for (int k = 0; k < live; k++) {
            long o = opts[(i + k) % nopts];
            CHECK_MSG(shmem_ctx_create(o, &c[k]) == 0,
                      "shmem_ctx_create(%#lx) failed, "
                      "iteration %d",
                      o, i);
        }
        long cc, uu;
        counts(&cc, &uu, NULL);
        CHECK_MSG(uu == u0 + live,
                  "iteration %d: %ld workers in use with %d contexts live, "
                  "expected %ld",
                  i, uu, live, u0 + live);
        for (int k = 0; k < live; k++) {
            shmem_ctx_long_atomic_inc(c[k], &g_cnt, right);
            shmem_ctx_long_p(c[k], &g_slot[k][i % TOPS], i, right);
        }
        for (int k = 0; k < live; k++)
            shmem_ctx_destroy(c[k]);
        counts(&cc, &uu, NULL);
        CHECK_MSG(uu == u0,
                  "iteration %d: %ld workers in use after destroying every context, "
                  "expected %ld",
                  i, uu, u0);
        if (i == nopts)
            c1 = cc; /* every option has been seen in every position */
        if (i > nopts)
            CHECK_MSG(cc == c1,
                      "iteration %d: %ld workers created, %ld after iteration %d: "
                      "destroyed contexts' workers are not reused",
                      i, cc, c1, nopts);
    }
    shmem_barrier_all();
    CHECK_EQ_I(g_cnt, (long)iters * live);
    for (int k = 0; k < live; k++)
        CHECK_EQ_I(g_slot[k][(iters - 1) % TOPS], iters - 1);
    long c2, u2, r2;
    counts(&c2, &u2, &r2);
    /* Modes: single (PRIVATE), serialized, and the default mode: at most
     * `live` workers of each. */
    CHECK_MSG(c2 - c0 <= 3L * live, "%ld workers created for %d live contexts", c2 - c0, live);
    CHECK_MSG(r2 - r0 >= (long)(iters - nopts - 1) * live,
              "only %ld reuses from the pool in %d iterations of %d contexts", r2 - r0, iters,
              live);
    st_note("pool: destroyed contexts' workers are reused, none leaks");
}

/* ------------------------------------------------------- independent */

/* PE 2 sleeps, without a Shoal call, until PE 0 has seen ctx B complete
 * (a file of this job's, on this host, says so) or HOLD_S pass: ctx B
 * waiting for ctx A's get from PE 2 would take HOLD_S, however loaded the
 * machine, and ctx B alone takes milliseconds. */
#define HOLD_S 60.0

static void release_path(char *path, size_t len)
{
    const char *job = getenv("SHOAL_JOBID");
    snprintf(path, len, "/tmp/ucx_net-independent-%s", job ? job : "nojob");
}

static void hold_until_released(const char *path)
{
    for (double t0 = st_now(); st_now() - t0 < HOLD_S && access(path, F_OK) != 0;)
        st_sleep_us(10000); /* no Shoal call, no progress thread */
}

static void test_independent(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n < 3) {
        st_note("independent: needs 3 PEs (skipped)");
        return;
    }
    char release[128];
    release_path(release, sizeof release);
    long *buf = shmem_malloc(1 << 20);
    CHECK_NOT_NULL(buf);
    for (int i = 0; i < (1 << 20) / 8; i++)
        buf[i] = 1000 + me;
    g_flag = 0;
    g_word = 0;
    shmem_ctx_t a, b;
    CHECK_EQ_I(shmem_ctx_create(SHMEM_CTX_PRIVATE, &a), 0);
    CHECK_EQ_I(shmem_ctx_create(SHMEM_CTX_PRIVATE, &b), 0);
    /* Wire both contexts to both peers first. */
    if (me == 0) {
        (void)shmem_ctx_long_g(a, &g_word, 1);
        (void)shmem_ctx_long_g(a, &g_word, 2);
        (void)shmem_ctx_long_g(b, &g_word, 1);
        (void)shmem_ctx_long_g(b, &g_word, 2);
    }
    shmem_barrier_all();
    PHASE("independent contexts");
    if (me == 0) {
        long *dst = malloc(1 << 20);
        CHECK_NOT_NULL(dst);
        for (int i = 0; i < (1 << 20) / 8; i++)
            dst[i] = -1;
        /* PE 2 sleeps without progress: this get cannot complete before
         * the release below. */
        shmem_ctx_getmem_nbi(a, dst, buf, 1 << 20, 2);
        double t0 = st_now();
        long old = shmem_ctx_long_atomic_fetch_add(b, &g_word, 5, 1);
        double t1 = st_now() - t0;
        shmem_ctx_long_p(b, &g_flag, 1, 1);
        double t2 = st_now() - t0;
        shmem_ctx_quiet(b);
        double tb = st_now() - t0;
        if (getenv("SHOAL_TEST_VERBOSE"))
            printf("amo %.6f p %.6f quiet %.6f\n", t1, t2, tb);
        CHECK_EQ_I(old, 0);
        CHECK_MSG(tb < HOLD_S / 2,
                  "a blocking AMO and a quiet on ctx B took %.3f s: they waited for ctx A's "
                  "pending get from a PE that sleeps until they are done (at most %.0f s)",
                  tb, HOLD_S);
        FILE *f = fopen(release, "w");
        CHECK_NOT_NULL(f);
        fclose(f);
        shmem_ctx_quiet(a);
        double ta = st_now() - t0;
        for (int i = 0; i < (1 << 20) / 8; i += 511)
            CHECK_EQ_I(dst[i], 1002);
        CHECK_EQ_I(dst[(1 << 20) / 8 - 1], 1002);
        free(dst);
        printf("independent: ctx B done in %.3f ms, ctx A's get in %.1f ms\n", tb * 1e3, ta * 1e3);
    } else if (me == 1) {
        shmem_long_wait_until(&g_flag, SHMEM_CMP_EQ, 1);
        CHECK_EQ_I(g_word, 5);
    } else if (me == 2) {
        hold_until_released(release);
    }
    shmem_barrier_all();
    if (me == 0)
        unlink(release);
    shmem_ctx_destroy(a);
    shmem_ctx_destroy(b);
    shmem_free(buf);
    st_note("independent: ctx B completes without waiting for ctx A");
}

/* ----------------------------------------------------------- threads */

static pthread_barrier_t g_tb;

static void *private_main(void *arg)
{
    int t = (int)(intptr_t)arg, me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
    shmem_ctx_t c;
    CHECK_EQ_I(shmem_ctx_create(SHMEM_CTX_PRIVATE, &c), 0);
    long prev = -1;
    for (int k = 0; k < TOPS; k++) {
        shmem_ctx_long_p(c, &g_slot[t][k], 1000L * me + k, right);
        long old = shmem_ctx_long_atomic_fetch_add(c, &g_cnt, 1, right);
        CHECK_MSG(old > prev, "thread %d: fetch_add returned %ld after %ld", t, old, prev);
        prev = old;
        shmem_ctx_long_atomic_add(c, &g_thr_cnt[t], 2, right);
    }
    shmem_ctx_destroy(c); /* quiets first */
    return NULL;
}

static void test_private_threads(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), left = (me + n - 1) % n;
    PHASE("threads with private contexts");
    g_cnt = 0;
    memset(g_slot, 0, sizeof g_slot);
    memset(g_thr_cnt, 0, sizeof g_thr_cnt);
    shmem_barrier_all();
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        CHECK_EQ_I(pthread_create(&th[t], NULL, private_main, (void *)(intptr_t)t), 0);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();
    CHECK_EQ_I(g_cnt, (long)NTHREADS * TOPS);
    for (int t = 0; t < NTHREADS; t++) {
        CHECK_EQ_I(g_thr_cnt[t], 2L * TOPS);
        for (int k = 0; k < TOPS; k++)
            CHECK_EQ_I(g_slot[t][k], 1000L * left + k);
    }
    shmem_barrier_all();
    st_note("threads with private contexts: exact results");
}

static void *default_main(void *arg)
{
    int t = (int)(intptr_t)arg, me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
    for (int k = 0; k < TOPS; k++) {
        g_src[t * 256 + (k & 255)] = 1000L * me + k; /* distinct source per put */
        shmem_long_put_nbi(&g_slot[t][k], &g_src[t * 256 + (k & 255)], 1, right);
        shmem_long_atomic_add(&g_cnt, 1, right);
        if ((k & 255) == 255)
            shmem_quiet(); /* before reusing the sources */
    }
    /* Posted, not completed: the main thread's quiet must complete it. */
    pthread_barrier_wait(&g_tb);
    pthread_barrier_wait(&g_tb);
    return NULL;
}

static void test_default_threads(const char *mode)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), left = (me + n - 1) % n;
    PHASE("threads on SHMEM_CTX_DEFAULT (%s)", mode);
    g_cnt = 0;
    memset(g_slot, 0, sizeof g_slot);
    shmem_barrier_all(); /* the main thread has its worker now */
    long c0, u0;
    counts(&c0, &u0, NULL);
    pthread_barrier_init(&g_tb, NULL, NTHREADS + 1);
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        CHECK_EQ_I(pthread_create(&th[t], NULL, default_main, (void *)(intptr_t)t), 0);
    pthread_barrier_wait(&g_tb); /* every thread has posted everything */
    shmem_quiet();               /* completes what every thread posted */
    /* Tell the right neighbour, by a put ordered after the quiet. */
    shmem_long_atomic_set(&g_flag, 1, (me + 1) % n);
    shmem_long_wait_until(&g_flag, SHMEM_CMP_EQ, 1);
    /* The left neighbour's threads' puts and adds are all here, although
     * its threads are still alive and have not quieted anything. */
    CHECK_EQ_I(g_cnt, (long)NTHREADS * TOPS);
    for (int t = 0; t < NTHREADS; t++)
        for (int k = 0; k < TOPS; k++)
            CHECK_EQ_I(g_slot[t][k], 1000L * left + k);
    long c1, u1;
    counts(&c1, &u1, NULL);
    if (!strcmp(mode, "shared"))
        CHECK_MSG(c1 == c0, "shared: %ld workers created for the threads", c1 - c0);
    else if (!strcmp(mode, "thread"))
        CHECK_MSG(c1 - c0 == NTHREADS && u1 - u0 == NTHREADS,
                  "thread: %ld workers created and %ld more in use for %d threads", c1 - c0,
                  u1 - u0, NTHREADS);
    else
        CHECK_MSG(c1 - c0 <= atol(mode), "%s: %ld workers created for %d threads", mode, c1 - c0,
                  NTHREADS);
    pthread_barrier_wait(&g_tb);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&g_tb);
    g_flag = 0;
    shmem_barrier_all();
    st_note("threads on SHMEM_CTX_DEFAULT: one quiet completes every thread's operations");
}

/* ---------------------------------------------------------- progress */

/* A loop that sees nothing arrive for this long is stuck: a loaded machine
 * may be many times slower than an idle one, never this slow. */
static double deadline_s(void)
{
    const char *v = getenv("SHOAL_TEST_DEADLINE_S");
    return v && atof(v) > 0 ? atof(v) : 60.0;
}

static void test_progress(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    const double deadline = deadline_s();
    long *arr = shmem_malloc(64 * sizeof(long));
    CHECK_NOT_NULL(arr);
    for (int i = 0; i < 64; i++)
        arr[i] = 100L * me + i;
    g_flag = 0;
    g_cnt = 0;
    shmem_barrier_all();
    PHASE("progress without the target");
    if (me == n - 1) {
        /* The target: no Shoal call until the initiators are done. */
        double t0 = st_now();
        while (__atomic_load_n(&g_flag, __ATOMIC_ACQUIRE) < n - 1) {
            CHECK_MSG(st_now() - t0 < deadline,
                      "the initiators' gets and AMOs did not complete within %.0f s while this "
                      "PE computed without calling Shoal (%ld of %d done): no progress",
                      deadline, g_flag, n - 1);
            st_sleep_us(1000);
        }
        CHECK_EQ_I(__atomic_load_n(&g_cnt, __ATOMIC_ACQUIRE), (long)(n - 1) * 200);
    } else {
        int t = n - 1;
        for (int k = 0; k < 200; k++) {
            long v = shmem_long_g(&arr[k & 63], t);
            CHECK_EQ_I(v, 100L * t + (k & 63));
            long old = shmem_long_atomic_fetch_inc(&g_cnt, t);
            CHECK(old >= 0 && old < (long)(n - 1) * 200);
        }
        long got[64];
        shmem_long_get(got, arr, 64, t);
        for (int i = 0; i < 64; i++)
            CHECK_EQ_I(got[i], 100L * t + i);
        shmem_quiet();
        shmem_long_atomic_add(&g_flag, 1, t);
        shmem_quiet();
    }
    shmem_barrier_all();
    shmem_free(arr);
    st_note("progress: gets and AMOs complete while the target computes");
}

/* ----------------------------------------------------------- polling */

static long g_pair[2];
static long g_poll_word;
static uint64_t g_poll_sig;

/* Element 0 of g_pair satisfies from the start: every call returns at
 * once, and the loop ends only when element 1 arrives through the
 * network, which over tcp takes this PE's progress. */
static void poll_pair(int use_test, double limit_s)
{
    size_t idx[2];
    int seen1 = 0;
    double t0 = st_now();
    while (!seen1) {
        CHECK_MSG(st_now() - t0 < limit_s,
                  "%s kept returning element 0 for %.0f s: element 1 never arrived",
                  use_test ? "shmem_long_test_some" : "shmem_long_wait_until_some", limit_s);
        size_t n = use_test ? shmem_long_test_some(g_pair, 2, idx, NULL, SHMEM_CMP_NE, 0)
                            : shmem_long_wait_until_some(g_pair, 2, idx, NULL, SHMEM_CMP_NE, 0);
        CHECK(n >= 1 && n <= 2 && idx[0] == 0);
        seen1 = n == 2 && idx[1] == 1;
    }
}

static void test_polling(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    const double deadline = deadline_s();
    for (int round = 0; round < 4; round++) {
        PHASE("polling, round %d (%s)", round,
              round == 0   ? "wait_until_some"
              : round == 1 ? "test_some"
              : round == 2 ? "test"
                           : "signal_fetch");
        g_pair[0] = 1;
        g_pair[1] = 0;
        g_poll_word = 0;
        g_poll_sig = 0;
        shmem_barrier_all();
        if (me == 0) {
            if (round < 2) {
                poll_pair(round == 1, deadline);
            } else if (round == 3) {
                double t0 = st_now();
                while (shmem_signal_fetch(&g_poll_sig) != (uint64_t)(n - 1))
                    CHECK_MSG(st_now() - t0 < deadline,
                              "shmem_signal_fetch saw %lu of %d adds for %.0f s",
                              (unsigned long)g_poll_sig, n - 1, deadline);
            } else {
                double t0 = st_now();
                while (!shmem_long_test(&g_poll_word, SHMEM_CMP_EQ, n - 1))
                    CHECK_MSG(st_now() - t0 < deadline,
                              "shmem_long_test saw %ld of %d sets for %.0f s", g_poll_word, n - 1,
                              deadline);
            }
        } else {
            st_sleep_us(20000); /* the target is polling by now */
            if (round < 2)
                shmem_long_atomic_set(&g_pair[1], 1, 0);
            else if (round == 3)
                shmem_signal_add(&g_poll_sig, 1, 0);
            else
                shmem_long_atomic_add(&g_poll_word, 1, 0);
            shmem_quiet();
        }
        shmem_barrier_all();
    }
    st_note("polling: loops of calls that return at once see network updates");
}

/* ------------------------------------------------------------- death */

/* PE n-1 dies (exit status 3) while the others are blocked in gets and
 * AMOs on it: the job must end promptly with that status (launcher, or the
 * endpoint error callback), not hang. */
static void test_die(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_barrier_all();
    if (me == n - 1) {
        st_sleep_us(200000);
        _exit(3);
    }
    for (;;) {
        (void)shmem_long_g(&g_word, n - 1);
        (void)shmem_long_atomic_fetch_inc(&g_cnt, n - 1);
    }
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "pool";
    int need_mt = !strcmp(what, "private") || !strcmp(what, "default");
    int provided = -1;
    if (need_mt) {
        shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    } else {
        shmem_init();
    }
    st_begin();
    if (need_mt)
        CHECK_EQ_I(provided, SHMEM_THREAD_MULTIPLE);
    if (!strcmp(what, "pool"))
        test_pool();
    else if (!strcmp(what, "independent"))
        test_independent();
    else if (!strcmp(what, "private"))
        test_private_threads();
    else if (!strcmp(what, "default"))
        test_default_threads(argc > 2 ? argv[2] : "thread");
    else if (!strcmp(what, "progress"))
        test_progress();
    else if (!strcmp(what, "polling"))
        test_polling();
    else if (!strcmp(what, "die"))
        test_die();
    else
        CHECK_MSG(0, "unknown test '%s'", what);
    shmem_finalize();
    return 0;
}
