/* Explicit non-blocking operations with request handles (shmemx _nbe,
 * docs/requests.md), as a program uses them.  One mode per run:
 *   values       every family moves the right values (typed through the C11
 *                generics, sized, mem, ctx twins, AMOs, put-with-signal)
 *   merge        merging by reuse and by shmemx_merge_request; waitall/waitany
 *   quiet        shmem_quiet completes _nbe operations; shmem_fence orders them
 *   delay        test turns true only after completion: the target does not
 *                progress for a while (meaningful over UCX without a progress
 *                thread, where the target's CPU serves gets)
 *   independent  request A holding megabytes of puts to a target that does
 *                not progress does not delay wait on request B
 *   threads      SHMEM_THREAD_MULTIPLE, each thread with its own requests
 *   alloc        shmemx_request_alloc's resource choices
 *   complete     operations complete at issue (on this node) given a NULL
 *                handle: the complete request that every routine takes,
 *                joined, merged, beside requests over the network
 * and the error cases (they end the job): null_req, null_req_amo, freed,
 * freed_op, merged_handle (run under SHMEM_DEBUG: on this node a NULL
 * handle otherwise becomes the complete request, of which a stale copy is
 * harmless), freed_alloc, freed_op_alloc, merged_alloc (the same from a
 * shmemx_request_alloc handle, without SHMEM_DEBUG), merge_self,
 * merge_twice, foreign and foreign_op (SHMEM_DEBUG), two_waiters (SHMEM_DEBUG),
 * dead_peer (a request on a PE that died ends the job instead of hanging). */
#include "shoal_test.h"

#include <shmemx.h>

static int me, npes, right, left;

/* ---------------------------------------------------------------- values */

#define N 64
static int ibuf[N], isrc[N];
static double dbuf[N];
static uint64_t sig;

static void check_rma(shmem_ctx_t ctx)
{
    static long ldst[N];
    long lsrc[N], lget[N];
    int iget[N];
    double dsrc[N];
    for (int i = 0; i < N; i++) {
        isrc[i] = me * 1000 + i;
        lsrc[i] = (long)me * 100000 + i;
        dsrc[i] = me + i / 8.0;
    }
    shmem_barrier_all();
    shmemx_request_h r = SHMEMX_REQUEST_NULL;
    /* Typed (generic names), sized, mem, into one request by reuse. */
    shmemx_put_nbe(ibuf, isrc, N / 2, right, &r);
    CHECK(r != SHMEMX_REQUEST_NULL);
    shmemx_request_h first = r;
    shmemx_put32_nbe(ibuf + N / 2, isrc + N / 2, N / 2, right, &r);
    CHECK(r == first);                             /* joined, not replaced */
    shmemx_put_nbe(ctx, ldst, lsrc, N, right, &r); /* generic with a context */
    shmemx_putmem_nbe(dbuf, dsrc, sizeof dsrc, right, &r);
    shmemx_request_wait(&r);
    CHECK(r == SHMEMX_REQUEST_NULL);
    shmem_barrier_all();
    for (int i = 0; i < N; i++) {
        CHECK_EQ_I(ibuf[i], left * 1000 + i);
        CHECK_EQ_I(ldst[i], (long)left * 100000 + i);
        CHECK_EQ_D(dbuf[i], left + i / 8.0);
    }
    /* Gets: of the right neighbour's data, which is its left's. */
    shmemx_request_h g = SHMEMX_REQUEST_NULL;
    shmemx_get_nbe(iget, ibuf, N, right, &g);
    shmemx_ctx_long_get_nbe(ctx, lget, ldst, N / 2, right, &g);
    shmemx_get64_nbe(lget + N / 2, ldst + N / 2, N / 2, right, &g);
    int done = 0;
    CHECK_EQ_I(shmemx_request_test(&g, &done), 0);
    if (!done)
        shmemx_request_wait(&g);
    CHECK(g == SHMEMX_REQUEST_NULL);
    for (int i = 0; i < N; i++) {
        CHECK_EQ_I(iget[i], me * 1000 + i);
        CHECK_EQ_I(lget[i], (long)me * 100000 + i);
    }
    /* Zero elements: still a request, complete at once. */
    shmemx_request_h z = SHMEMX_REQUEST_NULL;
    shmemx_getmem_nbe(iget, ibuf, 0, right, &z);
    CHECK(z != SHMEMX_REQUEST_NULL);
    CHECK_EQ_I(shmemx_request_test(&z, &done), 0);
    CHECK_EQ_I(done, 1);
    CHECK(z == SHMEMX_REQUEST_NULL);
    shmem_barrier_all();
}

static long acnt, aset, abits;
static int icnt;
static uint64_t ucnt;
static double dval;

