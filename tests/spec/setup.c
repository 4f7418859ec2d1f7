/* Library setup, exit and query; thread support; profiling control.
 *
 *   setup init <npes>      nested shmem_init/finalize, queries, shmem_ptr...
 *                          (<npes>: the PE count the launcher was given)
 *   setup thread <level> <npes>   shmem_init_thread at one level
 *                          (single | funneled | serialized | multiple)
 *
 * Spec 1.6: shmem_init may be called more than once; each call is matched
 * by a shmem_finalize; inner finalizes act as shmem_barrier_all and release
 * nothing; shmem_query_initialized reads nonzero from the first init until
 * the last finalize and zero before and after. */
#include "shoal_test.h"

#define MAXPE 64

static int g_global = 17; /* symmetric: .data */
static long g_bss[MAXPE]; /* symmetric: .bss */
static int g_seen[MAXPE];
static int g_npes_seen[MAXPE];
static long g_nested[MAXPE];

static void check_init_state(int expect)
{
    int init = -1;
    shmem_query_initialized(&init);
    if (expect)
        CHECK_MSG(init != 0, "shmem_query_initialized: expected nonzero, got %d", init);
    else
        CHECK_EQ_I(init, 0);
}

/* my_pe, n_pes: every PE agrees on n_pes, PE numbers are distinct and cover
 * 0..n-1. */
static void test_identity(int expect_npes)
{
    ST_PHASE("identity");
    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(n >= 1);
    CHECK(me >= 0 && me < n);
    CHECK(n <= MAXPE);
    if (expect_npes > 0)
        CHECK_EQ_I(n, expect_npes);
    for (int pe = 0; pe < n; pe++) {
        shmem_int_p(&g_seen[me], me + 1, pe);
        shmem_int_p(&g_npes_seen[me], n, pe);
    }
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++) {
        CHECK_EQ_I(g_seen[pe], pe + 1);
        CHECK_EQ_I(g_npes_seen[pe], n);
    }
    shmem_barrier_all();
}

static void test_info(void)
{
    ST_PHASE("info");
    int major = -1, minor = -1;
    shmem_info_get_version(&major, &minor);
    CHECK_EQ_I(major, 1);
    CHECK_EQ_I(minor, 6);
    CHECK_EQ_I(SHMEM_MAJOR_VERSION, 1);
    CHECK_EQ_I(SHMEM_MINOR_VERSION, 6);
    CHECK_EQ_I(_SHMEM_MAJOR_VERSION, 1);
    CHECK_EQ_I(_SHMEM_MINOR_VERSION, 6);

    /* The name fits in SHMEM_MAX_NAME_LEN bytes including its NUL; nothing
     * past it is written. */
    char name[SHMEM_MAX_NAME_LEN + 64];
    memset(name, 'X', sizeof name);
    shmem_info_get_name(name);
    size_t len = strnlen(name, sizeof name);
    CHECK_MSG(len > 0, "shmem_info_get_name wrote an empty name");
    CHECK_MSG(len < (size_t)SHMEM_MAX_NAME_LEN,
              "name length %zu does not fit SHMEM_MAX_NAME_LEN = %d with its NUL", len,
              (int)SHMEM_MAX_NAME_LEN);
    CHECK_EQ_S(name, SHMEM_VENDOR_STRING);
    CHECK_EQ_S(name, _SHMEM_VENDOR_STRING);
    CHECK_BYTES(name + SHMEM_MAX_NAME_LEN, 64, 'X');
    CHECK(strlen(SHMEM_VENDOR_STRING) < (size_t)SHMEM_MAX_NAME_LEN);

    CHECK(SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED);
    CHECK(SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED);
    CHECK(SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE);

    /* pcontrol does nothing, at any level, with extra arguments. */
    shmem_pcontrol(0);
    shmem_pcontrol(1);
    shmem_pcontrol(2);
    shmem_pcontrol(3, "library-defined", 42);
    shmem_pcontrol(-1);
}

