/* am_rate: aggregate active-message injection rate of T threads of PE 0
 * sending to PE 1 (Shoal's shmemx_am_*; not a standard OpenSHMEM program:
 * it builds with Shoal only).
 *
 * Traffic: each sender thread owns a SHMEM_CTX_PRIVATE context and sends N
 * messages of S bytes to PE 1, then shmemx_am_quiet on its context (every
 * message handled).  PE 1 runs T threads that poll (shmemx_am_poll) until
 * all T x N arrived; the handler counts.  Two send paths, same traffic,
 * rounds interleaved:
 *   free        shmemx_am_send as it is (the on-node path takes one atomic)
 *   serialized  every shmemx_am_send inside one process-wide mutex: the
 *               baseline of a library that serializes its send path
 * rate = T x N / (first sender's start to last sender's quiet), Mmsg/s;
 * median and min..max over R rounds.  Exit 1 if a count is wrong.
 * The "inject" line: the same runs timed to the last send's return (before
 * the quiet).  The ring holds 1024 messages, so with N well above that
 * both lines are bounded by how fast PE 1 handles: a send waits for room.
 * -n 1000 (fits the ring) times the send path alone. */
#include "bench_stats.h"
#include "bench_args.h"
#include <pthread.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_T 16
#define TAG 1

static int me, threads = 1, nsizes;
static long iters = 20000, rounds = 7;
static size_t sizes[16] = {8, 64, 224, 1024, 4096};
static const char *csv;
static long received;
static pthread_mutex_t send_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start;

static void count(int src, const void *p, size_t len, void *arg)
{
    (void)src, (void)p, (void)len, (void)arg;
    __atomic_fetch_add(&received, 1, __ATOMIC_RELAXED);
}

struct sender {
    pthread_t t;
    shmem_ctx_t ctx;
    size_t size;
    int serialized;
    double t0, t_inject, t_end; /* start, last send returned, quiet returned */
};

static void *send_main(void *p)
{
    struct sender *s = p;
    char buf[4096];
    memset(buf, 1, sizeof buf);
    pthread_barrier_wait(&start);
    s->t0 = now();
    for (long i = 0; i < iters; i++) {
        if (s->serialized)
            pthread_mutex_lock(&send_lock);
        shmemx_am_send(s->ctx, 1, TAG, buf, s->size);
        if (s->serialized)
            pthread_mutex_unlock(&send_lock);
    }
    s->t_inject = now();
    shmemx_am_quiet(s->ctx);
    s->t_end = now();
    return NULL;
}

static void *poll_main(void *p)
{
    long want = *(long *)p;
    while (__atomic_load_n(&received, __ATOMIC_RELAXED) < want)
        shmemx_am_poll();
    return NULL;
}

/* One timed run; PE 0 returns the rate (Mmsg/s) and the injection rate
 * (*inject: sends only, before the quiet), PE 1 0. */
static double run(struct sender *s, size_t size, int serialized, double *inject)
{
    pthread_t poll_t[MAX_T];
    long want = iters * threads;
    __atomic_store_n(&received, 0, __ATOMIC_RELAXED);
    shmem_barrier_all();
    double rate = 0;
    if (me == 0) {
        for (int i = 0; i < threads; i++) {
            s[i].size = size;
            s[i].serialized = serialized;
            pthread_create(&s[i].t, NULL, send_main, &s[i]);
        }
        /* The span from the first sender's start to the last one's end:
         * with more threads than free cores a sender may only start once
         * another finished, and per-thread times would then add up rates
         * that never ran at the same time. */
        double t0 = 1e300, t_inj = 0, t_end = 0;
        for (int i = 0; i < threads; i++) {
            pthread_join(s[i].t, NULL);
            t0 = s[i].t0 < t0 ? s[i].t0 : t0;
            t_inj = s[i].t_inject > t_inj ? s[i].t_inject : t_inj;
            t_end = s[i].t_end > t_end ? s[i].t_end : t_end;
        }
        rate = (double)want / (t_end - t0) * 1e-6;
        *inject = (double)want / (t_inj - t0) * 1e-6;
    } else if (me == 1) {
        for (int i = 0; i < threads; i++)
            pthread_create(&poll_t[i], NULL, poll_main, &want);
        for (int i = 0; i < threads; i++)
            pthread_join(poll_t[i], NULL);
        if (received != want) {
            fprintf(stderr, "am_rate: PE 1 got %ld messages, expected %ld\n", received, want);
            exit(1);
        }
    }
    shmem_barrier_all();
    return rate;
}

