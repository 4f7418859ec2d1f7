/* Collectives' signals as tagged messages (ofi_msgs.h), where the job
 * takes them: the signal's add (and the data it carries, a collective's
 * signature or a broadcast's bytes) travels as one message to the peer's
 * target endpoint, where one of a pool of posted receives takes it and
 * the target's progress applies it: the data first, then the add with a
 * CPU atomic, then the doorbell of waiters asleep.  The providers' own
 * atomics on such a word (a signal to this PE itself, an active set's
 * consuming add) are the target's software (libfabric's util atomics, a
 * compare-and-swap loop: rxm, shm, sockets), which meets a CPU atomic on
 * one word safely; a provider whose atomics are the NIC's keeps signals
 * as atomics (ofi_msgs.c). */
#include <stddef.h>
#include <string.h>

#include "transport/ofi/ofi_msgs.h"

#define SIG_SLOTS 64

/* A signal on the wire; words and data are named by segment and offset,
 * so that a malformed one is found before it writes anywhere. */
struct sig_msg {
    uint64_t word; /* ref(): segment in the top bit, offset below */
    uint64_t value;
    uint64_t dest;
    uint32_t len; /* data bytes, 0 for none */
    int32_t src;  /* the sender's PE */
    unsigned char data[OFI_SIGNAL_DATA_MAX];
};
#define SIG_HEAD offsetof(struct sig_msg, data)

struct sig_slot {
    struct ofi_rx rx; /* first: the completion's context */
    struct sig_msg msg;
};

static struct sig_slot slots[SIG_SLOTS];

#define REF_SEG ((uint64_t)1 << 63)

static uint64_t ref(const void *p, const char *fn)
{
    const uintptr_t a = (uintptr_t)p;
    for (int s = 0; s < 2; s++)
        if (a >= ofi_g.seg_base[s] && a - ofi_g.seg_base[s] < ofi_g.seg_len[s])
            return (s ? REF_SEG : 0) | (uint64_t)(a - ofi_g.seg_base[s]);
    ofi_fatalf(fn, "internal error: a collective's signal to %p, in no symmetric segment", p);
}

/* This PE's address of `n` bytes at r, or NULL when they are in no
 * segment (a peer's message that cannot be right). */
static void *deref(uint64_t r, uint64_t n)
{
    const int s = (r & REF_SEG) ? 1 : 0;
    const uint64_t off = r & ~REF_SEG;
    if (off > ofi_g.seg_len[s] || n > ofi_g.seg_len[s] - off)
        return NULL;
    return (void *)(ofi_g.seg_base[s] + (uintptr_t)off);
}

static void apply(const struct sig_msg *m, size_t len)
{
    uint64_t *word = deref(m->word, 8);
    void *dest = m->len ? deref(m->dest, m->len) : NULL;
    if (OFI_UNLIKELY(len < SIG_HEAD || m->len > OFI_SIGNAL_DATA_MAX || len != SIG_HEAD + m->len ||
                     !word || (m->len && !dest)))
        ofi_fatalf("collectives' signals",
                   "a peer's signal message of %zu bytes is malformed (a PE of another build?)",
                   len);
    if (m->src >= 0 && m->src < ofi_g.n_pes && ofi_msgs.heard &&
        !__atomic_load_n(&ofi_msgs.heard[m->src], __ATOMIC_RELAXED))
        __atomic_store_n(&ofi_msgs.heard[m->src], 1, __ATOMIC_RELEASE);
    if (m->len)
        memcpy(dest, m->data, m->len);
    __atomic_add_fetch(word, m->value, __ATOMIC_RELEASE);
    ofi_g.hooks->writes_arrived();
}

static void post(struct sig_slot *s);

static void arrived(struct ofi_rx *rx, size_t len, uint64_t tag, int err, size_t olen)
{
    (void)tag, (void)olen;
    struct sig_slot *s = (struct sig_slot *)rx;
    if (OFI_UNLIKELY(err)) {
        if (ofi_rx_error_expected(err))
            return;
        ofi_die("collectives' signals", -1, "receiving a signal", -err);
    }
    apply(&s->msg, len);
    post(s);
}

static void post(struct sig_slot *s)
{
    s->rx.done = arrived;
    ofi_msg_recv(&s->msg, sizeof s->msg, OFI_SIG_TAG, 0, &s->rx, "collectives' signals");
}

void ofi_signal_post_receives(void)
{
    for (int i = 0; i < SIG_SLOTS; i++)
        post(&slots[i]);
}

void ofi_signal_send(struct ofi_ep *e, uint64_t *word, uint64_t value, void *dest, const void *src,
                     size_t n, int pe, const char *fn)
{
    struct sig_msg m;
    m.word = ref(word, fn);
    m.value = value;
    m.dest = n ? ref(dest, fn) : 0;
    m.len = (uint32_t)n;
    m.src = ofi_g.me;
    if (n)
        memcpy(m.data, src, n);
    ofi_msg_send(e, OFI_SIG_TAG, &m, SIG_HEAD + n, pe, NULL, NULL, fn, "signal (tagged message)");
    ofi_peers_add(e, &e->signalled, pe);
}

int ofi_net_signal_data(struct shoal_net_ctx *net, uint64_t *word, uint64_t value, void *dest,
                        const void *src, size_t n, int pe, const char *fn)
{
    if (!ofi_msgs.signals || pe == ofi_g.me || n > OFI_SIGNAL_DATA_MAX)
        return 0;
    ofi_signal_send(ofi_ctx_ep(net, fn), word, value, dest, src, n, pe, fn);
    return 1;
}
