/* Reading other PEs' call records (calls_read.h).  A record is written
 * number last, so a load that finds the number finds its fields; a get
 * through the network may not (it reads in any order): the checks that
 * use them confirm a mismatch by a second read (calls_wait.c). */
#include "core/teams/calls_read.h"

#include <stdlib.h>
#include <string.h>

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

/* The calling thread's request for the gets, and whether it is in use. */
static __thread struct shoal_net_req *req;
static __thread int req_busy;
/* On the heap: a dlopen'ed libshoal (Python's cffi) gets its thread-locals
 * from glibc's small static TLS surplus, which 2.4 KB here exhausted. */
static __thread struct shoal_call_look *look;

/* The request, with a network resource: a shared one, which may still
 * fail to be made (file descriptors run out): then nothing is read, as a
 * look must never end a healthy job. */
static int req_ready(const char *fn)
{
    if (!req && !(req = calloc(1, shoal_net_req_size())))
        return -1;
    return shoal_net_req_reserve(req, SHOAL_NET_REQ_SHARE, fn);
}

static void issue(int pe, int slot, struct shoal_call_rec *recs, struct shoal_call_blocked *blocked,
                  const char *fn)
{
    const struct shoal_ctl *me = shoal_my_ctl();
    shoal_net_req_get(req, recs, me->teams[slot].calls, sizeof me->teams[slot].calls, pe, fn);
    if (blocked)
        shoal_net_req_get(req, blocked, &me->blocked, sizeof *blocked, pe, fn);
    req_busy = 1;
}

static int test(const char *fn)
{
    if (!req_busy)
        return 1;
    if (!shoal_net_req_test(req, fn))
        return 0;
    shoal_net_req_release(req);
    memset(req, 0, shoal_net_req_size());
    req_busy = 0;
    return 1;
}

/* Until the thread's request is idle, up to `until` (ns). */
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
    if (!shoal_g.net_active || drain(until, fn) < 0 || req_ready(fn) < 0)
        return -1;
    issue(pe, slot, recs, blocked, fn);
    return drain(until, fn);
}

struct shoal_call_look *shoal_call_look_start(const int *pes, int n, int slot, const char *fn)
{
    if (req_busy && !test(fn))
        return NULL;
    if (!look && !(look = calloc(1, sizeof *look)))
        return NULL;
    look->n = n < SHOAL_CALL_LOOK_MAX ? n : SHOAL_CALL_LOOK_MAX;
    look->slot = slot;
    for (int k = 0; k < look->n; k++) {
        look->pe[k] = pes[k];
        const struct shoal_ctl *c = mapped_ctl(pes[k]);
        if (c)
            read_mapped(c, slot, look->recs[k], &look->blocked[k]);
        else if (shoal_g.net_active && req_ready(fn) == 0)
            issue(pes[k], slot, look->recs[k], &look->blocked[k], fn);
        else
            look->n = k; /* cannot be read: the look ends before it */
    }
    return look;
}

const struct shoal_call_look *shoal_call_look_done(const char *fn)
{
    return test(fn) ? look : NULL;
}