static void usage(void)
{
    printf("usage: oshrun -n 2 am_rate [--threads T] [-s SIZES] [-n N] [-r R] [--csv FILE] "
           "[--smoke]\n"
           "Active-message rate of T sender threads of PE 0 (one private context each) to\n"
           "PE 1 (T polling threads), Mmsg/s, next to the same traffic with every send\n"
           "inside one mutex (serialized).  Sizes up to 4096 bytes (default 8,64,224,1024,\n"
           "4096); N messages per thread (default 20000); R rounds (default 7).\n");
}

int main(int argc, char **argv)
{
    int smoke = 0, provided;
    const struct bench_opt opts[] = {BENCH_INT("--threads", NULL, threads),
                                     BENCH_LONG("-n", NULL, iters), BENCH_LONG("-r", NULL, rounds),
                                     BENCH_STR("--csv", NULL, csv), BENCH_END};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage();
            return 0;
        } else if (!strcmp(a, "--smoke")) {
            smoke = 1;
        } else if (!strcmp(a, "-s") && more) {
            nsizes = 0;
            for (char *t = strtok(argv[++i], ","); t && nsizes < 16; t = strtok(NULL, ","))
                sizes[nsizes++] = (size_t)atol(t);
        } else if (!bench_take(argc, argv, &i, opts)) {
            fprintf(stderr, "am_rate: unknown argument '%s' (--help)\n", a);
            return 2;
        }
    }
    if (!nsizes)
        nsizes = 5;
    if (smoke) {
        iters = 500, rounds = 2, nsizes = 2;
    }
    if (threads < 1 || threads > MAX_T) {
        fprintf(stderr, "am_rate: --threads must be 1..%d\n", MAX_T);
        return 2;
    }
    for (int k = 0; k < nsizes; k++)
        if (sizes[k] > 4096) {
            fprintf(stderr, "am_rate: sizes up to 4096 bytes\n");
            return 2;
        }
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    if (shmem_n_pes() < 2 || provided != SHMEM_THREAD_MULTIPLE) {
        if (me == 0)
            fprintf(stderr, "am_rate: needs 2 PEs and SHMEM_THREAD_MULTIPLE\n");
        shmem_finalize();
        return 2;
    }
    shmemx_am_register(TAG, count, NULL);
    struct sender s[MAX_T];
    memset(s, 0, sizeof s);
    if (me == 0)
        for (int i = 0; i < threads; i++)
            if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &s[i].ctx) != 0)
                s[i].ctx = SHMEM_CTX_DEFAULT;
    pthread_barrier_init(&start, NULL, (unsigned)threads);
    if (me == 0)
        printf("# am_rate: T=%d sender threads, %ld messages each, %ld rounds (Mmsg/s: "
               "median [min..max])\n# %8s %26s %26s %7s\n",
               threads, iters, rounds, "size", "free", "serialized", "ratio");
    /* v[0..1]: free, serialized (send + quiet); v[2..3]: the same runs'
     * injection (sends only). */
    double *v[4];
    for (int m = 0; m < 4; m++)
        v[m] = calloc((size_t)rounds, sizeof(double));
    for (int k = 0; k < nsizes; k++) {
        for (long r = 0; r < rounds; r++)
            for (int m = 0; m < 2; m++)
                v[m][r] = run(s, sizes[k], m, &v[2 + m][r]);
        if (me != 0)
            continue;
        struct stat3 f = summarize(v[0], (int)rounds), ser = summarize(v[1], (int)rounds);
        struct stat3 fi = summarize(v[2], (int)rounds), si = summarize(v[3], (int)rounds);
        printf("  %8zu %8.3f [%6.3f..%6.3f] %8.3f [%6.3f..%6.3f] %7.2f\n", sizes[k], f.med, f.min,
               f.max, ser.med, ser.min, ser.max, f.med / ser.med);
        printf("  %8s %8.3f [%6.3f..%6.3f] %8.3f [%6.3f..%6.3f] %7.2f\n", "inject", fi.med, fi.min,
               fi.max, si.med, si.min, si.max, fi.med / si.med);
        bench_csv_row(csv, "am_rate", "ctx", 2, threads, sizes[k], "am_rate", "Mmsg/s", f, iters);
        bench_csv_row(csv, "am_rate", "ctx", 2, threads, sizes[k], "am_rate_serialized", "Mmsg/s",
                      ser, iters);
        bench_csv_row(csv, "am_rate", "ctx", 2, threads, sizes[k], "am_inject", "Mmsg/s", fi,
                      iters);
        bench_csv_row(csv, "am_rate", "ctx", 2, threads, sizes[k], "am_inject_serialized", "Mmsg/s",
                      si, iters);
    }
    shmem_barrier_all();
    if (me == 0)
        for (int i = 0; i < threads; i++)
            if (s[i].ctx != SHMEM_CTX_DEFAULT)
                shmem_ctx_destroy(s[i].ctx);
    for (int m = 0; m < 4; m++)
        free(v[m]);
    shmem_finalize();
    return 0;
}
