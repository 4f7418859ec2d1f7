/* isx: integer sort in the style of ISx (a bucket sort whose all-to-all key
 * exchange has messages of uneven size), with T threads per PE (configs
 * default, ctx) or T times as many single-threaded PEs (config pes).
 *
 * Ranks.  A rank is one thread of a PE (default, ctx) or one PE (pes); the
 * job has R = PEs x T ranks either way, numbered PE-major, and a rank does
 * the same work in every config.  Each rank holds K/T uniformly random keys
 * (K = -k, keys per T-threaded PE: weak scaling) in [0, R*K/T); rank g owns
 * the key range [g*K/T, (g+1)*K/T).
 *
 * An iteration, per rank: bucket the keys by owning rank (count, prefix
 * sum, scatter); exchange: for every destination rank, starting with the
 * next one, reserve space in that rank's symmetric receive buffer with
 * shmem_ctx_long_atomic_fetch_add on its counter and send the bucket there
 * with shmem_ctx_putmem_nbi (ctx: on the thread's private context, default
 * and pes: on SHMEM_CTX_DEFAULT); shmem_ctx_quiet; a barrier of all ranks
 * (pthread barrier + shmem_barrier_all); then a counting sort of the keys
 * received, the counter reset (shmem_ctx_long_atomic_set) and a barrier.
 *
 * Timing.  Per rank, exchange = from the first fetch-add to the end of the
 * barrier after the puts; total = the whole iteration, from a common start
 * to the end of the closing barrier.  A round is ITERS iterations; its
 * figure is the mean per iteration, max over ranks.  Rounds are interleaved
 * across the configs given (pes needs T times the PEs, so it normally runs
 * in a job of its own) and reported as median and min..max.
 *
 * Checking.  After the last iteration of every round (and every -c
 * iterations), every rank checks that its output is sorted and lies in its
 * own key range (so the whole is globally sorted), and the job checks that
 * the count of keys and a hash sum over them are what was sent.  Before a
 * checked iteration the receive buffers are filled with a value outside
 * every range, so stale keys cannot pass; the checks and that fill are
 * left out of the times.
 * Uses only standard OpenSHMEM 1.4 routines plus pthreads. */
#include "bench_stats.h"
#include "bench_args.h"
#include "bench_pool.h"
#include <math.h>
#include <pthread.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    printf("usage: oshrun -n N isx [options]\n"
           "ISx-style integer bucket sort: uniform random keys, bucketed by owning rank,\n"
           "an all-to-all exchange of uneven buckets (atomic fetch-add on the receiver's\n"
           "counter for the offset, then shmem_putmem_nbi), a local counting sort.\n"
           "A rank is one thread (default, ctx) or one PE (pes).  Reports the exchange\n"
           "time and the total time per iteration (ms): mean over -i iterations, max over\n"
           "ranks, median and min..max over -r rounds interleaved across configs.\n"
           "The result is checked (sorted, in range, key count and hash preserved).\n"
           "  -t, --threads T   threads per PE (default 2); under pes, the number of PEs\n"
           "                    that stand in for one T-threaded PE\n"
           "  --config LIST     comma list of default, ctx, pes (default: default,ctx;\n"
           "                    --smoke: all three).  default: T threads on\n"
           "                    SHMEM_CTX_DEFAULT; ctx: one private context per thread;\n"
           "                    pes: run with T times the PEs\n"
           "  -k KEYS           keys per T-threaded PE, K/T per rank (default 1048576)\n"
           "  -i ITERS          iterations per round (default 10)\n"
           "  -r ROUNDS         rounds (default 7)\n"
           "  -c K              also check every K-th iteration (default: last of each round)\n"
           "  --smoke           tiny run that checks every iteration\n"
           "  --csv FILE        append CSV rows (metrics isx_exchange and isx_total, ms;\n"
           "                    size = 4 bytes x keys per T-threaded PE)\n"
           "With pes, the PE count must be a multiple of T.  CSV 'threads' is T in every\n"
           "config (under pes: the T PEs that replace one PE).\n");
}

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* ---- ranks ------------------------------------------------------------- */
#define CSTRIDE 8      /* receive counters one cache line apart */
static long kr;        /* keys per rank */
static size_t cap;     /* receive capacity per rank, keys */
static uint32_t *rbuf; /* symmetric [T][cap] */
static long *rcount;   /* symmetric [T][CSTRIDE] */

