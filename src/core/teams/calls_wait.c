/* The look of a thread that waits in a collective at the calls of the PEs
 * it waits for (calls.h).  From LOOK_AFTER_NS into the wait, every
 * LOOK_EVERY_NS, it reads their records (calls_read.h), without blocking
 * the wait, and finds:
 *  - a collective number both have a record of, with other calls: the
 *    PEs do not make the same calls (a broadcast from another root, a sum
 *    against a max, an alltoall against an fcollect);
 *  - a PE that has not entered this collective and waits itself, in a
 *    collective on another team that this PE has not entered and cannot
 *    enter before this one ends (any but a broadcast, or a broadcast that
 *    waits for this PE): each waits for the other for ever, the calls are
 *    on different teams or in another order.  Only where neither PE runs
 *    SHMEM_THREAD_MULTIPLE, where another thread may be about to make the
 *    call: for that second look each PE publishes, from the same moment
 *    of its waits, the collective it waits in (shoal_ctl.blocked).
 * A mismatch is reported once a second read, CONFIRM_NS later, finds it
 * again: a read through the network may catch a record half written. */
#include "core/teams/calls.h"

#include <stdio.h>

#include "core/teams/calls_read.h"
#include "core/teams/team.h"
#include "core/waiting/wait.h"
#include "core/waiting/wait_record.h"

#define LOOK_AFTER_NS 100000000ull
#define LOOK_EVERY_NS 200000000ull
#define CONFIRM_NS 2000000ull

struct finding {
    int found, pe, cross; /* cross: the PE waits on another team */
    struct shoal_call_rec mine, theirs;
    int theirs_slot;
};

static __thread struct {
    uint64_t since, next; /* the wait looked at (its start), and its next look */
    int slot, peer;
    uint64_t seq;
    int in_flight, cursor, busy, published;
    struct finding suspect; /* the last look's, to be confirmed */
} st;

static int same_finding(const struct finding *a, const struct finding *b)
{
    return a->found && b->found && a->pe == b->pe && a->cross == b->cross &&
           a->theirs_slot == b->theirs_slot && a->theirs.seq == b->theirs.seq &&
           a->theirs.sig == b->theirs.sig && a->mine.seq == b->mine.seq;
}

/* PE pe waits in blocked b: in a collective on another team that this PE
 * has not entered, and that cannot end without it? */
static int waits_across(const struct shoal_call_blocked *b, int slot)
{
    if (!b->slot1 || shoal_g.thread_level == SHMEM_THREAD_MULTIPLE)
        return 0;
    const int bslot = (int)b->slot1 - 1;
    const struct shoal_team *t = shoal_team_at_slot(bslot);
    if (bslot == slot || !t || t->coll_seq >= b->call.seq)
        return 0;
    const int kind = shoal_call_kind_of(b->call.sig) & (SHOAL_CALL_MT - 1);
    return kind != SHOAL_CALL_BCAST || b->peer == shoal_g.my_pe;
}

/* What PE pe's records (and wait) say against this PE's. */
static struct finding judge(int pe, const struct shoal_call_rec *theirs,
                            const struct shoal_call_blocked *b)
{
    const struct shoal_call_rec *mine = shoal_my_ctl()->teams[st.slot].calls;
    struct finding f = {0};
    uint64_t latest = 0;
    for (int k = 0; k < SHOAL_CALL_RECS; k++) {
        const struct shoal_call_rec *m = shoal_call_rec_of(mine, theirs[k].seq);
        if (theirs[k].seq > latest)
            latest = theirs[k].seq;
        if (m && m->sig != theirs[k].sig)
            return (struct finding){1, pe, 0, *m, theirs[k], st.slot};
    }
    const struct shoal_call_rec *now = shoal_call_rec_of(mine, st.seq);
    if (now && latest < st.seq && waits_across(b, st.slot))
        f = (struct finding){1, pe, 1, *now, b->call, (int)b->slot1 - 1};
    return f;
}

static _Noreturn void report(const struct finding *f, const char *fn)
{
    if (!f->cross)
        shoal_call_report(st.slot, st.seq, &f->mine, f->pe, &f->theirs, NULL, fn);
    char t1[48], t2[48], a[200], b[200];
    shoal_call_describe(a, sizeof a, &f->mine);
    shoal_call_describe(b, sizeof b, &f->theirs);
    shoal_fatal(fn,
                "collectives do not match: this PE (PE %d) is in %s on %s and waits for PE %d, "
                "which has not entered it: PE %d waits in %s on %s, which this PE has not "
                "entered; the PEs call collectives on different teams, or in another order",
                shoal_g.my_pe, a, shoal_call_team_label(st.slot, t1, sizeof t1), f->pe, f->pe, b,
                shoal_call_team_label(f->theirs_slot, t2, sizeof t2));
}

