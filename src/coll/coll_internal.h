/* Declarations shared by the files of coll/ (not used outside it). */
#ifndef SHOAL_COLL_INTERNAL_H
#define SHOAL_COLL_INTERNAL_H
#include "core/sync.h"

/* The group of an active set, checked (fatal on bad arguments).  Returns
 * 0 for a member; -1 when this PE is not in the set, which then returns
 * from the collective without touching anything (g is not filled in). */
int shoal_group_of_aset(struct shoal_group *g, int start, int log_stride, int size, long *pSync,
                        const char *fn) __attribute__((warn_unused_result));

/* Checks a team handle for a team collective: 0 when usable; nonzero for
 * SHMEM_TEAM_INVALID or a team this PE is not in; fatal for a handle
 * that is not a team (destroyed or garbage). */
int shoal_team_usable(shmem_team_t team, const char *fn);

#endif
