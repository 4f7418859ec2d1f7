/* shmemx_am_send_nbe: a request completes once its message's handler
 * returned at the target, and only its own messages.  One mode per run
 * (argv[1]); every mode works with any PE count:
 *   values  every size class from every PE to every PE (self included),
 *           each message its own request; once a request is complete the
 *           target's count of handled messages from us includes it; more
 *           requests in flight than a PE has completion records
 *   gate    PE 0's message to PE 1 runs a handler that waits for a flag
 *           PE 0 sets only after testing the request incomplete many
 *           times; meanwhile a second message on the same context (its own
 *           request) completes on its own; after the wait the handler has
 *           returned (np1: PE 0 to itself, with a thread setting the flag)
 *   merge   an active message and a putmem_nbe in one request (by reuse
 *           and by shmemx_merge_request): once complete, both the data and
 *           the handling are there
 *   quiet   _nbe messages not waited for: shmemx_am_quiet on their context
 *           returns once they were handled, and their requests then
 *           complete */
#include "shoal_test.h"

#include <pthread.h>
#include <shmemx.h>

#define TAG 21
#define GATE_TAG 22

static int me, npes;

/* Counted by the handlers (any thread may run them: atomics). */
static long handled_from[64]; /* symmetric: [src], read by the senders */

static void count_handler(int src, const void *payload, size_t len, void *arg)
{
    (void)arg;
    if (len) {
        /* First byte of the pattern tells the size class (seed). */
        unsigned seed = (unsigned)(len % 251);
        CHECK_PATTERN(payload, len, src, seed);
    }
    __atomic_fetch_add(&handled_from[src], 1, __ATOMIC_RELEASE);
}

static long handled_at(int target)
{
    return shmem_long_atomic_fetch(&handled_from[me], target);
}

/* ------------------------------------------------------------ values */

static const size_t sizes[] = {0, 8, SHMEMX_AM_MAX_INLINE, SHMEMX_AM_MAX_INLINE + 1, 200000};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void mode_values(void)
{
    CHECK_EQ_I(shmemx_am_register(TAG, count_handler, NULL), 0);
    shmem_barrier_all();
    unsigned char *buf = malloc(sizes[NSIZES - 1]);
    CHECK_NOT_NULL(buf);
    long sent[64] = {0};
    for (size_t k = 0; k < NSIZES; k++) {
        st_fill(buf, sizes[k], me, (unsigned)(sizes[k] % 251));
        for (int d = 0; d < npes; d++) {
            int t = (me + d) % npes;
            shmemx_request_h req = SHMEMX_REQUEST_NULL;
            shmemx_am_send_nbe(SHMEM_CTX_DEFAULT, t, TAG, buf, sizes[k], &req);
            CHECK(req != SHMEMX_REQUEST_NULL);
            memset(buf, 0xee, sizes[k]); /* the payload is ours again at return */
            st_fill(buf, sizes[k], me, (unsigned)(sizes[k] % 251));
            shmemx_request_wait(&req);
            CHECK(req == SHMEMX_REQUEST_NULL);
            sent[t]++;
            CHECK_MSG(handled_at(t) == sent[t],
                      "after the wait PE %d had handled %ld of our messages, expected %ld", t,
                      handled_at(t), sent[t]);
        }
    }
    /* More in flight than the records (1024) of a PE: the sends wait for
     * completions to come back, and every request completes. */
    enum { MANY = 1500 };
    shmemx_request_h *reqs = calloc(MANY, sizeof *reqs);
    CHECK_NOT_NULL(reqs);
    st_fill(buf, 8, me, 8);
    int t = (me + 1) % npes;
    for (int i = 0; i < MANY; i++)
        shmemx_am_send_nbe(SHMEM_CTX_DEFAULT, t, TAG, buf, 8, &reqs[i]);
    shmemx_request_waitall(MANY, reqs);
    for (int i = 0; i < MANY; i++)
        CHECK(reqs[i] == SHMEMX_REQUEST_NULL);
    sent[t] += MANY;
    CHECK_EQ_I(handled_at(t), sent[t]);
    /* Several messages joined into one request by reuse. */
    shmemx_request_h req = SHMEMX_REQUEST_NULL;
    for (int i = 0; i < 10; i++)
        shmemx_am_send_nbe(SHMEM_CTX_DEFAULT, t, TAG, buf, 8, &req);
    int done = 0;
    while (!done)
        CHECK_EQ_I(shmemx_request_test(&req, &done), 0);
    CHECK(req == SHMEMX_REQUEST_NULL);
    sent[t] += 10;
    CHECK_EQ_I(handled_at(t), sent[t]);
    shmem_barrier_all();
    free(reqs);
    free(buf);
}