static void evaluate(const struct shoal_call_look *l, uint64_t now, const char *fn)
{
    struct finding f = {0};
    for (int k = 0; k < l->n && !f.found; k++)
        f = judge(l->pe[k], l->recs[k], &l->blocked[k]);
    if (same_finding(&f, &st.suspect))
        report(&f, fn);
    st.suspect = f;
    st.next = now + (f.found ? CONFIRM_NS : LOOK_EVERY_NS);
}

/* The PEs to read this time: the one waited for, else the members in turn. */
static int targets(int *pes)
{
    const struct shoal_team *t = shoal_team_at_slot(st.slot);
    if (!t || t->size < 2)
        return 0;
    if (st.peer >= 0 && st.peer != shoal_g.my_pe) {
        pes[0] = st.peer;
        return 1;
    }
    int n = 0;
    for (int k = 0; k < t->size - 1 && n < SHOAL_CALL_LOOK_MAX; k++) {
        const int i = (t->my_pe + 1 + (st.cursor + k) % (t->size - 1)) % t->size;
        pes[n++] = t->start + i * t->stride;
    }
    st.cursor = (st.cursor + n) % (t->size - 1);
    return n;
}

static void publish(void)
{
    const struct shoal_call_rec *r =
        shoal_call_rec_of(shoal_my_ctl()->teams[st.slot].calls, st.seq);
    if (st.published || !r || shoal_g.thread_level == SHMEM_THREAD_MULTIPLE)
        return;
    struct shoal_call_blocked *b = &shoal_my_ctl()->blocked;
    b->peer = st.peer;
    b->call = *r;
    __atomic_store_n(&b->slot1, (uint64_t)st.slot + 1, __ATOMIC_RELEASE);
    st.published = 1;
}

static void look(uint64_t since, int slot, uint64_t seq, int peer, uint64_t now, const char *fn)
{
    if (since != st.since || slot != st.slot || seq != st.seq) {
        if (st.in_flight && !shoal_call_look_done(fn))
            return; /* the last wait's look is still on its way */
        shoal_call_wait_end();
        st.in_flight = 0;
        st.since = since;
        st.next = since + LOOK_AFTER_NS;
        st.slot = slot;
        st.seq = seq;
        st.peer = peer;
        st.suspect = (struct finding){0};
    }
    if (now < st.next)
        return;
    publish();
    if (!st.in_flight) {
        int pes[SHOAL_CALL_LOOK_MAX];
        const int n = targets(pes);
        if (!n || !shoal_call_look_start(pes, n, slot, fn))
            return;
        st.in_flight = 1;
    }
    const struct shoal_call_look *l = shoal_call_look_done(fn);
    if (!l) {
        st.next = now; /* test again at the next turn */
        return;
    }
    st.in_flight = 0;
    evaluate(l, now, fn);
}

void shoal_call_wait_check(struct shoal_waiter *w, uint64_t now)
{
    const struct shoal_wait_record *r = shoal_wait_record_mine();
    const int slot = __atomic_load_n(&r->team_slot, __ATOMIC_RELAXED);
    const uint64_t seq = __atomic_load_n(&r->seq, __ATOMIC_RELAXED);
    if (slot < 0 || !seq || st.busy)
        return;
    st.busy = 1;
    look(r->since_ns, slot, seq, __atomic_load_n(&r->peer, __ATOMIC_RELAXED), now, w->fn);
    st.busy = 0;
}

void shoal_call_send_check(int slot, uint64_t seq, int pe, const char *fn)
{
    if (st.busy || slot < 0 || slot >= SHOAL_TEAM_SLOTS || !seq)
        return;
    st.busy = 1;
    const uint64_t now = shoal_now_ns();
    /* A send's wait has no record of its start: the first call is it. */
    const uint64_t since = slot == st.slot && seq == st.seq && pe == st.peer ? st.since : now;
    look(since, slot, seq, pe, now, fn);
    st.busy = 0;
}

void shoal_call_wait_end(void)
{
    if (!st.published)
        return;
    __atomic_store_n(&shoal_my_ctl()->blocked.slot1, 0, __ATOMIC_RELEASE);
    st.published = 0;
}
