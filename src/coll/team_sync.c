/* Team and active-set synchronization of the API (shmem_team_sync, the
 * deprecated shmem_barrier / shmem_sync on active sets), and the checks
 * every collective makes of its team or active set. */
#include "coll/coll_internal.h"

#include <string.h>

#include "coll/coll.h"

/* SHMEM_DEBUG: an outsider's call is legal but usually a mistake in newer
 * code, so say so, once per routine (routine names are string literals of
 * the wrappers: a small table of the ones already reported). */
static void warn_outsider_once(int start, int log_stride, int size, const char *fn)
{
    static const char *warned[256];
    for (size_t i = 0; i < sizeof warned / sizeof warned[0]; i++) {
        const char *seen = __atomic_load_n(&warned[i], __ATOMIC_ACQUIRE);
        if (seen && strcmp(seen, fn) == 0)
            return;
        if (!seen && __atomic_compare_exchange_n(&warned[i], &seen, fn, 0, __ATOMIC_ACQ_REL,
                                                 __ATOMIC_ACQUIRE))
            break;
        if (seen && strcmp(seen, fn) == 0) /* another thread took slot i for fn */
            return;
    }
    shoal_warn(fn,
               "this PE is not in the active set (PE_start %d, logPE_stride %d, PE_size %d); "
               "the call returns without doing anything",
               start, log_stride, size);
}

int shoal_group_of_aset(struct shoal_group *g, int start, int log_stride, int size, long *pSync,
                        uint64_t sig, uint64_t nsize, const char *fn)
{
    if (SHOAL_UNLIKELY(shoal_g.init_count == 0 || shoal_g.finalized))
        shoal_err_not_init(fn);
    if (start < 0 || start >= shoal_g.n_pes)
        shoal_fatal(fn, "argument 'PE_start' = %d is not a PE (the job has PEs 0..%d)", start,
                    shoal_g.n_pes - 1);
    if (log_stride < 0 || log_stride > 30)
        shoal_fatal(fn, "argument 'logPE_stride' = %d is out of range", log_stride);
    long stride = 1L << log_stride;
    if (size < 1 || start + (long)(size - 1) * stride >= shoal_g.n_pes)
        shoal_fatal(fn,
                    "argument 'PE_size' = %d: the active set (PE_start %d, stride %ld) runs past "
                    "the last PE %d",
                    size, start, stride, shoal_g.n_pes - 1);
    if (!pSync)
        shoal_fatal(fn, "argument 'pSync' is a null pointer");
    /* Older programs call these from every PE with a smaller active set;
     * the others ignore such a call (as other implementations do). */
    long rel = shoal_g.my_pe - start;
    if (rel < 0 || rel % stride || rel / stride >= size) {
        if (shoal_g.debug)
            warn_outsider_once(start, log_stride, size, fn);
        return -1;
    }
    /* The set of every PE (most programs' only one) runs on the world
     * team's state and leaves pSync alone, which keeps its initial values:
     * its signals then only grow (a consumed one costs an AMO on this PE,
     * through the network a round trip), and small broadcasts on one node
     * take the ring, without acknowledgements.  Under
     * SHMEM_THREAD_MULTIPLE threads may run collectives on the same set
     * at once with different pSync arrays, so there pSync is used. */
    if (start == 0 && size == shoal_g.n_pes && (stride == 1 || size == 1) &&
        shoal_g.thread_level != SHMEM_THREAD_MULTIPLE) {
        shoal_group_of_team(g, &shoal_team_world, sig, nsize, fn);
        return 0;
    }
    /* pSync must be symmetric: checked where a peer first signals it. */
    g->start = start;
    g->stride = (int)stride;
    g->size = size;
    g->me = (int)(rel / stride);
    g->sync = (uint64_t *)pSync;
    g->seen = NULL; /* pSync returns to its initial value: signals are consumed */
    g->scratch = (uint64_t *)pSync + SHOAL_GROUP_SYNC_WORDS;
    g->team_slot = -2;
    g->seq = 0;
    g->ring = NULL;
    g->on_node = 0;
    g->round0 = SHOAL_GROUP_ASET_ROUND0;
    g->round_stride = 1;
    g->sig = 0; /* pSync has no room for signatures */
    return 0;
}

int shoal_team_usable(shmem_team_t team, const char *fn)
{
    if (SHOAL_UNLIKELY(shoal_g.init_count == 0 || shoal_g.finalized))
        shoal_err_not_init(fn);
    if (team == SHMEM_TEAM_INVALID)
        return -1;
    if (team->magic != SHOAL_TEAM_LIVE)
        shoal_fatal(fn, "argument 'team' (%p) is not a live team (destroyed or never created)",
                    (void *)team);
    return team->my_pe < 0 ? -1 : 0;
}

int shoal_coll_team_sync(shmem_team_t team, const char *fn)
{
    if (shoal_team_usable(team, fn))
        return -1;
    struct shoal_group g;
    shoal_group_of_team(&g, team, shoal_call_sig(SHOAL_CALL_SYNC, 0, 0, 0, 0), 0, fn);
    shoal_group_debug_check(&g, fn, 0, 0);
    shoal_group_sync(&g, fn);
    return 0;
}

void shoal_coll_aset_barrier(int start, int log_stride, int size, long *pSync, int quiet,
                             const char *fn)
{
    struct shoal_group g;
    if (shoal_group_of_aset(&g, start, log_stride, size, pSync,
                            shoal_call_sig(SHOAL_CALL_SYNC, 0, 0, 0, 0), 0, fn))
        return;
    if (quiet)
        shoal_quiet(SHMEM_CTX_DEFAULT, fn);
    shoal_group_sync(&g, fn);
}
