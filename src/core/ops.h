/* core/ops.h — the operations the API layer (and coll/) call: RMA, AMO,
 * signals, strided transfers.  Each is inline so that a generated wrapper
 * such as shmem_int_put compiles to: context check, PE check, address
 * translation, memcpy.  Peers on this node are reached by load/store through
 * the mapped segments; other peers go through the context's network
 * transport (core/net.h).
 *
 * Arguments common to all: `ctx` (checked), `pe` relative to ctx's team
 * (checked), remote addresses are symmetric addresses of this PE (checked
 * against the heap and static-data segments), `fn` is the public routine
 * name used in error messages. */
#ifndef SHOAL_CORE_OPS_H
#define SHOAL_CORE_OPS_H

#include <string.h>
#include "core/state.h"
#include "core/error.h"
#include "core/net.h"
#include "core/doorbell.h"

/* ---------------------------------------------------------------- checks */

static inline void shoal_ctx_check(shmem_ctx_t ctx, const char *fn)
{
    if (SHOAL_UNLIKELY(ctx == NULL || ctx->magic != SHOAL_CTX_LIVE))
        shoal_err_ctx(ctx, fn);
}

/* Team-relative PE -> world PE, with the range check. */
static inline int shoal_ctx_pe(shmem_ctx_t ctx, int pe, const char *fn)
{
    const struct shoal_team *t = ctx->team;
    if (SHOAL_UNLIKELY((unsigned)pe >= (unsigned)t->size))
        shoal_err_pe(ctx, pe, fn);
    return t->start + pe * t->stride;
}

/* Where [addr, addr+len) of world PE `pe` is mapped in this process, or NULL
 * when `pe` is not on this node.  Fatal if the range is not symmetric; the
 * message blames `arg` (the address), or `count` (the argument the length
 * comes from, NULL if none) when the range starts in a segment but runs
 * past its end. */
static inline char *shoal_addr_n(const void *addr, size_t len, int pe, const char *fn,
                                 const char *arg, const char *count)
{
    const uintptr_t a = (uintptr_t)addr;
    size_t off = a - (uintptr_t)shoal_g.heap_me;
    if (SHOAL_LIKELY(off < shoal_g.heap_size && len <= shoal_g.heap_size - off)) {
        int slot = shoal_slot(pe);
        if (SHOAL_UNLIKELY(slot < 0))
            return NULL;
        return shoal_g.heap_region + (size_t)slot * shoal_g.heap_stride + off;
    }
    off = a - (uintptr_t)shoal_g.data_me;
    if (off < shoal_g.data_size && len <= shoal_g.data_size - off) {
        int slot = shoal_slot(pe);
        if (SHOAL_UNLIKELY(slot < 0))
            return NULL;
        return shoal_g.data_region + (size_t)slot * shoal_g.data_stride + off;
    }
    shoal_err_addr(addr, len, pe, fn, arg, count);
}

/* The same for a range whose length is not a count the user passed (an
 * AMO's object, a signal word, a lock). */
static inline char *shoal_addr(const void *addr, size_t len, int pe, const char *fn,
                               const char *arg)
{
    return shoal_addr_n(addr, len, pe, fn, arg, NULL);
}


/* ------------------------------------------------------------------ RMA */

/* For the SHMEM_DEBUG overlap check: on this PE, static data is reachable
 * through two mappings (the program's own and the shared alias), so compare
 * the address the user passed, not the alias. */
static inline const void *shoal_user_view(const void *mapped, const void *user, int wpe)
{
    return wpe == shoal_g.my_pe ? user : mapped;
}

static inline void shoal_put(shmem_ctx_t ctx, void *dest, const void *src, size_t n, int pe,
                             const char *fn)
{
    shoal_ctx_check(ctx, fn);
    int wpe = shoal_ctx_pe(ctx, pe, fn);
    if (SHOAL_UNLIKELY(n == 0))
        return;
    char *r = shoal_addr_n(dest, n, wpe, fn, "dest", "nelems");
    if (SHOAL_UNLIKELY(shoal_g.debug))
        shoal_debug_check_overlap(shoal_user_view(r, dest, wpe), n, src, n, fn, "dest", "source");
    if (SHOAL_LIKELY(r != NULL)) {
        memcpy(r, src, n);
        shoal_notify(wpe);
    } else {
        shoal_net_put(ctx, dest, src, n, wpe, 0, fn);
    }
}

static inline void shoal_put_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t n, int pe,
                                 const char *fn)
{
    shoal_ctx_check(ctx, fn);
    int wpe = shoal_ctx_pe(ctx, pe, fn);
    if (SHOAL_UNLIKELY(n == 0))
        return;
    char *r = shoal_addr_n(dest, n, wpe, fn, "dest", "nelems");
    if (SHOAL_UNLIKELY(shoal_g.debug))
        shoal_debug_check_overlap(shoal_user_view(r, dest, wpe), n, src, n, fn, "dest", "source");
    if (SHOAL_LIKELY(r != NULL)) {
        /* On-node an nbi put is complete on return: copying now costs less
         * than tracking it until the next quiet. */
        memcpy(r, src, n);
        shoal_notify(wpe);
    } else {
        shoal_net_put(ctx, dest, src, n, wpe, 1, fn);
    }
}

