/* mt_latency: multi-threaded ping-pong latency, the same traffic in three
 * threading configurations (bench/README.md):
 *   default  2 PEs x T threads on SHMEM_CTX_DEFAULT (SHMEM_THREAD_MULTIPLE)
 *   ctx      2 PEs x T threads, one SHMEM_CTX_PRIVATE context per thread
 *   pes      2T single-threaded PEs: PE t stands for thread t of PE 0 and
 *            PE T + t for thread t of PE 1 (SHMEM_THREAD_SINGLE)
 *
 * Unit t (a thread, or a PE in the pes configuration) on one side
 * ping-pongs with unit t on the other, each pair on its own page-aligned
 * segment of the symmetric heap (flag, atomic word and buffer on separate
 * cache lines), so pairs share nothing but the library.  Operations:
 *   putmem  shmem_ctx_putmem of N bytes, shmem_ctx_fence, shmem_ctx_long_p
 *           of the pair's flag; the peer waits with shmem_long_wait_until
 *           and answers the same way
 *   fadd    shmem_ctx_long_atomic_fetch_add(+1) on the peer's word, which
 *           the peer waits for, then answers the same way
 *   cswap   shmem_ctx_long_atomic_compare_swap(v-1 -> v), likewise
 * Latency is half a round trip, timed by each side-0 unit around its own
 * loop; a round's figure is the mean over the T units (and their maximum).
 * Rounds interleave the configurations run in one job and the operations;
 * median and min..max over rounds.  Every step checks data: the last
 * payload byte must have arrived with the flag, every fetched value must be
 * the expected count, and after each batch the whole buffer is compared.
 * Uses only standard OpenSHMEM 1.4+ routines and pthreads. */
#include "bench_stats.h"
#include "bench_args.h"
#include <pthread.h>
#include <shmem.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SIZES 16
#define MAX_CFGS 2

static void usage(void)
{
    printf("usage: oshrun -n 2 mt_latency [--config default|ctx] [--threads T] [options]\n"
           "       oshrun -n 2T mt_latency --config pes --threads T [options]\n"
           "Multi-threaded ping-pong latency.  Thread t of PE 0 ping-pongs with thread t\n"
           "of PE 1, each pair on its own flag, atomic word and buffer:\n"
           "  putmem  shmem_ctx_putmem N bytes + shmem_ctx_fence + shmem_ctx_long_p flag;\n"
           "          the peer waits (shmem_long_wait_until) and answers the same way\n"
           "  fadd    shmem_ctx_long_atomic_fetch_add on the peer's word; it waits, answers\n"
           "  cswap   shmem_ctx_long_atomic_compare_swap, likewise\n"
           "Configurations (identical traffic):\n"
           "  default  T threads per PE on SHMEM_CTX_DEFAULT, SHMEM_THREAD_MULTIPLE\n"
           "  ctx      T threads per PE, each with its own SHMEM_CTX_PRIVATE context\n"
           "           (falls back to SHMEM_CTX_DEFAULT, and says so, if creation fails)\n"
           "  pes      2T single-threaded PEs: PE t plays thread t of PE 0, PE T+t thread\n"
           "           t of PE 1 (SHMEM_THREAD_SINGLE)\n"
           "Timing: each thread of PE 0 times its own loop (CLOCK_MONOTONIC) between\n"
           "barriers; latency = half round trip; a round's figure is the mean over threads\n"
           "(the table also shows the slowest thread).  Median and min..max over rounds;\n"
           "rounds interleave operations (and default/ctx when both run in one job).\n"
           "Data is checked at every step and after every batch.\n"
           "Options:\n"
           "  --config C    default, ctx, pes, or default,ctx (interleaved in one job);\n"
           "                without it: default,ctx on 2 PEs, pes on 2T > 2 PEs\n"
           "  --threads T   threads per PE (default 2; pes: the job's PEs / 2)\n"
           "  --sizes LIST  putmem sizes in bytes, comma-separated, 1..1048576\n"
           "                (default 8,512,4096,65536)\n"
           "  -i ITERS      round trips per round (default 10000; putmem above 4 KiB:\n"
           "                proportionally fewer, at least 20)\n"
           "  -r ROUNDS     rounds (default 7)\n"
           "  --csv FILE    PE 0 appends rows: putmem_latency, fadd_latency, cswap_latency\n"
           "                (us, mean over threads), with config and threads\n"
           "  --smoke       tiny run: sizes 8,4096, 200 iterations, 3 rounds\n"
           "  -h, --help    this text\n");
}

