/* coll_bench: collective latency and bandwidth against the point-to-point
 * floor, all measured by the same binary in one run with the job's PE count
 * (oshrun -n 2 coll_bench, oshrun -n 4 coll_bench).
 *
 *   put            half round trip of an 8-byte shmem_long_p between PEs 0
 *                  and 1, the receiver polling with shmem_long_wait_until
 *                  (the floor every other row is divided by)
 *   barrier_all    shmem_barrier_all
 *   team_sync      shmem_team_sync(SHMEM_TEAM_WORLD)
 *   broadcastmem   shmem_broadcastmem(SHMEM_TEAM_WORLD, ..., root 0), size
 *                  = bytes broadcast
 *   sum_reduce     shmem_double_sum_reduce(SHMEM_TEAM_WORLD, ...), size =
 *                  bytes of doubles reduced (8 B = 1 double)
 *   alltoallmem    shmem_alltoallmem(SHMEM_TEAM_WORLD, ...), size = bytes
 *                  per PE pair
 *   fcollectmem    shmem_fcollectmem(SHMEM_TEAM_WORLD, ...), size = bytes
 *                  contributed per PE
 *
 * Timing.  Every PE times a back-to-back loop of ITERS calls that starts
 * right after a shmem_barrier_all and divides by ITERS; the row's figure for
 * the round is the MAXIMUM of that per-iteration mean over all PEs.  The
 * maximum is taken outside the timed region, with shmem_double_p into every
 * PE's slot array and one shmem_barrier_all (deliberately not with
 * shmem_double_max_reduce, so the bookkeeping does not depend on the
 * collectives under test).  For the put row only PEs 0 and 1 work.
 *
 * Iterations.  Each row has a nominal count (fewer for bigger sizes), scaled
 * by -i; a calibration pass after warm-up lowers it where needed so one
 * (row, round) takes about 0.15 s x scale (that keeps a 4-PE run on a 2-core
 * machine, where PEs share cores, within ~20 s).  All PEs use the same count.
 *
 * Rows are measured in R rounds, interleaved (put, barrier, ..., put,
 * barrier, ...), and reported as median and min..max; ratios are of medians.
 * GB/s = bytes landing in each PE's dest per call / median time (broadcast
 * and reduce: size; alltoall and fcollect: size x PEs).  Every collective is
 * checked for correct results before and after the timed rounds, and every
 * return value is checked.
 * Uses only standard OpenSHMEM routines: the team forms above with a 1.5+
 * library, and with an OpenSHMEM 1.4 library (no teams, e.g. Open MPI 4's
 * OSHMEM) the active-set forms over all PEs with pSync/pWrk —
 * shmem_barrier, shmem_broadcast64, shmem_double_sum_to_all,
 * shmem_alltoall64, shmem_fcollect64 — under the same row names, which is
 * what a user of that library would call (the output says which). */
#include "bench_stats.h"
#include "bench_args.h"
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5
#define HAVE_TEAMS 1
#else
#define HAVE_TEAMS 0
/* Active-set forms: two pSync arrays, alternated so back-to-back calls never
 * reuse the array a slow PE may still be reading. */
static long *psync_arr[2];
static int psync_next;
static double *pwrk;
static long *next_psync(void)
{
    return psync_arr[psync_next++ & 1];
}
#define PSYNC_LEN                                                              \
    (SHMEM_REDUCE_SYNC_SIZE > SHMEM_BCAST_SYNC_SIZE ? SHMEM_REDUCE_SYNC_SIZE   \
                                                    : SHMEM_BCAST_SYNC_SIZE) + \
        SHMEM_COLLECT_SYNC_SIZE + SHMEM_ALLTOALL_SYNC_SIZE + SHMEM_BARRIER_SYNC_SIZE
#endif