static inline void shoal_get(shmem_ctx_t ctx, void *dest, const void *src, size_t n, int pe,
                             const char *fn)
{
    shoal_ctx_check(ctx, fn);
    int wpe = shoal_ctx_pe(ctx, pe, fn);
    if (SHOAL_UNLIKELY(n == 0))
        return;
    const char *r = shoal_addr_n(src, n, wpe, fn, "source", "nelems");
    if (SHOAL_UNLIKELY(shoal_g.debug))
        shoal_debug_check_overlap(dest, n, shoal_user_view(r, src, wpe), n, fn, "dest", "source");
    if (SHOAL_LIKELY(r != NULL))
        memcpy(dest, r, n);
    else
        shoal_net_get(ctx, dest, src, n, wpe, 0, fn);
}

static inline void shoal_get_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t n, int pe,
                                 const char *fn)
{
    shoal_ctx_check(ctx, fn);
    int wpe = shoal_ctx_pe(ctx, pe, fn);
    if (SHOAL_UNLIKELY(n == 0))
        return;
    const char *r = shoal_addr_n(src, n, wpe, fn, "source", "nelems");
    if (SHOAL_UNLIKELY(shoal_g.debug))
        shoal_debug_check_overlap(dest, n, shoal_user_view(r, src, wpe), n, fn, "dest", "source");
    if (SHOAL_LIKELY(r != NULL))
        memcpy(dest, r, n);
    else
        shoal_net_get(ctx, dest, src, n, wpe, 1, fn);
}

/* Blocked strided transfers (iput = ibput with bsize 1).  Strides are in
 * elements of `elem` bytes and step from block to block. */
void shoal_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                size_t bsize, size_t nblocks, size_t elem, int pe, const char *fn);
void shoal_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                size_t bsize, size_t nblocks, size_t elem, int pe, const char *fn);

/* ------------------------------------------------------------------ AMO */

enum shoal_amo_op {
    SHOAL_AMO_FETCH,   /* returns *dest */
    SHOAL_AMO_SET,     /* *dest = value */
    SHOAL_AMO_CSWAP,   /* if *dest == cond: *dest = value; returns old */
    SHOAL_AMO_SWAP,
    SHOAL_AMO_FADD,    /* fetch-and-add; inc is add 1 */
    SHOAL_AMO_ADD,
    SHOAL_AMO_FAND,
    SHOAL_AMO_AND,
    SHOAL_AMO_FOR,
    SHOAL_AMO_OR,
    SHOAL_AMO_FXOR,
    SHOAL_AMO_XOR,
};

/* CPU atomics on a mapped word of 4 or 8 bytes.  Values travel as raw bits
 * (floats included: fetch/set/swap only move bits).  With `op` and `size`
 * constant at the call site the switches fold away. */
static inline uint64_t shoal_cpu_amo(int op, void *p, unsigned size, uint64_t v, uint64_t cond)
{
#define SHOAL_AMO_CASES(T)                                                                   \
    do {                                                                                     \
        T *w = (T *)p, tv = (T)v, tc = (T)cond;                                              \
        switch (op) {                                                                        \
        case SHOAL_AMO_FETCH: return __atomic_load_n(w, __ATOMIC_SEQ_CST);                  \
        case SHOAL_AMO_SET: __atomic_store_n(w, tv, __ATOMIC_SEQ_CST); return 0;             \
        case SHOAL_AMO_CSWAP:                                                                \
            __atomic_compare_exchange_n(w, &tc, tv, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);  \
            return tc;                                                                       \
        case SHOAL_AMO_SWAP: return __atomic_exchange_n(w, tv, __ATOMIC_SEQ_CST);            \
        case SHOAL_AMO_FADD: return __atomic_fetch_add(w, tv, __ATOMIC_SEQ_CST);             \
        case SHOAL_AMO_ADD: __atomic_fetch_add(w, tv, __ATOMIC_SEQ_CST); return 0;           \
        case SHOAL_AMO_FAND: return __atomic_fetch_and(w, tv, __ATOMIC_SEQ_CST);             \
        case SHOAL_AMO_AND: __atomic_fetch_and(w, tv, __ATOMIC_SEQ_CST); return 0;           \
        case SHOAL_AMO_FOR: return __atomic_fetch_or(w, tv, __ATOMIC_SEQ_CST);               \
        case SHOAL_AMO_OR: __atomic_fetch_or(w, tv, __ATOMIC_SEQ_CST); return 0;             \
        case SHOAL_AMO_FXOR: return __atomic_fetch_xor(w, tv, __ATOMIC_SEQ_CST);             \
        default: __atomic_fetch_xor(w, tv, __ATOMIC_SEQ_CST); return 0;                      \
        }                                                                                    \
    } while (0)
    if (size == 4)
        SHOAL_AMO_CASES(uint32_t);
    else
        SHOAL_AMO_CASES(uint64_t);
#undef SHOAL_AMO_CASES
}

