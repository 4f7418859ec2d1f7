/* amo_latency: latency of one blocking fetching AMO on another PE (run with
 * 2 PEs: oshrun -n 2 amo_latency).
 *
 *   fadd   shmem_long_atomic_fetch_add(word, 1, 1)   (a full round trip)
 *   cswap  shmem_long_atomic_compare_swap(word, old, old + 1, 1)
 *   fetch  shmem_long_atomic_fetch(word, 1)
 *
 * PE 0 issues them back to back; PE 1 waits in shmem_barrier_all (it
 * progresses the network where the transport needs the target's help).
 * Each round times ITERS operations of one kind; rounds interleave the
 * kinds; median and min..max over rounds.  The final value of the word is
 * checked.  Uses only standard OpenSHMEM 1.4+ routines. */
#include "bench_stats.h"
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    printf("usage: oshrun -n 2 amo_latency [-i iterations] [-r rounds] [--csv FILE] [--smoke]\n"
           "Latency (us) of one blocking fetching AMO from PE 0 on a word of PE 1, which\n"
           "waits in shmem_barrier_all meanwhile: fadd (fetch_add), cswap\n"
           "(compare_swap), fetch.  Median and min..max over -r rounds (default 7) of\n"
           "-i operations each (default 20000).\n"
           "  --csv FILE  PE 0 appends rows: fadd_latency, cswap_latency, fetch_latency (us)\n"
           "  --smoke     200 iterations, 3 rounds\n");
}

static long word;

int main(int argc, char **argv)
{
    long iters = 20000;
    int rounds = 7;
    const char *csv = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage();
            return 0;
        } else if (!strcmp(argv[i], "-i") && i + 1 < argc) {
            iters = atol(argv[++i]);
        } else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
            rounds = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            csv = argv[++i];
        } else if (!strcmp(argv[i], "--smoke")) {
            iters = 200;
            rounds = 3;
        } else {
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
            fprintf(stderr, "amo_latency: needs 2 PEs\n");
        shmem_finalize();
        return 2;
    }
    enum { FADD, CSWAP, FETCH, NK };
    static const char *names[NK] = {"fadd", "cswap", "fetch"};
    double *t[NK];
    for (int k = 0; k < NK; k++)
        t[k] = malloc(sizeof(double) * (size_t)rounds);
    long expect = 0;
    int bad = 0;
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < NK; k++) {
            shmem_barrier_all();
            if (me == 0) {
                double t0 = now();
                if (k == FADD) {
                    for (long i = 0; i < iters; i++)
                        if (shmem_long_atomic_fetch_add(&word, 1, 1) != expect++)
                            bad = 1;
                } else if (k == CSWAP) {
                    for (long i = 0; i < iters; i++, expect++)
                        if (shmem_long_atomic_compare_swap(&word, expect, expect + 1, 1) !=
                            expect)
                            bad = 1;
                } else {
                    for (long i = 0; i < iters; i++)
                        if (shmem_long_atomic_fetch(&word, 1) != expect)
                            bad = 1;
                }
                t[k][r] = (now() - t0) / (double)iters * 1e6;
            }
            shmem_barrier_all();
        }
    }
    if (me == 1 && word != (long)rounds * iters * 2) {
        fprintf(stderr, "amo_latency: FAIL: PE 1's word is %ld, expected %ld\n", word,
                (long)rounds * iters * 2);
        bad = 1;
    }
    if (me == 0) {
        if (bad)
            fprintf(stderr, "amo_latency: FAIL: an AMO returned a wrong value\n");
        printf("# amo_latency: PE 0 -> PE 1 of %d, %d rounds of %ld operations\n", n, rounds,
               iters);
        printf("%-6s %28s\n", "op", "latency us, median [min..max]");
        for (int k = 0; k < NK; k++) {
            struct stat3 s = summarize(t[k], rounds);
            printf("%-6s %10.3f [%.3f..%.3f]\n", names[k], s.med, s.min, s.max);
            char metric[32];
            snprintf(metric, sizeof metric, "%s_latency", names[k]);
            bench_csv_row(csv, "amo_latency", "-", n, 1, 8, metric, "us", s, iters);
        }
    }
    static int nbad;
    shmem_barrier_all();
    if (bad)
        shmem_int_atomic_inc(&nbad, 0);
    shmem_barrier_all();
    for (int k = 0; k < NK; k++)
        free(t[k]);
    int rc = bad || (me == 0 && nbad > 0);
    shmem_finalize();
    return rc;
}