static void test_accessible(void)
{
    ST_PHASE("pe_accessible/addr_accessible");
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (int pe = 0; pe < n; pe++)
        CHECK_EQ_I(shmem_pe_accessible(pe), 1);
    CHECK_EQ_I(shmem_pe_accessible(-1), 0);
    CHECK_EQ_I(shmem_pe_accessible(n), 0);
    CHECK_EQ_I(shmem_pe_accessible(n + 7), 0);
    CHECK_EQ_I(shmem_pe_accessible(INT_MAX), 0);
    CHECK_EQ_I(shmem_pe_accessible(INT_MIN), 0);

    int *heap = shmem_malloc(64 * sizeof(int));
    CHECK_NOT_NULL(heap);
    int stack_var = me;
    int *priv = malloc(sizeof(int));
    CHECK_NOT_NULL(priv);
    for (int pe = 0; pe < n; pe++) {
        CHECK_EQ_I(shmem_addr_accessible(heap, pe), 1);
        CHECK_EQ_I(shmem_addr_accessible(heap + 63, pe), 1);
        CHECK_EQ_I(shmem_addr_accessible(&g_global, pe), 1);
        CHECK_EQ_I(shmem_addr_accessible(&g_bss[MAXPE - 1], pe), 1);
        CHECK_EQ_I(shmem_addr_accessible(&stack_var, pe), 0);
        CHECK_EQ_I(shmem_addr_accessible(priv, pe), 0);
    }
    /* An invalid PE: nothing there is accessible. */
    CHECK_EQ_I(shmem_addr_accessible(heap, n), 0);
    CHECK_EQ_I(shmem_addr_accessible(heap, -1), 0);
    free(priv);
    shmem_free(heap);
}

/* shmem_ptr: a store through the pointer on PE x lands in PE y's object and
 * is seen by PE y after a barrier. */
static void test_ptr(void)
{
    ST_PHASE("shmem_ptr");
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *heap = shmem_calloc(MAXPE, sizeof(long));
    CHECK_NOT_NULL(heap);
    memset(g_bss, 0, sizeof g_bss);
    shmem_barrier_all();

    /* All PEs of an oshrun job share this node, but SHOAL_TRANSPORTS=ucx
     * maps none of them (every operation goes through the network) and
     * SHOAL_SPLIT_NODES only those of a pretend node: for the others
     * shmem_ptr is NULL and the stores are shmem_p. */
    for (int pe = 0; pe < n; pe++) {
        const int mapped = st_mapped(me, pe, n);
        long *hp = shmem_ptr(&heap[me], pe);
        long *gp = shmem_ptr(&g_bss[me], pe);
        if (!mapped) {
            CHECK_NULL(hp);
            CHECK_NULL(gp);
            CHECK_NULL(shmem_team_ptr(SHMEM_TEAM_WORLD, &heap[me], pe));
            shmem_long_p(&heap[me], 1000L * (me + 1) + pe, pe);
            shmem_long_p(&g_bss[me], 2000L * (me + 1) + pe, pe);
            continue;
        }
        CHECK_NOT_NULL(hp);
        CHECK_NOT_NULL(gp);
        CHECK_EQ_P(shmem_team_ptr(SHMEM_TEAM_WORLD, &heap[me], pe), hp);
        CHECK_EQ_P(shmem_team_ptr(SHMEM_TEAM_WORLD, &g_bss[me], pe), gp);
        CHECK_NULL(shmem_team_ptr(SHMEM_TEAM_INVALID, &heap[me], pe));
        *hp = 1000L * (me + 1) + pe;
        *gp = 2000L * (me + 1) + pe;
    }
    /* The pointer for this PE reaches this PE's own object. */
    long *self = shmem_ptr(&heap[MAXPE - 1], me);
    CHECK_NOT_NULL(self);
    *self = 77;
    CHECK_EQ_I(heap[MAXPE - 1], 77);

    /* A private (stack) address has no remote pointer. */
    long stack_var = 5;
    for (int pe = 0; pe < n; pe++) {
        CHECK_NULL(shmem_ptr(&stack_var, pe));
        CHECK_NULL(shmem_team_ptr(SHMEM_TEAM_WORLD, &stack_var, pe));
    }

    shmem_barrier_all();
    for (int x = 0; x < n; x++) {
        CHECK_EQ_I(heap[x], 1000L * (x + 1) + me);
        CHECK_EQ_I(g_bss[x], 2000L * (x + 1) + me);
    }
    /* And the other way: PE me reads PE (me+1)'s value by load. */
    int right = (me + 1) % n;
    const int *gp = shmem_ptr(&g_global, right);
    if (!st_mapped(me, right, n)) {
        CHECK_NULL(gp);
        CHECK_EQ_I(shmem_int_g(&g_global, right), 17);
    } else {
        CHECK_NOT_NULL(gp);
        CHECK_EQ_I(*gp, 17);
    }
    shmem_barrier_all();
    shmem_free(heap);
}

