/* A sleeping waiter's short time slice (wait_slice.h). */
#include "core/waiting/wait_slice.h"

#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/waiting/wait.h"

/* The kernel's struct sched_attr, first version (48 bytes): glibc 2.36
 * wraps neither sched_getattr nor sched_setattr. */
struct slice_attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
};
#define RESET_ON_FORK 0x01ull /* SCHED_FLAG_RESET_ON_FORK, kept as the thread has it */

/* 1 until a kernel shows that it keeps no slice per thread: it reports a
 * SCHED_OTHER thread's sched_runtime as 0 (before Linux 6.12). */
static int kernel_has_slices = 1;
/* The calling thread as it was before its sleep: given back at the end. */
static __thread struct slice_attr own;

static long get_attr(struct slice_attr *a)
{
    memset(a, 0, sizeof *a);
    return syscall(SYS_sched_getattr, 0, a, (unsigned)sizeof *a, 0u);
}

static long set_attr(const struct slice_attr *from, uint64_t runtime)
{
    struct slice_attr a = *from;
    a.size = (uint32_t)sizeof a;
    a.flags &= RESET_ON_FORK;
    a.runtime = runtime;
    return syscall(SYS_sched_setattr, 0, &a, 0u);
}

void shoal_slice_shorten(struct shoal_waiter *w)
{
    if (!__atomic_load_n(&kernel_has_slices, __ATOMIC_RELAXED) || get_attr(&own) != 0 ||
        own.policy != SCHED_OTHER)
        return;
    if (own.runtime == 0) {
        __atomic_store_n(&kernel_has_slices, 0, __ATOMIC_RELAXED);
        return;
    }
    if (own.runtime > SHOAL_WAIT_SHORT_SLICE_NS && set_attr(&own, SHOAL_WAIT_SHORT_SLICE_NS) == 0)
        w->short_slice = 1;
}

void shoal_slice_restore(struct shoal_waiter *w)
{
    w->short_slice = 0;
    (void)set_attr(&own, own.runtime);
}
