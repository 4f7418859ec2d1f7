/* hybrid_pingpong: communication threads beside compute threads, the
 * hybrid pattern of a threaded OpenSHMEM program.  Every PE runs T
 * communication threads and B compute threads (a loop of arithmetic that
 * never calls the library), under SHMEM_THREAD_MULTIPLE.  Communication
 * thread t of PE p ping-pongs with thread t of PE p^1: shmem_long_p of the
 * next number into the partner's flag t, shmem_long_wait_until its own
 * flag t holds it (each flag on its own cache lines).
 *
 * A round is I round trips of every pair at once; its figure is the
 * round's wall time on PE 0 divided by I (us per round trip, all pairs
 * together), and the compute threads' arithmetic per second during it.
 * Rounds interleave "busy" (the compute threads run) with "idle" (they are
 * parked): where the program's threads outnumber the cores, a library whose
 * waiters yield or sleep hands the CPU to a compute thread for a whole time
 * slice, and one whose waiters spin takes CPU from the thread they wait for.
 * Every value that arrives is checked.  Uses only standard OpenSHMEM 1.4
 * routines and pthreads. */
#include "bench_stats.h"
#include "bench_args.h"
#include <pthread.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 64
#define MAX_BUSY 64
#define LINE_LONGS 16 /* 128 bytes: a flag per pair of cache lines */
#define UNIT 1000     /* a compute thread's arithmetic between two looks */

static void usage(void)
{
    printf("usage: oshrun -n P hybrid_pingpong [--threads T] [--busy B] [-i I] [-r R] [options]\n"
           "T communication threads per PE beside B compute threads per PE (which never\n"
           "call the library), SHMEM_THREAD_MULTIPLE; P even.  Thread t of PE p ping-pongs\n"
           "with thread t of PE p^1 (shmem_long_p + shmem_long_wait_until), every pair at\n"
           "once.  Rounds alternate busy (compute threads run) and idle (parked).\n"
           "Figures, median and min..max over rounds:\n"
           "  round_trip    us per round trip: a round's wall time on PE 0 / I\n"
           "  compute_rate  busy rounds: the compute threads' arithmetic, Mops/s per thread\n"
           "Options:\n"
           "  --threads T   communication threads per PE (default 4; at most %d)\n"
           "  --busy B      compute threads per PE (default 2; at most %d)\n"
           "  -i I          round trips per pair and round (default 2000)\n"
           "  -r R          rounds of each kind (default 5)\n"
           "  --csv FILE    PE 0 appends rows: round_trip (us), compute_rate (Mops/s),\n"
           "                config idle or busy, threads = T\n"
           "  --smoke       tiny run: -i 50, 2 rounds\n"
           "  -h, --help    this text\n",
           MAX_THREADS, MAX_BUSY);
}

static long flags[MAX_THREADS * LINE_LONGS]; /* symmetric: flag t at t * LINE_LONGS */

static int me, npes, nthreads, iters;
static pthread_barrier_t start_bar, end_bar;
static long bad; /* wrong values seen on this PE (atomic) */

/* Compute threads run while `working`, park while not, leave when `leaving`. */
static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t park_cv = PTHREAD_COND_INITIALIZER;
static int working, leaving, comm_leaving;
/* Compute units (UNIT operations each) done by each compute thread, each
 * counter on its own cache lines. */
static long units_done[MAX_BUSY * LINE_LONGS];
static volatile double sink;

static void *compute_thread(void *arg)
{
    long *units = &units_done[(long)arg * LINE_LONGS];
    double x = 1.0;
    for (;;) {
        pthread_mutex_lock(&park_lock);
        while (!working && !leaving)
            pthread_cond_wait(&park_cv, &park_lock);
        int go = !leaving;
        pthread_mutex_unlock(&park_lock);
        if (!go)
            break;
        while (__atomic_load_n(&working, __ATOMIC_RELAXED)) {
            for (int i = 0; i < UNIT; i++)
                x = x * 1.0000001 + 1e-9;
            __atomic_store_n(units, *units + 1, __ATOMIC_RELAXED);
        }
        sink = x;
    }
    return NULL;
}

static void set_working(int on)
{
    pthread_mutex_lock(&park_lock);
    __atomic_store_n(&working, on, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&park_cv);
    pthread_mutex_unlock(&park_lock);
}

