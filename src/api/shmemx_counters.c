/* Counters for tests and tuning (shmemx.h): the wait engine's and the
 * network transport's workers.  Not profiled (no pshmemx_ twins): they
 * change nothing. */
#include <shmemx.h>

#include "api/export.h"
#include "core/net_link.h"
#include "core/waiting/wait.h"

SHOAL_EXPORT void shmemx_wait_counters(unsigned long long *sleeps, unsigned long long *wakes,
                                       unsigned long long *late_timeouts)
{
    unsigned long long s, w, l;
    shoal_wait_counters(&s, &w, &l);
    if (sleeps)
        *sleeps = s;
    if (wakes)
        *wakes = w;
    if (late_timeouts)
        *late_timeouts = l;
}

SHOAL_EXPORT void shmemx_net_worker_counts(long *created, long *in_use, long *reused)
{
    long c, u, r;
    shoal_net_counts(&c, &u, &r);
    if (created)
        *created = c;
    if (in_use)
        *in_use = u;
    if (reused)
        *reused = r;
}
