/* halo3d: 3-D halo exchange, the communication step of a stencil code, with
 * T threads per PE (configs default, ctx) or T times as many single-threaded
 * PEs (config pes), the same problem in each.
 *
 * Problem.  The job's L logical PEs form a periodic lx*ly*lz grid (L
 * factored as cubic as possible); each owns a block of NX*NY*NZ doubles
 * with a one-cell ghost layer and has six neighbours.  An iteration packs
 * the six boundary faces, puts each into the neighbour's symmetric receive
 * buffer (shmem_putmem_nbi, double-buffered by iteration parity), and
 * unpacks the six faces that arrived into the ghost layer.
 *
 * Threads.  Under default and ctx, each face is cut into T chunks of whole
 * rows and thread t packs, puts and unpacks chunk t of all six faces (ctx:
 * on its own private context).  Under pes the job runs with L*T PEs: each
 * logical PE's block is cut along z into T slabs of NZ/T, one per PE, so
 * every PE exchanges six faces of its slab (the computation is identical;
 * the faces between slabs of one block become messages between PEs, which
 * is the cost the threaded configs avoid).
 *
 * Synchronization (--sync).  signal (default): after its puts a sender calls
 * shmem_ctx_fence and adds 1 (shmem_ctx_long_atomic_add) to a counter the
 * receiving thread (or PE) waits on with shmem_long_wait_until; one counter
 * per (face, chunk), so a thread waits only for the data it unpacks; threads
 * of a PE meet at a pthread barrier at the end of the iteration.  barrier:
 * puts, shmem_quiet, then shmem_barrier_all between the puts and the unpack.
 * (put-with-signal is OpenSHMEM 1.5; fence + atomic add is its 1.4 form.)
 *
 * Timing.  A round is ITERS iterations started right after a
 * shmem_barrier_all; a PE's time runs from the first of its threads to
 * start to the end of the last iteration, divided by ITERS, and the round's
 * figure is the maximum over PEs.  Rounds are interleaved across
 * the configs given (default,ctx in one run; pes needs L*T PEs, so it
 * normally runs in a job of its own) and reported as median and min..max.
 *
 * Checking.  Cells hold a function of their global coordinates; a packed
 * value carries the iteration number on top, so a ghost that missed an
 * update is caught.  Every ghost cell of the six faces is checked after the
 * last iteration of every round (outside the timer), and also inside the
 * timed loop, adding to the time, every -c iterations when asked.
 * Uses only standard OpenSHMEM 1.4 routines plus pthreads. */
#include "bench_stats.h"
#include "bench_args.h"
#include "bench_pool.h"
#include <pthread.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    printf("usage: oshrun -n N halo3d [options]\n"
           "3-D halo exchange on a periodic PE grid: per iteration every PE packs the six\n"
           "faces of its block, puts them to its neighbours (shmem_putmem_nbi), waits for\n"
           "its own six (--sync) and unpacks them.  Reports the time per iteration (us):\n"
           "rounds of -i iterations after a barrier, max over PEs, median and min..max\n"
           "over -r rounds interleaved across configs.  Ghost cells are checked.\n"
           "  -t, --threads T   threads per PE (default 2); under pes, the number of PEs\n"
           "                    that stand in for one T-threaded PE\n"
           "  --config LIST     comma list of default, ctx, pes (default: default,ctx;\n"
           "                    --smoke: all three).  default: T threads on\n"
           "                    SHMEM_CTX_DEFAULT; ctx: one private context per thread;\n"
           "                    pes: run with T times the PEs (block split along z)\n"
           "  -b N | NXxNYxNZ   block of doubles per (T-threaded) PE (default 64)\n"
           "  -i ITERS          iterations per round (default 500)\n"
           "  -r ROUNDS         rounds (default 7)\n"
           "  -c K              also check the ghosts every K-th iteration, inside the\n"
           "                    timed loop (adds to the time)\n"
           "  --sync MODE       signal (fence + atomic add per chunk; default) or barrier\n"
           "  --smoke           tiny run that checks every iteration\n"
           "  --csv FILE        append CSV rows (metric halo_iter, us; size = block bytes)\n"
           "With pes, the PE count must be a multiple of T.  CSV 'threads' is T in every\n"
           "config (under pes: the T PEs that replace one PE).\n");
}