/* Thread t's round trips of one round; `next` carries its numbers across
 * rounds, so a value left over from an earlier round is caught. */
static void ping_pong(int t, long *next)
{
    long *mine = &flags[t * LINE_LONGS];
    const int partner = me ^ 1, starts = (me & 1) == 0;
    for (int i = 0; i < iters; i++) {
        long v = ++*next;
        if (starts)
            shmem_long_p(mine, v, partner);
        shmem_long_wait_until(mine, SHMEM_CMP_GE, v);
        long got = __atomic_load_n(mine, __ATOMIC_ACQUIRE);
        if (got != v) {
            if (__atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED) < 5)
                fprintf(stderr, "hybrid_pingpong: PE %d thread %d: expected %ld, flag holds %ld\n",
                        me, t, v, got);
        }
        if (!starts)
            shmem_long_p(mine, v, partner);
    }
}

static void *comm_thread(void *arg)
{
    const int t = (int)(long)arg;
    long next = 0;
    for (;;) {
        pthread_barrier_wait(&start_bar);
        if (__atomic_load_n(&comm_leaving, __ATOMIC_ACQUIRE))
            break;
        ping_pong(t, &next);
        pthread_barrier_wait(&end_bar);
    }
    return NULL;
}

struct sample {
    double round_trip, compute_rate;
};

/* One round: every PE's communication threads run I round trips (the
 * compute threads working if busy). */
static long units_sum(int nbusy)
{
    long sum = 0;
    for (int b = 0; b < nbusy; b++)
        sum += __atomic_load_n(&units_done[b * LINE_LONGS], __ATOMIC_RELAXED);
    return sum;
}

static struct sample run_round(int busy, int nbusy)
{
    struct sample s = {0, 0};
    set_working(busy);
    shmem_barrier_all();
    const long units0 = units_sum(nbusy);
    double t0 = now();
    pthread_barrier_wait(&start_bar);
    pthread_barrier_wait(&end_bar);
    double t = now() - t0;
    const long units = units_sum(nbusy) - units0;
    set_working(0);
    shmem_barrier_all();
    s.round_trip = t / iters * 1e6;
    if (busy && nbusy > 0)
        s.compute_rate = (double)units * UNIT / t / 1e6 / nbusy;
    return s;
}

static int parse(int argc, char **argv, int *nbusy, int *rounds, const char **csv)
{
    const struct bench_opt opts[] = {
        BENCH_INT("--threads", NULL, nthreads), BENCH_INT("--busy", NULL, *nbusy),
        BENCH_INT("-i", NULL, iters),           BENCH_INT("-r", NULL, *rounds),
        BENCH_STR("--csv", NULL, *csv),         BENCH_END};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage();
            return 0;
        } else if (!strcmp(argv[i], "--smoke")) {
            iters = 50;
            *rounds = 2;
        } else if (!bench_take(argc, argv, &i, opts)) {
            fprintf(stderr, "hybrid_pingpong: bad argument '%s' (--help)\n", argv[i]);
            return 2;
        }
    }
    if (nthreads < 1 || nthreads > MAX_THREADS || *nbusy < 0 || *nbusy > MAX_BUSY || iters < 1 ||
        *rounds < 1) {
        fprintf(stderr,
                "hybrid_pingpong: need 1 <= --threads <= %d, 0 <= --busy <= %d, -i >= 1, "
                "-r >= 1\n",
                MAX_THREADS, MAX_BUSY);
        return 2;
    }
    return -1;
}

static void report(double *v[2][2], int rounds, int nbusy, const char *csv)
{
    static const char *kind[2] = {"idle", "busy"};
    struct stat3 rt[2], cr;
    for (int c = 0; c < 2; c++) {
        rt[c] = summarize(v[0][c], rounds);
        bench_csv_row(csv, "hybrid_pingpong", kind[c], npes, nthreads, 8, "round_trip", "us", rt[c],
                      (long)iters * rounds);
    }
    cr = summarize(v[1][1], rounds);
    if (nbusy > 0)
        bench_csv_row(csv, "hybrid_pingpong", "busy", npes, nthreads, 8, "compute_rate", "Mops/s",
                      cr, (long)iters * rounds);
    printf("# hybrid_pingpong: %d PEs, %d communication and %d compute thread(s) per PE; "
           "%d rounds of %d round trips per pair\n# us per round trip (all pairs at once), "
           "median [min..max] over rounds\n",
           npes, nthreads, nbusy, rounds, iters);
    printf("%-12s %28s %28s %10s\n", "figure", "idle", "busy", "busy/idle");
    printf("%-12s %10.2f [%7.2f..%8.2f] %10.2f [%7.2f..%8.2f] %10.2f\n", "round_trip", rt[0].med,
           rt[0].min, rt[0].max, rt[1].med, rt[1].min, rt[1].max, rt[1].med / rt[0].med);
    if (nbusy > 0)
        printf("%-12s %28s %10.1f [%7.1f..%8.1f] Mops/s per compute thread\n", "compute_rate", "-",
               cr.med, cr.min, cr.max);
    printf("# data checked: every value each thread waited for\n");
}

