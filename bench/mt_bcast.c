/* mt_bcast: broadcast latency of Shoal's multi-threaded broadcast
 * (shmemx_team_broadcastmem_mt) with 1, 2 and 4 threads per PE, next to
 * the standard shmem_broadcastmem measured in the same job.
 *
 * Every PE runs T threads (pthreads, SHMEM_THREAD_MULTIPLE); each calls
 * shmemx_team_broadcastmem_mt(SHMEM_TEAM_WORLD, dst, src, N, 0, T, t)
 * back to back; the baseline is one thread calling shmem_broadcastmem the
 * same way.  Root: PE 0.  A batch is timed by thread 0 of PE 0 between
 * barriers (the routine returns at every PE once the data is complete
 * there, and the root once every member has pulled it); latency = batch
 * time / iterations.  Rounds interleave the variants (std, T=1, 2, 4) for
 * each size; median and min..max over rounds.  Data is checked after
 * every batch: every byte of every non-root dest must be the root's
 * pattern of that batch.
 *
 * Shoal only (shmemx.h extension); bench/run_suite.py runs it for Shoal
 * alone. */
#include "bench_stats.h"
#include "bench_args.h"
#include <pthread.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <string.h>

#define MAX_SIZES 16
#define MAX_T 4

static void usage(void)
{
    printf("usage: oshrun -n P mt_bcast [options]\n"
           "Broadcast latency (PE 0 root, SHMEM_TEAM_WORLD): shmem_broadcastmem by one\n"
           "thread (std) vs shmemx_team_broadcastmem_mt by T threads of every PE.\n"
           "Options:\n"
           "  --threads LIST  thread counts of the _mt runs (default 1,2,4; at most 4)\n"
           "  --sizes LIST    bytes, comma-separated (default 8 B .. 8 MiB, x8 steps, 1 and\n"
           "                  2 MiB included)\n"
           "  -i ITERS        broadcasts per batch for 8 B (default 2000; larger sizes:\n"
           "                  fewer, about 64 MiB moved per batch, at least 5)\n"
           "  -r ROUNDS       rounds (default 5)\n"
           "  --csv FILE      PE 0 appends rows: broadcastmem (threads 1) and\n"
           "                  broadcastmem_mt (threads T), us\n"
           "  --smoke         tiny run: sizes 8,65536,1048576, 3 rounds, few iterations\n"
           "  -h, --help      this text\n");
}

static int me, npes, nthreads_now;
static size_t sizes[MAX_SIZES];
static int nsizes, tlist[MAX_T], ntl;
static long iters8 = 2000, rounds = 5;
static unsigned char *src, *dst;
static pthread_barrier_t pbar;
static long bad;

struct batch {
    size_t n;
    long iters;
    int variant; /* 0: std; else the _mt thread count */
    double secs;
};
static struct batch cur;

static unsigned char pat(long seed, size_t i)
{
    unsigned long x = (unsigned long)seed * 2654435761u + i * 40503u;
    return (unsigned char)(x ^ (x >> 9) ^ (x >> 19));
}

static void *thread_main(void *arg)
{
    int t = (int)(long)arg;
    if (t == 0) {
        shmem_barrier_all();
        cur.secs = now();
    }
    pthread_barrier_wait(&pbar);
    for (long k = 0; k < cur.iters; k++)
        shmemx_team_broadcastmem_mt(SHMEM_TEAM_WORLD, dst, src, cur.n, 0, nthreads_now, t);
    pthread_barrier_wait(&pbar);
    if (t == 0)
        cur.secs = now() - cur.secs;
    return NULL;
}

/* One timed batch of variant v; returns seconds per broadcast (PE 0). */
static double batch(size_t n, long iters, int v, long seed)
{
    if (me == 0)
        for (size_t i = 0; i < n; i++)
            src[i] = pat(seed, i);
    memset(dst, 0, n);
    cur.n = n;
    cur.iters = iters;
    cur.variant = v;
    if (v == 0) {
        shmem_barrier_all();
        double t0 = now();
        for (long k = 0; k < iters; k++)
            shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, n, 0);
        cur.secs = now() - t0;
    } else {
        pthread_t th[MAX_T];
        nthreads_now = v;
        pthread_barrier_init(&pbar, NULL, (unsigned)v);
        for (int t = 1; t < v; t++)
            pthread_create(&th[t], NULL, thread_main, (void *)(long)t);
        thread_main((void *)0L);
        for (int t = 1; t < v; t++)
            pthread_join(th[t], NULL);
        pthread_barrier_destroy(&pbar);
    }
    for (size_t i = 0; i < n; i++)
        if (dst[i] != pat(seed, i)) {
            fprintf(stderr, "mt_bcast: PE %d: %zu B, %s T=%d: byte %zu is %#x, expected %#x\n", me,
                    n, v ? "mt" : "std", v, i, dst[i], pat(seed, i));
            bad++;
            break;
        }
    shmem_barrier_all(); /* nobody refills src while a peer still checks */
    static double s;     /* a broadcast's source is symmetric too */
    s = cur.secs;
    shmem_double_broadcast(SHMEM_TEAM_WORLD, &cur.secs, &s, 1, 0);
    return cur.secs / (double)iters;
}

