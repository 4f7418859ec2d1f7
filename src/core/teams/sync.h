/* core/teams — groups of PEs: the teams and how their members meet.
 *
 * Owns: the teams (team.c: the predefined teams at init, creation by
 * splitting a parent team, whose members agree on a free slot of the
 * control block, destruction, queries; team.h), the group one collective
 * runs over, its signals, the dissemination barrier under
 * shmem_barrier_all / shmem_sync_all, heap allocation and team creation
 * (sync.c; this header), its messages across nodes (group_msgs.c), the
 * SHMEM_DEBUG signature handshake (sync_debug.c), and the checks of
 * mismatched collective calls (calls.h).
 * May call: core's ground floor (state.h; config/: error.h, log.h), ops.h
 * (quiet, addressing, gets), waiting/ (the waits and their records), the
 * network transport (transport/net.h: remote signals and gets),
 * transport/shm's doorbells, libc.  Called by runtime.c (teams at init
 * and finalize, its barriers), memory/heap.c (allocation's barriers),
 * api/ (barrier.c, team.c) and every collective of coll/.
 *
 * This header: the PEs one collective runs over (a team, or a deprecated
 * active set) and the symmetric words it synchronizes through: the team's
 * block in the ctl area, or the user's pSync.  The core synchronizes
 * itself with it (shmem_barrier_all, heap allocation, team creation);
 * coll/ builds the collectives on it.
 *
 * Synchronization protocol: a signal is an atomic add of 1 to a counter of
 * the receiver.  Counting instead of setting means a signal that arrives
 * early (the sender already in the next collective) is kept, not lost.
 * On a team the counters only grow: the receiver keeps, in private memory
 * (`seen`), how many signals of each word it has taken, and waits for the
 * counter to pass that; taking a signal writes nothing to the symmetric
 * word (through UCX a write to one's own word is a round trip through the
 * network).  On an active set the receiver consumes each signal by adding
 * -1, which brings the user's pSync back to 0 at rest, as the spec asks. */
#ifndef SHOAL_CORE_SYNC_H
#define SHOAL_CORE_SYNC_H
#include <stdint.h>

#include "core/ops.h"

struct shoal_group {
    int start, stride, size;       /* member i is world PE start + i*stride */
    int me;                        /* my index */
    uint64_t *sync;                /* symmetric, >= SHOAL_GROUP_SYNC_WORDS */
    uint64_t *seen;                /* signals taken per word (a team's); NULL: consume */
    uint64_t *scratch;             /* symmetric, >= 2 words */
    int team_slot;                 /* the team's ctl slot; -2 for an active set */
    uint64_t seq;                  /* which collective on the team this is, from 1 */
    struct shoal_bcast_ring *ring; /* the team's broadcast ring here; NULL: active set */
    int on_node;                   /* every member is on this node */
    int round0, round_stride;      /* barrier round k's counter: sync[round0 + k * stride] */
    uint64_t sig;                  /* the call's signature (calls.h); 0 on an active set */
};
/* Words of `sync`: a tree broadcast's data arrived, its children's
 * acknowledgements (both counters), then on a team the last broadcast
 * round a parent on this node wrote into the member's dest and that
 * parent's signature (coll/broadcast.c); the
 * barrier rounds from round0: on a team one half line each, its counter
 * and, by the parity of the sender's sync count, the sender's signature
 * (sync.c); on an active set one word each. */
#define SHOAL_GROUP_TREE_WORD 0
#define SHOAL_GROUP_TREE_ACK_WORD 1
#define SHOAL_GROUP_TREE_ROUND_WORD 2
#define SHOAL_GROUP_TREE_SIG_WORD 3
#define SHOAL_GROUP_TEAM_ROUND0 8
#define SHOAL_GROUP_ASET_ROUND0 2
#define SHOAL_GROUP_SYNC_WORDS 64 /* an active set's (in pSync) */
_Static_assert(SHOAL_GROUP_TEAM_ROUND0 + SHOAL_SYNC_ROUNDS * SHOAL_SYNC_ROUND_WORDS <=
                   SHOAL_SYNC_WORDS,
               "a team's rounds do not fit its words");
_Static_assert(SHOAL_GROUP_ASET_ROUND0 + SHOAL_SYNC_ROUNDS <= SHOAL_GROUP_SYNC_WORDS,
               "an active set's rounds do not fit pSync");
