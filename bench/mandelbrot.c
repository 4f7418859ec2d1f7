/* mandelbrot: the Mandelbrot set computed with dynamic load balancing
 * across PEs by work stealing through remote atomic fetch-add, with T
 * threads per PE (configs default, ctx) or T times as many single-threaded
 * PEs (config pes).
 *
 * Work.  The image (W x H pixels, iteration counts up to -m) is cut into
 * units of -u rows; the units are dealt to the PEs in contiguous ranges, and
 * every PE has a symmetric counter for its range.  Each worker (a thread
 * under default and ctx, a PE under pes) takes units from its own PE's
 * counter with shmem_ctx_long_atomic_fetch_add until the range is used up,
 * then steals from the other PEs' counters the same way, visiting them in
 * turn (each worker of a PE from a different starting PE).  The middle of
 * the image costs far more than its edges, so the PEs holding it are helped.
 * A computed unit goes to PE 0's symmetric image with shmem_ctx_putmem (on
 * the thread's private context under ctx, else on SHMEM_CTX_DEFAULT);
 * every worker ends with shmem_ctx_quiet.
 *
 * Timing.  Per image: every PE resets its counter and PE 0 fills its image
 * with -1 (untimed), a shmem_barrier_all, then the timed part: all units
 * computed, put and quieted; a PE's time runs from the first of its
 * workers to start to the last to finish, and the image's time is the
 * maximum over PEs.  A round is -i images (the sum of
 * their times); the figure is pixels per second, median and min..max over
 * -r rounds interleaved across the configs given (pes needs T times the
 * PEs, so it normally runs in a job of its own).
 *
 * Checking.  After every image PE 0 checksums its image (iteration counts
 * weighted by a hash of the pixel index) and compares it with (a) the sum
 * of the checksums every worker computed of the units it did, summed over
 * the PEs with puts (so a unit done twice or lost is caught), and (b) a
 * reference PE 0 computed serially before timing (--no-ref skips it);
 * the units done must add up to the units there are.
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
    printf("usage: oshrun -n N mandelbrot [options]\n"
           "Mandelbrot set with work stealing between PEs: units of rows dealt to the PEs,\n"
           "taken with remote atomic fetch-add on the owning PE's counter (own PE first,\n"
           "then the others), results put to PE 0's symmetric image.  Reports pixels per\n"
           "second (Mpoints/s): per image the max over PEs of the elapsed time, summed\n"
           "over -i images; median and min..max over -r rounds interleaved across configs.\n"
           "Every image is checked against per-unit checksums and a serial reference.\n"
           "  -t, --threads T   threads per PE (default 2); under pes, the number of PEs\n"
           "                    that stand in for one T-threaded PE\n"
           "  --config LIST     comma list of default, ctx, pes (default: default,ctx;\n"
           "                    --smoke: all three).  default: T threads on\n"
           "                    SHMEM_CTX_DEFAULT; ctx: one private context per thread;\n"
           "                    pes: run with T times the PEs\n"
           "  -s WxH            image size in pixels (default 1024x1024)\n"
           "  -m MAXITER        iteration limit per pixel (default 1000)\n"
           "  -u ROWS           rows per work unit (default 1)\n"
           "  -i IMAGES         images per round (default 1)\n"
           "  -r ROUNDS         rounds (default 7)\n"
           "  --no-ref          skip PE 0's serial reference image\n"
           "  --smoke           tiny image, few rounds\n"
           "  --csv FILE        append CSV rows (metric mandel_rate, Mpoints/s;\n"
           "                    size = image bytes, 4 per pixel)\n"
           "With pes, the PE count must be a multiple of T.  CSV 'threads' is T in every\n"
           "config (under pes: the T PEs that replace one PE).\n");
}

/* ---- the image --------------------------------------------------------- */
static int W = 1024, H = 1024, maxit = 1000, rows_per_unit = 1;
static long units;     /* in the image */
static int32_t *image; /* symmetric W x H; PE 0's is the result */
static long *counter;  /* symmetric: next unit of this PE's range */

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Rows [y0, y1) into out; returns their checksum. */
static uint64_t compute_rows(int y0, int y1, int32_t *out)
{
    uint64_t sum = 0;
    for (int y = y0; y < y1; y++) {
        double ci = -1.5 + 3.0 * ((double)y + 0.5) / (double)H;
        for (int x = 0; x < W; x++) {
            double cr = -2.0 + 3.0 * ((double)x + 0.5) / (double)W;
            double zr = 0.0, zi = 0.0, zr2 = 0.0, zi2 = 0.0;
            int n = 0;
            while (n < maxit && zr2 + zi2 <= 4.0) {
                zi = 2.0 * zr * zi + ci;
                zr = zr2 - zi2 + cr;
                zr2 = zr * zr;
                zi2 = zi * zi;
                n++;
            }
            *out++ = n;
            sum += ((uint64_t)n + 1) * mix64((uint64_t)y * (uint64_t)W + (uint64_t)x);
        }
    }
    return sum;
}

