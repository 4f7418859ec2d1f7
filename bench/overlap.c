/* overlap: how much of a non-blocking put's time computation can hide
 * (run with 2 PEs: PE 0 puts to PE 1, which waits in a barrier).
 *
 * For each size (default 64 B and 6 MiB), in every round:
 *   t_comm   shmem_putmem_nbi of SIZE bytes, then shmem_quiet
 *   t_work   a compute loop (a chain of dependent floating-point steps),
 *            sized in every round to last as long as that round's t_comm
 *   t_total  shmem_putmem_nbi, the same compute loop, then shmem_quiet
 *   t_post   shmem_putmem_nbi alone, up to its return (quiet not timed;
 *            includes one clock read, some tens of ns)
 * each the mean over N back-to-back iterations, and
 *   overlap = (t_comm + t_work - t_total) / t_comm, clamped to [0, 1]:
 * 1 when the transfer proceeds entirely while the CPU computes, 0 when
 * the put costs the CPU its whole duration wherever the work is placed.
 * Median and min..max over R interleaved rounds.  PE 1 checks the payload
 * of every size.  Uses only standard OpenSHMEM 1.4 routines, except
 * --config req: Shoal's explicit non-blocking put (shmemx_putmem_nbe) and
 * shmemx_request_wait in place of putmem_nbi and quiet (built only where
 * <shmemx.h> declares them). */
#include "bench_stats.h"
#include "bench_args.h"
#include <shmem.h>
#if defined(__has_include)
#if __has_include(<shmemx.h>)
#include <shmemx.h>
#endif
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    printf("usage: oshrun -n 2 overlap [--config default|ctx|pes|req] [-s SIZES] [options]\n"
           "Computation/communication overlap of shmem_putmem_nbi, PE 0 -> PE 1.\n"
           "Per size and round (means over N iterations):\n"
           "  t_comm   putmem_nbi + quiet\n"
           "  t_work   a compute loop sized to last that round's t_comm\n"
           "  t_total  putmem_nbi, compute loop, quiet\n"
           "  t_post   time for putmem_nbi to return (plus one clock read)\n"
           "  overlap  (t_comm + t_work - t_total) / t_comm, clamped to [0, 1]\n"
           "What the figure means: 1 = the transfer runs entirely in the background\n"
           "(a DMA engine, a NIC, a progress thread) while the CPU computes; 0 = it\n"
           "costs the calling CPU its full time wherever the work goes.  On one node a\n"
           "library that copies with loads and stores (as Shoal does) completes the put\n"
           "inside putmem_nbi (t_post ~ t_comm): nothing is left to overlap and the\n"
           "figure is ~0 by construction, which says where the copy happens, not that\n"
           "anything is slow.  For tiny puts t_comm is a few tens of ns: the core's\n"
           "out-of-order execution may run the copy's few instructions alongside the\n"
           "compute chain (a real but CPU-level overlap) and noise weighs heavily.\n"
           "Compare t_post with t_comm to see whether the put completes at post time.\n"
           "Options:\n"
           "  --config C   default (SHMEM_CTX_DEFAULT, the default), ctx (a private\n"
           "               context and the shmem_ctx_* forms) or pes (= default; the\n"
           "               benchmark is single-threaded, so --threads must be 1), or\n"
           "               req (Shoal's shmemx_putmem_nbe into a request, then\n"
           "               shmemx_request_wait instead of quiet)\n"
           "  -s SIZES     comma list of sizes, K/M suffixes (default 64,6M)\n"
           "  -b SECONDS   target time per measurement, sets N (default 0.05)\n"
           "  -r R         rounds (default 11)\n"
           "  --csv FILE   PE 0 appends rows: overlap (fraction), t_comm, t_work,\n"
           "               t_total, t_post (us)\n"
           "  --smoke      tiny run: sizes 64,64K, 3 rounds, short measurements\n");
}

#define MAX_SIZES 32

static volatile double sink; /* keeps the compute loop's result alive */

/* K dependent multiply-add steps: a fixed amount of CPU work that uses no
 * memory bandwidth, so it competes with the transfer only for the core. */
static void work(long k)
{
    double x = sink;
    for (long i = 0; i < k; i++)
        x = x * 0.9999999 + 1e-7;
    sink = x;
}