static void check_amo(shmem_ctx_t ctx)
{
    acnt = aset = 0;
    icnt = 0;
    ucnt = 0;
    abits = 0;
    dval = 0;
    shmem_barrier_all();
    /* Every PE adds to PE 0's counters, fetching the old values. */
    enum { K = 16 };
    long old[K];
    int iold[K];
    shmemx_request_h r = SHMEMX_REQUEST_NULL;
    for (int k = 0; k < K; k++) {
        shmemx_atomic_fetch_add_nbe(&old[k], &acnt, 1L, 0, &r);
        shmemx_ctx_int_atomic_fetch_inc_nbe(ctx, &iold[k], &icnt, 0, &r);
        shmemx_atomic_add_nbe(&ucnt, (uint64_t)2, 0, &r);
        shmemx_atomic_inc_nbe(&aset, 0, &r);
    }
    shmemx_atomic_or_nbe(&abits, 1L << me, 0, &r);
    shmemx_request_wait(&r);
    /* Each fetched a distinct old value below the final count. */
    for (int k = 0; k < K; k++) {
        CHECK(old[k] >= 0 && old[k] < (long)K * npes);
        CHECK(iold[k] >= 0 && iold[k] < K * npes);
        for (int j = 0; j < k; j++)
            CHECK(old[j] != old[k] && iold[j] != iold[k]);
    }
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ_I(acnt, (long)K * npes);
        CHECK_EQ_I(icnt, K * npes);
        CHECK_EQ_U(ucnt, (uint64_t)2 * K * npes);
        CHECK_EQ_I(aset, (long)K * npes);
        CHECK_EQ_I(abits, (1L << npes) - 1);
    }
    shmem_barrier_all();
    /* Fetch, swap, compare-swap, set, the bitwise fetching ones, on the
     * right neighbour's words. */
    long f1 = -1, f2 = -1, f3 = -1, f4 = -1;
    double df = -1;
    uint64_t uf = 0;
    r = SHMEMX_REQUEST_NULL;
    shmemx_atomic_set_nbe(&aset, 7L, right, &r);
    shmemx_request_wait(&r);
    shmemx_atomic_fetch_nbe(&f1, &aset, right, &r);
    shmemx_request_wait(&r);
    CHECK_EQ_I(f1, 7);
    shmemx_atomic_swap_nbe(&f2, &aset, 9L, right, &r);
    shmemx_request_wait(&r);
    shmemx_atomic_compare_swap_nbe(&f3, &aset, 9L, 11L, right, &r);
    shmemx_request_wait(&r);
    shmemx_atomic_compare_swap_nbe(&f4, &aset, 9L, 13L, right, &r); /* fails: 11 */
    shmemx_atomic_swap_nbe(&df, &dval, 2.5, right, &r);
    shmemx_atomic_fetch_xor_nbe(&uf, &ucnt, (uint64_t)1, right, &r);
    shmemx_request_wait(&r);
    CHECK_EQ_I(f2, 7);
    CHECK_EQ_I(f3, 9);
    CHECK_EQ_I(f4, 11);
    CHECK_EQ_D(df, 0.0);
    CHECK_EQ_U(uf, right == 0 ? (uint64_t)2 * K * npes : 0);
    shmem_barrier_all();
    CHECK_EQ_I(aset, 11);
    CHECK_EQ_D(dval, 2.5);
    shmem_barrier_all();
}

static void check_signal(void)
{
    static int data[N];
    int src[N];
    for (int i = 0; i < N; i++)
        src[i] = me * 7 + i;
    sig = 0;
    shmem_barrier_all();
    shmemx_request_h r = SHMEMX_REQUEST_NULL;
    shmemx_put_signal_nbe(data, src, N, &sig, (uint64_t)(me + 1), SHMEM_SIGNAL_SET, right, &r);
    /* The target sees the data once it sees the signal. */
    shmem_signal_wait_until(&sig, SHMEM_CMP_NE, 0);
    for (int i = 0; i < N; i++)
        CHECK_EQ_I(data[i], left * 7 + i);
    CHECK_EQ_U(sig, (uint64_t)(left + 1));
    shmemx_request_wait(&r);
    shmem_barrier_all();
    sig = 0;
    shmem_barrier_all();
    shmemx_putmem_signal_nbe(data, src, 4, &sig, 5, SHMEM_SIGNAL_ADD, right, &r);
    shmemx_ctx_put64_signal_nbe(SHMEM_CTX_DEFAULT, data + 2, src, 1, &sig, 5, SHMEM_SIGNAL_ADD,
                                right, &r);
    shmemx_request_wait(&r);
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 10);
    shmem_barrier_all();
}

static void mode_values(void)
{
    shmem_ctx_t ctx;
    if (shmem_ctx_create(0, &ctx) != 0)
        ctx = SHMEM_CTX_DEFAULT;
    ST_PHASE("rma");
    check_rma(SHMEM_CTX_DEFAULT);
    check_rma(ctx);
    ST_PHASE("amo");
    check_amo(SHMEM_CTX_DEFAULT);
    check_amo(ctx);
    ST_PHASE("signal");
    check_signal();
    if (ctx != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctx);
    st_note("values");
}

/* ----------------------------------------------------------------- merge */

static long mdst[8];

