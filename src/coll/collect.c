/* Collect (blocks of any size, concatenated in member order) and fcollect
 * (equal blocks): sync; every member pulls every block into its dest,
 * starting with its own and going round so members do not all read the
 * same peer at once; sync (the sources stay unchanged until everyone has
 * pulled them).  For collect each member first publishes its block size in
 * the group's scratch; the offsets are the prefix sums of those sizes.
 *
 * On a team whose members share this node the gather lines
 * (gather_ring.c) replace the entry sync: every member posts its block,
 * or for collect just its size when the block does not fit a line, and
 * reads every member's line.  When every block is in the lines (fcollect:
 * up to SHOAL_GATHER_INLINE bytes, decided alike everywhere; collect: the
 * sizes read, the same everywhere) that is the whole collective, with no
 * sync at all; otherwise the members pull the blocks with the sizes they
 * just read and end with the usual sync. */
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "core/config/log.h"

static void gather_blocks(const struct shoal_group *g, void *dest, const void *source,
                          const size_t *off, const size_t *len, const char *fn)
{
    for (int k = 0; k < g->size; k++) {
        int j = (g->me + k) % g->size;
        if (!len[j])
            continue;
        if (j == g->me)
            memmove((char *)dest + off[j], source, len[j]);
        else
            shoal_get(SHMEM_CTX_DEFAULT, (char *)dest + off[j], source, len[j],
                      shoal_group_pe(g, j), fn);
    }
}

/* Block j goes to dest + off[j], blocks in member order; dest must hold
 * them all (the sizes came from the other members: their sum is checked
 * here, the same on every member). */
static void place_blocks(const struct shoal_group *g, const void *dest, size_t *off,
                         const size_t *len, const char *fn)
{
    size_t total = 0;
    for (int j = 0; j < g->size; j++) {
        off[j] = total;
        if (__builtin_add_overflow(total, len[j], &total))
            shoal_fatal(fn, "the members' 'nelems' add up to more bytes than the address space "
                            "holds");
    }
    shoal_coll_check_buf(dest, 1, total, "dest", "nelems", fn);
}

/* Every member's source holds its block; fcollect's dest holds them all. */
static void check_buffers(const struct shoal_group *g, void *dest, const void *source,
                          size_t nbytes, int fixed, const char *fn)
{
    shoal_coll_check_buf(source, 1, nbytes, "source", "nelems", fn);
    if (fixed)
        shoal_coll_check_buf(dest, (size_t)g->size, nbytes, "dest", "nelems", fn);
}

static void collect_ring(const struct shoal_group *g, void *dest, const void *source, size_t nbytes,
                         const char *fn)
{
    size_t *off = malloc(2 * (size_t)g->size * sizeof *off);
    const void **blk = malloc((size_t)g->size * sizeof *blk);
    if (!off || !blk)
        shoal_fatal(fn, "out of private memory for %d block offsets", g->size);
    size_t *len = off + g->size;
    int inline_all = 1;
    const uint64_t round = shoal_gather_post(g, source, nbytes, fn);
    for (int k = 0; k < g->size; k++) {
        int j = (g->me + k) % g->size; /* as gather_blocks: not all on one peer */
        blk[j] = shoal_gather_line(g, j, round, &len[j], fn);
        inline_all &= len[j] <= SHOAL_GATHER_INLINE;
    }
    place_blocks(g, dest, off, len, fn);
    if (inline_all) {
        for (int j = 0; j < g->size; j++)
            memcpy((char *)dest + off[j], blk[j], len[j]);
    } else {
        gather_blocks(g, dest, source, off, len, fn);
        shoal_gather_done(g, round, fn); /* the sources stay unchanged until all have pulled */
    }
    free(blk);
    free(off);
}

static void fcollect_ring(const struct shoal_group *g, void *dest, const void *source,
                          size_t nbytes, const char *fn)
{
    const uint64_t round = shoal_gather_post(g, source, nbytes, fn);
    size_t got;
    for (int k = 0; k < g->size; k++) {
        int j = (g->me + k) % g->size;
        memcpy((char *)dest + (size_t)j * nbytes, shoal_gather_line(g, j, round, &got, fn), nbytes);
    }
}

