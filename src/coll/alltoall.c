/* Alltoall and alltoalls: sync; member i pulls block i of every member's
 * source into block j of its dest, visiting members in the order
 * i+1, i+2, ... (pairwise exchange: at every step each member reads from a
 * different peer, so nobody is a hot spot); sync. */
#include <string.h>

#include "coll/coll.h"
#include "coll/coll_internal.h"

static void alltoall_group(const struct shoal_group *g, void *dest, const void *source,
                           ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t esize,
                           const char *fn)
{
    if (nelems == 0)
        return;
    const size_t n = (size_t)g->size;
    shoal_coll_check_strided(dest, n, nelems, dst, esize, "dest", "nelems", fn);
    shoal_coll_check_strided(source, n, nelems, sst, esize, "source", "nelems", fn);
    if (g->size > 1)
        shoal_group_sync_sig(g, fn, nelems, ((uint64_t)dst << 32) ^ (uint64_t)sst,
                             n * nelems * esize, 1);
    for (size_t k = 0; k < n; k++) {
        int j = (int)(((size_t)g->me + k) % n);
        char *d = (char *)dest + (size_t)j * (size_t)dst * nelems * esize;
        const char *s = (const char *)source + (size_t)g->me * (size_t)sst * nelems * esize;
        if (dst == 1 && sst == 1) {
            if (j == g->me)
                memmove(d, s, nelems * esize);
            else
                shoal_get(SHMEM_CTX_DEFAULT, d, s, nelems * esize, shoal_group_pe(g, j), fn);
        } else {
            shoal_iget(SHMEM_CTX_DEFAULT, d, s, dst, sst, nelems, esize, shoal_group_pe(g, j), fn);
        }
    }
    if (g->size > 1)
        shoal_group_sync(g, fn);
}

int shoal_coll_alltoall(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                        const char *fn)
{
    if (shoal_team_usable(team, fn))
        return -1;
    struct shoal_group g;
    shoal_group_of_team(&g, team);
    shoal_group_debug_check(&g, fn, nbytes, 0);
    alltoall_group(&g, dest, source, 1, 1, nbytes, 1, fn);
    return 0;
}

int shoal_coll_alltoalls(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                         ptrdiff_t sst, size_t nelems, size_t esize, const char *fn)
{
    if (shoal_team_usable(team, fn))
        return -1;
    if (dst < 1 || sst < 1)
        shoal_fatal(fn, "arguments 'dst' = %td and 'sst' = %td must be >= 1", dst, sst);
    struct shoal_group g;
    shoal_group_of_team(&g, team);
    shoal_group_debug_check(&g, fn, nelems, ((uint64_t)dst << 32) ^ (uint64_t)sst);
    alltoall_group(&g, dest, source, dst, sst, nelems, esize, fn);
    return 0;
}

void shoal_coll_aset_alltoall(void *dest, const void *source, size_t nbytes, int start,
                              int log_stride, int size, long *pSync, const char *fn)
{
    struct shoal_group g;
    if (shoal_group_of_aset(&g, start, log_stride, size, pSync, fn))
        return;
    alltoall_group(&g, dest, source, 1, 1, nbytes, 1, fn);
}

void shoal_coll_aset_alltoalls(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                               size_t nelems, size_t esize, int start, int log_stride, int size,
                               long *pSync, const char *fn)
{
    if (dst < 1 || sst < 1)
        shoal_fatal(fn, "arguments 'dst' = %td and 'sst' = %td must be >= 1", dst, sst);
    struct shoal_group g;
    if (shoal_group_of_aset(&g, start, log_stride, size, pSync, fn))
        return;
    alltoall_group(&g, dest, source, dst, sst, nelems, esize, fn);
}
