/* Contexts: shmem_ctx_create / destroy / get_team.
 *
 * - create + use + destroy 1000 times (resources are recycled);
 * - every option combination (0, PRIVATE, SERIALIZED, NOSTORE, ORs);
 * - ctx_get_team gives SHMEM_TEAM_WORLD for created contexts and the
 *   default one, and nonzero + SHMEM_TEAM_INVALID for SHMEM_CTX_INVALID;
 * - destroy(SHMEM_CTX_INVALID) is a no-op;
 * - many contexts alive at once, each with its own nbi traffic;
 * - threads (SHMEM_THREAD_MULTIPLE), each with a PRIVATE context, doing
 *   puts and AMOs concurrently: exact results. */
#include "shoal_test.h"

#define MAXPE 64
#define NTHREADS 4
#define TOPS 500

static long g_cnt;                      /* AMO target */
static long g_thr_data[NTHREADS][TOPS]; /* thread t of PE (me-1) writes row t here */
static long g_thr_cnt[NTHREADS];

static char g_ph[160];
#define PHASE(...) (snprintf(g_ph, sizeof g_ph, __VA_ARGS__), ST_PHASE(g_ph))

static void check_world(shmem_ctx_t c, const char *what)
{
    shmem_team_t t = SHMEM_TEAM_INVALID;
    CHECK_MSG(shmem_ctx_get_team(c, &t) == 0, "shmem_ctx_get_team(%s) failed", what);
    CHECK_MSG(t == SHMEM_TEAM_WORLD, "shmem_ctx_get_team(%s) is not SHMEM_TEAM_WORLD", what);
}

static void test_create_destroy_loop(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), r = (me + 1) % n;
    static const long opts[] = {
        0,
        SHMEM_CTX_PRIVATE,
        SHMEM_CTX_SERIALIZED,
        SHMEM_CTX_NOSTORE,
        SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE,
        SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE,
    };
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    PHASE("create/destroy 1000 times");
    g_cnt = 0;
    shmem_barrier_all();
    for (int i = 0; i < 1000; i++) {
        shmem_ctx_t c = SHMEM_CTX_INVALID;
        long o = opts[i % nopts];
        int rc = shmem_ctx_create(o, &c);
        CHECK_MSG(rc == 0, "shmem_ctx_create(%#lx) failed in iteration %d with %d", o, i, rc);
        CHECK(c != SHMEM_CTX_INVALID);
        if (i % 10 == 0)
            check_world(c, "created context");
        shmem_ctx_long_atomic_inc(c, &g_cnt, r);
        shmem_ctx_long_p(c, &g_thr_cnt[0], i, r);
        /* destroy quiets the context first */
        shmem_ctx_destroy(c);
    }
    shmem_barrier_all();
    CHECK_EQ_I(g_cnt, 1000);
    CHECK_EQ_I(g_thr_cnt[0], 999);
    st_note("ctx create/destroy x1000");
}

static void test_many_alive(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), r = (me + 1) % n, l = (me + n - 1) % n;
    enum { NC = 32 };
    PHASE("%d contexts alive at once", NC);
    shmem_ctx_t c[NC];
    long *data = shmem_calloc(NC * 16, sizeof(long));
    CHECK_NOT_NULL(data);
    for (int i = 0; i < NC; i++) {
        CHECK_EQ_I(shmem_ctx_create(i % 2 ? SHMEM_CTX_PRIVATE : 0, &c[i]), 0);
        for (int j = 0; j < i; j++)
            CHECK_MSG(c[j] != c[i], "contexts %d and %d are the same handle", j, i);
    }
    shmem_barrier_all();
    long src[NC][16];
    for (int i = 0; i < NC; i++) {
        for (int k = 0; k < 16; k++)
            src[i][k] = me * 100000L + i * 100 + k;
        shmem_ctx_long_put_nbi(c[i], &data[i * 16], src[i], 16, r);
    }
    /* Quiet each one; then destroy in a scrambled order. */
    for (int i = NC - 1; i >= 0; i--)
        shmem_ctx_quiet(c[i]);
    for (int i = 0; i < NC; i++)
        shmem_ctx_destroy(c[(i * 7) % NC]);
    shmem_barrier_all();
    for (int i = 0; i < NC; i++)
        for (int k = 0; k < 16; k++)
            CHECK_EQ_I(data[i * 16 + k], l * 100000L + i * 100 + k);
    shmem_barrier_all();
    shmem_free(data);
}

