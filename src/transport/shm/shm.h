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

/* A copy of one aligned word of 1, 2, 4 or 8 bytes whose size is known
 * at compile time (shmem_p, shmem_g): one atomic access on the mapped
 * side, where memcpy promises none.  Another thread of the target PE may
 * be waiting on that word (the waits load it with acquire, AMOs are
 * atomic): it must see the old value or the new one, never a mix, and,
 * once it has seen the new one, what the putting thread wrote before it
 * (a put, then shmem_fence, then shmem_p of a flag).  So a release store
 * and an acquire load: on x86 the same mov as memcpy's, after a test of
 * the alignment.
 * ThreadSanitizer reported the memcpy (spec.p2p_sync.short.np1: a thread
 * puts to its own PE while another waits).  Returns whether it copied. */
#define SHOAL_SHM_WORD(T, to_mapped, mapped, local)                      \
    do {                                                                 \
        T v_;                                                            \
        if (to_mapped) {                                                 \
            memcpy(&v_, local, sizeof v_);                               \
            __atomic_store_n((T *)(mapped), v_, __ATOMIC_RELEASE);       \
        } else {                                                         \
            v_ = __atomic_load_n((const T *)(mapped), __ATOMIC_ACQUIRE); \
            memcpy(local, &v_, sizeof v_);                               \
        }                                                                \
    } while (0)
static inline int shoal_shm_word(int to_mapped, void *mapped, void *local, size_t n)
{
    if (!__builtin_constant_p(n) || n > 8 || (n & (n - 1)) || ((uintptr_t)mapped & (n - 1)))
        return 0;
    switch (n) {
    case 1: SHOAL_SHM_WORD(uint8_t, to_mapped, mapped, local); return 1;
    case 2: SHOAL_SHM_WORD(uint16_t, to_mapped, mapped, local); return 1;
    case 4: SHOAL_SHM_WORD(uint32_t, to_mapped, mapped, local); return 1;
    default: SHOAL_SHM_WORD(uint64_t, to_mapped, mapped, local); return 1;
    }
}
#undef SHOAL_SHM_WORD

/* A put into mapped memory: complete on return (nbi included: copying now
 * costs less than tracking it until the next quiet). */
static inline void shoal_shm_put(void *mapped, const void *src, size_t n, uint32_t *bell)
{
    if (!shoal_shm_word(1, mapped, (void *)src, n))
        memcpy(mapped, src, n);
    shoal_bell_ring_if_armed(bell);
}

static inline void shoal_shm_get(void *dest, const void *mapped, size_t n)
{
    if (!shoal_shm_word(0, (void *)mapped, dest, n))
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
