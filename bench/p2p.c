/* p2p: point-to-point figures between PEs 0 and 1 (any other PEs only join
 * the barriers), each next to the machine's floor measured by the same
 * binary in the same run, interleaved with it.  oshrun -n 2 p2p
 *
 * For every size N (doubling from --min to --max):
 *   put latency   half round trip: shmem_putmem of N bytes, shmem_fence,
 *                 shmem_long_p of a flag; the peer polls the flag with
 *                 shmem_long_wait_until and answers the same way
 *   get latency   one blocking shmem_getmem of N bytes from PE 1 (a full
 *                 round trip on a network; PE 1 stays idle)
 *   put/get bw    COUNT shmem_putmem_nbi / shmem_getmem_nbi of N bytes
 *                 back to back, all in flight, then one shmem_quiet
 *   put rate      shmem_putmem_nbi of N bytes in windows of W, shmem_quiet
 *                 after each window; messages per second
 * and the floors:
 *   latency floor half round trip of a cache line ping-ponged between the
 *                 two processes with plain loads and stores through the
 *                 address shmem_ptr gives (no library call on the path)
 *   bw floor      memcpy of N bytes between two private buffers, COUNT
 *                 times (its copies per second are the rate floor)
 *
 * Every round visits every size and, per size, every figure in turn
 * (library, floor, library, ...), so a disturbed moment of the machine
 * lands in one round of many figures rather than in all rounds of one;
 * the median and min..max over rounds are reported, ratios of medians.
 * Every figure moves a pattern of its own (fresh per round) and the
 * receiver checks it afterwards; the latency loops also check, at every
 * step, that the last payload byte arrived before the flag.
 * Uses only standard OpenSHMEM 1.4+ routines. */
#include "bench_stats.h"
#include "bench_args.h"
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KiB ((size_t)1024)
#define MiB (KiB * KiB)

static void usage(void)
{
    printf("usage: oshrun -n 2 p2p [options]\n"
           "Point-to-point figures between PEs 0 and 1 (other PEs idle), for sizes doubling\n"
           "from --min to --max, each next to the machine's floor measured in the same run:\n"
           "  put latency  half round trip: shmem_putmem N bytes + shmem_fence + flag\n"
           "               shmem_long_p; the peer waits (shmem_long_wait_until) and answers\n"
           "  get latency  one blocking shmem_getmem of N bytes (a full round trip)\n"
           "  put/get bw   many shmem_putmem_nbi / shmem_getmem_nbi in flight, one\n"
           "               shmem_quiet at the end (GB/s)\n"
           "  put rate     shmem_putmem_nbi in windows of -w, shmem_quiet per window\n"
           "               (million messages per second)\n"
           "  floors       8-byte latency: a cache line ping-ponged between the two\n"
           "               processes by plain loads/stores through shmem_ptr (\"floor\n"
           "               unavailable\" if shmem_ptr gives NULL); bandwidth and rate:\n"
           "               memcpy of N bytes between two private buffers\n"
           "Timing: PE 0 times each loop with CLOCK_MONOTONIC between barriers.  R rounds,\n"
           "each visiting every size and figure (library and floor interleaved); median\n"
           "and min..max over rounds; ratios are library / floor medians.  All moved data\n"
           "is checked.  On one node a get of data nobody changes is served from the\n"
           "getter's cache after the first call, so it can beat the ping-pong floor.\n"
           "Options:\n"
           "  --min BYTES   smallest size (default 1; K and M suffixes allowed)\n"
           "  --max BYTES   largest size (default 4M)\n"
           "  -i ITERS      latency round trips per round up to 1 KiB, bandwidth and rate\n"
           "                transfers 4 x ITERS; fewer above 1 KiB (same bytes, at least\n"
           "                20) (default 10000)\n"
           "  -r ROUNDS     rounds (default 7)\n"
           "  -w WINDOW     messages per shmem_quiet in the rate test (default 64)\n"
           "  --csv FILE    PE 0 appends rows: put_latency, get_latency, floor_latency (us),\n"
           "                put_bw, get_bw, floor_bw (GB/s), put_rate (Mmsg/s)\n"
           "  --smoke       tiny run: sizes up to 16 KiB, 20 iterations, 3 rounds\n"
           "  -h, --help    this text\n");
}

