/* A program whose traffic is known exactly, for SHOAL_PROFILE's tests
 * (tests/profile/check_profile.py holds the same counts and checks the
 * profile's JSON against them).
 *
 *   traffic [T]   T threads (default 1; T > 1 under SHMEM_THREAD_MULTIPLE,
 *                 the main thread being thread 0) each run the pattern
 *                 below towards the next PE, t = (me + 1) % n; around it
 *                 the main thread runs the collectives, locks, contexts,
 *                 teams and allocations listed in main()
 *   fatal         the pattern (one thread), a barrier, then PE n-1 calls
 *                 shmem_long_p with an invalid PE (a fatal error) while
 *                 the others wait in a second barrier (each says it left
 *                 the first with an add on PE n-1, which PE n-1 waits for)
 *   exit          the same, but PE n-1 calls shmem_global_exit(7)
 *
 * The pattern of one thread (per_thread, counts in check_profile.py):
 * put 3 x 100 B + 2 x 8 B (shmem_long_p), get 64 B + 8 B (shmem_long_g),
 * put_nbi 5 x 16 B, get_nbi 2 x 8 B, iput 4 ints, quiet, fetch_add 4, inc 3,
 * fetch_nbi 1, quiet, fence, put_signal 32 B, signal_add 2, a wait for the
 * signal from the previous PE, test 2, put_nbe 40 B and its request wait,
 * am_send 2 x 24 B and am_quiet.  Values are checked where they land. */
#include "shoal_test.h"

#include <shmemx.h>

#define MAX_THREADS 4
#define TAG 5

struct slots {
    char put[4][100];
    char nbi[5][16];
    char nbe[40];
    char sig_data[32];
    int ints[8];
    long word;
    long ctr, ctr2;
    uint64_t sig, sig2;
};

static struct slots *sym; /* [MAX_THREADS], symmetric */
static long lock;
static int me, npes;
static int am_seen[MAX_THREADS * 2];

static void am_handler(int src, const void *payload, size_t len, void *arg)
{
    (void)src;
    (void)arg;
    CHECK_EQ_U(len, 24);
    int k = ((const char *)payload)[0];
    __atomic_fetch_add(&am_seen[k], 1, __ATOMIC_RELAXED);
}

static void rma(int k, int t)
{
    struct slots *s = &sym[k];
    char buf[100];
    memset(buf, 'a' + k, sizeof buf);
    for (int i = 0; i < 3; i++)
        shmem_putmem(s->put[i], buf, 100, t);
    shmem_long_p(&s->word, 41, t);
    shmem_long_p(&s->word, 42, t);
    shmem_getmem(buf, s->put[0], 64, t);
    CHECK_EQ_I(buf[0], 'a' + k);
    CHECK_EQ_I(shmem_long_g(&s->word, t), 42);
    for (int i = 0; i < 5; i++)
        shmem_putmem_nbi(s->nbi[i], buf, 16, t);
    shmem_getmem_nbi(buf, s->put[1], 8, t);
    shmem_getmem_nbi(buf + 8, s->put[2], 8, t);
    int src[8] = {1, 0, 2, 0, 3, 0, 4, 0};
    shmem_int_iput(s->ints, src, 2, 2, 4, t);
    /* The gets land in buf, which ends with this function. */
    shmem_quiet();
    CHECK_EQ_I(buf[0], 'a' + k);
    CHECK_EQ_I(buf[8], 'a' + k);
}

static void amo(int k, int t)
{
    struct slots *s = &sym[k];
    for (int i = 0; i < 4; i++)
        shmem_long_atomic_fetch_add(&s->ctr, 1, t);
    for (int i = 0; i < 3; i++)
        shmem_long_atomic_inc(&s->ctr2, t);
    long fetched = -1;
    shmem_long_atomic_fetch_nbi(&fetched, &s->ctr2, t);
    shmem_quiet();
    CHECK_EQ_I(fetched, 3);
    shmem_fence();
}

