/* World synchronization of this issue: barrier_all and sync_all. */
#include "api/prof.h"
#include "coll/coll.h"
#include "core/ops.h"

static void check_init(const char *fn)
{
    if (SHOAL_UNLIKELY(shoal_g.init_count == 0 || shoal_g.finalized))
        shoal_err_not_init(fn);
}

SHOAL_EXPORT void pshmem_barrier_all(void)
{
    check_init("shmem_barrier_all");
    shoal_barrier_all_internal();
}
SHOAL_WEAK_ALIAS(shmem_barrier_all, pshmem_barrier_all)

SHOAL_EXPORT void pshmem_sync_all(void)
{
    check_init("shmem_sync_all");
    shoal_sync_all_internal();
}
SHOAL_WEAK_ALIAS(shmem_sync_all, pshmem_sync_all)
