/* core/waiting — how a thread inside Shoal waits.
 *
 * Owns: the wait engine and the point-to-point wait/test routines
 * (wait.c: spin, yield, then sleep on a doorbell), the policy that says
 * how long each phase lasts, from the PEs' placement (wait_policy.c) and,
 * where threads oversubscribe the CPUs, from each thread's own waits
 * (wait_learn.c), a sleeper's short time slice where compute threads hold
 * the CPUs (wait_slice.c), and
 * the hang records that say where each thread waits (wait_record.c),
 * whether the peer a wait depends on is still there (peer_check.c) and,
 * for a peer through the network, what its host says at the TCP level
 * (peer_reach.c).  Its doorbell use: a waiter sleeps on the owner's doorbell and is woken by
 * the writer (transport/shm/shm_doorbell.h).
 * May call: core's ground floor (state.h; config/: error.h, log.h,
 * env.h), ops.h for addressing, memory/segments.h (the peers' cards), the network's progress
 * (transport/net.h), the extension layer only through core/ext_hooks.h
 * (serve pending work while waiting), transport/shm's doorbells,
 * boot/hang_page.h.  Called by every layer above that waits (ops, sync,
 * coll, ext, api).
 *
 * This header: the wait engine (wait.c), as the waiting policy says
 * (wait_policy.h). */
#ifndef SHOAL_CORE_WAIT_H
#define SHOAL_CORE_WAIT_H
#include <stdint.h>
#include <time.h>

/* The clock of waits and their deadlines: CLOCK_MONOTONIC in ns. */
static inline uint64_t shoal_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct shoal_wait_phase;

struct shoal_waiter {
    int owner_slot; /* node slot of the PE whose memory is watched */
    unsigned iter;
    uint64_t t0;
    long sleep_ns;
    uint64_t next_peer_check;             /* when to look whether the awaited peer left */
    const struct shoal_wait_phase *phase; /* spin/yield lengths (wait_policy.h) */
    const char *fn;                       /* for the wait record and errors */
    const void *addr;
    int looked;       /* the last turn skipped its yield: the network had moved something */
    uint64_t spin_ns; /* this wait's spin: its phase's, or a learned one (wait_learn.h) */
    int adapting;     /* the spin is the learned short one: its outcome is learned */
    int sleep_now;    /* after its spin it sleeps, no yield: yields are slow (wait_learn.h) */
    int short_slice;  /* the thread asked the kernel for a short slice (wait_slice.h) */
    int relooked;     /* its fitting spin looked at the placement again (wait_policy.h) */
};

/* The look of a wait inside a collective at the calls of the PEs it waits
 * for, and its end (core/teams/calls.h registers them at init: a hook, so
 * that this room calls none above it).  NULL: none. */
extern void (*shoal_wait_calls_check)(struct shoal_waiter *w, uint64_t now);
extern void (*shoal_wait_calls_end)(void);

/* A wait on `addr` inside routine `fn`: init, back off until ready, done
 * (which clears the thread's wait record, core/waiting/wait_record.h). */
void shoal_waiter_init(struct shoal_waiter *w, int owner_slot, const char *fn, const void *addr);
/* One step of backing off; `ready` is re-checked before sleeping, and
 * before a wait for a peer that has left the job is reported, so it must
 * only look: what it would take, the caller's loop takes. */
void shoal_backoff(struct shoal_waiter *w, int (*ready)(void *), void *arg);
void shoal_waiter_done(struct shoal_waiter *w);
/* The doorbells' counters of this process (shmemx_wait_counters). */
void shoal_wait_counters(unsigned long long *sleeps, unsigned long long *wakes,
                         unsigned long long *late_timeouts);
/* Waits until `*mapped cmp *value` (kind: enum shoal_wkind) on memory of
 * the local PE in node slot `owner_slot`, mapped at `mapped`. */
void shoal_wait_mapped(int kind, const void *mapped, int owner_slot, int cmp, const void *value,
                       const char *fn);
#endif