static void signals(int k, int t)
{
    struct slots *s = &sym[k];
    char data[32];
    memset(data, 's', sizeof data);
    shmem_putmem_signal(s->sig_data, data, 32, &s->sig, 1, SHMEM_SIGNAL_ADD, t);
    shmem_signal_add(&s->sig2, 1, t);
    shmem_signal_add(&s->sig2, 1, t);
    shmem_uint64_wait_until(&s->sig, SHMEM_CMP_GE, 1);
    CHECK_EQ_I(s->sig_data[0], 's');
    CHECK(shmem_uint64_test(&s->sig2, SHMEM_CMP_GE, 0));
    CHECK(shmem_uint64_test(&s->sig2, SHMEM_CMP_GE, 0));
}

static void extensions(int k, int t)
{
    struct slots *s = &sym[k];
    char buf[40] = {0};
    shmemx_request_h req = SHMEMX_REQUEST_NULL;
    shmemx_putmem_nbe(s->nbe, buf, 40, t, &req);
    shmemx_request_wait(&req);
    char payload[24] = {(char)k};
    shmemx_am_send(SHMEM_CTX_DEFAULT, t, TAG, payload, 24);
    shmemx_am_send(SHMEM_CTX_DEFAULT, t, TAG, payload, 24);
    shmemx_am_quiet(SHMEM_CTX_DEFAULT);
}

static void pattern(int k)
{
    int t = (me + 1) % npes;
    rma(k, t);
    amo(k, t);
    signals(k, t);
    extensions(k, t);
}

static void *thread_main(void *arg)
{
    pattern((int)(intptr_t)arg);
    return NULL;
}

static void run_threads(int nthreads)
{
    pthread_t th[MAX_THREADS];
    for (int k = 1; k < nthreads; k++)
        CHECK(pthread_create(&th[k], NULL, thread_main, (void *)(intptr_t)k) == 0);
    pattern(0);
    for (int k = 1; k < nthreads; k++)
        pthread_join(th[k], NULL);
}

/* The collectives, locks, contexts and teams of the main thread. */
static void collectives(void)
{
    static char src[64], dst[64 * 4];
    static int isrc[4] = {1, 2, 3, 4}, idst[4];
    shmem_sync_all();
    shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, 16, 0);
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, idst, isrc, 4);
    CHECK_EQ_I(idst[3], 4 * npes);
    shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, 8);
    shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, 8);
    shmem_set_lock(&lock);
    shmem_clear_lock(&lock);
    shmem_ctx_t ctx;
    CHECK_EQ_I(shmem_ctx_create(0, &ctx), 0);
    shmem_ctx_destroy(ctx);
    shmem_team_t team;
    CHECK_EQ_I(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &team), 0);
    shmem_team_destroy(team);
}

/* The failure modes: the pattern, a barrier, then PE n-1 fails once every
 * other PE has left that barrier (said so with an add on PE n-1). */
static void fail_late(const char *mode)
{
    static long arrived;
    pattern(0);
    shmem_barrier_all();
    if (me != npes - 1)
        shmem_long_atomic_add(&arrived, 1, npes - 1);
    if (me == npes - 1) {
        shmem_long_wait_until(&arrived, SHMEM_CMP_EQ, npes - 1);
        if (!strcmp(mode, "exit"))
            shmem_global_exit(7);
        shmem_long_p(&sym[0].word, 1, npes); /* fatal: no PE npes */
    }
    shmem_barrier_all(); /* where the others are when the job goes down */
    CHECK_MSG(0, "the job went on after PE %d failed", npes - 1);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "1";
    int nthreads = atoi(mode) > 0 ? atoi(mode) : 1;
    if (nthreads > MAX_THREADS)
        nthreads = MAX_THREADS;
    int provided;
    shmem_init_thread(nthreads > 1 ? SHMEM_THREAD_MULTIPLE : SHMEM_THREAD_SINGLE, &provided);
    st_begin();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK_EQ_I(shmemx_am_register(TAG, am_handler, NULL), 0);
    sym = shmem_malloc(sizeof *sym * MAX_THREADS);
    CHECK_NOT_NULL(sym);
    memset(sym, 0, sizeof *sym * MAX_THREADS);
    shmem_barrier_all();
    if (!strcmp(mode, "fatal") || !strcmp(mode, "exit"))
        fail_late(mode);
    run_threads(nthreads);
    shmem_barrier_all();
    for (int k = 0; k < nthreads; k++)
        CHECK_EQ_I(am_seen[k], 2);
    collectives();
    shmem_free(sym);
    shmem_finalize();
    return 0;
}
