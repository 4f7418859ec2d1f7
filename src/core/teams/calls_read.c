/* Reading other PEs' call records (calls_read.h).  A record is written
 * number last, so a load that finds the number finds its fields; a get
 * through the network may not (it reads in any order): the checks that
 * use them confirm a mismatch by a second read (calls_wait.c). */
#include "core/teams/calls_read.h"

#include <stdlib.h>
#include <string.h>

#include "core/waiting/peer_reach.h"
#include "core/waiting/wait.h"
#include "transport/net.h"

#define READ_NOW_NS 2000000000ull

static void read_mapped(const struct shoal_ctl *c, int slot, struct shoal_call_rec *recs,
                        struct shoal_call_blocked *blocked)
{
    const struct shoal_call_rec *src = c->teams[slot].calls;
    for (int k = 0; k < SHOAL_CALL_RECS; k++) {
        recs[k].seq = __atomic_load_n(&src[k].seq, __ATOMIC_ACQUIRE);
        recs[k].sig = src[k].sig;
        recs[k].size = src[k].size;
        recs[k].fn_off = src[k].fn_off;
    }
    if (!blocked)
        return;
    blocked->slot1 = __atomic_load_n(&c->blocked.slot1, __ATOMIC_ACQUIRE);
    blocked->peer = c->blocked.peer;
    blocked->call = c->blocked.call;
}

/* The PE's ctl block where this PE maps it, else NULL. */
static const struct shoal_ctl *mapped_ctl(int pe)
{
    if (pe == shoal_g.my_pe)
        return shoal_my_ctl();
    const int s = shoal_slot(pe);
    return s >= 0 ? shoal_ctl_of_slot(s) : NULL;
}

/* The calling thread's looks through the network (tickets of
 * shoal_net_look_start) and what they read into; on the heap: a dlopen'ed
 * libshoal (Python's cffi) gets its thread-locals from glibc's small
 * static TLS reserve, which 2.4 KB here exhausted. */
#define TICKETS (2 * SHOAL_CALL_LOOK_MAX)
struct reader {
    int n_tickets;
    int tickets[TICKETS];
    int owner[TICKETS]; /* the look's PE index k the ticket reads for */
    int first_failed;   /* the lowest such k whose read failed (n: none) */
    struct shoal_call_look look;
    /* shoal_call_read_now's gets land here, not in its caller's frame: one
     * that has not come back in time may land later. */
    struct shoal_call_rec now_recs[SHOAL_CALL_RECS];
    struct shoal_call_blocked now_blocked;
};
static __thread struct reader *rd;

static int reader_ready(void)
{
    if (!rd && !(rd = calloc(1, sizeof *rd)))
        return -1;
    return 0;
}

/* Starts the gets of pe's records (and what it waits in); 0, or -1 when
 * they cannot be made now.  A new endpoint only where pe's host answers. */
static int issue(int k, int pe, int slot, struct shoal_call_rec *recs,
                 struct shoal_call_blocked *blocked, const char *fn)
{
    if (!shoal_g.net_active || reader_ready() < 0 || rd->n_tickets + 2 > TICKETS)
        return -1;
    const int connect = shoal_reach_may_connect(pe, shoal_now_ns());
    const struct shoal_ctl *me = shoal_my_ctl();
    int t = shoal_net_look_start(recs, me->teams[slot].calls, sizeof me->teams[slot].calls, pe,
                                 connect, fn);
    if (t < 0)
        return -1;
    rd->owner[rd->n_tickets] = k;
    rd->tickets[rd->n_tickets++] = t;
    if (!blocked)
        return 0;
    t = shoal_net_look_start(blocked, &me->blocked, sizeof *blocked, pe, connect, fn);
    if (t < 0)
        return -1; /* the first is tested to its end by the caller's drain */
    rd->owner[rd->n_tickets] = k;
    rd->tickets[rd->n_tickets++] = t;
    return 0;
}

/* 1 once every look of the thread came back (a failed one lowers
 * rd->first_failed to its owner), else 0. */
static int test(const char *fn)
{
    if (!rd)
        return 1;
    for (int i = 0; i < rd->n_tickets;) {
        const int r = shoal_net_look_test(rd->tickets[i], fn);
        if (r == 0) {
            i++;
            continue;
        }
        if (r < 0 && rd->owner[i] < rd->first_failed)
            rd->first_failed = rd->owner[i];
        rd->n_tickets--;
        rd->tickets[i] = rd->tickets[rd->n_tickets];
        rd->owner[i] = rd->owner[rd->n_tickets];
    }
    return rd->n_tickets == 0;
}

/* Until the thread's looks are back, up to `until` (ns). */
static int drain(uint64_t until, const char *fn)
{
    while (!test(fn)) {
        if (shoal_now_ns() > until)
            return -1;
        (void)shoal_net_progress();
    }
    return 0;
}

int shoal_call_read_now(int pe, int slot, struct shoal_call_rec *recs,
                        struct shoal_call_blocked *blocked, const char *fn)
{
    const struct shoal_ctl *c = mapped_ctl(pe);
    if (c) {
        read_mapped(c, slot, recs, blocked);
        return 0;
    }
    const uint64_t until = shoal_now_ns() + READ_NOW_NS;
    if (drain(until, fn) < 0 || reader_ready() < 0)
        return -1;
    /* The thread's look (drained above) keeps what it learnt of its own
     * failed reads: a wait may read now while its look is under way. */
    const int look_failed = rd->first_failed;
    rd->first_failed = 1;
    const int issued = issue(0, pe, slot, rd->now_recs, blocked ? &rd->now_blocked : NULL, fn);
    const int drained = drain(until, fn);
    const int failed = drained < 0 || issued < 0 || rd->first_failed == 0;
    rd->first_failed = look_failed;
    if (failed)
        return -1;
    memcpy(recs, rd->now_recs, sizeof rd->now_recs);
    if (blocked)
        *blocked = rd->now_blocked;
    return 0;
}

struct shoal_call_look *shoal_call_look_start(const int *pes, int n, int slot, const char *fn)
{
    if (!test(fn) || reader_ready() < 0)
        return NULL;
    struct shoal_call_look *l = &rd->look;
    l->n = n < SHOAL_CALL_LOOK_MAX ? n : SHOAL_CALL_LOOK_MAX;
    rd->first_failed = l->n;
    l->slot = slot;
    for (int k = 0; k < l->n; k++) {
        l->pe[k] = pes[k];
        const struct shoal_ctl *c = mapped_ctl(pes[k]);
        if (c)
            read_mapped(c, slot, l->recs[k], &l->blocked[k]);
        else if (issue(k, pes[k], slot, l->recs[k], &l->blocked[k], fn) < 0)
            l->n = k; /* cannot be read: the look ends before it */
    }
    return l;
}

const struct shoal_call_look *shoal_call_look_done(const char *fn)
{
    if (!test(fn) || !rd)
        return NULL;
    /* A failed read leaves its PE's records unknown: the look ends before it. */
    if (rd->first_failed < rd->look.n)
        rd->look.n = rd->first_failed;
    return &rd->look;
}