static int parse_list(const char *s, long *out, int max)
{
    int n = 0;
    char *end;
    while (*s && n < max) {
        out[n++] = strtol(s, &end, 10);
        if (end == s)
            return -1;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

static int parse_args(int argc, char **argv, const char **csv)
{
    long v[MAX_SIZES];
    static const size_t dflt[] = {8, 64, 512, 4096, 32768, 262144, 1 << 20, 2 << 20, 8 << 20};
    nsizes = (int)(sizeof dflt / sizeof dflt[0]);
    memcpy(sizes, dflt, sizeof dflt);
    tlist[0] = 1, tlist[1] = 2, tlist[2] = 4, ntl = 3;
    const struct bench_opt opts[] = {BENCH_LONG("-i", NULL, iters8), BENCH_LONG("-r", NULL, rounds),
                                     BENCH_STR("--csv", NULL, *csv), BENCH_END};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (me == 0)
                usage();
            return 1;
        } else if (!strcmp(a, "--smoke")) {
            static const size_t s[] = {8, 65536, 1 << 20};
            nsizes = 3;
            memcpy(sizes, s, sizeof s);
            iters8 = 100, rounds = 3;
        } else if (!strcmp(a, "--threads") && next) {
            ntl = parse_list(argv[++i], v, MAX_T);
            for (int k = 0; k < ntl; k++)
                if (v[k] < 1 || v[k] > MAX_T)
                    ntl = -1;
            for (int k = 0; k < ntl; k++)
                tlist[k] = (int)v[k];
        } else if (!strcmp(a, "--sizes") && next) {
            nsizes = parse_list(argv[++i], v, MAX_SIZES);
            for (int k = 0; k < nsizes; k++)
                sizes[k] = (size_t)v[k];
        } else if (!bench_take(argc, argv, &i, opts)) {
            if (me == 0)
                fprintf(stderr, "mt_bcast: unknown option '%s' (see --help)\n", a);
            return 2;
        }
    }
    if (ntl < 1 || nsizes < 1 || iters8 < 1 || rounds < 1 || rounds > 64) {
        if (me == 0)
            fprintf(stderr, "mt_bcast: bad option value (see --help)\n");
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    const char *csv = NULL;
    int rc = parse_args(argc, argv, &csv);
    if (rc || provided != SHMEM_THREAD_MULTIPLE) {
        if (!rc && me == 0)
            fprintf(stderr, "mt_bcast: SHMEM_THREAD_MULTIPLE not provided\n");
        shmem_finalize();
        return rc == 1 ? 0 : 1;
    }
    size_t maxn = 8;
    for (int k = 0; k < nsizes; k++)
        maxn = sizes[k] > maxn ? sizes[k] : maxn;
    src = shmem_malloc(maxn);
    dst = shmem_malloc(maxn);
    if (me == 0)
        printf("mt_bcast: %d PEs, root PE 0, median (min..max) of %ld rounds, us per "
               "broadcast\n%10s %22s",
               npes, rounds, "bytes", "std");
    for (int k = 0; me == 0 && k < ntl; k++)
        printf("  %16s T=%d", "mt", tlist[k]);
    if (me == 0)
        printf("   T=2/T=1  T=1/std\n");
    long seed = 1;
    for (int s = 0; s < nsizes; s++) {
        size_t n = sizes[s];
        long it = (long)((64u << 20) / (n > 8 ? n : 8));
        it = it > iters8 ? iters8 : it < 5 ? 5 : it;
        double t[MAX_T + 1][64];
        batch(n, it > 20 ? 20 : it, 0, seed++); /* warm-up */
        for (int k = 0; k < ntl; k++)
            batch(n, it > 20 ? 20 : it, tlist[k], seed++);
        for (long r = 0; r < rounds; r++) {
            t[0][r] = batch(n, it, 0, seed++) * 1e6;
            for (int k = 0; k < ntl; k++)
                t[k + 1][r] = batch(n, it, tlist[k], seed++) * 1e6;
        }
        struct stat3 st[MAX_T + 1];
        for (int k = 0; k <= ntl; k++)
            st[k] = summarize(t[k], (int)rounds);
        if (me != 0)
            continue;
        printf("%10zu %9.2f (%.2f..%.2f)", n, st[0].med, st[0].min, st[0].max);
        double t1 = 0, t2 = 0;
        for (int k = 0; k < ntl; k++) {
            printf("  %7.2f (%.2f..%.2f)", st[k + 1].med, st[k + 1].min, st[k + 1].max);
            t1 = tlist[k] == 1 ? st[k + 1].med : t1;
            t2 = tlist[k] == 2 ? st[k + 1].med : t2;
        }
        if (t1 > 0 && t2 > 0)
            printf("   %7.2f", t2 / t1);
        else
            printf("   %7s", "-");
        printf("  %7.2f\n", t1 > 0 ? t1 / st[0].med : 0.0);
        if (csv) {
            bench_csv_row(csv, "mt_bcast", "-", npes, 1, n, "broadcastmem", "us", st[0], it);
            for (int k = 0; k < ntl; k++)
                bench_csv_row(csv, "mt_bcast", "-", npes, tlist[k], n, "broadcastmem_mt", "us",
                              st[k + 1], it);
        }
    }
    long all_bad = 0;
    static long bad_sym, sum_sym;
    bad_sym = bad;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &sum_sym, &bad_sym, 1);
    all_bad = sum_sym;
    if (me == 0 && all_bad)
        fprintf(stderr, "mt_bcast: %ld data errors\n", all_bad);
    shmem_free(src);
    shmem_free(dst);
    shmem_finalize();
    return all_bad ? 1 : 0;
}
