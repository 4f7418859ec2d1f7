/* Groups, their signals, and the dissemination barrier every collective
 * (and the core's own synchronization: heap allocation, team creation) is
 * built on (protocol: sync.h).  Round k of member i signals member
 * (i + 2^k) mod n and waits for the signal of member (i - 2^k) mod n:
 * ceil(log2 n) rounds for any n, and a signal per round per member. */
#include "core/teams/sync.h"

#include <stdio.h>
#include <string.h>

#include "core/teams/team.h"
#include "core/waiting/peer_check.h"
#include "core/waiting/wait.h"
#include "core/waiting/wait_record.h"

void shoal_group_of_team(struct shoal_group *g, struct shoal_team *t)
{
    struct shoal_team_block *b = &shoal_my_ctl()->teams[t->slot];
    g->start = t->start;
    g->stride = t->stride;
    g->size = t->size;
    g->me = t->my_pe;
    g->sync = b->sync;
    g->seen = t->sync_seen;
    g->scratch = b->scratch;
    g->team_slot = t->slot;
    g->seq = ++t->coll_seq;
    g->ring = &b->bcast;
    g->on_node = t->on_node;
}

void shoal_group_signal(const struct shoal_group *g, int i, int w, const char *fn)
{
    shoal_signal_post(&g->sync[w], shoal_group_pe(g, i), fn);
}

void shoal_group_signal_data(const struct shoal_group *g, int i, int w, void *dest, const void *src,
                             size_t n, const char *fn)
{
    shoal_signal_post_data(&g->sync[w], dest, src, n, shoal_group_pe(g, i), fn);
}

/* Team, which of its collectives, which message of it: 7 + 32 + 16 bits
 * (the transport keeps 56; a collective number repeats after 2^32 of
 * them, long after its messages were taken).  A team's slot is reused only
 * after every member destroyed the team, so after it took every message
 * of it. */
#define MSG_K_MASK 0xffffu
#define MSG_SEQ_MASK 0xffffffffu
static uint64_t msg_tag(const struct shoal_group *g, unsigned k)
{
    return (uint64_t)g->team_slot << 48 | (g->seq & MSG_SEQ_MASK) << 16 | (k & MSG_K_MASK);
}

void shoal_group_send(const struct shoal_group *g, int i, unsigned k, const void *src, size_t n,
                      int exchange, const char *fn)
{
    shoal_net_coll_send(shoal_ctx_default.net, msg_tag(g, k), src, n, shoal_group_pe(g, i),
                        exchange, fn);
}

void shoal_group_recv_post(const struct shoal_group *g, unsigned k, void *buf, size_t n,
                           struct shoal_net_coll_rx *rx, const char *fn)
{
    *rx = (struct shoal_net_coll_rx){&g->ring->msgs_in, n, fn};
    shoal_net_coll_recv(msg_tag(g, k), buf, rx);
}

/* The wait for a collective's messages, and, where no member leaves the
 * collective before every member has entered it (all_in: fcollect,
 * reductions), its check for mismatched calls.  Not for a broadcast:
 * members whose data came leave and may signal the next barrier while
 * this one still waits for a parent that entered late, legitimately. */
enum { MATCHED, OTHER_CALL, FOREIGN_MESSAGE }; /* msg_q.mismatch */
struct msg_q {
    const struct shoal_group *g;
    uint64_t want, pending_since, next_probe;
    unsigned turn, k;
    int all_in, mismatch;
};

/* A wait looks for another collective's messages once it has lasted this
 * long, and as often: a few UCX calls a millisecond in waits that are
 * long already, none in short ones. */
#define FOREIGN_PROBE_NS 1000000ull

/* Has a message of this collective number come in a block other than k's?
 * The block's complement as UCP tag masks: for each bit of the block's
 * mask, the numbers that agree above it and differ there. */
static int foreign_message(uint64_t base, unsigned k)
{
    const unsigned m = k & 0x8000u ? 0x8000u : 0xffc0u, v = k & m;
    const uint64_t above_k = ~(uint64_t)MSG_K_MASK;
    for (int b = 15; b >= 0; b--) {
        const unsigned bit = 1u << b;
        if (!(m & bit))
            continue;
        const unsigned upper = m & ~(bit | (bit - 1));
        if (shoal_net_coll_waiting(base | ((v & upper) | (~v & bit)), above_k | upper | bit))
            return 1;
    }
    return 0;
}

