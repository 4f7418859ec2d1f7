/* World synchronization of this issue: barrier_all and sync_all. */
#include "api/export.h"
#include "coll/coll.h"
#include "core/teams/sync.h"
#include "core/ops.h"
#include "core/profile/profile.h"

SHOAL_EXPORT void pshmem_barrier_all(void)
{
    shoal_check_init("shmem_barrier_all");
    SHOAL_PROFILED(SHOAL_PROF_BARRIER, 0, shoal_barrier_all_internal("shmem_barrier_all"));
}
SHOAL_WEAK_ALIAS(shmem_barrier_all, pshmem_barrier_all)

SHOAL_EXPORT void pshmem_sync_all(void)
{
    shoal_check_init("shmem_sync_all");
    SHOAL_PROFILED(SHOAL_PROF_SYNC, 0, shoal_sync_all_internal("shmem_sync_all"));
}
SHOAL_WEAK_ALIAS(shmem_sync_all, pshmem_sync_all)

SHOAL_EXPORT int pshmem_team_sync(shmem_team_t team)
{
    int rc;
    SHOAL_PROFILED(SHOAL_PROF_SYNC, 0, rc = shoal_coll_team_sync(team, "shmem_team_sync"));
    return rc;
}
SHOAL_WEAK_ALIAS(shmem_team_sync, pshmem_team_sync)

/* Deprecated active-set forms: barrier completes outstanding operations
 * first, sync does not. */
SHOAL_EXPORT void pshmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    SHOAL_PROFILED(
        SHOAL_PROF_BARRIER, 0,
        shoal_coll_aset_barrier(PE_start, logPE_stride, PE_size, pSync, 1, "shmem_barrier"));
}
SHOAL_WEAK_ALIAS(shmem_barrier, pshmem_barrier)

SHOAL_EXPORT void pshmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    SHOAL_PROFILED(
        SHOAL_PROF_SYNC, 0,
        shoal_coll_aset_barrier(PE_start, logPE_stride, PE_size, pSync, 0, "shmem_sync"));
}
SHOAL_WEAK_ALIAS(shmem_sync, pshmem_sync)
