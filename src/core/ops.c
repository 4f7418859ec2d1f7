/* The out-of-line core operations (ops.h): strided transfers,
 * put-with-signal and ordering.  On-node every transfer is complete when the call returns, so
 * fence and quiet only have to order this thread's stores for the other
 * processes (a no-op on x86 beyond the compiler barrier; a real fence on
 * weakly ordered CPUs) and complete the network side. */
#include "core/ops.h"
#include "core/request.h"

#include "core/am.h"

/* [lo, hi) byte extent of nblocks blocks of bsize elements, stride apart. */
static void extent(ptrdiff_t stride, size_t bsize, size_t nblocks, size_t elem, ptrdiff_t *lo,
                   ptrdiff_t *hi)
{
    ptrdiff_t last = (ptrdiff_t)(nblocks - 1) * stride * (ptrdiff_t)elem;
    *lo = last < 0 ? last : 0;
    *hi = (last > 0 ? last : 0) + (ptrdiff_t)(bsize * elem);
}

static void strided(shmem_ctx_t ctx, int is_put, void *dest, const void *src, ptrdiff_t dst,
                    ptrdiff_t sst, size_t bsize, size_t nblocks, size_t elem, int pe,
                    const char *fn)
{
    shoal_ctx_check(ctx, fn);
    int wpe = shoal_ctx_pe(ctx, pe, fn);
    if (nblocks == 0 || bsize == 0)
        return;
    if (SHOAL_UNLIKELY(bsize > 1 && ((dst < (ptrdiff_t)bsize) || sst < (ptrdiff_t)bsize)))
        shoal_fatal(fn, "strides dst = %td and sst = %td must be at least bsize = %zu", dst, sst,
                    bsize);
    const void *remote = is_put ? dest : src;
    ptrdiff_t rstride = is_put ? dst : sst, lo, hi;
    extent(rstride, bsize, nblocks, elem, &lo, &hi);
    char *r = shoal_addr((const char *)remote + lo, (size_t)(hi - lo), wpe, fn,
                         is_put ? "dest" : "source");
    if (SHOAL_UNLIKELY(r == NULL)) {
        /* Network path: one contiguous transfer per block. */
        for (size_t b = 0; b < nblocks; b++) {
            char *d = (char *)dest + (ptrdiff_t)b * dst * (ptrdiff_t)elem;
            const char *s = (const char *)src + (ptrdiff_t)b * sst * (ptrdiff_t)elem;
            if (is_put)
                shoal_net_put(ctx->net, d, s, bsize * elem, wpe, 0, fn);
            else
                shoal_net_get(ctx->net, d, s, bsize * elem, wpe, 0, fn);
        }
        return;
    }
    char *rbase = r - lo;
    shoal_shm_strided(is_put ? rbase : (char *)dest, is_put ? (const char *)src : rbase,
                      dst * (ptrdiff_t)elem, sst * (ptrdiff_t)elem, bsize * elem, nblocks);
    if (is_put)
        shoal_bell_ring_if_armed(shoal_bell_of(wpe));
}

void shoal_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                size_t bsize, size_t nblocks, size_t elem, int pe, const char *fn)
{
    strided(ctx, 1, dest, src, dst, sst, bsize, nblocks, elem, pe, fn);
}

void shoal_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                size_t bsize, size_t nblocks, size_t elem, int pe, const char *fn)
{
    strided(ctx, 0, dest, src, dst, sst, bsize, nblocks, elem, pe, fn);
}

void shoal_put_signal(shmem_ctx_t ctx, void *dest, const void *src, size_t n, uint64_t *sig_addr,
                      uint64_t signal, int sig_op, int pe, int nbi, const char *fn)
{
    shoal_ctx_check(ctx, fn);
    int wpe = shoal_ctx_pe(ctx, pe, fn);
    if (SHOAL_UNLIKELY(sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD))
        shoal_fatal(fn, "argument 'sig_op' = %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD",
                    sig_op);
    char *sig = shoal_addr(sig_addr, 8, wpe, fn, "sig_addr");
    if (SHOAL_UNLIKELY(shoal_g.debug))
        shoal_debug_check_align(sig_addr, 8, fn, "sig_addr");
    if (n) {
        char *r = shoal_addr(dest, n, wpe, fn, "dest");
        if (SHOAL_UNLIKELY(shoal_g.debug))
            shoal_debug_check_overlap(shoal_user_view(r, dest, wpe), n, src, n, fn, "dest",
                                      "source");
        if (r)
            memcpy(r, src, n); /* the signal below rings */
        else
            shoal_net_put(ctx->net, dest, src, n, wpe, nbi, fn);
    }
    int op = sig_op == SHMEM_SIGNAL_SET ? SHOAL_AMO_SET : SHOAL_AMO_ADD;
    if (sig && !shoal_g.amo_via_net) {
        /* The seq_cst atomic orders the data stores before the signal. */
        shoal_shm_amo(op, sig, 8, signal, 0, shoal_bell_of(wpe));
    } else {
        /* Data stored by load/store or put by the network: both before
         * the signal. */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        shoal_net_fence(ctx->net);
        shoal_net_amo(ctx->net, op, sig_addr, 8, signal, 0, wpe, fn);
    }
}

void shoal_fence(shmem_ctx_t ctx, const char *fn)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    shoal_ctx_check(ctx, fn);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    if (!ctx->net)
        return;
    if (SHOAL_UNLIKELY(__atomic_load_n(&shoal_request_net_used, __ATOMIC_RELAXED))) {
        /* _nbe operations went out on request workers, which no fence of
         * the context's worker orders: complete everything instead. */
        shoal_net_quiet(ctx->net);
        shoal_net_req_quiet_all(fn);
        return;
    }
    shoal_net_fence(ctx->net);
}

void shoal_quiet(shmem_ctx_t ctx, const char *fn)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    shoal_ctx_check(ctx, fn);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (ctx->net)
        shoal_net_quiet(ctx->net);
    /* Quiet also completes the _nbe operations issued so far (of every
     * request: their workers are not the context's). */
    if (SHOAL_UNLIKELY(__atomic_load_n(&shoal_request_net_used, __ATOMIC_RELAXED)))
        shoal_net_req_quiet_all(fn);
    /* A thread in quiet is inside Shoal: it runs pending handlers. */
    shoal_am_serve(fn);
}

void shoal_pe_quiet(shmem_ctx_t ctx, const int *pes, size_t npes, const char *fn)
{
    if (ctx == SHMEM_CTX_INVALID || npes == 0)
        return;
    shoal_ctx_check(ctx, fn);
    for (size_t i = 0; i < npes; i++)
        (void)shoal_ctx_pe(ctx, pes[i], fn);
    shoal_quiet(ctx, fn);
}