static int msgs_ready(void *p)
{
    struct msg_q *q = p;
    if (__atomic_load_n(&q->g->ring->msgs_in, __ATOMIC_ACQUIRE) >= q->want)
        return 1;
    if ((++q->turn & 63) != 0)
        return 0;
    const uint64_t now = shoal_now_ns();
    if (!q->next_probe) {
        q->next_probe = now + FOREIGN_PROBE_NS;
    } else if (now >= q->next_probe) {
        q->next_probe = now + FOREIGN_PROBE_NS;
        if (foreign_message(msg_tag(q->g, 0), q->k))
            q->mismatch = FOREIGN_MESSAGE;
    }
    if (q->mismatch)
        return 1;
    if (q->all_in && shoal_group_other_call(q->g, &q->pending_since))
        q->mismatch = OTHER_CALL;
    return q->mismatch;
}

_Noreturn static void foreign_fatal(uint64_t collective, const char *what, const char *fn)
{
    shoal_fatal(fn,
                "a member sent this PE a message of another collective under this one's number "
                "(collective #%llu on the team) while it waits for %s: the PEs do not make the "
                "same collective calls",
                (unsigned long long)collective, what);
}

void shoal_group_send_waits(uint64_t tag, const char *fn)
{
    if (foreign_message(tag & ~(uint64_t)MSG_K_MASK, (unsigned)(tag & MSG_K_MASK)))
        foreign_fatal((tag >> 16) & MSG_SEQ_MASK, "a member to take its part of the data", fn);
}

void shoal_group_recv_wait(const struct shoal_group *g, unsigned count, int from, unsigned k,
                           const char *what, int all_in, const char *fn)
{
    struct shoal_bcast_ring *ring = g->ring;
    struct msg_q q = {g, ring->msgs_taken += count, 0, 0, 0, k, all_in, MATCHED};
    if (__atomic_load_n(&ring->msgs_in, __ATOMIC_ACQUIRE) >= q.want)
        return;
    shoal_wait_note_peer(g->team_slot, g->seq, from < 0 ? -1 : shoal_group_pe(g, from), what);
    struct shoal_waiter w;
    shoal_waiter_init(&w, shoal_my_slot(), fn, &ring->msgs_in);
    while (!msgs_ready(&q))
        shoal_backoff(&w, msgs_ready, &q);
    shoal_waiter_done(&w);
    shoal_wait_note_clear();
    if (q.mismatch == FOREIGN_MESSAGE)
        foreign_fatal(g->seq & MSG_SEQ_MASK, what, fn);
    if (q.mismatch == OTHER_CALL)
        shoal_group_mismatch(g, what, fn);
}

void shoal_group_recv(const struct shoal_group *g, int from, unsigned k, void *buf, size_t n,
                      const char *what, const char *fn)
{
    struct shoal_net_coll_rx rx;
    shoal_group_recv_post(g, k, buf, n, &rx, fn);
    shoal_group_recv_wait(g, 1, from, k, what, 0, fn);
}

int shoal_group_other_call(const struct shoal_group *g, uint64_t *since)
{
    int pending = 0;
    for (int w = 0; w < SHOAL_GROUP_SYNC_WORDS && !pending; w++)
        pending = w != SHOAL_GROUP_TREE_ACK_WORD && shoal_group_pending(g, w);
    if (!pending)
        return 0;
    if (g->on_node)
        return 1;
    const uint64_t now = shoal_now_ns();
    if (!*since)
        *since = now;
    if (now - *since <= SHOAL_GROUP_MISMATCH_NS)
        return 0;
    /* A member one collective ahead (it has all it needed of this one)
     * signals too, and the member waited for may be slow or cut off: only
     * while the member waited for answers looks through the network is
     * its silence taken for another call (a cut link is the reachability
     * check's to report: peer_check.h). */
    const int pe = shoal_wait_record_mine()->peer;
    return pe < 0 || shoal_peer_answers(pe);
}

void shoal_group_mismatch(const struct shoal_group *g, const char *what, const char *fn)
{
    shoal_fatal(fn,
                "a member signals this PE for a collective it is not in, while it waits for %s "
                "(collective #%llu on the team): the PEs do not make the same collective calls",
                what, (unsigned long long)g->seq);
}

