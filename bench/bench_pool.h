/* The thread pool and PE-wide helpers of the hybrid benchmarks (isx,
 * mandelbrot, halo3d), header-only like bench_stats.h so that each stays
 * one source file that any implementation's oshcc builds.  Include after
 * bench_stats.h, <pthread.h> and <shmem.h>.
 *
 * Each runs its work in up to three configs: default (T threads on
 * SHMEM_CTX_DEFAULT), ctx (one private context per thread), pes (T times
 * the PEs, one thread each).  A pool of nthr threads (thread 0 is the
 * caller) runs one job at a time (run_job); PE-wide sums and maxima go by
 * puts and one barrier, apart from the operations under test. */
#ifndef SHOAL_BENCH_POOL_H
#define SHOAL_BENCH_POOL_H
#include <pthread.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { C_DEFAULT, C_CTX, C_PES, NCFG };
static const char *const cfg_name[NCFG] = {"default", "ctx", "pes"};

/* ---- job-wide state ---------------------------------------------------- */
static int me, npes, T = 2, nthr; /* nthr: threads this process runs */
static pthread_barrier_t pool_bar;
static void (*job_fn)(int);
static int job_quit;
static shmem_ctx_t *ctxs; /* per thread, for config ctx */
static int ctx_fallbacks;
static long *xslot; /* symmetric [2][npes] for the PE reductions */
static long xpar, *xout;

/* All PEs' values of v, gathered with puts and one barrier (kept apart from
 * the operations under test).  The two halves alternate so a fast PE's
 * next exchange cannot overwrite what a slow PE is still reading. */
static inline void gather_pes(long v)
{
    long *s = xslot + (xpar++ & 1) * npes;
    for (int pe = 0; pe < npes; pe++)
        shmem_long_p(&s[me], v, pe);
    shmem_barrier_all();
    memcpy(xout, s, (size_t)npes * sizeof(long));
}

static inline long sum_pes(long v)
{
    gather_pes(v);
    unsigned long s = 0; /* wraps: also used for hash sums */
    for (int pe = 0; pe < npes; pe++)
        s += (unsigned long)xout[pe];
    return (long)s;
}

static inline double max_pes(double v)
{
    long bits;
    memcpy(&bits, &v, sizeof bits);
    gather_pes(bits);
    double m = v;
    for (int pe = 0; pe < npes; pe++) {
        double x;
        memcpy(&x, &xout[pe], sizeof x);
        if (x > m)
            m = x;
    }
    return m;
}

static inline void *worker(void *arg)
{
    int tid = (int)(intptr_t)arg;
    for (;;) {
        pthread_barrier_wait(&pool_bar);
        if (job_quit)
            break;
        job_fn(tid);
        pthread_barrier_wait(&pool_bar);
    }
    return NULL;
}

static inline void run_job(void (*fn)(int))
{
    job_fn = fn;
    pthread_barrier_wait(&pool_bar);
    fn(0);
    pthread_barrier_wait(&pool_bar);
}

static inline void job_ctx_create(int tid)
{
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctxs[tid]) != 0) {
        ctxs[tid] = SHMEM_CTX_DEFAULT;
        __atomic_fetch_add(&ctx_fallbacks, 1, __ATOMIC_RELAXED);
    }
}

static inline void job_ctx_destroy(int tid)
{
    if (ctxs[tid] != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctxs[tid]);
}

/* shmem_init_thread at the level the configs need (nthr threads when
 * default or ctx is on); 0, or 1 after shmem_finalize when
 * SHMEM_THREAD_MULTIPLE is not provided (PE 0 says so). */
static inline int pool_init(const char *prog, const int *on)
{
    int threaded = on[C_DEFAULT] || on[C_CTX];
    nthr = threaded ? T : 1;
    int provided = -1;
    shmem_init_thread(threaded ? SHMEM_THREAD_MULTIPLE : SHMEM_THREAD_SINGLE, &provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (threaded && provided < SHMEM_THREAD_MULTIPLE) {
        if (me == 0)
            fprintf(stderr, "%s: SHMEM_THREAD_MULTIPLE not provided\n", prog);
        shmem_finalize();
        return 1;
    }
    return 0;
}

/* Config pes needs the PE count to be a multiple of T: 0 when it is, or
 * when a smoke run without --config drops pes (said by PE 0); else 2,
 * after shmem_finalize. */
static inline int pool_pes_check(const char *prog, int *on, int have_cfg, int smoke)
{
    if (!on[C_PES] || npes % T == 0)
        return 0;
    int skip = !have_cfg && smoke;
    if (me == 0)
        fprintf(stderr, "%s: pes needs the PE count to be a multiple of T=%d%s\n", prog, T,
                skip ? "; smoke run without pes" : "");
    if (!skip) {
        shmem_finalize();
        return 2;
    }
    on[C_PES] = 0;
    return 0;
}

/* Starts threads 1..nthr-1 (ctxs allocated; `prog` names the benchmark in
 * errors), gives every thread SHMEM_CTX_DEFAULT or, with `ctx_on`, a
 * private context; returns the thread ids and, in *fallbacks, how many
 * threads of the job fell back to SHMEM_CTX_DEFAULT (collective). */
static inline pthread_t *pool_start(const char *prog, int ctx_on, long *fallbacks)
{
    pthread_barrier_init(&pool_bar, NULL, (unsigned)nthr);
    pthread_t *tids = calloc((size_t)nthr, sizeof(pthread_t));
    for (int t = 1; t < nthr; t++)
        if (pthread_create(&tids[t], NULL, worker, (void *)(intptr_t)t) != 0) {
            fprintf(stderr, "%s: PE %d: pthread_create failed\n", prog, me);
            shmem_global_exit(1);
        }
    for (int t = 0; t < nthr; t++)
        ctxs[t] = SHMEM_CTX_DEFAULT;
    if (ctx_on)
        run_job(job_ctx_create);
    *fallbacks = sum_pes(ctx_fallbacks);
    return tids;
}

/* Destroys the private contexts (ctx_on), ends and joins the threads. */
static inline void pool_stop(pthread_t *tids, int ctx_on)
{
    if (ctx_on)
        run_job(job_ctx_destroy);
    job_quit = 1;
    pthread_barrier_wait(&pool_bar);
    for (int t = 1; t < nthr; t++)
        pthread_join(tids[t], NULL);
    pthread_barrier_destroy(&pool_bar);
    free(tids);
}

/* --config: a comma list of default, ctx, pes, all; -1 when malformed. */
static inline int parse_configs(const char *s, int *on)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int k;
        for (k = 0; k < NCFG; k++)
            if (!strcmp(tok, cfg_name[k]))
                break;
        if (k == NCFG && strcmp(tok, "all"))
            return -1;
        for (int j = 0; j < NCFG; j++)
            if (j == k || k == NCFG)
                on[j] = 1;
    }
    return 0;
}
#endif
