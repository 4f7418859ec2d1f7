/* Multi-threaded collectives (shmemx_*_mt): each of 1..4 threads of every
 * PE calls the routine with its thread_id; the data that arrived is
 * checked against the expected values and against what the standard
 * (single-threaded) routine gives for the same input, over many sizes,
 * odd ones included that split unevenly between the threads.
 *
 *   mt_coll all        broadcast, fcollect, alltoall, reductions (every op
 *                      on some types, in place too) on SHMEM_TEAM_WORLD,
 *                      and broadcast + reduce on a team of every other PE;
 *                      then two pairs of threads broadcasting on two teams
 *                      at the same time
 *   mt_coll err_<x>    one misuse (tests/coll/CMakeLists.txt checks the
 *                      message and the exit status)
 *
 * With SHOAL_COLL_MT_MIN=0 (one of the registered runs) every size is
 * split between the threads; by default the small ones are run by thread
 * 0 alone. */
#include "coll_test.h"

#include <complex.h>
#include <shmemx.h>

#define MAXT 4
#define MAXBYTES ((size_t)200003)

static const size_t sizes[] = {0, 1, 3, 63, 64, 65, 127, 1000, 4099, 16384, 16447, 65599, MAXBYTES};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static int me, npes;
static unsigned char *src, *dst, *ref; /* symmetric; dst/ref hold npes blocks */
static pthread_barrier_t bar;
static int nthreads;
static shmem_team_t half = SHMEM_TEAM_INVALID; /* PEs 0, 2, 4, ... */

static void tbar(void)
{
    int rc = pthread_barrier_wait(&bar);
    CHECK(rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD);
}

/* ------------------------------------------------------------ broadcast */

static void bcast_case(int tid, shmem_team_t team, size_t n, unsigned seed)
{
    int tn = shmem_team_n_pes(team), tme = shmem_team_my_pe(team);
    if (tme < 0)
        return;
    int root = (int)(n % (size_t)tn);
    if (tid == 0) {
        PHASE("broadcastmem_mt %zu bytes, %d threads, root %d of %d", n, nthreads, root, tn);
        st_fill(src, n, root, seed); /* what the root sends */
        if (tme != root)
            memset(src, 0xA5, n); /* others' source must not matter */
        memset(dst, 0xEE, n + 64);
        memset(ref, 0xEE, n + 64);
        /* The tree broadcast of a small size may write a member's dest
         * before that member calls (the spec allows it): peers must be
         * done checking the last case first. */
        CHECK_EQ_I(shmem_team_sync(team), 0);
    }
    tbar();
    CHECK_EQ_I(shmemx_team_broadcastmem_mt(team, dst, src, n, root, nthreads, tid), 0);
    tbar();
    if (tid == 0) {
        CHECK_PATTERN(dst, n, root, seed);
        CHECK_BYTES(dst + n, 64, 0xEE); /* nothing written past the end */
        CHECK_EQ_I(shmem_broadcastmem(team, ref, src, n, root), 0);
        CHECK(memcmp(dst, ref, n + 64) == 0);
    }
    tbar();
}

/* ------------------------------------------------- fcollect and alltoall */

static void fcollect_case(int tid, size_t n, unsigned seed)
{
    if (tid == 0) {
        PHASE("fcollectmem_mt %zu bytes, %d threads", n, nthreads);
        st_fill(src, n, me, seed);
        memset(dst, 0xEE, n * (size_t)npes + 64);
    }
    tbar();
    CHECK_EQ_I(shmemx_team_fcollectmem_mt(SHMEM_TEAM_WORLD, dst, src, n, nthreads, tid), 0);
    tbar();
    if (tid == 0) {
        for (int j = 0; j < npes; j++)
            CHECK_PATTERN(dst + (size_t)j * n, n, j, seed);
        CHECK_BYTES(dst + n * (size_t)npes, 64, 0xEE);
        CHECK_EQ_I(shmem_fcollectmem(SHMEM_TEAM_WORLD, ref, src, n), 0);
        CHECK(memcmp(dst, ref, n * (size_t)npes) == 0);
    }
    tbar();
}

