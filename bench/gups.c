/* gups: RandomAccess (GUPS) on the symmetric heap, single- or multi-threaded.
 *
 * The job holds one table of G = P x 2^K 64-bit words (P multi-threaded
 * PEs, 2^K words each), word g starting as g.  U = P x T updaters each
 * apply their own pseudo-random stream of M x G / U updates: value v picks
 * the word g = v mod G, i.e. a random PE and offset, and the update is
 * word ^= v (or += v), done in one of three ways:
 *
 *   getput   shmem_ulonglong_g, xor, shmem_ulonglong_p (not atomic: concurrent
 *            updates of one word may be lost, as HPCC allows)
 *   xor      shmem_ulonglong_atomic_xor
 *   add      shmem_ulonglong_atomic_add (word += v)
 *
 * Configurations (identical traffic): default = T threads per PE on
 * SHMEM_CTX_DEFAULT (SHMEM_THREAD_MULTIPLE); ctx = one SHMEM_CTX_PRIVATE
 * context per thread; pes = T single-threaded PEs in place of each
 * multi-threaded one (a job of P x T PEs, each holding 2^K / T words of the
 * same table, PE i running updater i's stream).
 *
 * Timing: updaters start together (pthread barrier, shmem_barrier_all for
 * PEs), each times its whole stream including the final quiet, and
 * GUP/s = all updates / time of the slowest updater.  Rows are measured in
 * R rounds, interleaved, reported as median and min..max.
 *
 * Check, after every timed run and outside it: the same streams are applied
 * again with exact atomics (xor again, or add of -v), which returns the
 * table to its start; every PE then counts its words that differ.  Atomic
 * rows must have 0 errors; getput may have up to 1% of G (the HPCC rule).
 * The words are unsigned long long rather than uint64_t because Open MPI 4.1
 * lacks shmem_uint64_atomic_add.
 * Uses only standard OpenSHMEM 1.4 routines and pthreads. */
#include "bench_stats.h"
#include "bench_args.h"
#include <pthread.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    printf("usage: oshrun -n P gups [--config default|ctx] [--threads T] [options]\n"
           "       oshrun -n PxT gups --config pes --threads T [options]\n"
           "RandomAccess (GUPS): giga-updates per second on a table of P x 2^K 64-bit\n"
           "words spread over the symmetric heaps of P PEs.  Each of the P x T updaters\n"
           "applies M x table / (P x T) pseudo-random updates (word ^= v) to random PEs and\n"
           "offsets, by one of:\n"
           "  getput  shmem_ulonglong_g + _p (not atomic; HPCC allows 1%% errors)\n"
           "  xor     shmem_ulonglong_atomic_xor (0 errors allowed)\n"
           "  add     shmem_ulonglong_atomic_add, word += v (0 errors allowed)\n"
           "Configurations: default (T threads per PE, SHMEM_CTX_DEFAULT, THREAD_MULTIPLE),\n"
           "ctx (one private context per thread), pes (T single-threaded PEs per\n"
           "multi-threaded PE, each holding 2^K/T words of the same table).\n"
           "Updaters start together; GUP/s = all updates / time of the slowest updater\n"
           "(its final quiet included); median and min..max over R interleaved rounds.\n"
           "After every run the streams are replayed with exact atomics to undo them and\n"
           "every word is checked; too many errors: exit 1.\n"
           "Options:\n"
           "  --config C    default (default), ctx or pes\n"
           "  --threads T   updater threads per PE (default 1); pes: T PEs stand for one\n"
           "                multi-threaded PE (T a power of 2 dividing the PE count)\n"
           "  -k K          2^K words per multi-threaded PE (default 20: 8 MiB)\n"
           "  -m M          updates = M x table words per round (default 4, as HPCC)\n"
           "  -r R          rounds (default 3; each is long)\n"
           "  --variants L  subset of getput,xor,add (default all)\n"
           "  --csv FILE    PE 0 appends one row per variant: metrics gups_getput,\n"
           "                gups_atomic (xor), gups_atomic_add; unit GUP/s; size_bytes =\n"
           "                table bytes per multi-threaded PE\n"
           "  --smoke       tiny run: K = 12, 2 rounds, 2 threads unless --threads/pes;\n"
           "                with threads, xor and add only unless --variants (getput's\n"
           "                intended race would fail a ThreadSanitizer build's ctest)\n");
}

