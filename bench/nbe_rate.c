/* nbe_rate: message rate of 8-byte fetch-add, blocking against explicit
 * non-blocking (Shoal's shmemx _nbe extension, docs/requests.md).
 *
 * PE 0 runs T threads (SHMEM_THREAD_MULTIPLE); thread t alone updates word
 * t of PE 1, which stays passive in shmem_barrier_all.  Per round, in the
 * same process:
 *   blocking  N x shmem_long_atomic_fetch_add(&w[t], 1, 1)
 *   nbe       N / W windows of W x shmemx_long_atomic_fetch_add_nbe(&got[i],
 *             &w[t], 1, 1, &req) into one request, then shmemx_request_wait
 * Both keep every fetched value in an array.  rate = T x N / (time of the
 * slowest thread); the table gives the median and range over R rounds of
 * each, and the median of the per-round ratio nbe / blocking.  Checks,
 * outside the timed region: blocking returns exactly the running count; the nbe run's fetched values are every value
 * from the start count to start + N - 1 once each, and the word ends at
 * start + N.  Run it with SHOAL_TRANSPORTS=ucx to measure the network path,
 * without to measure the on-node one.  Standard OpenSHMEM plus shmemx.h. */
#include "bench_stats.h"
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
           "  -n N         operations per thread and run (default 100000; rounded to W)\n"
           "  -r R         rounds, each a blocking and an nbe run (default 7)\n"
           "  --csv FILE   PE 0 appends rows: fadd_rate (config blocking / nbe, Mops/s)\n"
           "               and nbe_speedup (config nbe, ratio)\n"
           "  --smoke      tiny run\n");
}

#define MAXT 64
#define WORD_STRIDE 8 /* longs: one cache line per thread's word */

static long *words; /* symmetric: [MAXT * WORD_STRIDE] */
static int nthreads;
static long window = 64, nops = 100000;
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
    for (long i = 0; i < nops; i++)
        got[i] = shmem_long_atomic_fetch_add(w, 1, 1);
}

static void run_requests(int t)
{
    long *w = words + t * WORD_STRIDE, *got = fetched[t];
    for (long i = 0; i < nops; i += window) {
        shmemx_request_h req = SHMEMX_REQUEST_NULL;
        for (long j = 0; j < window; j++)
            shmemx_long_atomic_fetch_add_nbe(&got[i + j], w, 1, 1, &req);
        shmemx_request_wait(&req);
    }
}

/* Every value start .. start+N-1 exactly once. */
static long check_fetched(int t, long start)
{
    size_t n = nops > 0 ? (size_t)nops : 1;
    unsigned char *seen = calloc(n, 1);
    long bad = 0;
    if (!seen)
        return nops;
    for (long i = 0; i < nops; i++) {
        long k = fetched[t][i] - start;
        if (k < 0 || k >= nops || seen[k])
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
        for (long i = 0; i < nops && !run_nbe; i++)
            bad += fetched[t][i] != start + i;
        bad_thread[t] = bad;
        expect[t] = start + nops;
        pthread_barrier_wait(&bar_done);
    }
    return NULL;
}

/* One timed run of every thread: Mops/s; adds wrong values to *bad. */
static double one_run(int nbe, long *bad)
{
    run_nbe = nbe;
    pthread_barrier_wait(&bar_start);
    pthread_barrier_wait(&bar_done);
    double tmax = 0;
    for (int t = 0; t < nthreads; t++) {
        tmax = t_thread[t] > tmax ? t_thread[t] : tmax;
        *bad += bad_thread[t];
    }
    return (double)nthreads * (double)nops / tmax * 1e-6;
}

int main(int argc, char **argv)
{
    const char *csv = NULL;
    long rounds = 7;
    int smoke = 0;
    nthreads = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            return 0;
        } else if (!strcmp(a, "--smoke")) {
            smoke = 1;
        } else if ((!strcmp(a, "--threads") || !strcmp(a, "-t")) && more) {
            nthreads = atoi(argv[++i]);
        } else if (!strcmp(a, "-w") && more) {
            window = atol(argv[++i]);
        } else if (!strcmp(a, "-n") && more) {
            nops = atol(argv[++i]);
        } else if (!strcmp(a, "-r") && more) {
            rounds = atol(argv[++i]);
        } else if (!strcmp(a, "--csv") && more) {
            csv = argv[++i];
        } else if (!strcmp(a, "--config") && more) {
            ++i; /* the driver's configurations do not apply: both are measured */
        } else {
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
    long bad = 0;
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
        (void)one_run(0, &bad); /* warm-up: endpoints, request workers */
        (void)one_run(1, &bad);
        for (long r = 0; r < rounds; r++) {
            rb[r] = one_run(0, &bad);
            rn[r] = one_run(1, &bad);
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
        printf("# nbe_rate: %d thread%s of PE 0 -> PE 1, window %ld, %ld ops per thread and run, "
               "%ld rounds%s\n",
               nthreads, nthreads == 1 ? "" : "s", window, nops, rounds,
               tr ? (strcmp(tr, "ucx") ? "" : ", SHOAL_TRANSPORTS=ucx") : "");
        printf("%-10s %12s %12s %12s\n", "mode", "Mops/s", "min", "max");
        printf("%-10s %12.3f %12.3f %12.3f\n", "blocking", sb.med, sb.min, sb.max);
        printf("%-10s %12.3f %12.3f %12.3f\n", "nbe", sn.med, sn.min, sn.max);
        printf("nbe / blocking: %.2fx (median of per-round ratios; range %.2f..%.2f)\n", sr.med,
               sr.min, sr.max);
        bench_csv_row(csv, "nbe_rate", "blocking", npes, nthreads, 8, "fadd_rate", "Mops/s", sb,
                      nops);
        bench_csv_row(csv, "nbe_rate", "nbe", npes, nthreads, 8, "fadd_rate", "Mops/s", sn, nops);
        bench_csv_row(csv, "nbe_rate", "nbe", npes, nthreads, 8, "nbe_speedup", "ratio", sr, nops);
        if (bad)
            fprintf(stderr, "nbe_rate: %ld WRONG fetched value(s)\n", bad);
        else
            printf("# fetched values checked: correct\n");
    }
    shmem_barrier_all();
    if (me == 1) {
        /* Each word ends at the number of operations its thread made. */
        long want = (2 + 2 * rounds) * nops;
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
    long total = me == 0 ? *bad_all : 0;
    free(rb);
    free(rn);
    free(ratio);
    shmem_free(bad_all);
    shmem_free(words);
    shmem_finalize();
    return total ? 1 : 0;
}
