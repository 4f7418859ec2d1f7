/* Gather lines: the exchange under the small reductions and collects of a
 * team whose members share this node (struct shoal_gather_line in
 * core/state.h).  Each member copies its block into a line of its own
 * ring, tagged with the round number, and reads every member's line from
 * the mapped ring; nothing is written into a peer, and nothing is
 * acknowledged, so a round costs each member one line out and one line in
 * per peer and the callers need neither an entry nor an exit sync: the
 * block is copied before anyone reads it, and dest is written only by its
 * owner.
 *
 * Reuse without acknowledgements: a member posts round R + 1 only after it
 * has read round R from every member, and each of those posted R only
 * after reading R - 1 from everyone (this member included).  So when a
 * member overwrites its line of round R - 1 with round R + 1, every reader
 * is done with R - 1: two lines per member are enough, and a fast member
 * waits for a slow one only where it needs that member's block anyway.
 *
 * Each line carries its member's call signature (core/teams/calls.h), in
 * the line the reader loads anyway: a reader whose own differs (a sum
 * against a max, a reduction against an fcollect of as many bytes)
 * reports both calls instead of taking the block. */
#include <stdio.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "core/waiting/wait.h"
#include "core/waiting/wait_record.h"

#define BIG 255u /* length field of a block that does not fit the line */

static struct shoal_gather_line *line_of(const struct shoal_group *g, int i, uint64_t round)
{
    return &shoal_ring_of(g, i)->gather[(round - 1) % SHOAL_GATHER_SLOTS];
}

/* Across nodes: this member's block into its own slot and to every other
 * member's, starting with the next member so that no member is everyone's
 * first target. */
static void net_post(const struct shoal_group *g, uint64_t round, const void *block, size_t nbytes,
                     const char *fn)
{
    struct shoal_net_gather *a = &shoal_my_ctl()->world_gather;
    const unsigned s = (unsigned)((round - 1) % SHOAL_GATHER_SLOTS);
    unsigned char *mine = a->blk[s][g->me];
    memcpy(mine, block, nbytes);
    memcpy(mine + SHOAL_GATHER_INLINE, &g->sig, sizeof g->sig);
    for (int k = 1; k < g->size; k++) {
        int j = (g->me + k) % g->size;
        shoal_signal_post_data(&a->arrived[s], mine, mine, SHOAL_NET_GATHER_BLOCK,
                               shoal_group_pe(g, j), fn);
    }
}

uint64_t shoal_gather_post(const struct shoal_group *g, const void *block, size_t nbytes,
                           const char *fn)
{
    const uint64_t round = ++g->ring->gather_rounds;
    if (!g->on_node) {
        net_post(g, round, block, nbytes, fn);
        return round;
    }
    struct shoal_gather_line *mine = &g->ring->gather[(round - 1) % SHOAL_GATHER_SLOTS];
    uint64_t len = nbytes;
    if (nbytes <= SHOAL_GATHER_INLINE) {
        if (nbytes)
            memcpy(mine->data, block, nbytes);
    } else {
        len = BIG;
        memcpy(mine->data, &(uint64_t){nbytes}, sizeof(uint64_t));
    }
    mine->sig = g->sig;
    __atomic_store_n(&mine->word, round << 8 | len, __ATOMIC_RELEASE);
    /* Peers may sleep on this PE's bell waiting for the line. */
    shoal_bell_ring_if_armed(shoal_bell_of(shoal_g.my_pe));
    return round;
}

/* A wait for a peer's line.  It also watches for mismatched calls
 * (shoal_group_other_call, core/teams/sync.h): while a member waits in
 * round R nobody has finished R (everyone needs the missing block), and
 * every signal of an earlier collective has been consumed by the
 * collective it belongs to.  The line is read again after the signal: a
 * member that posted and moved on is not a mismatch.  Only where signals
 * are CPU atomics: a network atomic that consumed one may not be visible
 * to a load yet.
 *
 * Across nodes a member sends its block to each peer in turn, so one peer
 * may have finished round R and moved on (its next collective's signal is
 * here) while this PE still waits for the last sender's block, which that
 * sender was about to send (seen: 1 run in 10 of coll.stress.repeat over
 * tcp at 3 PEs): there the check's grace period applies. */
struct line_q {
    const uint64_t *word;
    uint64_t need;
    const struct shoal_group *g; /* NULL: no mismatch check */
    unsigned turn;
    int mismatch;
    uint64_t pending_since; /* across nodes: when a signal was first seen, ns */
};

static int line_posted(const struct line_q *q)
{
    return __atomic_load_n(q->word, __ATOMIC_ACQUIRE) >= q->need;
}

/* The line, or a mismatch: the wait engine's test (it calls it before a
 * sleep and on each wake-up, where the check costs nothing next to the
 * sleep). */
static int line_checked(void *p)
{
    struct line_q *q = p;
    if (line_posted(q))
        return 1;
    if (!q->g)
        return 0;
    q->mismatch = shoal_group_other_call(q->g, &q->pending_since) && !line_posted(q);
    return q->mismatch || line_posted(q);
}