enum config { CFG_DEFAULT, CFG_CTX, CFG_PES };
static const char *const cfg_name[] = {"default", "ctx", "pes"};

enum variant { V_GETPUT, V_XOR, V_ADD, NVAR };
static const char *const var_key[NVAR] = {"getput", "xor", "add"};
static const char *const var_metric[NVAR] = {"gups_getput", "gups_atomic", "gups_atomic_add"};

static int me, npes, nthreads, pes_mode;
static int local_shift;           /* log2 of the words on each PE */
static uint64_t gwords;           /* G */
static unsigned long long *table; /* symmetric, 2^local_shift words */
static long per_updater;          /* updates per updater per timed pass */
static double *slots;             /* symmetric [2][npes] for the over-PEs exchange */
static long slot_parity;

/* The pass every updater thread performs next. */
static struct {
    int stop;
    enum variant var;
    int undo; /* replay with exact atomics, untimed */
    long n;   /* updates of the stream to apply */
    long round;
} job;
static pthread_barrier_t bar_go, bar_start, bar_done;

struct thr {
    int updater;
    int use_ctx, ctx_failed;
    shmem_ctx_t ctx;
    double elapsed;
    pthread_t tid;
};

/* A value of each PE combined over all PEs (max or sum), exchanged with
 * puts and one barrier outside any timed region.  The two slot arrays
 * alternate so a fast PE's next exchange cannot overwrite values a slow PE
 * is still reading (the barrier in between orders them). */
static double over_pes(double v, int sum)
{
    double *s = slots + (slot_parity++ & 1) * npes;
    for (int pe = 0; pe < npes; pe++)
        shmem_double_p(&s[me], v, pe);
    shmem_barrier_all();
    double r = s[0];
    for (int pe = 1; pe < npes; pe++)
        r = sum ? r + s[pe] : (s[pe] > r ? s[pe] : r);
    return r;
}

/* 64-bit mixer (the splitmix64 finaliser): consecutive inputs give
 * independent-looking outputs, so update i of a stream is computed, not
 * iterated, and a replay reproduces it exactly. */
static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The updates differ between updaters and between rounds. */
static inline uint64_t stream_key(int updater, long round)
{
    return mix64(((uint64_t)round << 32) ^ (uint64_t)updater ^ 0x6a09e667f3bcc909ULL);
}

#define GOLDEN 0x9e3779b97f4a7c15ULL

/* One pass of an updater's stream.  The word index needs a modulo only
 * when G is not a power of two (a PE count that is not one). */
static void pass(struct thr *th)
{
    uint64_t key = stream_key(th->updater, job.round);
    uint64_t gmask = gwords - 1, lmask = ((uint64_t)1 << local_shift) - 1;
    int pow2 = (gwords & gmask) == 0, sh = local_shift, x = th->use_ctx;
    shmem_ctx_t c = th->ctx;
    long n = job.n;
    enum variant var = job.undo && job.var == V_GETPUT ? V_XOR : job.var;
    int minus = job.undo;
    for (long i = 0; i < n; i++) {
        uint64_t v = mix64(key + (uint64_t)i * GOLDEN);
        uint64_t g = pow2 ? v & gmask : v % gwords;
        unsigned long long *w = &table[g & lmask];
        int pe = (int)(g >> sh);
        switch (var) {
        case V_GETPUT:
            if (x)
                shmem_ctx_ulonglong_p(c, w, shmem_ctx_ulonglong_g(c, w, pe) ^ v, pe);
            else
                shmem_ulonglong_p(w, shmem_ulonglong_g(w, pe) ^ v, pe);
            break;
        case V_XOR:
            if (x)
                shmem_ctx_ulonglong_atomic_xor(c, w, v, pe);
            else
                shmem_ulonglong_atomic_xor(w, v, pe);
            break;
        default:
            if (minus)
                v = (uint64_t)0 - v;
            if (x)
                shmem_ctx_ulonglong_atomic_add(c, w, v, pe);
            else
                shmem_ulonglong_atomic_add(w, v, pe);
            break;
        }
    }
    if (x)
        shmem_ctx_quiet(c);
    else
        shmem_quiet();
}

