/* A group's collectives as messages across nodes (sync.h:
 * shoal_group_send and after): their tags, the wait for them, and the
 * look for messages of another call under this collective's number. */
#include <stdint.h>
#include <stdio.h>

#include "core/teams/calls.h"
#include "core/teams/calls_read.h"
#include "core/teams/sync.h"
#include "core/waiting/wait.h"
#include "core/waiting/wait_record.h"

/* Team, the call's argument, which of its collectives, which message of
 * it: 7 + 8 + 32 + 16 bits (the transport keeps 63; a collective number
 * repeats after 2^32 of them, long after its messages were taken).  The
 * argument is what the signature (calls.h) says of the reduction's
 * operator and type, or of a broadcast's root (its next 6 bits ride in
 * the message number, coll/broadcast.c): members that disagree on them
 * never take each other's messages.  A team's slot is reused only after
 * every member destroyed the team, so after it took every message of it. */
#define MSG_K_MASK 0xffffull
#define MSG_SEQ_MASK 0xffffffffull
#define MSG_SEQ_SHIFT 16
#define MSG_ARG_SHIFT 48
#define MSG_SLOT_SHIFT 56
#define MSG_SEQ_BITS (MSG_SEQ_MASK << MSG_SEQ_SHIFT)
#define MSG_ARG_BITS (0xffull << MSG_ARG_SHIFT)
#define MSG_SLOT_BITS (0x7full << MSG_SLOT_SHIFT)

static uint64_t msg_arg(uint64_t sig)
{
    return ((sig >> 5) ^ (sig >> 13)) & 0xff;
}

static uint64_t msg_tag(const struct shoal_group *g, unsigned k)
{
    return (uint64_t)g->team_slot << MSG_SLOT_SHIFT | msg_arg(g->sig) << MSG_ARG_SHIFT |
           (g->seq & MSG_SEQ_MASK) << MSG_SEQ_SHIFT | (k & MSG_K_MASK);
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
    *rx = (struct shoal_net_coll_rx){&g->ring->msgs_in, n, fn, msg_tag(g, k)};
    shoal_net_coll_recv(msg_tag(g, k), buf, rx);
}

/* The wait for a collective's messages, and, where no member leaves the
 * collective before every member has entered it (all_in: fcollect,
 * reductions), its check for mismatched calls.  Not for a broadcast:
 * members whose data came leave and may signal the next barrier while
 * this one still waits for a parent that entered late, legitimately. */
enum { MATCHED, OTHER_CALL, FOREIGN_MESSAGE, OTHER_SIZE }; /* msg_q.mismatch */

/* A message of another size than its receive's (shoal_group_msg_size):
 * the first, kept for the thread that waits for it to report. */
static struct {
    int seen;
    uint64_t tag;
    size_t got, want;
} other_size;

void shoal_group_msg_size(uint64_t tag, size_t got, size_t want, const char *fn)
{
    (void)fn;
    if (__atomic_load_n(&other_size.seen, __ATOMIC_ACQUIRE))
        return;
    other_size.tag = tag;
    other_size.got = got;
    other_size.want = want;
    __atomic_store_n(&other_size.seen, 1, __ATOMIC_RELEASE);
}

static _Noreturn void size_fatal(const char *fn)
{
    char why[200], got[40] = "more";
    if (other_size.got != SIZE_MAX)
        snprintf(got, sizeof got, "%zu", other_size.got);
    snprintf(why, sizeof why,
             "a member sent %s bytes of this collective's data where this PE expects %zu", got,
             other_size.want);
    shoal_call_mismatch_at((int)(other_size.tag >> MSG_SLOT_SHIFT & 0x7f),
                           other_size.tag >> MSG_SEQ_SHIFT & MSG_SEQ_MASK, why, fn);
}
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

/* Has a message come whose tag agrees with `base` on `fixed` and differs
 * from it somewhere in `field`?  As UCP tag masks: for each bit of the
 * field, the tags that agree above it and differ there. */
static int differs_in(uint64_t base, uint64_t field, uint64_t fixed)
{
    for (int b = 63; b >= 0; b--) {
        const uint64_t bit = 1ull << b;
        if (!(field & bit))
            continue;
        const uint64_t upper = field & ~(bit | (bit - 1));
        if (shoal_net_coll_waiting(base ^ bit, fixed | upper | bit, NULL))
            return 1;
    }
    return 0;
}

/* Has a message of this collective number (team and number of `tag`)
 * come with another argument, or outside the block of numbers of k?
 * Every k of one collective lies in one block (sync.h). */
static int foreign_message(uint64_t tag, unsigned k)
{
    const uint64_t m = k & 0x8000u ? 0x8000u : 0xffc0u, base = tag & ~MSG_K_MASK;
    return differs_in(base, MSG_ARG_BITS, MSG_SLOT_BITS | MSG_SEQ_BITS) ||
           differs_in(base | (k & m), m, MSG_SLOT_BITS | MSG_SEQ_BITS | MSG_ARG_BITS);
}

