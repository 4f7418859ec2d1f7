/* Active messages as tagged messages (shoal_net_am_send), where the job
 * takes them (ofi_msgs.h): a header naming the handler's tag, the sender
 * and its completion counter, and the payload, in one message to the
 * peer's target endpoint up to AM_EAGER bytes, where one of a pool of
 * posted receives takes it; a larger payload follows its header as a
 * message of its own, tagged with the sender and a number, which the
 * receiver posts a receive for into the message's own buffer when the
 * header arrives (the provider holds it, or its sender, until then).  The
 * target's progress hands messages up (am_arrived) in the order their
 * headers arrive, one reader of its queue at a time (ofi_wait.c): a
 * large one is queued at once and marked ready when its payload is in. */
#include <stdlib.h>
#include <string.h>

#include "transport/ofi/ofi_msgs.h"

#define AM_EAGER 8192
#define AM_SLOTS 16

struct am_hdr {
    int32_t tag, src;
    uint32_t ctr, seq;
    uint64_t len;
};

struct am_wire {
    struct am_hdr h;
    unsigned char data[AM_EAGER];
};

struct am_slot {
    struct ofi_rx rx; /* first: the completion's context */
    struct am_wire w;
};

/* core's view, the receive of a large payload, then the payload. */
struct am_msg {
    struct shoal_net_am_msg m;
    struct ofi_rx rx;
    _Alignas(16) unsigned char data[];
};

static struct am_slot *slots;
static uint32_t next_seq; /* numbers this PE's large payloads */

static uint64_t data_tag(int src, uint32_t seq)
{
    return OFI_AM_DATA_MARK | ((uint64_t)(uint32_t)src << 32) | seq;
}

int ofi_net_am_send(struct shoal_net_ctx *net, int pe, int tag, unsigned ctr, const void *payload,
                    size_t len, const char *fn)
{
    if (!ofi_msgs.am)
        return 0; /* ext/am carries it over RMA and atomics (am_net.c) */
    const int eager = len <= AM_EAGER;
    struct am_wire *w = malloc(sizeof w->h + (eager ? len : 0));
    if (!w)
        ofi_fatalf(fn, "out of memory for an active message of %zu bytes", len);
    w->h = (struct am_hdr){tag, ofi_g.me, ctr, 0, len};
    if (eager)
        memcpy(w->data, payload, len);
    else
        w->h.seq = __atomic_fetch_add(&next_seq, 1, __ATOMIC_RELAXED);
    struct ofi_ep *e = ofi_ctx_ep(net, fn); /* header and payload on one endpoint */
    ofi_msg_send(e, OFI_AM_TAG, w, sizeof w->h + (eager ? len : 0), pe, NULL, NULL, fn,
                 "an active message (tagged message)");
    if (!eager)
        ofi_msg_send(e, data_tag(ofi_g.me, w->h.seq), payload, len, pe, NULL, NULL, fn,
                     "an active message's payload (tagged message)");
    free(w);
    return 1;
}

void ofi_net_am_release(struct shoal_net_am_msg *m)
{
    free(m); /* its struct am_msg: m is the first member */
}

static void payload_in(struct ofi_rx *rx, size_t len, uint64_t tag, int err, size_t olen)
{
    (void)tag, (void)olen;
    struct am_msg *x = (struct am_msg *)((char *)rx - offsetof(struct am_msg, rx));
    if (OFI_UNLIKELY(err || len != x->m.len)) {
        if (ofi_rx_error_expected(err))
            return;
        ofi_fatalf("active message",
                   "receiving the payload of an active message from PE %d failed: %s", x->m.src,
                   err ? ofi_strerror(err) : "another length than its header says");
    }
    __atomic_store_n(&x->m.ready, 1, __ATOMIC_RELEASE);
}

static void post(struct am_slot *s);

static void header_in(struct ofi_rx *rx, size_t len, uint64_t tag, int err, size_t olen)
{
    (void)tag, (void)olen;
    struct am_slot *s = (struct am_slot *)rx;
    if (OFI_UNLIKELY(err)) {
        if (ofi_rx_error_expected(err))
            return;
        ofi_die("active message", -1, "receiving an active message", -err);
    }
    const struct am_hdr h = s->w.h;
    const int eager = h.len <= AM_EAGER;
    if (OFI_UNLIKELY(len < sizeof h || (eager && len != sizeof h + h.len)))
        ofi_fatalf("active message", "a malformed active message of %zu bytes arrived", len);
    struct am_msg *x = malloc(sizeof *x + h.len);
    if (!x)
        ofi_fatalf("active message", "out of memory for an active message of %zu bytes from PE %d",
                   (size_t)h.len, (int)h.src);
    x->m = (struct shoal_net_am_msg){NULL, x->data, h.len, h.src, h.tag, h.ctr, eager};
    if (eager)
        memcpy(x->data, s->w.data, h.len);
    post(s);
    ofi_g.hooks->am_arrived(&x->m);
    if (!eager) {
        x->rx.done = payload_in;
        ofi_msg_recv(x->data, h.len, data_tag(h.src, h.seq), 0, &x->rx, "active message");
    }
}

static void post(struct am_slot *s)
{
    s->rx.done = header_in;
    ofi_msg_recv(&s->w, sizeof s->w, OFI_AM_TAG, 0, &s->rx, "active message");
}

int ofi_am_post_receives(void)
{
    if (!slots && !(slots = calloc(AM_SLOTS, sizeof *slots)))
        return -1;
    for (int i = 0; i < AM_SLOTS; i++)
        post(&slots[i]);
    return 0;
}

/* After the target endpoint closed (its receives with it). */
void ofi_am_fini(void)
{
    free(slots);
    slots = NULL;
}