static void mode_merge(void)
{
    ST_PHASE("merge");
    long v[8];
    for (int i = 0; i < 8; i++)
        v[i] = me * 10 + i;
    shmem_barrier_all();
    shmemx_request_h a = SHMEMX_REQUEST_NULL, b = SHMEMX_REQUEST_NULL, c = SHMEMX_REQUEST_NULL;
    shmemx_put_nbe(mdst, v, 2, right, &a);
    shmemx_put_nbe(mdst + 2, v + 2, 2, right, &b);
    shmemx_put_nbe(mdst + 4, v + 4, 2, right, &c);
    CHECK(a != SHMEMX_REQUEST_NULL && b != SHMEMX_REQUEST_NULL && c != SHMEMX_REQUEST_NULL);
    /* Over the network three requests; on this node each is complete at
     * issue and may be the one complete request (mode complete). */
    if (!st_mapped(me, right, npes))
        CHECK(a != b && b != c && a != c);
    /* a and b into a new request m; then m and c into c. */
    shmemx_request_h m = SHMEMX_REQUEST_NULL;
    shmemx_request_h *ab[] = {&a, &b};
    CHECK_EQ_I(shmemx_merge_request(2, ab, &m), 0);
    CHECK(a == SHMEMX_REQUEST_NULL && b == SHMEMX_REQUEST_NULL && m != SHMEMX_REQUEST_NULL);
    shmemx_request_h *mm[] = {&m};
    CHECK_EQ_I(shmemx_merge_request(1, mm, &c), 0);
    CHECK(m == SHMEMX_REQUEST_NULL && c != SHMEMX_REQUEST_NULL);
    /* The merged request still takes operations. */
    shmemx_put_nbe(mdst + 6, v + 6, 2, right, &c);
    shmemx_request_wait(&c);
    CHECK(c == SHMEMX_REQUEST_NULL);
    shmem_barrier_all();
    for (int i = 0; i < 8; i++)
        CHECK_EQ_I(mdst[i], left * 10 + i);
    /* Merging nothing gives an empty request, complete at once. */
    shmemx_request_h e = SHMEMX_REQUEST_NULL;
    CHECK_EQ_I(shmemx_merge_request(0, NULL, &e), 0);
    int done = 0;
    CHECK_EQ_I(shmemx_request_test(&e, &done), 0);
    CHECK_EQ_I(done, 1);
    /* waitall / waitany over several requests, NULL handles among them. */
    shmem_barrier_all();
    shmemx_request_h rs[4] = {SHMEMX_REQUEST_NULL, SHMEMX_REQUEST_NULL, SHMEMX_REQUEST_NULL,
                              SHMEMX_REQUEST_NULL};
    for (int i = 0; i < 3; i++)
        shmemx_put_nbe(mdst + 2 * i, v + 2 * i, 2, right, &rs[i]);
    size_t k = shmemx_request_waitany(4, rs);
    CHECK(k < 3);
    CHECK(rs[k] == SHMEMX_REQUEST_NULL);
    shmemx_request_waitall(4, rs);
    for (int i = 0; i < 4; i++)
        CHECK(rs[i] == SHMEMX_REQUEST_NULL);
    CHECK_EQ_U(shmemx_request_waitany(4, rs), 4); /* none live */
    shmem_barrier_all();
    /* free completes the operations first. */
    shmemx_request_h f = SHMEMX_REQUEST_NULL;
    long big = 4242 + me;
    shmemx_put_nbe(mdst, &big, 1, right, &f);
    shmemx_request_free(&f);
    CHECK(f == SHMEMX_REQUEST_NULL);
    shmem_barrier_all();
    CHECK_EQ_I(mdst[0], 4242 + left);
    shmem_barrier_all();
    st_note("merge");
}

/* ----------------------------------------------------------------- quiet */

#define QN (256 * 1024)
static char qdst[QN];
static int qflag;

static void mode_quiet(void)
{
    ST_PHASE("quiet");
    char *src = malloc(QN);
    CHECK_NOT_NULL(src);
    for (int round = 0; round < 3; round++) {
        memset(src, 'a' + me + round, QN);
        qflag = 0;
        shmem_barrier_all();
        shmemx_request_h r = SHMEMX_REQUEST_NULL;
        shmemx_putmem_nbe(qdst, src, QN, right, &r);
        if (round == 0) {
            /* quiet, then a flag by a plain put: the data is there first. */
            shmem_quiet();
            shmem_int_p(&qflag, 1, right);
        } else if (round == 1) {
            /* fence orders the _nbe put before the flag. */
            shmem_fence();
            shmem_int_atomic_set(&qflag, 1, right);
        } else {
            /* a context's quiet covers them too */
            shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
            shmem_int_atomic_add(&qflag, 1, right);
        }
        shmem_int_wait_until(&qflag, SHMEM_CMP_EQ, 1);
        for (size_t i = 0; i < QN; i += 4093)
            CHECK_EQ_I(qdst[i], 'a' + left + round);
        CHECK_EQ_I(qdst[QN - 1], 'a' + left + round);
        shmemx_request_wait(&r); /* already complete: cheap */
        shmem_barrier_all();
    }
    free(src);
    st_note("quiet");
}

/* ----------------------------------------------------------------- delay */

static long dsrc_word, issued;

/* PE 1 stores 1, then computes without calling Shoal for a while, then
 * stores 2 and enters the barrier.  PE 0 gets the word with an _nbe get
 * and tests: over UCX without a progress thread the get is served by PE 1's
 * CPU only once it calls Shoal again, so the value must be 2 when test says
 * done; on this node the get completes at issue with 1. */
