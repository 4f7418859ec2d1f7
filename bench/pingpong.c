/* pingpong: on-node point-to-point figures and the machine's floor, measured
 * by the same binary in one run (run with 2 PEs: oshrun -n 2 pingpong).
 *
 *   put latency    half round trip of an 8-byte shmem_putmem, the receiver
 *                  polling the arriving word with shmem_long_wait_until
 *   floor latency  half round trip of a cache line ping-ponged between the
 *                  same two processes with plain loads and stores through
 *                  shmem_ptr (no library call on the path)
 *   put bandwidth  shmem_putmem of SIZE bytes (default 1 MiB) to the peer
 *   floor bw       memcpy of SIZE bytes between two private buffers
 *
 * Each figure is measured in R rounds, interleaved (put, floor, put, ...),
 * and reported as median and min..max; ratios are of medians.
 * Uses only standard OpenSHMEM 1.4+ routines. */
#include "bench_stats.h"
#include "bench_args.h"
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(void)
{
    printf("usage: oshrun -n 2 pingpong [-i iterations] [-r rounds] [-s bytes]\n"
           "Measures, in one run, 8-byte put latency (half round trip, flag-polled),\n"
           "put bandwidth at -s bytes (default 1 MiB), and the machine's floor for both:\n"
           "a cache line ping-ponged between the two processes through shared memory,\n"
           "and memcpy of the same size. Reports median and spread over -r rounds.\n");
}

/* One round of put ping-pong: returns seconds per half round trip. */
static double put_latency(long *slot, int me, int peer, long iters, long base)
{
    shmem_barrier_all();
    double t0 = now();
    for (long i = 1; i <= iters; i++) {
        long v = base + i;
        if (me == 0) {
            shmem_putmem(slot, &v, sizeof v, peer);
            shmem_long_wait_until(slot, SHMEM_CMP_EQ, v);
        } else {
            shmem_long_wait_until(slot, SHMEM_CMP_EQ, v);
            shmem_putmem(slot, &v, sizeof v, peer);
        }
    }
    return (now() - t0) / (2.0 * (double)iters);
}

/* The same exchange with raw loads/stores on the peer's mapped line. */
static double floor_latency(volatile long *mine, volatile long *theirs, int me, long iters,
                            long base)
{
    shmem_barrier_all();
    double t0 = now();
    for (long i = 1; i <= iters; i++) {
        long v = base + i;
        if (me == 0) {
            *theirs = v;
            bench_spin_until(mine, v);
        } else {
            bench_spin_until(mine, v);
            *theirs = v;
        }
    }
    return (now() - t0) / (2.0 * (double)iters);
}