static int use_signal = 1;
/* ---- the grid ---------------------------------------------------------- */
struct layout {
    int split;              /* PEs per logical block along z: 1 or T */
    int tl;                 /* threads working per PE */
    int lg[3];              /* logical grid (blocks) */
    int pg[3];              /* PE grid: lg with z times split */
    long gd[3];             /* global cells per axis */
    int n[3];               /* this layout's block */
    int c[3];               /* my grid coordinates */
    long off[3];            /* global coordinates of my block's first cell */
    int nbr[6];             /* PE across side s: -x +x -y +y -z +z */
    double *a;              /* block with ghost layer, (n+2)^3 */
    double **sbuf;          /* per thread: six chunk staging areas */
    pthread_barrier_t wbar; /* the tl working threads */
};

static int bn[3];          /* block per logical PE (-b) */
static size_t maxface;     /* largest face, elements */
static double *rbuf;       /* symmetric [2 parities][6 sides][maxface] */
static long *sig;          /* symmetric [6 sides][T chunks], one line each */
static long (*expect)[64]; /* [6][thread]: signals consumed so far (local) */
#define SIGSTRIDE 8

/* PE at grid coordinates (x, y, z) of a layout: logical blocks numbered
 * x-fastest, the split PEs of one block consecutive. */
static int pe_at(const struct layout *L, int x, int y, int z)
{
    int zl = z / L->split, s = z % L->split;
    return (x + L->lg[0] * (y + L->lg[1] * zl)) * L->split + s;
}

static double *cell(const struct layout *L, int x, int y, int z)
{
    size_t sx = (size_t)L->n[0] + 2, sy = (size_t)L->n[1] + 2;
    return L->a + ((size_t)(z + 1) * sy + (size_t)(y + 1)) * sx + (size_t)(x + 1);
}

static double fval(const struct layout *L, long gx, long gy, long gz)
{
    return (double)(gx + L->gd[0] * (gy + L->gd[1] * gz));
}

/* Face of side s as rows x columns: its axis, the axis its rows run along,
 * the axis of its columns, and the strides of both in the block. */
struct face {
    int axis, raxis, caxis, rows, cols;
    size_t rstride, cstride;
};

static struct face face_of(const struct layout *L, int s)
{
    size_t sx = (size_t)L->n[0] + 2, sxy = sx * ((size_t)L->n[1] + 2);
    struct face f;
    f.axis = s / 2;
    if (f.axis == 0) { /* x face: rows along z, columns along y */
        f.raxis = 2, f.caxis = 1, f.rstride = sxy, f.cstride = sx;
    } else if (f.axis == 1) { /* y face: rows along z, columns along x */
        f.raxis = 2, f.caxis = 0, f.rstride = sxy, f.cstride = 1;
    } else { /* z face: rows along y, columns along x */
        f.raxis = 1, f.caxis = 0, f.rstride = sx, f.cstride = 1;
    }
    f.rows = L->n[f.raxis];
    f.cols = L->n[f.caxis];
    return f;
}

static void chunk_rows(const struct layout *L, const struct face *f, int t, int *r0, int *r1)
{
    *r0 = (int)((long)f->rows * t / L->tl);
    *r1 = (int)((long)f->rows * (t + 1) / L->tl);
}

/* First cell of side s's boundary layer (ghost: the layer outside it). */
static double *face_base(const struct layout *L, int s, int ghost)
{
    int p[3] = {0, 0, 0}, ax = s / 2;
    if (s & 1)
        p[ax] = ghost ? L->n[ax] : L->n[ax] - 1;
    else
        p[ax] = ghost ? -1 : 0;
    return cell(L, p[0], p[1], p[2]);
}

/* Logical grid as cubic as possible: least a+b+c over a*b*c = n, the
 * largest factor on x (pes splits z further). */
static void factor3(int n, int g[3])
{
    int best = -1;
    for (int a = 1; a <= n; a++) {
        if (n % a)
            continue;
        for (int b = 1; b <= a; b++) {
            if ((n / a) % b)
                continue;
            int c = n / a / b;
            if (c > b)
                continue;
            if (best < 0 || a + b + c < best) {
                best = a + b + c;
                g[0] = a, g[1] = b, g[2] = c;
            }
        }
    }
}

