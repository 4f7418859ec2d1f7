/* nbe_rate: message rate of 8-byte fetch-add, blocking against explicit
 * non-blocking (Shoal's shmemx _nbe extension, docs/requests.md).
 *
 * PE 0 runs T threads (SHMEM_THREAD_MULTIPLE); thread t alone updates word
 * t of PE 1, which stays passive in shmem_barrier_all.  Per round, in the
 * same process:
 *   blocking  N x shmem_long_atomic_fetch_add(&w[t], 1, 1)
 *   nbe       N / W windows of W x shmemx_long_atomic_fetch_add_nbe(&got[i],
 *             &w[t], 1, 1, &req) into one request, then shmemx_request_wait
 * Both keep every fetched value in an array.  rate = T x ops / (time of the
 * slowest thread); the table gives the median and range over R rounds of
 * each, and the median of the per-round ratio nbe / blocking.  For a ratio
 * that holds on a shared, noisy machine the two runs of a round are
 * neighbours in time and of about the same length: the blocking run's
 * count is scaled down by the speedup seen in the warm-up (over tcp
 * blocking is ~10x slower, and a run ten times longer met ten times the
 * disturbances), and the order alternates (blocking first, then nbe
 * first) so that a drift in the machine's load favours neither.  Checks,
 * outside the timed region: blocking returns exactly the running count; the nbe run's fetched values are every value
 * from the start count to start + N - 1 once each, and the word ends at
 * start + N.  Run it with SHOAL_TRANSPORTS=ucx to measure the network path,
 * without to measure the on-node one.  Standard OpenSHMEM plus shmemx.h. */
#include "bench_stats.h"
#include "bench_args.h"
#include <pthread.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    printf("usage: oshrun -n 2 nbe_rate [--threads T] [-w W] [-n N] [-r R] [--csv FILE] "
           "[--smoke]\n"
           "8-byte fetch-add rate of T threads of PE 0 on their own words of PE 1:\n"
           "blocking shmem_long_atomic_fetch_add against shmemx_long_atomic_fetch_add_nbe\n"
           "with one request per window of W operations (shmemx_request_wait per window).\n"
           "  --threads T  threads of PE 0 (default 1)\n"
           "  -w W         operations per request (default 64)\n"
           "  -n N         operations per thread and nbe run (default 100000; rounded to W);\n"
           "               blocking runs scale it down to about the same duration\n"
           "  -r R         rounds, each a blocking and an nbe run (default 15)\n"
           "  --csv FILE   PE 0 appends rows: fadd_rate (config blocking / nbe, Mops/s)\n"
           "               and nbe_speedup (config nbe, ratio)\n"
           "  --smoke      tiny run\n");
}

#define MAXT 64
#define WORD_STRIDE 8 /* longs: one cache line per thread's word */

static long *words; /* symmetric: [MAXT * WORD_STRIDE] */
static int nthreads;
static long window = 64, nops = 100000;
static long run_ops; /* operations per thread of the current run (<= nops) */
static pthread_barrier_t bar_start, bar_done;
static volatile int run_nbe, quit;
static double t_thread[MAXT];
static long bad_thread[MAXT];
static long *fetched[MAXT];

/* Both loops keep every fetched value (a program uses what it fetches),
 * checked after the timed run. */
static void run_blocking(int t)
{
    long *w = words + t * WORD_STRIDE, *got = fetched[t];
    for (long i = 0; i < run_ops; i++)
        got[i] = shmem_long_atomic_fetch_add(w, 1, 1);
}

static void run_requests(int t)
{
    long *w = words + t * WORD_STRIDE, *got = fetched[t];
    for (long i = 0; i < run_ops; i += window) {
        shmemx_request_h req = SHMEMX_REQUEST_NULL;
        for (long j = 0; j < window; j++)
            shmemx_long_atomic_fetch_add_nbe(&got[i + j], w, 1, 1, &req);
        shmemx_request_wait(&req);
    }
}

