/* latency8: 8-byte latencies between PEs 0 and 1 (oshrun -n 2 latency8).
 *
 *   put    half round trip of shmem_long_p ping-pong: PE 0 puts a word on
 *          PE 1, which polls it (shmem_long_wait_until) and puts it back
 *   get    one blocking shmem_long_g from PE 1 (a full round trip)
 *   fadd   one blocking shmem_long_atomic_fetch_add on PE 1
 *   cswap  one blocking shmem_long_atomic_compare_swap on PE 1
 *   fetch  one blocking shmem_long_atomic_fetch on PE 1
 *
 * For get and the AMOs PE 1 waits in shmem_barrier_all (it progresses the
 * network where the transport needs the target's help).  These are the
 * figures ucx_perftest reports for raw UCP (ucp_put_lat, ucp_get -O 1,
 * ucp_fadd -O 1): bench/ucx_overhead.py sets them side by side.  Each round
 * times ITERS operations of one kind; rounds interleave the kinds; median
 * and min..max over rounds.  Every returned value is checked.  Uses only
 * standard OpenSHMEM 1.4+ routines. */
#include "bench_stats.h"
#include "bench_args.h"
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    printf("usage: oshrun -n 2 latency8 [-i iterations] [-r rounds] [--csv FILE] [--smoke]\n"
           "8-byte latencies (us) between PEs 0 and 1: put (half round trip of a\n"
           "shmem_long_p ping-pong, the peer polling with shmem_long_wait_until), get\n"
           "(blocking shmem_long_g), fadd (fetch_add), cswap (compare_swap), fetch; for\n"
           "get and the AMOs PE 1 waits in shmem_barrier_all.  Median and min..max over\n"
           "-r rounds (default 7) of -i operations each (default 20000).\n"
           "  --csv FILE  PE 0 appends rows: put_latency, get_latency, fadd_latency,\n"
           "              cswap_latency, fetch_latency (us, means) and the same with\n"
           "              _p50 (median single operation)\n"
           "  --smoke     200 iterations, 3 rounds\n");
}

static long word, slot, remote_val = 42;

int main(int argc, char **argv)
{
    long iters = 20000;
    int rounds = 7;
    const char *csv = NULL;
    const struct bench_opt opts[] = {BENCH_LONG("-i", NULL, iters), BENCH_INT("-r", NULL, rounds),
                                     BENCH_STR("--csv", NULL, csv), BENCH_END};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage();
            return 0;
        } else if (!strcmp(argv[i], "--smoke")) {
            iters = 200;
            rounds = 3;
        } else if (!bench_take(argc, argv, &i, opts)) {
            usage();
            return 2;
        }
    }
    if (iters < 1 || rounds < 1 || rounds > 1000) {
        usage();
        return 2;
    }
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n < 2) {
        if (me == 0)
            fprintf(stderr, "latency8: needs 2 PEs\n");
        shmem_finalize();
        return 2;
    }
    enum { PUT, GET, FADD, CSWAP, FETCH, NK };
    static const char *names[NK] = {"put", "get", "fadd", "cswap", "fetch"};
    /* t: mean per operation of each round; p50: the round's median single
     * operation (robust to the preemptions of a shared machine). */
    double *t[NK], *p50[NK];
    for (int k = 0; k < NK; k++) {
        t[k] = malloc(sizeof(double) * (size_t)rounds);
        p50[k] = malloc(sizeof(double) * (size_t)rounds);
    }
    double *op = malloc(sizeof(double) * (size_t)iters);
#define TIMED(i, stmt)      \
    do {                    \
        double a_ = now();  \
        stmt;               \
        op[i] = now() - a_; \
    } while (0)
    long expect = 0;
    int bad = 0;
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < NK; k++) {
            shmem_barrier_all();
            if (k == PUT && me < 2) {
                double t0 = now();
                for (long i = 1; i <= iters; i++) {
                    long v = (long)r * iters + i;
                    if (me == 0) {
                        TIMED(i - 1, shmem_long_p(&slot, v, 1);
                              shmem_long_wait_until(&slot, SHMEM_CMP_EQ, v));
                        op[i - 1] /= 2.0;
                    } else {
                        shmem_long_wait_until(&slot, SHMEM_CMP_EQ, v);
                        shmem_long_p(&slot, v, 0);
                    }
                }
                if (me == 0) {
                    t[k][r] = (now() - t0) / (2.0 * (double)iters) * 1e6;
                    p50[k][r] = summarize(op, (int)iters).med * 1e6;
                }
            } else if (me == 0) {
                double t0 = now();
                if (k == GET) {
                    for (long i = 0; i < iters; i++) {
                        long v;
                        TIMED(i, v = shmem_long_g(&remote_val, 1));
                        if (v != 42)
                            bad = 1;
                    }
                } else if (k == FADD) {
                    for (long i = 0; i < iters; i++) {
                        long v;
                        TIMED(i, v = shmem_long_atomic_fetch_add(&word, 1, 1));
                        if (v != expect++)
                            bad = 1;
                    }
                } else if (k == CSWAP) {
                    for (long i = 0; i < iters; i++, expect++) {
                        long v;
                        TIMED(i, v = shmem_long_atomic_compare_swap(&word, expect, expect + 1, 1));
                        if (v != expect)
                            bad = 1;
                    }
                } else {
                    for (long i = 0; i < iters; i++) {
                        long v;
                        TIMED(i, v = shmem_long_atomic_fetch(&word, 1));
                        if (v != expect)
                            bad = 1;
                    }
                }
                t[k][r] = (now() - t0) / (double)iters * 1e6;
                p50[k][r] = summarize(op, (int)iters).med * 1e6;
            }
            shmem_barrier_all();
        }
    }
    if (me == 1 && word != (long)rounds * iters * 2) {
        fprintf(stderr, "latency8: FAIL: PE 1's word is %ld, expected %ld\n", word,
                (long)rounds * iters * 2);
        bad = 1;
    }
    if (me == 0) {
        if (bad)
            fprintf(stderr, "latency8: FAIL: an AMO returned a wrong value\n");
        printf("# latency8: PE 0 -> PE 1 of %d, %d rounds of %ld operations\n", n, rounds, iters);
        printf("# latency in us; mean: mean of a round's operations, p50: its median\n"
               "# operation; each: median [min..max] over rounds\n");
        printf("%-6s %34s %34s\n", "op", "mean", "p50");
        for (int k = 0; k < NK; k++) {
            struct stat3 s = summarize(t[k], rounds), q = summarize(p50[k], rounds);
            printf("%-6s %12.3f [%8.3f..%9.3f] %12.3f [%8.3f..%9.3f]\n", names[k], s.med, s.min,
                   s.max, q.med, q.min, q.max);
            char metric[32];
            snprintf(metric, sizeof metric, "%s_latency", names[k]);
            bench_csv_row(csv, "latency8", "-", n, 1, 8, metric, "us", s, iters);
            snprintf(metric, sizeof metric, "%s_latency_p50", names[k]);
            bench_csv_row(csv, "latency8", "-", n, 1, 8, metric, "us", q, iters);
        }
    }
    static int nbad;
    shmem_barrier_all();
    if (bad)
        shmem_int_atomic_inc(&nbad, 0);
    shmem_barrier_all();
    for (int k = 0; k < NK; k++) {
        free(t[k]);
        free(p50[k]);
    }
    free(op);
    int rc = bad || (me == 0 && nbad > 0);
    shmem_finalize();
    return rc;
}
