/* Reductions (team and active-set forms) and scans.
 *
 * Two algorithms, both computing every element as
 * src_0 OP src_1 OP ... OP src_{N-1} in that order, so every PE gets the
 * same bits (floating point included) whichever algorithm runs:
 *  - gather: every member reads every member's source and reduces the
 *    whole array privately; sync; copy into dest.  2 syncs, N*n reads per
 *    member: best for small arrays.
 *  - rsag (reduce-scatter + allgather, Rabenseifner's scheme in one-sided
 *    form): member i reduces chunk i of every source and puts the result
 *    into chunk i of every member's dest; sync.  n reads and n writes per
 *    member: best for large arrays.  In place (dest == source) is safe:
 *    chunk i of any source is read only by member i, who is the only
 *    writer of chunk i anywhere.
 * Both start with a sync, since a member may call before a peer's source
 * is ready.
 *  - ring (teams on one node, up to SHOAL_GATHER_INLINE bytes, the
 *    default's choice only): every member posts its source in its gather
 *    line (gather_ring.c) and reduces the lines, in member order like the
 *    others, straight into dest; no sync: a member's source is copied
 *    before anyone reads it. */
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "core/config/log.h"
#include "coll/reduce_ops.h"

enum { ALGO_AUTO, ALGO_GATHER, ALGO_RSAG };
static int algo = ALGO_AUTO;
static size_t rsag_min = 16384;

void shoal_coll_init(int which, size_t crossover)
{
    algo = which;
    rsag_min = crossover;
}

/* The bytes of a reduction of n elements, once dest and source are known
 * to hold them: a count too large for the symmetric objects is the
 * caller's mistake and is named as such, before it sizes a private buffer
 * ("out of memory" would blame the machine). */
size_t shoal_red_checked_bytes(void *dest, const void *source, size_t n, int type,
                               const char *count, const char *fn)
{
    size_t es = shoal_red_size(type);
    if (n > SIZE_MAX / es)
        shoal_fatal(fn, "argument '%s' = %zu is too large: %zu-byte elements overflow size_t",
                    count, n, es);
    (void)shoal_addr_n(source, n * es, shoal_g.my_pe, fn, "source", count);
    (void)shoal_addr_n(dest, n * es, shoal_g.my_pe, fn, "dest", count);
    return n * es;
}

/* acc = OP over members [first, last] of elements [lo, lo+n) of source. */
void shoal_red_range(const struct shoal_group *g, int first, int last, void *acc,
                     const void *source, size_t lo, size_t n, int op, int type, void *bounce,
                     const char *fn)
{
    size_t es = shoal_red_size(type);
    const char *src = (const char *)source + lo * es;
    memcpy(acc, shoal_group_read(g, first, src, n * es, bounce, fn), n * es);
    for (int j = first + 1; j <= last; j++)
        shoal_red_combine(op, type, acc, shoal_group_read(g, j, src, n * es, bounce, fn), n);
}

static void reduce_gather(const struct shoal_group *g, void *dest, const void *source, size_t n,
                          int op, int type, const char *fn)
{
    size_t bytes = n * shoal_red_size(type);
    char *acc = shoal_coll_alloc(2 * bytes, "reduction", fn);
    shoal_red_range(g, 0, g->size - 1, acc, source, 0, n, op, type, acc + bytes, fn);
    shoal_group_sync(g, fn); /* every source read: dest may be written */
    memcpy(dest, acc, bytes);
    free(acc);
}

static void reduce_rsag(const struct shoal_group *g, void *dest, const void *source, size_t n,
                        int op, int type, const char *fn)
{
    size_t es = shoal_red_size(type), per = (n + (size_t)g->size - 1) / (size_t)g->size;
    size_t lo = per * (size_t)g->me;
    size_t cnt = lo >= n ? 0 : (n - lo < per ? n - lo : per);
    if (cnt) {
        char *acc = shoal_coll_alloc(2 * cnt * es, "reduction", fn);
        shoal_red_range(g, 0, g->size - 1, acc, source, lo, cnt, op, type, acc + cnt * es, fn);
        /* Start with the next member so that no member is everyone's
         * first target. */
        for (int k = 1; k <= g->size; k++) {
            int j = (g->me + k) % g->size;
            shoal_put(SHMEM_CTX_DEFAULT, (char *)dest + lo * es, acc, cnt * es,
                      shoal_group_pe(g, j), fn);
        }
        free(acc);
    }
    shoal_quiet(SHMEM_CTX_DEFAULT, fn);
    shoal_group_sync(g, fn);
}

static void reduce_ring(const struct shoal_group *g, void *dest, const void *source, size_t n,
                        int op, int type, const char *fn)
{
    const size_t bytes = n * shoal_red_size(type);
    const uint64_t round = shoal_gather_post(g, source, bytes, fn);
    size_t got;
    /* dest may be source: read this member's block from its line too. */
    memcpy(dest, shoal_gather_line(g, 0, round, &got, fn), bytes);
    for (int j = 1; j < g->size; j++)
        shoal_red_combine(op, type, dest, shoal_gather_line(g, j, round, &got, fn), n);
}

