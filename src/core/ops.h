/* core/ops.h — the operations the API layer (and coll/) call: RMA, AMO,
 * signals, strided transfers.  Each is inline so that a generated wrapper
 * such as shmem_int_put compiles to: context check, PE check, address
 * translation, memcpy.  Peers on this node are reached by load/store through
 * the mapped segments; other peers go through the context's network
 * transport (transport/net.h).
 *
 * Arguments common to all: `ctx` (checked), `pe` relative to ctx's team
 * (checked), remote addresses are symmetric addresses of this PE (checked
 * against the heap and static-data segments), `fn` is the public routine
 * name used in error messages. */
#ifndef SHOAL_CORE_OPS_H
#define SHOAL_CORE_OPS_H

#include <string.h>
#include "core/state.h"
#include "core/config/error.h"
#include "transport/net.h"
#include "transport/shm/shm.h"

/* Progresses the network once, where one is active: the turn of a call
 * that polls or waits (what peers' operations need from this PE's worker,
 * over tcp, moves only then).  Without a network there is nothing to move. */
static inline void shoal_poll_network(void)
{
    if (shoal_g.net_active)
        shoal_net_progress();
}

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

/* The bytes of `nelems` elements of `esize` bytes: the one place every
 * generated wrapper turns its count into a length ({NBYTES} in the API
 * table), so that a count whose byte length wraps around size_t is an
 * argument error instead of a short (or empty) transfer.  With `esize`
 * constant this is one comparison. */
static inline size_t shoal_nbytes(size_t nelems, size_t esize, const char *fn)
{
    size_t n;
    if (SHOAL_UNLIKELY(__builtin_mul_overflow(nelems, esize, &n)))
        shoal_err_count("nelems", nelems, esize, fn);
    return n;
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

/* The doorbell of world PE `pe` (mapped): what an on-node write rings. */
static inline uint32_t *shoal_bell_of(int pe)
{
    return &shoal_ctl_of_slot(shoal_slot(pe))->bell;
}

/* ------------------------------------------------------------------ RMA */

/* For the SHMEM_DEBUG overlap check: on this PE, static data is reachable
 * through two mappings (the program's own and the shared alias), so compare
 * the address the user passed, not the alias. */
static inline const void *shoal_user_view(const void *mapped, const void *user, int wpe)
{
    return wpe == shoal_g.my_pe ? user : mapped;
}

/* What every RMA form does once the PE is checked (shoal_rma below and the
 * _nbe form in ext/requests/request_ops.h, which joins its request first): 0 when
 * there is nothing to move (n == 0), else 1 with *mapped set to where
 * `remote` lies in this process, NULL when it is reached over the network.
 * `local` is the private buffer, `remote` the symmetric object named
 * "dest" for a put, "source" for a get.  `debug` is SHOAL_OPS_DEBUG, read
 * once by the caller (a form with more debug checks tests one value). */
static inline int shoal_rma_target(int is_put, const void *local, const void *remote, size_t n,
                                   int wpe, int debug, char **mapped, const char *fn)
{
    if (SHOAL_UNLIKELY(n == 0))
        return 0;
    char *r = shoal_addr_n(remote, n, wpe, fn, is_put ? "dest" : "source", "nelems");
    if (SHOAL_UNLIKELY(debug)) {
        const void *rv = shoal_user_view(r, remote, wpe);
        shoal_debug_check_overlap(is_put ? rv : local, n, is_put ? local : rv, n, fn, "dest",
                                  "source");
    }
    *mapped = r;
    return 1;
}

/* The transfer itself when the target is mapped: complete at return. */
static inline void shoal_rma_mapped(int is_put, char *mapped, void *local, size_t n, int wpe)
{
    if (is_put)
        shoal_shm_put(mapped, local, n, shoal_bell_of(wpe));
    else
        shoal_shm_get(local, mapped, n);
}

/* The one body of put, get and their nbi forms.  With is_put and nbi
 * constant at the call site it compiles to the checks, the translation and
 * one memcpy (on this node) or one call into the network transport. */
static inline void shoal_rma(shmem_ctx_t ctx, int is_put, int nbi, void *local, const void *remote,
                             size_t n, int pe, const char *fn)
{
    shoal_ctx_check(ctx, fn);
    int wpe = shoal_ctx_pe(ctx, pe, fn);
    char *r;
    if (!shoal_rma_target(is_put, local, remote, n, wpe, SHOAL_OPS_DEBUG, &r, fn))
        return;
    if (SHOAL_LIKELY(r != NULL))
        shoal_rma_mapped(is_put, r, local, n, wpe);
    else if (is_put)
        shoal_net_put(ctx->net, (void *)remote, local, n, wpe, nbi, fn);
    else
        shoal_net_get(ctx->net, local, remote, n, wpe, nbi, fn);
}

static inline void shoal_put(shmem_ctx_t ctx, void *dest, const void *src, size_t n, int pe,
                             const char *fn)
{
    shoal_rma(ctx, 1, 0, (void *)src, dest, n, pe, fn);
}

static inline void shoal_put_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t n, int pe,
                                 const char *fn)
{
    shoal_rma(ctx, 1, 1, (void *)src, dest, n, pe, fn);
}

