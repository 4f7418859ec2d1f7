/* What the OFI transport leaves to the core's other paths: active
 * messages (ext/am/am_net.c carries them over RMA and atomics), and the
 * progress calls of core's waits. */
#include "transport/ofi/ofi_internal.h"

int ofi_net_progress(void)
{
    return ofi_progress_target();
}

/* No thread of its own: nothing to wake or to step aside. */
void ofi_net_idle(void) {}
void ofi_net_attend(void) {}

int ofi_net_helper_thread(const char *name, size_t len)
{
    (void)name, (void)len;
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
