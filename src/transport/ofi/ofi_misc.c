/* The progress calls of core's waits. */
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
