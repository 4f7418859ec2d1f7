/* Active messages (shmemx_am_*), the way programs use them.  One mode per
 * run (argv[1]); every mode works with any PE count:
 *   sizes         every payload size class (empty, inline, staged lane,
 *                 streamed) from every PE to every PE, self included,
 *                 arrives intact, once
 *   quiet         after shmemx_am_quiet the target's handler has run: the
 *                 sender reads the target's count and finds all of them
 *   fifo          one sender, one handling thread: handled in the order
 *                 sent, across size classes
 *   waiters T     handlers run in T threads that wait in shmem_wait_until,
 *                 none of them the registering thread
 *   concurrent T  T polling threads run several handlers of one tag at once
 *   poller        a thread other than the registering one runs every
 *                 handler through shmemx_am_poll
 *   nested        a handler that calls shmemx_am_poll and sends (allowed)
 *   lock          handlers run in threads waiting for a lock that another
 *                 PE holds until it saw them handled
 *   register      registering a taken tag / unregistering a free one
 *                 returns 1 and changes nothing
 *   flood         every PE sends every PE more messages than a ring holds
 *                 (some of a lane's size), and each handler answers with
 *                 the same payload from inside the handler: all arrive
 *                 intact, once
 *   flood_big     the same with some larger than a lane (streamed on this
 *                 node, in parts over the network): every PE's handlers
 *                 stream to PEs whose handlers stream back
 * Error modes (expected to end the job; tests/am/CMakeLists.txt checks the
 * message): unregistered, tag_range, null_handler. */
#include "shoal_test.h"

#include <sched.h>
#include <shmemx.h>

#define TAG 17
#define MAX_THREADS 8

static int me, npes;

/* ------------------------------------------------------------- sizes */

static const size_t sizes[] = {
    0,      1,      100,    SHMEMX_AM_MAX_INLINE, SHMEMX_AM_MAX_INLINE + 1, 4096,
    131072, 131073, 300000, (1u << 20) + 3};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static long got[64][NSIZES]; /* [src][size class] */

static unsigned seed_of(int src, size_t k)
{
    return (unsigned)(src * 131 + (int)k);
}

static void sizes_handler(int src, const void *payload, size_t len, void *arg)
{
    CHECK_EQ_P(arg, (void *)&got);
    size_t k = 0;
    while (k < NSIZES && sizes[k] != len)
        k++;
    CHECK_MSG(k < NSIZES, "a payload of %zu bytes from PE %d, not one of the sizes sent", len, src);
    CHECK_PATTERN(payload, len, src, seed_of(src, k));
    __atomic_fetch_add(&got[src][k], 1, __ATOMIC_RELAXED);
}

