/* core/request_ops.h — the _nbe operations (shmemx): RMA, AMO and
 * put-with-signal that join a request (core/request.h).  Inline like
 * core/ops.h, whose checks and addressing they share: a generated wrapper
 * such as shmemx_int_put_nbe compiles to the handle check, the context and
 * PE checks, the translation, and one memcpy on this node or one posted
 * network operation. */
#ifndef SHOAL_CORE_REQUEST_OPS_H
#define SHOAL_CORE_REQUEST_OPS_H

#include "core/ops.h"
#include "core/request.h"

/* put (is_put) or get of n bytes; `local` is the private buffer. */
static inline void shoal_rma_nbe(shmem_ctx_t ctx, int is_put, void *local, const void *remote,
                                 size_t n, int pe, shmemx_request_h *req, const char *fn)
{
    shoal_ctx_check(ctx, fn);
    int wpe = shoal_ctx_pe(ctx, pe, fn);
    struct shmemx_request *r = shoal_request_join(req, fn);
    if (SHOAL_UNLIKELY(n == 0))
        return;
    char *rp = shoal_addr_n(remote, n, wpe, fn, is_put ? "dest" : "source", "nelems");
    if (SHOAL_UNLIKELY(shoal_g.debug)) {
        const void *rv = shoal_user_view(rp, remote, wpe);
        shoal_debug_check_overlap(is_put ? rv : local, n, is_put ? local : rv, n, fn, "dest",
                                  "source");
    }
    if (SHOAL_LIKELY(rp != NULL)) {
        if (is_put)
            shoal_shm_put(rp, local, n, shoal_bell_of(wpe));
        else
            shoal_shm_get(local, rp, n);
        return;
    }
    if (is_put)
        shoal_net_req_put(shoal_request_net(r), (void *)remote, local, n, wpe, fn);
    else
        shoal_net_req_get(shoal_request_net(r), local, remote, n, wpe, fn);
}

/* An AMO; `fetch` receives the old value by completion (NULL: a
 * non-fetching operation). */
static inline void shoal_amo_nbe(shmem_ctx_t ctx, int op, void *fetch, const void *dest,
                                 unsigned size, uint64_t value, uint64_t cond, int pe,
                                 shmemx_request_h *req, const char *fn)
{
    shoal_ctx_check(ctx, fn);
    int wpe = shoal_ctx_pe(ctx, pe, fn);
    struct shmemx_request *r = shoal_request_join(req, fn);
    const char *arg = op == SHOAL_AMO_FETCH ? "source" : "dest";
    char *rp = shoal_addr(dest, size, wpe, fn, arg);
    if (SHOAL_UNLIKELY(shoal_g.debug))
        shoal_debug_check_align(dest, size, fn, arg);
    if (SHOAL_LIKELY(rp != NULL && !shoal_g.amo_via_net)) {
        uint64_t old = shoal_shm_amo(op, rp, size, value, cond, shoal_bell_of(wpe));
        if (fetch) {
            if (size == 4) {
                uint32_t o32 = (uint32_t)old;
                memcpy(fetch, &o32, 4);
            } else {
                memcpy(fetch, &old, 8);
            }
        }
        return;
    }
    shoal_net_req_amo(shoal_request_net(r), op, fetch, dest, size, value, cond, wpe, fn);
}

/* put-with-signal (request.c): the signal is delivered after the data. */
void shoal_put_signal_nbe(shmem_ctx_t ctx, void *dest, const void *src, size_t n,
                          uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                          shmemx_request_h *req, const char *fn);

#endif