static inline uint64_t shoal_amo(shmem_ctx_t ctx, int op, const void *dest, unsigned size,
                                 uint64_t value, uint64_t cond, int pe, const char *fn)
{
    shoal_ctx_check(ctx, fn);
    int wpe = shoal_ctx_pe(ctx, pe, fn);
    char *r = shoal_addr(dest, size, wpe, fn, op == SHOAL_AMO_FETCH ? "source" : "dest");
    if (SHOAL_UNLIKELY(shoal_g.debug))
        shoal_debug_check_align(dest, size, fn, op == SHOAL_AMO_FETCH ? "source" : "dest");
    if (SHOAL_LIKELY(r != NULL && !shoal_g.amo_via_net)) {
        uint64_t old = shoal_cpu_amo(op, r, size, value, cond);
        if (op != SHOAL_AMO_FETCH)
            shoal_notify(wpe);
        return old;
    }
    return shoal_net_amo(ctx, op, dest, size, value, cond, wpe, fn);
}

/* Non-blocking fetching AMO: the old value lands in *fetch by the next quiet. */
static inline void shoal_amo_nbi(shmem_ctx_t ctx, int op, void *fetch, const void *dest,
                                 unsigned size, uint64_t value, uint64_t cond, int pe,
                                 const char *fn)
{
    shoal_ctx_check(ctx, fn);
    int wpe = shoal_ctx_pe(ctx, pe, fn);
    char *r = shoal_addr(dest, size, wpe, fn, op == SHOAL_AMO_FETCH ? "source" : "dest");
    if (SHOAL_UNLIKELY(shoal_g.debug))
        shoal_debug_check_align(dest, size, fn, op == SHOAL_AMO_FETCH ? "source" : "dest");
    if (SHOAL_LIKELY(r != NULL && !shoal_g.amo_via_net)) {
        uint64_t old = shoal_cpu_amo(op, r, size, value, cond);
        if (op != SHOAL_AMO_FETCH)
            shoal_notify(wpe);
        if (size == 4) {
            uint32_t o32 = (uint32_t)old;
            memcpy(fetch, &o32, 4);
        } else {
            memcpy(fetch, &old, 8);
        }
        return;
    }
    shoal_net_amo_nbi(ctx, op, fetch, dest, size, value, cond, wpe, fn);
}

/* -------------------------------------------------------------- signals */

/* sig_op is SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD; the signal update is
 * ordered after the data: a PE that sees the signal sees the data. */
void shoal_put_signal(shmem_ctx_t ctx, void *dest, const void *src, size_t n, uint64_t *sig_addr,
                      uint64_t signal, int sig_op, int pe, int nbi, const char *fn);

/* ----------------------------------------------------- wait / test (wait.c) */

/* The integer kinds a wait/test routine compares in. */
enum shoal_wkind { SHOAL_W_I16, SHOAL_W_U16, SHOAL_W_I32, SHOAL_W_U32, SHOAL_W_I64, SHOAL_W_U64 };
#define SHOAL_WKIND(is_signed, size)                                                   \
    ((size) == 2 ? ((is_signed) ? SHOAL_W_I16 : SHOAL_W_U16)                           \
     : (size) == 4 ? ((is_signed) ? SHOAL_W_I32 : SHOAL_W_U32)                         \
                   : ((is_signed) ? SHOAL_W_I64 : SHOAL_W_U64))

/* `values` points at one comparison value (vector == 0) or at nelems of them. */
void shoal_wait_until(int kind, void *ivar, int cmp, const void *value, const char *fn);
int shoal_test(int kind, void *ivar, int cmp, const void *value, const char *fn);
void shoal_wait_until_all(int kind, void *ivars, size_t nelems, const int *status, int cmp,
                          const void *values, int vector, const char *fn);
size_t shoal_wait_until_any(int kind, void *ivars, size_t nelems, const int *status, int cmp,
                            const void *values, int vector, const char *fn);
size_t shoal_wait_until_some(int kind, void *ivars, size_t nelems, size_t *indices,
                             const int *status, int cmp, const void *values, int vector,
                             const char *fn);
int shoal_test_all(int kind, void *ivars, size_t nelems, const int *status, int cmp,
                   const void *values, int vector, const char *fn);
size_t shoal_test_any(int kind, void *ivars, size_t nelems, const int *status, int cmp,
                      const void *values, int vector, const char *fn);
size_t shoal_test_some(int kind, void *ivars, size_t nelems, size_t *indices, const int *status,
                       int cmp, const void *values, int vector, const char *fn);
uint64_t shoal_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t value, const char *fn);

/* ------------------------------------------------------------- ordering */

void shoal_fence(shmem_ctx_t ctx, const char *fn);
void shoal_quiet(shmem_ctx_t ctx, const char *fn);
void shoal_pe_quiet(shmem_ctx_t ctx, const int *pes, size_t npes, const char *fn);

#endif