static unsigned char pat(int s, size_t i)
{
    return (unsigned char)((unsigned)s * 37u + i * 11u + (i >> 9) + 3u);
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        return -1;
    if (*end == 'k' || *end == 'K')
        v <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        v <<= 20, end++;
    if (*end != '\0' && *end != ',')
        return -1;
    *out = (size_t)v;
    return (int)(end - s);
}

static int parse_sizes(const char *arg, size_t *sizes)
{
    int n = 0;
    const char *p = arg;
    while (*p && n < MAX_SIZES) {
        size_t v;
        int a = parse_size(p, &v);
        if (a < 0 || v < 1)
            return -1;
        sizes[n++] = v;
        p += a;
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return n;
}

static void size_label(char *buf, size_t len, size_t n)
{
    if (n >= (1u << 20) && n % (1u << 20) == 0)
        snprintf(buf, len, "%zu MiB", n >> 20);
    else if (n >= 1024 && n % 1024 == 0)
        snprintf(buf, len, "%zu KiB", n >> 10);
    else
        snprintf(buf, len, "%zu B", n);
}

static shmem_ctx_t ctx;
static int use_ctx, use_req;
#ifdef SHMEMX_REQUEST_NULL
static shmemx_request_h req = SHMEMX_REQUEST_NULL;
#endif

static inline void post(void *dst, const void *src, size_t n)
{
#ifdef SHMEMX_REQUEST_NULL
    if (use_req) {
        shmemx_putmem_nbe(dst, src, n, 1, &req);
        return;
    }
#endif
    if (use_ctx)
        shmem_ctx_putmem_nbi(ctx, dst, src, n, 1);
    else
        shmem_putmem_nbi(dst, src, n, 1);
}

static inline void quiet(void)
{
#ifdef SHMEMX_REQUEST_NULL
    if (use_req) {
        shmemx_request_wait(&req);
        return;
    }
#endif
    if (use_ctx)
        shmem_ctx_quiet(ctx);
    else
        shmem_quiet();
}

enum { T_COMM, T_WORK, T_TOTAL, T_POST, NT };

/* Mean seconds per iteration of one of the measured loops. */
static double measure(int what, void *dst, const void *src, size_t size, long n, long k)
{
    double t0 = now(), post_sum = 0.0;
    switch (what) {
    case T_COMM:
        for (long i = 0; i < n; i++) {
            post(dst, src, size);
            quiet();
        }
        break;
    case T_WORK:
        for (long i = 0; i < n; i++)
            work(k);
        break;
    case T_TOTAL:
        for (long i = 0; i < n; i++) {
            post(dst, src, size);
            work(k);
            quiet();
        }
        break;
    default:
        for (long i = 0; i < n; i++) {
            double a = now();
            post(dst, src, size);
            post_sum += now() - a;
            quiet();
        }
        return post_sum / (double)n;
    }
    return (now() - t0) / (double)n;
}

int main(int argc, char **argv)
{
    const char *csv = NULL;
    const char *cfg = "default";
    size_t sizes[MAX_SIZES];
    int nsizes = 0, smoke = 0, threads = 1, rounds_set = 0;
    long rounds = 11;
    double budget = 0.05;
    const struct bench_opt opts[] = {BENCH_INT("--threads", "-t", threads),
                                     BENCH_DOUBLE("-b", NULL, budget),
                                     BENCH_STR("--csv", NULL, csv), BENCH_END};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            return 0;
        } else if (!strcmp(a, "--smoke")) {
            smoke = 1;
        } else if (!strcmp(a, "--config") && more) {
            cfg = argv[++i];
            if (strcmp(cfg, "default") && strcmp(cfg, "ctx") && strcmp(cfg, "pes") &&
                strcmp(cfg, "req")) {
                fprintf(stderr, "overlap: unknown config '%s'\n", cfg);
                return 2;
            }
        } else if (!strcmp(a, "-s") && more) {
            nsizes = parse_sizes(argv[++i], sizes);
            if (nsizes < 1) {
                fprintf(stderr, "overlap: bad size list '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "-r") && more) {
            rounds = atol(argv[++i]);
            rounds_set = 1;
        } else if (!bench_take(argc, argv, &i, opts)) {
            fprintf(stderr, "overlap: bad argument '%s' (see --help)\n", a);
            return 2;
        }
    }
    if (threads != 1) {
        fprintf(stderr, "overlap: single-threaded benchmark; --threads must be 1\n");
        return 2;
    }
    if (!nsizes)
        nsizes = parse_sizes(smoke ? "64,64K" : "64,6M", sizes);
    if (smoke) {
        budget = 0.002;
        if (!rounds_set)
            rounds = 3;
    }
    if (rounds < 1 || !(budget > 0.0)) {
        fprintf(stderr, "overlap: -r must be >= 1 and -b > 0\n");
        return 2;
    }

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes != 2) {
        if (me == 0)
            fprintf(stderr, "overlap: run with exactly 2 PEs (oshrun -n 2)\n");
        shmem_finalize();
        return 2;
    }
    ctx = SHMEM_CTX_DEFAULT;
    int ctx_failed = 0;
    if (!strcmp(cfg, "req")) {
#ifdef SHMEMX_REQUEST_NULL
        use_req = 1;
#else
        if (me == 0)
            fprintf(stderr, "overlap: --config req needs Shoal's shmemx.h (_nbe requests)\n");
        shmem_finalize();
        return 2;
#endif
    }
    if (!strcmp(cfg, "ctx")) {
        if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0)
            use_ctx = 1;
        else {
            ctx = SHMEM_CTX_DEFAULT;
            ctx_failed = 1;
        }
    }
    size_t maxsize = 8;
    for (int s = 0; s < nsizes; s++)
        maxsize = sizes[s] > maxsize ? sizes[s] : maxsize;
    unsigned char *dst = shmem_malloc(maxsize);
    long *bad_slot = shmem_calloc(1, sizeof(long));
    unsigned char *src = malloc(maxsize);
    double *t = malloc((size_t)nsizes * NT * (size_t)rounds * sizeof(double));
    double *ov = malloc((size_t)nsizes * (size_t)rounds * sizeof(double));
    long *iters = calloc((size_t)nsizes, sizeof(long));
    if (!dst || !bad_slot || !src || !t || !ov || !iters) {
        fprintf(stderr, "overlap: PE %d: allocation of %zu bytes failed\n", me, maxsize);
        shmem_global_exit(1);
    }
    memset(dst, 0, maxsize);
    memset(src, 0, maxsize);

    /* Calibration (PE 0): the time of one compute step over a long run, and
     * N from the put's time (the loop's length is set in every round). */
    double step = 1.0; /* seconds per compute step */
    if (me == 0) {
        work(1000000); /* frequency ramp-up */
        long probe = 1 << 20;
        double t0 = now();
        work(probe);
        step = (now() - t0) / (double)probe;
        for (long p = 0; p < 2; p++) {
            t0 = now();
            work(probe);
            double s = (now() - t0) / (double)probe;
            step = s < step ? s : step;
        }
        for (int s = 0; s < nsizes; s++) {
            measure(T_COMM, dst, src, sizes[s], 10, 0); /* first touch */
            long w = 1;
            while (w < (1L << 24) && measure(T_COMM, dst, src, sizes[s], w, 0) * (double)w < 1e-3)
                w *= 2;
            double tc = measure(T_COMM, dst, src, sizes[s], w, 0);
            for (int p = 0; p < 2; p++) { /* least disturbed of three */
                double x = measure(T_COMM, dst, src, sizes[s], w, 0);
                tc = x < tc ? x : tc;
            }
            long n = (long)(budget / tc);
            iters[s] = n < 10 ? 10 : n; /* at least 10 puts per measurement */
        }
    }
    shmem_barrier_all();

    long bad_total = 0; /* PE 1 */
    for (int s = 0; s < nsizes; s++) {
        /* PE 1 clears the target so the check cannot pass on old data. */
        if (me == 0)
            for (size_t i = 0; i < sizes[s]; i++)
                src[i] = pat(s, i);
        else
            memset(dst, 0, sizes[s]);
        shmem_barrier_all();
        if (me == 0)
            for (long r = 0; r < rounds; r++) {
                double *tr = t + ((size_t)s * (size_t)rounds + (size_t)r) * NT;
                /* The compute loop matches this round's t_comm: the machine's
                 * speed drifts between rounds, and a loop shorter than the
                 * transfer could hide only part of it. */
                tr[T_COMM] = measure(T_COMM, dst, src, sizes[s], iters[s], 0);
                long k = (long)(tr[T_COMM] / step + 0.5);
                k = k < 1 ? 1 : k;
                for (int w = T_WORK; w < NT; w++)
                    tr[w] = measure(w, dst, src, sizes[s], iters[s], k);
                double o = (tr[T_COMM] + tr[T_WORK] - tr[T_TOTAL]) / tr[T_COMM];
                ov[(size_t)s * (size_t)rounds + (size_t)r] = o < 0.0 ? 0.0 : o > 1.0 ? 1.0 : o;
            }
        shmem_barrier_all();
        if (me == 1) {
            long bad = 0;
            for (size_t i = 0; i < sizes[s]; i++)
                bad += dst[i] != pat(s, i);
            if (bad)
                fprintf(stderr, "overlap: PE 1: %ld wrong byte(s) of %zu after the puts\n", bad,
                        sizes[s]);
            bad_total += bad;
            shmem_long_p(bad_slot, bad_total, 0);
        }
        shmem_barrier_all();
    }
    long bad = me == 0 ? *bad_slot : bad_total;

    if (me == 0) {
        printf("# overlap: PE 0 -> PE 1, config %s%s, %ld rounds; means per iteration, "
               "median [min..max] over rounds\n",
               cfg, ctx_failed ? " (shmem_ctx_create failed: SHMEM_CTX_DEFAULT used)" : "", rounds);
        printf("%8s %8s %10s %10s %10s %10s %8s %8s %8s\n", "size", "iters", "t_post us",
               "t_comm us", "t_work us", "t_total us", "overlap", "min", "max");
        for (int s = 0; s < nsizes; s++) {
            struct stat3 st[NT];
            double *col = malloc((size_t)rounds * sizeof(double));
            if (!col) {
                fprintf(stderr, "overlap: out of memory\n");
                shmem_global_exit(1);
            }
            for (int w = 0; w < NT; w++) {
                for (long r = 0; r < rounds; r++)
                    col[r] = t[((size_t)s * (size_t)rounds + (size_t)r) * NT + (size_t)w] * 1e6;
                st[w] = summarize(col, (int)rounds);
            }
            free(col);
            struct stat3 o = summarize(ov + (size_t)s * (size_t)rounds, (int)rounds);
            char sz[32];
            size_label(sz, sizeof sz, sizes[s]);
            printf("%8s %8ld %10.3f %10.3f %10.3f %10.3f %8.3f %8.3f %8.3f\n", sz, iters[s],
                   st[T_POST].med, st[T_COMM].med, st[T_WORK].med, st[T_TOTAL].med, o.med, o.min,
                   o.max);
            bench_csv_row(csv, "overlap", cfg, npes, 1, sizes[s], "overlap", "fraction", o,
                          iters[s]);
            bench_csv_row(csv, "overlap", cfg, npes, 1, sizes[s], "t_comm", "us", st[T_COMM],
                          iters[s]);
            bench_csv_row(csv, "overlap", cfg, npes, 1, sizes[s], "t_work", "us", st[T_WORK],
                          iters[s]);
            bench_csv_row(csv, "overlap", cfg, npes, 1, sizes[s], "t_total", "us", st[T_TOTAL],
                          iters[s]);
            bench_csv_row(csv, "overlap", cfg, npes, 1, sizes[s], "t_post", "us", st[T_POST],
                          iters[s]);
        }
        if (bad)
            fprintf(stderr, "overlap: WRONG data at PE 1 (%ld bytes)\n", bad);
        else
            printf("# payload checked at PE 1: correct\n");
        printf("# overlap 1 = transfer fully hidden behind computation, 0 = none (see "
               "--help)\n");
    }
    shmem_barrier_all();
    if (use_ctx)
        shmem_ctx_destroy(ctx);
    free(t);
    free(ov);
    free(iters);
    free(src);
    shmem_free(bad_slot);
    shmem_free(dst);
    shmem_finalize();
    return bad ? 1 : 0;
}
