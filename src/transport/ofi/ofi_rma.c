/* Put, get, fence and quiet over libfabric RMA.  A blocking put returns
 * when its source may be reused (an inject at once, a larger write when
 * the put counter says so); a blocking get when the data is here.
 *
 * Remote completion (quiet): every write and atomic is counted, and quiet
 * waits until the counters reach what was posted.  That alone proves only
 * local completion where the provider does not complete writes at
 * delivery: tcp;ofi_rxm accepts FI_DELIVERY_COMPLETE and keeps it only for
 * the writes it passes on with the endpoint's flags (an injected one
 * completes once sent), and shm applies an atomic when the target takes
 * it from its queue.  So quiet also reads a word of each peer written
 * since the last flush, atomically, on the same endpoint, after the writes
 * (ofi_flush_read says why that read comes back only after them), and
 * waits for it with the counters.  rxm's atomics complete only when the
 * target's answer arrives, after they were applied.  A fence is a quiet
 * where anything was written since the last one. */
#include <string.h>

#include "transport/ofi/ofi_internal.h"

int ofi_target_try(const void *addr, int pe, uint64_t *raddr, uint64_t *key)
{
    const uintptr_t a = (uintptr_t)addr;
    for (int s = 0; s < 2; s++)
        if (a - ofi_g.seg_base[s] < ofi_g.seg_len[s]) {
            *raddr = ofi_g.peer_base[2 * pe + s] + (a - ofi_g.seg_base[s]);
            *key = ofi_g.peer_key[2 * pe + s];
            return 0;
        }
    return -1;
}

void ofi_target(const void *addr, int pe, uint64_t *raddr, uint64_t *key, const char *fn)
{
    if (ofi_target_try(addr, pe, raddr, key) < 0)
        ofi_fatalf(fn, "address %p is in no symmetric segment", addr);
}

/* Marked after the operation was posted: a flush that emptied the set
 * before this load was posted after the operation. */