static void run_job(struct thr *th)
{
    pthread_barrier_wait(&bar_start);
    double t0 = now();
    pass(th);
    th->elapsed = now() - t0;
    pthread_barrier_wait(&bar_done);
}

static void thread_setup(struct thr *th, enum config cfg)
{
    th->ctx = SHMEM_CTX_DEFAULT;
    th->use_ctx = 0;
    if (cfg == CFG_CTX) {
        if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &th->ctx) == 0) {
            th->use_ctx = 1;
        } else {
            th->ctx = SHMEM_CTX_DEFAULT;
            th->ctx_failed = 1;
        }
    }
}

static enum config worker_cfg;

static void *worker(void *arg)
{
    struct thr *th = arg;
    thread_setup(th, worker_cfg);
    for (;;) {
        pthread_barrier_wait(&bar_go);
        if (job.stop)
            break;
        run_job(th);
    }
    if (th->use_ctx)
        shmem_ctx_destroy(th->ctx);
    return NULL;
}

static int ilog2(uint64_t v)
{
    int l = 0;
    while (v > 1) {
        v >>= 1;
        l++;
    }
    return l;
}

int main(int argc, char **argv)
{
    const char *csv = NULL;
    int cfg = CFG_DEFAULT, threads = 0, smoke = 0, k = 20, var_mask = (1 << NVAR) - 1;
    long mult = 4, rounds = 3;
    int k_set = 0, rounds_set = 0, vars_set = 0;
    const struct bench_opt opts[] = {BENCH_LONG("-m", NULL, mult), BENCH_STR("--csv", NULL, csv),
                                     BENCH_END};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            return 0;
        } else if (!strcmp(a, "--smoke")) {
            smoke = 1;
        } else if (!strcmp(a, "--config") && more) {
            a = argv[++i];
            for (cfg = 0; cfg < 3 && strcmp(a, cfg_name[cfg]); cfg++)
                ;
            if (cfg == 3) {
                fprintf(stderr, "gups: unknown config '%s'\n", a);
                return 2;
            }
        } else if ((!strcmp(a, "--threads") || !strcmp(a, "-t")) && more) {
            threads = atoi(argv[++i]);
            if (threads < 1) {
                fprintf(stderr, "gups: --threads must be >= 1\n");
                return 2;
            }
        } else if (!strcmp(a, "-k") && more) {
            k = atoi(argv[++i]);
            k_set = 1;
        } else if (!strcmp(a, "-r") && more) {
            rounds = atol(argv[++i]);
            rounds_set = 1;
        } else if (!strcmp(a, "--variants") && more) {
            char buf[128];
            snprintf(buf, sizeof buf, "%s", argv[++i]);
            var_mask = 0;
            vars_set = 1;
            for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
                int v;
                for (v = 0; v < NVAR && strcmp(tok, var_key[v]); v++)
                    ;
                if (v == NVAR) {
                    fprintf(stderr, "gups: unknown variant '%s'\n", tok);
                    return 2;
                }
                var_mask |= 1 << v;
            }
        } else if (!bench_take(argc, argv, &i, opts)) {
            fprintf(stderr, "gups: bad argument '%s' (see --help)\n", a);
            return 2;
        }
    }
    if (smoke && !k_set)
        k = 12;
    if (smoke && !rounds_set)
        rounds = 2;
    if (smoke && !threads && cfg != CFG_PES)
        threads = 2;
    /* Threads of one process racing in getput is what the variant measures,
     * but a ThreadSanitizer build (whose ctest runs --smoke) reports it. */
    if (smoke && !vars_set && cfg != CFG_PES && threads > 1)
        var_mask &= ~(1 << V_GETPUT);
    if (k < 1 || k > 40 || mult < 1 || rounds < 1 || !var_mask) {
        fprintf(stderr, "gups: need 1 <= K <= 40, M >= 1, R >= 1\n");
        return 2;
    }
    pes_mode = cfg == CFG_PES;
    nthreads = threads ? threads : 1;

    int provided = SHMEM_THREAD_SINGLE;
    if (pes_mode)
        shmem_init();
    else
        shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int T = nthreads, local = pes_mode ? 1 : T;
    const char *err = NULL;
    if (pes_mode && ((T & (T - 1)) != 0 || npes % T != 0 || T > (1 << k)))
        err = "config pes needs T a power of 2 that divides the PE count, and 2^K >= T";
    else if (!pes_mode && T > 1 && provided != SHMEM_THREAD_MULTIPLE)
        err = "threads need SHMEM_THREAD_MULTIPLE, which this library does not provide";
    if (err) {
        if (me == 0)
            fprintf(stderr, "gups: %s\n", err);
        shmem_finalize();
        return 2;
    }
    int P = pes_mode ? npes / T : npes; /* multi-threaded PEs */
    local_shift = pes_mode ? k - ilog2((uint64_t)T) : k;
    gwords = (uint64_t)P << k;
    uint64_t updates = (uint64_t)mult * gwords;
    per_updater = (long)(updates / ((uint64_t)P * (uint64_t)T));
    updates = (uint64_t)per_updater * (uint64_t)P * (uint64_t)T;
    size_t lwords = (size_t)1 << local_shift;

    slots = shmem_calloc(2 * (size_t)npes, sizeof(double));
    table = shmem_malloc(lwords * sizeof *table);
    if (!slots || !table) {
        fprintf(stderr,
                "gups: PE %d: symmetric allocation of %zu bytes failed (raise "
                "SHMEM_SYMMETRIC_SIZE or lower -k)\n",
                me, lwords * sizeof *table);
        shmem_global_exit(1);
    }
    uint64_t base = (uint64_t)me << local_shift;
    for (size_t i = 0; i < lwords; i++)
        table[i] = base + i;

    struct thr *th = calloc((size_t)local, sizeof *th);
    if (!th) {
        fprintf(stderr, "gups: out of memory\n");
        shmem_global_exit(1);
    }
    for (int t = 0; t < local; t++)
        th[t].updater = pes_mode ? me : me * T + t;
    pthread_barrier_init(&bar_go, NULL, (unsigned)local);
    pthread_barrier_init(&bar_start, NULL, (unsigned)local);
    pthread_barrier_init(&bar_done, NULL, (unsigned)local);
    worker_cfg = (enum config)cfg;
    thread_setup(&th[0], (enum config)cfg);
    for (int t = 1; t < local; t++)
        if (pthread_create(&th[t].tid, NULL, worker, &th[t]) != 0) {
            fprintf(stderr, "gups: pthread_create failed\n");
            shmem_global_exit(1);
        }

    double *gup = calloc(NVAR * (size_t)rounds, sizeof(double)); /* GUP/s per round */
    long maxerr[NVAR] = {0}, wrong = 0;
    if (!gup) {
        fprintf(stderr, "gups: out of memory\n");
        shmem_global_exit(1);
    }
    for (long r = -1; r < rounds; r++) { /* round -1: warm-up, not reported */
        for (int v = 0; v < NVAR; v++) {
            if (!(var_mask & (1 << v)))
                continue;
            double el = 0.0;
            for (int undo = 0; undo < 2; undo++) {
                shmem_barrier_all();
                job.var = (enum variant)v;
                job.undo = undo;
                job.round = r + 1;
                /* the warm-up only needs to touch every page */
                job.n = r < 0 ? (per_updater + 7) / 8 : per_updater;
                pthread_barrier_wait(&bar_go);
                run_job(&th[0]);
                if (!undo)
                    for (int t = 0; t < local; t++)
                        el = th[t].elapsed > el ? th[t].elapsed : el;
            }
            el = over_pes(el, 0); /* its barrier also ends the undo pass */
            long bad = 0;
            for (size_t i = 0; i < lwords; i++) {
                bad += table[i] != base + i;
                table[i] = base + i; /* the next run starts from the same state */
            }
            bad = (long)over_pes((double)bad, 1);
            if (r >= 0)
                gup[v * rounds + r] = (double)updates / el * 1e-9;
            if (bad > maxerr[v])
                maxerr[v] = bad;
            double limit = v == V_GETPUT ? 0.01 * (double)gwords : 0.0;
            if ((double)bad > limit) {
                if (me == 0 && !wrong)
                    fprintf(stderr,
                            "gups: %s round %ld: %ld wrong words of %llu (allowed "
                            "%.0f)\n",
                            var_key[v], r, bad, (unsigned long long)gwords, limit);
                wrong++;
            }
        }
    }
    job.stop = 1;
    pthread_barrier_wait(&bar_go);
    for (int t = 1; t < local; t++)
        pthread_join(th[t].tid, NULL);
    if (th[0].use_ctx)
        shmem_ctx_destroy(th[0].ctx);
    int ctx_failed = 0;
    for (int t = 0; t < local; t++)
        ctx_failed += th[t].ctx_failed;
    ctx_failed = (int)over_pes((double)ctx_failed, 1);

    if (me == 0) {
        printf("# gups: config %s, %d PEs, %d updater thread%s per %sPE, %d updaters; table "
               "%llu words (%d x 2^%d, %.3g MiB per %sPE)\n",
               cfg_name[cfg], npes, T, T == 1 ? "" : "s", pes_mode ? "multi-threaded " : "", P * T,
               (unsigned long long)gwords, P, k, (double)((uint64_t)8 << k) / (1 << 20),
               pes_mode ? "multi-threaded " : "");
        if (pes_mode)
            printf("# pes: %d PEs of 2^%d words stand for each multi-threaded PE\n", T,
                   local_shift);
        if (ctx_failed)
            printf("# ctx: shmem_ctx_create(SHMEM_CTX_PRIVATE) failed on %d threads; those "
                   "used SHMEM_CTX_DEFAULT\n",
                   ctx_failed);
        printf("# %llu updates per round (%ld per updater), %ld rounds; GUP/s = updates / "
               "time of the slowest updater\n",
               (unsigned long long)updates, per_updater, rounds);
        printf("%-8s %10s %10s %10s %12s %9s\n", "variant", "GUP/s", "min", "max", "max errors",
               "% table");
        for (int v = 0; v < NVAR; v++) {
            if (!(var_mask & (1 << v)))
                continue;
            struct stat3 s = summarize(gup + v * rounds, (int)rounds);
            printf("%-8s %10.4f %10.4f %10.4f %12ld %9.4f\n", var_key[v], s.med, s.min, s.max,
                   maxerr[v], 100.0 * (double)maxerr[v] / (double)gwords);
            bench_csv_row(csv, "gups", cfg_name[cfg], npes, T, (size_t)8 << k, var_metric[v],
                          "GUP/s", s, per_updater);
        }
        if (wrong)
            printf("# verification FAILED (see above)\n");
        else
            printf("# verified after every run: %s\n",
                   var_mask & (1 << V_GETPUT) ? "atomic variants exact, getput within 1%"
                                              : "exact");
        fflush(stdout);
    }
    free(gup);
    free(th);
    pthread_barrier_destroy(&bar_go);
    pthread_barrier_destroy(&bar_start);
    pthread_barrier_destroy(&bar_done);
    shmem_barrier_all();
    shmem_free(table);
    shmem_free(slots);
    shmem_finalize();
    return wrong ? 1 : 0;
}