/* Block k of PE p's source (for PE k): the pattern of "PE" p * 16 + k. */
static void alltoall_case(int tid, size_t n, unsigned seed)
{
    if (tid == 0) {
        PHASE("alltoallmem_mt %zu bytes, %d threads", n, nthreads);
        for (int k = 0; k < npes; k++)
            st_fill(src + (size_t)k * n, n, me * 16 + k, seed);
        memset(dst, 0xEE, n * (size_t)npes + 64);
    }
    tbar();
    CHECK_EQ_I(shmemx_team_alltoallmem_mt(SHMEM_TEAM_WORLD, dst, src, n, nthreads, tid), 0);
    tbar();
    if (tid == 0) {
        for (int j = 0; j < npes; j++)
            CHECK_PATTERN(dst + (size_t)j * n, n, j * 16 + me, seed);
        CHECK_BYTES(dst + n * (size_t)npes, 64, 0xEE);
        CHECK_EQ_I(shmem_alltoallmem(SHMEM_TEAM_WORLD, ref, src, n), 0);
        CHECK(memcmp(dst, ref, n * (size_t)npes) == 0);
    }
    tbar();
}

/* ----------------------------------------------------------- reductions */

/* One reduction over `team`: member p (world PE) contributes VAL(p, i_)
 * as element i_; the _mt form runs into dst (or in place in src), the
 * standard one into ref from the same input.  Expected: VAL folded over
 * the members in team order with FOLD(acc_, v_), which is the order the
 * library combines in, so floating point matches bit for bit too. */