int main(int argc, char **argv)
{
    long iters = 20000, rounds = 11, size_arg = 1 << 20;
    const struct bench_opt opts[] = {BENCH_LONG("-i", NULL, iters), BENCH_LONG("-r", NULL, rounds),
                                     BENCH_LONG("-s", NULL, size_arg), BENCH_END};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage();
            return 0;
        } else if (!strcmp(argv[i], "--smoke")) {
            iters = 200;
            rounds = 3;
            size_arg = 65536;
        } else if (!bench_take(argc, argv, &i, opts)) {
            fprintf(stderr, "pingpong: bad argument '%s'\n", argv[i]);
            return 2;
        }
    }
    size_t size = (size_t)size_arg;
    if (iters < 1 || rounds < 1 || size < 8) {
        fprintf(stderr, "pingpong: iterations, rounds must be >= 1 and size >= 8\n");
        return 2;
    }
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n != 2) {
        if (me == 0)
            fprintf(stderr, "pingpong: run with exactly 2 PEs (oshrun -n 2)\n");
        shmem_finalize();
        return 2;
    }
    int peer = 1 - me;
    long *slot = shmem_calloc(16, sizeof(long)); /* put latency word */
    long *line = shmem_calloc(16, sizeof(long)); /* floor cache line */
    char *dst = shmem_malloc(size);
    char *src = malloc(size), *priv = malloc(size);
    volatile long *theirs = shmem_ptr(line, peer);
    if (!slot || !line || !dst || !src || !priv || !theirs) {
        fprintf(stderr, "pingpong: allocation or shmem_ptr failed\n");
        shmem_global_exit(1);
    }
    memset(src, 0x5a, size);
    memset(priv, 0, size);
    memset(dst, 0, size);

    double *lat = calloc((size_t)rounds, sizeof(double));
    double *flat = calloc((size_t)rounds, sizeof(double));
    double *bw = calloc((size_t)rounds, sizeof(double));
    double *fbw = calloc((size_t)rounds, sizeof(double));
    long bw_iters = (long)((256u << 20) / size) + 1;

    /* Warm-up (page faults, caches), then interleaved rounds. */
    put_latency(slot, me, peer, 1000, 0);
    floor_latency(line, theirs, me, 1000, 0);
    long base = 1000;
    for (long r = 0; r < rounds; r++) {
        lat[r] = put_latency(slot, me, peer, iters, base);
        flat[r] = floor_latency(line, theirs, me, iters, base);
        base += iters;

        shmem_barrier_all();
        if (me == 0) {
            double t0 = now();
            for (long i = 0; i < bw_iters; i++)
                shmem_putmem(dst, src, size, peer);
            shmem_quiet();
            bw[r] = (double)size * (double)bw_iters / (now() - t0);
            t0 = now();
            for (long i = 0; i < bw_iters; i++) {
                memcpy(priv, src, size);
                __asm__ __volatile__("" ::: "memory"); /* keep every copy */
            }
            fbw[r] = (double)size * (double)bw_iters / (now() - t0);
        }
        shmem_barrier_all();
    }
    /* The data must have arrived: check the receiver's buffer. */
    int bad = 0;
    if (me == 1)
        for (size_t i = 0; i < size; i++)
            bad |= dst[i] != 0x5a;
    shmem_barrier_all();
    if (bad) {
        fprintf(stderr, "pingpong: PE 1 received wrong data\n");
        shmem_global_exit(1);
    }
    if (me == 0) {
        struct stat3 l = summarize(lat, (int)rounds), fl = summarize(flat, (int)rounds);
        struct stat3 b = summarize(bw, (int)rounds), fb = summarize(fbw, (int)rounds);
        printf("# pingpong: 2 PEs, %ld iterations x %ld rounds, bandwidth size %zu bytes\n", iters,
               rounds, size);
        printf("%-32s %12s %12s %12s\n", "figure", "median", "min", "max");
        printf("%-32s %10.1f ns %10.1f ns %10.1f ns\n", "put latency (8 B, half RTT)", l.med * 1e9,
               l.min * 1e9, l.max * 1e9);
        printf("%-32s %10.1f ns %10.1f ns %10.1f ns\n", "floor: cache-line ping-pong", fl.med * 1e9,
               fl.min * 1e9, fl.max * 1e9);
        printf("%-32s %8.2f GB/s %8.2f GB/s %8.2f GB/s\n", "put bandwidth", b.med * 1e-9,
               b.min * 1e-9, b.max * 1e-9);
        printf("%-32s %8.2f GB/s %8.2f GB/s %8.2f GB/s\n", "floor: memcpy bandwidth", fb.med * 1e-9,
               fb.min * 1e-9, fb.max * 1e-9);
        double lr = l.med / fl.med, br = b.med / fb.med;
        printf("latency ratio put/floor = %.2f (target <= 1.30): %s\n", lr,
               lr <= 1.30 ? "met" : "NOT met");
        printf("bandwidth ratio put/memcpy = %.2f (target >= 0.80): %s\n", br,
               br >= 0.80 ? "met" : "NOT met");
    }
    free(lat);
    free(flat);
    free(bw);
    free(fbw);
    free(src);
    free(priv);
    shmem_free(dst);
    shmem_free(line);
    shmem_free(slot);
    shmem_finalize();
    return 0;
}
