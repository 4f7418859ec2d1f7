/* Broadcast: sync; every member but the root pulls the root's source; sync.
 * On one node the pulls are concurrent loads from the root's mapped
 * memory, which beats any tree: a tree only adds hops.  The final sync
 * keeps the root's source unchanged until every member has its copy. */
#include <string.h>

#include "coll/coll.h"
#include "coll/group.h"

static void broadcast_group(const struct shoal_group *g, void *dest, const void *source,
                            size_t nbytes, int root, int update_root, const char *fn)
{
    if (root < 0 || root >= g->size)
        shoal_fatal(fn, "argument 'PE_root' = %d is not a member (0..%d)", root, g->size - 1);
    if (g->size == 1 || nbytes == 0) {
        if (update_root && nbytes && dest != source)
            memmove(dest, source, nbytes);
        return;
    }
    shoal_group_sync(g, fn);
    if (g->me != root)
        shoal_get(SHMEM_CTX_DEFAULT, dest, source, nbytes, shoal_group_pe(g, root), fn);
    else if (update_root && dest != source)
        memmove(dest, source, nbytes);
    shoal_group_sync(g, fn);
}

int shoal_coll_broadcast(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                         int root, const char *fn)
{
    if (shoal_team_usable(team, fn))
        return -1;
    struct shoal_group g;
    shoal_group_of_team(&g, team);
    broadcast_group(&g, dest, source, nbytes, root, 1, fn);
    return 0;
}

void shoal_coll_aset_broadcast(void *dest, const void *source, size_t nbytes, int root, int start,
                               int log_stride, int size, long *pSync, const char *fn)
{
    struct shoal_group g;
    shoal_group_of_aset(&g, start, log_stride, size, pSync, fn);
    /* The active-set form leaves the root's dest alone (spec). */
    broadcast_group(&g, dest, source, nbytes, root, 0, fn);
}