void shoal_group_wait(const struct shoal_group *g, int w, const char *fn)
{
    if (g->seen) {
        const uint64_t next = g->seen[w] + 1;
        shoal_wait_until(SHOAL_W_U64, &g->sync[w], SHMEM_CMP_GE, &next, fn);
        g->seen[w] = next;
        return;
    }
    static const uint64_t one = 1;
    shoal_wait_until(SHOAL_W_U64, &g->sync[w], SHMEM_CMP_GE, &one, fn);
    /* Consume with an AMO on this PE, not a CPU atomic: peers' signals may
     * be network atomics (shoal_g.amo_via_net). */
    shoal_amo(SHMEM_CTX_DEFAULT, SHOAL_AMO_ADD, &g->sync[w], 8, (uint64_t)-1, 0, shoal_g.my_pe, fn);
}

void shoal_group_wait_acks_owed(const struct shoal_group *g, const char *fn)
{
    /* Nobody waited for them when they were sent (each child acknowledges
     * once it no longer reads its dest, before it returns), so by now they
     * have usually arrived. */
    const uint64_t need = g->ring->tree_acks_owed;
    if (g->seen[SHOAL_GROUP_TREE_ACK_WORD] >= need)
        return;
    shoal_wait_until(SHOAL_W_U64, &g->sync[SHOAL_GROUP_TREE_ACK_WORD], SHMEM_CMP_GE, &need, fn);
    g->seen[SHOAL_GROUP_TREE_ACK_WORD] = need;
}

void shoal_group_wait_from(const struct shoal_group *g, int w, int from, const char *what,
                           const char *fn)
{
    shoal_wait_note_peer(g->team_slot, g->seq, shoal_group_pe(g, from), what);
    shoal_group_wait(g, w, fn);
    shoal_wait_note_clear();
}

/* Through the network the read of prev's signature is a round trip, which
 * the collective's own data on the same connections can hold up by
 * milliseconds (an alltoall of 8 MiB per pair over tcp: 8% slower when it
 * waited for it): it is read as the collective starts and compared at its
 * closing sync (shoal_group_sync). */
static __thread struct {
    int team_slot; /* -1: no read pending */
    int prev;
    struct shoal_coll_sig mine, theirs;
} late = {.team_slot = -1};

static void late_compare(const struct shoal_group *g, const char *fn);

void shoal_group_sync(const struct shoal_group *g, const char *fn)
{
    static const char *const round_what[] = {
        "its barrier signal (round 0)", "its barrier signal (round 1)",
        "its barrier signal (round 2)", "its barrier signal (round 3)",
        "its barrier signal (round 4)", "its barrier signal (round 5+)"};
    const int n = g->size;
    if (SHOAL_UNLIKELY(late.team_slot >= 0) && late.team_slot == g->team_slot)
        late_compare(g, fn);
    for (int k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        shoal_group_signal(g, (g->me + dist) % n, SHOAL_GROUP_BARRIER_WORD + k, fn);
        shoal_group_wait_from(g, SHOAL_GROUP_BARRIER_WORD + k, (g->me - dist + n) % n,
                              round_what[k < 5 ? k : 5], fn);
    }
}

static void signal_word(uint64_t *word, int wpe, const char *fn)
{
    shoal_amo(SHMEM_CTX_DEFAULT, SHOAL_AMO_ADD, word, 8, 1, 0, wpe, fn);
}

static void wait_word(uint64_t *word, const struct shoal_group *g, int from, const char *what,
                      const char *fn)
{
    static const uint64_t one = 1;
    shoal_wait_note_peer(g->team_slot, g->seq, shoal_group_pe(g, from), what);
    shoal_wait_until(SHOAL_W_U64, word, SHMEM_CMP_GE, &one, fn);
    shoal_amo(SHMEM_CTX_DEFAULT, SHOAL_AMO_ADD, word, 8, (uint64_t)-1, 0, shoal_g.my_pe, fn);
    shoal_wait_note_clear();
}

static const char *team_label(int slot, char *buf, size_t len)
{
    if (slot == SHOAL_TEAM_SLOT_WORLD)
        return "SHMEM_TEAM_WORLD";
    if (slot == SHOAL_TEAM_SLOT_SHARED)
        return "SHMEM_TEAM_SHARED";
    snprintf(buf, len, "the team in slot %d", slot);
    return buf;
}