static void mode_delay(void)
{
    ST_PHASE("delay");
    if (npes < 2) {
        st_note("delay (needs 2 PEs)");
        return;
    }
    dsrc_word = 1;
    issued = 0;
    shmem_barrier_all();
    if (me == 1) {
        /* On PE 0's node, wait until its get was issued (it completes at
         * issue, and a loaded machine may hold PE 0 back for long); off it,
         * compute without calling Shoal. */
        if (shmem_ptr(&dsrc_word, 0) != NULL)
            shmem_long_wait_until(&issued, SHMEM_CMP_EQ, 1);
        else
            st_sleep_us(800000);
        dsrc_word = 2;
    } else if (me == 0) {
        long v = 0;
        /* Off the node, give PE 1 time to leave the barrier (whose loop
         * still serves requests) and start computing. */
        if (shmem_ptr(&dsrc_word, 1) == NULL)
            st_sleep_us(200000);
        shmemx_request_h r = SHMEMX_REQUEST_NULL;
        shmemx_get_nbe(&v, &dsrc_word, 1, 1, &r);
        int done = 0, tests = 0;
        while (!done) {
            CHECK_EQ_I(shmemx_request_test(&r, &done), 0);
            tests++;
        }
        int on_node = shmem_ptr(&dsrc_word, 1) != NULL;
        if (on_node)
            shmem_long_atomic_set(&issued, 1, 1);
        const char *tr = getenv("SHOAL_TRANSPORTS");
        const char *pt = getenv("SHOAL_PROGRESS_THREAD");
        int slow_target = !on_node && tr && !strcmp(tr, "ucx") && pt && !strcmp(pt, "0") &&
                          getenv("UCX_TLS") && strstr(getenv("UCX_TLS"), "tcp");
        if (on_node) {
            CHECK_EQ_I(tests, 1);
            CHECK_EQ_I(v, 1);
        } else if (slow_target) {
            CHECK_MSG(tests > 1, "test said done at once (%d tests)", tests);
            CHECK_EQ_I(v, 2);
        } else {
            CHECK(v == 1 || v == 2);
        }
    }
    shmem_barrier_all();
    st_note("delay");
}

/* ------------------------------------------------------------ independent */

#define BIG (4 * 1024 * 1024)
static char big_dst[BIG];
static long small_dst;

/* PE 0: request A puts 4 MiB to PE 1, which then computes for a while
 * without calling Shoal; request B puts 8 bytes to PE 0 itself.  wait(B)
 * must return long before PE 1 wakes up.  PE 0 itself may be preempted
 * on a loaded machine: a run where wait(B) took over half PE 1's sleep is
 * repeated with a longer sleep (a wait that depends on A fails every run). */
static int independent_ok; /* PE 0's verdict on the last run */

static int independent_run(char *src, double sleep_s, int last)
{
    shmem_barrier_all();
    if (me == 1) {
        st_sleep_us((long)(sleep_s * 1e6));
    } else if (me == 0) {
        double t0 = st_now();
        shmemx_request_h a = SHMEMX_REQUEST_NULL, b = SHMEMX_REQUEST_NULL;
        shmemx_putmem_nbe(big_dst, src, BIG, 1, &a);
        long v = 77;
        shmemx_put_nbe(&small_dst, &v, 1, 0, &b);
        shmemx_request_wait(&b);
        double tb = st_now() - t0;
        CHECK_EQ_I(small_dst, 77);
        independent_ok = tb < sleep_s / 2;
        if (last)
            CHECK_MSG(independent_ok, "wait on B took %.3f s, as if it waited for A", tb);
        shmemx_request_wait(&a);
        printf("independent: wait(B) %.1f ms, wait(A) %.1f ms (PE 1 slept %.1f s)\n", tb * 1e3,
               (st_now() - t0) * 1e3, sleep_s);
    }
    shmem_barrier_all();
    if (me == 1)
        CHECK_EQ_I(big_dst[BIG - 1], 'x');
    return shmem_int_g(&independent_ok, 0);
}

static void mode_independent(void)
{
    ST_PHASE("independent");
    if (npes < 2) {
        st_note("independent (needs 2 PEs)");
        return;
    }
    char *src = malloc(BIG);
    CHECK_NOT_NULL(src);
    memset(src, 'x', BIG);
    for (int run = 1; run <= 3; run++) {
        memset(big_dst, 0, sizeof big_dst); /* each PE its own copy, before the barrier */
        if (independent_run(src, 0.8 * run, run == 3))
            break;
    }
    shmem_barrier_all();
    free(src);
    st_note("independent");
}

/* --------------------------------------------------------------- threads */

