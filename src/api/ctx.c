/* Communication management (contexts) and sessions. */
#include "api/export.h"
#include "core/ctx.h"
#include "core/ops.h"
#include "core/profile/profile.h"

SHOAL_EXPORT int pshmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    int rc;
    SHOAL_PROFILED(SHOAL_PROF_CTX, 0,
                   rc = shoal_ctx_create(&shoal_team_world, options, ctx, "shmem_ctx_create"));
    return rc;
}
SHOAL_WEAK_ALIAS(shmem_ctx_create, pshmem_ctx_create)

SHOAL_EXPORT int pshmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    if (team == SHMEM_TEAM_INVALID) {
        if (ctx)
            *ctx = SHMEM_CTX_INVALID;
        return 1;
    }
    int rc;
    SHOAL_PROFILED(SHOAL_PROF_CTX, 0,
                   rc = shoal_ctx_create(team, options, ctx, "shmem_team_create_ctx"));
    return rc;
}
SHOAL_WEAK_ALIAS(shmem_team_create_ctx, pshmem_team_create_ctx)

SHOAL_EXPORT void pshmem_ctx_destroy(shmem_ctx_t ctx)
{
    SHOAL_PROFILED(SHOAL_PROF_CTX, 0, shoal_ctx_destroy(ctx, "shmem_ctx_destroy"));
}
SHOAL_WEAK_ALIAS(shmem_ctx_destroy, pshmem_ctx_destroy)

SHOAL_EXPORT int pshmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (ctx == SHMEM_CTX_INVALID || ctx->magic != SHOAL_CTX_LIVE) {
        if (team)
            *team = SHMEM_TEAM_INVALID;
        return 1;
    }
    if (!team)
        shoal_fatal("shmem_ctx_get_team", "argument 'team' is a null pointer");
    *team = ctx->team;
    return 0;
}
SHOAL_WEAK_ALIAS(shmem_ctx_get_team, pshmem_ctx_get_team)

/* Sessions are hints (spec): on-node every operation completes at once, so
 * there is nothing to batch; the arguments are still checked. */
SHOAL_EXPORT void pshmem_ctx_session_start(shmem_ctx_t ctx, long options,
                                           const shmem_ctx_session_config_t *config,
                                           long config_mask)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    shoal_ctx_check(ctx, "shmem_ctx_session_start");
    if (options & ~(long)SHMEM_CTX_SESSION_BATCH)
        shoal_warn("shmem_ctx_session_start", "argument 'options' = %#lx has unknown bits",
                   options);
    if ((config_mask & SHMEM_CTX_SESSION_TOTAL_OPS) && !config)
        shoal_fatal("shmem_ctx_session_start",
                    "argument 'config' is a null pointer but 'config_mask' selects fields");
}
SHOAL_WEAK_ALIAS(shmem_ctx_session_start, pshmem_ctx_session_start)

SHOAL_EXPORT void pshmem_ctx_session_stop(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    shoal_ctx_check(ctx, "shmem_ctx_session_stop");
}
SHOAL_WEAK_ALIAS(shmem_ctx_session_stop, pshmem_ctx_session_stop)