#define RED_CASE(T, OP, team, n, inplace, VAL, FOLD)                                           \
    do {                                                                                       \
        T *s_ = (T *)src, *d_ = (inplace) ? (T *)src : (T *)dst, *r_ = (T *)ref;               \
        const size_t n_ = (n);                                                                 \
        int tn_ = shmem_team_n_pes(team);                                                      \
        if (shmem_team_my_pe(team) < 0)                                                        \
            break;                                                                             \
        if (tid == 0) {                                                                        \
            PHASE("%s_reduce_mt %zu elements, %d threads, %d PEs%s", #OP, n_, nthreads, tn_,   \
                  (inplace) ? ", in place" : "");                                              \
            for (size_t i_ = 0; i_ < n_; i_++)                                                 \
                s_[i_] = VAL(me, i_);                                                          \
            memset(dst, 0xEE, n_ * sizeof(T));                                                 \
            CHECK_EQ_I(shmem_##OP##_reduce(team, r_, s_, n_), 0);                              \
            CHECK_EQ_I(shmem_team_sync(team), 0); /* every PE's ref done before src changes */ \
        }                                                                                      \
        tbar();                                                                                \
        CHECK_EQ_I(shmemx_##OP##_reduce_mt(team, d_, s_, n_, nthreads, tid), 0);               \
        tbar();                                                                                \
        if (tid == 0) {                                                                        \
            for (size_t i_ = 0; i_ < n_; i_++) {                                               \
                T acc_ = VAL(shmem_team_translate_pe(team, 0, SHMEM_TEAM_WORLD), i_);          \
                for (int m_ = 1; m_ < tn_; m_++) {                                             \
                    T v_ = VAL(shmem_team_translate_pe(team, m_, SHMEM_TEAM_WORLD), i_);       \
                    acc_ = FOLD(acc_, v_);                                                     \
                }                                                                              \
                CHECK_MSG(memcmp(&d_[i_], &acc_, sizeof acc_) == 0,                            \
                          "element %zu of %zu is not the expected value", i_, n_);             \
            }                                                                                  \
            CHECK(memcmp(d_, r_, n_ * sizeof(T)) == 0);                                        \
        }                                                                                      \
        tbar();                                                                                \
    } while (0)

#define V_LONG(p, i) ((long)(p)*1000 + (long)((i) % 977))
#define V_INT(p, i) ((int)(((i)*7 + (size_t)(p)*13) % 101))
#define V_SHORT(p, i) ((short)(1000 - (int)(p)*3 - (int)((i) % 7)))
#define V_AND(p, i) (~(1u << ((p) % 32)) ^ (unsigned)(i))
#define V_OR(p, i) ((1u << ((p) % 32)) | ((unsigned)(i) << 8))
#define V_XOR(p, i) ((unsigned)((p) + 1) * 0x01010101u + (unsigned)(i))
#define V_PROD(p, i) ((long)((p) + 1 + (int)((i) % 3)))
#define V_DBL(p, i) (0.1 * (p) + (double)((i) % 13) / 3.0)
#define V_CPX(p, i) ((double)(p) + 0.3 * (double)((i) % 5) + 2.0 * I)
#define F_SUM(a, b) ((a) + (b))
#define F_PROD(a, b) ((a) * (b))
#define F_MAX(a, b) ((a) > (b) ? (a) : (b))
#define F_MIN(a, b) ((a) < (b) ? (a) : (b))
#define F_AND(a, b) ((a) & (b))
#define F_OR(a, b) ((a) | (b))
#define F_XOR(a, b) ((a) ^ (b))

static void reduce_cases(int tid, shmem_team_t team, size_t bytes)
{
    RED_CASE(long, long_sum, team, bytes / sizeof(long), 0, V_LONG, F_SUM);
    RED_CASE(long, long_sum, team, bytes / sizeof(long), 1, V_LONG, F_SUM);
    if (team != SHMEM_TEAM_WORLD)
        return;
    RED_CASE(int, int_max, team, bytes / sizeof(int), 0, V_INT, F_MAX);
    RED_CASE(short, short_min, team, bytes / sizeof(short), 0, V_SHORT, F_MIN);
    RED_CASE(unsigned, uint_and, team, bytes / sizeof(unsigned), 0, V_AND, F_AND);
    RED_CASE(unsigned, uint_or, team, bytes / sizeof(unsigned), 0, V_OR, F_OR);
    RED_CASE(unsigned, uint_xor, team, bytes / sizeof(unsigned), 0, V_XOR, F_XOR);
    RED_CASE(long, long_prod, team, bytes / sizeof(long), 0, V_PROD, F_PROD);
    RED_CASE(double, double_sum, team, bytes / sizeof(double), 0, V_DBL, F_SUM);
    RED_CASE(double, double_prod, team, bytes / sizeof(double), 1, V_DBL, F_PROD);
    RED_CASE(double _Complex, complexd_sum, team, bytes / sizeof(double _Complex), 0, V_CPX, F_SUM);
}

/* ---------------------------------------------------------------- main */

static void *worker(void *arg)
{
    int tid = (int)(intptr_t)arg;
    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        unsigned seed = 1 + (unsigned)k * 8; /* the same on every PE, whatever its teams */
        bcast_case(tid, SHMEM_TEAM_WORLD, n, seed++);
        fcollect_case(tid, n / (size_t)npes, seed++);
        alltoall_case(tid, n / (size_t)npes, seed++);
        reduce_cases(tid, SHMEM_TEAM_WORLD, n);
        if (half != SHMEM_TEAM_INVALID) {
            bcast_case(tid, half, n, seed++);
            reduce_cases(tid, half, n);
        }
    }
    return NULL;
}

static void run_threads(int n)
{
    pthread_t th[MAXT];
    nthreads = n;
    CHECK(pthread_barrier_init(&bar, NULL, (unsigned)n) == 0);
    for (int t = 1; t < n; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0);
    worker((void *)(intptr_t)0);
    for (int t = 1; t < n; t++)
        CHECK(pthread_join(th[t], NULL) == 0);
    pthread_barrier_destroy(&bar);
}

/* ------------------------------------------- two teams at the same time */

/* Threads 0, 1 broadcast on SHMEM_TEAM_WORLD while threads 2, 3 broadcast
 * on a duplicate of it, each pair with its own buffers and its own
 * thread_ids 0, 1: the two collectives run at once. */
static shmem_team_t dup_team = SHMEM_TEAM_INVALID;
static unsigned char *src2, *dst2;
static pthread_barrier_t pair_bar[2];

static void *pair_worker(void *arg)
{
    int t = (int)(intptr_t)arg, pair = t / 2, id = t % 2;
    shmem_team_t team = pair ? dup_team : SHMEM_TEAM_WORLD;
    unsigned char *s = pair ? src2 : src, *d = pair ? dst2 : dst;
    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        unsigned seed = 1000 + (unsigned)k * 2 + (unsigned)pair;
        int root = (int)((n + (size_t)pair) % (size_t)npes);
        if (t == 0) /* one writer of the phase label */
            PHASE("two teams: broadcastmem_mt %zu bytes", n);
        if (id == 0) {
            st_fill(s, n, root, seed);
            memset(d, 0xEE, n);
            CHECK_EQ_I(shmem_team_sync(team), 0);
        }
        pthread_barrier_wait(&pair_bar[pair]);
        CHECK_EQ_I(shmemx_team_broadcastmem_mt(team, d, s, n, root, 2, id), 0);
        pthread_barrier_wait(&pair_bar[pair]);
        if (id == 0)
            CHECK_PATTERN(d, n, root, seed);
        pthread_barrier_wait(&pair_bar[pair]);
    }
    return NULL;
}