#define NT 4
#define TOPS 200
static long tcount[NT];
static long tslots[NT][TOPS];

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    long old[TOPS];
    shmemx_request_h r = SHMEMX_REQUEST_NULL, p = SHMEMX_REQUEST_NULL;
    for (int i = 0; i < TOPS; i++) {
        shmemx_atomic_fetch_add_nbe(&old[i], &tcount[t], 1L, right, &r);
        long v = (long)me * 1000000 + t * 1000 + i;
        shmemx_put_nbe(&tslots[t][i], &v, 1, right, &p);
        shmemx_request_wait(&p); /* v is on the stack: complete before reuse */
        if (i % 16 == 15)
            shmemx_request_wait(&r);
    }
    shmemx_request_wait(&r);
    /* Only this thread adds to that counter: the old values are 0..TOPS-1. */
    static __thread char seen[TOPS];
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < TOPS; i++) {
        CHECK(old[i] >= 0 && old[i] < TOPS && !seen[old[i]]);
        seen[old[i]] = 1;
    }
    return NULL;
}

static void mode_threads(void)
{
    ST_PHASE("threads");
    shmem_barrier_all();
    pthread_t th[NT];
    for (int t = 0; t < NT; t++)
        CHECK_EQ_I(pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t), 0);
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();
    for (int t = 0; t < NT; t++) {
        CHECK_EQ_I(tcount[t], TOPS);
        for (int i = 0; i < TOPS; i++)
            CHECK_EQ_I(tslots[t][i], (long)left * 1000000 + t * 1000 + i);
    }
    shmem_barrier_all();
    st_note("threads");
}

/* ----------------------------------------------------------------- alloc */

static void mode_alloc(void)
{
    ST_PHASE("alloc");
    shmemx_request_h r;
    CHECK_EQ_I(shmemx_request_alloc(NULL, &r), 0);
    CHECK(r != SHMEMX_REQUEST_NULL);
    int done = 0;
    CHECK_EQ_I(shmemx_request_test(&r, &done), 0);
    CHECK_EQ_I(done, 1);
    CHECK(r == SHMEMX_REQUEST_NULL);
    shmemx_request_params_t p = {SHMEMX_REQUEST_RESOURCE_SHARED};
    shmemx_request_h s[3];
    for (int i = 0; i < 3; i++)
        CHECK_EQ_I(shmemx_request_alloc(&p, &s[i]), 0);
    long v = me;
    for (int i = 0; i < 3; i++)
        shmemx_put_nbe(&mdst[i], &v, 1, right, &s[i]);
    shmemx_request_waitall(3, s);
    /* Dedicated: as many as the pool holds (SHOAL_REQUEST_WORKERS=2 in this
     * test's UCX runs), then alloc fails; on this node nothing is needed. */
    p.resource = SHMEMX_REQUEST_RESOURCE_DEDICATED;
    shmemx_request_h d[3];
    int got = 0;
    for (int i = 0; i < 3; i++)
        if (shmemx_request_alloc(&p, &d[i]) == 0)
            got++;
        else
            CHECK(d[i] == SHMEMX_REQUEST_NULL);
    const char *rw = getenv("SHOAL_REQUEST_WORKERS");
    const char *tr = getenv("SHOAL_TRANSPORTS");
    if (tr && !strcmp(tr, "ucx") && rw && !strcmp(rw, "2"))
        CHECK_EQ_I(got, 2);
    else if (!tr || strcmp(tr, "ucx"))
        CHECK(got >= 2);
    for (int i = 0; i < got; i++)
        shmemx_request_free(&d[i]);
    shmem_barrier_all();
    for (int i = 0; i < 3; i++)
        CHECK_EQ_I(mdst[i], left);
    shmem_barrier_all();
    st_note("alloc");
}

/* -------------------------------------------------------------- complete */

/* On this node an operation completes at issue, and given a NULL handle it
 * stores the complete request there instead of taking a request object
 * (under SHMEM_DEBUG a real request, so that stale copies stay checked).
 * Puts and gets to this PE itself are load/store except under
 * SHOAL_TRANSPORTS=ucx or ofi (everything through the network); the right
 * neighbour is reached over the network in the UCX (and OFI) variants (and AMOs go through UCX there, and
 * in ucx_mixed, even to this PE), where an operation that joins the
 * complete request must take a real one.  Where self is not load/store
 * everything here is a real request: the same calls, fewer checks. */
static long cdst[8], rdst[8], ccnt, cself;
static uint64_t csig;