struct rank {
    uint32_t *keys, *sendb, *out;
    long *cnt, *start;  /* per destination rank */
    uint32_t *hist;     /* counting sort, kr bins */
    uint64_t sent_hash; /* hash sum of this round's keys */
    long nout;          /* keys in out after the last sort */
    double t_ex, t_tot; /* this round's sums */
    long bad, chk_n, chk_iters;
    uint64_t chk_hash;
};

struct layout {
    int tl; /* ranks (threads) per PE */
    long R; /* ranks in the job */
    pthread_barrier_t wbar;
};

static struct rank *rk; /* [nthr] */

static void sync_all(struct layout *L, int tid)
{
    pthread_barrier_wait(&L->wbar);
    if (tid == 0)
        shmem_barrier_all();
    pthread_barrier_wait(&L->wbar);
}

/* ---- one round --------------------------------------------------------- */
static struct layout *cur;
static int cur_private;
static long cur_iters, cur_check_every, cur_seed;

static void job_keys(int tid)
{
    struct layout *L = cur;
    if (tid >= L->tl)
        return;
    struct rank *k = &rk[tid];
    long g = (long)me * L->tl + tid;
    uint64_t s = mix64((uint64_t)g * 0x100000001b3ull + (uint64_t)cur_seed), h = 0;
    uint64_t range = (uint64_t)L->R * (uint64_t)kr;
    for (long i = 0; i < kr; i++) {
        s = mix64(s);
        k->keys[i] = (uint32_t)(s % range);
        h += mix64(k->keys[i]);
    }
    k->sent_hash = h;
    k->t_ex = k->t_tot = 0.0;
}

/* Check rank tid's sorted output; accumulate count and hash for the
 * job-wide comparison. */
static void check_output(struct layout *L, int tid)
{
    struct rank *k = &rk[tid];
    uint64_t lo = (uint64_t)((long)me * L->tl + tid) * (uint64_t)kr, h = 0;
    long bad = 0;
    for (long i = 0; i < k->nout; i++) {
        uint32_t v = k->out[i];
        if (v < lo || v >= lo + (uint64_t)kr || (i > 0 && v < k->out[i - 1])) {
            if (bad < 3)
                fprintf(stderr, "isx: PE %d rank %ld: output[%ld] = %u (range %lu..%lu)\n", me,
                        (long)me * L->tl + tid, i, v, (unsigned long)lo,
                        (unsigned long)(lo + (uint64_t)kr - 1));
            bad++;
        }
        h += mix64(v);
    }
    k->bad += bad;
    k->chk_n += k->nout;
    k->chk_hash += h;
    k->chk_iters++;
}

/* Fill rank tid's receive buffer with a value outside every key range, so
 * a key that does not arrive is noticed. */
static void poison(int tid)
{
    memset(&rbuf[(size_t)tid * cap], 0xff, cap * sizeof(uint32_t));
}

/* check: verify this iteration's output here; poison_next: the next
 * iteration is checked.  Both are left out of this rank's times. */