static void usage(void)
{
    printf("usage: oshrun -n N coll_bench [-i scale] [-r rounds] [-q] [--csv FILE]\n"
           "Measures, in one run with N >= 2 PEs: 8-byte put latency between PEs 0 and 1\n"
           "(half round trip, shmem_long_p + shmem_long_wait_until: the floor), and\n"
           "shmem_barrier_all, shmem_team_sync, shmem_broadcastmem (8 B, 64 KiB, 1 MiB),\n"
           "shmem_double_sum_reduce (8 B, 64 KiB, 1 MiB), shmem_alltoallmem (8 B, 64 KiB\n"
           "per pair), shmem_fcollectmem (8 B, 64 KiB per PE) on SHMEM_TEAM_WORLD.\n"
           "A row's time is the max over PEs of the per-iteration mean; median and\n"
           "min..max over -r rounds (default 7), ratio to the put floor, GB/s.\n"
           "  -i scale   multiply iteration counts and time budget (default 1.0)\n"
           "  -r rounds  interleaved rounds (default 7)\n"
           "  -q         quick: tiny sizes, few iterations (smoke test)\n"
           "  --big N    the middle size in bytes instead of 64 KiB\n"
           "  --huge N   the largest size in bytes instead of 1 MiB (with --big: how the\n"
           "             cost of a fixed per-call step falls with size)\n"
           "  --csv FILE PE 0 appends one row per figure (metric = the operation's name,\n"
           "             e.g. barrier_all, broadcastmem; unit us)\n");
}

enum kind { K_PUT, K_BARRIER, K_SYNC, K_BCAST, K_REDUCE, K_A2A, K_FCOLLECT };

struct row {
    enum kind kind;
    const char *name;
    size_t size;  /* bytes (see the header comment); 0 for barriers */
    long nominal; /* iteration cap before calibration */
    long iters;   /* after calibration, the same on every PE */
    double *t;    /* per-round seconds per call (max over PEs) */
};

/* Job-wide state. */
static int me, npes;
static long *pp_slot;           /* ping-pong word (symmetric) */
static long pp_base;            /* last value sent; identical on all PEs */
static double *max_slots;       /* symmetric [2][npes]: max-over-PEs exchange */
static long max_parity;         /* which half of max_slots is next */
static char *sym_src, *sym_dst; /* symmetric collective buffers */
static long bad_rc;             /* timed batches with a nonzero return */

/* Max over PEs of v; one barrier, outside any timed region.  The two slot
 * arrays alternate so a fast PE's next exchange cannot overwrite values a
 * slow PE is still reading (the barrier in between orders them). */
static double max_over_pes(double v)
{
    double *slots = max_slots + (max_parity++ & 1) * npes;
    for (int pe = 0; pe < npes; pe++)
        shmem_double_p(&slots[me], v, pe);
    shmem_barrier_all();
    double m = slots[0];
    for (int pe = 1; pe < npes; pe++)
        if (slots[pe] > m)
            m = slots[pe];
    return m;
}

/* Run ITERS calls of the row's operation back to back; return this PE's
 * seconds per call (put: per half round trip; PEs other than 0 and 1: 0). */
