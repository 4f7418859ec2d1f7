/* The wait engine (wait.c): spin, yield, then sleep on a doorbell. */
#ifndef SHOAL_CORE_WAIT_H
#define SHOAL_CORE_WAIT_H
#include <stdint.h>

struct shoal_waiter {
    int owner_slot;     /* node slot of the PE whose memory is watched */
    unsigned iter;
    uint64_t t0;
    long sleep_ns;
};

void shoal_wait_configure(long spin_us, long sleep_max_us, int oversubscribed);
void shoal_waiter_init(struct shoal_waiter *w, int owner_slot);
/* One step of backing off; `ready` is re-checked before sleeping. */
void shoal_backoff(struct shoal_waiter *w, int (*ready)(void *), void *arg);
/* Waits until `*mapped cmp *value` (kind: enum shoal_wkind) on memory of
 * the local PE in node slot `owner_slot`, mapped at `mapped`. */
void shoal_wait_mapped(int kind, const void *mapped, int owner_slot, int cmp, const void *value);
#endif
