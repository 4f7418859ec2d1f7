/* busy_threads: what the program's own compute threads do to communication
 * that shares their CPUs.  Every PE runs B busy threads (a loop of
 * arithmetic that never calls the library, as an application's worker
 * threads do) while its main thread communicates, under
 * SHMEM_THREAD_FUNNELED.  With B = 0 ("idle") the same main threads run
 * alone; rounds interleave idle and busy.
 *
 * Operations, each timed by PE 0 over about -t seconds of back-to-back
 * calls (whole batches; the batch size is fixed, the time decides how many
 * batches run, and PE 0 tells the others when to stop):
 *   barrier   shmem_barrier_all; before each, every PE puts the call's
 *             number into its right neighbour, which checks after the
 *             barrier that it arrived
 *   pingpong  PE 0 and PE 1: shmem_long_p of the next number into the
 *             peer's flag, shmem_long_wait_until it comes back (half round
 *             trip); other PEs wait in the batch's closing barrier
 * A figure is the time per call (half round trip for pingpong); median and
 * min..max over rounds, and busy / idle.  On a machine with fewer CPUs
 * than threads the busy rows show what a library's waiting costs there:
 * a waiter that yields or sleeps hands its CPU to a busy thread for the
 * scheduler's whole time slice.  Uses only standard OpenSHMEM 1.4 routines
 * and pthreads. */
#include "bench_stats.h"
#include "bench_args.h"
#include <pthread.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 256
#define MAX_BUSY 64

static void usage(void)
{
    printf("usage: oshrun -n P busy_threads [--busy B] [-t SECONDS] [-r ROUNDS] [options]\n"
           "Communication of each PE's main thread while B compute threads per PE keep\n"
           "the CPUs busy (SHMEM_THREAD_FUNNELED), against the same with none (idle):\n"
           "  barrier   shmem_barrier_all (each PE checks its left neighbour's put arrived)\n"
           "  pingpong  PE 0 <-> PE 1, shmem_long_p + shmem_long_wait_until (half round trip)\n"
           "Each figure: time per call over about SECONDS of whole batches of %d calls;\n"
           "median and min..max over ROUNDS, idle and busy interleaved.\n"
           "Options:\n"
           "  --busy B      compute threads per PE (default 1; at most %d)\n"
           "  -t SECONDS    time per operation and round (default 0.5)\n"
           "  -r ROUNDS     rounds (default 5)\n"
           "  --csv FILE    PE 0 appends rows: barrier_time, pingpong_latency (us), config\n"
           "                idle or busy, threads = B\n"
           "  --smoke       tiny run: -t 0.02, 2 rounds\n"
           "  -h, --help    this text\n",
           BATCH, MAX_BUSY);
}

static long flag, neighbour_mark[2]; /* symmetric */
static long stop_at;                 /* symmetric: the check at which PE 0 said the time is up */

/* Busy threads run while `working`, park while not, leave when `leaving`. */
static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t park_cv = PTHREAD_COND_INITIALIZER;
static int working, leaving;
static volatile double sink;

static void *busy_thread(void *arg)
{
    (void)arg;
    double x = 1.0;
    for (;;) {
        pthread_mutex_lock(&park_lock);
        while (!working && !leaving)
            pthread_cond_wait(&park_cv, &park_lock);
        int go = !leaving;
        pthread_mutex_unlock(&park_lock);
        if (!go)
            break;
        while (__atomic_load_n(&working, __ATOMIC_RELAXED))
            for (int i = 0; i < 1000; i++)
                x = x * 1.0000001 + 1e-9;
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

/* After a batch: PE 0 says whether the time is up; every PE learns it.
 * Checks are numbered, so no PE resets the word another may be writing. */
static int time_is_up(double t0, double secs)
{
    static long check;
    check++;
    if (shmem_my_pe() == 0 && now() - t0 >= secs)
        for (int pe = 0; pe < shmem_n_pes(); pe++)
            shmem_long_p(&stop_at, check, pe);
    shmem_barrier_all();
    return stop_at == check;
}

static long calls_done;

static double run_barrier(double secs, long *next)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    long calls = 0;
    double t0 = now();
    do {
        for (int i = 0; i < BATCH; i++) {
            /* Alternate words: the left neighbour's next put may come
             * before this PE looks, never the one after it. */
            long v = ++*next;
            shmem_long_p(&neighbour_mark[v & 1], v, (me + 1) % n);
            shmem_barrier_all();
            if (neighbour_mark[v & 1] != v) {
                fprintf(stderr,
                        "busy_threads: PE %d: after barrier %ld the left neighbour's put "
                        "holds %ld\n",
                        me, v, neighbour_mark[v & 1]);
                shmem_global_exit(1);
            }
        }
        calls += BATCH;
    } while (!time_is_up(t0, secs));
    double t = now() - t0;
    calls_done += calls;
    return t / (double)calls * 1e6;
}

static double run_pingpong(double secs, long *next)
{
    const int me = shmem_my_pe();
    long trips = 0;
    double t0 = now();
    do {
        if (me <= 1) {
            for (int i = 0; i < BATCH; i++) {
                long v = ++*next;
                if (me == 0) {
                    shmem_long_p(&flag, v, 1);
                    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, -v);
                } else {
                    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, v);
                    shmem_long_p(&flag, -v, 0);
                }
            }
        }
        trips += BATCH;
    } while (!time_is_up(t0, secs));
    double t = now() - t0;
    return t / (double)trips / 2.0 * 1e6;
}