/* ---- Signatures: what a collective is, compared between neighbours
 * (the SHMEM_DEBUG handshake below, and shoal_group_sync_sig). */

static void sig_fill(struct shoal_coll_sig *s, const struct shoal_group *g, const char *fn,
                     uint64_t a, uint64_t b)
{
    memset(s, 0, sizeof *s);
    snprintf(s->fn, sizeof s->fn, "%s", fn);
    s->seq = g->seq;
    s->a = a;
    s->b = b;
}

/* Member prev's signature in this PE's team block, into *theirs. */
static void sig_read(const struct shoal_group *g, int prev, struct shoal_coll_sig *theirs,
                     const char *fn)
{
    struct shoal_team_block *blk = &shoal_my_ctl()->teams[g->team_slot];
    const struct shoal_coll_sig *p =
        shoal_group_read(g, prev, &blk->dbg_sig, sizeof *theirs, theirs, fn);
    if (p != theirs)
        memcpy(theirs, p, sizeof *theirs);
    theirs->fn[sizeof theirs->fn - 1] = 0;
}

static int sig_differs(const struct shoal_coll_sig *x, const struct shoal_coll_sig *y)
{
    return strcmp(x->fn, y->fn) || x->seq != y->seq || x->a != y->a || x->b != y->b;
}

/* `debug`: found by the SHMEM_DEBUG handshake, where prev has written this
 * collective's signature; otherwise an older signature (another number)
 * means prev posted none for this one. */
static _Noreturn void sig_mismatch(const struct shoal_group *g, int prev,
                                   const struct shoal_coll_sig *mine,
                                   const struct shoal_coll_sig *theirs, int debug, const char *fn)
{
    char t[48];
    if (!debug && theirs->seq != mine->seq)
        shoal_fatal(fn,
                    "collectives do not match on %s: this PE (PE %d) is in %s (collective #%llu, "
                    "sizes %llu, %llu), PE %d is in another collective (a smaller one, or one "
                    "of another kind)",
                    team_label(g->team_slot, t, sizeof t), shoal_g.my_pe, mine->fn,
                    (unsigned long long)mine->seq, (unsigned long long)mine->a,
                    (unsigned long long)mine->b, shoal_group_pe(g, prev));
    shoal_fatal(fn,
                "%scollectives do not match on %s: this PE (PE %d) is in %s (collective #%llu, "
                "sizes %llu, %llu), PE %d is in %s (collective #%llu, sizes %llu, %llu)",
                debug ? "SHMEM_DEBUG: " : "", team_label(g->team_slot, t, sizeof t), shoal_g.my_pe,
                mine->fn, (unsigned long long)mine->seq, (unsigned long long)mine->a,
                (unsigned long long)mine->b, shoal_group_pe(g, prev), theirs->fn,
                (unsigned long long)theirs->seq, (unsigned long long)theirs->a,
                (unsigned long long)theirs->b);
}

/* Member i, on this node, posted the signature of this collective's number
 * for another routine (collectives that sync with shoal_group_sync_sig, or
 * under SHMEM_DEBUG, post one): reports both and does not return; returns
 * where it tells nothing (a signature of another number, or member i's
 * block not mapped here). */
static void sig_names_other(const struct shoal_group *g, int i, const char *fn)
{
    if (g->team_slot < 0 || shoal_slot(shoal_group_pe(g, i)) < 0)
        return;
    struct shoal_coll_sig theirs;
    sig_read(g, i, &theirs, fn);
    if (theirs.seq != g->seq || !strcmp(theirs.fn, fn))
        return;
    char t[48];
    shoal_fatal(fn,
                "collectives do not match on %s: this PE (PE %d) is in %s (collective #%llu), "
                "PE %d is in %s (collective #%llu, sizes %llu, %llu)",
                team_label(g->team_slot, t, sizeof t), shoal_g.my_pe, fn,
                (unsigned long long)g->seq, shoal_group_pe(g, i), theirs.fn,
                (unsigned long long)theirs.seq, (unsigned long long)theirs.a,
                (unsigned long long)theirs.b);
}

