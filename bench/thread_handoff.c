/* thread_handoff: two threads of one PE hand items to each other through
 * the PE's own symmetric memory, as a communication thread hands data to a
 * worker.  On every PE (SHMEM_THREAD_MULTIPLE), per item:
 *   producer  shmem_putmem of the item (S bytes) into the PE's own item
 *             buffer, shmem_quiet, shmem_long_p of the item's number into
 *             the PE's own sequence word, shmem_long_wait_until the
 *             acknowledgement word holds it
 *   consumer  shmem_long_wait_until the sequence word holds the number,
 *             checks every byte of the item, shmem_long_p of the number
 *             into the acknowledgement word
 * PEs do not talk to each other except between rounds; run with one PE per
 * node of a cluster, or one per pretend node (Shoal: SHOAL_SPLIT_NODES=P),
 * several PEs share the machine's cores.  A round is I items on every PE;
 * its figure is the slowest PE's time per item (us).  Median and min..max
 * over rounds.  Uses only standard OpenSHMEM 1.4 routines and pthreads. */
#include "bench_stats.h"
#include "bench_args.h"
#include <pthread.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZE 65536

static void usage(void)
{
    printf("usage: oshrun -n P thread_handoff [-i I] [-r R] [--size S] [options]\n"
           "On every PE a producer thread hands items to a consumer thread through the\n"
           "PE's own symmetric memory (SHMEM_THREAD_MULTIPLE):\n"
           "  producer  shmem_putmem item to this PE, shmem_quiet, shmem_long_p sequence\n"
           "            word, shmem_long_wait_until the acknowledgement\n"
           "  consumer  shmem_long_wait_until the sequence word, check the item,\n"
           "            shmem_long_p the acknowledgement\n"
           "Figure: us per item, the slowest PE's, median and min..max over rounds.\n"
           "Options:\n"
           "  -i I          items per round (default 3000)\n"
           "  -r R          rounds (default 5)\n"
           "  --size S      item bytes (default 64; at most %d)\n"
           "  --csv FILE    PE 0 appends rows: handoff_time (us), config default\n"
           "  --smoke       tiny run: -i 100, 2 rounds\n"
           "  -h, --help    this text\n",
           MAX_SIZE);
}

static long seq_word[16], ack_word[16]; /* symmetric, each on its own lines */
static unsigned char item[MAX_SIZE];    /* symmetric: the PE's item buffer */

static int me, npes, items, size, leaving;
static long bad;
static pthread_barrier_t start_bar, end_bar; /* main, producer, consumer */

static unsigned char pat(long n, int i)
{
    unsigned long x = (unsigned long)n * 2654435761u + (unsigned long)i * 40503u;
    return (unsigned char)(x ^ (x >> 11));
}

/* Item numbers run on across rounds, so a value left from an earlier
 * round is caught. */
static void produce(long first)
{
    unsigned char buf[MAX_SIZE];
    for (long n = first; n < first + items; n++) {
        for (int i = 0; i < size; i++)
            buf[i] = pat(n, i);
        shmem_putmem(item, buf, (size_t)size, me);
        shmem_quiet();
        shmem_long_p(&seq_word[0], n, me);
        shmem_long_wait_until(&ack_word[0], SHMEM_CMP_GE, n);
    }
}

static void consume(long first)
{
    for (long n = first; n < first + items; n++) {
        shmem_long_wait_until(&seq_word[0], SHMEM_CMP_GE, n);
        long got = __atomic_load_n(&seq_word[0], __ATOMIC_ACQUIRE);
        int wrong = got != n;
        for (int i = 0; i < size && !wrong; i++)
            wrong = item[i] != pat(n, i);
        if (wrong && __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED) < 5)
            fprintf(stderr,
                    "thread_handoff: PE %d: item %ld: sequence word %ld, or its bytes "
                    "wrong\n",
                    me, n, got);
        shmem_long_p(&ack_word[0], n, me);
    }
}

/* The two threads live for the whole job, as a program's threads do: a
 * library that learns from a thread's waits learns across rounds. */
static void *hand_thread(void *arg)
{
    const int producing = arg != NULL;
    for (long first = 1;; first += items) {
        pthread_barrier_wait(&start_bar);
        if (__atomic_load_n(&leaving, __ATOMIC_ACQUIRE))
            break;
        if (producing)
            produce(first);
        else
            consume(first);
        pthread_barrier_wait(&end_bar);
    }
    return NULL;
}