static int msgs_ready(void *p)
{
    struct msg_q *q = p;
    if (__atomic_load_n(&q->g->ring->msgs_in, __ATOMIC_ACQUIRE) >= q->want)
        return 1;
    if (__atomic_load_n(&other_size.seen, __ATOMIC_ACQUIRE)) {
        q->mismatch = OTHER_SIZE; /* reported after the loop */
        return 1;
    }
    if ((++q->turn & 63) != 0)
        return 0;
    const uint64_t now = shoal_now_ns();
    if (!q->next_probe) {
        q->next_probe = now + FOREIGN_PROBE_NS;
    } else if (now >= q->next_probe) {
        q->next_probe = now + FOREIGN_PROBE_NS;
        if (foreign_message(msg_tag(q->g, q->k), q->k))
            q->mismatch = FOREIGN_MESSAGE;
    }
    if (q->mismatch)
        return 1;
    if (q->all_in && shoal_group_other_call(q->g, &q->pending_since))
        q->mismatch = OTHER_CALL;
    return q->mismatch;
}

static _Noreturn void foreign_fatal(int slot, uint64_t seq, const char *what, const char *fn)
{
    char why[200];
    snprintf(why, sizeof why,
             "a member sent this PE a message of another call under this collective's number "
             "while it waits for %s",
             what);
    shoal_call_mismatch_at(slot, seq, why, fn);
}

void shoal_group_send_waits(uint64_t tag, int pe, const char *fn)
{
    const int slot = (int)(tag >> MSG_SLOT_SHIFT & 0x7f);
    const uint64_t seq = tag >> MSG_SEQ_SHIFT & MSG_SEQ_MASK;
    if (foreign_message(tag, (unsigned)(tag & MSG_K_MASK)))
        foreign_fatal(slot, seq, "a member to take its part of the data", fn);
    shoal_call_send_check(slot, seq, pe, fn);
}

void shoal_group_recv_wait(const struct shoal_group *g, unsigned count, int from, unsigned k,
                           const char *what, int all_in, const char *fn)
{
    struct shoal_bcast_ring *ring = g->ring;
    struct msg_q q = {g, ring->msgs_taken += count, 0, 0, 0, k, all_in, MATCHED};
    if (__atomic_load_n(&ring->msgs_in, __ATOMIC_ACQUIRE) >= q.want) {
        if (SHOAL_UNLIKELY(__atomic_load_n(&other_size.seen, __ATOMIC_ACQUIRE)))
            size_fatal(fn);
        return;
    }
    shoal_wait_note_peer(g->team_slot, g->seq, from < 0 ? -1 : shoal_group_pe(g, from), what);
    struct shoal_waiter w;
    shoal_waiter_init(&w, shoal_my_slot(), fn, &ring->msgs_in);
    while (!msgs_ready(&q))
        shoal_backoff(&w, msgs_ready, &q);
    shoal_waiter_done(&w);
    shoal_wait_note_clear();
    if (q.mismatch == FOREIGN_MESSAGE)
        foreign_fatal(g->team_slot, g->seq, what, fn);
    if (q.mismatch == OTHER_CALL)
        shoal_group_mismatch(g, what, fn);
    if (__atomic_load_n(&other_size.seen, __ATOMIC_ACQUIRE))
        size_fatal(fn);
}

/* What a stray message's tag says of the call that sent it. */
static void describe_tag(char *buf, size_t len, uint64_t tag)
{
    static const char *const ops[] = {"and", "or", "xor", "max", "min", "sum", "prod", "?"};
    const unsigned k = (unsigned)(tag & MSG_K_MASK), arg = (unsigned)(tag >> MSG_ARG_SHIFT & 0xff);
    if (k >= SHOAL_MSG_BCAST && k < SHOAL_MSG_BCAST + 64)
        snprintf(buf, len, "a broadcast's data from root %u (modulo 16384)", arg | (k & 63) << 8);
    else if (k < SHOAL_MSG_REDUCE)
        snprintf(buf, len, "an fcollect's data");
    else
        snprintf(buf, len, "a reduction's data (operator %s)", ops[arg & 7]);
}

void shoal_group_msgs_left(int slot, const char *fn)
{
    uint64_t tag;
    const uint64_t where = slot < 0 ? 0 : (uint64_t)slot << MSG_SLOT_SHIFT;
    if (!shoal_g.net_coll_msgs)
        return;
    (void)shoal_net_progress(); /* what has arrived is in the transport's queue */
    if (!shoal_net_coll_waiting(where, slot < 0 ? 0 : MSG_SLOT_BITS, &tag))
        return;
    const int at = (int)(tag >> MSG_SLOT_SHIFT & 0x7f);
    const uint64_t seq = tag >> MSG_SEQ_SHIFT & MSG_SEQ_MASK;
    const struct shoal_call_rec *mine = shoal_call_rec_of(shoal_my_ctl()->teams[at].calls, seq);
    char t[48], what[96], call[200] = "another call";
    describe_tag(what, sizeof what, tag);
    if (mine)
        shoal_call_describe(call, sizeof call, mine);
    shoal_fatal(fn,
                "collectives do not match on %s: a member sent this PE %s under collective #%llu, "
                "where this PE called %s and took no such data: the PEs do not make the same "
                "collective calls",
                shoal_call_team_label(at, t, sizeof t), what, (unsigned long long)seq, call);
}

void shoal_group_recv(const struct shoal_group *g, int from, unsigned k, void *buf, size_t n,
                      const char *what, const char *fn)
{
    struct shoal_net_coll_rx rx;
    shoal_group_recv_post(g, k, buf, n, &rx, fn);
    shoal_group_recv_wait(g, 1, from, k, what, 0, fn);
}