static void mode_complete(void)
{
    ST_PHASE("complete");
    int debug = getenv("SHMEM_DEBUG") != NULL;
    const char *tr = getenv("SHOAL_TRANSPORTS");
    int self_local = !tr || (strcmp(tr, "ucx") && strcmp(tr, "ofi"));
    int right_net = !st_mapped(me, right, npes);
    int same = !debug && self_local; /* on-node handles are the complete request */
    long v[8], g = -1;
    for (int i = 0; i < 8; i++)
        v[i] = me * 100 + i;
    memset(cdst, 0, sizeof cdst);
    memset(rdst, 0, sizeof rdst);
    ccnt = cself = 0;
    csig = 0;
    shmem_barrier_all();

    /* test and wait: done at once; the handle is NULL after. */
    shmemx_request_h a = SHMEMX_REQUEST_NULL, b = SHMEMX_REQUEST_NULL;
    /* (The get reads what the barrier above made visible: two requests
     * over the network complete in no particular order.) */
    cdst[7] = v[7];
    shmemx_put_nbe(&cdst[0], &v[0], 1, me, &a);
    shmemx_get_nbe(&g, &cdst[7], 1, me, &b);
    CHECK(a != SHMEMX_REQUEST_NULL && b != SHMEMX_REQUEST_NULL);
    const shmemx_request_h done_h = a; /* (where `same`) the complete request */
    if (same)
        CHECK(a == b); /* no object: both are the complete request */
    else
        CHECK(a != b); /* real requests */
    int done = 0;
    CHECK_EQ_I(shmemx_request_test(&a, &done), 0);
    if (self_local)
        CHECK_EQ_I(done, 1);
    if (!done)
        shmemx_request_wait(&a);
    CHECK(a == SHMEMX_REQUEST_NULL);
    CHECK_EQ_I(cdst[0], v[0]);
    shmemx_request_wait(&b);
    CHECK(b == SHMEMX_REQUEST_NULL);
    CHECK_EQ_I(g, v[7]);
    if (same) {
        /* A stale copy of a complete handle is the complete request:
         * waiting on it again is harmless (under SHMEM_DEBUG: an error,
         * requests.errors.freed). */
        shmemx_request_h copy = done_h;
        shmemx_request_wait(&copy);
        CHECK(copy == SHMEMX_REQUEST_NULL);
    }

    /* free. */
    shmemx_put_nbe(&cdst[1], &v[1], 1, me, &a);
    shmemx_request_free(&a);
    CHECK(a == SHMEMX_REQUEST_NULL);
    CHECK_EQ_I(cdst[1], v[1]);

    /* waitall: complete ones, a NULL one, one to the right neighbour. */
    shmemx_request_h rs[4] = {SHMEMX_REQUEST_NULL, SHMEMX_REQUEST_NULL, SHMEMX_REQUEST_NULL,
                              SHMEMX_REQUEST_NULL};
    shmemx_put_nbe(&cdst[2], &v[2], 1, me, &rs[0]);
    shmemx_put_nbe(&cdst[3], &v[3], 1, me, &rs[2]);
    shmemx_put_nbe(&rdst[0], &v[0], 1, right, &rs[3]);
    if (same)
        CHECK(rs[0] == done_h && rs[2] == done_h);
    if (right_net)
        CHECK(rs[3] != rs[0] && rs[3] != rs[2]);
    shmemx_request_waitall(4, rs);
    for (int i = 0; i < 4; i++)
        CHECK(rs[i] == SHMEMX_REQUEST_NULL);
    CHECK_EQ_I(cdst[2], v[2]);
    CHECK_EQ_I(cdst[3], v[3]);

    /* waitany: the complete one is complete. */
    shmemx_put_nbe(&cdst[4], &v[4], 1, me, &rs[1]);
    CHECK_EQ_U(shmemx_request_waitany(3, rs), 1); /* the only live one */
    CHECK(rs[1] == SHMEMX_REQUEST_NULL);
    CHECK_EQ_U(shmemx_request_waitany(3, rs), 3);
    shmemx_put_nbe(&rdst[1], &v[1], 1, right, &rs[0]);
    shmemx_put_nbe(&cdst[4], &v[5], 1, me, &rs[1]);
    size_t k = shmemx_request_waitany(2, rs);
    CHECK(k < 2 && rs[k] == SHMEMX_REQUEST_NULL);
    shmemx_request_waitall(2, rs);
    CHECK_EQ_I(cdst[4], v[5]);

    /* merge: complete requests add nothing; merged into NULL, the result
     * is complete at once. */
    shmemx_put_nbe(&cdst[5], &v[5], 1, me, &a);
    shmemx_put_nbe(&cdst[6], &v[6], 1, me, &b);
    shmemx_request_h m = SHMEMX_REQUEST_NULL;
    shmemx_request_h *ab[] = {&a, &b};
    CHECK_EQ_I(shmemx_merge_request(2, ab, &m), 0);
    CHECK(a == SHMEMX_REQUEST_NULL && b == SHMEMX_REQUEST_NULL && m != SHMEMX_REQUEST_NULL);
    if (same)
        CHECK(m == done_h);
    CHECK_EQ_I(shmemx_request_test(&m, &done), 0);
    if (self_local)
        CHECK_EQ_I(done, 1);
    if (!done)
        shmemx_request_wait(&m);
    CHECK(m == SHMEMX_REQUEST_NULL);
    /* A complete one and one to the right neighbour, into a complete
     * 'merged': the result holds the other's operations. */
    shmemx_put_nbe(&cdst[7], &v[7], 1, me, &a);
    shmemx_put_nbe(&rdst[2], &v[2], 1, right, &b);
    shmemx_put_nbe(&cdst[7], &v[7], 1, me, &m);
    shmemx_request_h b0 = b;
    CHECK_EQ_I(shmemx_merge_request(2, ab, &m), 0);
    CHECK(a == SHMEMX_REQUEST_NULL && b == SHMEMX_REQUEST_NULL && m != SHMEMX_REQUEST_NULL);
    if (right_net && same)
        CHECK(m != done_h && m != b0); /* a new request took b's operation */
    shmemx_request_wait(&m);
    CHECK(m == SHMEMX_REQUEST_NULL);
    CHECK_EQ_I(cdst[7], v[7]);

    /* join: an operation on this node keeps the complete request; one over
     * the network takes a real request in its place, which the next
     * operations join. */
    shmemx_put_nbe(&cdst[0], &v[1], 1, me, &a);
    shmemx_request_h a0 = a;
    shmemx_put_nbe(&cdst[1], &v[2], 1, me, &a);
    CHECK(a == a0);
    long old = -1;
    shmemx_atomic_fetch_add_nbe(&old, &ccnt, 1L, right, &a);
    shmemx_request_h a1 = a;
    if (right_net && self_local)
        CHECK(a1 != a0 && (!same || a1 != done_h));
    shmemx_put_nbe(&cdst[2], &v[3], 1, me, &a);
    CHECK(a == a1);
    shmemx_put_nbe(&rdst[3], &v[3], 1, right, &a);
    CHECK(a == a1);
    shmemx_request_wait(&a);
    CHECK(a == SHMEMX_REQUEST_NULL);
    CHECK_EQ_I(old, 0); /* only the left neighbour adds to a PE's ccnt */
    CHECK_EQ_I(cdst[0], v[1]);
    CHECK_EQ_I(cdst[1], v[2]);
    CHECK_EQ_I(cdst[2], v[3]);

    /* AMOs and put-with-signal to this PE, each into a NULL handle. */
    long f = -1;
    shmemx_atomic_fetch_add_nbe(&f, &cself, 10L, me, &a);
    CHECK(a != SHMEMX_REQUEST_NULL);
    shmemx_request_wait(&a);
    CHECK(a == SHMEMX_REQUEST_NULL);
    shmemx_atomic_fetch_nbe(&g, &cself, me, &b);
    CHECK_EQ_I(shmemx_request_test(&b, &done), 0);
    if (!done)
        shmemx_request_wait(&b);
    CHECK(b == SHMEMX_REQUEST_NULL);
    CHECK_EQ_I(f, 0);
    CHECK_EQ_I(g, 10);
    shmemx_put_signal_nbe(&cdst[3], &v[4], 1, &csig, 1, SHMEM_SIGNAL_SET, me, &a);
    CHECK(a != SHMEMX_REQUEST_NULL);
    shmemx_request_wait(&a);
    CHECK_EQ_I(cdst[3], v[4]);
    CHECK_EQ_U(csig, 1);

    shmem_barrier_all();
    CHECK_EQ_I(ccnt, 1);
    for (int i = 0; i < 4; i++)
        CHECK_EQ_I(rdst[i], left * 100 + i);
    shmem_barrier_all();
    st_note("complete");
}