enum cfg { C_DEFAULT, C_CTX, C_PES };
static const char *cfg_name[] = {"default", "ctx", "pes"};
enum opkind { O_PUT, O_FADD, O_CSWAP };

struct op {
    enum opkind kind;
    size_t size;
    long iters;
};

/* Job-wide state, read-only while the threads run (except where noted). */
static int me, npes, nthreads, side, nops, ncfgs, is_pes;
static enum cfg cfgs[MAX_CFGS];
static struct op ops[MAX_SIZES + 2];
static long rounds, iters;
static unsigned char *seg_base; /* symmetric: nthreads segments */
static size_t stride;           /* bytes per segment, page multiple */
static double *res;             /* symmetric [nthreads]: side-0 times, on PE 0 */
static double *avg_t, *max_t;   /* PE 0: [cfg][op][round] */
static pthread_barrier_t pbar;
static atomic_long bad_total;    /* wrong steps/bytes found on this PE */
static atomic_int ctx_fallbacks; /* threads of this PE without a private ctx */

#define FLAG_OFF 0
#define AMO_OFF 128
#define BUF_OFF 256

static unsigned char pat(long seed, int s, size_t i)
{
    unsigned long x = (unsigned long)seed * 2654435761u + (unsigned long)s * 40503u + i;
    return (unsigned char)(x ^ (x >> 8) ^ (x >> 17));
}

/* Distinct for consecutive steps, so a stale byte is caught. */
static unsigned char stamp(long v)
{
    return (unsigned char)(v * 37 + 11);
}

/* All units of the job line up: the threads of this PE, then the PEs. */
static void sync_all(int t)
{
    if (nthreads > 1 && !is_pes)
        pthread_barrier_wait(&pbar);
    if (t == 0 || is_pes)
        shmem_barrier_all();
    if (nthreads > 1 && !is_pes)
        pthread_barrier_wait(&pbar);
}

struct unit {
    int t;    /* pair index */
    int peer; /* PE of the other side of the pair */
    unsigned char *seg, *src;
    shmem_ctx_t priv;
    int have_priv;
    long flag_base, amo_base; /* last values used; equal on both sides */
    long bad;
};

static void complain(struct unit *u, const char *what, long round, int c, const struct op *o,
                     long n)
{
    fprintf(stderr, "mt_latency: PE %d thread %d: %s %s %zu B, %s: %ld %s\n", me, u->t,
            cfg_name[cfgs[c]],
            o->kind == O_PUT    ? "putmem"
            : o->kind == O_FADD ? "fadd"
                                : "cswap",
            o->size, round < 0 ? "warm-up" : "timed round", n, what);
    u->bad += n;
}

