/* coll/ — collective algorithms, written only against core/ops.h (put,
 * get, AMO, wait) and core/teams/sync.h (a group's signals and, across
 * nodes, its messages) so they run unchanged over any transport.
 * May call: core/ (ops.h, wait, errors, teams' geometry).  Never a
 * transport directly.  Its room mt/ holds the multi-threaded collectives
 * (mt/mt_sync.h says what it owns).
 *
 * Entry points: the world synchronization used inside the library, and one
 * function per collective family that the generated wrappers call (names
 * fixed by tools/gen/api_table.py).  Team forms return 0 or nonzero;
 * active-set forms take the deprecated (PE_start, logPE_stride, PE_size,
 * pSync) arguments. */
#ifndef SHOAL_COLL_H
#define SHOAL_COLL_H
#include <shmem.h>
#include <stddef.h>

#include "shoal_types.h"

/* Joins the collectives' variables to the one table (coll_env.c).  Also
 * done by a constructor; shmem_init calls it so that a static link keeps
 * the rows.  Idempotent. */
void shoal_coll_env_register(void);
/* Algorithm choices, from the environment (called at init):
 * reduce_algo 0 auto, 1 gather, 2 rsag; crossover in bytes for auto. */
void shoal_coll_init(int reduce_algo, size_t reduce_crossover);
/* bcast_algo 0 auto, 1 get, 2 tree; auto uses the tree up to crossover bytes. */
void shoal_coll_bcast_config(int bcast_algo, size_t crossover);
/* Smallest multi-threaded collective (bytes) whose data the threads split. */
void shoal_coll_mt_config(size_t min_bytes);

/* Reduction operators and element types (generated wrappers name them).
 * The types are the spec's reduction types table, SHOAL_FOREACH_REDUCE_TYPE
 * of the generated shoal_types.h (tools/gen/api_table.py). */
enum shoal_red_op {
    SHOAL_RED_AND,
    SHOAL_RED_OR,
    SHOAL_RED_XOR,
    SHOAL_RED_MAX,
    SHOAL_RED_MIN,
    SHOAL_RED_SUM,
    SHOAL_RED_PROD
};
enum shoal_red_type {
#define SHOAL_X(DT, T, U, K) SHOAL_DT_##DT,
    SHOAL_FOREACH_REDUCE_TYPE(SHOAL_X)
#undef SHOAL_X
        SHOAL_DT_COUNT
};

/* Team forms.  Sizes are in bytes except where an element size is given. */
int shoal_coll_broadcast(shmem_team_t team, void *dest, const void *source, size_t nbytes, int root,
                         const char *fn);
int shoal_coll_collect(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                       const char *fn);
int shoal_coll_fcollect(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                        const char *fn);
int shoal_coll_alltoall(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                        const char *fn);
int shoal_coll_alltoalls(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                         ptrdiff_t sst, size_t nelems, size_t esize, const char *fn);
int shoal_coll_reduce(shmem_team_t team, void *dest, const void *source, size_t nreduce, int op,
                      int type, const char *fn);
int shoal_coll_scan(shmem_team_t team, void *dest, const void *source, size_t nelems, int exclusive,
                    int type, const char *fn);
int shoal_coll_team_sync(shmem_team_t team, const char *fn);

/* Multi-threaded team forms (shmemx_*_mt): called by each of nthreads
 * threads of every member with the same arguments and its own thread_id
 * (0..nthreads-1); each thread moves its share and returns once the whole
 * collective is complete at this PE (coll/mt/: mt_sync.h; shares: mt_*.c). */
int shoal_coll_broadcast_mt(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                            int root, int nthreads, int thread_id, const char *fn);
int shoal_coll_fcollect_mt(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                           int nthreads, int thread_id, const char *fn);
int shoal_coll_alltoall_mt(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                           int nthreads, int thread_id, const char *fn);
int shoal_coll_reduce_mt(shmem_team_t team, void *dest, const void *source, size_t nreduce, int op,
                         int type, int nthreads, int thread_id, const char *fn);

/* Active-set forms (deprecated). */
void shoal_coll_aset_barrier(int start, int log_stride, int size, long *pSync, int quiet,
                             const char *fn);
void shoal_coll_aset_broadcast(void *dest, const void *source, size_t nbytes, int root, int start,
                               int log_stride, int size, long *pSync, const char *fn);
void shoal_coll_aset_collect(void *dest, const void *source, size_t nbytes, int start,
                             int log_stride, int size, long *pSync, const char *fn);
void shoal_coll_aset_fcollect(void *dest, const void *source, size_t nbytes, int start,
                              int log_stride, int size, long *pSync, const char *fn);
void shoal_coll_aset_alltoall(void *dest, const void *source, size_t nbytes, int start,
                              int log_stride, int size, long *pSync, const char *fn);
void shoal_coll_aset_alltoalls(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                               size_t nelems, size_t esize, int start, int log_stride, int size,
                               long *pSync, const char *fn);
void shoal_coll_to_all(void *dest, const void *source, int nreduce, int start, int log_stride,
                       int size, void *pWrk, long *pSync, int op, int type, const char *fn);
#endif
