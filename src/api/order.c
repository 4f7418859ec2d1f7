/* Memory ordering: fence, quiet, pe_quiet. */
#include "api/export.h"
#include "core/ops.h"
#include "core/profile/profile.h"

SHOAL_EXPORT void pshmem_fence(void)
{
    SHOAL_PROFILED(SHOAL_PROF_FENCE, 0, shoal_fence(SHMEM_CTX_DEFAULT, "shmem_fence"));
}
SHOAL_WEAK_ALIAS(shmem_fence, pshmem_fence)
SHOAL_EXPORT void pshmem_ctx_fence(shmem_ctx_t ctx)
{
    SHOAL_PROFILED(SHOAL_PROF_FENCE, 0, shoal_fence(ctx, "shmem_ctx_fence"));
}
SHOAL_WEAK_ALIAS(shmem_ctx_fence, pshmem_ctx_fence)

SHOAL_EXPORT void pshmem_quiet(void)
{
    SHOAL_PROFILED(SHOAL_PROF_QUIET, 0, shoal_quiet(SHMEM_CTX_DEFAULT, "shmem_quiet"));
}
SHOAL_WEAK_ALIAS(shmem_quiet, pshmem_quiet)
SHOAL_EXPORT void pshmem_ctx_quiet(shmem_ctx_t ctx)
{
    SHOAL_PROFILED(SHOAL_PROF_QUIET, 0, shoal_quiet(ctx, "shmem_ctx_quiet"));
}
SHOAL_WEAK_ALIAS(shmem_ctx_quiet, pshmem_ctx_quiet)

SHOAL_EXPORT void pshmem_pe_quiet(const int *target_pes, size_t npes)
{
    SHOAL_PROFILED(SHOAL_PROF_QUIET, 0,
                   shoal_pe_quiet(SHMEM_CTX_DEFAULT, target_pes, npes, "shmem_pe_quiet"));
}
SHOAL_WEAK_ALIAS(shmem_pe_quiet, pshmem_pe_quiet)
SHOAL_EXPORT void pshmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    SHOAL_PROFILED(SHOAL_PROF_QUIET, 0,
                   shoal_pe_quiet(ctx, target_pes, npes, "shmem_ctx_pe_quiet"));
}
SHOAL_WEAK_ALIAS(shmem_ctx_pe_quiet, pshmem_ctx_pe_quiet)
