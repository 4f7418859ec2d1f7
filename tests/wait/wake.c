/* The wait engine's promises, checked with its counters
 * (shmemx_wait_counters): run with SHOAL_WAIT_SPIN_US=0 so waiters sleep
 * on their doorbell at once.
 *
 *   wake puts      PE 0 sleeps in shmem_long_wait_until while every other
 *                  PE makes 100 000 puts (in all) into PE 0's heap, then one
 *                  of them sets the flag: the writers together make at most
 *                  one wake-up system call per sleep episode of PE 0 (not
 *                  one per put), and PE 0's sleeps never end by their safety
 *                  timeout with the value already there.
 *   wake amos      the same with atomic adds and signals (put_signal).
 *   wake pingpong  2000 round trips between PE 0 and each other PE, every
 *                  wait a sleep: no wake-up is lost (no sleep ends by its
 *                  timeout with the value there), so the run is fast; with
 *                  SHOAL_WAIT_SLEEP_MAX_US large, a lost wake-up would stall
 *                  it for seconds and show in the counter. */
#include "shoal_test.h"

#include <shmemx.h>

#define NPUTS 100000

static long sink[1024];
static long flag;
static uint64_t sig;
static long ball;
static unsigned long long result[3]; /* on PE 0: from every PE, summed */

struct counters {
    unsigned long long sleeps, wakes, late;
};

static struct counters now(void)
{
    struct counters c;
    shmemx_wait_counters(&c.sleeps, &c.wakes, &c.late);
    return c;
}

static void writer_phase(int me, int n, int kind)
{
    long per = NPUTS / (n - 1);
    for (long i = 0; i < per; i++) {
        size_t at = (size_t)(i + me * 7) % 1024;
        if (kind == 0)
            shmem_long_p(&sink[at], i, 0);
        else if (i % 2)
            shmem_long_atomic_add(&sink[at], 1, 0);
        else
            shmem_putmem_signal(&sink[at], &i, sizeof i, &sig, 1, SHMEM_SIGNAL_ADD, 0);
    }
}

/* PE 0 waits (asleep) for the flag; the others write into PE 0, and the
 * last one sets the flag when all are done (ordered by a counter). */
static void flood(int me, int n, int kind)
{
    static long done;
    shmem_barrier_all();
    struct counters before = now();
    if (me == 0) {
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
    } else {
        st_sleep_us(20000); /* PE 0 is asleep by now */
        writer_phase(me, n, kind);
        shmem_quiet();
        if (shmem_long_atomic_fetch_inc(&done, 0) == n - 2)
            shmem_long_p(&flag, 1, 0);
    }
    struct counters after = now();
    unsigned long long mine[3] = {after.sleeps - before.sleeps, after.wakes - before.wakes,
                                  after.late - before.late};
    for (int k = 0; k < 3; k++)
        shmem_ulonglong_atomic_add(&result[k], mine[k], 0);
    shmem_barrier_all();
    if (me == 0) {
        printf("%s: PE 0 slept %llu times; writers made %llu wake-up calls for %d writes; "
               "%llu sleeps ended late\n",
               kind ? "amos" : "puts", mine[0], result[1] - mine[1], NPUTS, result[2]);
        CHECK_MSG(mine[0] >= 1, "PE 0 never slept (is SHOAL_WAIT_SPIN_US=0 set?)");
        CHECK_MSG(result[1] - mine[1] <= NPUTS / 100, "%llu wake-up calls for %d writes",
                  result[1] - mine[1], NPUTS);
        CHECK_MSG(result[1] - mine[1] <= mine[0],
                  "%llu wake-up calls for %llu sleep episodes: a write paid a system call "
                  "although the sleeper had been woken already",
                  result[1] - mine[1], mine[0]);
        CHECK_MSG(result[2] == 0,
                  "%llu sleeps ended by timeout with the value there (a lost "
                  "wake-up)",
                  result[2]);
        CHECK_EQ_I(flag, 1);
    }
}

static void pingpong(int me, int n)
{
    const int rounds = 2000;
    shmem_barrier_all();
    struct counters before = now();
    for (int peer = 1; peer < n; peer++) {
        for (long r = 1; r <= rounds; r++) {
            if (me == 0) {
                shmem_long_p(&ball, r, peer);
                shmem_long_wait_until(&ball, SHMEM_CMP_EQ, -r);
            } else if (me == peer) {
                shmem_long_wait_until(&ball, SHMEM_CMP_EQ, r);
                shmem_long_p(&ball, -r, 0);
            }
        }
        if (me == 0)
            ball = 0;
        shmem_barrier_all();
        if (me == peer)
            ball = 0;
        shmem_barrier_all();
    }
    struct counters after = now();
    shmem_ulonglong_atomic_add(&result[0], after.sleeps - before.sleeps, 0);
    shmem_ulonglong_atomic_add(&result[2], after.late - before.late, 0);
    shmem_barrier_all();
    if (me == 0) {
        printf("pingpong: %d round trips per peer, %llu sleeps, %llu ended late\n", rounds,
               result[0], result[2]);
        CHECK_MSG(result[2] == 0,
                  "%llu sleeps ended by timeout with the value there (a lost "
                  "wake-up)",
                  result[2]);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "puts";
    shmem_init();
    st_begin();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n < 2) {
        printf("wake: needs 2 PEs or more\n");
        shmem_finalize();
        return 0;
    }
    if (!strcmp(mode, "puts"))
        flood(me, n, 0);
    else if (!strcmp(mode, "amos"))
        flood(me, n, 1);
    else if (!strcmp(mode, "pingpong"))
        pingpong(me, n);
    else
        CHECK_MSG(0, "unknown mode %s", mode);
    shmem_finalize();
    return 0;
}