/* One batch of op o; returns this unit's seconds per half round trip. */
static double run_op(struct unit *u, shmem_ctx_t ctx, const struct op *o, long count, long seed,
                     long round, int c)
{
    long *flag = (long *)(void *)(u->seg + FLAG_OFF);
    long *amo = (long *)(void *)(u->seg + AMO_OFF);
    unsigned char *buf = u->seg + BUF_OFF;
    size_t n = o->size;
    int peer = u->peer;
    long miss = 0;
    if (o->kind == O_PUT) {
        for (size_t i = 0; i < n; i++)
            u->src[i] = pat(seed, side, i);
        memset(buf, 0, n);
    }
    sync_all(u->t);
    double t0 = now();
    switch (o->kind) {
    case O_PUT:
        for (long i = 1; i <= count; i++) {
            long v = u->flag_base + i;
            if (side == 0) {
                u->src[n - 1] = stamp(v);
                shmem_ctx_putmem(ctx, buf, u->src, n, peer);
                shmem_ctx_fence(ctx); /* the payload lands before the flag */
                shmem_ctx_long_p(ctx, flag, v, peer);
                shmem_long_wait_until(flag, SHMEM_CMP_EQ, v);
                miss += buf[n - 1] != stamp(v);
            } else {
                shmem_long_wait_until(flag, SHMEM_CMP_EQ, v);
                miss += buf[n - 1] != stamp(v);
                u->src[n - 1] = stamp(v);
                shmem_ctx_putmem(ctx, buf, u->src, n, peer);
                shmem_ctx_fence(ctx);
                shmem_ctx_long_p(ctx, flag, v, peer);
            }
        }
        u->flag_base += count;
        break;
    case O_FADD:
    case O_CSWAP:
        /* Both words count the steps; each side moves the other's on. */
        for (long i = 1; i <= count; i++) {
            long v = u->amo_base + i, old;
            if (side == 1)
                shmem_long_wait_until(amo, SHMEM_CMP_EQ, v);
            if (o->kind == O_FADD)
                old = shmem_ctx_long_atomic_fetch_add(ctx, amo, 1, peer);
            else
                old = shmem_ctx_long_atomic_compare_swap(ctx, amo, v - 1, v, peer);
            miss += old != v - 1;
            if (side == 0)
                shmem_long_wait_until(amo, SHMEM_CMP_EQ, v);
        }
        u->amo_base += count;
        break;
    }
    double t = (now() - t0) / (2.0 * (double)count);
    if (miss)
        complain(u,
                 o->kind == O_PUT ? "step(s) saw the flag before the payload"
                                  : "fetched value(s) not the expected count",
                 round, c, o, miss);
    if (side == 0) { /* to PE 0 for the round's mean and max */
        shmem_double_p(&res[u->t], t, 0);
        shmem_quiet();
    }
    sync_all(u->t);
    if (o->kind == O_PUT) { /* the peer's whole payload, last byte stamped */
        long wrong = 0;
        for (size_t i = 0; i + 1 < n; i++)
            wrong += buf[i] != pat(seed, 1 - side, i);
        if (wrong)
            complain(u, "wrong byte(s) in the buffer", round, c, o, wrong);
    }
    return t;
}

static void *unit_main(void *arg)
{
    struct unit *u = arg;
    u->have_priv = 0;
    for (int c = 0; c < ncfgs; c++)
        if (cfgs[c] == C_CTX && !u->have_priv) {
            u->have_priv = shmem_ctx_create(SHMEM_CTX_PRIVATE, &u->priv) == 0;
            if (!u->have_priv)
                atomic_fetch_add(&ctx_fallbacks, 1);
        }
    for (long r = -1; r < rounds; r++) {
        for (int c = 0; c < ncfgs; c++) {
            shmem_ctx_t ctx = cfgs[c] == C_CTX && u->have_priv ? u->priv : SHMEM_CTX_DEFAULT;
            for (int k = 0; k < nops; k++) {
                long count = ops[k].iters;
                if (r < 0) /* warm-up: first touch, first use */
                    count = count / 10 > 10 ? count / 10 : 10;
                long seed = ((r + 1) * MAX_CFGS + c) * (MAX_SIZES + 2) + k;
                run_op(u, ctx, &ops[k], count, seed, r, c);
                /* PE 0's unit 0 reads every side-0 time (all landed before
                 * the barrier in run_op; none is rewritten before the next
                 * batch's first barrier, which this unit has not reached). */
                if (me == 0 && u->t == 0 && r >= 0) {
                    double sum = 0.0, mx = 0.0;
                    for (int i = 0; i < nthreads; i++) {
                        sum += res[i];
                        if (res[i] > mx)
                            mx = res[i];
                    }
                    size_t at = ((size_t)c * (size_t)nops + (size_t)k) * (size_t)rounds + (size_t)r;
                    avg_t[at] = sum / nthreads;
                    max_t[at] = mx;
                }
            }
        }
    }
    if (u->have_priv)
        shmem_ctx_destroy(u->priv);
    atomic_fetch_add(&bad_total, u->bad);
    return NULL;
}