static void test_handles(void)
{
    PHASE("ctx_get_team / invalid handles");
    check_world(SHMEM_CTX_DEFAULT, "SHMEM_CTX_DEFAULT");
    shmem_team_t t = SHMEM_TEAM_WORLD;
    CHECK_MSG(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0,
              "shmem_ctx_get_team(SHMEM_CTX_INVALID) returned 0");
    CHECK_MSG(t == SHMEM_TEAM_INVALID,
              "shmem_ctx_get_team(SHMEM_CTX_INVALID) did not set SHMEM_TEAM_INVALID");
    shmem_ctx_destroy(SHMEM_CTX_INVALID); /* no-op */
    /* SHMEM_CTX_INVALID is distinct from the default context. */
    CHECK(SHMEM_CTX_INVALID != SHMEM_CTX_DEFAULT);
    /* team_create_ctx on the world team and on an invalid team. */
    shmem_ctx_t c = SHMEM_CTX_DEFAULT;
    CHECK_EQ_I(shmem_team_create_ctx(SHMEM_TEAM_WORLD, 0, &c), 0);
    check_world(c, "team_create_ctx(WORLD)");
    shmem_ctx_destroy(c);
    c = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &c) != 0);
    CHECK(c == SHMEM_CTX_INVALID);
    shmem_barrier_all();
    st_note("ctx handles");
}

/* ------------------------------------------------------------ threads */

struct targ {
    int t;
    int fail_line;
};

static void *thread_body(void *p)
{
    struct targ *a = p;
    int me = shmem_my_pe(), n = shmem_n_pes(), r = (me + 1) % n;
    shmem_ctx_t c;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &c) != 0) {
        a->fail_line = __LINE__;
        return NULL;
    }
    long last = -1;
    for (int k = 0; k < TOPS; k++) {
        long v = me * 1000000L + a->t * 10000L + k;
        shmem_ctx_long_p(c, &g_thr_data[a->t][k], v, r);
        long old = shmem_ctx_long_atomic_fetch_add(c, &g_cnt, 1, 0);
        if (old <= last) {
            a->fail_line = __LINE__;
            break;
        }
        last = old;
        shmem_ctx_long_atomic_inc(c, &g_thr_cnt[a->t], r);
        if (k % 64 == 0)
            shmem_ctx_quiet(c);
    }
    shmem_ctx_quiet(c);
    shmem_team_t team;
    if (shmem_ctx_get_team(c, &team) != 0 || team != SHMEM_TEAM_WORLD)
        a->fail_line = __LINE__;
    shmem_ctx_destroy(c);
    return NULL;
}

static void test_threads(int provided)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), l = (me + n - 1) % n;
    PHASE("threads with PRIVATE contexts");
    CHECK_EQ_I(provided, SHMEM_THREAD_MULTIPLE);
    g_cnt = 0;
    memset(g_thr_data, 0, sizeof g_thr_data);
    memset(g_thr_cnt, 0, sizeof g_thr_cnt);
    shmem_barrier_all();
    for (int round = 0; round < 3; round++) {
        pthread_t th[NTHREADS];
        struct targ a[NTHREADS];
        for (int t = 0; t < NTHREADS; t++) {
            a[t] = (struct targ){t, 0};
            CHECK_EQ_I(pthread_create(&th[t], NULL, thread_body, &a[t]), 0);
        }
        for (int t = 0; t < NTHREADS; t++) {
            pthread_join(th[t], NULL);
            CHECK_MSG(a[t].fail_line == 0, "thread %d failed at ctx.c:%d", t, a[t].fail_line);
        }
        shmem_barrier_all();
        for (int t = 0; t < NTHREADS; t++) {
            CHECK_EQ_I(g_thr_cnt[t], (long)TOPS * (round + 1));
            for (int k = 0; k < TOPS; k++)
                CHECK_EQ_I(g_thr_data[t][k], l * 1000000L + t * 10000L + k);
        }
        if (me == 0)
            CHECK_EQ_I(g_cnt, (long)n * NTHREADS * TOPS * (round + 1));
        shmem_barrier_all();
    }
    st_note("threads with PRIVATE contexts");
}

int main(void)
{
    int provided = -1;
    CHECK_EQ_I(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), 0);
    st_begin();
    test_handles();
    test_create_destroy_loop();
    test_many_alive();
    test_threads(provided);
    ST_PHASE("finalize");
    shmem_finalize();
    if (st_me == 0)
        printf("ok: ctx (%d PEs)\n", st_npes);
    return 0;
}