/* ---------------------------------------------------------------- errors */

/* A handle from before the last shmem_finalize: every request routine
 * reports the call as outside the library (the request objects are gone:
 * once silent on this node, a use-after-free and SIGSEGV over UCX). */
static void mode_after_finalize(const char *what)
{
    long v = 0;
    shmemx_request_h r = SHMEMX_REQUEST_NULL, m2 = SHMEMX_REQUEST_NULL;
    if (!strcmp(what, "free") || !strcmp(what, "merge"))
        shmemx_request_alloc(NULL, &r);
    shmemx_get_nbe(&v, &small_dst, 1, right, &r);
    shmem_finalize();
    int done = 0;
    if (!strcmp(what, "wait")) {
        shmemx_request_wait(&r);
    } else if (!strcmp(what, "test")) {
        shmemx_request_test(&r, &done);
    } else if (!strcmp(what, "free")) {
        shmemx_request_free(&r);
    } else if (!strcmp(what, "merge")) {
        shmemx_request_h *in[] = {&r};
        shmemx_merge_request(1, in, &m2);
    } else {
        fprintf(stderr, "unknown mode after_finalize_%s\n", what);
        _exit(2);
    }
    fprintf(stderr, "mode after_finalize_%s: no error was reported\n", what);
    _exit(3);
}

static void *second_waiter(void *arg)
{
    shmemx_request_wait((shmemx_request_h *)arg);
    return NULL;
}