static int parse_configs(const char *s)
{
    char tmp[64];
    if (strlen(s) >= sizeof tmp)
        return -1;
    strcpy(tmp, s);
    ncfgs = 0;
    for (char *tok = strtok(tmp, ","); tok; tok = strtok(NULL, ",")) {
        int found = -1;
        for (int c = 0; c < 3; c++)
            if (!strcmp(tok, cfg_name[c]))
                found = c;
        if (found < 0 || ncfgs == MAX_CFGS)
            return -1;
        for (int c = 0; c < ncfgs; c++)
            if (cfgs[c] == (enum cfg)found)
                return -1;
        cfgs[ncfgs++] = (enum cfg)found;
    }
    for (int c = 0; c < ncfgs; c++)
        if (cfgs[c] == C_PES && ncfgs > 1)
            return -1; /* pes needs its own job (2T PEs) */
    return ncfgs > 0 ? 0 : -1;
}

static int parse_sizes(const char *s, size_t *sizes)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > (1L << 20) || n == MAX_SIZES)
            return -1;
        sizes[n++] = (size_t)v;
        if (*end == ',')
            end++;
        else if (*end)
            return -1;
        p = end;
    }
    return n;
}

static void size_label(char *buf, size_t len, size_t n)
{
    if (n >= 1024 && n % 1024 == 0)
        snprintf(buf, len, "%zu KiB", n / 1024);
    else
        snprintf(buf, len, "%zu B", n);
}