static void iteration(struct layout *L, int tid, shmem_ctx_t ctx, int check, int poison_next)
{
    struct rank *k = &rk[tid];
    long R = L->R, g = (long)me * L->tl + tid;
    double t0 = now();

    memset(k->cnt, 0, (size_t)R * sizeof(long));
    for (long i = 0; i < kr; i++)
        k->cnt[k->keys[i] / (uint32_t)kr]++;
    long acc = 0;
    for (long d = 0; d < R; d++) {
        k->start[d] = acc;
        acc += k->cnt[d];
    }
    for (long i = 0; i < kr; i++) {
        uint32_t v = k->keys[i];
        k->sendb[k->start[v / (uint32_t)kr]++] = v;
    }
    for (long d = 0; d < R; d++) /* start[] now marks bucket ends */
        k->start[d] -= k->cnt[d];

    double te = now();
    for (long j = 1; j <= R; j++) {
        long d = (g + j) % R, n = k->cnt[d];
        if (n == 0)
            continue;
        int pe = (int)(d / L->tl), dt = (int)(d % L->tl);
        long off = shmem_ctx_long_atomic_fetch_add(ctx, &rcount[dt * CSTRIDE], n, pe);
        if (off < 0 || (size_t)(off + n) > cap) {
            fprintf(stderr,
                    "isx: rank %ld -> rank %ld: receive buffer overflow (%ld + %ld > "
                    "%zu keys)\n",
                    g, d, off, n, cap);
            shmem_global_exit(1);
        }
        shmem_ctx_putmem_nbi(ctx, &rbuf[(size_t)dt * cap + (size_t)off], &k->sendb[k->start[d]],
                             (size_t)n * sizeof(uint32_t), pe);
    }
    shmem_ctx_quiet(ctx);
    sync_all(L, tid);
    double te1 = now();

    long n = shmem_ctx_long_atomic_fetch(ctx, &rcount[tid * CSTRIDE], me);
    if (n < 0 || (size_t)n > cap) {
        n = 0;
        k->bad++;
    }
    const uint32_t *in = &rbuf[(size_t)tid * cap];
    uint32_t lo = (uint32_t)((uint64_t)g * (uint64_t)kr);
    memset(k->hist, 0, (size_t)kr * sizeof(uint32_t));
    for (long i = 0; i < n; i++) {
        uint32_t v = in[i] - lo; /* out of range wraps high: counted, then caught */
        if (v < (uint32_t)kr)
            k->hist[v]++;
        else
            k->bad++;
    }
    long o = 0;
    for (long v = 0; v < kr; v++)
        for (uint32_t c = k->hist[v]; c > 0; c--)
            k->out[o++] = lo + (uint32_t)v;
    k->nout = o;
    shmem_ctx_long_atomic_set(ctx, &rcount[tid * CSTRIDE], 0, me);
    shmem_ctx_quiet(ctx);
    double tu = now();
    if (check)
        check_output(L, tid);
    if (poison_next)
        poison(tid);
    tu = now() - tu;
    sync_all(L, tid);
    double t1 = now();
    k->t_ex += te1 - te;
    k->t_tot += t1 - t0 - tu;
}

static void job_round(int tid)
{
    struct layout *L = cur;
    if (tid >= L->tl)
        return;
    shmem_ctx_t ctx = cur_private ? ctxs[tid] : SHMEM_CTX_DEFAULT;
    long n = cur_iters, ce = cur_check_every;
#define CHECKED(i) ((i) == n || (ce > 0 && (i) % ce == 0))
    if (CHECKED(1))
        poison(tid);
    sync_all(L, tid);
    for (long i = 1; i <= n; i++)
        iteration(L, tid, ctx, CHECKED(i) && i != n, i < n && CHECKED(i + 1));
#undef CHECKED
    check_output(L, tid); /* the last iteration's output, outside the timer */
}

/* One round; returns exchange and total seconds per iteration, max over
 * ranks; counts check failures into *bad.  The keys depend on the rank and
 * seed only, so every config of a round sorts the same keys. */
static void round_of(int c, struct layout *L, long seed, long iters, long check_every, double *ex,
                     double *tot, long *bad)
{
    cur = L;
    cur_seed = seed;
    cur_private = c == C_CTX;
    cur_iters = iters;
    cur_check_every = check_every;
    run_job(job_keys);
    for (int t = 0; t < L->tl; t++)
        rk[t].bad = rk[t].chk_n = rk[t].chk_iters = 0, rk[t].chk_hash = 0;
    run_job(job_round);
    double mex = 0.0, mtot = 0.0;
    long lbad = 0, n = 0, iters_chk = rk[0].chk_iters;
    uint64_t hsent = 0, hgot = 0;
    for (int t = 0; t < L->tl; t++) {
        if (rk[t].t_ex > mex)
            mex = rk[t].t_ex;
        if (rk[t].t_tot > mtot)
            mtot = rk[t].t_tot;
        lbad += rk[t].bad;
        n += rk[t].chk_n;
        hgot += rk[t].chk_hash;
        hsent += rk[t].sent_hash;
    }
    *ex = max_pes(mex) / (double)iters;
    *tot = max_pes(mtot) / (double)iters;
    long gbad = sum_pes(lbad), gn = sum_pes(n);
    uint64_t gsent = (uint64_t)sum_pes((long)hsent), ggot = (uint64_t)sum_pes((long)hgot);
    long want_n = L->R * kr * iters_chk;
    uint64_t want_h = gsent * (uint64_t)iters_chk;
    if (gn != want_n || ggot != want_h) {
        if (me == 0)
            fprintf(stderr,
                    "isx: %s: %ld keys in the sorted output over %ld checked "
                    "iteration(s), want %ld; hash %s\n",
                    cfg_name[c], gn, iters_chk, want_n, ggot == want_h ? "ok" : "WRONG");
        gbad++;
    }
    *bad += gbad;
}

