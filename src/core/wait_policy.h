/* How long a waiter spins before it yields and sleeps, decided once per job
 * from the placement (wait_policy.c):
 *   fits           the node's PEs have at least one CPU each in the union of
 *                  their affinity masks: spin with `pause` (no yield) and
 *                  sleep only after a long idle (SHOAL_WAIT_SPIN_US, default
 *                  10 ms), so an arrival is seen within nanoseconds;
 *   oversubscribed more PEs than those CPUs: spin 2 us, yield for 50 us, then
 *                  sleep on the doorbell, so that the PE being waited for can
 *                  run.
 * SHOAL_WAIT_POLICY=spin|sleep forces one (spin: never sleep); the masks
 * are published in the ctl blocks at init (every launcher, any binding). */
#ifndef SHOAL_CORE_WAIT_POLICY_H
#define SHOAL_CORE_WAIT_POLICY_H
#include <stdint.h>
#include <stdio.h>

struct shoal_config;

struct shoal_wait_policy {
    uint64_t spin_ns;   /* pause-spin this long before yielding or sleeping */
    uint64_t yield_ns;  /* then sched_yield this long */
    long sleep_ns;      /* longest sleep (the safety net of a lost wake-up) */
    int never_sleep;    /* SHOAL_WAIT_POLICY=spin */
    int check_every;    /* look at the clock every so many turns (power of 2) */
    /* Inputs, for shmem-info. */
    int oversubscribed, forced, node_cpus, my_cpus, node_pes;
};
extern struct shoal_wait_policy shoal_wait_p;

/* Before the init barrier: this PE's affinity mask into its ctl block. */
void shoal_wait_publish_placement(void);
/* After it: decide from every local PE's mask and the configuration. */
void shoal_wait_policy_init(const struct shoal_config *cfg);
/* shmem-info / SHMEM_INFO lines. */
void shoal_wait_describe(FILE *f, const char *prefix);
#endif
