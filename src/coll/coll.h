/* coll/ — collective algorithms, written only against core/ops.h (put,
 * get, AMO, signal, wait) so they run unchanged over any transport.
 * May call: core/ops.h, core/wait.h.  Never a transport directly. */
#ifndef SHOAL_COLL_H
#define SHOAL_COLL_H
/* shmem_sync_all: no PE leaves before every PE has arrived. */
void shoal_sync_all_internal(void);
/* shmem_barrier_all: quiet the default context, then sync_all. */
void shoal_barrier_all_internal(void);
/* Reset per-job collective state (called at init). */
void shoal_coll_init(void);
#endif