int main(int argc, char **argv)
{
    long keys = 1L << 20, iters = 10, rounds = 7, check_every = 0;
    int smoke = 0, have_cfg = 0, on[NCFG] = {0, 0, 0};
    const char *csv = NULL;
    const struct bench_opt opts[] = {BENCH_INT("-t", "--threads", T),
                                     BENCH_LONG("-k", NULL, keys),
                                     BENCH_LONG("-i", NULL, iters),
                                     BENCH_LONG("-r", NULL, rounds),
                                     BENCH_LONG("-c", NULL, check_every),
                                     BENCH_STR("--csv", NULL, csv),
                                     BENCH_END};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            return 0;
        } else if (!strcmp(a, "--smoke")) { /* options after it still apply */
            smoke = 1;
            keys = 1L << 14;
            iters = 3;
            rounds = 3;
            check_every = 1;
        } else if (!strcmp(a, "--config") && more) {
            if (parse_configs(argv[++i], on)) {
                fprintf(stderr, "isx: --config takes default, ctx, pes, all\n");
                return 2;
            }
            have_cfg = 1;
        } else if (!bench_take(argc, argv, &i, opts)) {
            fprintf(stderr, "isx: bad argument '%s' (try --help)\n", a);
            return 2;
        }
    }
    if (!have_cfg)
        on[C_DEFAULT] = on[C_CTX] = 1, on[C_PES] = smoke;
    if (T < 1 || T > 1024 || iters < 1 || rounds < 1 || check_every < 0 || keys < T) {
        fprintf(stderr, "isx: need 1 <= T <= 1024, iterations and rounds >= 1, keys >= T\n");
        return 2;
    }
    int threaded = on[C_DEFAULT] || on[C_CTX];
    if (pool_init("isx", on))
        return 1;
    if (pool_pes_check("isx", on, have_cfg, smoke))
        return 2;
    kr = keys / T;
    long R = (long)npes * (threaded ? T : 1);
    if ((double)R * (double)kr >= 4294967296.0) {
        if (me == 0)
            fprintf(stderr, "isx: %ld ranks x %ld keys exceed the 32-bit key range\n", R, kr);
        shmem_finalize();
        return 2;
    }
    /* Keys received by a rank: binomial, mean kr, sd below sqrt(kr). */
    cap = (size_t)kr + (size_t)(10.0 * sqrt((double)kr)) + 64;

    struct layout lay[2];
    int nlay = 0, lay_of[NCFG] = {-1, -1, -1};
    if (threaded) {
        lay[nlay].tl = T;
        lay[nlay].R = (long)npes * T;
        lay_of[C_DEFAULT] = lay_of[C_CTX] = nlay++;
    }
    if (on[C_PES]) { /* in a mixed (smoke) run, a job 1/T the size */
        lay[nlay].tl = 1;
        lay[nlay].R = npes;
        lay_of[C_PES] = nlay++;
    }
    long maxR = 0;
    for (int l = 0; l < nlay; l++) {
        pthread_barrier_init(&lay[l].wbar, NULL, (unsigned)lay[l].tl);
        if (lay[l].R > maxR)
            maxR = lay[l].R;
    }

    xslot = shmem_calloc(2 * (size_t)npes, sizeof(long));
    xout = malloc((size_t)npes * sizeof(long));
    rbuf = shmem_malloc((size_t)nthr * cap * sizeof(uint32_t));
    rcount = shmem_calloc((size_t)nthr * CSTRIDE, sizeof(long));
    ctxs = calloc((size_t)nthr, sizeof(shmem_ctx_t));
    rk = calloc((size_t)nthr, sizeof *rk);
    int fail = !xslot || !xout || !rbuf || !rcount || !ctxs || !rk;
    for (int t = 0; !fail && t < nthr; t++) {
        struct rank *k = &rk[t];
        k->keys = malloc((size_t)kr * sizeof(uint32_t));
        k->sendb = malloc((size_t)kr * sizeof(uint32_t));
        k->out = malloc(cap * sizeof(uint32_t));
        k->hist = malloc((size_t)kr * sizeof(uint32_t));
        k->cnt = malloc((size_t)maxR * sizeof(long));
        k->start = malloc((size_t)maxR * sizeof(long));
        fail |= !k->keys || !k->sendb || !k->out || !k->hist || !k->cnt || !k->start;
    }
    if (fail) {
        fprintf(stderr, "isx: PE %d: allocation failed\n", me);
        shmem_global_exit(1);
    }

    long fallbacks;
    pthread_t *tids = pool_start("isx", on[C_CTX], &fallbacks);
    shmem_barrier_all();

    int cfgs[NCFG], ncfg = 0;
    for (int c = 0; c < NCFG; c++)
        if (on[c])
            cfgs[ncfg++] = c;
    double *tex[NCFG], *ttot[NCFG];
    for (int c = 0; c < NCFG; c++) {
        tex[c] = calloc((size_t)rounds, sizeof(double));
        ttot[c] = calloc((size_t)rounds, sizeof(double));
    }

    /* Warm-up (first touch of every buffer), then interleaved rounds. */
    long errors = 0;
    double ex, tot;
    for (int k = 0; k < ncfg; k++)
        round_of(cfgs[k], &lay[lay_of[cfgs[k]]], 1000, 1, 0, &ex, &tot, &errors);
    for (long r = 0; r < rounds; r++)
        for (int k = 0; k < ncfg; k++)
            round_of(cfgs[k], &lay[lay_of[cfgs[k]]], r, iters, check_every, &tex[cfgs[k]][r],
                     &ttot[cfgs[k]][r], &errors);

    if (me == 0) {
        printf("# isx: %d PEs, T=%d, %ld keys per T-threaded PE (%ld per rank), "
               "%ld iterations x %ld rounds%s\n",
               npes, T, keys, kr, iters, rounds, smoke ? ", smoke" : "");
        if (on[C_CTX] && fallbacks)
            printf("# ctx: %ld thread(s) could not create a private context and used "
                   "SHMEM_CTX_DEFAULT\n",
                   fallbacks);
        if (on[C_PES] && threaded)
            printf("# note: pes here runs %d ranks (npes), not %d: compare pes only against "
                   "a run with npes/T PEs\n",
                   npes, npes * T);
        printf("%-8s %5s %4s %6s %12s %10s %10s %12s %10s %10s\n", "config", "PEs", "thr", "ranks",
               "exchange ms", "min", "max", "total ms", "min", "max");
        double base = on[C_DEFAULT] ? summarize(tex[C_DEFAULT], (int)rounds).med : 0.0;
        for (int k = 0; k < ncfg; k++) {
            int c = cfgs[k];
            struct stat3 e = summarize(tex[c], (int)rounds), a = summarize(ttot[c], (int)rounds);
            printf("%-8s %5d %4d %6ld %12.3f %10.3f %10.3f %12.3f %10.3f %10.3f", cfg_name[c], npes,
                   c == C_PES ? 1 : T, lay[lay_of[c]].R, e.med * 1e3, e.min * 1e3, e.max * 1e3,
                   a.med * 1e3, a.min * 1e3, a.max * 1e3);
            if (base > 0.0 && c != C_DEFAULT)
                printf("  (exchange %.2fx default)", e.med / base);
            printf("\n");
            size_t bytes = (size_t)keys * sizeof(uint32_t);
            bench_csv_row(csv, "isx", cfg_name[c], npes, T, bytes, "isx_exchange", "ms",
                          (struct stat3){e.med * 1e3, e.min * 1e3, e.max * 1e3}, iters);
            bench_csv_row(csv, "isx", cfg_name[c], npes, T, bytes, "isx_total", "ms",
                          (struct stat3){a.med * 1e3, a.min * 1e3, a.max * 1e3}, iters);
        }
        if (errors)
            fprintf(stderr, "isx: FAILED: %ld check failure(s)\n", errors);
        else
            printf("# sorted output checked after every round%s: globally sorted, key count "
                   "and hash preserved\n",
                   check_every ? " and every -c iterations" : "");
    }

    pool_stop(tids, on[C_CTX]);
    for (int l = 0; l < nlay; l++)
        pthread_barrier_destroy(&lay[l].wbar);
    for (int c = 0; c < NCFG; c++) {
        free(tex[c]);
        free(ttot[c]);
    }
    for (int t = 0; t < nthr; t++) {
        free(rk[t].keys);
        free(rk[t].sendb);
        free(rk[t].out);
        free(rk[t].hist);
        free(rk[t].cnt);
        free(rk[t].start);
    }
    free(rk);
    free(ctxs);
    free(xout);
    shmem_barrier_all();
    shmem_free(rcount);
    shmem_free(rbuf);
    shmem_free(xslot);
    shmem_finalize();
    return errors ? 1 : 0;
}
