/* Team management routines. */
#include "api/export.h"
#include "core/ops.h"
#include "core/profile/profile.h"
#include "core/teams/team.h"

/* A handle a query may look at: NULL for SHMEM_TEAM_INVALID (the queries
 * answer -1), fatal for a destroyed or garbage handle. */
static struct shoal_team *live(shmem_team_t team, const char *fn)
{
    shoal_check_init(fn);
    if (team == SHMEM_TEAM_INVALID)
        return NULL;
    if (team->magic != SHOAL_TEAM_LIVE)
        shoal_fatal(fn, "argument 'team' (%p) is not a live team (destroyed or never created)",
                    (void *)team);
    return team;
}

SHOAL_EXPORT int pshmem_team_my_pe(shmem_team_t team)
{
    struct shoal_team *t = live(team, "shmem_team_my_pe");
    return t ? t->my_pe : -1;
}
SHOAL_WEAK_ALIAS(shmem_team_my_pe, pshmem_team_my_pe)

SHOAL_EXPORT int pshmem_team_n_pes(shmem_team_t team)
{
    struct shoal_team *t = live(team, "shmem_team_n_pes");
    return t ? t->size : -1;
}
SHOAL_WEAK_ALIAS(shmem_team_n_pes, pshmem_team_n_pes)

SHOAL_EXPORT int pshmem_team_get_config(shmem_team_t team, long config_mask,
                                        shmem_team_config_t *config)
{
    struct shoal_team *t = live(team, "shmem_team_get_config");
    if (!t)
        return -1;
    if (config_mask == 0)
        return 0; /* 1.6: nothing asked, config may be NULL */
    if (!config)
        shoal_fatal("shmem_team_get_config",
                    "argument 'config' is a null pointer but 'config_mask' = %#lx selects fields",
                    config_mask);
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = t->num_contexts;
    return 0;
}
SHOAL_WEAK_ALIAS(shmem_team_get_config, pshmem_team_get_config)

SHOAL_EXPORT int pshmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    struct shoal_team *s = live(src_team, "shmem_team_translate_pe");
    struct shoal_team *d = live(dest_team, "shmem_team_translate_pe");
    if (!s || !d || src_pe < 0 || src_pe >= s->size)
        return -1;
    return shoal_team_pe_of_world(d, shoal_team_world_pe(s, src_pe));
}
SHOAL_WEAK_ALIAS(shmem_team_translate_pe, pshmem_team_translate_pe)

SHOAL_EXPORT int pshmem_team_split_strided(shmem_team_t parent_team, int start, int stride,
                                           int size, const shmem_team_config_t *config,
                                           long config_mask, shmem_team_t *new_team)
{
    int rc;
    SHOAL_PROFILED(SHOAL_PROF_TEAM, 0,
                   rc =
                       shoal_team_split_strided(parent_team, start, stride, size, config,
                                                config_mask, new_team, "shmem_team_split_strided"));
    return rc;
}
SHOAL_WEAK_ALIAS(shmem_team_split_strided, pshmem_team_split_strided)

SHOAL_EXPORT int pshmem_team_split_2d(shmem_team_t parent_team, int xrange,
                                      const shmem_team_config_t *xaxis_config, long xaxis_mask,
                                      shmem_team_t *xaxis_team,
                                      const shmem_team_config_t *yaxis_config, long yaxis_mask,
                                      shmem_team_t *yaxis_team)
{
    int rc;
    SHOAL_PROFILED(SHOAL_PROF_TEAM, 0,
                   rc = shoal_team_split_2d(parent_team, xrange, xaxis_config, xaxis_mask,
                                            xaxis_team, yaxis_config, yaxis_mask, yaxis_team,
                                            "shmem_team_split_2d"));
    return rc;
}
SHOAL_WEAK_ALIAS(shmem_team_split_2d, pshmem_team_split_2d)

SHOAL_EXPORT void pshmem_team_destroy(shmem_team_t team)
{
    SHOAL_PROFILED(SHOAL_PROF_TEAM, 0, shoal_team_destroy(team, "shmem_team_destroy"));
}
SHOAL_WEAK_ALIAS(shmem_team_destroy, pshmem_team_destroy)