/* The loop's test, every turn: the mismatch check (some 60 loads) only
 * every 64th.  Counted in turns alone it came once in 64 sleeps of a
 * waiter asleep on the line (100 ms each): spec.errors.
 * mismatch_bcast_alltoall at 3 PEs on 2 loaded cores took 6-7 s, 3 runs in
 * 20. */
static int line_ready(void *p)
{
    struct line_q *q = p;
    if (q->mismatch || line_posted(q))
        return 1;
    if ((++q->turn & 63) != 0)
        return 0;
    return line_checked(q);
}

/* Until *word (in member i's memory, or this member's) reaches need. */
static void wait_line(const struct shoal_group *g, int i, const uint64_t *word, uint64_t need,
                      const char *fn)
{
    const int wpe = shoal_group_pe(g, i);
    /* Across nodes a team's signals are never consumed (they only grow), so
     * a pending one is real where network atomics update them too. */
    const int check = g->on_node ? !shoal_g.amo_via_net : g->seen != NULL;
    struct line_q q = {word, need, check ? g : NULL, 0, 0, 0};
    struct shoal_waiter w;
    shoal_wait_note_peer(g->team_slot, g->seq, wpe, "its block of a small collective");
    shoal_waiter_init(&w, g->on_node ? shoal_slot(wpe) : shoal_my_slot(), fn, word);
    while (!line_ready(&q))
        shoal_backoff(&w, line_checked, &q);
    shoal_waiter_done(&w);
    shoal_wait_note_clear();
    if (q.mismatch) {
        char what[64];
        snprintf(what, sizeof what, "PE %d's block of a small collective", wpe);
        shoal_group_mismatch(g, what, fn);
    }
}

/* One word per member, no round of signals: each member stores its own
 * and reads the others', so a member waits only until every other has run
 * once after its reads (where PEs outnumber CPUs a dissemination sync is
 * log2(n) rounds of turns of the scheduler). */
void shoal_gather_done(const struct shoal_group *g, uint64_t round, const char *fn)
{
    __atomic_store_n(&g->ring->gather_done, round, __ATOMIC_RELEASE);
    shoal_bell_ring_if_armed(shoal_bell_of(shoal_g.my_pe));
    for (int k = 1; k < g->size; k++) {
        const int j = (g->me + k) % g->size, wpe = shoal_group_pe(g, j);
        const uint64_t *word = &shoal_ring_of(g, j)->gather_done;
        if (__atomic_load_n(word, __ATOMIC_ACQUIRE) >= round)
            continue;
        shoal_wait_note_peer(g->team_slot, g->seq, wpe, "its reads of this PE's block");
        shoal_wait_mapped(SHOAL_W_U64, word, shoal_slot(wpe), SHMEM_CMP_GE, &round, fn);
        shoal_wait_note_clear();
    }
}

/* Across nodes: once every other member's block of the round is here
 * (this member's is in its own slot already). */
static const void *net_line(const struct shoal_group *g, int i, uint64_t round, const char *fn)
{
    struct shoal_net_gather *a = &shoal_my_ctl()->world_gather;
    const unsigned s = (unsigned)((round - 1) % SHOAL_GATHER_SLOTS);
    if (i != g->me && a->ready_round != round) {
        const uint64_t need = a->taken[s] + (uint64_t)(g->size - 1);
        if (__atomic_load_n(&a->arrived[s], __ATOMIC_ACQUIRE) < need)
            wait_line(g, i, &a->arrived[s], need, fn);
        a->taken[s] = need;
        a->ready_round = round;
    }
    uint64_t sig;
    memcpy(&sig, a->blk[s][i] + SHOAL_GATHER_INLINE, sizeof sig);
    if (SHOAL_UNLIKELY(sig != g->sig) && i != g->me)
        shoal_call_mismatch(g, i, sig, fn);
    return a->blk[s][i];
}

const void *shoal_gather_line(const struct shoal_group *g, int i, uint64_t round, size_t *nbytes,
                              const char *fn)
{
    if (!g->on_node) {
        *nbytes = SHOAL_GATHER_INLINE; /* fixed-size blocks only: the caller knows */
        return net_line(g, i, round, fn);
    }
    const struct shoal_gather_line *in =
        i == g->me ? &g->ring->gather[(round - 1) % SHOAL_GATHER_SLOTS] : line_of(g, i, round);
    const uint64_t need = round << 8;
    uint64_t word = __atomic_load_n(&in->word, __ATOMIC_ACQUIRE);
    if (word < need) {
        wait_line(g, i, &in->word, need, fn);
        word = __atomic_load_n(&in->word, __ATOMIC_ACQUIRE);
    }
    if (SHOAL_UNLIKELY(in->sig != g->sig))
        shoal_call_mismatch(g, i, in->sig, fn);
    uint64_t len = word & 0xff;
    if (len == BIG)
        memcpy(&len, in->data, sizeof len);
    *nbytes = (size_t)len;
    return in->data;
}