static void start_threads(pthread_t *comm, pthread_t *comp, int nbusy)
{
    pthread_barrier_init(&start_bar, NULL, (unsigned)nthreads + 1);
    pthread_barrier_init(&end_bar, NULL, (unsigned)nthreads + 1);
    for (int t = 0; t < nthreads; t++)
        if (pthread_create(&comm[t], NULL, comm_thread, (void *)(long)t) != 0) {
            fprintf(stderr, "hybrid_pingpong: PE %d: pthread_create failed\n", me);
            shmem_global_exit(1);
        }
    for (int b = 0; b < nbusy; b++)
        if (pthread_create(&comp[b], NULL, compute_thread, (void *)(long)b) != 0) {
            fprintf(stderr, "hybrid_pingpong: PE %d: pthread_create failed\n", me);
            shmem_global_exit(1);
        }
}

static void stop_threads(pthread_t *comm, pthread_t *comp, int nbusy)
{
    __atomic_store_n(&comm_leaving, 1, __ATOMIC_RELEASE);
    pthread_barrier_wait(&start_bar);
    for (int t = 0; t < nthreads; t++)
        pthread_join(comm[t], NULL);
    pthread_mutex_lock(&park_lock);
    leaving = 1;
    pthread_cond_broadcast(&park_cv);
    pthread_mutex_unlock(&park_lock);
    for (int b = 0; b < nbusy; b++)
        pthread_join(comp[b], NULL);
    pthread_barrier_destroy(&start_bar);
    pthread_barrier_destroy(&end_bar);
}

int main(int argc, char **argv)
{
    int nbusy = 2, rounds = 5;
    const char *csv = NULL;
    nthreads = 4;
    iters = 2000;
    int rc = parse(argc, argv, &nbusy, &rounds, &csv);
    if (rc >= 0)
        return rc;
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (provided < SHMEM_THREAD_MULTIPLE || npes < 2 || npes % 2) {
        if (me == 0)
            fprintf(stderr,
                    "hybrid_pingpong: needs SHMEM_THREAD_MULTIPLE (got %d) and an even "
                    "number of PEs (got %d)\n",
                    provided, npes);
        shmem_finalize();
        return 2;
    }
    pthread_t comm[MAX_THREADS], comp[MAX_BUSY];
    start_threads(comm, comp, nbusy);
    double *v[2][2]; /* [figure][idle, busy] */
    for (int f = 0; f < 2; f++)
        for (int c = 0; c < 2; c++)
            v[f][c] = calloc((size_t)rounds, sizeof(double));
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 2; k++) {
            int c = (r + k) % 2; /* alternate which goes first */
            struct sample s = run_round(c == 1 && nbusy > 0, nbusy);
            v[0][c][r] = s.round_trip;
            v[1][c][r] = s.compute_rate;
        }
    stop_threads(comm, comp, nbusy);
    static long bad_sum; /* symmetric: PE 0 gathers every PE's count */
    const long bad_mine = __atomic_load_n(&bad, __ATOMIC_RELAXED);
    shmem_long_atomic_add(&bad_sum, bad_mine, 0);
    shmem_barrier_all();
    if (me == 0 && bad_sum == 0)
        report(v, rounds, nbusy, csv);
    else if (me == 0)
        fprintf(stderr, "hybrid_pingpong: %ld wrong values: FAILED\n", bad_sum);
    for (int f = 0; f < 2; f++)
        for (int c = 0; c < 2; c++)
            free(v[f][c]);
    shmem_finalize();
    return bad_mine || (me == 0 && bad_sum) ? 1 : 0;
}