static int setup_layout(struct layout *L, int logical_pes, int split, int tl)
{
    L->split = split;
    L->tl = tl;
    factor3(logical_pes, L->lg);
    for (int k = 0; k < 3; k++) {
        L->pg[k] = L->lg[k];
        L->n[k] = bn[k];
        L->gd[k] = (long)L->lg[k] * bn[k];
    }
    L->pg[2] *= split;
    L->n[2] /= split;
    int l = me / split;
    L->c[0] = l % L->lg[0];
    L->c[1] = l / L->lg[0] % L->lg[1];
    L->c[2] = l / (L->lg[0] * L->lg[1]) * split + me % split;
    for (int k = 0; k < 3; k++)
        L->off[k] = (long)L->c[k] * L->n[k];
    for (int s = 0; s < 6; s++) {
        int q[3] = {L->c[0], L->c[1], L->c[2]}, ax = s / 2;
        q[ax] = (q[ax] + (s & 1 ? 1 : L->pg[ax] - 1)) % L->pg[ax];
        L->nbr[s] = pe_at(L, q[0], q[1], q[2]);
    }
    size_t cells = (size_t)(L->n[0] + 2) * (size_t)(L->n[1] + 2) * (size_t)(L->n[2] + 2);
    L->a = malloc(cells * sizeof(double));
    L->sbuf = calloc((size_t)tl, sizeof(double *));
    if (!L->a || !L->sbuf)
        return -1;
    for (int t = 0; t < tl; t++)
        if (!(L->sbuf[t] = malloc(6 * maxface * sizeof(double))))
            return -1;
    for (size_t i = 0; i < cells; i++)
        L->a[i] = -1.0; /* ghosts: never a valid cell value */
    for (int z = 0; z < L->n[2]; z++)
        for (int y = 0; y < L->n[1]; y++)
            for (int x = 0; x < L->n[0]; x++)
                *cell(L, x, y, z) = fval(L, L->off[0] + x, L->off[1] + y, L->off[2] + z);
    pthread_barrier_init(&L->wbar, NULL, (unsigned)tl);
    return 0;
}

static void free_layout(struct layout *L)
{
    for (int t = 0; t < L->tl; t++)
        free(L->sbuf[t]);
    free(L->sbuf);
    free(L->a);
    pthread_barrier_destroy(&L->wbar);
}

/* ---- one round --------------------------------------------------------- */
static struct layout *cur;
static int cur_use_private;
static long cur_iters, cur_gen, cur_check_every;
static double cur_elapsed;
static long thr_errors[64];
static double thr_t0[64];

static void sync_pes(struct layout *L, int tid)
{
    pthread_barrier_wait(&L->wbar);
    if (tid == 0)
        shmem_barrier_all();
    pthread_barrier_wait(&L->wbar);
}

static double *rslot(long gen, int s)
{
    return rbuf + ((size_t)(gen & 1) * 6 + (size_t)s) * maxface;
}

/* Check thread t's chunks of the six ghost faces after iteration gen. */
static long check_ghosts(const struct layout *L, int t, long gen)
{
    long bad = 0;
    for (int s = 0; s < 6; s++) {
        struct face f = face_of(L, s);
        int r0, r1;
        chunk_rows(L, &f, t, &r0, &r1);
        const double *g = face_base(L, s, 1);
        for (int r = r0; r < r1; r++)
            for (int c = 0; c < f.cols; c++) {
                long q[3];
                q[f.axis] = s & 1 ? L->off[f.axis] + L->n[f.axis] : L->off[f.axis] - 1;
                q[f.axis] = (q[f.axis] + L->gd[f.axis]) % L->gd[f.axis];
                q[f.raxis] = L->off[f.raxis] + r;
                q[f.caxis] = L->off[f.caxis] + c;
                double want = fval(L, q[0], q[1], q[2]) + (double)gen;
                double got = g[(size_t)r * f.rstride + (size_t)c * f.cstride];
                if (got != want) {
                    if (bad < 3)
                        fprintf(stderr,
                                "halo3d: PE %d thread %d iteration %ld: ghost side %d row %d "
                                "col %d = %.17g, want %.17g\n",
                                me, t, gen, s, r, c, got, want);
                    bad++;
                }
            }
    }
    return bad;
}