static void mode_sizes(void)
{
    CHECK_EQ_I(shmemx_am_register(TAG, sizes_handler, &got), 0);
    shmem_barrier_all();
    unsigned char *buf = malloc(sizes[NSIZES - 1]);
    CHECK_NOT_NULL(buf);
    for (int r = 0; r < 2; r++)
        for (size_t k = 0; k < NSIZES; k++) {
            st_fill(buf, sizes[k], me, seed_of(me, k));
            for (int d = 0; d < npes; d++)
                shmemx_am_send(SHMEM_CTX_DEFAULT, (me + d) % npes, TAG, buf, sizes[k]);
            memset(buf, 0xee, sizes[k]); /* the payload is ours again */
        }
    shmemx_am_quiet(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    for (int s = 0; s < npes; s++)
        for (size_t k = 0; k < NSIZES; k++)
            CHECK_MSG(got[s][k] == 2, "%ld messages of %zu bytes from PE %d, expected 2", got[s][k],
                      sizes[k], s);
    free(buf);
}

/* ------------------------------------------------------------- quiet */

static long hits[64]; /* symmetric: [src] */

static void slow_handler(int src, const void *payload, size_t len, void *arg)
{
    (void)arg;
    CHECK_EQ_U(len, sizeof(long));
    long v;
    memcpy(&v, payload, sizeof v);
    CHECK_EQ_I(v, src);
    st_sleep_us(200); /* a lazy completion would report before this ends */
    shmem_long_atomic_add(&hits[src], 1, me);
}

static void mode_quiet(void)
{
    const int k = 20;
    shmem_ctx_t ctx;
    CHECK_EQ_I(shmem_ctx_create(0, &ctx), 0);
    CHECK_EQ_I(shmemx_am_register(TAG, slow_handler, NULL), 0);
    shmem_barrier_all();
    int target = (me + 1) % npes;
    long v = me;
    for (int i = 0; i < k; i++)
        shmemx_am_send(ctx, target, TAG, &v, sizeof v);
    shmemx_am_quiet(ctx);
    CHECK_EQ_I(shmem_long_atomic_fetch(&hits[me], target), k);
    /* The default context had nothing sent on it: returns at once. */
    shmemx_am_quiet(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    shmem_ctx_destroy(ctx);
}

/* -------------------------------------------------------------- fifo */

static long next_seq[64];

static void fifo_handler(int src, const void *payload, size_t len, void *arg)
{
    (void)arg;
    CHECK(len >= sizeof(long));
    long seq;
    memcpy(&seq, payload, sizeof seq);
    CHECK_MSG(seq == next_seq[src], "message %ld from PE %d handled when %ld was next", seq, src,
              next_seq[src]);
    next_seq[src]++;
}

static void mode_fifo(void)
{
    const long n = 600;
    CHECK_EQ_I(shmemx_am_register(TAG, fifo_handler, NULL), 0);
    shmem_barrier_all();
    static char buf[300000];
    int target = (me + 1) % npes;
    for (long i = 0; i < n; i++) {
        /* Mostly inline, every 50th staged, every 200th streamed. */
        size_t len = i % 200 == 7 ? sizeof buf : i % 50 == 3 ? 5000 : sizeof(long) + (size_t)i % 64;
        memcpy(buf, &i, sizeof i);
        shmemx_am_send(SHMEM_CTX_DEFAULT, target, TAG, buf, len);
    }
    shmemx_am_quiet(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    CHECK_EQ_I(next_seq[(me - 1 + npes) % npes], n);
}

/* ---------------------------------------------------- thread identity */

/* -1: the main (registering) thread; -2: a thread of the library (the UCX
 * progress thread runs handlers too); 0..: the workers. */
static __thread int thread_id = -2;
static long by_thread[MAX_THREADS + 2]; /* [thread_id + 2] */
static long handled_total;
static int done_flag; /* symmetric */
static long expected_total;
static int in_handler, max_in_handler;

static void count_handler(int src, const void *payload, size_t len, void *arg)
{
    (void)src, (void)payload, (void)len, (void)arg;
    int now = __atomic_add_fetch(&in_handler, 1, __ATOMIC_SEQ_CST);
    int m = __atomic_load_n(&max_in_handler, __ATOMIC_RELAXED);
    while (now > m && !__atomic_compare_exchange_n(&max_in_handler, &m, now, 0, __ATOMIC_RELAXED,
                                                   __ATOMIC_RELAXED)) {
    }
    if (arg)
        st_sleep_us(3000); /* concurrent mode: stay inside a while */
    __atomic_fetch_add(&by_thread[thread_id + 2], 1, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&in_handler, 1, __ATOMIC_SEQ_CST);
    if (__atomic_add_fetch(&handled_total, 1, __ATOMIC_SEQ_CST) == expected_total)
        shmem_int_atomic_set(&done_flag, 1, me); /* wakes the waiters */
}

struct worker {
    pthread_t t;
    int id, mode; /* 0: wait_until, 1: poll until done */
};

static int workers_ready; /* local: every PE's workers run (worker 0 saw the barrier) */

static void *worker_main(void *p)
{
    struct worker *w = p;
    thread_id = w->id;
    if (w->id == 0) {
        /* Messages may arrive while this barrier waits: a worker runs them. */
        shmem_barrier_all();
        __atomic_store_n(&workers_ready, 1, __ATOMIC_RELEASE);
    }
    if (w->mode == 0) {
        shmem_int_wait_until(&done_flag, SHMEM_CMP_EQ, 1);
    } else {
        while (__atomic_load_n(&handled_total, __ATOMIC_SEQ_CST) < expected_total)
            shmemx_am_poll();
    }
    return NULL;
}

/* Every PE sends `per_pe` messages to every PE; `nthreads` threads of each
 * PE handle them (waiting or polling) while the main thread, which
 * registered the tag and sent, only joins them. */
static void run_workers(int nthreads, int mode, long per_pe, int slow)
{
    int provided = -1;
    shmem_query_thread(&provided);
    CHECK_EQ_I(provided, SHMEM_THREAD_MULTIPLE);
    expected_total = per_pe * npes;
    CHECK_EQ_I(shmemx_am_register(TAG, count_handler, slow ? (void *)1 : NULL), 0);
    struct worker w[MAX_THREADS];
    for (int i = 0; i < nthreads; i++) {
        w[i].id = i;
        w[i].mode = mode;
        CHECK_EQ_I(pthread_create(&w[i].t, NULL, worker_main, &w[i]), 0);
    }
    /* The main thread stays out of Shoal but for the sends, which are few
     * and small enough never to wait for a ring slot: it runs none. */
    while (!__atomic_load_n(&workers_ready, __ATOMIC_ACQUIRE))
        sched_yield();
    char payload[16] = "work";
    for (long i = 0; i < per_pe; i++)
        for (int d = 0; d < npes; d++)
            shmemx_am_send(SHMEM_CTX_DEFAULT, (me + d) % npes, TAG, payload, sizeof payload);
    for (int i = 0; i < nthreads; i++)
        pthread_join(w[i].t, NULL);
    CHECK_EQ_I(by_thread[1], 0); /* none on the registering thread */
    long sum = by_thread[0];
    for (int i = 2; i < nthreads + 2; i++)
        sum += by_thread[i];
    CHECK_EQ_I(sum, expected_total);
    shmemx_am_quiet(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
}

/* ------------------------------------------------------------- nested */

static long nested_seen, nested_replies;

static void reply_handler(int src, const void *payload, size_t len, void *arg)
{
    (void)src, (void)payload, (void)len, (void)arg;
    __atomic_fetch_add(&nested_replies, 1, __ATOMIC_RELAXED);
}

static void ask_handler(int src, const void *payload, size_t len, void *arg)
{
    (void)payload, (void)len, (void)arg;
    /* The progress thread may run handlers beside the main thread. */
    __atomic_fetch_add(&nested_seen, 1, __ATOMIC_RELAXED);
    shmemx_am_send(SHMEM_CTX_DEFAULT, src, TAG + 1, NULL, 0); /* reply from a handler */
    (void)shmemx_am_poll();                                   /* and poll: allowed */
}

static void mode_nested(void)
{
    const int k = 50;
    CHECK_EQ_I(shmemx_am_register(TAG, ask_handler, NULL), 0);
    CHECK_EQ_I(shmemx_am_register(TAG + 1, reply_handler, NULL), 0);
    shmem_barrier_all();
    for (int i = 0; i < k; i++)
        shmemx_am_send(SHMEM_CTX_DEFAULT, (me + 1) % npes, TAG, NULL, 0);
    while (__atomic_load_n(&nested_replies, __ATOMIC_RELAXED) < k)
        (void)shmemx_am_poll();
    shmemx_am_quiet(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    CHECK_EQ_I(nested_seen, k);
    CHECK_EQ_I(nested_replies, k);
}

/* --------------------------------------------------------------- lock */

static long the_lock; /* symmetric */
static long lock_hits;

static void lock_handler(int src, const void *payload, size_t len, void *arg)
{
    (void)src, (void)payload, (void)len, (void)arg;
    __atomic_fetch_add(&lock_hits, 1, __ATOMIC_RELAXED);
}

/* PE 0 holds the lock while the others wait for it in shmem_set_lock; it
 * sends each of them messages and waits until they were handled, which
 * only their lock waits can do; then it lets them have the lock. */
static void mode_lock(void)
{
    const int k = 10;
    CHECK_EQ_I(shmemx_am_register(TAG, lock_handler, NULL), 0);
    if (me == 0)
        shmem_set_lock(&the_lock);
    shmem_barrier_all();
    if (me == 0) {
        for (int pe = 1; pe < npes; pe++)
            for (int i = 0; i < k; i++)
                shmemx_am_send(SHMEM_CTX_DEFAULT, pe, TAG, &i, sizeof i);
        shmemx_am_quiet(SHMEM_CTX_DEFAULT);
        shmem_clear_lock(&the_lock);
    } else {
        shmem_set_lock(&the_lock); /* handles PE 0's messages while it waits */
        CHECK_EQ_I(lock_hits, k);
        shmem_clear_lock(&the_lock);
    }
    shmem_barrier_all();
}

/* ----------------------------------------------------------- register */

static void nop_handler(int src, const void *payload, size_t len, void *arg)
{
    (void)src, (void)payload, (void)len;
    __atomic_fetch_add((long *)arg, 1, __ATOMIC_RELAXED);
}

static void mode_register(void)
{
    static long a, b;
    CHECK_EQ_I(shmemx_am_register(0, nop_handler, &a), 0);
    CHECK_EQ_I(shmemx_am_register(0, nop_handler, &b), 1); /* taken */
    CHECK_EQ_I(shmemx_am_register(SHMEMX_AM_TAG_MAX - 1, nop_handler, &b), 0);
    CHECK_EQ_I(shmemx_am_unregister(5), 1); /* free */
    shmem_barrier_all();
    shmemx_am_send(SHMEM_CTX_DEFAULT, (me + 1) % npes, 0, NULL, 0);
    shmemx_am_send(SHMEM_CTX_DEFAULT, (me + 1) % npes, SHMEMX_AM_TAG_MAX - 1, NULL, 0);
    shmemx_am_quiet(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    CHECK_EQ_I(a, 1); /* the first registration's argument */
    CHECK_EQ_I(b, 1);
    CHECK_EQ_I(shmemx_am_unregister(0), 0);
    CHECK_EQ_I(shmemx_am_register(0, nop_handler, &b), 0); /* free again */
    shmem_barrier_all();
}

/* ------------------------------------------------------------- errors */

static void mode_error(const char *mode)
{
    if (!strcmp(mode, "tag_range")) {
        shmemx_am_send(SHMEM_CTX_DEFAULT, 0, SHMEMX_AM_TAG_MAX, NULL, 0);
    } else if (!strcmp(mode, "null_handler")) {
        (void)shmemx_am_register(3, NULL, NULL);
    } else if (!strcmp(mode, "register_range")) {
        (void)shmemx_am_register(-1, nop_handler, NULL);
    } else { /* unregistered: PE 0 sends tag 9 that its target never registered */
        shmem_barrier_all();
        if (me == 0)
            shmemx_am_send(SHMEM_CTX_DEFAULT, npes - 1, 9, "x", 1);
        shmem_barrier_all();
        shmemx_am_quiet(SHMEM_CTX_DEFAULT);
        shmem_barrier_all();
        /* The target ran into the message in one of the waits above. */
        if (me == npes - 1)
            for (;;)
                (void)shmemx_am_poll();
    }
    CHECK_MSG(0, "mode %s did not end the job", mode);
}

/* ------------------------------------------------------------- flood */

#define FLOOD_N 600
static long flood_asked, flood_answered;
static size_t
    flood_big; /* flood: a lane's worth; flood_big: three lanes' (in parts, or streamed) */

static size_t flood_size(int i)
{
    return i % 100 == 99 ? flood_big : i % 10 == 5 ? 1000 : 8;
}

static void flood_answer(int src, const void *payload, size_t len, void *arg)
{
    (void)src, (void)arg;
    CHECK_PATTERN(payload, len, me, (unsigned)len);
    __atomic_fetch_add(&flood_answered, 1, __ATOMIC_RELAXED);
}

static void flood_ask(int src, const void *payload, size_t len, void *arg)
{
    (void)arg;
    CHECK_PATTERN(payload, len, src, (unsigned)len);
    __atomic_fetch_add(&flood_asked, 1, __ATOMIC_RELAXED);
    shmemx_am_send(SHMEM_CTX_DEFAULT, src, TAG + 1, payload, len); /* from the handler */
}

static void mode_flood(void)
{
    CHECK_EQ_I(shmemx_am_register(TAG, flood_ask, NULL), 0);
    CHECK_EQ_I(shmemx_am_register(TAG + 1, flood_answer, NULL), 0);
    unsigned char *buf = malloc(flood_big);
    CHECK_NOT_NULL(buf);
    shmem_barrier_all();
    for (int i = 0; i < FLOOD_N; i++) {
        size_t n = flood_size(i);
        st_fill(buf, n, me, (unsigned)n);
        for (int d = 0; d < npes; d++)
            shmemx_am_send(SHMEM_CTX_DEFAULT, (me + d) % npes, TAG, buf, n);
    }
    const long want = (long)FLOOD_N * npes;
    while (__atomic_load_n(&flood_answered, __ATOMIC_RELAXED) < want)
        (void)shmemx_am_poll();
    shmemx_am_quiet(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    CHECK_EQ_I(__atomic_load_n(&flood_asked, __ATOMIC_RELAXED), want);
    CHECK_EQ_I(__atomic_load_n(&flood_answered, __ATOMIC_RELAXED), want);
    free(buf);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "sizes";
    int nthreads = argc > 2 ? atoi(argv[2]) : 2;
    if (nthreads < 1 || nthreads > MAX_THREADS)
        nthreads = 2;
    int provided;
    /* Order holds where one thread handles: below THREAD_MULTIPLE the
     * progress thread runs no handlers. */
    int level = strcmp(mode, "fifo") ? SHMEM_THREAD_MULTIPLE : SHMEM_THREAD_SERIALIZED;
    shmem_init_thread(level, &provided);
    st_begin();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    thread_id = -1;
    CHECK(npes <= 64);
    ST_PHASE(mode);
    if (!strcmp(mode, "sizes"))
        mode_sizes();
    else if (!strcmp(mode, "quiet"))
        mode_quiet();
    else if (!strcmp(mode, "fifo"))
        mode_fifo();
    else if (!strcmp(mode, "waiters"))
        run_workers(nthreads, 0, 40, 0);
    else if (!strcmp(mode, "poller"))
        run_workers(1, 1, 40, 0);
    else if (!strcmp(mode, "concurrent")) {
        run_workers(nthreads, 1, 4 * nthreads, 1);
        if (nthreads > 1)
            CHECK_MSG(max_in_handler >= 2, "at most %d handlers ran at once with %d threads",
                      max_in_handler, nthreads);
    } else if (!strcmp(mode, "nested"))
        mode_nested();
    else if (!strcmp(mode, "lock"))
        mode_lock();
    else if (!strcmp(mode, "register"))
        mode_register();
    else if (!strcmp(mode, "flood") || !strcmp(mode, "flood_big")) {
        flood_big = strcmp(mode, "flood") ? 300000 : 100000;
        mode_flood();
    } else
        mode_error(mode);
    shmem_finalize();
    return 0;
}
