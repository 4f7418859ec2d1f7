/* The progress calls of core's waits (the progress thread, where progress
 * is manual: ofi_progress.c). */
#include "transport/ofi/ofi_internal.h"

int ofi_net_progress(void)
{
    ofi_net_attend();
    ofi_progress_senders();
    return ofi_progress_target();
}
