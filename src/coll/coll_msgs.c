/* Collectives of a team across nodes where the network carries their data
 * as messages (shoal_group_msgs: core/teams/sync.h).  A message waits in
 * its receiver's transport until the receiver posts the receive, into a
 * buffer of its own, so these need no sync: no member writes another's
 * memory, and each reads its own source once, at entry.
 *
 *  - fcollect (Bruck's allgather): a private array holds the blocks in
 *    the order me, me + 1, ...; in step k (distance d = 2^k) a member sends
 *    the first min(d, N - d) blocks it has to member me - d and receives as
 *    many from member me + d behind them.  ceil(log2 N) steps for any N;
 *    the array is rotated into dest at the end.
 *  - reductions, small: the same allgather of the sources, then every
 *    member reduces them in member order, like the other algorithms of
 *    reduce.c, so every member gets the same bits.
 *  - reductions, large (reduce-scatter + allgather): member i receives
 *    chunk i of every source, reduces it in member order, and sends the
 *    result to every member, who receives it into dest. */
#include <stdlib.h>
#include <string.h>

#include "coll/coll_internal.h"
#include "coll/reduce_ops.h"

/* Members number their messages of a reduce-scatter from SCATTER, of its
 * allgather from ALLGATHER.  Bruck's steps stay within their block of 64. */
#define MSGS_MAX_MEMBERS (SHOAL_MSG_ALLGATHER - SHOAL_MSG_SCATTER)

int shoal_coll_msgs_usable(const struct shoal_group *g)
{
    return shoal_group_msgs(g) && g->size > 1 && g->size <= MSGS_MAX_MEMBERS;
}

/* Every member's `nbytes` from source into tmp, in the order me, me + 1,
 * ... (Bruck). */
static void bruck_gather(const struct shoal_group *g, char *tmp, const void *source, size_t nbytes,
                         unsigned k0, const char *fn)
{
    const int n = g->size, me = g->me;
    memcpy(tmp, source, nbytes);
    unsigned step = 0;
    for (int d = 1; d < n; d <<= 1, step++) {
        const size_t cnt = (size_t)(d < n - d ? d : n - d);
        struct shoal_net_coll_rx rx;
        shoal_group_recv_post(g, k0 + step, tmp + (size_t)d * nbytes, cnt * nbytes, &rx, fn);
        shoal_group_send(g, (me - d + n) % n, k0 + step, tmp, cnt * nbytes, 1, fn);
        shoal_group_recv_wait(g, 1, (me + d) % n, k0 + step, "its blocks of an allgather", 1, fn);
    }
}

void shoal_fcollect_msgs(const struct shoal_group *g, void *dest, const void *source, size_t nbytes,
                         const char *fn)
{
    const int n = g->size;
    if (nbytes == 0)
        return;
    char *tmp = shoal_coll_alloc((size_t)n * nbytes, "fcollect", fn);
    bruck_gather(g, tmp, source, nbytes, SHOAL_MSG_FCOLLECT, fn);
    for (int i = 0; i < n; i++)
        memcpy((char *)dest + (size_t)((g->me + i) % n) * nbytes, tmp + (size_t)i * nbytes, nbytes);
    free(tmp);
}

static void reduce_gathered(const struct shoal_group *g, void *dest, const void *source, size_t n,
                            int op, int type, const char *fn)
{
    const int size = g->size;
    const size_t bytes = n * shoal_red_size(type);
    char *tmp = shoal_coll_alloc((size_t)size * bytes, "reduction", fn);
    bruck_gather(g, tmp, source, bytes, SHOAL_MSG_REDUCE, fn);
    /* Member j's block is tmp[j - me]: fold them in member order. */
    memcpy(dest, tmp + (size_t)((size - g->me) % size) * bytes, bytes);
    for (int j = 1; j < size; j++)
        shoal_red_combine(op, type, dest, tmp + (size_t)((j - g->me + size) % size) * bytes, n);
    free(tmp);
}

/* Member j's chunk of n elements: [*lo, *lo + return). */
static size_t chunk_of(const struct shoal_group *g, int j, size_t n, size_t *lo)
{
    const size_t per = (n + (size_t)g->size - 1) / (size_t)g->size;
    *lo = per * (size_t)j;
    return *lo >= n ? 0 : (n - *lo < per ? n - *lo : per);
}

static void reduce_scattered(const struct shoal_group *g, void *dest, const void *source, size_t n,
                             int op, int type, const char *fn)
{
    const int size = g->size, me = g->me;
    const size_t es = shoal_red_size(type);
    size_t lo, jlo;
    const size_t cnt = chunk_of(g, me, n, &lo), cb = cnt * es;
    char *in = shoal_coll_alloc((size_t)size * cb, "reduction",
                                fn); /* chunk `me` of every member's source */
    struct shoal_net_coll_rx *rx = shoal_coll_alloc((size_t)size * sizeof *rx, "reduction", fn);
    unsigned posted = 0;
    for (int j = 0; j < size && cb; j++)
        if (j != me) {
            shoal_group_recv_post(g, SHOAL_MSG_SCATTER + (unsigned)j, in + (size_t)j * cb, cb,
                                  &rx[j], fn);
            posted++;
        }
    for (int k = 1; k < size; k++) {
        const int j = (me + k) % size; /* not everyone's first target at once */
        const size_t jc = chunk_of(g, j, n, &jlo);
        if (jc)
            shoal_group_send(g, j, SHOAL_MSG_SCATTER + (unsigned)me,
                             (const char *)source + jlo * es, jc * es, 1, fn);
    }
    if (posted)
        shoal_group_recv_wait(g, posted, -1, SHOAL_MSG_SCATTER,
                              "its chunk of a reduction's sources", 1, fn);
    if (cb)
        memcpy(in + (size_t)me * cb, (const char *)source + lo * es, cb);
    /* Every source is read (sends complete, own chunk copied): dest, which
     * may be source, can take the results. */
    unsigned results = 0;
    for (int j = 0; j < size; j++) {
        const size_t jc = chunk_of(g, j, n, &jlo);
        if (j != me && jc) {
            shoal_group_recv_post(g, SHOAL_MSG_ALLGATHER + (unsigned)j, (char *)dest + jlo * es,
                                  jc * es, &rx[j], fn);
            results++;
        }
    }
    if (cb) {
        for (int j = 1; j < size; j++)
            shoal_red_combine(op, type, in, in + (size_t)j * cb, cnt);
        memcpy((char *)dest + lo * es, in, cb);
        for (int k = 1; k < size; k++)
            shoal_group_send(g, (me + k) % size, SHOAL_MSG_ALLGATHER + (unsigned)me, in, cb, 1, fn);
    }
    if (results)
        shoal_group_recv_wait(g, results, -1, SHOAL_MSG_ALLGATHER, "its reduced chunk", 1, fn);
    free(rx);
    free(in);
}

void shoal_reduce_msgs(const struct shoal_group *g, void *dest, const void *source, size_t n,
                       int op, int type, int scatter, const char *fn)
{
    if (scatter && n >= (size_t)g->size)
        reduce_scattered(g, dest, source, n, op, type, fn);
    else
        reduce_gathered(g, dest, source, n, op, type, fn);
}