int main(int argc, char **argv)
{
    int busy = 1, rounds = 5;
    double secs = 0.5;
    const char *csv = NULL;
    const struct bench_opt opts[] = {BENCH_INT("--busy", NULL, busy),
                                     BENCH_DOUBLE("-t", NULL, secs), BENCH_INT("-r", NULL, rounds),
                                     BENCH_STR("--csv", NULL, csv), BENCH_END};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage();
            return 0;
        } else if (!strcmp(argv[i], "--smoke")) {
            secs = 0.02;
            rounds = 2;
        } else if (!bench_take(argc, argv, &i, opts)) {
            fprintf(stderr, "busy_threads: bad argument '%s' (--help)\n", argv[i]);
            return 2;
        }
    }
    if (busy < 0 || busy > MAX_BUSY || rounds < 1 || !(secs > 0)) {
        fprintf(stderr, "busy_threads: need 0 <= --busy <= %d, -r >= 1, -t > 0\n", MAX_BUSY);
        return 2;
    }
    int provided;
    shmem_init_thread(SHMEM_THREAD_FUNNELED, &provided);
    const int me = shmem_my_pe(), n = shmem_n_pes();
    if (n < 2) {
        if (me == 0)
            fprintf(stderr, "busy_threads: needs at least 2 PEs\n");
        shmem_finalize();
        return 2;
    }
    pthread_t th[MAX_BUSY];
    for (int i = 0; i < busy; i++)
        if (pthread_create(&th[i], NULL, busy_thread, NULL) != 0) {
            fprintf(stderr, "busy_threads: PE %d: pthread_create failed\n", me);
            shmem_global_exit(1);
        }
    double *v[2][2]; /* [op][idle, busy] */
    for (int o = 0; o < 2; o++)
        for (int c = 0; c < 2; c++)
            v[o][c] = calloc((size_t)rounds, sizeof(double));
    long next_b = 0, next_p = 0;
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 2; k++) {
            int c = (r + k) % 2; /* alternate which goes first */
            set_working(c == 1 && busy > 0);
            shmem_barrier_all();
            v[0][c][r] = run_barrier(secs, &next_b);
            v[1][c][r] = run_pingpong(secs, &next_p);
            set_working(0);
        }
    pthread_mutex_lock(&park_lock);
    leaving = 1;
    pthread_cond_broadcast(&park_cv);
    pthread_mutex_unlock(&park_lock);
    for (int i = 0; i < busy; i++)
        pthread_join(th[i], NULL);
    if (me == 0) {
        static const char *op[2] = {"barrier", "pingpong"};
        static const char *metric[2] = {"barrier_time", "pingpong_latency"};
        printf("# busy_threads: %d PEs, %d busy thread(s) per PE beside each main thread; "
               "%d rounds of ~%.2f s per operation\n# us per call (pingpong: half round "
               "trip), median [min..max] over rounds\n",
               n, busy, rounds, secs);
        printf("%-10s %28s %28s %10s\n", "operation", "idle", "busy", "busy/idle");
        for (int o = 0; o < 2; o++) {
            struct stat3 s[2];
            for (int c = 0; c < 2; c++) {
                s[c] = summarize(v[o][c], rounds);
                bench_csv_row(csv, "busy_threads", c ? "busy" : "idle", n, busy, 8, metric[o], "us",
                              s[c], calls_done);
            }
            printf("%-10s %10.3f [%6.3f..%8.3f] %10.3f [%6.3f..%8.3f] %10.2f\n", op[o], s[0].med,
                   s[0].min, s[0].max, s[1].med, s[1].min, s[1].max, s[1].med / s[0].med);
        }
        printf("# data checked: every barrier's neighbour put and every pingpong value\n");
    }
    for (int o = 0; o < 2; o++)
        for (int c = 0; c < 2; c++)
            free(v[o][c]);
    shmem_finalize();
    return 0;
}
