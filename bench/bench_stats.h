/* Timing and summary helpers shared by the benchmarks (header-only so each
 * benchmark stays one source file that any implementation's oshcc builds).
 * Include first: it selects the POSIX level for clock_gettime. */
#ifndef SHOAL_BENCH_STATS_H
#define SHOAL_BENCH_STATS_H
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <stdlib.h>
#include <time.h>

static inline double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median and range of n samples (sorts them). */
struct stat3 {
    double med, min, max;
};

static inline struct stat3 summarize(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    struct stat3 s = {v[n / 2], v[0], v[n - 1]};
    return s;
}

/* Spins until *p == v: the floor's raw cache-line wait.  After many misses
 * it yields, so that on a machine with fewer free cores than spinning
 * processes a handoff costs a scheduler slice, not a whole time slice per
 * step (an unloaded machine never reaches the yield). */
#include <sched.h>
static inline void bench_spin_until(volatile long *p, long v)
{
    unsigned misses = 0;
    while (*p != v)
        if (++misses % 4096 == 0)
            sched_yield();
}
#endif

/* Machine-readable results (read by bench/run_suite.py): with --csv FILE a
 * benchmark appends one row per figure,
 *   benchmark,config,pes,threads,size_bytes,metric,unit,median,min,max,iterations
 * config names the threading configuration (see bench/README.md: default,
 * ctx, pes; or "-" where it does not apply); metric is a short name such
 * as put_latency or putmem_rate; unit is e.g. us, ns, GB/s, Mmsg/s, Mops/s.
 * Only PE 0 writes.  The header line is written when the file is empty. */
#include <stdio.h>
static inline void bench_csv_row(const char *path, const char *benchmark, const char *config,
                                 int pes, int threads, size_t size_bytes, const char *metric,
                                 const char *unit, struct stat3 s, long iterations)
{
    if (!path)
        return;
    FILE *f = fopen(path, "a");
    if (!f) {
        perror(path);
        return;
    }
    if (ftell(f) == 0)
        fprintf(f, "benchmark,config,pes,threads,size_bytes,metric,unit,median,min,max,"
                   "iterations\n");
    fprintf(f, "%s,%s,%d,%d,%zu,%s,%s,%.6g,%.6g,%.6g,%ld\n", benchmark, config, pes, threads,
            size_bytes, metric, unit, s.med, s.min, s.max, iterations);
    fclose(f);
}
