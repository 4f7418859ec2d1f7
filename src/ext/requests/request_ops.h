/* ext/requests/request_ops.h — the _nbe operations (shmemx): RMA, AMO
 * and put-with-signal that join a request (request.h).  Inline like
 * core/ops.h, whose checks and addressing they share: a generated wrapper
 * such as shmemx_int_put_nbe compiles to the handle check, the context and
 * PE checks, the translation, and one memcpy on this node or one posted
 * network operation. */
#ifndef SHOAL_EXT_REQUEST_OPS_H
#define SHOAL_EXT_REQUEST_OPS_H

#include "core/ops.h"
#include "ext/requests/request.h"

/* put (is_put) or get of n bytes; `local` is the private buffer.  The
 * handle is checked after the PE check and before anything else, so that
 * an empty transfer still checks (and sets) it.  On this node (or with
 * n == 0) the operation is complete at return and a NULL handle becomes
 * SHOAL_REQUEST_DONE: no request object.  `debug`: as for
 * shoal_request_handle. */
static inline void shoal_rma_nbe_body(shmem_ctx_t ctx, int is_put, void *local, const void *remote,
                                      size_t n, int pe, shmemx_request_h *req, int debug,
                                      const char *fn)
{
    shoal_ctx_check(ctx, fn);
    int wpe = shoal_ctx_pe(ctx, pe, fn);
    struct shmemx_request *r = shoal_request_handle(req, debug, fn);
    char *rp = NULL;
    if (!shoal_rma_target(is_put, local, remote, n, wpe, debug, &rp, fn) ||
        SHOAL_LIKELY(rp != NULL)) {
        if (rp)
            shoal_rma_mapped(is_put, rp, local, n, wpe);
        shoal_request_complete(req, r, debug, fn);
        return;
    }
    r = shoal_request_of(req, r, fn);
    if (is_put)
        shoal_net_req_put(shoal_request_net(r), (void *)remote, local, n, wpe, fn);
    else
        shoal_net_req_get(shoal_request_net(r), local, remote, n, wpe, fn);
}

/* An AMO; a fetching one (shoal_amo_fetches(op)) leaves the old value in
 * *fetch by completion, a non-fetching one is passed NULL.  On this node
 * complete at return, as an RMA above. */
static inline void shoal_amo_nbe_body(shmem_ctx_t ctx, int op, void *fetch, const void *dest,
                                      unsigned size, uint64_t value, uint64_t cond, int pe,
                                      shmemx_request_h *req, int debug, const char *fn)
{
    shoal_ctx_check(ctx, fn);
    int wpe = shoal_ctx_pe(ctx, pe, fn);
    struct shmemx_request *r = shoal_request_handle(req, debug, fn);
    char *rp = shoal_amo_target(op, dest, size, wpe, debug, fn);
    if (SHOAL_LIKELY(rp != NULL)) {
        uint64_t old = shoal_shm_amo(op, rp, size, value, cond, shoal_bell_of(wpe));
        if (shoal_amo_fetches(op))
            shoal_amo_store_fetch(fetch, size, old);
        shoal_request_complete(req, r, debug, fn);
        return;
    }
    r = shoal_request_of(req, r, fn);
    shoal_net_req_amo(shoal_request_net(r), op, shoal_amo_fetches(op) ? fetch : NULL, dest, size,
                      value, cond, wpe, fn);
}

/* The bodies with SHMEM_DEBUG's checks, out of line (request.c). */
void shoal_rma_nbe_debug(shmem_ctx_t ctx, int is_put, void *local, const void *remote, size_t n,
                         int pe, shmemx_request_h *req, const char *fn);

/* What the generated wrappers call: SHMEM_DEBUG is tested once, so the
 * path without it carries no debug test at all. */