static void reduce_group(const struct shoal_group *g, void *dest, const void *source, size_t n,
                         int op, int type, const char *fn)
{
    if (n == 0)
        return;
    size_t bytes = shoal_red_checked_bytes(dest, source, n, type, "nreduce", fn);
    if (g->size == 1) {
        if (dest != source)
            memmove(dest, source, bytes);
        return;
    }
    if (shoal_coll_msgs_usable(g)) {
        const int scatter = algo == ALGO_RSAG || (algo == ALGO_AUTO && bytes >= rsag_min);
        SHOAL_LOG(SHOAL_LOG_COLL, SHOAL_LOG_DEBUG, "%s: %zu bytes: messages, %s", fn, bytes,
                  scatter ? "reduce-scatter + allgather" : "allgather");
        shoal_reduce_msgs(g, dest, source, n, op, type, scatter, fn);
        return;
    }
    if (algo == ALGO_AUTO && bytes <= SHOAL_GATHER_INLINE &&
        (shoal_gather_usable(g) || shoal_gather_net_usable(g))) {
        SHOAL_LOG(SHOAL_LOG_COLL, SHOAL_LOG_DEBUG, "%s: %zu bytes: gather line", fn, bytes);
        reduce_ring(g, dest, source, n, op, type, fn);
        return;
    }
    shoal_group_sync(g, fn);
    int use = algo;
    if (use == ALGO_AUTO)
        use = bytes >= rsag_min && n >= (size_t)g->size ? ALGO_RSAG : ALGO_GATHER;
    SHOAL_LOG(SHOAL_LOG_COLL, SHOAL_LOG_DEBUG, "%s: %zu bytes: %s", fn, bytes,
              use == ALGO_RSAG ? "reduce-scatter + allgather" : "gather");
    if (use == ALGO_RSAG)
        reduce_rsag(g, dest, source, n, op, type, fn);
    else
        reduce_gather(g, dest, source, n, op, type, fn);
}

static void check_op(int op, int type, const char *fn)
{
    if (!shoal_red_valid(op, type))
        shoal_fatal(fn, "internal error: reduction %d is not defined on type %d", op, type);
}

int shoal_coll_reduce(shmem_team_t team, void *dest, const void *source, size_t nreduce, int op,
                      int type, const char *fn)
{
    check_op(op, type, fn);
    if (shoal_team_usable(team, fn))
        return -1;
    struct shoal_group g;
    shoal_group_of_team(&g, team, shoal_call_sig(SHOAL_CALL_REDUCE, op, type, 0, nreduce), nreduce,
                        fn);
    shoal_group_debug_check(&g, fn, nreduce, 0);
    reduce_group(&g, dest, source, nreduce, op, type, fn);
    return 0;
}

void shoal_coll_to_all(void *dest, const void *source, int nreduce, int start, int log_stride,
                       int size, void *pWrk, long *pSync, int op, int type, const char *fn)
{
    (void)pWrk; /* private buffers serve instead of the user's work array */
    check_op(op, type, fn);
    if (nreduce < 0)
        shoal_fatal(fn, "argument 'nreduce' = %d is negative", nreduce);
    struct shoal_group g;
    if (shoal_group_of_aset(&g, start, log_stride, size, pSync,
                            shoal_call_sig(SHOAL_CALL_REDUCE, op, type, 0, (uint64_t)nreduce),
                            (uint64_t)nreduce, fn))
        return;
    reduce_group(&g, dest, source, (size_t)nreduce, op, type, fn);
}

/* Prefix sums: member i reduces the sources of members 0..i (inclusive)
 * or 0..i-1 (exclusive; member 0 gets zeros).  N*n reads per member at
 * most, which on one node is cheaper than the log-step algorithms' syncs
 * for the team sizes a node holds. */
int shoal_coll_scan(shmem_team_t team, void *dest, const void *source, size_t nelems, int exclusive,
                    int type, const char *fn)
{
    check_op(SHOAL_RED_SUM, type, fn);
    if (shoal_team_usable(team, fn))
        return -1;
    if (nelems == 0)
        return 0;
    struct shoal_group g;
    shoal_group_of_team(&g, team,
                        shoal_call_sig(exclusive ? SHOAL_CALL_EXSCAN : SHOAL_CALL_INSCAN,
                                       SHOAL_RED_SUM, type, 0, nelems),
                        nelems, fn);
    shoal_group_debug_check(&g, fn, nelems, 0);
    size_t bytes = shoal_red_checked_bytes(dest, source, nelems, type, "nelems", fn);
    if (g.size > 1)
        shoal_group_sync(&g, fn);
    int last = exclusive ? g.me - 1 : g.me;
    char *acc = shoal_coll_alloc(2 * bytes, "reduction", fn);
    if (last < 0)
        memset(acc, 0, bytes); /* all-zero bits are 0 for every scan type */
    else
        shoal_red_range(&g, 0, last, acc, source, 0, nelems, SHOAL_RED_SUM, type, acc + bytes, fn);
    if (g.size > 1)
        shoal_group_sync(&g, fn);
    memcpy(dest, acc, bytes);
    free(acc);
    return 0;
}
