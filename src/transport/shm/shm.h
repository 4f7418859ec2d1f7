/* transport/shm — the on-node transport: data moves by load/store into the
 * peers' segments that core has mapped into this process, atomics are CPU
 * atomics on those words, and a write rings the target's doorbell only
 * when a waiter sleeps there (shm_doorbell.h).  Everything is inline: an
 * on-node put is a memcpy and one load.
 *
 * Owns: the copy loops (contiguous and strided), CPU atomics, doorbells.
 * May call: libc, and transport/net.h for the contract's AMO names (the
 * network contract, which the transport layer owns).  Core hands it mapped addresses
 * and bell words; it knows nothing of teams, contexts or the segment
 * layout. */
#ifndef SHOAL_SHM_H
#define SHOAL_SHM_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "transport/net.h"
#include "transport/shm/shm_doorbell.h"

/* A put into mapped memory: complete on return (nbi included: copying now
 * costs less than tracking it until the next quiet). */
static inline void shoal_shm_put(void *mapped, const void *src, size_t n, uint32_t *bell)
{
    memcpy(mapped, src, n);
    shoal_bell_ring_if_armed(bell);
}

static inline void shoal_shm_get(void *dest, const void *mapped, size_t n)
{
    memcpy(dest, mapped, n);
}

/* CPU atomics on a mapped word of 4 or 8 bytes.  Values travel as raw bits
 * (floats included: fetch/set/swap only move bits).  With `op` and `size`
 * constant at the call site the switches fold away. */
static inline uint64_t shoal_cpu_amo(int op, void *p, unsigned size, uint64_t v, uint64_t cond)
{
#define SHOAL_AMO_CASES(T)                                                                  \
    do {                                                                                    \
        T *w = (T *)p, tv = (T)v, tc = (T)cond;                                             \
        switch (op) {                                                                       \
        case SHOAL_AMO_FETCH: return __atomic_load_n(w, __ATOMIC_SEQ_CST);                  \
        case SHOAL_AMO_SET: __atomic_store_n(w, tv, __ATOMIC_SEQ_CST); return 0;            \
        case SHOAL_AMO_CSWAP:                                                               \
            __atomic_compare_exchange_n(w, &tc, tv, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
            return tc;                                                                      \
        case SHOAL_AMO_SWAP: return __atomic_exchange_n(w, tv, __ATOMIC_SEQ_CST);           \
        case SHOAL_AMO_FADD: return __atomic_fetch_add(w, tv, __ATOMIC_SEQ_CST);            \
        case SHOAL_AMO_ADD: __atomic_fetch_add(w, tv, __ATOMIC_SEQ_CST); return 0;          \
        case SHOAL_AMO_FAND: return __atomic_fetch_and(w, tv, __ATOMIC_SEQ_CST);            \
        case SHOAL_AMO_AND: __atomic_fetch_and(w, tv, __ATOMIC_SEQ_CST); return 0;          \
        case SHOAL_AMO_FOR: return __atomic_fetch_or(w, tv, __ATOMIC_SEQ_CST);              \
        case SHOAL_AMO_OR: __atomic_fetch_or(w, tv, __ATOMIC_SEQ_CST); return 0;            \
        case SHOAL_AMO_FXOR: return __atomic_fetch_xor(w, tv, __ATOMIC_SEQ_CST);            \
        default: __atomic_fetch_xor(w, tv, __ATOMIC_SEQ_CST); return 0;                     \
        }                                                                                   \
    } while (0)
    if (size == 4)
        SHOAL_AMO_CASES(uint32_t);
    else
        SHOAL_AMO_CASES(uint64_t);
#undef SHOAL_AMO_CASES
}

/* An AMO on a mapped word; every AMO but a fetch writes, and rings. */
static inline uint64_t shoal_shm_amo(int op, void *mapped, unsigned size, uint64_t v, uint64_t cond,
                                     uint32_t *bell)
{
    uint64_t old = shoal_cpu_amo(op, mapped, size, v, cond);
    if (op != SHOAL_AMO_FETCH)
        shoal_bell_ring_if_armed(bell);
    return old;
}

/* nblocks blocks of blen bytes, dstep / sstep bytes apart (either may be
 * negative), between mapped and local memory in either direction. */
void shoal_shm_strided(char *d, const char *s, ptrdiff_t dstep, ptrdiff_t sstep, size_t blen,
                       size_t nblocks);
#endif