static double run_op(const struct row *r, long iters)
{
    size_t n = r->size;
    int rc = 0;
    shmem_barrier_all();
    double t0 = now();
    switch (r->kind) {
    case K_PUT:
        if (me > 1) {
            pp_base += iters;
            return 0.0;
        }
        for (long i = 1; i <= iters; i++) {
            long v = pp_base + i;
            if (me == 0) {
                shmem_long_p(pp_slot, v, 1);
                shmem_long_wait_until(pp_slot, SHMEM_CMP_EQ, v);
            } else {
                shmem_long_wait_until(pp_slot, SHMEM_CMP_EQ, v);
                shmem_long_p(pp_slot, v, 0);
            }
        }
        pp_base += iters;
        return (now() - t0) / (2.0 * (double)iters);
    case K_BARRIER:
        for (long i = 0; i < iters; i++)
            shmem_barrier_all();
        break;
#if HAVE_TEAMS
    case K_SYNC:
        for (long i = 0; i < iters; i++)
            rc |= shmem_team_sync(SHMEM_TEAM_WORLD);
        break;
    case K_BCAST:
        for (long i = 0; i < iters; i++)
            rc |= shmem_broadcastmem(SHMEM_TEAM_WORLD, sym_dst, sym_src, n, 0);
        break;
    case K_REDUCE:
        for (long i = 0; i < iters; i++)
            rc |= shmem_double_sum_reduce(SHMEM_TEAM_WORLD, (double *)(void *)sym_dst,
                                          (const double *)(void *)sym_src, n / sizeof(double));
        break;
    case K_A2A:
        for (long i = 0; i < iters; i++)
            rc |= shmem_alltoallmem(SHMEM_TEAM_WORLD, sym_dst, sym_src, n);
        break;
    case K_FCOLLECT:
        for (long i = 0; i < iters; i++)
            rc |= shmem_fcollectmem(SHMEM_TEAM_WORLD, sym_dst, sym_src, n);
        break;
#else
    case K_SYNC:
        for (long i = 0; i < iters; i++)
            shmem_barrier(0, 0, npes, next_psync());
        break;
    case K_BCAST:
        for (long i = 0; i < iters; i++)
            shmem_broadcast64(sym_dst, sym_src, n / 8, 0, 0, 0, npes, next_psync());
        break;
    case K_REDUCE:
        for (long i = 0; i < iters; i++)
            shmem_double_sum_to_all((double *)(void *)sym_dst, (double *)(void *)sym_src,
                                    (int)(n / sizeof(double)), 0, 0, npes, pwrk, next_psync());
        break;
    case K_A2A:
        for (long i = 0; i < iters; i++)
            shmem_alltoall64(sym_dst, sym_src, n / 8, 0, 0, npes, next_psync());
        break;
    case K_FCOLLECT:
        for (long i = 0; i < iters; i++)
            shmem_fcollect64(sym_dst, sym_src, n / 8, 0, 0, npes, next_psync());
        break;
#endif
    }
    double t = (now() - t0) / (double)iters;
    if (rc != 0)
        bad_rc++;
    return t;
}

static unsigned char pat(long a, long b, size_t i)
{
    return (unsigned char)((unsigned long)a * 31u + (unsigned long)b * 7u + i * 13u + 1u);
}

/* Fill the inputs with a known pattern, run the operation once, verify this
 * PE's result.  Returns the number of wrong elements on this PE. */
static long check_row(const struct row *r, long seed)
{
    size_t n = r->size;
    long bad = 0;
    double *ds = (double *)(void *)sym_src, *dd = (double *)(void *)sym_dst;
    size_t nd = n / sizeof(double);
    switch (r->kind) {
    case K_PUT:
    case K_BARRIER:
    case K_SYNC: return 0;
    case K_BCAST:
        for (size_t i = 0; i < n; i++)
            sym_src[i] = me == 0 ? (char)pat(seed, 0, i) : (char)0x55;
        memset(sym_dst, 0, n);
        break;
    case K_REDUCE:
        for (size_t i = 0; i < nd; i++) {
            ds[i] = (double)(me + 1) * (double)((i + (size_t)seed) % 7 + 1);
            dd[i] = -1.0;
        }
        break;
    case K_A2A:
        for (int j = 0; j < npes; j++)
            for (size_t i = 0; i < n; i++)
                sym_src[(size_t)j * n + i] = (char)pat(seed + me, j, i);
        memset(sym_dst, 0, n * (size_t)npes);
        break;
    case K_FCOLLECT:
        for (size_t i = 0; i < n; i++)
            sym_src[i] = (char)pat(seed + me, 3, i);
        memset(sym_dst, 0, n * (size_t)npes);
        break;
    }
    run_op(r, 1);
    shmem_barrier_all();
    switch (r->kind) {
    case K_BCAST:
        if (!HAVE_TEAMS && me == 0)
            break; /* the active-set form leaves the root's dest alone */
        for (size_t i = 0; i < n; i++)
            bad += (unsigned char)sym_dst[i] != pat(seed, 0, i);
        break;
    case K_REDUCE: {
        double s = (double)npes * (double)(npes + 1) / 2.0;
        for (size_t i = 0; i < nd; i++)
            bad += dd[i] != s * (double)((i + (size_t)seed) % 7 + 1);
        break;
    }
    case K_A2A:
        for (int j = 0; j < npes; j++)
            for (size_t i = 0; i < n; i++)
                bad += (unsigned char)sym_dst[(size_t)j * n + i] != pat(seed + j, me, i);
        break;
    case K_FCOLLECT:
        for (int j = 0; j < npes; j++)
            for (size_t i = 0; i < n; i++)
                bad += (unsigned char)sym_dst[(size_t)j * n + i] != pat(seed + j, 3, i);
        break;
    default: break;
    }
    return bad;
}

