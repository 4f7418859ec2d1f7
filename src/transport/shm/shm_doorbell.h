/* The doorbell of a PE: how a waiter that stopped spinning sleeps, and how
 * a writer wakes it.  Part of the on-node transport (transport/shm/shm.h);
 * the writer's side is inline because every on-node put, AMO and signal
 * runs it.  The bell and sleeper words live in each PE's ctl block; core
 * hands their addresses in.
 *
 * Protocol.  Each PE's ctl block has a 32-bit `bell`: bit 0 (ARMED) says a
 * waiter may be asleep on it, the other bits count rings.
 *   waiter:  sleepers++; b = bell |= ARMED; heavy fence; re-check the
 *            condition; futex_wait(bell, b) with a long safety timeout.
 *   writer:  store the data; compiler barrier; if (bell & ARMED) ring:
 *            the one writer whose compare-and-swap clears ARMED (and bumps
 *            the count) makes the FUTEX_WAKE; the others see it clear.
 * So a write into a PE nobody sleeps on costs one load of a line that is
 * almost never written, and a sleep episode costs at most one wake however
 * many writes arrive during it.
 *
 * No wake-up is lost: the waiter's heavy fence is membarrier(2)'s
 * MEMBARRIER_CMD_GLOBAL_EXPEDITED, which makes every CPU that runs a
 * registered process (every PE registers at init) execute a full barrier,
 * so each writer either had its data visible before the waiter's re-check
 * or sees ARMED after it; the writers' fast path needs no fence of its own.
 * Where the kernel lacks it, sleeps are short (the timeout bounds a missed
 * wake) and shmem-info says so. */
#ifndef SHOAL_SHM_DOORBELL_H
#define SHOAL_SHM_DOORBELL_H
#include <stdint.h>

#define SHOAL_BELL_ARMED 1u

/* Slow path of a ring: disarm and wake (shm_doorbell.c). */
void shoal_doorbell_ring(uint32_t *bell);

/* After writing to the memory of the PE that owns `bell`. */
static inline void shoal_bell_ring_if_armed(uint32_t *bell)
{
    /* The writes before this load must not be moved after it by the
     * compiler; the CPU's ordering is the waiter's fence's business. */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (__builtin_expect(__atomic_load_n(bell, __ATOMIC_RELAXED) & SHOAL_BELL_ARMED, 0))
        shoal_doorbell_ring(bell);
}

/* Sleeps on `bell` (counted in `sleepers`) until a ring or `timeout_ns`,
 * unless ready(arg) is true once armed (ready may be NULL: then the sleep
 * always happens and only the timeout or a ring ends it).  Returns 1 if
 * it slept. */
int shoal_doorbell_sleep(uint32_t *bell, uint32_t *sleepers, int (*ready)(void *), void *arg,
                         long timeout_ns);

/* At init: registers this process for the waiters' heavy fence.  Returns
 * 1 when wake-ups are exact (membarrier available), 0 otherwise. */
int shoal_doorbell_init(void);
int shoal_doorbell_exact(void);

/* Counters of this process (tests, shmem-info): sleep episodes (bells
 * armed), FUTEX_WAKE
 * calls made by writers here, and sleeps that ended by timeout although
 * the condition was already true (a wake-up that did not come). */
struct shoal_doorbell_stats {
    uint64_t sleeps, wakes, late_timeouts;
};
void shoal_doorbell_stats(struct shoal_doorbell_stats *out);
#endif
