/* Multi-threaded broadcast (shmemx_team_broadcastmem_mt).
 *
 * From SHOAL_COLL_MT_MIN bytes: the get algorithm of broadcast.c with the
 * pull split between the threads.  The leader syncs the team (the root's
 * source is ready, every dest is free); thread t of every non-root member
 * pulls bytes [lo, hi) of the root's source (its share, mt_sync.h: one
 * contiguous piece of ceil(nbytes / nthreads) bytes rounded up to 64, in
 * thread order) into dest, the root's thread t copies its share of source
 * into its own dest; the leader syncs the team again once every thread is
 * done (no pull of this broadcast meets the root's next change of source).
 * Smaller broadcasts: the leader runs the standard broadcast alone (the
 * tree), since splitting a few cache lines costs more than it saves. */
#include <string.h>

#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "coll/mt/mt_sync.h"

static void pull_share(const struct shoal_mt *m, void *dest, const void *source, size_t nbytes,
                       int root, const char *fn)
{
    size_t lo, hi;
    shoal_mt_share(nbytes, SHOAL_CACHELINE, m->nthreads, m->tid, &lo, &hi);
    if (lo == hi)
        return;
    char *d = (char *)dest + lo;
    const char *s = (const char *)source + lo;
    if (m->g.me != root)
        shoal_get(SHMEM_CTX_DEFAULT, d, s, hi - lo, shoal_group_pe(&m->g, root), fn);
    else if (d != s)
        memmove(d, s, hi - lo);
}

int shoal_coll_broadcast_mt(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                            int root, int nthreads, int thread_id, const char *fn)
{
    struct shoal_mt m;
    if (shoal_mt_open(&m, team, nthreads, thread_id, fn))
        return -1;
    if (nthreads == 1)
        return shoal_coll_broadcast(team, dest, source, nbytes, root, fn);
    if (root < 0 || root >= team->size)
        shoal_fatal(fn, "argument 'PE_root' = %d is not a member (0..%d)", root, team->size - 1);
    shoal_coll_check_buf(source, 1, nbytes, "source", "nelems", fn);
    shoal_coll_check_buf(dest, 1, nbytes, "dest", "nelems", fn);
    const struct shoal_mt_sig sig = {dest, source, nbytes, root};
    int rc = 0;
    if (nbytes < shoal_mt_min_bytes) {
        if (shoal_mt_solo(&m, team, &sig, fn)) {
            rc = shoal_coll_broadcast(team, dest, source, nbytes, root, fn);
            shoal_mt_release(&m);
        }
        return rc;
    }
    shoal_mt_begin(&m, team, &sig,
                   shoal_call_sig(SHOAL_CALL_BCAST | SHOAL_CALL_MT, 0, 0, (uint64_t)root, nbytes),
                   nbytes, (uint64_t)root, SHOAL_MT_SYNC, fn);
    pull_share(&m, dest, source, nbytes, root, fn);
    shoal_mt_end(&m, 1, fn);
    return 0;
}