enum fig { F_PUT_LAT, F_FLOOR_LAT, F_GET_LAT, F_PUT_BW, F_FLOOR_BW, F_GET_BW, F_RATE, NFIG };

/* Job-wide state. */
static int me, npes;
static long *flag;            /* put ping-pong flag (symmetric, own line) */
static long *line;            /* floor ping-pong line (symmetric) */
static volatile long *theirs; /* the peer's line through shmem_ptr */
static long flag_base;        /* last flag value used, equal on PEs 0, 1 */
static unsigned char *dst;    /* symmetric: puts land here */
static unsigned char *ssrc;   /* symmetric: gets read from here */
static unsigned char *src;    /* private: puts send from here */
static unsigned char *gdst;   /* private: gets land here */
static unsigned char *priv;   /* private: memcpy floor destination */
static long window = 64;
static long bad;               /* wrong bytes or steps found on this PE */
static const char *phase = ""; /* for error messages */

static unsigned char pat(long seed, int pe, size_t i)
{
    unsigned long x = (unsigned long)seed * 2654435761u + (unsigned long)pe * 40503u + i;
    return (unsigned char)(x ^ (x >> 8) ^ (x >> 17));
}

static void fill(unsigned char *b, size_t n, long seed, int pe)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pat(seed, pe, i);
}

/* Count bytes of b[0..n) that differ from the pattern, and say so. */
static void check(const unsigned char *b, size_t n, long seed, int pe, size_t size,
                  const char *what)
{
    long wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += b[i] != pat(seed, pe, i);
    if (wrong) {
        fprintf(stderr, "p2p: PE %d: %s, %s %zu B: %ld wrong byte(s)\n", me, phase, what, size,
                wrong);
        bad += wrong;
    }
}

/* Distinct for consecutive steps, so a stale byte is caught. */
static unsigned char stamp(long v)
{
    return (unsigned char)(v * 37 + 11);
}

/* Latency round trips and bandwidth transfers for size n. */
static long lat_count(long iters, size_t n)
{
    if (n <= KiB)
        return iters;
    long c = (long)((double)iters * (double)KiB / (double)n);
    return c < 20 ? 20 : c;
}

static long bw_count(long iters, size_t n)
{
    return lat_count(4 * iters, n);
}

/* Each returns PE 0's figure for one round (seconds per half round trip or
 * per get; bytes or messages per second); other PEs return 0. */

static double put_latency(size_t n, long iters, long seed)
{
    if (me <= 1)
        fill(src, n, seed, me);
    shmem_barrier_all();
    double t0 = now();
    long miss = 0;
    if (me <= 1) {
        int peer = 1 - me;
        for (long i = 1; i <= iters; i++) {
            long v = flag_base + i;
            if (me == 0) {
                src[n - 1] = stamp(v);
                shmem_putmem(dst, src, n, peer);
                shmem_fence(); /* the payload lands before the flag */
                shmem_long_p(flag, v, peer);
                shmem_long_wait_until(flag, SHMEM_CMP_EQ, v);
                miss += dst[n - 1] != stamp(v);
            } else {
                shmem_long_wait_until(flag, SHMEM_CMP_EQ, v);
                miss += dst[n - 1] != stamp(v);
                src[n - 1] = stamp(v);
                shmem_putmem(dst, src, n, peer);
                shmem_fence();
                shmem_long_p(flag, v, peer);
            }
        }
    }
    double t = (now() - t0) / (2.0 * (double)iters);
    flag_base += iters;
    shmem_barrier_all();
    if (me <= 1) {
        if (miss) {
            fprintf(stderr,
                    "p2p: PE %d: %s, put latency %zu B: %ld step(s) saw the flag "
                    "before the payload\n",
                    me, phase, n, miss);
            bad += miss;
        }
        check(dst, n - 1, seed, 1 - me, n, "put latency");
    }
    return me == 0 ? t : 0.0;
}

