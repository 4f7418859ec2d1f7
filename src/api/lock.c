/* Distributed locking: a ticket lock in the two 32-bit halves of the
 * user's symmetric long on PE 0 (next ticket, now serving).  Tickets are
 * served in the order they were drawn, so no PE starves; waiters sleep on
 * PE 0's doorbell, which clear_lock rings. */
#include "api/export.h"
#include "core/ops.h"
#include "core/profile/profile.h"
#include "core/waiting/wait.h"

struct ticket {
    uint32_t next, serving;
};
_Static_assert(sizeof(struct ticket) == sizeof(long), "lock layout needs a 64-bit long");

#define LOCK_PE 0

static void check(long *lock, const char *fn)
{
    shoal_check_init(fn);
    if (SHOAL_UNLIKELY(((uintptr_t)lock & 7) != 0))
        shoal_fatal(fn, "argument 'lock' = %p is not aligned to 8 bytes", (void *)lock);
    /* Here, not in the AMOs below: they see only a half of the lock, under
     * their own argument names. */
    (void)shoal_addr(lock, sizeof *lock, LOCK_PE, fn, "lock");
}

static void set_lock(long *lock)
{
    static const char fn[] = "shmem_set_lock";
    check(lock, fn);
    struct ticket *t = (struct ticket *)lock;
    /* Where peers' atomics are emulated by this PE's network worker, their
     * ticket requests may wait there unserved: serve them before drawing
     * this PE's ticket, or a PE that releases and re-acquires at once
     * (PE 0, which holds the lock word) jumps the queue. */
    shoal_poll_network();
    uint32_t mine =
        (uint32_t)shoal_amo(SHMEM_CTX_DEFAULT, SHOAL_AMO_FADD, &t->next, 4, 1, 0, LOCK_PE, fn);
    char *serving = shoal_addr(&t->serving, 4, LOCK_PE, fn, "lock");
    if (serving) {
        shoal_wait_mapped(SHOAL_W_U32, serving, shoal_slot(LOCK_PE), SHMEM_CMP_EQ, &mine, fn);
        return;
    }
    struct shoal_waiter w;
    shoal_waiter_init(&w, shoal_my_slot(), fn, lock);
    while ((uint32_t)shoal_amo(SHMEM_CTX_DEFAULT, SHOAL_AMO_FETCH, &t->serving, 4, 0, 0, LOCK_PE,
                               fn) != mine)
        shoal_backoff(&w, NULL, NULL);
    shoal_waiter_done(&w);
}

SHOAL_EXPORT void pshmem_set_lock(long *lock)
{
    SHOAL_PROFILED(SHOAL_PROF_LOCK, 0, set_lock(lock));
}
SHOAL_WEAK_ALIAS(shmem_set_lock, pshmem_set_lock)

static void clear_lock(long *lock)
{
    static const char fn[] = "shmem_clear_lock";
    check(lock, fn);
    struct ticket *t = (struct ticket *)lock;
    shoal_quiet(SHMEM_CTX_DEFAULT, fn);
    shoal_amo(SHMEM_CTX_DEFAULT, SHOAL_AMO_ADD, &t->serving, 4, 1, 0, LOCK_PE, fn);
}

SHOAL_EXPORT void pshmem_clear_lock(long *lock)
{
    SHOAL_PROFILED(SHOAL_PROF_LOCK, 0, clear_lock(lock));
}
SHOAL_WEAK_ALIAS(shmem_clear_lock, pshmem_clear_lock)

static int test_lock(long *lock)
{
    static const char fn[] = "shmem_test_lock";
    check(lock, fn);
    uint64_t word = shoal_amo(SHMEM_CTX_DEFAULT, SHOAL_AMO_FETCH, lock, 8, 0, 0, LOCK_PE, fn);
    struct ticket cur;
    memcpy(&cur, &word, sizeof cur);
    if (cur.next != cur.serving)
        return 1;
    struct ticket taken = {cur.next + 1, cur.serving};
    uint64_t want;
    memcpy(&want, &taken, sizeof want);
    /* Taking the lock = drawing the ticket that is being served, in one
     * step, only if nobody drew one since we looked. */
    uint64_t old = shoal_amo(SHMEM_CTX_DEFAULT, SHOAL_AMO_CSWAP, lock, 8, want, word, LOCK_PE, fn);
    return old == word ? 0 : 1;
}

SHOAL_EXPORT int pshmem_test_lock(long *lock)
{
    int busy;
    SHOAL_PROFILED(SHOAL_PROF_LOCK, 0, busy = test_lock(lock));
    return busy;
}
SHOAL_WEAK_ALIAS(shmem_test_lock, pshmem_test_lock)
