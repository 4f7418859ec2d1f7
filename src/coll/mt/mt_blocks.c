/* Multi-threaded fcollect and alltoall (shmemx_team_fcollectmem_mt,
 * shmemx_team_alltoallmem_mt): both fill dest with one block of nbytes
 * from every member j, in member order — fcollect block j is member j's
 * source, alltoall block j is block `me` of member j's source.
 *
 * From SHOAL_COLL_MT_MIN bytes of dest: the leader syncs the team; the
 * size * nbytes bytes of dest are split into the threads' shares
 * (mt_sync.h: contiguous, ceil(total / nthreads) rounded up to 64 bytes,
 * in thread order; a share may span several blocks or part of one), and
 * each thread pulls the parts of the blocks its share covers; the leader
 * syncs the team once every thread is done, so that no source changes
 * while a peer still pulls it.  Smaller ones: the leader runs the
 * standard routine alone. */
#include <string.h>

#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "coll/mt/mt_sync.h"

/* Bytes [lo, hi) of dest; block j's bytes start at `src_off` in member
 * j's source. */
static void pull_range(const struct shoal_mt *m, void *dest, const void *source, size_t nbytes,
                       size_t src_off, size_t lo, size_t hi, const char *fn)
{
    while (lo < hi) {
        size_t j = lo / nbytes, in = lo - j * nbytes;
        size_t n = nbytes - in < hi - lo ? nbytes - in : hi - lo;
        char *d = (char *)dest + lo;
        const char *s = (const char *)source + src_off + in;
        if ((int)j == m->g.me)
            memmove(d, s, n);
        else
            shoal_get(SHMEM_CTX_DEFAULT, d, s, n, shoal_group_pe(&m->g, (int)j), fn);
        lo += n;
    }
}

static void blocks_mt(struct shoal_mt *m, shmem_team_t team, void *dest, const void *source,
                      size_t nbytes, int alltoall, const char *fn)
{
    const struct shoal_mt_sig sig = {dest, source, nbytes, 0};
    const int kind = (alltoall ? SHOAL_CALL_ALLTOALL : SHOAL_CALL_FCOLLECT) | SHOAL_CALL_MT;
    shoal_mt_begin(m, team, &sig, shoal_call_sig(kind, 0, 0, 0, nbytes), nbytes, 0, SHOAL_MT_SYNC,
                   fn);
    size_t lo, hi;
    shoal_mt_share((size_t)m->g.size * nbytes, SHOAL_CACHELINE, m->nthreads, m->tid, &lo, &hi);
    size_t src_off = alltoall ? (size_t)m->g.me * nbytes : 0;
    pull_range(m, dest, source, nbytes, src_off, lo, hi, fn);
    shoal_mt_end(m, 1, fn);
}

/* Below SHOAL_COLL_MT_MIN: the leader alone, with the standard routine. */
static int solo(struct shoal_mt *m, shmem_team_t team, void *dest, const void *source,
                size_t nbytes, int alltoall, const char *fn)
{
    const struct shoal_mt_sig sig = {dest, source, nbytes, 0};
    int rc = 0;
    if (shoal_mt_solo(m, team, &sig, fn)) {
        rc = alltoall ? shoal_coll_alltoall(team, dest, source, nbytes, fn)
                      : shoal_coll_fcollect(team, dest, source, nbytes, fn);
        shoal_mt_release(m);
    }
    return rc;
}

static int run(shmem_team_t team, void *dest, const void *source, size_t nbytes, int alltoall,
               int nthreads, int thread_id, const char *fn)
{
    struct shoal_mt m;
    if (shoal_mt_open(&m, team, nthreads, thread_id, fn))
        return -1;
    if (nthreads == 1)
        return alltoall ? shoal_coll_alltoall(team, dest, source, nbytes, fn)
                        : shoal_coll_fcollect(team, dest, source, nbytes, fn);
    shoal_coll_check_buf(dest, (size_t)team->size, nbytes, "dest", "nelems", fn);
    shoal_coll_check_buf(source, alltoall ? (size_t)team->size : 1, nbytes, "source", "nelems", fn);
    if (nbytes == 0 || (size_t)team->size * nbytes < shoal_mt_min_bytes)
        return solo(&m, team, dest, source, nbytes, alltoall, fn);
    blocks_mt(&m, team, dest, source, nbytes, alltoall, fn);
    return 0;
}

int shoal_coll_fcollect_mt(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                           int nthreads, int thread_id, const char *fn)
{
    return run(team, dest, source, nbytes, 0, nthreads, thread_id, fn);
}

int shoal_coll_alltoall_mt(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                           int nthreads, int thread_id, const char *fn)
{
    return run(team, dest, source, nbytes, 1, nthreads, thread_id, fn);
}