static void collect_group(const struct shoal_group *g, void *dest, const void *source,
                          size_t nbytes, int fixed, const char *fn)
{
    size_t *off = malloc(2 * (size_t)g->size * sizeof *off);
    if (!off)
        shoal_fatal(fn, "out of private memory for %d block offsets", g->size);
    size_t *len = off + g->size;
    if (!fixed)
        __atomic_store_n(&g->scratch[0], (uint64_t)nbytes, __ATOMIC_RELEASE);
    if (g->size > 1)
        shoal_group_sync(g, fn);
    for (int j = 0; j < g->size; j++) {
        uint64_t n = nbytes;
        if (!fixed && j != g->me)
            shoal_get(SHMEM_CTX_DEFAULT, &n, &g->scratch[0], sizeof n, shoal_group_pe(g, j), fn);
        len[j] = (size_t)n;
    }
    place_blocks(g, dest, off, len, fn);
    gather_blocks(g, dest, source, off, len, fn);
    if (g->size > 1)
        shoal_group_sync(g, fn);
    if (!fixed)
        g->scratch[0] = 0; /* everyone has read it: back to rest */
    free(off);
}

/* collect (sizes may differ between PEs: the signature check skips them)
 * and fcollect: the gather line when it can hold the blocks (a team on
 * this node, or the active set of every PE there), else blocks. */
static void collect_any(const struct shoal_group *g, void *dest, const void *source, size_t nbytes,
                        int fixed, const char *fn)
{
    check_buffers(g, dest, source, nbytes, fixed, fn);
    int line = ((!fixed || nbytes <= SHOAL_GATHER_INLINE) && shoal_gather_usable(g)) ||
               (fixed && nbytes <= SHOAL_GATHER_INLINE && shoal_gather_net_usable(g));
    const int msgs = fixed && shoal_coll_msgs_usable(g);
    SHOAL_LOG(SHOAL_LOG_COLL, SHOAL_LOG_DEBUG, "%s: %zu bytes: %s", fn, nbytes,
              msgs   ? "messages"
              : line ? "gather line"
                     : "blocks");
    if (msgs)
        shoal_fcollect_msgs(g, dest, source, nbytes, fn);
    else if (line && fixed)
        fcollect_ring(g, dest, source, nbytes, fn);
    else if (line)
        collect_ring(g, dest, source, nbytes, fn);
    else
        collect_group(g, dest, source, nbytes, fixed, fn);
}

/* A collect's members may differ in size: its signature has none. */
static uint64_t collect_sig(size_t nbytes, int fixed)
{
    return fixed ? shoal_call_sig(SHOAL_CALL_FCOLLECT, 0, 0, 0, nbytes)
                 : shoal_call_sig(SHOAL_CALL_COLLECT, 0, 0, 0, 0);
}

static int collect_team(shmem_team_t team, void *dest, const void *source, size_t nbytes, int fixed,
                        const char *fn)
{
    if (shoal_team_usable(team, fn))
        return -1;
    struct shoal_group g;
    shoal_group_of_team(&g, team, collect_sig(nbytes, fixed), nbytes, fn);
    shoal_group_debug_check(&g, fn, fixed ? nbytes : 0, 0);
    collect_any(&g, dest, source, nbytes, fixed, fn);
    return 0;
}

int shoal_coll_collect(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                       const char *fn)
{
    return collect_team(team, dest, source, nbytes, 0, fn);
}

int shoal_coll_fcollect(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                        const char *fn)
{
    return collect_team(team, dest, source, nbytes, 1, fn);
}

void shoal_coll_aset_collect(void *dest, const void *source, size_t nbytes, int start,
                             int log_stride, int size, long *pSync, const char *fn)
{
    struct shoal_group g;
    if (shoal_group_of_aset(&g, start, log_stride, size, pSync, collect_sig(nbytes, 0), nbytes, fn))
        return;
    collect_any(&g, dest, source, nbytes, 0, fn);
}

void shoal_coll_aset_fcollect(void *dest, const void *source, size_t nbytes, int start,
                              int log_stride, int size, long *pSync, const char *fn)
{
    struct shoal_group g;
    if (shoal_group_of_aset(&g, start, log_stride, size, pSync, collect_sig(nbytes, 1), nbytes, fn))
        return;
    collect_any(&g, dest, source, nbytes, 1, fn);
}