static void mode_error(const char *m)
{
    long v = 1;
    shmemx_request_h r = SHMEMX_REQUEST_NULL;
    if (!strcmp(m, "null_req")) {
        shmemx_long_put_nbe(&small_dst, &v, 1, right, NULL);
    } else if (!strcmp(m, "freed") || !strcmp(m, "freed_alloc")) {
        if (strcmp(m, "freed"))
            shmemx_request_alloc(NULL, &r);
        shmemx_put_nbe(&small_dst, &v, 1, right, &r);
        shmemx_request_h copy = r;
        shmemx_request_wait(&r);
        shmemx_request_wait(&copy);
    } else if (!strcmp(m, "merged_handle") || !strcmp(m, "merged_alloc")) {
        shmemx_request_h a = SHMEMX_REQUEST_NULL, m2 = SHMEMX_REQUEST_NULL;
        if (strcmp(m, "merged_handle"))
            shmemx_request_alloc(NULL, &a);
        shmemx_put_nbe(&small_dst, &v, 1, right, &a);
        shmemx_request_h copy = a;
        shmemx_request_h *in[] = {&a};
        shmemx_merge_request(1, in, &m2);
        shmemx_put_nbe(&small_dst, &v, 1, right, &copy);
    } else if (!strcmp(m, "merge_self")) {
        shmemx_put_nbe(&small_dst, &v, 1, right, &r);
        shmemx_request_h *in[] = {&r};
        shmemx_merge_request(1, in, &r);
    } else if (!strcmp(m, "merge_freed")) {
        /* The message names the element by its index. */
        shmemx_request_h a = SHMEMX_REQUEST_NULL, b = SHMEMX_REQUEST_NULL;
        shmemx_request_h m2 = SHMEMX_REQUEST_NULL;
        shmemx_request_alloc(NULL, &b);
        shmemx_put_nbe(&small_dst, &v, 1, right, &a);
        shmemx_put_nbe(&small_dst, &v, 1, right, &b);
        shmemx_request_h copy = b;
        shmemx_request_wait(&b);
        shmemx_request_h *in[] = {&a, &copy};
        shmemx_merge_request(2, in, &m2);
    } else if (!strcmp(m, "merge_twice")) {
        shmemx_request_h a = SHMEMX_REQUEST_NULL, m2 = SHMEMX_REQUEST_NULL;
        shmemx_put_nbe(&small_dst, &v, 1, right, &a);
        shmemx_request_h *in[] = {&a, &a};
        shmemx_merge_request(2, in, &m2);
    } else if (!strcmp(m, "null_req_amo")) {
        long got;
        shmemx_long_atomic_fetch_add_nbe(&got, &small_dst, 1, right, NULL);
    } else if (!strcmp(m, "freed_op") || !strcmp(m, "freed_op_alloc")) {
        /* An operation (not wait) on a freed handle: the AMO's join checks. */
        long got;
        if (strcmp(m, "freed_op"))
            shmemx_request_alloc(NULL, &r);
        shmemx_long_atomic_fetch_add_nbe(&got, &small_dst, 1, right, &r);
        shmemx_request_h copy = r;
        shmemx_request_wait(&r);
        shmemx_long_atomic_fetch_add_nbe(&got, &small_dst, 1, right, &copy);
    } else if (!strcmp(m, "foreign_op")) {
        /* Under SHMEM_DEBUG an operation checks that the handle is ours
         * before it reads it (the _nbe operations' separate debug path). */
        long junk[16] = {0};
        shmemx_request_h f = (shmemx_request_h)(void *)junk;
        shmemx_long_put_nbe(&small_dst, &v, 1, right, &f);
    } else if (!strcmp(m, "foreign") || !strcmp(m, "foreign_nodebug")) {
        long junk[16] = {0};
        shmemx_request_h f = (shmemx_request_h)(void *)junk;
        shmemx_request_wait(&f);
    } else if (!strcmp(m, "two_waiters")) {
        /* PE 0 gets from PE 1, which does not progress for a second (run
         * over UCX tcp without a progress thread), and waits on the request
         * from two threads at once. */
        if (me == 1)
            st_sleep_us(1000000);
        if (me == 0) {
            shmemx_get_nbe(&v, &small_dst, 1, 1, &r);
            pthread_t t1, t2;
            pthread_create(&t1, NULL, second_waiter, &r);
            st_sleep_us(100000);
            pthread_create(&t2, NULL, second_waiter, &r);
            pthread_join(t1, NULL);
            pthread_join(t2, NULL);
        }
        shmem_barrier_all();
    } else if (!strncmp(m, "dead_peer", 9)) {
        /* PE 1 dies; PE 0 then waits on a get from it: the job must end
         * with PE 1's status reported, not hang in the wait. */
        shmem_barrier_all();
        if (me == 1)
            _exit(5);
        st_sleep_us(200000);
        shmemx_get_nbe(&v, &small_dst, 1, 1, &r);
        shmemx_request_wait(&r);
        st_sleep_us(5000000); /* (on this node the get itself succeeds) */
    } else {
        fprintf(stderr, "unknown mode %s\n", m);
        st_die(2);
    }
    fprintf(stderr, "mode %s: no error was reported\n", m);
    st_die(3);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "values";
    int threads = !strcmp(mode, "threads") || !strcmp(mode, "two_waiters");
    if (threads) {
        int prov;
        shmem_init_thread(SHMEM_THREAD_MULTIPLE, &prov);
        CHECK_EQ_I(prov, SHMEM_THREAD_MULTIPLE);
    } else {
        shmem_init();
    }
    st_begin();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    if (!strncmp(mode, "after_finalize_", 15)) {
        mode_after_finalize(mode + 15);
        return 0;
    }
    if (!strcmp(mode, "values"))
        mode_values();
    else if (!strcmp(mode, "merge"))
        mode_merge();
    else if (!strcmp(mode, "quiet"))
        mode_quiet();
    else if (!strcmp(mode, "delay"))
        mode_delay();
    else if (!strcmp(mode, "independent"))
        mode_independent();
    else if (!strcmp(mode, "threads"))
        mode_threads();
    else if (!strcmp(mode, "alloc"))
        mode_alloc();
    else if (!strcmp(mode, "complete"))
        mode_complete();
    else
        mode_error(mode);
    shmem_finalize();
    return 0;
}