/* Nested init/finalize (1.6). */
static void test_nested(void)
{
    ST_PHASE("nested init");
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_init(); /* second */
    check_init_state(1);
    CHECK_EQ_I(shmem_my_pe(), me);
    CHECK_EQ_I(shmem_n_pes(), n);
    shmem_init(); /* third */
    check_init_state(1);

    /* Memory allocated while nested survives the inner finalizes. */
    long *keep = shmem_malloc(MAXPE * sizeof(long));
    CHECK_NOT_NULL(keep);
    memset(keep, 0, MAXPE * sizeof(long));
    memset(g_nested, 0, sizeof g_nested);
    shmem_barrier_all();

    /* An inner finalize acts as shmem_barrier_all: puts issued before it
     * are visible after it, even from a PE that arrives late. */
    ST_PHASE("inner finalize as barrier (1)");
    if (me == n - 1)
        st_sleep_us(100000);
    for (int pe = 0; pe < n; pe++)
        shmem_long_p(&g_nested[me], 10 + me, pe);
    shmem_finalize(); /* closes the third */
    check_init_state(1);
    for (int pe = 0; pe < n; pe++)
        CHECK_EQ_I(g_nested[pe], 10 + pe);

    ST_PHASE("inner finalize as barrier (2)");
    if (me == 0)
        st_sleep_us(50000);
    for (int pe = 0; pe < n; pe++)
        shmem_long_p(&keep[me], 20 + me, pe);
    shmem_finalize(); /* closes the second */
    check_init_state(1);
    for (int pe = 0; pe < n; pe++)
        CHECK_EQ_I(keep[pe], 20 + pe);

    /* Still fully usable. */
    ST_PHASE("after inner finalizes");
    CHECK_EQ_I(shmem_my_pe(), me);
    shmem_barrier_all();
    shmem_long_p(&keep[me], 30 + me, (me + 1) % n);
    shmem_barrier_all();
    CHECK_EQ_I(keep[(me + n - 1) % n], 30 + (me + n - 1) % n);
    shmem_barrier_all();
    shmem_free(keep);
}

/* ------------------------------------------------------------ threads */

struct thr_arg {
    int idx;
    long *counter;
    pthread_mutex_t *mu;
    int level;
};

#define T_THREADS 4
#define T_ITERS 200

static void *thr_body(void *p)
{
    struct thr_arg *a = p;
    int n = shmem_n_pes();
    for (int i = 0; i < T_ITERS; i++) {
        int pe = (i + a->idx) % n;
        if (a->level == SHMEM_THREAD_SERIALIZED)
            pthread_mutex_lock(a->mu);
        shmem_long_atomic_add(a->counter, 1, pe);
        if (a->level == SHMEM_THREAD_SERIALIZED)
            pthread_mutex_unlock(a->mu);
    }
    return NULL;
}

static void *funneled_body(void *p)
{
    /* Computes only; the main thread communicates. */
    long *out = p;
    long s = 0;
    for (int i = 0; i < 1000; i++)
        s += i;
    *out = s;
    return NULL;
}

static int level_of(const char *s)
{
    if (!strcmp(s, "single"))
        return SHMEM_THREAD_SINGLE;
    if (!strcmp(s, "funneled"))
        return SHMEM_THREAD_FUNNELED;
    if (!strcmp(s, "serialized"))
        return SHMEM_THREAD_SERIALIZED;
    if (!strcmp(s, "multiple"))
        return SHMEM_THREAD_MULTIPLE;
    fprintf(stderr, "unknown thread level '%s'\n", s);
    exit(2);
}

