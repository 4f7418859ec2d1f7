/* Groups, their signals, and the dissemination barrier every collective
 * (and the core's own synchronization: heap allocation, team creation) is
 * built on (protocol: sync.h).  Round k of member i signals member
 * (i + 2^k) mod n and waits for the signal of member (i - 2^k) mod n:
 * ceil(log2 n) rounds for any n, and a signal per round per member. */
#include "core/teams/sync.h"

#include <stdio.h>
#include <string.h>

#include "core/teams/calls.h"
#include "core/teams/team.h"
#include "core/waiting/peer_check.h"
#include "core/waiting/wait.h"
#include "core/waiting/wait_record.h"

void shoal_group_of_team(struct shoal_group *g, struct shoal_team *t, uint64_t sig, uint64_t size,
                         const char *fn)
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
    g->round0 = SHOAL_GROUP_TEAM_ROUND0;
    g->round_stride = SHOAL_SYNC_ROUND_WORDS;
    g->sig = sig;
    shoal_call_publish(t->slot, g->seq, sig, size, fn);
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

int shoal_group_other_call(const struct shoal_group *g, uint64_t *since)
{
    int pending = shoal_group_pending(g, SHOAL_GROUP_TREE_WORD);
    for (int k = 0; k < SHOAL_SYNC_ROUNDS && !pending; k++)
        pending = shoal_group_pending(g, shoal_group_round_word(g, k));
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
     * signals too, and the member waited for may be slow, stopped, or cut
     * off: only while the member waited for answers looks through the
     * network (a cut link is the reachability check's to report:
     * peer_check.h), and only where a member's record names another call
     * under this one's number, is the signal taken for another call.  A
     * member stopped between its sends to two peers answers again once it
     * runs, before its send here arrives: without the records' evidence
     * that was a mismatch (cluster.stop, 1 run in 6). */
    const int pe = shoal_wait_record_mine()->peer;
    if (pe >= 0 && !shoal_peer_answers(pe))
        return 0;
    if (shoal_call_differs(g->team_slot, g->seq, "a look at the members' calls"))
        return 1;
    *since = now; /* the members agree on this call so far: look again later */
    return 0;
}

void shoal_group_mismatch(const struct shoal_group *g, const char *what, const char *fn)
{
    char why[200];
    snprintf(why, sizeof why,
             "a member signals this PE for a collective it is not in, while it waits for %s", what);
    shoal_call_mismatch_unknown(g, why, fn);
}

void shoal_group_wait(const struct shoal_group *g, int w, const char *fn)
{
    if (g->seen) {
        uint64_t *seen = shoal_group_seen(g, w);
        const uint64_t next = *seen + 1;
        shoal_wait_until(SHOAL_W_U64, &g->sync[w], SHMEM_CMP_GE, &next, fn);
        *seen = next;
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
    uint64_t *seen = shoal_group_seen(g, SHOAL_GROUP_TREE_ACK_WORD);
    if (*seen >= need)
        return;
    shoal_wait_until(SHOAL_W_U64, &g->sync[SHOAL_GROUP_TREE_ACK_WORD], SHMEM_CMP_GE, &need, fn);
    *seen = need;
}

void shoal_group_wait_from(const struct shoal_group *g, int w, int from, const char *what,
                           const char *fn)
{
    shoal_wait_note_peer(g->team_slot, g->seq, shoal_group_pe(g, from), what);
    shoal_group_wait(g, w, fn);
    shoal_wait_note_clear();
}

/* A round's signal to member i (word w: its counter), with this call's
 * signature beside the counter in the slot of this PE's sync count's
 * parity: a sender is at most one sync ahead of its receiver (it cannot
 * leave sync s + 1 before the receiver has entered it, so has left s), so
 * two slots keep each sync's signature until it is read.  Where the
 * network cannot carry it with the signal, the receiver does not look. */
static void round_signal(const struct shoal_group *g, int i, int w, unsigned par, const char *fn)
{
    const int wpe = shoal_group_pe(g, i), s = shoal_slot(wpe);
    uint64_t *word = &g->sync[w];
    if (s >= 0) {
        __atomic_store_n(&shoal_ctl_of_slot(s)->teams[g->team_slot].sync[w + 1 + par], g->sig,
                         __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_RELEASE); /* before the signal */
    } else if (shoal_g.net_signal_data) {
        shoal_signal_post_data(word, word + 1 + par, &g->sig, sizeof g->sig, wpe, fn);
        return;
    }
    shoal_signal_post(word, wpe, fn);
}

static void round_check(const struct shoal_group *g, int from, int w, unsigned par, const char *fn)
{
    if (shoal_slot(shoal_group_pe(g, from)) < 0 && !shoal_g.net_signal_data)
        return;
    const uint64_t theirs = __atomic_load_n(&g->sync[w + 1 + par], __ATOMIC_ACQUIRE);
    if (SHOAL_UNLIKELY(theirs != g->sig))
        shoal_call_mismatch(g, from, theirs, fn);
}

void shoal_group_sync(const struct shoal_group *g, const char *fn)
{
    static const char *const round_what[] = {
        "its barrier signal (round 0)", "its barrier signal (round 1)",
        "its barrier signal (round 2)", "its barrier signal (round 3)",
        "its barrier signal (round 4)", "its barrier signal (round 5+)"};
    const int n = g->size, signed_rounds = g->sig && g->seen;
    const unsigned par = signed_rounds ? (unsigned)(++g->ring->syncs & 1) : 0;
    for (int k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        const int w = shoal_group_round_word(g, k), to = (g->me + dist) % n,
                  from = (g->me - dist + n) % n;
        if (signed_rounds)
            round_signal(g, to, w, par, fn);
        else
            shoal_group_signal(g, to, w, fn);
        shoal_group_wait_from(g, w, from, round_what[k < 5 ? k : 5], fn);
        if (signed_rounds)
            round_check(g, from, w, par, fn);
    }
}

void shoal_sync_all_internal(const char *fn)
{
    struct shoal_group g;
    shoal_group_of_team(&g, &shoal_team_world, shoal_call_sig(SHOAL_CALL_SYNC, 0, 0, 0, 0), 0, fn);
    shoal_group_debug_check(&g, fn, 0, 0);
    shoal_group_sync(&g, fn);
}

void shoal_barrier_all_internal(const char *fn)
{
    shoal_quiet(SHMEM_CTX_DEFAULT, fn);
    shoal_sync_all_internal(fn);
}