/* Warm up, then pick the iteration count: the nominal count, lowered so
 * one round of the row takes about BUDGET seconds (never below MIN_ITERS).
 * The estimate is a max over PEs (so every PE gets the same count), the
 * least of three batches (so one disturbed batch does not cut the count). */
static void calibrate(struct row *r, double budget, long min_iters)
{
    run_op(r, 1); /* first touch, page faults */
    long w = 1, wmax = r->nominal / 10 > 1 ? r->nominal / 10 : 1;
    double est;
    for (;;) {
        double t = max_over_pes(run_op(r, w));
        est = r->kind == K_PUT ? 2.0 * t : t; /* seconds per iteration */
        if (est * (double)w >= 0.002 || w >= wmax)
            break;
        w *= 2;
    }
    for (int rep = 0; rep < 2; rep++) { /* least disturbed of three */
        double t = max_over_pes(run_op(r, w));
        t = r->kind == K_PUT ? 2.0 * t : t;
        if (t < est)
            est = t;
    }
    double fit = est > 0.0 ? budget / est : (double)r->nominal;
    long it = fit < (double)r->nominal ? (long)fit : r->nominal;
    r->iters = it < min_iters ? min_iters : it;
}

static void size_label(char *buf, size_t len, size_t n)
{
    if (n == 0)
        snprintf(buf, len, "-");
    else if (n >= (1u << 20) && n % (1u << 20) == 0)
        snprintf(buf, len, "%zu MiB", n >> 20);
    else if (n >= 1024 && n % 1024 == 0)
        snprintf(buf, len, "%zu KiB", n >> 10);
    else
        snprintf(buf, len, "%zu B", n);
}

/* Bytes landing in each PE's dest per call (for GB/s); 0: latency row. */
static double dest_bytes(const struct row *r)
{
    switch (r->kind) {
    case K_BCAST:
    case K_REDUCE: return (double)r->size;
    case K_A2A:
    case K_FCOLLECT: return (double)r->size * (double)npes;
    default: return 0.0;
    }
}

int main(int argc, char **argv)
{
    double scale = 1.0;
    long rounds = 7;
    int quick = 0, rounds_set = 0;
    const char *csv = NULL;
    long big_arg = 0, huge_arg = 0;
    const struct bench_opt opts[] = {BENCH_DOUBLE("-i", NULL, scale), BENCH_STR("--csv", NULL, csv),
                                     BENCH_LONG("--big", NULL, big_arg),
                                     BENCH_LONG("--huge", NULL, huge_arg), BENCH_END};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage();
            return 0;
        } else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
            rounds = atol(argv[++i]);
            rounds_set = 1;
        } else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--smoke")) {
            quick = 1;
        } else if (!bench_take(argc, argv, &i, opts)) {
            fprintf(stderr, "coll_bench: bad argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!(scale > 0.0) || rounds < 1 || big_arg < 0 || huge_arg < 0) {
        fprintf(stderr, "coll_bench: scale must be > 0, rounds >= 1 and sizes >= 0\n");
        return 2;
    }
    if (quick && !rounds_set)
        rounds = 3;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes < 2) {
        if (me == 0)
            fprintf(stderr, "coll_bench: run with at least 2 PEs (oshrun -n 2)\n");
        shmem_finalize();
        return 2;
    }

    /* Rows: nominal iteration counts shrink with size. */
    const size_t KiB = 1024, MiB = 1024 * 1024;
    const size_t big = big_arg ? (size_t)big_arg
                       : quick ? 1 * KiB
                               : 64 * KiB,
                 huge = huge_arg ? (size_t)huge_arg
                        : quick  ? 4 * KiB
                                 : 1 * MiB;
    struct row rows[] = {
        {K_PUT, "put (half RTT)", 8, 20000, 0, NULL},
        {K_BARRIER, "barrier_all", 0, 10000, 0, NULL},
        {K_SYNC, "team_sync", 0, 10000, 0, NULL},
        {K_BCAST, "broadcastmem", 8, 10000, 0, NULL},
        {K_BCAST, "broadcastmem", big, 1000, 0, NULL},
        {K_BCAST, "broadcastmem", huge, 100, 0, NULL},
        {K_REDUCE, "double_sum_reduce", 8, 10000, 0, NULL},
        {K_REDUCE, "double_sum_reduce", big, 1000, 0, NULL},
        {K_REDUCE, "double_sum_reduce", huge, 100, 0, NULL},
        {K_A2A, "alltoallmem", 8, 10000, 0, NULL},
        {K_A2A, "alltoallmem", big, 1000, 0, NULL},
        {K_FCOLLECT, "fcollectmem", 8, 10000, 0, NULL},
        {K_FCOLLECT, "fcollectmem", big, 1000, 0, NULL},
    };
    const int nrows = (int)(sizeof rows / sizeof rows[0]);
    double budget = (quick ? 0.005 : 0.15) * scale; /* seconds per (row, round) */
    long min_iters = quick ? 2 : 5;
    size_t bufsize = 8;
    for (int k = 0; k < nrows; k++) {
        double nom = (double)rows[k].nominal * (quick ? 0.005 : 1.0) * scale;
        rows[k].nominal = nom < (double)min_iters ? min_iters : (long)nom;
        size_t need = rows[k].size;
        if (rows[k].kind == K_A2A || rows[k].kind == K_FCOLLECT)
            need *= (size_t)npes;
        if (need > bufsize)
            bufsize = need;
        rows[k].t = calloc((size_t)rounds, sizeof(double));
        if (!rows[k].t) {
            fprintf(stderr, "coll_bench: out of memory\n");
            shmem_global_exit(1);
        }
    }

    pp_slot = shmem_calloc(16, sizeof(long)); /* own cache line */
    max_slots = shmem_calloc(2 * (size_t)npes, sizeof(double));
    sym_src = shmem_malloc(bufsize);
    sym_dst = shmem_malloc(bufsize);
