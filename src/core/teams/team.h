/* Teams: creation by splitting a parent team, destruction, queries.
 * Every team is a strided subset of the world (struct shoal_team in
 * state.h); its collectives synchronize through its slot's block in the
 * ctl area.  Slots are agreed on by the parent team at split time, with
 * an OR-allreduce of the members' used-slot masks (so a slot is free on
 * every member of the new team), over the parent's group (sync.h). */
#ifndef SHOAL_CORE_TEAM_H
#define SHOAL_CORE_TEAM_H
#include <shmem.h>

#include "core/state.h"

/* Predefined teams (world, shared) at init; forget user teams at the last
 * finalize. */
void shoal_teams_init(void);
void shoal_teams_fini(void);

int shoal_team_split_strided(struct shoal_team *parent, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team, const char *fn);
int shoal_team_split_2d(struct shoal_team *parent, int xrange, const shmem_team_config_t *xconfig,
                        long xmask, shmem_team_t *xteam, const shmem_team_config_t *yconfig,
                        long ymask, shmem_team_t *yteam, const char *fn);
void shoal_team_destroy(struct shoal_team *team, const char *fn);

/* This PE's live team in ctl slot `slot`, or NULL (none, or not a member). */
struct shoal_team *shoal_team_at_slot(int slot);

/* World PE of team PE `pe`. */
static inline int shoal_team_world_pe(const struct shoal_team *t, int pe)
{
    return t->start + pe * t->stride;
}
/* Team PE of world PE `wpe`, or -1 if it is not a member. */
static inline int shoal_team_pe_of_world(const struct shoal_team *t, int wpe)
{
    long rel = (long)wpe - t->start;
    if (t->size == 1)
        return rel == 0 ? 0 : -1;
    if (rel % t->stride)
        return -1;
    long i = rel / t->stride;
    return i >= 0 && i < t->size ? (int)i : -1;
}
#endif