static void run_two_teams(void)
{
    pthread_t th[4];
    CHECK_EQ_I(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &dup_team), 0);
    src2 = shmem_malloc(MAXBYTES);
    dst2 = shmem_malloc(MAXBYTES);
    CHECK(src2 && dst2);
    for (int p = 0; p < 2; p++)
        CHECK(pthread_barrier_init(&pair_bar[p], NULL, 2) == 0);
    for (int t = 0; t < 4; t++)
        CHECK(pthread_create(&th[t], NULL, pair_worker, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < 4; t++)
        CHECK(pthread_join(th[t], NULL) == 0);
    for (int p = 0; p < 2; p++)
        pthread_barrier_destroy(&pair_bar[p]);
    shmem_barrier_all();
    shmem_free(src2);
    shmem_free(dst2);
    shmem_team_destroy(dup_team);
}

/* ------------------------------------------------------------- misuse */

static void *dup_tid(void *arg)
{
    (void)arg; /* both threads say they are thread 0 of 2 */
    shmemx_team_broadcastmem_mt(SHMEM_TEAM_WORLD, dst, src, 64, 0, 2, 0);
    return NULL;
}

static void *split_n(void *arg)
{
    int tid = (int)(intptr_t)arg; /* thread 0 says 2 threads, thread 1 says 3 */
    shmemx_team_fcollectmem_mt(SHMEM_TEAM_WORLD, dst, src, 64, 2 + tid, tid);
    return NULL;
}

static void *other_size(void *arg)
{
    int tid = (int)(intptr_t)arg; /* thread 1 passes another nreduce */
    shmemx_long_sum_reduce_mt(SHMEM_TEAM_WORLD, (long *)dst, (long *)src, 8 + (size_t)tid, 2, tid);
    return NULL;
}

static void two_threads(void *(*fn)(void *))
{
    pthread_t a, b;
    CHECK(pthread_create(&a, NULL, fn, (void *)(intptr_t)0) == 0);
    CHECK(pthread_create(&b, NULL, fn, (void *)(intptr_t)1) == 0);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
}

static int misuse(const char *mode)
{
    if (!strcmp(mode, "err_nthreads"))
        shmemx_team_broadcastmem_mt(SHMEM_TEAM_WORLD, dst, src, 8, 0, 0, 0);
    else if (!strcmp(mode, "err_thread_id"))
        shmemx_int_max_reduce_mt(SHMEM_TEAM_WORLD, (int *)dst, (int *)src, 4, 2, 2);
    else if (!strcmp(mode, "err_dup_thread_id"))
        two_threads(dup_tid);
    else if (!strcmp(mode, "err_nthreads_differ"))
        two_threads(split_n);
    else if (!strcmp(mode, "err_args_differ"))
        two_threads(other_size);
    else
        return 0;
    return 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    if (!strcmp(mode, "err_level")) {
        shmem_init(); /* SHMEM_THREAD_SINGLE */
        src = shmem_malloc(64);
        dst = shmem_malloc(64);
        shmemx_team_alltoallmem_mt(SHMEM_TEAM_WORLD, dst, src, 8, 1, 0);
        shmem_finalize();
        return 0;
    }
    int provided;
    CHECK_EQ_I(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), 0);
    CHECK_EQ_I(provided, SHMEM_THREAD_MULTIPLE);
    st_begin();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    src = shmem_malloc(MAXBYTES + 64);
    dst = shmem_malloc(MAXBYTES + 64);
    ref = shmem_malloc(MAXBYTES + 64);
    CHECK(src && dst && ref);
    if (misuse(mode)) {
        shmem_finalize();
        return 0;
    }
    CHECK_EQ_S(mode, "all");
    if (npes > 1)
        CHECK_EQ_I(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &half),
                   0);
    for (int t = 1; t <= MAXT; t++)
        run_threads(t);
    run_two_teams();
    if (half != SHMEM_TEAM_INVALID)
        shmem_team_destroy(half);
    shmem_finalize();
    return 0;
}