#if !HAVE_TEAMS
    size_t nwrk = bufsize / sizeof(double) / 2 + 1;
    if (nwrk < SHMEM_REDUCE_MIN_WRKDATA_SIZE)
        nwrk = SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    pwrk = shmem_malloc(nwrk * sizeof(double));
    for (int k = 0; k < 2; k++) {
        psync_arr[k] = shmem_malloc((PSYNC_LEN) * sizeof(long));
        if (!psync_arr[k] || !pwrk) {
            fprintf(stderr, "coll_bench: PE %d: symmetric allocation failed\n", me);
            shmem_global_exit(1);
        }
        for (int i = 0; i < (PSYNC_LEN); i++)
            psync_arr[k][i] = SHMEM_SYNC_VALUE;
    }
#endif
    if (!pp_slot || !max_slots || !sym_src || !sym_dst) {
        fprintf(stderr, "coll_bench: PE %d: symmetric allocation of %zu bytes failed\n", me,
                2 * bufsize);
        shmem_global_exit(1);
    }
    memset(sym_src, 0, bufsize);
    memset(sym_dst, 0, bufsize);
    shmem_barrier_all();

    /* Correctness first: a benchmark of wrong results is no benchmark. */
    long wrong = 0;
    for (int k = 0; k < nrows; k++) {
        long b = (long)max_over_pes((double)check_row(&rows[k], 1 + k));
        if (b != 0 && me == 0)
            fprintf(stderr,
                    "coll_bench: %s %zu B: wrong result (before timing), up to %ld "
                    "wrong elements on a PE\n",
                    rows[k].name, rows[k].size, b);
        wrong += b != 0;
    }
    if (wrong) { /* every PE sees the same count: leave together, cleanly */
        if (me == 0)
            fprintf(stderr, "coll_bench: %ld row(s) gave wrong results; not timing\n", wrong);
        shmem_barrier_all();
        shmem_finalize();
        return 1;
    }

    /* Warm-up and calibration, then the interleaved rounds.  The inputs are
     * ordinary doubles (the reduce must not meet NaNs or denormals left by
     * the byte patterns of the checks). */
    for (size_t i = 0; i < bufsize / sizeof(double); i++)
        ((double *)(void *)sym_src)[i] = (double)(me + 1) + (double)(i % 5) * 0.25;
    shmem_barrier_all();
    for (int k = 0; k < nrows; k++)
        calibrate(&rows[k], budget, min_iters);
    for (long r = 0; r < rounds; r++)
        for (int k = 0; k < nrows; k++)
            rows[k].t[r] = max_over_pes(run_op(&rows[k], rows[k].iters));

    /* Still correct after all those calls, and no call returned an error. */
    for (int k = 0; k < nrows; k++) {
        long b = (long)max_over_pes((double)check_row(&rows[k], 101 + k));
        if (b != 0 && me == 0)
            fprintf(stderr,
                    "coll_bench: %s %zu B: wrong result (after timing), up to %ld "
                    "wrong elements on a PE\n",
                    rows[k].name, rows[k].size, b);
        wrong += b != 0;
    }
    long rcs = (long)max_over_pes((double)bad_rc);
    if (rcs && me == 0)
        fprintf(stderr, "coll_bench: a collective returned nonzero (%ld batch(es) on a PE)\n", rcs);

    if (me == 0) {
        int cores = 0;
#ifdef _SC_NPROCESSORS_ONLN
        cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
#endif
        printf("# coll_bench: %d PEs%s, %ld rounds, scale %.3g%s; time = max over PEs of "
               "the per-call mean\n",
               npes, cores > 0 && npes > cores ? " (more PEs than cores)" : "", rounds, scale,
               quick ? ", quick" : "");
        printf("# API: %s\n", HAVE_TEAMS ? "OpenSHMEM 1.5+ team forms on SHMEM_TEAM_WORLD"
                                         : "OpenSHMEM 1.4 active-set forms over all PEs "
                                           "(no teams in this library)");
        if (cores > 0 && npes > cores)
            printf(
                "# PEs share cores: every wait may cost a context switch, and the put floor\n"
                "# depends on whether PEs 0 and 1 were placed on the same core (see min..max)\n");
        printf("%-20s %8s %7s %11s %11s %11s %8s %9s\n", "operation", "size", "iters", "median us",
               "min us", "max us", "x put", "GB/s");
        struct stat3 put = summarize(rows[0].t, (int)rounds);
        struct stat3 *st = calloc((size_t)nrows, sizeof *st);
        for (int k = 0; k < nrows; k++) {
            struct stat3 s = k == 0 ? put : summarize(rows[k].t, (int)rounds);
            st[k] = s;
            char sz[32], gb[32];
            size_label(sz, sizeof sz, rows[k].size);
            double db = dest_bytes(&rows[k]);
            if (db > 0.0 && rows[k].size > 8 && s.med > 0.0)
                snprintf(gb, sizeof gb, "%9.2f", db / s.med * 1e-9);
            else
                snprintf(gb, sizeof gb, "%9s", "-");
            printf("%-20s %8s %7ld %11.3f %11.3f %11.3f %8.1f %s\n", rows[k].name, sz,
                   rows[k].iters, s.med * 1e6, s.min * 1e6, s.max * 1e6, s.med / put.med, gb);
            struct stat3 us = {s.med * 1e6, s.min * 1e6, s.max * 1e6};
            bench_csv_row(csv, "coll_bench", "-", npes, 1, rows[k].size,
                          rows[k].kind == K_PUT ? "put_latency" : rows[k].name, "us", us,
                          rows[k].iters);
        }
        printf("# ratios to the 8-byte put floor (%.3f us), medians:\n", put.med * 1e6);
        for (int k = 1; k < nrows; k++) {
            char sz[32];
            size_label(sz, sizeof sz, rows[k].size);
            printf("#   %s%s%s %d PEs = %.1f x put latency\n", rows[k].name,
                   rows[k].size ? " " : "", rows[k].size ? sz : "", npes, st[k].med / put.med);
        }
        free(st);
    }
    for (int k = 0; k < nrows; k++)
        free(rows[k].t);
    shmem_barrier_all();
    shmem_free(sym_dst);
    shmem_free(sym_src);
    shmem_free(max_slots);
    shmem_free(pp_slot);
#if !HAVE_TEAMS
    shmem_free(psync_arr[0]);
    shmem_free(psync_arr[1]);
    shmem_free(pwrk);
#endif
    shmem_finalize();
    return wrong || rcs ? 1 : 0;
}
