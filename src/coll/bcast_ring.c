/* Broadcast rounds of a team whose members share this node (the ring in
 * core/state.h): the small-data algorithm, and the bookkeeping that lets
 * every tree broadcast on such a team return without acknowledgements.
 *
 * Every member counts the team's broadcasts (`rounds`) and, once it no
 * longer reads the round's data, publishes the count (`done`).  Before a
 * parent writes into a child for round R it makes sure the child is done
 * with the round whose data that write could disturb: R - 1 when it writes
 * the child's dest (tree), R - SLOTS when it writes a ring line.  The
 * check reads the child's `done` only when the remembered lower bound is
 * not enough, so a parent that keeps ahead of its child pays nothing, and
 * the root returns as soon as its children have their lines.
 *
 * A line also carries a tag: the writer's call signature
 * (core/teams/calls.h) mixed with the data.  The child copies the data out
 * and recomputes it: a write of a member in another call (members that
 * name different roots: two parents for one child), or data two such
 * writers tore, is reported instead of taken.  (A claim of the line by
 * compare-and-swap would also catch a second parent whose write comes
 * after the child has read the right data, but it held every parent for a
 * cache-line round trip: 8-byte broadcasts of 2 PEs, 53 -> 97 ns.) */
#include <string.h>

#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "core/waiting/wait.h"
#include "core/waiting/wait_policy.h"
#include "core/waiting/wait_record.h"

uint64_t shoal_bcast_round_begin(const struct shoal_group *g)
{
    return ++g->ring->rounds;
}

void shoal_bcast_wait_child(const struct shoal_group *g, int child, uint64_t need, const char *fn)
{
    struct shoal_bcast_ring *mine = g->ring;
    const int wpe = shoal_group_pe(g, child), k = child % SHOAL_BCAST_SEEN;
    if (need == 0 || (mine->seen_pe[k] == wpe + 1 && mine->seen_done[k] >= need))
        return;
    struct shoal_bcast_ring *theirs = shoal_ring_of(g, child);
    uint64_t done = __atomic_load_n(&theirs->done, __ATOMIC_ACQUIRE);
    if (done < need) {
        shoal_wait_note_peer(g->team_slot, g->seq, wpe, "its use of an earlier broadcast's data");
        shoal_wait_mapped(SHOAL_W_U64, &theirs->done, shoal_slot(wpe), SHMEM_CMP_GE, &need, fn);
        shoal_wait_note_clear();
        done = __atomic_load_n(&theirs->done, __ATOMIC_ACQUIRE);
    }
    mine->seen_pe[k] = wpe + 1;
    mine->seen_done[k] = done;
}

void shoal_bcast_round_end(const struct shoal_group *g, uint64_t round)
{
    __atomic_store_n(&g->ring->done, round, __ATOMIC_RELEASE);
    /* A parent may sleep on this PE's bell waiting for `done` (one on this
     * node: where the network serves this PE's own memory too, the
     * SHOAL_TRANSPORTS=ucx way, none writes into it). */
    if (shoal_slot(shoal_g.my_pe) >= 0)
        shoal_bell_ring_if_armed(shoal_bell_of(shoal_g.my_pe));
}

/* A line's tag: the call's signature mixed with the data, word by word. */
static uint64_t line_tag(uint64_t sig, const unsigned char *data, size_t n)
{
    uint64_t h = sig;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = 0;
        memcpy(&w, data + i, n - i < 8 ? n - i : 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    return h;
}

/* Round `round`'s data and tag into member `child`'s line `idx`. */
static void send_line(const struct shoal_group *g, int child, uint64_t round, unsigned idx,
                      const void *data, size_t nbytes, uint64_t tag, const char *fn)
{
    shoal_bcast_wait_child(g, child,
                           round > SHOAL_BCAST_RING_SLOTS ? round - SHOAL_BCAST_RING_SLOTS : 0, fn);
    struct shoal_bcast_line *out = &shoal_ring_of(g, child)->line[idx];
    memcpy(out->data, data, nbytes);
    out->tag = tag;
    __atomic_store_n(&out->round, round, __ATOMIC_RELEASE);
    shoal_bell_ring_if_armed(shoal_bell_of(shoal_group_pe(g, child)));
}

/* This member's line of `round`, once there, copied into buf (its dest);
 * fatal where another call wrote it. */
static void take_line(const struct shoal_group *g, const struct shoal_bcast_line *in,
                      uint64_t round, int parent, void *buf, size_t nbytes, const char *fn)
{
    shoal_wait_note_peer(g->team_slot, g->seq, shoal_group_pe(g, parent), "its broadcast data");
    shoal_wait_until(SHOAL_W_U64, (void *)&in->round, SHMEM_CMP_GE, &round, fn);
    shoal_wait_note_clear();
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    const uint64_t tag = in->tag;
    memcpy(buf, in->data, nbytes);
    if (SHOAL_UNLIKELY(tag != line_tag(g->sig, buf, nbytes)))
        shoal_call_mismatch_unknown(g,
                                    "this PE's broadcast data came from a member in another "
                                    "call (the members name different roots, or sizes)",
                                    fn);
}

/* The binomial tree of broadcast.c, one line per hop: wait for my line
 * (not the root), pass it on to my children, copy it into dest.  Where the
 * node's PEs outnumber its CPUs (the placement, the same on every member)
 * the root writes every member's line itself: a member then waits for the
 * root alone, not for a parent that may not be running. */
void shoal_bcast_ring(const struct shoal_group *g, void *dest, const void *source, size_t nbytes,
                      int root, int update_root, const char *fn)
{
    const int n = g->size, r = (g->me - root + n) % n;
    const int flat = shoal_wait_pes_exceed_cpus();
    const uint64_t round = shoal_bcast_round_begin(g);
    const unsigned idx = (unsigned)((round - 1) % SHOAL_BCAST_RING_SLOTS);
    const unsigned char *data = source;
    int mask = 1;
    if (r != 0) {
        while (!(r & mask))
            mask <<= 1;
        take_line(g, &g->ring->line[idx], round, flat ? root : (r - mask + root) % n, dest, nbytes,
                  fn);
        data = dest;
    } else {
        while (mask < n)
            mask <<= 1;
    }
    const uint64_t tag = line_tag(g->sig, data, nbytes);
    if (flat && r == 0)
        for (int c = 1; c < n; c++)
            send_line(g, (c + root) % n, round, idx, data, nbytes, tag, fn);
    else if (!flat)
        for (int m = mask >> 1; m >= 1; m >>= 1)
            if (r + m < n)
                send_line(g, (r + m + root) % n, round, idx, data, nbytes, tag, fn);
    if (r == 0 && update_root && dest != source)
        memmove(dest, data, nbytes);
    shoal_bcast_round_end(g, round);
}