static inline void shoal_get(shmem_ctx_t ctx, void *dest, const void *src, size_t n, int pe,
                             const char *fn)
{
    shoal_rma(ctx, 0, 0, dest, src, n, pe, fn);
}

static inline void shoal_get_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t n, int pe,
                                 const char *fn)
{
    shoal_rma(ctx, 0, 1, dest, src, n, pe, fn);
}

/* Strided transfers: nelems elements (iput/iget), or nblocks blocks of
 * bsize elements (ibput/ibget).  Strides are in elements of `elem` bytes and
 * step from element to element, or block to block. */
void shoal_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                size_t nelems, size_t elem, int pe, const char *fn);
void shoal_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                size_t nelems, size_t elem, int pe, const char *fn);
void shoal_ibput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t bsize, size_t nblocks, size_t elem, int pe, const char *fn);
void shoal_ibget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t bsize, size_t nblocks, size_t elem, int pe, const char *fn);

/* ------------------------------------------------------------------ AMO */

/* AMOs (the operations: enum shoal_amo_op in transport/net.h).  On this node
 * CPU atomics, unless every AMO of the job goes through the network
 * (shoal_g.amo_via_net: network atomics need not be coherent with CPU
 * atomics on the same word). */
/* Does op return the old value?  Constant where op is (every generated
 * wrapper). */
static inline int shoal_amo_fetches(int op)
{
    return op != SHOAL_AMO_SET && op != SHOAL_AMO_ADD && op != SHOAL_AMO_AND &&
           op != SHOAL_AMO_OR && op != SHOAL_AMO_XOR;
}

/* What every AMO form does once the PE is checked (the blocking, nbi and
 * _nbe ones): where the word lies in this process when a CPU atomic may
 * update it, NULL when the network must.  `debug` as for shoal_rma_target. */
static inline char *shoal_amo_target(int op, const void *dest, unsigned size, int wpe, int debug,
                                     const char *fn)
{
    const char *arg = op == SHOAL_AMO_FETCH ? "source" : "dest";
    char *r = shoal_addr(dest, size, wpe, fn, arg);
    if (SHOAL_UNLIKELY(debug))
        shoal_debug_check_align(dest, size, fn, arg);
    return SHOAL_LIKELY(!shoal_g.amo_via_net) ? r : NULL;
}

/* The old value of a 4- or 8-byte AMO into the user's `fetch`. */
static inline void shoal_amo_store_fetch(void *fetch, unsigned size, uint64_t old)
{
    if (size == 4) {
        uint32_t o32 = (uint32_t)old;
        memcpy(fetch, &o32, 4);
    } else {
        memcpy(fetch, &old, 8);
    }
}

