/* am_fairness: who runs the handlers.  PE 1 has T threads waiting inside
 * Shoal (shmem_wait_until on a flag) and nothing else; PE 0 sends N small
 * active messages; the handler counts, per thread of PE 1, how many it ran,
 * and the last one sets the flag.  Reported: the smallest and the largest
 * share of the handlers that one thread ran (100/T % each when the work is
 * spread evenly), median and min..max over R rounds.  Shoal only
 * (shmemx_am_*). */
#include "bench_stats.h"
#include "bench_args.h"
#include <pthread.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_T 16
#define TAG 1

static int me, threads = 2;
static long iters = 20000, rounds = 7;
static const char *csv;
static int flag; /* symmetric */
static long ran[MAX_T], total;
static __thread int tid = -1;

static void handler(int src, const void *p, size_t len, void *arg)
{
    (void)src, (void)p, (void)len, (void)arg;
    if (tid >= 0)
        __atomic_fetch_add(&ran[tid], 1, __ATOMIC_RELAXED);
    if (__atomic_add_fetch(&total, 1, __ATOMIC_RELAXED) == iters)
        shmem_int_atomic_set(&flag, 1, me);
}

static void *waiter(void *p)
{
    tid = (int)(long)p;
    shmem_int_wait_until(&flag, SHMEM_CMP_EQ, 1);
    return NULL;
}

int main(int argc, char **argv)
{
    int smoke = 0, provided;
    const struct bench_opt opts[] = {BENCH_INT("--threads", NULL, threads),
                                     BENCH_LONG("-n", NULL, iters), BENCH_LONG("-r", NULL, rounds),
                                     BENCH_STR("--csv", NULL, csv), BENCH_END};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: oshrun -n 2 am_fairness [--threads T] [-n N] [-r R] [--csv FILE] "
                   "[--smoke]\nShare of N active messages (default 20000) that each of T "
                   "threads of PE 1,\nall waiting in shmem_wait_until, ran: min and max share "
                   "(%%), R rounds (default 7).\n");
            return 0;
        } else if (!strcmp(a, "--smoke")) {
            smoke = 1;
        } else if (!bench_take(argc, argv, &i, opts)) {
            fprintf(stderr, "am_fairness: unknown argument '%s' (--help)\n", a);
            return 2;
        }
    }
    if (smoke)
        iters = 1000, rounds = 2;
    if (threads < 1 || threads > MAX_T) {
        fprintf(stderr, "am_fairness: --threads must be 1..%d\n", MAX_T);
        return 2;
    }
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    if (shmem_n_pes() < 2 || provided != SHMEM_THREAD_MULTIPLE) {
        if (me == 0)
            fprintf(stderr, "am_fairness: needs 2 PEs and SHMEM_THREAD_MULTIPLE\n");
        shmem_finalize();
        return 2;
    }
    shmemx_am_register(TAG, handler, NULL);
    double *mn = calloc((size_t)rounds, sizeof(double)),
           *mx = calloc((size_t)rounds, sizeof(double));
    for (long r = 0; r < rounds; r++) {
        memset(ran, 0, sizeof ran);
        total = 0;
        flag = 0;
        pthread_t t[MAX_T];
        if (me == 1)
            for (long i = 0; i < threads; i++)
                pthread_create(&t[i], NULL, waiter, (void *)i);
        shmem_barrier_all(); /* PE 1's waiters are on their way */
        if (me == 0) {
            char buf[16] = "task";
            for (long i = 0; i < iters; i++)
                shmemx_am_send(SHMEM_CTX_DEFAULT, 1, TAG, buf, sizeof buf);
            shmemx_am_quiet(SHMEM_CTX_DEFAULT);
        } else if (me == 1) {
            for (int i = 0; i < threads; i++)
                pthread_join(t[i], NULL);
            long lo = iters, hi = 0, sum = 0;
            for (int i = 0; i < threads; i++) {
                lo = ran[i] < lo ? ran[i] : lo;
                hi = ran[i] > hi ? ran[i] : hi;
                sum += ran[i];
            }
            /* Handlers that ran in PE 1's main thread (in the barrier above)
             * or in a library thread belong to no waiter. */
            mn[r] = 100.0 * (double)lo / (double)iters;
            mx[r] = 100.0 * (double)hi / (double)iters;
            (void)sum;
        }
        shmem_barrier_all();
    }
    /* PE 1 measured; PE 0 writes the CSV. */
    static double res[2 * 64];
    if (me == 1)
        for (long r = 0; r < rounds && r < 64; r++)
            res[r] = mn[r], res[64 + r] = mx[r];
    shmem_barrier_all();
    if (me == 0) {
        double a[64], b[64];
        long n = rounds < 64 ? rounds : 64;
        shmem_getmem(a, res, (size_t)n * sizeof(double), 1);
        shmem_getmem(b, res + 64, (size_t)n * sizeof(double), 1);
        struct stat3 smin = summarize(a, (int)n), smax = summarize(b, (int)n);
        printf("# am_fairness: %d waiting threads on PE 1, %ld messages, %ld rounds\n"
               "  min share %.1f%% [%.1f..%.1f]  max share %.1f%% [%.1f..%.1f]  (even: %.1f%%)\n",
               threads, iters, rounds, smin.med, smin.min, smin.max, smax.med, smax.min, smax.max,
               100.0 / threads);
        bench_csv_row(csv, "am_fairness", "-", 2, threads, 16, "am_share_min", "%", smin, iters);
        bench_csv_row(csv, "am_fairness", "-", 2, threads, 16, "am_share_max", "%", smax, iters);
    }
    shmem_barrier_all();
    free(mn);
    free(mx);
    shmem_finalize();
    return 0;
}
