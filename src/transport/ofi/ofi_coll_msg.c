/* Collectives' data as tagged messages (shoal_net_coll_send/recv/waiting),
 * where the job takes them (ofi_msgs.h).  The tag names the team, which
 * of its collectives this is and which message of it (the core's, low 63
 * bits), so messages that come early never meet the wrong receive: they
 * wait in the receiver's provider until the receive for their tag is
 * posted, into the receiver's own buffer.  A completed receive counts
 * itself in the caller's counter and rings the doorbell of waiters
 * asleep; one of another size goes to the core's hook (the members'
 * calls differ). */
#include <stdlib.h>
#include <time.h>

#include "transport/ofi/ofi_msgs.h"

static uint64_t wire_tag(uint64_t tag)
{
    return OFI_COLL_TAG_MARK | (tag & OFI_COLL_TAG_BITS);
}

struct coll_send {
    uint64_t tag;
    int pe;
    const char *fn;
};

static void send_waits(void *arg)
{
    const struct coll_send *cs = arg;
    if (ofi_g.hooks->coll_send_waits)
        ofi_g.hooks->coll_send_waits(cs->tag, cs->pe, cs->fn);
}

/* One endpoint serves both ways: `exchange` changes nothing here.  Marked
 * as a signal: a PE that leaves first completes it (flush_signals). */
void ofi_net_coll_send(struct shoal_net_ctx *net, uint64_t tag, const void *src, size_t n, int pe,
                       int exchange, const char *fn)
{
    (void)exchange;
    struct coll_send cs = {tag, pe, fn};
    struct ofi_ep *e = ofi_ctx_ep(net, fn);
    ofi_msg_send(e, wire_tag(tag), src, n, pe, send_waits, &cs, fn,
                 "collective's data (tagged message)");
    ofi_peers_add(e, &e->signalled, pe);
}

struct coll_recv {
    struct ofi_rx rx; /* first: the completion's context */
    const struct shoal_net_coll_rx *want;
};

static void size_differs(const struct shoal_net_coll_rx *w, size_t got, int cut)
{
    if (ofi_g.hooks->coll_msg_size) {
        ofi_g.hooks->coll_msg_size(w->tag, got, w->len, w->fn);
        return;
    }
    ofi_fatalf(w->fn,
               "a member sent %s bytes of this collective's data where this PE expects %zu (the "
               "members' arguments differ)",
               cut ? "more" : "fewer", w->len);
}

static void arrived(struct ofi_rx *rx, size_t len, uint64_t tag, int err, size_t olen)
{
    (void)tag;
    struct coll_recv *c = (struct coll_recv *)rx;
    const struct shoal_net_coll_rx *w = c->want;
    free(c);
    const int cut = err == FI_ETRUNC;
    if (OFI_UNLIKELY(err && !cut)) {
        if (ofi_rx_error_expected(err))
            return;
        ofi_die(w->fn, -1, "receiving a collective's data", -err);
    }
    if (OFI_UNLIKELY(cut || len != w->len))
        size_differs(w, cut ? (olen ? w->len + olen : SIZE_MAX) : len, cut);
    __atomic_add_fetch(w->counter, 1, __ATOMIC_RELEASE);
    ofi_g.hooks->writes_arrived();
}

void ofi_net_coll_recv(uint64_t tag, void *buf, const struct shoal_net_coll_rx *rx)
{
    struct coll_recv *c = malloc(sizeof *c);
    if (!c)
        ofi_fatalf(rx->fn, "out of memory for a collective's receive");
    c->rx.done = arrived;
    c->want = rx;
    ofi_msg_recv(buf, rx->len, wire_tag(tag), 0, &c->rx, rx->fn);
}

/* A look (FI_PEEK) among the target's unexpected messages: its answer is
 * an entry of the target's queue (an error, FI_ENOMSG, where none
 * matches), which the provider writes at once or soon. */
#define PEEK_ANSWER_S 10

struct peek {
    struct ofi_rx rx;
    int done, found;
    uint64_t tag;
};

static void peeked(struct ofi_rx *rx, size_t len, uint64_t tag, int err, size_t olen)
{
    (void)len, (void)olen;
    struct peek *p = (struct peek *)rx;
    p->found = err == 0;
    p->tag = tag;
    __atomic_store_n(&p->done, 1, __ATOMIC_RELEASE);
}

int ofi_net_coll_waiting(uint64_t tag, uint64_t mask, uint64_t *found)
{
    if (!ofi_msgs.coll)
        return 0;
    struct peek p = {0};
    p.rx.done = peeked;
    struct fi_msg_tagged m = {.msg_iov = NULL,
                              .desc = NULL,
                              .iov_count = 0,
                              .addr = FI_ADDR_UNSPEC,
                              .tag = wire_tag(tag),
                              .ignore = ~mask & OFI_COLL_TAG_BITS,
                              .context = &p.rx,
                              .data = 0};
    uint64_t posted = 0;
    OFI_POST(NULL, &posted, fi_trecvmsg(ofi_g.target.ep, &m, FI_PEEK), "collectives", -1,
             "look for a collective's message (FI_PEEK)");
    /* Never answered: the look's context (this frame) cannot be given up,
     * so a provider that drops it ends the job with its name. */
    const time_t give_up = time(NULL) + PEEK_ANSWER_S;
    while (!__atomic_load_n(&p.done, __ATOMIC_ACQUIRE)) {
        ofi_progress_target();
        if (OFI_UNLIKELY(time(NULL) > give_up))
            ofi_fatalf("collectives",
                       "libfabric (%s) did not answer a look for a collective's message (FI_PEEK) "
                       "in %d s; SHOAL_OFI_MSGS=signals moves the data by puts",
                       ofi_g.info->fabric_attr->prov_name, PEEK_ANSWER_S);
    }
    if (p.found && found)
        *found = p.tag & OFI_COLL_TAG_BITS;
    return p.found;
}