static void iteration(struct layout *L, int t, shmem_ctx_t ctx, long gen, int check)
{
    double *sb = L->sbuf[t];
    const double stamp = (double)gen;
    for (int s = 0; s < 6; s++) {
        struct face f = face_of(L, s);
        int r0, r1;
        chunk_rows(L, &f, t, &r0, &r1);
        const double *src = face_base(L, s, 0);
        double *out = sb + (size_t)s * maxface;
        size_t k = 0;
        for (int r = r0; r < r1; r++) {
            const double *row = src + (size_t)r * f.rstride;
            for (int c = 0; c < f.cols; c++)
                out[k++] = row[(size_t)c * f.cstride] + stamp;
        }
        /* It lands in the neighbour's ghost on the opposite side. */
        shmem_ctx_putmem_nbi(ctx, rslot(gen, s ^ 1) + (size_t)r0 * (size_t)f.cols, out,
                             k * sizeof(double), L->nbr[s]);
    }
    if (use_signal) {
        shmem_ctx_fence(ctx);
        for (int s = 0; s < 6; s++)
            shmem_ctx_long_atomic_add(ctx, &sig[((s ^ 1) * T + t) * SIGSTRIDE], 1, L->nbr[s]);
        shmem_ctx_quiet(ctx);
    } else {
        shmem_ctx_quiet(ctx);
        sync_pes(L, t);
    }
    for (int s = 0; s < 6; s++) {
        if (use_signal)
            shmem_long_wait_until(&sig[(s * T + t) * SIGSTRIDE], SHMEM_CMP_GE, ++expect[s][t]);
        struct face f = face_of(L, s);
        int r0, r1;
        chunk_rows(L, &f, t, &r0, &r1);
        const double *in = rslot(gen, s) + (size_t)r0 * (size_t)f.cols;
        double *dst = face_base(L, s, 1);
        size_t k = 0;
        for (int r = r0; r < r1; r++) {
            double *row = dst + (size_t)r * f.rstride;
            for (int c = 0; c < f.cols; c++)
                row[(size_t)c * f.cstride] = in[k++];
        }
    }
    if (check)
        thr_errors[t] += check_ghosts(L, t, gen);
    /* Signal mode: nobody sends iteration gen+1 (into the other parity)
     * before all of this PE's threads are done with gen; that and the
     * neighbour's wait make a buffer free again two iterations later. */
    if (use_signal)
        pthread_barrier_wait(&L->wbar);
}

static void job_round(int tid)
{
    struct layout *L = cur;
    if (tid >= L->tl)
        return;
    shmem_ctx_t ctx = cur_use_private ? ctxs[tid] : SHMEM_CTX_DEFAULT;
    sync_pes(L, tid);
    /* Each thread's own start: thread 0 preempted here must not hide the
     * first iteration of the others. */
    thr_t0[tid] = now();
    for (long i = 1; i <= cur_iters; i++)
        iteration(L, tid, ctx, cur_gen + i,
                  cur_check_every > 0 && i % cur_check_every == 0 && i != cur_iters);
    if (!use_signal)
        pthread_barrier_wait(&L->wbar);
    if (tid == 0) {
        double t1 = now(), t0 = thr_t0[0];
        for (int k = 1; k < L->tl; k++)
            if (thr_t0[k] < t0)
                t0 = thr_t0[k];
        cur_elapsed = t1 - t0;
    }
    thr_errors[tid] += check_ghosts(L, tid, cur_gen + cur_iters);
}

/* One round of config c on layout L; returns seconds per iteration (max
 * over PEs).  cur_gen advances identically on every PE. */
static double round_of(int c, struct layout *L, long iters, long check_every)
{
    cur = L;
    cur_use_private = c == C_CTX;
    cur_iters = iters;
    cur_check_every = check_every;
    run_job(job_round);
    cur_gen += iters;
    return max_pes(cur_elapsed / (double)iters);
}

