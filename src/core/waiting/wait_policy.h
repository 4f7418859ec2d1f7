/* How long a waiter spins before it yields and sleeps, from the placement
 * (wait_policy.c):
 *   fits           the threads that run on this node (of every PE of the
 *                  node) fit the CPUs in the union of the PEs' affinity
 *                  masks: spin with `pause` (no yield) and sleep only after
 *                  a long idle (SHOAL_WAIT_SPIN_US, default 10 ms, 1 s
 *                  where the network serves this PE), so an
 *                  arrival is seen within nanoseconds;
 *   oversubscribed more PEs, or more running threads, than those CPUs: yield
 *                  for 50 us, then sleep on the doorbell, so that the thread
 *                  being waited for can run; where only threads oversubscribe
 *                  (the PEs fit), each thread first spins 2 us, or 1 ms, in
 *                  the waits where it has learned that spinning pays, and
 *                  sleeps without yielding where yields lose the CPU to
 *                  threads that keep it (wait_learn.h).
 * The masks are published in the ctl blocks at init (any launcher, any
 * binding); each PE's running threads (state R in /proc/self/task) are
 * counted by its waiters at most every 50 ms (and by a thread's first
 * wait, and a fitting wait that has spun 1 ms) and published there too, so
 * the choice follows threads that come and go; this machine's PEs that a
 * PE does not map (pretend nodes, SHOAL_TRANSPORTS=ucx) count through
 * /proc/<pid>/task.  Threads found oversubscribing the CPUs stay so for
 * 500 ms of looks that find them fitting (wait_policy.c).  Other jobs' load does not
 * count: the scheduler shares the CPUs fairly, and a waiter that spins
 * then spends only its own share, whereas yielding or sleeping would leave
 * an arrival unseen for a time slice (shmem-info shows the machine's
 * runnable threads, /proc/loadavg, for reference).  SHOAL_WAIT_POLICY=spin|sleep
 * forces one (spin: never sleep). */
#ifndef SHOAL_CORE_WAIT_POLICY_H
#define SHOAL_CORE_WAIT_POLICY_H
#include <stdint.h>
#include <stdio.h>

struct shoal_config;

struct shoal_wait_phase {
    uint64_t spin_ns;  /* pause-spin this long before yielding or sleeping */
    uint64_t yield_ns; /* then sched_yield this long */
    int check_every;   /* look at the clock every so many turns (power of 2) */
    unsigned learn;    /* SHOAL_LEARN_*: what each thread learns from its waits (wait_learn.h) */
};
/* Learned (wait_learn.h): a short spin where waits end within it; a long
 * one instead of yielding where yields lose the CPU to threads that keep
 * it. */
#define SHOAL_LEARN_SHORT_SPIN 1u
#define SHOAL_LEARN_SLOW_YIELDS 2u
struct shoal_wait_policy {
    /* over_threads: the PEs fit the CPUs, their running threads do not. */
    struct shoal_wait_phase fit, over, over_threads;
    long sleep_ns;      /* longest sleep (the safety net of a lost wake-up) */
    int never_sleep;    /* SHOAL_WAIT_POLICY=spin */
    int forced;         /* 0 auto, 1 spin, 2 sleep */
    int oversubscribed; /* the last decision (relaxed atomic): 0 fits, 1 by PEs, 2 by threads */
    int computing;      /* the last look's running threads of this PE outside Shoal's waits */
    /* Inputs, for shmem-info. */
    int node_cpus, my_cpus, node_pes, node_running, machine_running, online_cpus;
};
extern struct shoal_wait_policy shoal_wait_p;

/* More PEs on this node than CPUs for them (the placement at init, the
 * same on every PE of the node; running threads aside). */
static inline int shoal_wait_pes_exceed_cpus(void)
{
    return shoal_wait_p.node_pes > shoal_wait_p.node_cpus;
}

/* The phases of a wait that begins to block now. */
const struct shoal_wait_phase *shoal_wait_phase_now(uint64_t now_ns);
/* A wait that has spun SHOAL_WAIT_RELOOK_NS where the threads fitted the
 * CPUs at the last look: threads may have started since (a job's first
 * look is often made before its threads exist, and the next comes 50 ms
 * later), so it looks again unless the last look is more recent than that,
 * and goes on in the phase that the look gives. */
#define SHOAL_WAIT_RELOOK_NS 1000000u
const struct shoal_wait_phase *shoal_wait_phase_relook(uint64_t now_ns);

/* Before the init barrier: this PE's affinity mask into its ctl block. */
void shoal_wait_publish_placement(void);
/* After it: decide from every local PE's mask and the configuration. */
void shoal_wait_policy_init(const struct shoal_config *cfg);
/* shmem-info / SHMEM_INFO lines. */
void shoal_wait_describe(FILE *f, const char *prefix);
#endif