static uint64_t image_checksum(const int32_t *img)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < (size_t)W * (size_t)H; i++)
        sum += ((uint64_t)(uint32_t)img[i] + 1) * mix64(i);
    return sum;
}

static long range_lo(int pe)
{
    return units * pe / npes;
}

/* ---- one image --------------------------------------------------------- */
struct wstat {
    uint64_t sum;
    long own, stolen;
    double t0;
    char pad[32];
};
static struct wstat *ws; /* per thread, per image */
static int32_t **ubuf;   /* per thread: one unit's pixels */
static int cur_tl, cur_private;
static double cur_elapsed;
static pthread_barrier_t wbar[2]; /* [0]: T threads, [1]: one */

static void job_image(int tid)
{
    if (tid >= cur_tl)
        return;
    pthread_barrier_t *b = &wbar[cur_tl == 1];
    shmem_ctx_t ctx = cur_private ? ctxs[tid] : SHMEM_CTX_DEFAULT;
    struct wstat *w = &ws[tid];
    w->sum = 0;
    w->own = w->stolen = 0;
    pthread_barrier_wait(b);
    if (tid == 0)
        shmem_barrier_all();
    pthread_barrier_wait(b);
    /* Each worker's own start: a thread preempted here must not shorten
     * the time while the others work. */
    w->t0 = now();
    for (int j = 0; j < npes; j++) {
        /* Own PE first; then every other PE, each worker from a different one. */
        int v = j == 0 ? me : (me + 1 + (j - 1 + tid) % (npes - 1)) % npes;
        long n = range_lo(v + 1) - range_lo(v);
        for (;;) {
            long k = shmem_ctx_long_atomic_fetch_add(ctx, counter, 1, v);
            if (k >= n)
                break;
            long u = range_lo(v) + k;
            int y0 = (int)(u * rows_per_unit), y1 = y0 + rows_per_unit;
            if (y1 > H)
                y1 = H;
            w->sum += compute_rows(y0, y1, ubuf[tid]);
            shmem_ctx_putmem(ctx, &image[(size_t)y0 * (size_t)W], ubuf[tid],
                             (size_t)(y1 - y0) * (size_t)W * sizeof(int32_t), 0);
            if (v == me)
                w->own++;
            else
                w->stolen++;
        }
    }
    shmem_ctx_quiet(ctx);
    pthread_barrier_wait(b);
    if (tid == 0) {
        double t1 = now(), t0 = w->t0;
        for (int k = 1; k < cur_tl; k++)
            if (ws[k].t0 < t0)
                t0 = ws[k].t0;
        cur_elapsed = t1 - t0;
    }
}

/* One image under config c; returns its seconds (max over PEs) and adds
 * check failures to *bad and unit counts to own/stolen. */
static double one_image(int c, int tl, uint64_t ref, int have_ref, long *bad, long *own,
                        long *stolen)
{
    shmem_long_atomic_set(counter, 0, me);
    if (me == 0)
        for (size_t i = 0; i < (size_t)W * (size_t)H; i++)
            image[i] = -1;
    cur_tl = tl;
    cur_private = c == C_CTX;
    run_job(job_image);
    double t = max_pes(cur_elapsed);
    uint64_t s = 0;
    long o = 0, st = 0;
    for (int k = 0; k < tl; k++) {
        s += ws[k].sum;
        o += ws[k].own;
        st += ws[k].stolen;
    }
    uint64_t units_sum = (uint64_t)sum_pes((long)s);
    long go = sum_pes(o), gs = sum_pes(st);
    shmem_barrier_all(); /* the image is complete: every put was quieted */
    if (me == 0) {
        uint64_t img = image_checksum(image);
        int wrong = img != units_sum || (have_ref && img != ref) || go + gs != units;
        if (wrong) {
            fprintf(stderr,
                    "mandelbrot: %s: image checksum %016llx, units' checksums "
                    "%016llx, reference %s%016llx, units done %ld of %ld\n",
                    cfg_name[c], (unsigned long long)img, (unsigned long long)units_sum,
                    have_ref ? "" : "(none) ", (unsigned long long)ref, go + gs, units);
            (*bad)++;
        }
    }
    *own += go;
    *stolen += gs;
    return t;
}