int main(int argc, char **argv)
{
    long iters = 500, rounds = 7, check_every = 0;
    int smoke = 0, have_cfg = 0, on[NCFG] = {0, 0, 0};
    const char *csv = NULL;
    bn[0] = bn[1] = bn[2] = 64;
    const struct bench_opt opts[] = {
        BENCH_INT("-t", "--threads", T), BENCH_LONG("-i", NULL, iters),
        BENCH_LONG("-r", NULL, rounds),  BENCH_LONG("-c", NULL, check_every),
        BENCH_STR("--csv", NULL, csv),   BENCH_END};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            return 0;
        } else if (!strcmp(a, "--smoke")) { /* options after it still apply */
            smoke = 1;
            iters = 20;
            rounds = 3;
            check_every = 1;
            bn[0] = bn[1] = bn[2] = 12;
        } else if (!strcmp(a, "--config") && more) {
            if (parse_configs(argv[++i], on)) {
                fprintf(stderr, "halo3d: --config takes default, ctx, pes, all\n");
                return 2;
            }
            have_cfg = 1;
        } else if (!strcmp(a, "-b") && more) {
            const char *v = argv[++i];
            int k = sscanf(v, "%dx%dx%d", &bn[0], &bn[1], &bn[2]);
            if (k == 1)
                bn[1] = bn[2] = bn[0];
            else if (k != 3) {
                fprintf(stderr, "halo3d: -b takes N or NXxNYxNZ\n");
                return 2;
            }
        } else if (!strcmp(a, "--sync") && more) {
            const char *v = argv[++i];
            if (!strcmp(v, "signal"))
                use_signal = 1;
            else if (!strcmp(v, "barrier"))
                use_signal = 0;
            else {
                fprintf(stderr, "halo3d: --sync takes signal or barrier\n");
                return 2;
            }
        } else if (!bench_take(argc, argv, &i, opts)) {
            fprintf(stderr, "halo3d: bad argument '%s' (try --help)\n", a);
            return 2;
        }
    }
    if (!have_cfg)
        on[C_DEFAULT] = on[C_CTX] = 1, on[C_PES] = smoke;
    if (T < 1 || T > 64 || iters < 1 || rounds < 1 || check_every < 0 || bn[0] < 1 || bn[1] < T ||
        bn[2] < T) {
        fprintf(stderr, "halo3d: need 1 <= T <= 64, iterations and rounds >= 1, block >= 1 "
                        "and NY, NZ >= T\n");
        return 2;
    }
    int threaded = on[C_DEFAULT] || on[C_CTX];
    if (pool_init("halo3d", on))
        return 1;
    if (on[C_PES] && (npes % T != 0 || bn[2] % T != 0)) {
        int skip = !have_cfg && smoke && npes % T != 0;
        if (me == 0)
            fprintf(stderr, "halo3d: pes needs the PE count and NZ to be multiples of T=%d%s\n", T,
                    skip ? "; smoke run without pes" : "");
        if (skip) {
            on[C_PES] = 0;
        } else {
            shmem_finalize();
            return 2;
        }
    }

    /* Layouts: threaded (grid of npes) and pes (grid of npes/T, split z). */
    struct layout lay[2];
    int nlay = 0, lay_of[NCFG] = {-1, -1, -1};
    xslot = shmem_calloc(2 * (size_t)npes, sizeof(long));
    xout = malloc((size_t)npes * sizeof(long));
    sig = shmem_calloc(6 * (size_t)T * SIGSTRIDE, sizeof(long));
    expect = calloc(6, sizeof *expect);
    maxface = (size_t)bn[1] * (size_t)bn[2];
    if ((size_t)bn[0] * (size_t)bn[2] > maxface)
        maxface = (size_t)bn[0] * (size_t)bn[2];
    if ((size_t)bn[0] * (size_t)bn[1] > maxface)
        maxface = (size_t)bn[0] * (size_t)bn[1];
    rbuf = shmem_malloc(12 * maxface * sizeof(double));
    ctxs = calloc((size_t)nthr, sizeof(shmem_ctx_t));
    int fail = !xslot || !xout || !sig || !expect || !rbuf || !ctxs;
    if (threaded) {
        fail |= setup_layout(&lay[nlay], npes, 1, T) != 0;
        lay_of[C_DEFAULT] = lay_of[C_CTX] = nlay++;
    }
    if (on[C_PES]) { /* in a mixed (smoke) run, a problem 1/T the size */
        fail |= setup_layout(&lay[nlay], npes / T, T, 1) != 0;
        lay_of[C_PES] = nlay++;
    }
    if (fail) {
        fprintf(stderr, "halo3d: PE %d: allocation failed\n", me);
        shmem_global_exit(1);
    }
    for (int t = 0; t < 64; t++)
        thr_errors[t] = 0;

    long fallbacks;
    pthread_t *tids = pool_start("halo3d", on[C_CTX], &fallbacks);

    int cfgs[NCFG], ncfg = 0;
    for (int c = 0; c < NCFG; c++)
        if (on[c])
            cfgs[ncfg++] = c;
    double *t[NCFG];
    for (int c = 0; c < NCFG; c++)
        t[c] = calloc((size_t)rounds, sizeof(double));

    /* Warm-up (first touch, page faults), then interleaved rounds. */
    long warm = iters / 10 + 2;
    for (int k = 0; k < ncfg; k++)
        round_of(cfgs[k], &lay[lay_of[cfgs[k]]], warm, check_every);
    for (long r = 0; r < rounds; r++)
        for (int k = 0; k < ncfg; k++)
            t[cfgs[k]][r] = round_of(cfgs[k], &lay[lay_of[cfgs[k]]], iters, check_every);

    long mine = 0;
    for (int i = 0; i < 64; i++)
        mine += thr_errors[i];
    long errors = sum_pes(mine);
    if (me == 0) {
        printf("# halo3d: %d PEs, T=%d, block %dx%dx%d doubles per T-threaded PE, "
               "%ld iterations x %ld rounds, sync=%s%s\n",
               npes, T, bn[0], bn[1], bn[2], iters, rounds,
               use_signal ? "signal (fence+atomic add)" : "barrier", smoke ? ", smoke" : "");
        if (on[C_CTX] && fallbacks)
            printf("# ctx: %ld thread(s) could not create a private context and used "
                   "SHMEM_CTX_DEFAULT\n",
                   fallbacks);
        if (on[C_PES] && threaded)
            printf("# note: pes here runs %d logical PEs (npes/T), not %d: compare pes only "
                   "against a run with npes/T PEs\n",
                   npes / T, npes);
        printf("%-8s %5s %4s %10s %12s %11s %11s %11s %9s\n", "config", "PEs", "thr", "grid",
               "block", "median us", "min us", "max us", "MB/s/PE");
        double base = on[C_DEFAULT] ? summarize(t[C_DEFAULT], (int)rounds).med : 0.0;
        for (int k = 0; k < ncfg; k++) {
            int c = cfgs[k];
            const struct layout *L = &lay[lay_of[c]];
            struct stat3 s = summarize(t[c], (int)rounds);
            char grid[32], blk[40];
            snprintf(grid, sizeof grid, "%dx%dx%d", L->pg[0], L->pg[1], L->pg[2]);
            snprintf(blk, sizeof blk, "%dx%dx%d", L->n[0], L->n[1], L->n[2]);
            double facebytes =
                2.0 * 8.0 *
                ((double)L->n[1] * L->n[2] + (double)L->n[0] * L->n[2] + (double)L->n[0] * L->n[1]);
            printf("%-8s %5d %4d %10s %12s %11.2f %11.2f %11.2f %9.0f", cfg_name[c], npes,
                   c == C_PES ? 1 : T, grid, blk, s.med * 1e6, s.min * 1e6, s.max * 1e6,
                   facebytes / s.med * 1e-6);
            if (base > 0.0 && c != C_DEFAULT)
                printf("  (%.2fx default)", s.med / base);
            printf("\n");
            bench_csv_row(csv, "halo3d", cfg_name[c], npes, T,
                          (size_t)bn[0] * (size_t)bn[1] * (size_t)bn[2] * sizeof(double),
                          "halo_iter", "us", (struct stat3){s.med * 1e6, s.min * 1e6, s.max * 1e6},
                          iters);
        }
        if (errors)
            fprintf(stderr, "halo3d: FAILED: %ld wrong ghost cells\n", errors);
        else
            printf("# ghosts checked after every round%s: all correct\n",
                   check_every ? " and every -c iterations" : "");
    }

    pool_stop(tids, on[C_CTX]);
    for (int c = 0; c < NCFG; c++)
        free(t[c]);
    for (int l = 0; l < nlay; l++)
        free_layout(&lay[l]);
    free(ctxs);
    free(expect);
    free(xout);
    shmem_barrier_all();
    shmem_free(rbuf);
    shmem_free(sig);
    shmem_free(xslot);
    shmem_finalize();
    return errors ? 1 : 0;
}
