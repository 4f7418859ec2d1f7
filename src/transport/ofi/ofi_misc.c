/* What the OFI transport leaves to the core's other paths: collectives'
 * signals with data and their messages (init answers coll_msgs = 0: they
 * put, fence and signal, as UCX does with SHOAL_UCX_SIGNALS=amo), active
 * messages (ext/am/am_net.c carries them over RMA and atomics), and the
 * progress calls of core's waits (the progress thread: ofi_progress.c). */
#include "transport/ofi/ofi_internal.h"

int ofi_net_progress(void)
{
    ofi_net_attend();
    return ofi_progress_target();
}

int ofi_net_signal_data(struct shoal_net_ctx *net, uint64_t *word, uint64_t value, void *dest,
                        const void *src, size_t n, int pe, const char *fn)
{
    (void)net, (void)word, (void)value, (void)dest, (void)src, (void)n, (void)pe, (void)fn;
    return 0;
}

/* Never called: init answered coll_msgs = 0. */
void ofi_net_coll_send(struct shoal_net_ctx *net, uint64_t tag, const void *src, size_t n, int pe,
                       int exchange, const char *fn)
{
    (void)net, (void)tag, (void)src, (void)n, (void)exchange;
    ofi_fatalf(fn, "internal error: a collective's message to PE %d over OFI, which carries none",
               pe);
}

void ofi_net_coll_recv(uint64_t tag, void *buf, const struct shoal_net_coll_rx *rx)
{
    (void)tag, (void)buf;
    ofi_fatalf(rx->fn, "internal error: a collective's message over OFI, which carries none");
}

int ofi_net_coll_waiting(uint64_t tag, uint64_t mask, uint64_t *found)
{
    (void)tag, (void)mask, (void)found;
    return 0;
}

int ofi_net_am_send(struct shoal_net_ctx *net, int pe, int tag, unsigned ctr, const void *payload,
                    size_t len, const char *fn)
{
    (void)net, (void)pe, (void)tag, (void)ctr, (void)payload, (void)len, (void)fn;
    return 0;
}

/* Never called: nothing arrives as a message. */
void ofi_net_am_release(struct shoal_net_am_msg *m)
{
    (void)m;
}