int main(int argc, char **argv)
{
    long images = 1, rounds = 7;
    int smoke = 0, have_cfg = 0, use_ref = 1, on[NCFG] = {0, 0, 0};
    const char *csv = NULL;
    const struct bench_opt opts[] = {BENCH_INT("-t", "--threads", T),
                                     BENCH_INT("-m", NULL, maxit),
                                     BENCH_INT("-u", NULL, rows_per_unit),
                                     BENCH_LONG("-i", NULL, images),
                                     BENCH_LONG("-r", NULL, rounds),
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
            W = 160;
            H = 120;
            maxit = 200;
            rounds = 3;
            images = 1;
        } else if (!strcmp(a, "--config") && more) {
            if (parse_configs(argv[++i], on)) {
                fprintf(stderr, "mandelbrot: --config takes default, ctx, pes, all\n");
                return 2;
            }
            have_cfg = 1;
        } else if (!strcmp(a, "-s") && more) {
            if (sscanf(argv[++i], "%dx%d", &W, &H) != 2) {
                fprintf(stderr, "mandelbrot: -s takes WxH\n");
                return 2;
            }
        } else if (!strcmp(a, "--no-ref")) {
            use_ref = 0;
        } else if (!bench_take(argc, argv, &i, opts)) {
            fprintf(stderr, "mandelbrot: bad argument '%s' (try --help)\n", a);
            return 2;
        }
    }
    if (!have_cfg)
        on[C_DEFAULT] = on[C_CTX] = 1, on[C_PES] = smoke;
    if (T < 1 || T > 1024 || W < 1 || H < 1 || maxit < 1 || rows_per_unit < 1 || images < 1 ||
        rounds < 1) {
        fprintf(stderr, "mandelbrot: need 1 <= T <= 1024 and positive sizes and counts\n");
        return 2;
    }
    units = (H + rows_per_unit - 1) / rows_per_unit;
    int threaded = on[C_DEFAULT] || on[C_CTX];
    if (pool_init("mandelbrot", on))
        return 1;
    if (pool_pes_check("mandelbrot", on, have_cfg, smoke))
        return 2;

    xslot = shmem_calloc(2 * (size_t)npes, sizeof(long));
    xout = malloc((size_t)npes * sizeof(long));
    image = shmem_malloc((size_t)W * (size_t)H * sizeof(int32_t));
    counter = shmem_calloc(16, sizeof(long)); /* a line of its own */
    ctxs = calloc((size_t)nthr, sizeof(shmem_ctx_t));
    ws = calloc((size_t)nthr, sizeof *ws);
    ubuf = calloc((size_t)nthr, sizeof *ubuf);
    int fail = !xslot || !xout || !image || !counter || !ctxs || !ws || !ubuf;
    for (int t = 0; !fail && t < nthr; t++)
        fail |= !(ubuf[t] = malloc((size_t)rows_per_unit * (size_t)W * sizeof(int32_t)));
    if (fail) {
        fprintf(stderr, "mandelbrot: PE %d: allocation failed\n", me);
        shmem_global_exit(1);
    }

    /* The reference: the same pixel code, one thread, before any timing. */
    uint64_t ref = 0;
    double tref = 0.0;
    if (use_ref && me == 0) {
        int32_t *row = malloc((size_t)W * sizeof(int32_t));
        if (!row) {
            fprintf(stderr, "mandelbrot: allocation failed\n");
            shmem_global_exit(1);
        }
        tref = now();
        for (int y = 0; y < H; y++)
            ref += compute_rows(y, y + 1, row);
        tref = now() - tref;
        free(row);
    }

    pthread_barrier_init(&wbar[0], NULL, (unsigned)nthr);
    pthread_barrier_init(&wbar[1], NULL, 1);
    long fallbacks;
    pthread_t *tids = pool_start("mandelbrot", on[C_CTX], &fallbacks);

    int cfgs[NCFG], ncfg = 0;
    for (int c = 0; c < NCFG; c++)
        if (on[c])
            cfgs[ncfg++] = c;
    double *rate[NCFG];
    long own[NCFG] = {0, 0, 0}, stolen[NCFG] = {0, 0, 0}, errors = 0;
    for (int c = 0; c < NCFG; c++)
        rate[c] = calloc((size_t)rounds, sizeof(double));

    /* Warm-up image per config (page faults, first steals), then rounds. */
    for (int k = 0; k < ncfg; k++) {
        long o = 0, s = 0;
        one_image(cfgs[k], cfgs[k] == C_PES ? 1 : T, ref, use_ref, &errors, &o, &s);
    }
    for (long r = 0; r < rounds; r++)
        for (int k = 0; k < ncfg; k++) {
            int c = cfgs[k];
            double t = 0.0;
            for (long i = 0; i < images; i++)
                t += one_image(c, c == C_PES ? 1 : T, ref, use_ref, &errors, &own[c], &stolen[c]);
            rate[c][r] = (double)W * (double)H * (double)images / t;
        }
    errors = sum_pes(errors);

    if (me == 0) {
        printf("# mandelbrot: %d PEs, T=%d, %dx%d pixels, maxiter %d, %ld units of %d "
               "row(s), %ld image(s) x %ld rounds%s\n",
               npes, T, W, H, maxit, units, rows_per_unit, images, rounds, smoke ? ", smoke" : "");
        if (use_ref)
            printf("# serial reference on PE 0: %.3f s = %.2f Mpoints/s on one thread\n", tref,
                   (double)W * (double)H / tref * 1e-6);
        if (on[C_CTX] && fallbacks)
            printf("# ctx: %ld thread(s) could not create a private context and used "
                   "SHMEM_CTX_DEFAULT\n",
                   fallbacks);
        if (on[C_PES] && threaded)
            printf("# note: pes here runs %d workers (npes), not %d: compare pes only "
                   "against a run with npes/T PEs\n",
                   npes, npes * T);
        printf("%-8s %5s %4s %8s %14s %10s %10s %9s\n", "config", "PEs", "thr", "workers",
               "Mpoints/s", "min", "max", "stolen");
        double base = on[C_DEFAULT] ? summarize(rate[C_DEFAULT], (int)rounds).med : 0.0;
        for (int k = 0; k < ncfg; k++) {
            int c = cfgs[k];
            struct stat3 s = summarize(rate[c], (int)rounds);
            int workers = npes * (c == C_PES ? 1 : T);
            double sf = own[c] + stolen[c] > 0
                            ? 100.0 * (double)stolen[c] / (double)(own[c] + stolen[c])
                            : 0.0;
            printf("%-8s %5d %4d %8d %14.2f %10.2f %10.2f %8.1f%%", cfg_name[c], npes,
                   c == C_PES ? 1 : T, workers, s.med * 1e-6, s.min * 1e-6, s.max * 1e-6, sf);
            if (base > 0.0 && c != C_DEFAULT)
                printf("  (%.2fx default)", s.med / base);
            printf("\n");
            bench_csv_row(csv, "mandelbrot", cfg_name[c], npes, T,
                          (size_t)W * (size_t)H * sizeof(int32_t), "mandel_rate", "Mpoints/s",
                          (struct stat3){s.med * 1e-6, s.min * 1e-6, s.max * 1e-6}, images);
        }
        if (errors)
            fprintf(stderr, "mandelbrot: FAILED: %ld image(s) wrong\n", errors);
        else
            printf("# every image checked: matches the units' checksums%s, every unit done "
                   "once\n",
                   use_ref ? " and the serial reference" : "");
    }

    pool_stop(tids, on[C_CTX]);
    pthread_barrier_destroy(&wbar[0]);
    pthread_barrier_destroy(&wbar[1]);
    for (int c = 0; c < NCFG; c++)
        free(rate[c]);
    for (int t = 0; t < nthr; t++)
        free(ubuf[t]);
    free(ubuf);
    free(ws);
    free(ctxs);
    free(xout);
    shmem_barrier_all();
    shmem_free(counter);
    shmem_free(image);
    shmem_free(xslot);
    shmem_finalize();
    return errors ? 1 : 0;
}