static inline int shoal_group_round_word(const struct shoal_group *g, int k)
{
    return g->round0 + k * g->round_stride;
}
/* A team's count of the signals taken from its counter `w`. */
static inline uint64_t *shoal_group_seen(const struct shoal_group *g, int w)
{
    return &g->seen[w < SHOAL_GROUP_TEAM_ROUND0
                        ? w
                        : SHOAL_GROUP_TEAM_ROUND0 +
                              (w - SHOAL_GROUP_TEAM_ROUND0) / g->round_stride];
}
_Static_assert(SHOAL_GROUP_TEAM_ROUND0 + SHOAL_SYNC_ROUNDS <= SHOAL_SYNC_SEEN,
               "a team's counters do not fit sync_seen");

static inline int shoal_group_pe(const struct shoal_group *g, int i)
{
    return g->start + i * g->stride;
}

/* The group of a live team this PE belongs to, for one collective call of
 * signature `sig` (calls.h) and size argument `size` of routine fn: it
 * counts the team's collectives and records the call (calls.h). */
void shoal_group_of_team(struct shoal_group *g, struct shoal_team *t, uint64_t sig, uint64_t size,
                         const char *fn);
/* Signal member i on word w / wait for (and take) one signal on my w. */
void shoal_group_signal(const struct shoal_group *g, int i, int w, const char *fn);
/* `n` bytes for member i's `dest`, then the signal (shoal_signal_post_data). */
void shoal_group_signal_data(const struct shoal_group *g, int i, int w, void *dest, const void *src,
                             size_t n, const char *fn);
void shoal_group_wait(const struct shoal_group *g, int w, const char *fn);
/* Collectives' data as messages (shoal_net_coll_send): does what this
 * member sends member i travel so?  On a team (not an active set, which
 * keeps nothing between calls), to a member the network serves, where the
 * job takes them. */
static inline int shoal_group_msg_edge(const struct shoal_group *g, int i)
{
    return g->ring && shoal_g.net_coll_msgs && shoal_slot(shoal_group_pe(g, i)) < 0;
}
/* ... and do this team's collectives send every member's data so?  A
 * team across nodes, where the job takes them (the same on every member;
 * the transport reaches members on this node too). */
static inline int shoal_group_msgs(const struct shoal_group *g)
{
    return g->ring && !g->on_node && shoal_g.net_coll_msgs;
}
/* The message numbers (k of shoal_group_send) of the collectives across
 * nodes (coll/), distinct per collective and phase, so that mismatched
 * calls never take each other's messages: Bruck's steps (+ step), a
 * reduce-scatter's and an allgather's senders (+ member), a broadcast's
 * (+ the root's bits 8-13: the tag holds bits 0-7).  Each collective's
 * numbers lie in one block (64 numbers, or the upper half for the
 * reduce-scatter and its allgather), so that a member waiting in one
 * collective sees a message of another at once. */
#define SHOAL_MSG_FCOLLECT 0x0
#define SHOAL_MSG_REDUCE 0x40
#define SHOAL_MSG_BCAST 0x80
#define SHOAL_MSG_SCATTER 0x8000
#define SHOAL_MSG_ALLGATHER 0xc000

/* Message `k` (< 65536; one sender per k and receiver) of this collective
 * (group_msgs.c): its tag holds the team, the collective's number, what
 * the call's signature says of a reduction's operator and type or a
 * broadcast's root, and k, so that a message of another call under the
 * same number shows by that or by its block (shoal_group_recv_wait).  n
 * bytes of src to member i; and from member `from` into buf, waited for
 * (`what` it is, for a hang report).  The sizes must agree (a mismatch is
 * reported, naming both calls).  A send returns once src may be reused; a large one waits for
 * its receiver to post the receive, so members exchanging data post their
 * receives first: shoal_group_recv_post (rx: the caller's until waited
 * for), then the sends, then shoal_group_recv_wait for `count` of them.
 * `exchange`: the members send to each other (shoal_net_coll_send). */
void shoal_group_send(const struct shoal_group *g, int i, unsigned k, const void *src, size_t n,
                      int exchange, const char *fn);
void shoal_group_recv(const struct shoal_group *g, int from, unsigned k, void *buf, size_t n,
                      const char *what, const char *fn);
/* No collective's message of the team in `slot` (-1: of any team) may be
 * left unread where every member has left every collective (team destroy
 * after its sync, shmem_finalize after its barrier): one is data a member
 * sent under a call this PE did not make (a broadcast whose root named
 * itself while the receiver named another), reported. */
void shoal_group_msgs_left(int slot, const char *fn);
void shoal_group_recv_post(const struct shoal_group *g, unsigned k, void *buf, size_t n,
                           struct shoal_net_coll_rx *rx, const char *fn);