void shoal_group_mismatch_at(const struct shoal_group *g, int i, const char *what, const char *fn)
{
    /* Member i first; the member in the other collective may be another
     * (at 4 PEs one member broadcasts while this one waits for a member
     * of its own alltoall that has not posted yet). */
    for (int k = 0; k < g->size; k++)
        sig_names_other(g, (i + k) % g->size, fn); /* returns only when it tells nothing */
    shoal_group_mismatch(g, what, fn);
}

/* Each member writes its signature, signals its successor, reads its
 * predecessor's (a ring of pairwise comparisons covers every member), and
 * acknowledges it; nobody starts the collective, or writes its next
 * signature, before its successor has read this one. */
void shoal_group_debug_check_slow(const struct shoal_group *g, const char *fn, uint64_t a,
                                  uint64_t b)
{
    if (g->team_slot < 0 || g->size < 2)
        return;
    struct shoal_team_block *blk = &shoal_my_ctl()->teams[g->team_slot];
    struct shoal_coll_sig mine, theirs;
    sig_fill(&mine, g, fn, a, b);
    blk->dbg_sig = mine;
    const int n = g->size, next = (g->me + 1) % n, prev = (g->me - 1 + n) % n;
    signal_word(&blk->dbg_sync[0], shoal_group_pe(g, next), fn);
    wait_word(&blk->dbg_sync[0], g, prev, "its collective signature (SHMEM_DEBUG)", fn);
    sig_read(g, prev, &theirs, fn);
    if (sig_differs(&theirs, &mine))
        sig_mismatch(g, prev, &mine, &theirs, 1, fn);
    signal_word(&blk->dbg_sync[1], shoal_group_pe(g, prev), fn);
    wait_word(&blk->dbg_sync[1], g, next,
              "its acknowledgement of this PE's collective "
              "signature (SHMEM_DEBUG)",
              fn);
}

static void late_start(const struct shoal_group *g, int prev, const struct shoal_coll_sig *mine,
                       const char *fn)
{
    struct shoal_team_block *blk = &shoal_my_ctl()->teams[g->team_slot];
    late.team_slot = g->team_slot;
    late.prev = prev;
    late.mine = *mine;
    shoal_get_nbi(SHMEM_CTX_DEFAULT, &late.theirs, &blk->dbg_sig, sizeof late.theirs,
                  shoal_group_pe(g, prev), fn);
}

static void late_compare(const struct shoal_group *g, const char *fn)
{
    late.team_slot = -1;
    shoal_quiet(SHMEM_CTX_DEFAULT, fn);
    late.theirs.fn[sizeof late.theirs.fn - 1] = 0;
    if (sig_differs(&late.theirs, &late.mine))
        sig_mismatch(g, late.prev, &late.mine, &late.theirs, 0, fn);
}

void shoal_group_sync_sig(const struct shoal_group *g, const char *fn, uint64_t a, uint64_t b,
                          size_t bytes, int compare)
{
    if (shoal_g.debug || g->team_slot < 0 || g->size < 2 || bytes < SHOAL_SIG_MIN_LOCAL) {
        shoal_group_sync(g, fn);
        return;
    }
    struct shoal_team_block *blk = &shoal_my_ctl()->teams[g->team_slot];
    struct shoal_coll_sig mine, theirs;
    sig_fill(&mine, g, fn, a, b);
    blk->dbg_sig = mine; /* before the sync's release: the successor reads it after */
    shoal_group_sync(g, fn);
    if (!compare)
        return;
    const int prev = (g->me - 1 + g->size) % g->size;
    /* prev cannot write its next signature before this PE has left the
     * collective (every collective that calls this ends with a sync). */
    if (shoal_slot(shoal_group_pe(g, prev)) < 0) {
        if (bytes >= SHOAL_SIG_MIN_NET)
            late_start(g, prev, &mine, fn);
        return;
    }
    sig_read(g, prev, &theirs, fn);
    if (sig_differs(&theirs, &mine))
        sig_mismatch(g, prev, &mine, &theirs, 0, fn);
}

void shoal_sync_all_internal(const char *fn)
{
    struct shoal_group g;
    shoal_group_of_team(&g, &shoal_team_world);
    shoal_group_debug_check(&g, fn, 0, 0);
    shoal_group_sync(&g, fn);
}

void shoal_barrier_all_internal(const char *fn)
{
    shoal_quiet(SHMEM_CTX_DEFAULT, fn);
    shoal_sync_all_internal(fn);
}
