/* Messages over libfabric's tagged interface (ofi_msgs.h): the job-wide
 * decision, and the send and receive that signals and collectives' data
 * share.  A signal that is an atomic add carries nothing beside its
 * value, and a collective's data put into a peer must wait until the peer
 * no longer reads what it overwrites; a tagged message carries the
 * collective's signature beside the signal (core/teams/sync.c), and waits
 * in the receiver's provider (rxm: its unexpected queue, or at the sender
 * for a rendezvous) until the receiver posts the receive for its tag, as
 * on UCX (transport/ucx/signal/).  Only where every PE's provider offers
 * FI_TAGGED beside RMA and atomics (ofi_provider.c asks for it, and takes
 * a provider without it when none has it). */
#include "transport/ofi/ofi_msgs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include "boot/boot.h"
#include "transport/ofi/ofi_env.h"

#define WAITS_EVERY_NS 5000000u

struct ofi_msgs ofi_msgs;

/* Providers whose atomics are the NIC's, not coherent with the CPU
 * atomics that apply a signal's message: their signals stay atomics. */
static int nic_atomics(void)
{
    return !strcmp(ofi_g.info->fabric_attr->prov_name, "cxi");
}

/* Collectives' data as messages needs FI_PEEK (coll_waiting: the core's
 * look for another call's message), which libfabric 1.17's shm provider
 * neither answers nor refuses (the look never comes back); rxm implements
 * it over any core provider.  Elsewhere the data moves by puts. */
static int peek_answers(void)
{
    return strstr(ofi_g.info->fabric_attr->prov_name, "ofi_rxm") != NULL;
}

int ofi_msgs_heard(int pe)
{
    return ofi_msgs.heard && pe >= 0 && pe < ofi_g.n_pes &&
           __atomic_load_n(&ofi_msgs.heard[pe], __ATOMIC_ACQUIRE);
}

int ofi_msgs_setup(struct shoal_net_init_result *out, char *err, size_t errlen)
{
    ofi_msgs_fini();
    unsigned char mine = 0;
    /* Not where injected operations never leave (sockets with manual
     * progress, ofi_provider.c): its signals' fi_tinject stayed there too,
     * and coll.typed.ofi_sockets hung in its first barrier. */
    /* Nor where local buffers need registrations (FI_MR_LOCAL): the
     * messages' buffers are not registered, so signals are atomics,
     * collectives' data puts and active messages RMA. */
    if ((ofi_g.info->caps & FI_TAGGED) && ofi_g.inject_atomics && !ofi_g.mr_local)
        mine = (unsigned char)((ofi_cfg.msgs_signals && !nic_atomics() ? 1 : 0) |
                               (ofi_cfg.msgs_coll && peek_answers() ? 2 : 0) |
                               (ofi_cfg.msgs_coll && ofi_g.hooks->am_arrived ? 4 : 0));
    unsigned char *all = malloc((size_t)ofi_g.n_pes);
    if (!all || ofi_g.boot->allgather(&mine, all, 1) < 0) {
        free(all);
        snprintf(err, errlen, "OFI: the exchange of what each PE takes as messages failed");
        return -1;
    }
    for (int pe = 0; pe < ofi_g.n_pes; pe++)
        mine &= all[pe];
    free(all);
    ofi_msgs.signals = mine & 1;
    ofi_msgs.coll = (mine >> 1) & 1;
    ofi_msgs.am = (mine >> 2) & 1;
    if (ofi_msgs.signals && !(ofi_msgs.heard = calloc((size_t)ofi_g.n_pes, 1))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (ofi_msgs.signals)
        ofi_signal_post_receives();
    if (ofi_msgs.am && ofi_am_post_receives() < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    out->signal_data = ofi_msgs.signals;
    out->coll_msgs = ofi_msgs.coll;
    return 0;
}

/* The receives still posted go with the target endpoint. */
void ofi_msgs_fini(void)
{
    free(ofi_msgs.heard);
    memset(&ofi_msgs, 0, sizeof ofi_msgs);
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* A send that asked for its completion entry: a rendezvous waits for the
 * receiver's receive, so `waits` (the core's look for members in
 * different collectives) runs every few ms meanwhile. */
static void wait_send(struct ofi_ep *e, struct ofi_op *op, int pe, void (*waits)(void *arg),
                      void *arg, const char *fn, const char *what)
{
    struct ofi_slow s = {0, 0, 0};
    uint64_t next = 0;
    while (!__atomic_load_n(&op->done, __ATOMIC_ACQUIRE)) {
        ofi_slow_turn(&s, e, fn, pe, what);
        if (waits && s.t0 && now_ns() >= next) {
            next = now_ns() + WAITS_EVERY_NS;
            waits(arg);
        }
    }
    ofi_slow_end(&s);
    if (OFI_UNLIKELY(op->err) && !__atomic_load_n(&ofi_g.leaving, __ATOMIC_RELAXED))
        ofi_die(fn, pe, what, -op->err);
}

void ofi_msg_send(struct ofi_ep *e, uint64_t tag, const void *src, size_t len, int pe,
                  void (*waits)(void *arg), void *arg, const char *fn, const char *what)
{
    uint64_t posted = 0; /* sends are counted by no counter */
    if (len <= ofi_g.inject_size) {
        OFI_POST(e, &posted, fi_tinject(e->ep, src, len, (fi_addr_t)pe, tag), fn, pe, what);
        return;
    }
    struct ofi_op op = {0};
    struct iovec iov = {.iov_base = (void *)src, .iov_len = len};
    struct fi_msg_tagged m = {.msg_iov = &iov,
                              .desc = NULL,
                              .iov_count = 1,
                              .addr = (fi_addr_t)pe,
                              .tag = tag,
                              .ignore = 0,
                              .context = &op,
                              .data = 0};
    OFI_POST(e, &posted, fi_tsendmsg(e->ep, &m, FI_COMPLETION), fn, pe, what);
    wait_send(e, &op, pe, waits, arg, fn, what);
}

void ofi_msg_recv(void *buf, size_t len, uint64_t tag, uint64_t ignore, struct ofi_rx *rx,
                  const char *fn)
{
    uint64_t posted = 0;
    /* Retried with the target's progress only (its queue holds tagged
     * entries, which ofi_ep_poll does not read). */
    OFI_POST(NULL, &posted,
             fi_trecv(ofi_g.target.ep, buf, len, NULL, FI_ADDR_UNSPEC, tag, ignore, rx), fn, -1,
             "receive (tagged message)");
}