/* One round of `items` items; this PE's time per item. */
static double run_round(void)
{
    shmem_barrier_all();
    double t0 = now();
    pthread_barrier_wait(&start_bar);
    pthread_barrier_wait(&end_bar);
    return (now() - t0) / items * 1e6;
}

static int parse(int argc, char **argv, int *rounds, const char **csv)
{
    const struct bench_opt opts[] = {BENCH_INT("-i", NULL, items), BENCH_INT("-r", NULL, *rounds),
                                     BENCH_INT("--size", NULL, size),
                                     BENCH_STR("--csv", NULL, *csv), BENCH_END};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage();
            return 0;
        } else if (!strcmp(argv[i], "--smoke")) {
            items = 100;
            *rounds = 2;
        } else if (!bench_take(argc, argv, &i, opts)) {
            fprintf(stderr, "thread_handoff: bad argument '%s' (--help)\n", argv[i]);
            return 2;
        }
    }
    if (items < 1 || *rounds < 1 || size < 1 || size > MAX_SIZE) {
        fprintf(stderr, "thread_handoff: need -i >= 1, -r >= 1, 1 <= --size <= %d\n", MAX_SIZE);
        return 2;
    }
    return -1;
}

int main(int argc, char **argv)
{
    int rounds = 5;
    const char *csv = NULL;
    items = 3000;
    size = 64;
    int rc = parse(argc, argv, &rounds, &csv);
    if (rc >= 0)
        return rc;
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (provided < SHMEM_THREAD_MULTIPLE) {
        if (me == 0)
            fprintf(stderr, "thread_handoff: needs SHMEM_THREAD_MULTIPLE (got %d)\n", provided);
        shmem_finalize();
        return 2;
    }
    double *times = shmem_malloc((size_t)npes * sizeof(double)); /* PE 0's: every PE's round */
    double *per_item = calloc((size_t)rounds, sizeof(double));
    pthread_t th[2];
    pthread_barrier_init(&start_bar, NULL, 3);
    pthread_barrier_init(&end_bar, NULL, 3);
    for (int k = 0; k < 2; k++)
        if (pthread_create(&th[k], NULL, hand_thread, k ? (void *)1 : NULL) != 0) {
            fprintf(stderr, "thread_handoff: PE %d: pthread_create failed\n", me);
            shmem_global_exit(1);
        }
    for (int r = 0; r < rounds; r++) {
        double t = run_round();
        shmem_double_p(&times[me], t, 0);
        shmem_barrier_all();
        per_item[r] = times[0];
        for (int pe = 1; pe < npes; pe++)
            per_item[r] = times[pe] > per_item[r] ? times[pe] : per_item[r];
    }
    __atomic_store_n(&leaving, 1, __ATOMIC_RELEASE);
    pthread_barrier_wait(&start_bar);
    for (int k = 0; k < 2; k++)
        pthread_join(th[k], NULL);
    pthread_barrier_destroy(&start_bar);
    pthread_barrier_destroy(&end_bar);
    static long bad_sum; /* symmetric: PE 0 gathers every PE's count */
    const long bad_mine = __atomic_load_n(&bad, __ATOMIC_RELAXED);
    shmem_long_atomic_add(&bad_sum, bad_mine, 0);
    shmem_barrier_all();
    if (me == 0 && bad_sum == 0) {
        struct stat3 s = summarize(per_item, rounds);
        bench_csv_row(csv, "thread_handoff", "default", npes, 2, (size_t)size, "handoff_time", "us",
                      s, (long)items * rounds);
        printf("# thread_handoff: %d PEs, a producer and a consumer thread each; %d rounds of "
               "%d items of %d bytes\n# us per item (the slowest PE), median [min..max] over "
               "rounds\n%-12s %10.3f [%8.3f..%9.3f]\n# data checked: every item's bytes and "
               "sequence number\n",
               npes, rounds, items, size, "handoff", s.med, s.min, s.max);
    } else if (me == 0) {
        fprintf(stderr, "thread_handoff: %ld wrong items: FAILED\n", bad_sum);
    }
    free(per_item);
    shmem_free(times);
    shmem_finalize();
    return bad_mine || (me == 0 && bad_sum) ? 1 : 0;
}