/* Mismatched calls, seen by a member waiting inside a collective that no
 * member leaves before every member has entered it (the gather lines,
 * fcollect and reductions by messages): a signal on one of the team's
 * words that this member has not taken (the tree broadcast's
 * acknowledgements aside: across nodes they are taken only before the next
 * broadcast's writes) comes from a member already in another collective
 * (a barrier while this one reduces, say).  On one node that is certain at
 * once; across nodes the member waited for may still be about to send, so
 * only once the signal has stayed pending for SHOAL_GROUP_MISMATCH_NS.
 * *since: 0 at first, kept by the caller between calls.  Returns 1 when
 * the calls do not match; shoal_group_mismatch reports it (naming both
 * calls where the members' records tell, calls.h), with `what` this member
 * waits for. */
#define SHOAL_GROUP_MISMATCH_NS 2000000000ull
int shoal_group_other_call(const struct shoal_group *g, uint64_t *since);
_Noreturn void shoal_group_mismatch(const struct shoal_group *g, const char *what, const char *fn);
/* (`from` < 0: from several members.  `k`: one of the awaited messages'
 * numbers; a message of this collective number in another block has come
 * from a member in another collective, reported as mismatched calls at
 * once.  `all_in`: no member leaves this collective before every member
 * has entered it, as in fcollect and the reductions; then a signal of
 * another collective that stays pending while this member waits is
 * reported too.  shoal_group_recv passes 0: a broadcast's members leave
 * as soon as their data is in.) */
void shoal_group_recv_wait(const struct shoal_group *g, unsigned count, int from, unsigned k,
                           const char *what, int all_in, const char *fn);
/* The transport's hook while a collective's message `tag` waits for its
 * receiver: fatal where a message of another collective under the same
 * number has come (members each waiting for the other's receive). */
void shoal_group_send_waits(uint64_t tag, int pe, const char *fn);
/* The transport's hook for a message of another size than its receive's
 * (got SIZE_MAX: more): kept, and reported, naming both calls, by the
 * thread that waits for it (shoal_group_recv_wait). */
void shoal_group_msg_size(uint64_t tag, size_t got, size_t want, const char *fn);
/* A team across nodes: until every tree-broadcast acknowledgement owed to
 * this PE (ring->tree_acks_owed, counted by coll/broadcast.c) has arrived.
 * Before a parent writes into its children's dest again, and before team
 * destroy zeroes the counters. */
void shoal_group_wait_acks_owed(const struct shoal_group *g, const char *fn);
/* The same, when the signal can only come from member `from`: a hang
 * report names it, and its leaving the job ends the wait with an error. */
void shoal_group_wait_from(const struct shoal_group *g, int w, int from, const char *what,
                           const char *fn);
/* Is a signal on word w that this member has not taken yet? */
static inline int shoal_group_pending(const struct shoal_group *g, int w)
{
    uint64_t v = __atomic_load_n(&g->sync[w], __ATOMIC_ACQUIRE);
    return g->seen ? v > *shoal_group_seen(g, w) : v != 0;
}

/* SHMEM_DEBUG (no-op otherwise): compares this collective's signature
 * (routine, team, collective number, sizes a and b) with the neighbouring
 * member's before anything else happens, and reports the first mismatch
 * with both sides.  Teams only (an active set's pSync has no room). */
void shoal_group_debug_check_slow(const struct shoal_group *g, const char *fn, uint64_t a,
                                  uint64_t b);
static inline void shoal_group_debug_check(const struct shoal_group *g, const char *fn, uint64_t a,
                                           uint64_t b)
{
    if (SHOAL_UNLIKELY(shoal_g.debug))
        shoal_group_debug_check_slow(g, fn, a, b);
}

/* No member leaves before every member has arrived (dissemination).  On
 * a team each round's signal carries the sender's call signature where
 * the sender is mapped here or the network carries a signal's data
 * (shoal_g.net_signal_data), and the receiver compares it with its own:
 * two calls that sync alike (a sum against an fcollect, a barrier against
 * a reduction) are reported at every size, for a store and a compare on
 * lines that the round moves anyway. */
void shoal_group_sync(const struct shoal_group *g, const char *fn);

/* Where `n` bytes of symmetric object `sym` on member i can be read: the
 * peer's mapped memory when it is reachable by load, else `buf` after a
 * blocking get into it. */
static inline const void *shoal_group_read(const struct shoal_group *g, int i, const void *sym,
                                           size_t n, void *buf, const char *fn)
{
    int wpe = shoal_group_pe(g, i);
    const void *r = shoal_addr(sym, n, wpe, fn, "source");
    if (r)
        return r;
    shoal_get(SHMEM_CTX_DEFAULT, buf, sym, n, wpe, fn);
    return buf;
}
/* shmem_sync_all: no PE leaves before every PE has arrived.  `fn` is the
 * routine the program called (errors and hang reports name it). */
void shoal_sync_all_internal(const char *fn);
/* shmem_barrier_all: quiet the default context, then sync_all. */
void shoal_barrier_all_internal(const char *fn);
#endif