static inline uint64_t shoal_amo(shmem_ctx_t ctx, int op, const void *dest, unsigned size,
                                 uint64_t value, uint64_t cond, int pe, const char *fn)
{
    shoal_ctx_check(ctx, fn);
    int wpe = shoal_ctx_pe(ctx, pe, fn);
    char *r = shoal_amo_target(op, dest, size, wpe, SHOAL_OPS_DEBUG, fn);
    if (SHOAL_LIKELY(r != NULL))
        return shoal_shm_amo(op, r, size, value, cond, shoal_bell_of(wpe));
    return shoal_net_amo(ctx->net, op, dest, size, value, cond, wpe, fn);
}

/* Non-blocking fetching AMO: the old value lands in *fetch by the next quiet. */
static inline void shoal_amo_nbi(shmem_ctx_t ctx, int op, void *fetch, const void *dest,
                                 unsigned size, uint64_t value, uint64_t cond, int pe,
                                 const char *fn)
{
    shoal_ctx_check(ctx, fn);
    int wpe = shoal_ctx_pe(ctx, pe, fn);
    char *r = shoal_amo_target(op, dest, size, wpe, SHOAL_OPS_DEBUG, fn);
    if (SHOAL_LIKELY(r != NULL)) {
        shoal_amo_store_fetch(fetch, size,
                              shoal_shm_amo(op, r, size, value, cond, shoal_bell_of(wpe)));
        return;
    }
    shoal_net_amo_nbi(ctx->net, op, fetch, dest, size, value, cond, wpe, fn);
}

/* -------------------------------------------------------------- signals */

/* A collective's signal (core/teams/sync.c): an add of 1 to the 64-bit `word` of
 * world PE `wpe`, which its receiver waits for; through the network it
 * leaves nothing for the next quiet to complete (shoal_net_signal). */
static inline void shoal_signal_post(uint64_t *word, int wpe, const char *fn)
{
    char *r = shoal_amo_target(SHOAL_AMO_ADD, word, 8, wpe, 0, fn);
    if (SHOAL_LIKELY(r != NULL))
        (void)shoal_shm_amo(SHOAL_AMO_ADD, r, 8, 1, 0, shoal_bell_of(wpe));
    else
        shoal_net_signal(shoal_ctx_default.net, word, 1, wpe, fn);
}

/* sig_op is SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD; the signal update is
 * ordered after the data: a PE that sees the signal sees the data. */
void shoal_put_signal(shmem_ctx_t ctx, void *dest, const void *src, size_t n, uint64_t *sig_addr,
                      uint64_t signal, int sig_op, int pe, int nbi, const char *fn);

/* ----------------------------------------------------- wait / test (wait.c) */

/* The integer kinds a wait/test routine compares in. */
enum shoal_wkind { SHOAL_W_I16, SHOAL_W_U16, SHOAL_W_I32, SHOAL_W_U32, SHOAL_W_I64, SHOAL_W_U64 };
#define SHOAL_WKIND(is_signed, size)                           \
    ((size) == 2   ? ((is_signed) ? SHOAL_W_I16 : SHOAL_W_U16) \
     : (size) == 4 ? ((is_signed) ? SHOAL_W_I32 : SHOAL_W_U32) \
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

/* A collective's data for `dest` and then its signal (shoal_signal_post)
 * to world PE `wpe`: in one message where the transport carries them so
 * (shoal_net_signal_data), else a put, a fence and the signal. */
static inline void shoal_signal_post_data(uint64_t *word, void *dest, const void *src, size_t n,
                                          int wpe, const char *fn)
{
    if (shoal_slot(wpe) < 0 && shoal_g.net_active &&
        shoal_net_signal_data(shoal_ctx_default.net, word, 1, dest, src, n, wpe, fn))
        return;
    shoal_put(SHMEM_CTX_DEFAULT, dest, src, n, wpe, fn);
    shoal_fence(SHMEM_CTX_DEFAULT, fn); /* data before the signal */
    shoal_signal_post(word, wpe, fn);
}

void shoal_quiet(shmem_ctx_t ctx, const char *fn);
void shoal_pe_quiet(shmem_ctx_t ctx, const int *pes, size_t npes, const char *fn);

#endif
