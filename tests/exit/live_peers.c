/* live_peers: a peer that is alive but does not answer for longer than
 * SHOAL_PEER_TIMEOUT is never taken for dead (tests/exit/CMakeLists.txt
 * runs it through the network with a 2 s timeout, beside a CPU load of
 * two busy processes per core):
 *
 *   live_peers stop SECONDS     PE 1 is stopped (SIGSTOP) for SECONDS: a
 *                               child it forked continues it (a debugger)
 *   live_peers compute SECONDS  PE 1 computes SECONDS without calling Shoal
 *                               (run without a progress thread)
 *   live_peers sleep SECONDS    PE 1 sleeps SECONDS
 *
 * Meanwhile PE 0 gets a word from PE 1 (a request blocked on it) and the
 * other PEs wait for it in shmem_barrier_all (a collective's wait); then
 * every PE checks a round of puts around the ring.
 *
 *   live_peers big_gets ROUNDS  every PE gets 16 MiB from the next PE ROUNDS
 *                               times, so that gets cross both ways
 *
 * Exit 0 when every value arrived; a line naming what was wrong otherwise. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BIG_INTS (4 << 20)

static long word = -1;
static long ring = -1;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Stopped for `seconds`, as a debugger would hold it; a child wakes it. */
static int stop_for(double seconds)
{
    pid_t parent = getpid(), child = fork();
    if (child < 0)
        return -1;
    if (child == 0) {
        struct timespec ts = {(time_t)seconds, (long)((seconds - (long)seconds) * 1e9)};
        nanosleep(&ts, NULL);
        kill(parent, SIGCONT);
        _exit(0);
    }
    raise(SIGSTOP);
    int status;
    waitpid(child, &status, 0);
    return 0;
}

static volatile double sink;

static void compute_for(double seconds)
{
    double end = now() + seconds, x = 1.0;
    while (now() < end)
        for (int i = 0; i < 100000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

/* PE 1 does not answer for `seconds`; the others wait for it. */
static int silent_peer(const char *mode, double seconds)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    word = 1000 + me;
    shmem_barrier_all();
    double t0 = now();
    if (me == 1) {
        if (!strcmp(mode, "stop"))
            stop_for(seconds);
        else if (!strcmp(mode, "compute"))
            compute_for(seconds);
        else
            sleep((unsigned)seconds);
    } else if (me == 0) {
        long got = shmem_long_g(&word, 1 % n);
        if (got != 1000 + 1 % n) {
            fprintf(stderr, "live_peers: PE 0: got %ld from PE 1, want %d\n", got, 1000 + 1 % n);
            return 1;
        }
    }
    shmem_barrier_all();
    shmem_long_p(&ring, me, (me + 1) % n);
    shmem_barrier_all();
    if (ring != (me + n - 1) % n) {
        fprintf(stderr, "live_peers: PE %d: ring = %ld, want %d\n", me, ring, (me + n - 1) % n);
        return 1;
    }
    printf("live_peers: PE %d: %s for %.0f s: waited %.1f s, values right\n", me, mode, seconds,
           now() - t0);
    return 0;
}

static int big_gets(int rounds)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), from = (me + 1) % n;
    int *src = shmem_malloc(sizeof(int) * BIG_INTS);
    int *dst = malloc(sizeof(int) * BIG_INTS);
    if (!src || !dst) {
        fprintf(stderr, "live_peers: PE %d: no memory for %d ints\n", me, BIG_INTS);
        return 1;
    }
    for (int i = 0; i < BIG_INTS; i++)
        src[i] = me * 7 + i;
    shmem_barrier_all();
    double t0 = now();
    for (int r = 0; r < rounds; r++) {
        dst[0] = dst[BIG_INTS - 1] = -1;
        shmem_int_get(dst, src, BIG_INTS, from);
        for (int i = 0; i < BIG_INTS; i += 4099)
            if (dst[i] != from * 7 + i || dst[BIG_INTS - 1] != from * 7 + BIG_INTS - 1) {
                fprintf(stderr, "live_peers: PE %d: round %d: dst[%d] = %d, want %d\n", me, r, i,
                        dst[i], from * 7 + i);
                return 1;
            }
    }
    double dt = now() - t0;
    printf("live_peers: PE %d: %d gets of 16 MiB in %.1f s (%.0f MB/s), values right\n", me, rounds,
           dt, rounds * 16.777216 / dt);
    shmem_barrier_all();
    shmem_free(src);
    free(dst);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: live_peers stop|compute|sleep SECONDS | big_gets ROUNDS\n");
        return 2;
    }
    shmem_init();
    int rc = !strcmp(argv[1], "big_gets") ? big_gets(atoi(argv[2]))
                                          : silent_peer(argv[1], atof(argv[2]));
    shmem_finalize();
    return rc;
}
