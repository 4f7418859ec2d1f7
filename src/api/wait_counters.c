/* shmemx_wait_counters: the wait engine's counters (core/doorbell.h), for
 * tests and tuning.  Not profiled (no pshmemx_ twin): it changes nothing. */
#include <shmemx.h>

#include "api/prof.h"
#include "core/doorbell.h"

SHOAL_EXPORT void shmemx_wait_counters(unsigned long long *sleeps, unsigned long long *wakes,
                                       unsigned long long *late_timeouts)
{
    struct shoal_doorbell_stats s;
    shoal_doorbell_stats(&s);
    if (sleeps)
        *sleeps = s.sleeps;
    if (wakes)
        *wakes = s.wakes;
    if (late_timeouts)
        *late_timeouts = s.late_timeouts;
}
