/* Alltoall and alltoalls: sync; member i pulls block i of every member's
 * source into block j of its dest, visiting members in the order
 * i+1, i+2, ... (pairwise exchange: at every step each member reads from a
 * different peer, so nobody is a hot spot); sync.  On a team whose members
 * share this node the gather lines (gather_ring.c) stand in for the first
 * sync, and for both where every member's whole source fits a line. */
#include <string.h>

#include "coll/coll.h"
#include "coll/coll_internal.h"

static void pull_block(const struct shoal_group *g, int j, void *d, const void *s, size_t bytes,
                       const char *fn)
{
    if (j == g->me)
        memmove(d, s, bytes);
    else
        shoal_get(SHMEM_CTX_DEFAULT, d, s, bytes, shoal_group_pe(g, j), fn);
}

/* Each member posts its source in its line (or, when bigger than a line,
 * that it has entered), then takes its block from every member's line or
 * source; where it read the sources in place, they stay unchanged until
 * everyone has pulled (shoal_gather_done).  Where PEs outnumber CPUs each
 * sync is rounds of turns of the scheduler: back-to-back 8-byte alltoalls
 * of 4 PEs on 2 cores took 8.2-8.4 us with two syncs. */
static void alltoall_lines(const struct shoal_group *g, void *dest, const void *source,
                           size_t bytes, const char *fn)
{
    const size_t n = (size_t)g->size, all = n * bytes, mine = (size_t)g->me * bytes;
    const uint64_t round = shoal_gather_post(g, source, all, fn);
    for (size_t k = 0; k < n; k++) {
        int j = (int)(((size_t)g->me + k) % n);
        size_t got;
        const unsigned char *line = shoal_gather_line(g, j, round, &got, fn);
        if (got != all)
            shoal_fatal(fn,
                        "PE %d calls with %zu bytes for each of the %zu members, this PE with %zu: "
                        "the PEs do not make the same collective calls",
                        shoal_group_pe(g, j), got / n, n, bytes);
        char *d = (char *)dest + (size_t)j * bytes;
        if (all <= SHOAL_GATHER_INLINE)
            memcpy(d, line + mine, bytes);
        else
            pull_block(g, j, d, (const char *)source + mine, bytes, fn);
    }
    if (all > SHOAL_GATHER_INLINE)
        shoal_gather_done(g, round, fn);
}

/* An alltoalls' signature: its strides and element size where a
 * broadcast's root goes. */
static uint64_t strided_sig(ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t esize)
{
    const uint64_t shape = ((uint64_t)dst * 31 + (uint64_t)sst) * 31 + esize;
    return shoal_call_sig(SHOAL_CALL_ALLTOALLS, 0, 0, shape, nelems);
}

static void alltoall_group(const struct shoal_group *g, void *dest, const void *source,
                           ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t esize,
                           const char *fn)
{
    if (nelems == 0)
        return;
    const size_t n = (size_t)g->size;
    shoal_coll_check_strided(dest, n, nelems, dst, esize, "dest", "nelems", fn);
    shoal_coll_check_strided(source, n, nelems, sst, esize, "source", "nelems", fn);
    if (dst == 1 && sst == 1 && shoal_gather_usable(g)) {
        alltoall_lines(g, dest, source, nelems * esize, fn);
        return;
    }
    if (g->size > 1)
        shoal_group_sync(g, fn);
    for (size_t k = 0; k < n; k++) {
        int j = (int)(((size_t)g->me + k) % n);
        char *d = (char *)dest + (size_t)j * (size_t)dst * nelems * esize;
        const char *s = (const char *)source + (size_t)g->me * (size_t)sst * nelems * esize;
        if (dst == 1 && sst == 1) {
            pull_block(g, j, d, s, nelems * esize, fn);
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
    shoal_group_of_team(&g, team, shoal_call_sig(SHOAL_CALL_ALLTOALL, 0, 0, 0, nbytes), nbytes, fn);
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
    shoal_group_of_team(&g, team, strided_sig(dst, sst, nelems, esize), nelems, fn);
    shoal_group_debug_check(&g, fn, nelems, ((uint64_t)dst << 32) ^ (uint64_t)sst);
    alltoall_group(&g, dest, source, dst, sst, nelems, esize, fn);
    return 0;
}

void shoal_coll_aset_alltoall(void *dest, const void *source, size_t nbytes, int start,
                              int log_stride, int size, long *pSync, const char *fn)
{
    struct shoal_group g;
    if (shoal_group_of_aset(&g, start, log_stride, size, pSync,
                            shoal_call_sig(SHOAL_CALL_ALLTOALL, 0, 0, 0, nbytes), nbytes, fn))
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
    if (shoal_group_of_aset(&g, start, log_stride, size, pSync,
                            strided_sig(dst, sst, nelems, esize), nelems, fn))
        return;
    alltoall_group(&g, dest, source, dst, sst, nelems, esize, fn);
}