static int run_thread_mode(const char *lvl, int expect_npes)
{
    int requested = level_of(lvl);
    check_init_state(0);
    int provided = -12345;
    int rc = shmem_init_thread(requested, &provided);
    CHECK_EQ_I(rc, 0);
    st_begin();
    ST_PHASE("init_thread");
    check_init_state(1);
    /* Shoal implements every level: it provides what is asked. */
    CHECK_EQ_I(provided, requested);
    int q = -12345;
    shmem_query_thread(&q);
    CHECK_EQ_I(q, provided);
    test_identity(expect_npes);

    long *counter = shmem_malloc(sizeof(long));
    CHECK_NOT_NULL(counter);
    *counter = 0;
    shmem_barrier_all();
    int n = shmem_n_pes();
    ST_PHASE("threads at the provided level");
    if (provided == SHMEM_THREAD_MULTIPLE || provided == SHMEM_THREAD_SERIALIZED) {
        pthread_t th[T_THREADS];
        struct thr_arg args[T_THREADS];
        pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
        for (int t = 0; t < T_THREADS; t++) {
            args[t] = (struct thr_arg){t, counter, &mu, provided};
            CHECK_EQ_I(pthread_create(&th[t], NULL, thr_body, &args[t]), 0);
        }
        for (int t = 0; t < T_THREADS; t++)
            pthread_join(th[t], NULL);
        shmem_barrier_all();
        /* Every PE adds T*ITERS spread evenly?  Not evenly: count exactly. */
        long expect = 0;
        for (int src = 0; src < n; src++)
            for (int t = 0; t < T_THREADS; t++)
                for (int i = 0; i < T_ITERS; i++)
                    if ((i + t) % n == shmem_my_pe())
                        expect++;
        CHECK_EQ_I(shmem_long_atomic_fetch(counter, shmem_my_pe()), expect);
    } else if (provided == SHMEM_THREAD_FUNNELED) {
        pthread_t th;
        long out = 0;
        CHECK_EQ_I(pthread_create(&th, NULL, funneled_body, &out), 0);
        pthread_join(th, NULL);
        for (int pe = 0; pe < n; pe++)
            shmem_long_atomic_add(counter, out, pe);
        shmem_barrier_all();
        CHECK_EQ_I(*counter, (long)n * 499500L);
    } else {
        for (int pe = 0; pe < n; pe++)
            shmem_long_atomic_inc(counter, pe);
        shmem_barrier_all();
        CHECK_EQ_I(*counter, n);
    }
    shmem_barrier_all();
    shmem_free(counter);
    shmem_finalize();
    check_init_state(0);
    st_note("setup thread mode");
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "init";
    if (!strcmp(mode, "thread")) {
        if (argc < 3) {
            fprintf(stderr, "usage: setup thread LEVEL [NPES]\n");
            return 2;
        }
        return run_thread_mode(argv[2], argc > 3 ? atoi(argv[3]) : 0);
    }
    int expect_npes = argc > 2 ? atoi(argv[2]) : 0;

    /* Before the first init: may be called, reads zero. */
    check_init_state(0);
    shmem_init();
    st_begin();
    ST_PHASE("after init");
    check_init_state(1);
    int q = -12345;
    shmem_query_thread(&q);
    CHECK_MSG(q == SHMEM_THREAD_SINGLE || q == SHMEM_THREAD_FUNNELED ||
                  q == SHMEM_THREAD_SERIALIZED || q == SHMEM_THREAD_MULTIPLE,
              "shmem_query_thread after shmem_init gave %d, not a thread level", q);

    test_identity(expect_npes);
    test_info();
    test_accessible();
    test_ptr();
    test_nested();

    ST_PHASE("last finalize");
    shmem_finalize();
    check_init_state(0);
    /* The non-OpenSHMEM part of the program goes on. */
    if (st_me == 0)
        printf("ok: setup (%d PEs)\n", st_npes);
    return 0;
}