/* -------------------------------------------------------------- gate */

static int gate;            /* symmetric: rounds PE 0 opened on the target */
static long entered, left_; /* symmetric: the gated handler's progress */

static void gate_handler(int src, const void *payload, size_t len, void *arg)
{
    (void)src, (void)payload, (void)len, (void)arg;
    int round = (int)__atomic_fetch_add(&entered, 1, __ATOMIC_ACQ_REL);
    /* Waiting inside Shoal: other messages are handled meanwhile. */
    shmem_int_wait_until(&gate, SHMEM_CMP_GT, round);
    __atomic_fetch_add(&left_, 1, __ATOMIC_RELEASE);
}

/* np1: the main thread runs the gated handler inside test or wait, so
 * the flag comes from here once the handler has been entered. */
static void *opener(void *p)
{
    long round = (long)(intptr_t)p;
    while (__atomic_load_n(&entered, __ATOMIC_ACQUIRE) <= round)
        st_sleep_us(100);
    st_sleep_us(2000);
    CHECK_EQ_I(__atomic_load_n(&left_, __ATOMIC_ACQUIRE), round);
    __atomic_fetch_add(&gate, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void mode_gate(void)
{
    CHECK_EQ_I(shmemx_am_register(TAG, count_handler, NULL), 0);
    CHECK_EQ_I(shmemx_am_register(GATE_TAG, gate_handler, NULL), 0);
    shmem_ctx_t ctx;
    CHECK_EQ_I(shmem_ctx_create(0, &ctx), 0);
    shmem_barrier_all();
    const int rounds = 3, target = npes > 1 ? 1 : 0;
    if (me == 0) {
        long plain = 0;
        for (long r = 0; r < rounds; r++) {
            pthread_t th;
            if (target == 0)
                CHECK_EQ_I(pthread_create(&th, NULL, opener, (void *)(intptr_t)r), 0);
            shmemx_request_h a = SHMEMX_REQUEST_NULL, b = SHMEMX_REQUEST_NULL;
            shmemx_am_send_nbe(ctx, target, GATE_TAG, NULL, 0, &a);
            if (target != 0) {
                while (shmem_long_atomic_fetch(&entered, target) <= r)
                    shmemx_am_poll();
                /* The handler is blocked on the flag: its request stays
                 * incomplete, and a later message completes without it. */
                for (int i = 0; i < 200; i++) {
                    int done = 1;
                    CHECK_EQ_I(shmemx_request_test(&a, &done), 0);
                    CHECK_MSG(!done, "round %ld: the request completed before its handler returned",
                              r);
                    if (i % 50 == 0)
                        st_sleep_us(500);
                }
                uint64_t v = 42;
                st_fill(&v, sizeof v, 0, 8);
                shmemx_am_send_nbe(ctx, target, TAG, &v, sizeof v, &b);
                shmemx_request_wait(&b);
                plain++;
                CHECK_EQ_I(handled_at(target), plain);
                int done = 1;
                CHECK_EQ_I(shmemx_request_test(&a, &done), 0);
                CHECK(!done);
                CHECK_EQ_I(shmem_long_atomic_fetch(&left_, target), r);
                shmem_int_atomic_add(&gate, 1, target);
            }
            shmemx_request_wait(&a);
            CHECK_EQ_I(shmem_long_atomic_fetch(&left_, target), r + 1);
            if (target == 0)
                CHECK_EQ_I(pthread_join(th, NULL), 0);
        }
        shmemx_am_quiet(ctx);
    }
    shmem_barrier_all();
    if (me == target)
        CHECK_EQ_I(__atomic_load_n(&left_, __ATOMIC_ACQUIRE), rounds);
    shmem_ctx_destroy(ctx);
}

/* ------------------------------------------------------------- merge */

static long dest[1024]; /* symmetric */

static void mode_merge(void)
{
    CHECK_EQ_I(shmemx_am_register(TAG, count_handler, NULL), 0);
    shmem_barrier_all();
    int t = (me + 1) % npes;
    long src[1024];
    for (int i = 0; i < 1024; i++)
        src[i] = me * 100000L + i;
    uint64_t v;
    st_fill(&v, sizeof v, me, 8);
    /* By reuse: the put and the message join one request. */
    shmemx_request_h req = SHMEMX_REQUEST_NULL;
    shmemx_putmem_nbe(dest, src, 512 * sizeof(long), t, &req);
    shmemx_am_send_nbe(SHMEM_CTX_DEFAULT, t, TAG, &v, sizeof v, &req);
    shmemx_request_wait(&req);
    CHECK_EQ_I(handled_at(t), 1);
    /* By merging: three requests of two engines into one. */
    shmemx_request_h p = SHMEMX_REQUEST_NULL, m1 = SHMEMX_REQUEST_NULL, m2 = SHMEMX_REQUEST_NULL,
                     merged = SHMEMX_REQUEST_NULL;
    shmemx_putmem_nbe(dest + 512, src + 512, 512 * sizeof(long), t, &p);
    shmemx_am_send_nbe(SHMEM_CTX_DEFAULT, t, TAG, &v, sizeof v, &m1);
    shmemx_am_send_nbe(SHMEM_CTX_DEFAULT, me, TAG, &v, sizeof v, &m2);
    shmemx_request_h *all[] = {&p, &m1, &m2};
    CHECK_EQ_I(shmemx_merge_request(3, all, &merged), 0);
    CHECK(p == SHMEMX_REQUEST_NULL && m1 == SHMEMX_REQUEST_NULL && m2 == SHMEMX_REQUEST_NULL);
    shmemx_request_wait(&merged);
    CHECK_EQ_I(handled_at(t), t == me ? 3 : 2);
    CHECK_EQ_I(handled_at(me), t == me ? 3 : 1);
    long back[1024];
    shmem_getmem(back, dest, sizeof back, t);
    for (int i = 0; i < 1024; i++)
        CHECK_EQ_I(back[i], me * 100000L + i);
    shmem_barrier_all();
}

/* ------------------------------------------------------------- quiet */

static void mode_quiet(void)
{
    CHECK_EQ_I(shmemx_am_register(TAG, count_handler, NULL), 0);
    shmem_ctx_t ctx;
    CHECK_EQ_I(shmem_ctx_create(0, &ctx), 0);
    shmem_barrier_all();
    enum { N = 50 };
    shmemx_request_h reqs[N];
    uint64_t v;
    st_fill(&v, sizeof v, me, 8);
    long sent[64] = {0};
    for (int i = 0; i < N; i++) {
        int t = (me + i) % npes;
        reqs[i] = SHMEMX_REQUEST_NULL;
        shmemx_am_send_nbe(ctx, t, TAG, &v, sizeof v, &reqs[i]);
        sent[t]++;
        /* A plain message on the same context counts for quiet alike. */
        shmemx_am_send(ctx, t, TAG, &v, sizeof v);
        sent[t]++;
    }
    shmemx_am_quiet(ctx);
    for (int t = 0; t < npes; t++)
        CHECK_EQ_I(handled_at(t), sent[t]);
    for (int i = 0; i < N; i++) {
        int done = 0;
        CHECK_EQ_I(shmemx_request_test(&reqs[i], &done), 0);
        CHECK_MSG(done, "request %d incomplete after shmemx_am_quiet", i);
    }
    shmem_barrier_all();
    shmem_ctx_destroy(ctx);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "values";
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    st_begin();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= 64);
    ST_PHASE(mode);
    if (!strcmp(mode, "values"))
        mode_values();
    else if (!strcmp(mode, "gate"))
        mode_gate();
    else if (!strcmp(mode, "merge"))
        mode_merge();
    else if (!strcmp(mode, "quiet"))
        mode_quiet();
    else
        CHECK_MSG(0, "unknown mode '%s'", mode);
    shmem_finalize();
    return 0;
}