/* Every value start .. start+N-1 exactly once. */
static long check_fetched(int t, long start)
{
    size_t n = run_ops > 0 ? (size_t)run_ops : 1;
    unsigned char *seen = calloc(n, 1);
    long bad = 0;
    if (!seen)
        return run_ops;
    for (long i = 0; i < run_ops; i++) {
        long k = fetched[t][i] - start;
        if (k < 0 || k >= run_ops || seen[k])
            bad++;
        else
            seen[k] = 1;
    }
    free(seen);
    return bad;
}

static long expect[MAXT];

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (;;) {
        pthread_barrier_wait(&bar_start);
        if (quit)
            break;
        long start = expect[t];
        double t0 = now();
        if (run_nbe)
            run_requests(t);
        else
            run_blocking(t);
        t_thread[t] = now() - t0;
        /* Blocking: the running count in order; nbe: each value once. */
        long bad = check_fetched(t, start);
        for (long i = 0; i < run_ops && !run_nbe; i++)
            bad += fetched[t][i] != start + i;
        bad_thread[t] = bad;
        expect[t] = start + run_ops;
        pthread_barrier_wait(&bar_done);
    }
    return NULL;
}

/* One timed run of every thread, `n` operations each: Mops/s; adds wrong
 * values to *bad and the operations to *total. */
static double one_run(int nbe, long n, long *bad, long *total)
{
    run_nbe = nbe;
    run_ops = n;
    *total += n;
    pthread_barrier_wait(&bar_start);
    pthread_barrier_wait(&bar_done);
    double tmax = 0;
    for (int t = 0; t < nthreads; t++) {
        tmax = t_thread[t] > tmax ? t_thread[t] : tmax;
        *bad += bad_thread[t];
    }
    return (double)nthreads * (double)n / tmax * 1e-6;
}