int main(int argc, char **argv)
{
    const char *csv = NULL, *cfg_arg = NULL;
    size_t sizes[MAX_SIZES] = {8, 512, 4096, 65536};
    int nsizes = 4, smoke = 0, iters_set = 0, rounds_set = 0, sizes_set = 0;
    long threads_arg = 0;
    iters = 10000;
    rounds = 7;
    const struct bench_opt opts[] = {BENCH_STR("--config", NULL, cfg_arg),
                                     BENCH_STR("--csv", NULL, csv), BENCH_END};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            return 0;
        } else if (!strcmp(a, "--smoke")) {
            smoke = 1;
        } else if (!strcmp(a, "--threads") && more) {
            threads_arg = atol(argv[++i]);
            if (threads_arg < 1 || threads_arg > 1024) {
                fprintf(stderr, "mt_latency: --threads must be 1..1024\n");
                return 2;
            }
        } else if (!strcmp(a, "--sizes") && more) {
            nsizes = parse_sizes(argv[++i], sizes);
            sizes_set = 1;
            if (nsizes < 1) {
                fprintf(stderr,
                        "mt_latency: --sizes wants up to %d sizes, 1..1048576 bytes, "
                        "comma-separated\n",
                        MAX_SIZES);
                return 2;
            }
        } else if (!strcmp(a, "-i") && more) {
            iters = atol(argv[++i]);
            iters_set = 1;
        } else if (!strcmp(a, "-r") && more) {
            rounds = atol(argv[++i]);
            rounds_set = 1;
        } else if (!bench_take(argc, argv, &i, opts)) {
            fprintf(stderr, "mt_latency: bad argument '%s' (try --help)\n", a);
            return 2;
        }
    }
    if (smoke) {
        if (!iters_set)
            iters = 200;
        if (!rounds_set)
            rounds = 3;
        if (!sizes_set) {
            sizes[0] = 8;
            sizes[1] = 4096;
            nsizes = 2;
        }
    }
    if (iters < 1 || rounds < 1) {
        fprintf(stderr, "mt_latency: -i and -r must be >= 1\n");
        return 2;
    }
    if (cfg_arg && parse_configs(cfg_arg) != 0) {
        fprintf(stderr, "mt_latency: --config wants default, ctx, pes or default,ctx\n");
        return 2;
    }

    /* The configuration decides the thread level, so it is known before
     * initialization; without --config it follows from the job size,
     * which only shmem_n_pes can tell: ask SHMEM_THREAD_MULTIPLE then. */
    int provided = -1;
    int want_mt = !cfg_arg || cfgs[0] != C_PES;
    if (shmem_init_thread(want_mt ? SHMEM_THREAD_MULTIPLE : SHMEM_THREAD_SINGLE, &provided) != 0) {
        fprintf(stderr, "mt_latency: shmem_init_thread failed\n");
        return 1;
    }
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (!cfg_arg) {
        if (npes == 2) {
            cfgs[0] = C_DEFAULT;
            cfgs[1] = C_CTX;
            ncfgs = 2;
        } else {
            cfgs[0] = C_PES;
            ncfgs = 1;
        }
    }
    is_pes = cfgs[0] == C_PES;
    nthreads = (int)(threads_arg ? threads_arg : is_pes ? npes / 2 : 2);
    const char *why = NULL;
    if (is_pes && npes != 2 * nthreads)
        why = "the pes configuration needs 2T PEs (T = --threads)";
    else if (!is_pes && npes != 2)
        why = "the default and ctx configurations need exactly 2 PEs";
    else if (!is_pes && nthreads > 1 && provided < SHMEM_THREAD_MULTIPLE)
        why = "SHMEM_THREAD_MULTIPLE is not provided";
    if (why) {
        if (me == 0)
            fprintf(stderr, "mt_latency: %s (%d PEs, T = %d)\n", why, npes, nthreads);
        shmem_finalize();
        return 2;
    }

    nops = 0;
    size_t maxn = 8;
    for (int k = 0; k < nsizes; k++) {
        long c = sizes[k] <= 4096 ? iters : (long)((double)iters * 4096.0 / (double)sizes[k]);
        ops[nops++] = (struct op){O_PUT, sizes[k], c < 20 ? 20 : c};
        if (sizes[k] > maxn)
            maxn = sizes[k];
    }
    ops[nops++] = (struct op){O_FADD, sizeof(long), iters};
    ops[nops++] = (struct op){O_CSWAP, sizeof(long), iters};

    /* Every unit owns whole pages, so no two pairs share a line. */
    stride = (BUF_OFF + maxn + 4095) / 4096 * 4096;
    seg_base = shmem_align(4096, stride * (size_t)nthreads);
    res = shmem_calloc((size_t)nthreads, sizeof(double));
    long *bad_all = shmem_calloc(2, sizeof(long)); /* [0] bad, [1] ctx fallbacks */
    size_t nres = (size_t)ncfgs * (size_t)nops * (size_t)rounds;
    avg_t = calloc(nres, sizeof(double));
    max_t = calloc(nres, sizeof(double));
    if (!seg_base || !res || !bad_all || !avg_t || !max_t) {
        fprintf(stderr, "mt_latency: PE %d: allocation failed (%zu symmetric bytes)\n", me,
                stride * (size_t)nthreads);
        shmem_global_exit(1);
    }
    memset(seg_base, 0, stride * (size_t)nthreads);

    /* Which pair this PE's units belong to, and on which side. */
    int nunits = is_pes ? 1 : nthreads;
    int first_t = is_pes ? me % nthreads : 0;
    side = is_pes ? me / nthreads : me;
    struct unit *units = calloc((size_t)nunits, sizeof *units);
    pthread_t *tids = calloc((size_t)nunits, sizeof *tids);
    if (!units || !tids) {
        fprintf(stderr, "mt_latency: out of memory\n");
        shmem_global_exit(1);
    }
    for (int i = 0; i < nunits; i++) {
        struct unit *u = &units[i];
        u->t = first_t + i;
        u->peer = is_pes ? (1 - side) * nthreads + u->t : 1 - me;
        u->seg = seg_base + (size_t)u->t * stride;
        u->src = aligned_alloc(64, (maxn + 63) / 64 * 64);
        if (!u->src) {
            fprintf(stderr, "mt_latency: out of memory\n");
            shmem_global_exit(1);
        }
    }
    if (!is_pes && nthreads > 1)
        pthread_barrier_init(&pbar, NULL, (unsigned)nthreads);
    shmem_barrier_all();

    for (int i = 1; i < nunits; i++)
        if (pthread_create(&tids[i], NULL, unit_main, &units[i]) != 0) {
            fprintf(stderr, "mt_latency: PE %d: pthread_create failed\n", me);
            shmem_global_exit(1);
        }
    unit_main(&units[0]);
    for (int i = 1; i < nunits; i++)
        pthread_join(tids[i], NULL);

    long mybad = atomic_load(&bad_total);
    int myfb = atomic_load(&ctx_fallbacks);
    shmem_barrier_all();
    if (mybad)
        shmem_long_atomic_add(&bad_all[0], mybad, 0);
    if (myfb)
        shmem_long_atomic_add(&bad_all[1], myfb, 0);
    shmem_barrier_all();
    long total_bad = shmem_long_g(&bad_all[0], 0);

    if (me == 0) {
        long fallbacks = bad_all[1];
        char cl[32] = "";
        for (int c = 0; c < ncfgs; c++) {
            strcat(cl, c ? ", " : "");
            strcat(cl, cfg_name[cfgs[c]]);
        }
        static const char *lvl[] = {"SINGLE", "FUNNELED", "SERIALIZED", "MULTIPLE"};
        printf("# mt_latency: %s; %d PEs, %d %s, SHMEM_THREAD_%s; %ld rounds, %ld "
               "iterations (putmem above 4 KiB: fewer)%s\n",
               cl, npes, nthreads,
               is_pes          ? "pair(s) of single-threaded PEs"
               : nthreads == 1 ? "thread per PE"
                               : "threads per PE",
               provided >= 0 && provided <= 3 ? lvl[provided] : "?", rounds, iters,
               smoke ? ", smoke" : "");
        if (fallbacks)
            printf("# ctx: %ld thread(s) could not create a private context and used "
                   "SHMEM_CTX_DEFAULT\n",
                   fallbacks);
        printf("# latency = half round trip in us; mean over threads, and slowest thread;"
               " median [min..max] over rounds\n");
        printf("%-8s %-7s %8s %28s %28s %7s\n", "config", "op", "size", "mean over threads",
               "slowest thread", "iters");
        for (int c = 0; c < ncfgs; c++)
            for (int k = 0; k < nops; k++) {
                size_t at = ((size_t)c * (size_t)nops + (size_t)k) * (size_t)rounds;
                struct stat3 a = summarize(avg_t + at, (int)rounds);
                struct stat3 m = summarize(max_t + at, (int)rounds);
                const struct op *o = &ops[k];
                const char *name = o->kind == O_PUT    ? "putmem"
                                   : o->kind == O_FADD ? "fadd"
                                                       : "cswap";
                const char *metric = o->kind == O_PUT    ? "putmem_latency"
                                     : o->kind == O_FADD ? "fadd_latency"
                                                         : "cswap_latency";
                char sz[32], sa[112], sm[112];
                size_label(sz, sizeof sz, o->size);
                snprintf(sa, sizeof sa, "%.3f [%.3f..%.3f]", a.med * 1e6, a.min * 1e6, a.max * 1e6);
                snprintf(sm, sizeof sm, "%.3f [%.3f..%.3f]", m.med * 1e6, m.min * 1e6, m.max * 1e6);
                printf("%-8s %-7s %8s %28s %28s %7ld\n", cfg_name[cfgs[c]], name, sz, sa, sm,
                       o->iters);
                bench_csv_row(csv, "mt_latency", cfg_name[cfgs[c]], npes, nthreads, o->size, metric,
                              "us", (struct stat3){a.med * 1e6, a.min * 1e6, a.max * 1e6},
                              o->iters);
            }
        if (total_bad)
            fprintf(stderr,
                    "mt_latency: FAILED: %ld wrong step(s) or byte(s) in all "
                    "(see above)\n",
                    total_bad);
    }
    shmem_barrier_all();
    if (!is_pes && nthreads > 1)
        pthread_barrier_destroy(&pbar);
    for (int i = 0; i < nunits; i++)
        free(units[i].src);
    free(units);
    free(tids);
    free(avg_t);
    free(max_t);
    shmem_free(bad_all);
    shmem_free(res);
    shmem_free(seg_base);
    shmem_finalize();
    return total_bad ? 1 : 0;
}
