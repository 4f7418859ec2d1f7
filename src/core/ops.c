/* The out-of-line core operations (ops.h): strided transfers,
 * put-with-signal and ordering.  On-node every transfer is complete when the call returns, so
 * fence and quiet only have to order this thread's stores for the other
 * processes (a no-op on x86 beyond the compiler barrier; a real fence on
 * weakly ordered CPUs) and complete the network side. */
#include "core/ops.h"

#include "core/ext_hooks.h"

/* The names a strided routine's error messages use for its arguments. */
struct strided_args {
    const char *count; /* "nelems" (iput, iget) or "nblocks" (ibput, ibget) */
    ptrdiff_t dst, sst;
    size_t bsize, nblocks, elem;
};

/* [lo, hi): the bytes that nblocks blocks of `blen` bytes, `step` bytes
 * apart, cover relative to the first block.  0 when that span (or a step)
 * does not fit in ptrdiff_t: no object can be that large. */
static int span(ptrdiff_t stride, size_t elem, size_t nblocks, size_t blen, ptrdiff_t *step,
                ptrdiff_t *lo, ptrdiff_t *hi)
{
    size_t mag = stride < 0 ? (size_t)0 - (size_t)stride : (size_t)stride, s, last;
    if (__builtin_mul_overflow(mag, elem, &s) || s > PTRDIFF_MAX ||
        __builtin_mul_overflow(s, nblocks - 1, &last) || last > (size_t)PTRDIFF_MAX - blen)
        return 0;
    *step = stride < 0 ? -(ptrdiff_t)s : (ptrdiff_t)s;
    *lo = stride < 0 ? -(ptrdiff_t)last : 0;
    *hi = (stride < 0 ? 0 : (ptrdiff_t)last) + (ptrdiff_t)blen;
    return 1;
}

/* The byte length of one block, and the step of each side, or a fatal
 * error naming the count (and the stride) whose bytes cannot exist. */
static size_t strided_check(const struct strided_args *a, int is_put, ptrdiff_t *rstep,
                            ptrdiff_t *lstep, ptrdiff_t *lo, ptrdiff_t *hi, const char *fn)
{
    size_t blen;
    if (__builtin_mul_overflow(a->bsize, a->elem, &blen) || blen > PTRDIFF_MAX)
        shoal_err_count("bsize", a->bsize, a->elem, fn);
    ptrdiff_t rs = is_put ? a->dst : a->sst, ls = is_put ? a->sst : a->dst, llo, lhi;
    if (!span(rs, a->elem, a->nblocks, blen, rstep, lo, hi) ||
        !span(ls, a->elem, a->nblocks, blen, lstep, &llo, &lhi))
        shoal_fatal(fn,
                    "argument '%s' = %zu is too large: with strides dst = %td and sst = %td "
                    "(elements of %zu bytes) the %s span more bytes than the address space holds",
                    a->count, a->nblocks, a->dst, a->sst, a->elem,
                    a->bsize > 1 ? "blocks" : "elements");
    return blen;
}

static void strided(shmem_ctx_t ctx, int is_put, void *dest, const void *src,
                    const struct strided_args *a, int pe, const char *fn)
{
    shoal_ctx_check(ctx, fn);
    int wpe = shoal_ctx_pe(ctx, pe, fn);
    if (a->nblocks == 0 || a->bsize == 0)
        return;
    if (SHOAL_UNLIKELY(a->bsize > 1 &&
                       ((a->dst < (ptrdiff_t)a->bsize) || a->sst < (ptrdiff_t)a->bsize)))
        shoal_fatal(fn, "strides dst = %td and sst = %td must be at least bsize = %zu", a->dst,
                    a->sst, a->bsize);
    ptrdiff_t rstep, lstep, lo, hi;
    size_t blen = strided_check(a, is_put, &rstep, &lstep, &lo, &hi, fn);
    const char *remote = is_put ? dest : src;
    /* The extent is checked before an address is formed from it: a far
     * start is named as the address that is wrong. */
    char *r = shoal_addr_n((const char *)((uintptr_t)remote + (uintptr_t)lo), (size_t)(hi - lo),
                           wpe, fn, is_put ? "dest" : "source", a->count);
    ptrdiff_t dstep = is_put ? rstep : lstep, sstep = is_put ? lstep : rstep;
    if (SHOAL_UNLIKELY(r == NULL)) {
        /* Network path: one contiguous transfer per block. */
        for (size_t b = 0; b < a->nblocks; b++) {
            char *d = (char *)dest + (ptrdiff_t)b * dstep;
            const char *s = (const char *)src + (ptrdiff_t)b * sstep;
            if (is_put)
                shoal_net_put(ctx->net, d, s, blen, wpe, 0, fn);
            else
                shoal_net_get(ctx->net, d, s, blen, wpe, 0, fn);
        }
        return;
    }
    char *rbase = r - lo;
    shoal_shm_strided(is_put ? rbase : (char *)dest, is_put ? (const char *)src : rbase, dstep,
                      sstep, blen, a->nblocks);
    if (is_put)
        shoal_bell_ring_if_armed(shoal_bell_of(wpe));
}

void shoal_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                size_t nelems, size_t elem, int pe, const char *fn)
{
    const struct strided_args a = {"nelems", dst, sst, 1, nelems, elem};
    strided(ctx, 1, dest, src, &a, pe, fn);
}

void shoal_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                size_t nelems, size_t elem, int pe, const char *fn)
{
    const struct strided_args a = {"nelems", dst, sst, 1, nelems, elem};
    strided(ctx, 0, dest, src, &a, pe, fn);
}

void shoal_ibput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t bsize, size_t nblocks, size_t elem, int pe, const char *fn)
{
    const struct strided_args a = {"nblocks", dst, sst, bsize, nblocks, elem};
    strided(ctx, 1, dest, src, &a, pe, fn);
}

void shoal_ibget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t bsize, size_t nblocks, size_t elem, int pe, const char *fn)
{
    const struct strided_args a = {"nblocks", dst, sst, bsize, nblocks, elem};
    strided(ctx, 0, dest, src, &a, pe, fn);
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
        char *r = shoal_addr_n(dest, n, wpe, fn, "dest", "nelems");
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
    if (SHOAL_UNLIKELY(__atomic_load_n(&shoal_ext_req_net_used, __ATOMIC_RELAXED))) {
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
    if (SHOAL_UNLIKELY(__atomic_load_n(&shoal_ext_req_net_used, __ATOMIC_RELAXED)))
        shoal_net_req_quiet_all(fn);
    /* A thread in quiet is inside Shoal: it runs pending handlers. */
    shoal_ext_serve(fn);
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