void ofi_peers_add(struct ofi_ep *e, struct ofi_peers *set, int pe)
{
    if (OFI_LIKELY(__atomic_load_n(&set->on[pe], __ATOMIC_SEQ_CST)))
        return;
    pthread_mutex_lock(&e->lock);
    if (!set->on[pe]) {
        __atomic_store_n(&set->on[pe], 1, __ATOMIC_SEQ_CST);
        set->list[set->n] = pe;
        __atomic_store_n(&set->n, set->n + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&e->lock);
}

/* One RMA transfer of at most max_msg bytes: with `op`, it asks for a
 * completion entry of its own (a blocking transfer waits for it); else
 * it is counted only, with a context from e's ring where the provider
 * needs one.  The local buffer's registration (FI_MR_LOCAL) lasts until
 * the transfer completed: here (or a bounce slot stands in for it), or
 * at a quiet. */
static void rma_one(struct ofi_ep *e, int is_put, void *local, size_t k, int pe, uint64_t ra,
                    uint64_t key, struct ofi_op *op, const char *fn)
{
    const char *what = is_put ? "put" : "get";
    if (is_put && !op && k <= ofi_g.inject_size) {
        OFI_POST(e, &e->put_posted, fi_inject_write(e->ep, local, k, (fi_addr_t)pe, ra, key), fn,
                 pe, what);
        return;
    }
    struct ofi_local l;
    ofi_local_get(e, local, k,
                  !op      ? OFI_LOCAL_HOLD
                  : is_put ? OFI_LOCAL_IN
                           : OFI_LOCAL_OUT,
                  &l, fn);
    local = l.at; /* a bounce slot may stand in for it */
    void *desc = ofi_desc(&l, local, k, fn);
    struct iovec iov = {.iov_base = local, .iov_len = k};
    struct fi_rma_iov rma = {.addr = ra, .len = k, .key = key};
    struct fi_msg_rma m = {.msg_iov = &iov,
                           .desc = &desc,
                           .iov_count = 1,
                           .addr = (fi_addr_t)pe,
                           .rma_iov = &rma,
                           .rma_iov_count = 1,
                           .context = op};
    void *ctx = op ? NULL : ofi_ctx_reserve(e, fn);
    if (is_put)
        OFI_POST(e, &e->put_posted,
                 op ? fi_writemsg(e->ep, &m, FI_COMPLETION)
                    : fi_write(e->ep, local, k, desc, (fi_addr_t)pe, ra, key, ctx),
                 fn, pe, what);
    else
        OFI_POST(e, &e->get_posted,
                 op ? fi_readmsg(e->ep, &m, FI_COMPLETION)
                    : fi_read(e->ep, local, k, desc, (fi_addr_t)pe, ra, key, ctx),
                 fn, pe, what);
    ofi_ctx_posted(e, ctx);
    if (op)
        ofi_wait_op(e, op, fn, pe, what);
    ofi_local_done(e, &l);
}

/* A transfer in pieces of at most max_msg bytes; `wait`: each piece
 * complete (locally) before the next, else posted only.  A put smaller
 * than the inject size is injected: its source is free at once. */
static void rma(struct ofi_ep *e, int is_put, void *remote, void *local, size_t n, int pe, int wait,
                const char *fn)
{
    uint64_t ra, key;
    ofi_target(remote, pe, &ra, &key, fn);
    char *l = local;
    while (n) {
        const size_t k = n < ofi_g.max_msg ? n : ofi_g.max_msg;
        struct ofi_op op = {0};
        const int own = wait && !(is_put && k <= ofi_g.inject_size);
        rma_one(e, is_put, l, k, pe, ra, key, own ? &op : NULL, fn);
        l += k, ra += k, n -= k;
    }
    if (is_put)
        ofi_peers_add(e, &e->dirty, pe);
}

void ofi_post_put(struct ofi_ep *e, void *dest, const void *src, size_t n, int pe, const char *fn)
{
    rma(e, 1, dest, (void *)src, n, pe, 0, fn);
}

void ofi_post_get(struct ofi_ep *e, void *dest, const void *src, size_t n, int pe, const char *fn)
{
    rma(e, 0, (void *)src, dest, n, pe, 0, fn);
}

void ofi_get_blocking(struct ofi_ep *e, void *dest, const void *src, size_t n, int pe,
                      const char *fn)
{
    rma(e, 0, (void *)src, dest, n, pe, 1, fn);
}

void ofi_net_put(struct shoal_net_ctx *net, void *dest, const void *src, size_t n, int pe, int nbi,
                 const char *fn)
{
    rma(ofi_ctx_ep(net, fn), 1, dest, (void *)src, n, pe, !nbi, fn);
}

void ofi_net_get(struct shoal_net_ctx *net, void *dest, const void *src, size_t n, int pe, int nbi,
                 const char *fn)
{
    rma(ofi_ctx_ep(net, fn), 0, (void *)src, dest, n, pe, !nbi, fn);
}

/* One flush read (ofi_flush_read) per peer of the set. */
void ofi_flush_post(struct ofi_ep *e, struct ofi_peers *set, const char *fn)
{
    if (!__atomic_load_n(&set->n, __ATOMIC_ACQUIRE))
        return;
    ofi_ctx_room(e, (uint64_t)ofi_g.n_pes, fn); /* not under the lock: it may quiet */
    pthread_mutex_lock(&e->lock);
    for (int i = 0; i < set->n; i++) {
        const int pe = set->list[i];
        __atomic_store_n(&set->on[pe], 0, __ATOMIC_SEQ_CST);
        if (ofi_g.rc_mode != OFI_RC_READ)
            continue;
        ofi_flush_read(e, pe, fn);
    }
    __atomic_store_n(&set->n, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&e->lock);
}

/* An atomic read of the first word of the peer's heap, after e's writes
 * and atomics to it: the provider answers it after what came before it
 * from e was applied (rxm: its atomics are messages that the target takes
 * after the bytes before them on the connection were placed; shm: one
 * queue per peer, in order).  A plain read would not do on shm, which
 * reads through the kernel (CMA) past the queue.  Over ofi_rxd a plain
 * read (its fetching atomics are unsafe: ofi_rxd.c), which its target
 * serves in sequence after the packets before it. */
void ofi_flush_read(struct ofi_ep *e, int pe, const char *fn)
{
    struct ofi_local l;
    ofi_local_get(e, e->flush_words, sizeof e->flush_words, OFI_LOCAL_HOLD, &l, fn);
    void *sink = ofi_desc(&l, &e->flush_words[0], 8, fn);
    void *operand = ofi_desc(&l, &e->flush_words[1], 8, fn);
    void *ctx = ofi_ctx_reserve(e, fn);
    if (OFI_UNLIKELY(ofi_g.fetch_guard)) {
        OFI_POST(e, &e->get_posted,
                 fi_read(e->ep, &e->flush_words[0], sizeof e->flush_words[0], sink, (fi_addr_t)pe,
                         ofi_g.peer_base[2 * pe], ofi_g.peer_key[2 * pe], ctx),
                 fn, pe, "read (remote completion of writes)");
        ofi_ctx_posted(e, ctx);
        return;
    }
    OFI_POST(e, &e->get_posted,
             fi_fetch_atomic(e->ep, &e->flush_words[1], 1, operand, &e->flush_words[0], sink,
                             (fi_addr_t)pe, ofi_g.peer_base[2 * pe], ofi_g.peer_key[2 * pe],
                             FI_UINT64, FI_ATOMIC_READ, ctx),
             fn, pe, "atomic read (remote completion of writes)");
    ofi_ctx_posted(e, ctx);
}

void ofi_ep_quiet(struct ofi_ep *e, const char *fn)
{
    ofi_flush_post(e, &e->dirty, fn);
    ofi_wait_quiet(e, fn, -1, "quiet");
}

/* The default context under SHMEM_THREAD_MULTIPLE: what every thread
 * posted before this quiet, on its own endpoint or one whose thread left. */
void ofi_net_quiet(struct shoal_net_ctx *net)
{
    ofi_ctx_eps_foreach(net, ofi_ep_quiet, "shmem_quiet");
}

/* Orders what the calling thread issued on the context (with endpoints
 * per thread behind SHMEM_CTX_DEFAULT, its own: ordering between threads
 * is the program's business, as the spec says of multithreaded PEs). */
void ofi_net_fence(struct shoal_net_ctx *net)
{
    struct ofi_ep *e = ofi_ctx_ep(net, "shmem_fence");
    if (__atomic_load_n(&e->dirty.n, __ATOMIC_ACQUIRE))
        ofi_ep_quiet(e, "shmem_fence");
}
