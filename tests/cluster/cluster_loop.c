/* cluster_loop: the program of the cluster tests (tests/cluster/test_cluster.py),
 * which also serves by hand: `cluster.py run DIR -- cluster_loop loop 60`.
 *
 *   cluster_loop loop SECONDS       puts around a ring, barriers and reductions
 *                                   for SECONDS (PE 0's clock decides, through
 *                                   a reduction), every value checked
 *   cluster_loop exit_early PE SECONDS  the same, but PE returns from main
 *                                   without shmem_finalize once all run
 *   cluster_loop late_finalize SECONDS  PE 0 sleeps SECONDS (no Shoal call)
 *                                   before shmem_finalize; every PE says when
 *                                   it entered and left shmem_finalize
 *                                   (CLOCK_MONOTONIC, one clock for every
 *                                   host of a cluster.py cluster): nobody may
 *                                   leave before PE 0 entered
 *   cluster_loop nodes              prints the PEs of this PE's node
 *                                   (SHMEM_TEAM_SHARED) and checks that
 *                                   shmem_ptr maps exactly those, then loops 1 s
 *
 * Lines on stdout start with "cluster_loop: PE <me> of <n> on <host>:"; the
 * tests wait for "running" from every PE before they inject a fault.  Exit
 * 0 when every value was right, 1 otherwise.  Built twice: cluster_loop_other
 * (CLUSTER_LOOP_OTHER) has more static data, a different program for the
 * symmetry check. */
#define _GNU_SOURCE /* clock_gettime, gethostname */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long ring; /* static data: the previous PE puts here */
static long stop_mine, stop_all;
#ifdef CLUSTER_LOOP_OTHER
static long other_data[4096]; /* a static-data layout of its own */
#endif

static int me, npes;
static char host[256];

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long value(long iter, int pe)
{
    return iter * 1000003L + pe + 1;
}

static void say(const char *what)
{
    printf("cluster_loop: PE %d of %d on %s: %s\n", me, npes, host, what);
    fflush(stdout);
}

/* One round: a put to the next PE, a barrier, the check, and the decision
 * to stop (a max-reduction of every PE's "my time is up"), which also keeps
 * the next round's put from landing before the previous value was read. */
static int round_ok(long iter, long *heap_count, int time_up)
{
    int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    shmem_long_p(&ring, value(iter, me), next);
    shmem_long_atomic_inc(heap_count, prev);
    shmem_barrier_all();
    if (ring != value(iter, prev) || *heap_count != iter + 1) {
        fprintf(stderr,
                "cluster_loop: PE %d of %d on %s: round %ld: ring = %ld (want %ld), "
                "count = %ld (want %ld)\n",
                me, npes, host, iter, ring, value(iter, prev), *heap_count, iter + 1);
        return 0;
    }
    stop_mine = time_up;
    shmem_long_max_reduce(SHMEM_TEAM_WORLD, &stop_all, &stop_mine, 1);
    return 1;
}

/* Rounds until SECONDS passed; leaver (>= 0) returns early.  Returns the
 * exit status, or -1 for "return from main at once, no finalize". */
static int loop(double seconds, int leaver)
{
    long *count = shmem_calloc(1, sizeof *count);
    double t0 = now();
    long iter = 0;
    stop_all = 0;
    while (!stop_all) {
        if (!round_ok(iter, count, now() - t0 >= seconds))
            return 1;
        if (iter == 0)
            say("running");
        iter++;
        if (me == leaver && iter == 3) {
            say("returns from main without shmem_finalize");
            return -1;
        }
    }
    char line[128];
    snprintf(line, sizeof line, "%ld rounds in %.1f s, values right", iter, now() - t0);
    say(line);
    shmem_free(count);
    return 0;
}

/* The PEs of this node by SHMEM_TEAM_SHARED, checked against shmem_ptr. */
static int nodes(void)
{
    char line[1024] = "node PEs";
    int n = shmem_team_n_pes(SHMEM_TEAM_SHARED), ok = 1;
    char *in_node = calloc((size_t)npes, 1);
    for (int i = 0; i < n; i++) {
        int pe = shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD);
        size_t len = strlen(line);
        snprintf(line + len, sizeof line - len, "%s%d", i ? "," : " ", pe);
        if (pe >= 0 && pe < npes)
            in_node[pe] = 1;
    }
    say(line);
    for (int pe = 0; pe < npes; pe++)
        if ((shmem_ptr(&ring, pe) != NULL) != in_node[pe]) {
            fprintf(stderr,
                    "cluster_loop: PE %d of %d on %s: shmem_ptr to PE %d is %s, but "
                    "SHMEM_TEAM_SHARED %s it\n",
                    me, npes, host, pe, in_node[pe] ? "NULL" : "not NULL",
                    in_node[pe] ? "holds" : "does not hold");
            ok = 0;
        }
    free(in_node);
    return ok ? loop(1.0, -1) : 1;
}

/* shmem_finalize is collective: no PE returns from it (and closes its
 * connections) before the last PE called it. */
static int late_finalize(double seconds)
{
    if (me == 0) {
        struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
        nanosleep(&ts, NULL);
    }
    char line[128];
    double in = now();
    shmem_finalize();
    snprintf(line, sizeof line, "shmem_finalize from %.6f to %.6f", in, now());
    say(line);
    return -1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    gethostname(host, sizeof host - 1);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
#ifdef CLUSTER_LOOP_OTHER
    other_data[me % 4096] = me;
#endif
    int rc;
    if (!strcmp(mode, "loop") && argc == 3) {
        rc = loop(atof(argv[2]), -1);
    } else if (!strcmp(mode, "exit_early") && argc == 4) {
        rc = loop(atof(argv[3]), atoi(argv[2]));
    } else if (!strcmp(mode, "late_finalize") && argc == 3) {
        rc = late_finalize(atof(argv[2]));
    } else if (!strcmp(mode, "nodes") && argc == 2) {
        rc = nodes();
    } else {
        fprintf(stderr, "usage: cluster_loop loop SECONDS | exit_early PE SECONDS | late_finalize "
                        "SECONDS | nodes\n");
        rc = 2;
    }
    if (rc < 0)
        return 0;
    if (rc == 1)
        shmem_global_exit(1); /* the others may wait for this PE: end them too */
    shmem_finalize();
    return rc;
}
