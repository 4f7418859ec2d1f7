/* Signaling routines without a data payload, and signal waits. */
#include "api/export.h"
#include "core/ops.h"
#include "core/profile/profile.h"

static uint64_t signal_fetch(const uint64_t *sig_addr)
{
    shoal_check_init("shmem_signal_fetch");
    if (SHOAL_UNLIKELY(shoal_g.debug))
        (void)shoal_addr(sig_addr, 8, shoal_g.my_pe, "shmem_signal_fetch", "sig_addr");
    /* Programs poll with it (while (shmem_signal_fetch(s) == 0) ...): as
     * the test routines, each call progresses the network once, where
     * peers' signal adds may wait for this PE's worker (tcp; the progress
     * thread may be off, or keep out of a polling thread's way). */
    shoal_poll_network();
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}

SHOAL_EXPORT uint64_t pshmem_signal_fetch(const uint64_t *sig_addr)
{
    uint64_t v;
    SHOAL_PROFILED(SHOAL_PROF_TEST, 0, v = signal_fetch(sig_addr));
    return v;
}
SHOAL_WEAK_ALIAS(shmem_signal_fetch, pshmem_signal_fetch)

SHOAL_EXPORT void pshmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal,
                                        int pe)
{
    SHOAL_PROFILED_TO(
        SHOAL_PROF_SIGNAL, ctx, pe, 8,
        shoal_amo(ctx, SHOAL_AMO_ADD, sig_addr, 8, signal, 0, pe, "shmem_ctx_signal_add"));
}
SHOAL_WEAK_ALIAS(shmem_ctx_signal_add, pshmem_ctx_signal_add)

SHOAL_EXPORT void pshmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)
{
    SHOAL_PROFILED_TO(SHOAL_PROF_SIGNAL, SHMEM_CTX_DEFAULT, pe, 8,
                      shoal_amo(SHMEM_CTX_DEFAULT, SHOAL_AMO_ADD, sig_addr, 8, signal, 0, pe,
                                "shmem_signal_add"));
}
SHOAL_WEAK_ALIAS(shmem_signal_add, pshmem_signal_add)

SHOAL_EXPORT void pshmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal,
                                        int pe)
{
    SHOAL_PROFILED_TO(
        SHOAL_PROF_SIGNAL, ctx, pe, 8,
        shoal_amo(ctx, SHOAL_AMO_SET, sig_addr, 8, signal, 0, pe, "shmem_ctx_signal_set"));
}
SHOAL_WEAK_ALIAS(shmem_ctx_signal_set, pshmem_ctx_signal_set)

SHOAL_EXPORT void pshmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)
{
    SHOAL_PROFILED_TO(SHOAL_PROF_SIGNAL, SHMEM_CTX_DEFAULT, pe, 8,
                      shoal_amo(SHMEM_CTX_DEFAULT, SHOAL_AMO_SET, sig_addr, 8, signal, 0, pe,
                                "shmem_signal_set"));
}
SHOAL_WEAK_ALIAS(shmem_signal_set, pshmem_signal_set)

SHOAL_EXPORT uint64_t pshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    uint64_t v;
    SHOAL_PROFILED(
        SHOAL_PROF_WAIT, 0,
        v = shoal_signal_wait_until(sig_addr, cmp, cmp_value, "shmem_signal_wait_until"));
    return v;
}
SHOAL_WEAK_ALIAS(shmem_signal_wait_until, pshmem_signal_wait_until)