static inline void shoal_rma_nbe(shmem_ctx_t ctx, int is_put, void *local, const void *remote,
                                 size_t n, int pe, shmemx_request_h *req, const char *fn)
{
    if (SHOAL_UNLIKELY(SHOAL_OPS_DEBUG))
        shoal_rma_nbe_debug(ctx, is_put, local, remote, n, pe, req, fn);
    else
        shoal_rma_nbe_body(ctx, is_put, local, remote, n, pe, req, 0, fn);
}

/* Where [addr, addr+len) of world PE wpe lies in this process; NULL when
 * it is not mapped, and also when it is not symmetric (the full path then
 * reports that). */
static inline char *shoal_addr_try(const void *addr, size_t len, int wpe)
{
    const uintptr_t a = (uintptr_t)addr;
    int slot = shoal_slot(wpe);
    if (SHOAL_UNLIKELY(slot < 0))
        return NULL;
    size_t off = a - (uintptr_t)shoal_g.heap_me;
    if (SHOAL_LIKELY(off < shoal_g.heap_size && len <= shoal_g.heap_size - off))
        return shoal_g.heap_region + (size_t)slot * shoal_g.heap_stride + off;
    off = a - (uintptr_t)shoal_g.data_me;
    if (off < shoal_g.data_size && len <= shoal_g.data_size - off)
        return shoal_g.data_region + (size_t)slot * shoal_g.data_stride + off;
    return NULL;
}

/* Everything but the fast path below (request.c, never inlined). */
void shoal_amo_nbe_slow(shmem_ctx_t ctx, int op, void *fetch, const void *dest, unsigned size,
                        uint64_t value, uint64_t cond, int pe, shmemx_request_h *req,
                        const char *fn);

/* An _nbe AMO.  The fast path is the common case on this node: no
 * SHMEM_DEBUG, a live context, a PE in range, a handle that is NULL, the
 * complete request or a live request, a mapped word; the operation is then
 * complete at return.  It makes no call but the doorbell's (last), so the
 * compiler saves no register for it: with the full body inline, the
 * wrapper pushed and popped six registers, and with the handle's stores
 * and the wait call beside them a fetch (a plain load) ran at 0.57x the
 * blocking one (stores bound, one per cycle on this node's CPU).
 * Anything else (errors included) takes shoal_amo_nbe_slow, whose checks
 * come in the original order. */
static inline void shoal_amo_nbe(shmem_ctx_t ctx, int op, void *fetch, const void *dest,
                                 unsigned size, uint64_t value, uint64_t cond, int pe,
                                 shmemx_request_h *req, const char *fn)
{
    if (SHOAL_LIKELY(!SHOAL_OPS_DEBUG && !shoal_g.amo_via_net && ctx != NULL &&
                     ctx->magic == SHOAL_CTX_LIVE && (unsigned)pe < (unsigned)ctx->team->size &&
                     req != NULL)) {
        struct shmemx_request *r = *req;
        if (SHOAL_LIKELY(r == NULL || r == SHOAL_REQUEST_DONE || r->magic == SHOAL_REQ_LIVE)) {
            /* (Set before the word is known to be mapped: the full path
             * takes the complete request as it takes NULL.  Nothing of r
             * stays live below, which spares a register.) */
            if (r == NULL)
                *req = SHOAL_REQUEST_DONE;
            int wpe = ctx->team->start + pe * ctx->team->stride;
            char *rp = shoal_addr_try(dest, size, wpe);
            if (SHOAL_LIKELY(rp != NULL)) {
                uint64_t old = shoal_cpu_amo(op, rp, size, value, cond);
                if (shoal_amo_fetches(op))
                    shoal_amo_store_fetch(fetch, size, old);
                if (op != SHOAL_AMO_FETCH)
                    shoal_bell_ring_if_armed(shoal_bell_of(wpe));
                return;
            }
        }
    }
    shoal_amo_nbe_slow(ctx, op, fetch, dest, size, value, cond, pe, req, fn);
}

/* put-with-signal (request.c): the signal is delivered after the data. */
void shoal_put_signal_nbe(shmem_ctx_t ctx, void *dest, const void *src, size_t n,
                          uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                          shmemx_request_h *req, const char *fn);

#endif