static double floor_latency(long iters)
{
    shmem_barrier_all();
    double t0 = now();
    if (me <= 1) {
        volatile long *mine = line;
        for (long i = 1; i <= iters; i++) {
            long v = flag_base + i;
            if (me == 0) {
                *theirs = v;
                bench_spin_until(mine, v);
            } else {
                bench_spin_until(mine, v);
                *theirs = v;
            }
        }
    }
    double t = (now() - t0) / (2.0 * (double)iters);
    flag_base += iters;
    shmem_barrier_all();
    return me == 0 ? t : 0.0;
}

static double get_latency(size_t n, long iters, long seed)
{
    if (me == 1)
        fill(ssrc, n, seed, 1);
    if (me == 0)
        memset(gdst, 0, n);
    shmem_barrier_all();
    double t = 0.0;
    if (me == 0) {
        double t0 = now();
        for (long i = 0; i < iters; i++)
            shmem_getmem(gdst, ssrc, n, 1);
        t = (now() - t0) / (double)iters;
        check(gdst, n, seed, 1, n, "get latency");
    }
    shmem_barrier_all();
    return t;
}

static double put_bw(size_t n, long count, long seed)
{
    if (me == 0)
        fill(src, n, seed, 0);
    shmem_barrier_all();
    double r = 0.0;
    if (me == 0) {
        double t0 = now();
        for (long k = 0; k < count; k++)
            shmem_putmem_nbi(dst, src, n, 1);
        shmem_quiet();
        r = (double)n * (double)count / (now() - t0);
    }
    shmem_barrier_all();
    if (me == 1)
        check(dst, n, seed, 0, n, "put bandwidth");
    return r;
}

static double get_bw(size_t n, long count, long seed)
{
    if (me == 1)
        fill(ssrc, n, seed, 1);
    if (me == 0)
        memset(gdst, 0, n);
    shmem_barrier_all();
    double r = 0.0;
    if (me == 0) {
        double t0 = now();
        for (long k = 0; k < count; k++)
            shmem_getmem_nbi(gdst, ssrc, n, 1);
        shmem_quiet();
        r = (double)n * (double)count / (now() - t0);
        check(gdst, n, seed, 1, n, "get bandwidth");
    }
    shmem_barrier_all();
    return r;
}

static double floor_bw(size_t n, long count, long seed)
{
    if (me == 0) {
        fill(src, n, seed, 0);
        memset(priv, 0, n);
    }
    shmem_barrier_all();
    double r = 0.0;
    if (me == 0) {
        double t0 = now();
        for (long k = 0; k < count; k++) {
            memcpy(priv, src, n);
#if defined(__GNUC__)
            __asm__ __volatile__("" ::: "memory"); /* keep every copy */
#endif
        }
        r = (double)n * (double)count / (now() - t0);
        check(priv, n, seed, 0, n, "memcpy floor");
    }
    shmem_barrier_all();
    return r;
}

static double put_rate(size_t n, long count, long seed)
{
    long windows = count / window > 0 ? count / window : 1;
    if (me == 0)
        fill(src, n, seed, 0);
    shmem_barrier_all();
    double r = 0.0;
    if (me == 0) {
        double t0 = now();
        for (long w = 0; w < windows; w++) {
            for (long k = 0; k < window; k++)
                shmem_putmem_nbi(dst, src, n, 1);
            shmem_quiet();
        }
        r = (double)(windows * window) / (now() - t0);
    }
    shmem_barrier_all();
    if (me == 1)
        check(dst, n, seed, 0, n, "put rate");
    return r;
}

static void size_label(char *buf, size_t len, size_t n)
{
    if (n >= MiB && n % MiB == 0)
        snprintf(buf, len, "%zu MiB", n / MiB);
    else if (n >= KiB && n % KiB == 0)
        snprintf(buf, len, "%zu KiB", n / KiB);
    else
        snprintf(buf, len, "%zu B", n);
}

/* "median [min..max]" scaled, PREC digits after the point (or, with SIG,
 * significant digits: message rates span five orders of magnitude). */
