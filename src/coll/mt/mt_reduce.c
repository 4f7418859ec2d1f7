/* Multi-threaded reductions (shmemx_TYPENAME_OP_reduce_mt).
 *
 * From SHOAL_COLL_MT_MIN bytes (and at least one element per member):
 * the rsag algorithm of reduce.c with each member's chunk split between
 * its threads.  The leader syncs the team (every source is ready); member
 * i owns elements [i*per, (i+1)*per) (per = ceil(nreduce / size)), and its
 * thread t reduces its share of that chunk (mt_sync.h: contiguous,
 * ceil(chunk / nthreads) elements rounded up to a cache line, in thread
 * order) over every member's source, in member order, and puts the result
 * into every member's dest; each thread quiets its puts; the leader syncs
 * the team once every thread is done.  Every element is still
 * src_0 OP src_1 OP ... OP src_{N-1} in that order, so the result has the
 * same bits as the standard routine's, for any nthreads.  In place
 * (dest == source) stays safe: an element of any source is read only by
 * the one thread that writes it everywhere.  Smaller reductions: the
 * leader runs the standard routine alone. */
#include <stdlib.h>

#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "coll/mt/mt_sync.h"
#include "coll/reduce_ops.h"

static void reduce_share(const struct shoal_mt *m, void *dest, const void *source, size_t n, int op,
                         int type, const char *fn)
{
    const struct shoal_group *g = &m->g;
    size_t es = shoal_red_size(type), per = (n + (size_t)g->size - 1) / (size_t)g->size;
    size_t first = per * (size_t)g->me;
    size_t cnt = first >= n ? 0 : (n - first < per ? n - first : per);
    size_t grain = es < SHOAL_CACHELINE ? SHOAL_CACHELINE / es : 1, a, b;
    shoal_mt_share(cnt, grain, m->nthreads, m->tid, &a, &b);
    if (a == b)
        return;
    size_t len = (b - a) * es;
    char *acc = shoal_coll_alloc(2 * len, "reduction", fn);
    shoal_red_range(g, 0, g->size - 1, acc, source, first + a, b - a, op, type, acc + len, fn);
    char *d = (char *)dest + (first + a) * es;
    for (int k = 1; k <= g->size; k++) /* the next member first: nobody is everyone's first */
        shoal_put(SHMEM_CTX_DEFAULT, d, acc, len, shoal_group_pe(g, (g->me + k) % g->size), fn);
    free(acc);
    shoal_quiet(SHMEM_CTX_DEFAULT, fn);
}

int shoal_coll_reduce_mt(shmem_team_t team, void *dest, const void *source, size_t nreduce, int op,
                         int type, int nthreads, int thread_id, const char *fn)
{
    if (!shoal_red_valid(op, type))
        shoal_fatal(fn, "internal error: reduction %d is not defined on type %d", op, type);
    struct shoal_mt m;
    if (shoal_mt_open(&m, team, nthreads, thread_id, fn))
        return -1;
    if (nthreads == 1)
        return shoal_coll_reduce(team, dest, source, nreduce, op, type, fn);
    size_t bytes =
        nreduce ? shoal_red_checked_bytes(dest, source, nreduce, type, "nreduce", fn) : 0;
    const struct shoal_mt_sig sig = {dest, source, nreduce, 0};
    int rc = 0;
    if (bytes < shoal_mt_min_bytes || nreduce < (size_t)team->size || bytes == 0) {
        if (shoal_mt_solo(&m, team, &sig, fn)) {
            rc = shoal_coll_reduce(team, dest, source, nreduce, op, type, fn);
            shoal_mt_release(&m);
        }
        return rc;
    }
    shoal_mt_begin(&m, team, &sig,
                   shoal_call_sig(SHOAL_CALL_REDUCE | SHOAL_CALL_MT, op, type, 0, nreduce), nreduce,
                   0, SHOAL_MT_SYNC, fn);
    reduce_share(&m, dest, source, nreduce, op, type, fn);
    shoal_mt_end(&m, 1, fn);
    return 0;
}
