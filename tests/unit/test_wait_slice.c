/* A sleeping waiter's short time slice (core/waiting/wait_slice.c): the
 * thread's slice is the kernel's shortest while it sleeps in a wait, and
 * its own (with its nice value and policy) again after; a thread of
 * another policy is left alone.  On a kernel without slices per thread
 * (before Linux 6.12) nothing may change. */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/waiting/wait.h"
#include "core/waiting/wait_slice.h"

static int failures;
#define CHECK(c, ...)                                       \
    do {                                                    \
        if (!(c)) {                                         \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                   \
            fprintf(stderr, "\n");                          \
            failures++;                                     \
        }                                                   \
    } while (0)

struct attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
};

static struct attr get(void)
{
    struct attr a;
    memset(&a, 0, sizeof a);
    if (syscall(SYS_sched_getattr, 0, &a, (unsigned)sizeof a, 0u) != 0)
        perror("sched_getattr");
    return a;
}

static int set_policy(uint32_t policy, uint64_t runtime)
{
    struct attr a = get();
    a.size = (uint32_t)sizeof a;
    a.policy = policy;
    a.flags = 0;
    a.runtime = runtime;
    return (int)syscall(SYS_sched_setattr, 0, &a, 0u);
}

int main(void)
{
    struct shoal_waiter w;
    memset(&w, 0, sizeof w);
    /* A nice value of its own, which the slice must not reset. */
    if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 3) != 0)
        perror("setpriority");
    const struct attr own = get();
    if (own.runtime == 0) {
        shoal_slice_shorten(&w);
        CHECK(!w.short_slice && get().runtime == 0,
              "a kernel without slices per thread: nothing may change");
        printf("test_wait_slice: ok (this kernel keeps no slice per thread: checked that "
               "nothing changes)\n");
        return failures != 0;
    }

    shoal_slice_shorten(&w);
    struct attr in = get();
    CHECK(w.short_slice, "the waiter should know that it shortened the slice");
    CHECK(in.runtime == SHOAL_WAIT_SHORT_SLICE_NS, "slice while sleeping: %llu ns, want %u",
          (unsigned long long)in.runtime, SHOAL_WAIT_SHORT_SLICE_NS);
    CHECK(in.policy == own.policy && in.nice == own.nice,
          "policy %u nice %d while sleeping, the thread's own: %u %d", in.policy, in.nice,
          own.policy, own.nice);
    shoal_slice_restore(&w);
    struct attr after = get();
    CHECK(!w.short_slice, "restored: the waiter's mark should be cleared");
    CHECK(after.runtime == own.runtime && after.nice == own.nice && after.policy == own.policy,
          "after the wait: slice %llu nice %d policy %u, want the thread's own %llu %d %u",
          (unsigned long long)after.runtime, after.nice, after.policy,
          (unsigned long long)own.runtime, own.nice, own.policy);

    /* A thread whose slice is already that short: nothing to do or undo. */
    if (set_policy(SCHED_OTHER, SHOAL_WAIT_SHORT_SLICE_NS) == 0) {
        shoal_slice_shorten(&w);
        CHECK(!w.short_slice, "a slice already short should be left as it is");
        set_policy(SCHED_OTHER, own.runtime);
    }

    /* A thread of another policy is left alone. */
    if (set_policy(SCHED_BATCH, 0) == 0) {
        const struct attr batch = get();
        shoal_slice_shorten(&w);
        struct attr b = get();
        CHECK(!w.short_slice && b.policy == SCHED_BATCH && b.runtime == batch.runtime,
              "a SCHED_BATCH thread: short_slice %d, policy %u, slice %llu (was %llu)",
              w.short_slice, b.policy, (unsigned long long)b.runtime,
              (unsigned long long)batch.runtime);
    } else {
        perror("sched_setattr(SCHED_BATCH)");
    }

    if (failures)
        fprintf(stderr, "test_wait_slice: %d failure(s)\n", failures);
    else
        printf("test_wait_slice: ok (slice %llu ns, %u while asleep)\n",
               (unsigned long long)own.runtime, SHOAL_WAIT_SHORT_SLICE_NS);
    return failures != 0;
}