static void fmt3(char *buf, size_t len, struct stat3 s, double scale, int prec, int sig)
{
    char a[32], b[32], c[32];
    if (sig) {
        snprintf(a, sizeof a, "%.*g", prec, s.med * scale);
        snprintf(b, sizeof b, "%.*g", prec, s.min * scale);
        snprintf(c, sizeof c, "%.*g", prec, s.max * scale);
    } else {
        snprintf(a, sizeof a, "%.*f", prec, s.med * scale);
        snprintf(b, sizeof b, "%.*f", prec, s.min * scale);
        snprintf(c, sizeof c, "%.*f", prec, s.max * scale);
    }
    snprintf(buf, len, "%s [%s..%s]", a, b, c);
}

static long parse_size(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end == 'k' || *end == 'K')
        v *= 1024, end++;
    else if (*end == 'm' || *end == 'M')
        v *= 1024 * 1024, end++;
    return *end ? -1 : v;
}

int main(int argc, char **argv)
{
    long iters = 10000, rounds = 7, minsz = 1, maxsz = (long)(4 * MiB);
    int iters_set = 0, rounds_set = 0, max_set = 0, smoke = 0;
    const char *csv = NULL;
    const struct bench_opt opts[] = {BENCH_LONG("-w", NULL, window), BENCH_STR("--csv", NULL, csv),
                                     BENCH_END};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            return 0;
        } else if (!strcmp(a, "--smoke")) {
            smoke = 1;
        } else if (!strcmp(a, "-i") && more) {
            iters = atol(argv[++i]);
            iters_set = 1;
        } else if (!strcmp(a, "-r") && more) {
            rounds = atol(argv[++i]);
            rounds_set = 1;
        } else if (!strcmp(a, "--min") && more) {
            minsz = parse_size(argv[++i]);
        } else if (!strcmp(a, "--max") && more) {
            maxsz = parse_size(argv[++i]);
            max_set = 1;
        } else if (!bench_take(argc, argv, &i, opts)) {
            fprintf(stderr, "p2p: bad argument '%s' (try --help)\n", a);
            return 2;
        }
    }
    if (smoke) {
        if (!iters_set)
            iters = 20;
        if (!rounds_set)
            rounds = 3;
        if (!max_set)
            maxsz = (long)(16 * KiB);
    }
    if (iters < 1 || rounds < 1 || window < 1 || minsz < 1 || maxsz < minsz) {
        fprintf(stderr, "p2p: need -i, -r, -w >= 1 and 1 <= --min <= --max\n");
        return 2;
    }
    int nsizes = 0;
    size_t sizes[64];
    for (size_t s = (size_t)minsz; s <= (size_t)maxsz && nsizes < 64; s *= 2)
        sizes[nsizes++] = s;
    size_t maxn = sizes[nsizes - 1];

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes < 2) {
        if (me == 0)
            fprintf(stderr, "p2p: run with at least 2 PEs (oshrun -n 2)\n");
        shmem_finalize();
        return 2;
    }
    size_t alloc = (maxn + 4095) / 4096 * 4096;
    flag = shmem_calloc(16, sizeof(long)); /* 128 B: a line of its own */
    line = shmem_calloc(16, sizeof(long));
    int *fl_ok = shmem_calloc(2, sizeof(int));
    dst = shmem_align(4096, alloc);
    ssrc = shmem_align(4096, alloc);
    src = aligned_alloc(4096, alloc);
    gdst = aligned_alloc(4096, alloc);
    priv = aligned_alloc(4096, alloc);
    if (!flag || !line || !fl_ok || !dst || !ssrc || !src || !gdst || !priv) {
        fprintf(stderr, "p2p: PE %d: allocation of 5 x %zu bytes failed\n", me, alloc);
        shmem_global_exit(1);
    }
    memset(dst, 0, alloc);
    memset(ssrc, 0, alloc);
    memset(src, 0, alloc);
    memset(gdst, 0, alloc);
    memset(priv, 0, alloc);

    /* The floor needs both directions mapped, and every PE must know
     * whether it runs (it holds barriers). */
    if (me <= 1) {
        theirs = shmem_ptr(line, 1 - me);
        shmem_int_p(&fl_ok[me], theirs != NULL, 0);
    }
    shmem_barrier_all();
    int have_floor = shmem_int_g(&fl_ok[0], 0) && shmem_int_g(&fl_ok[1], 0);

    double *t[NFIG];
    for (int f = 0; f < NFIG; f++) {
        t[f] = calloc((size_t)nsizes * (size_t)rounds, sizeof(double));
        if (!t[f]) {
            fprintf(stderr, "p2p: out of memory\n");
            shmem_global_exit(1);
        }
    }

    /* Warm-up (page faults, caches, first-use set-up), data checked too;
     * then the rounds.  Seeds differ per figure, size and round. */
    for (long r = -1; r < rounds; r++) {
        phase = r < 0 ? "warm-up" : "timed round";
        for (int k = 0; k < nsizes; k++) {
            size_t n = sizes[k];
            long li = lat_count(iters, n), bi = bw_count(iters, n);
            if (r < 0) {
                li = li / 10 > 10 ? li / 10 : 10;
                bi = bi / 10 > window ? bi / 10 : window;
            }
            long seed = ((r + 1) * 64 + k) * NFIG;
            double *row[NFIG];
            double sink[NFIG];
            for (int f = 0; f < NFIG; f++)
                row[f] = r < 0 ? &sink[f] : &t[f][(size_t)k * (size_t)rounds + (size_t)r];
            *row[F_PUT_LAT] = put_latency(n, li, seed + F_PUT_LAT);
            if (have_floor) /* always 8 bytes: the same count at every size */
                *row[F_FLOOR_LAT] = floor_latency(r < 0 ? li : iters);
            *row[F_GET_LAT] = get_latency(n, li, seed + F_GET_LAT);
            *row[F_PUT_BW] = put_bw(n, bi, seed + F_PUT_BW);
            *row[F_FLOOR_BW] = floor_bw(n, bi, seed + F_FLOOR_BW);
            *row[F_GET_BW] = get_bw(n, bi, seed + F_GET_BW);
            *row[F_RATE] = put_rate(n, bi, seed + F_RATE);
        }
    }

    /* Did any PE see wrong data?  Everyone learns it, so all exit alike. */
    long *bad_all = shmem_calloc(1, sizeof(long));
    if (!bad_all)
        shmem_global_exit(1);
    shmem_barrier_all();
    if (bad)
        shmem_long_atomic_add(bad_all, bad, 0);
    shmem_barrier_all();
    long total_bad = shmem_long_g(bad_all, 0);

    if (me == 0) {
        printf("# p2p: PEs 0 and 1 of %d, %ld rounds, %ld latency iterations and %ld "
               "transfers per round up to 1 KiB (fewer above), rate window %ld%s\n",
               npes, rounds, iters, 4 * iters, window, smoke ? ", smoke" : "");
        /* The 8-byte floor was measured next to every size: pool all of it. */
        struct stat3 fl = {0, 0, 0};
        if (have_floor) {
            fl = summarize(t[F_FLOOR_LAT], nsizes * (int)rounds);
            printf("# latency floor (cache line ping-pong through shmem_ptr, half RTT, "
                   "%d samples): %.3f us [%.3f..%.3f]\n",
                   nsizes * (int)rounds, fl.med * 1e6, fl.min * 1e6, fl.max * 1e6);
            bench_csv_row(csv, "p2p", "-", npes, 1, 8, "floor_latency", "us",
                          (struct stat3){fl.med * 1e6, fl.min * 1e6, fl.max * 1e6}, iters);
        } else {
            printf("# latency floor: floor unavailable (shmem_ptr returned NULL)\n");
        }
        printf("# latency in us, median [min..max]; x floor = median / floor median\n");
        printf("%8s %28s %8s %28s %8s %7s\n", "size", "put latency (half RTT)", "x floor",
               "get latency (blocking)", "x floor", "iters");
        for (int k = 0; k < nsizes; k++) {
            size_t n = sizes[k], o = (size_t)k * (size_t)rounds;
            struct stat3 pl = summarize(t[F_PUT_LAT] + o, (int)rounds);
            struct stat3 gl = summarize(t[F_GET_LAT] + o, (int)rounds);
            char sz[32], a[112], b[112], ra[16] = "-", rb[16] = "-";
            size_label(sz, sizeof sz, n);
            fmt3(a, sizeof a, pl, 1e6, 3, 0);
            fmt3(b, sizeof b, gl, 1e6, 3, 0);
            if (have_floor) {
                snprintf(ra, sizeof ra, "%.2f", pl.med / fl.med);
                snprintf(rb, sizeof rb, "%.2f", gl.med / fl.med);
            }
            printf("%8s %28s %8s %28s %8s %7ld\n", sz, a, ra, b, rb, lat_count(iters, n));
            long li = lat_count(iters, n);
            bench_csv_row(csv, "p2p", "-", npes, 1, n, "put_latency", "us",
                          (struct stat3){pl.med * 1e6, pl.min * 1e6, pl.max * 1e6}, li);
            bench_csv_row(csv, "p2p", "-", npes, 1, n, "get_latency", "us",
                          (struct stat3){gl.med * 1e6, gl.min * 1e6, gl.max * 1e6}, li);
        }
        printf("# bandwidth in GB/s and rate in million messages/s, median [min..max];\n"
               "# x floor = library / memcpy (rate floor = memcpy copies per second)\n");
        printf("%8s %24s %24s %24s %6s %6s %24s %8s %6s\n", "size", "put bw (nbi)", "get bw (nbi)",
               "memcpy bw (floor)", "put x", "get x", "put rate Mmsg/s", "memcpy", "rate x");
        for (int k = 0; k < nsizes; k++) {
            size_t n = sizes[k], o = (size_t)k * (size_t)rounds;
            struct stat3 pb = summarize(t[F_PUT_BW] + o, (int)rounds);
            struct stat3 gb = summarize(t[F_GET_BW] + o, (int)rounds);
            struct stat3 fb = summarize(t[F_FLOOR_BW] + o, (int)rounds);
            struct stat3 pr = summarize(t[F_RATE] + o, (int)rounds);
            char sz[32], a[112], b[112], c[112], d[112];
            size_label(sz, sizeof sz, n);
            fmt3(a, sizeof a, pb, 1e-9, 2, 0);
            fmt3(b, sizeof b, gb, 1e-9, 2, 0);
            fmt3(c, sizeof c, fb, 1e-9, 2, 0);
            fmt3(d, sizeof d, pr, 1e-6, 3, 1);
            double copies = fb.med / (double)n;
            printf("%8s %24s %24s %24s %6.2f %6.2f %24s %8.3g %6.2f\n", sz, a, b, c,
                   pb.med / fb.med, gb.med / fb.med, d, copies * 1e-6, pr.med / copies);
            long bi = bw_count(iters, n);
            bench_csv_row(csv, "p2p", "-", npes, 1, n, "put_bw", "GB/s",
                          (struct stat3){pb.med * 1e-9, pb.min * 1e-9, pb.max * 1e-9}, bi);
            bench_csv_row(csv, "p2p", "-", npes, 1, n, "get_bw", "GB/s",
                          (struct stat3){gb.med * 1e-9, gb.min * 1e-9, gb.max * 1e-9}, bi);
            bench_csv_row(csv, "p2p", "-", npes, 1, n, "floor_bw", "GB/s",
                          (struct stat3){fb.med * 1e-9, fb.min * 1e-9, fb.max * 1e-9}, bi);
            bench_csv_row(csv, "p2p", "-", npes, 1, n, "put_rate", "Mmsg/s",
                          (struct stat3){pr.med * 1e-6, pr.min * 1e-6, pr.max * 1e-6},
                          bi / window * window);
        }
        if (total_bad)
            fprintf(stderr, "p2p: FAILED: %ld wrong byte(s) or step(s) in all (see above)\n",
                    total_bad);
    }
    for (int f = 0; f < NFIG; f++)
        free(t[f]);
    shmem_barrier_all();
    free(priv);
    free(gdst);
    free(src);
    shmem_free(bad_all);
    shmem_free(ssrc);
    shmem_free(dst);
    shmem_free(fl_ok);
    shmem_free(line);
    shmem_free(flag);
    shmem_finalize();
    return total_bad ? 1 : 0;
}
