/* coll/mt — the multi-threaded collectives (shmemx_*_mt,
 * docs/mt_collectives.md).
 *
 * Owns: the threads' rendezvous, the checks of their arguments and their
 * shares of the work (mt_sync.c; this header), broadcast
 * (mt_broadcast.c), fcollect and alltoall (mt_blocks.c), reductions
 * (mt_reduce.c), and the size from which the threads split the data
 * (shoal_coll_mt_config, set by coll_env.c).
 * May call: coll's top room (coll.h: the single-threaded collectives a
 * small call falls back to; coll_internal.h: buffer checks, the
 * reductions' ranges, team_sync.c's team check; reduce_ops.h), core/
 * (teams/sync.h for the team's group, ops.h for the gets and puts,
 * config/error.h, waiting/wait_policy.h and wait_record.h for the
 * threads' waits), transport/net.h (the network's progress while the
 * threads wait); not ext/.  Called by the generated shmemx _mt wrappers,
 * through coll.h.
 *
 * This header: the threads of one PE inside one multi-threaded
 * collective: their rendezvous in private memory, the checks of the
 * thread arguments, and how a collective's work is split into the
 * threads' shares.  Used by the files of coll/mt/ only.
 *
 * Protocol.  Every thread of the call arrives at a rendezvous of the
 * team's thread state (one per team slot, private to the PE); thread 0,
 * the leader, waits until all nthreads have arrived, does what only one
 * thread may do (the team's inter-PE synchronization: it counts the
 * team's collectives), and releases the others by bumping a generation
 * word.  No mutex: one atomic add per arrival and one store per release.
 * Waiters follow the core's wait policy: spin while the node's threads
 * fit its CPUs, else yield, then sleep on the word (a futex, woken by the
 * arriving or releasing thread only when someone sleeps). */
#ifndef SHOAL_COLL_MT_SYNC_H
#define SHOAL_COLL_MT_SYNC_H
#include <stddef.h>
#include <stdint.h>

#include "core/teams/sync.h"

/* Most threads of one PE in one collective (a bitmap finds two threads
 * that pass the same thread_id). */
#define SHOAL_MT_MAX_THREADS 256

/* What every thread must pass alike, compared under SHMEM_DEBUG. */
struct shoal_mt_sig {
    const void *dest, *source;
    size_t count; /* bytes or elements */
    long extra;   /* the root of a broadcast, else 0 */
};

struct shoal_mt_team; /* the team's thread state (mt_sync.c) */

/* One thread's view of one collective. */
struct shoal_mt {
    struct shoal_mt_team *st;
    int nthreads, tid;
    struct shoal_group g; /* the leader's, valid after shoal_mt_begin */
};

/* Checks the thread level, nthreads and thread_id (fatal, naming `fn`),
 * then the team: returns -1 when the team is SHMEM_TEAM_INVALID or this
 * PE is not in it (every thread returns -1 at once), 0 otherwise. */
int shoal_mt_open(struct shoal_mt *m, shmem_team_t team, int nthreads, int tid, const char *fn);

/* What the leader does at the first rendezvous, once every thread is in. */
enum shoal_mt_mode {
    SHOAL_MT_SOLO,  /* nothing: the leader then runs a standard collective alone */
    SHOAL_MT_GROUP, /* take the team's group (it counts the team's collectives) */
    SHOAL_MT_SYNC   /* that, then a group sync: every PE has entered */
};
/* The first rendezvous: the leader publishes `sig` and acts as `mode`
 * says (SHMEM_DEBUG: taking the group compares the collective, `fn` and
 * the sizes dbg_a, dbg_b, with the neighbouring PEs'); every thread
 * returns with m->g filled in (not SOLO) and, under SHMEM_DEBUG, its
 * arguments compared with the leader's. */
void shoal_mt_begin(struct shoal_mt *m, shmem_team_t team, const struct shoal_mt_sig *sig,
                    uint64_t call, uint64_t dbg_a, uint64_t dbg_b, enum shoal_mt_mode mode,
                    const char *fn);
/* The rendezvous of a collective the leader runs alone (a standard
 * routine): returns 1 in the leader once every thread is in (SHMEM_DEBUG:
 * and has had its arguments compared with the leader's `sig`); the leader
 * then runs it and calls shoal_mt_release; 0 in the others, once
 * released, i.e. once the collective is complete. */
int shoal_mt_solo(struct shoal_mt *m, shmem_team_t team, const struct shoal_mt_sig *sig,
                  const char *fn);
/* A rendezvous: returns 1 in the leader once every thread has arrived
 * (the leader then calls shoal_mt_release), 0 in the others once the
 * leader has released them. */
int shoal_mt_arrive(struct shoal_mt *m, const char *fn);
void shoal_mt_release(struct shoal_mt *m);
/* The last rendezvous: every thread's share is done; the leader does a
 * group sync when `sync` is set; every thread returns after it. */
void shoal_mt_end(struct shoal_mt *m, int sync, const char *fn);

/* Thread tid's share [*lo, *hi) of `total` units: contiguous pieces of
 * ceil(total / nthreads) units rounded up to `grain` (so that two threads
 * never write one cache line), in thread order; late threads may get an
 * empty share. */
static inline void shoal_mt_share(size_t total, size_t grain, int nthreads, int tid, size_t *lo,
                                  size_t *hi)
{
    size_t per = (total + (size_t)nthreads - 1) / (size_t)nthreads;
    per = (per + grain - 1) / grain * grain;
    size_t a = per * (size_t)tid;
    *lo = a < total ? a : total;
    *hi = total - *lo < per ? total : *lo + per;
}

/* Smallest collective (bytes) whose work the threads split; smaller ones
 * are run by the leader alone with the standard algorithm
 * (SHOAL_COLL_MT_MIN, coll_env.c). */
extern size_t shoal_mt_min_bytes;
#endif
