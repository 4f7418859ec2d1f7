/* Doorbells: sleeping and waking (protocol: shm_doorbell.h). */
#include "transport/shm/shm_doorbell.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int exact; /* membarrier registered: wake-ups are never missed */
static uint64_t n_sleeps, n_wakes, n_late;

int shoal_doorbell_init(void)
{
    long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    exact = cmds > 0 && (cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED) &&
            syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0;
    return exact;
}

int shoal_doorbell_exact(void)
{
    return exact;
}

void shoal_doorbell_ring(uint32_t *bell)
{
    uint32_t old = __atomic_load_n(bell, __ATOMIC_RELAXED);
    while (old & SHOAL_BELL_ARMED) {
        uint32_t next = (old + 2u) & ~SHOAL_BELL_ARMED;
        if (__atomic_compare_exchange_n(bell, &old, next, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
            syscall(SYS_futex, bell, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
            __atomic_fetch_add(&n_wakes, 1, __ATOMIC_RELAXED);
            return;
        }
    }
}

/* The waiters' side of the asymmetric fence (doorbell.h). */
static void heavy_fence(void)
{
    if (exact)
        syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0);
    else
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

int shoal_doorbell_sleep(uint32_t *bell, uint32_t *sleepers, int (*ready)(void *), void *arg,
                         long timeout_ns)
{
    __atomic_fetch_add(sleepers, 1, __ATOMIC_SEQ_CST);
    uint32_t b = __atomic_or_fetch(bell, SHOAL_BELL_ARMED, __ATOMIC_SEQ_CST);
    /* An episode begins when the bell is armed: the next writer rings it
     * even if the value turns out to be here already. */
    __atomic_fetch_add(&n_sleeps, 1, __ATOMIC_RELAXED);
    heavy_fence();
    int slept = 0;
    if (!ready || !ready(arg)) {
        struct timespec ts = {timeout_ns / 1000000000L, timeout_ns % 1000000000L};
        long r = syscall(SYS_futex, bell, FUTEX_WAIT, b, &ts, NULL, 0);
        if (r < 0 && errno == ETIMEDOUT && ready && ready(arg))
            __atomic_fetch_add(&n_late, 1, __ATOMIC_RELAXED);
        slept = 1;
    }
    __atomic_fetch_sub(sleepers, 1, __ATOMIC_SEQ_CST);
    return slept;
}

void shoal_doorbell_stats(struct shoal_doorbell_stats *out)
{
    out->sleeps = __atomic_load_n(&n_sleeps, __ATOMIC_RELAXED);
    out->wakes = __atomic_load_n(&n_wakes, __ATOMIC_RELAXED);
    out->late_timeouts = __atomic_load_n(&n_late, __ATOMIC_RELAXED);
}
