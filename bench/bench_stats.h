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
#endif
