/* 256 threads, each with a private context, under a descriptor limit of
 * 1024 that the program sets itself (as `ulimit -n 1024` would): the
 * contexts that do not fit fail to be created (shmem_ctx_create returns
 * nonzero, Shoal warns naming RLIMIT_NOFILE), those threads use
 * SHMEM_CTX_DEFAULT instead, and every thread's fetch-adds to every PE
 * arrive: nothing aborts inside UCX.  Run with SHOAL_TRANSPORTS=ucx.
 * Prints how many contexts were refused; exits 1 if none was (the limit
 * was not reached: the test would prove nothing) or a sum is wrong. */
#define _GNU_SOURCE /* pthread_barrier_t */
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>

#include <shmem.h>

#define THREADS 256
#define LIMIT 1024

static long *counter; /* every thread of every PE adds 1 on every PE */
static int refused;
/* Every thread holds its context until all have tried to create one, so
 * that all 256 are wanted at once (a context destroyed early would be
 * reused by the next thread). */
static pthread_barrier_t all_tried;

static void *thread_main(void *arg)
{
    (void)arg;
    shmem_ctx_t ctx;
    int own = shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0;
    if (!own) {
        __atomic_fetch_add(&refused, 1, __ATOMIC_RELAXED);
        ctx = SHMEM_CTX_DEFAULT;
    }
    pthread_barrier_wait(&all_tried);
    for (int pe = 0; pe < shmem_n_pes(); pe++)
        shmem_ctx_long_atomic_add(ctx, counter, 1, pe);
    shmem_ctx_quiet(ctx);
    if (own)
        shmem_ctx_destroy(ctx);
    return NULL;
}

int main(void)
{
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > LIMIT)
        rl.rlim_cur = LIMIT;
    else
        rl.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
        perror("setrlimit");
        return 2;
    }
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    if (provided != SHMEM_THREAD_MULTIPLE) {
        printf("FAIL: SHMEM_THREAD_MULTIPLE not provided\n");
        return 1;
    }
    counter = shmem_calloc(1, sizeof *counter);
    pthread_t t[THREADS];
    pthread_barrier_init(&all_tried, NULL, THREADS);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, thread_main, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    shmem_barrier_all();
    long want = (long)THREADS * shmem_n_pes();
    int me = shmem_my_pe(), rc = 0;
    printf("PE %d: %d of %d contexts refused under RLIMIT_NOFILE %ld; counter %ld (want %ld)\n", me,
           refused, THREADS, (long)rl.rlim_cur, *counter, want);
    if (*counter != want) {
        printf("FAIL: PE %d: counter %ld, want %ld\n", me, *counter, want);
        rc = 1;
    }
    if (refused == 0) {
        printf("FAIL: PE %d: no context refused: the limit was not reached\n", me);
        rc = 1;
    }
    shmem_free(counter);
    shmem_finalize();
    return rc;
}