int main(int argc, char **argv)
{
    const char *csv = NULL;
    long rounds = 15;
    int smoke = 0;
    nthreads = 1;
    const struct bench_opt opts[] = {
        BENCH_INT("--threads", "-t", nthreads), BENCH_LONG("-w", NULL, window),
        BENCH_LONG("-n", NULL, nops),           BENCH_LONG("-r", NULL, rounds),
        BENCH_STR("--csv", NULL, csv),          BENCH_END};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            return 0;
        } else if (!strcmp(a, "--smoke")) {
            smoke = 1;
        } else if (!strcmp(a, "--config") && more) {
            ++i; /* the driver's configurations do not apply: both are measured */
        } else if (!bench_take(argc, argv, &i, opts)) {
            fprintf(stderr, "nbe_rate: bad argument '%s' (see --help)\n", a);
            return 2;
        }
    }
    if (smoke) {
        nops = 2000;
        rounds = 2;
    }
    if (nthreads < 1 || nthreads > MAXT || window < 1 || nops < 1 || rounds < 1) {
        fprintf(stderr, "nbe_rate: need 1 <= T <= %d, W >= 1, N >= 1, R >= 1\n", MAXT);
        return 2;
    }
    nops = (nops + window - 1) / window * window;

    int prov;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &prov);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes != 2 || prov != SHMEM_THREAD_MULTIPLE) {
        if (me == 0)
            fprintf(stderr, "nbe_rate: needs exactly 2 PEs and SHMEM_THREAD_MULTIPLE\n");
        shmem_finalize();
        return 2;
    }
    words = shmem_calloc(MAXT * WORD_STRIDE, sizeof(long));
    double *rb = malloc((size_t)rounds * sizeof(double));
    double *rn = malloc((size_t)rounds * sizeof(double));
    double *ratio = malloc((size_t)rounds * sizeof(double));
    if (!words || !rb || !rn || !ratio) {
        fprintf(stderr, "nbe_rate: out of memory\n");
        shmem_global_exit(1);
    }
    long bad = 0, total = 0, nops_blocking = nops;
    if (me == 0) {
        pthread_t th[MAXT];
        pthread_barrier_init(&bar_start, NULL, (unsigned)nthreads + 1);
        pthread_barrier_init(&bar_done, NULL, (unsigned)nthreads + 1);
        for (int t = 0; t < nthreads; t++) {
            fetched[t] = malloc((size_t)nops * sizeof(long));
            if (!fetched[t] || pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t)) {
                fprintf(stderr, "nbe_rate: thread setup failed\n");
                shmem_global_exit(1);
            }
        }
        /* Warm-up (endpoints, request workers), which also sizes the
         * blocking runs: about as long as the nbe ones, by the median of
         * three pairs (one pair misjudged it by 30x under load), and at
         * least 1/16 of them. */
        double wr[3];
        for (int k = 0; k < 3; k++) {
            double wb = one_run(0, nops, &bad, &total), wn = one_run(1, nops, &bad, &total);
            wr[k] = wn > 0 ? wb / wn : 1;
        }
        struct stat3 ws = summarize(wr, 3);
        long nb = ws.med < 1 ? (long)((double)nops * ws.med) : nops;
        if (nb < nops / 16)
            nb = nops / 16;
        nb = (nb + window - 1) / window * window;
        if (nb < window)
            nb = window;
        if (nb > nops)
            nb = nops;
        nops_blocking = nb;
        for (long r = 0; r < rounds; r++) {
            if (r % 2 == 0) {
                rb[r] = one_run(0, nb, &bad, &total);
                rn[r] = one_run(1, nops, &bad, &total);
            } else {
                rn[r] = one_run(1, nops, &bad, &total);
                rb[r] = one_run(0, nb, &bad, &total);
            }
            ratio[r] = rn[r] / rb[r];
        }
        quit = 1;
        pthread_barrier_wait(&bar_start);
        for (int t = 0; t < nthreads; t++) {
            pthread_join(th[t], NULL);
            free(fetched[t]);
        }
        struct stat3 sb = summarize(rb, (int)rounds), sn = summarize(rn, (int)rounds),
                     sr = summarize(ratio, (int)rounds);
        const char *tr = getenv("SHOAL_TRANSPORTS");
        printf("# nbe_rate: %d thread%s of PE 0 -> PE 1, window %ld, %ld (nbe) / %ld (blocking) "
               "ops per thread and run, %ld rounds, alternating order%s\n",
               nthreads, nthreads == 1 ? "" : "s", window, nops, nops_blocking, rounds,
               tr ? (strcmp(tr, "ucx") ? "" : ", SHOAL_TRANSPORTS=ucx") : "");
        printf("%-10s %12s %12s %12s\n", "mode", "Mops/s", "min", "max");
        printf("%-10s %12.3f %12.3f %12.3f\n", "blocking", sb.med, sb.min, sb.max);
        printf("%-10s %12.3f %12.3f %12.3f\n", "nbe", sn.med, sn.min, sn.max);
        printf("nbe / blocking: %.2fx (median of per-round ratios; range %.2f..%.2f)\n", sr.med,
               sr.min, sr.max);
        bench_csv_row(csv, "nbe_rate", "blocking", npes, nthreads, 8, "fadd_rate", "Mops/s", sb,
                      nops_blocking);
        bench_csv_row(csv, "nbe_rate", "nbe", npes, nthreads, 8, "fadd_rate", "Mops/s", sn, nops);
        bench_csv_row(csv, "nbe_rate", "nbe", npes, nthreads, 8, "nbe_speedup", "ratio", sr, nops);
        if (bad)
            fprintf(stderr, "nbe_rate: %ld WRONG fetched value(s)\n", bad);
        else
            printf("# fetched values checked: correct\n");
    }
    /* PE 1 learns how many operations each thread made. */
    static long want_sym;
    if (me == 0)
        shmem_long_p(&want_sym, total, 1);
    shmem_barrier_all();
    if (me == 1) {
        /* Each word ends at the number of operations its thread made. */
        long want = want_sym;
        for (int t = 0; t < nthreads; t++)
            if (words[t * WORD_STRIDE] != want) {
                fprintf(stderr, "nbe_rate: PE 1: word %d is %ld, expected %ld\n", t,
                        words[t * WORD_STRIDE], want);
                bad++;
            }
    }
    long *bad_all = shmem_calloc(1, sizeof(long));
    shmem_long_atomic_add(bad_all, bad, 0);
    shmem_barrier_all();
    long wrong = me == 0 ? *bad_all : 0;
    free(rb);
    free(rn);
    free(ratio);
    shmem_free(bad_all);
    shmem_free(words);
    shmem_finalize();
    return wrong ? 1 : 0;
}
