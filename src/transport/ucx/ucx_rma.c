/* Put, get, fence and quiet over UCP.  A blocking put returns when the
 * source may be reused (local completion); its remote completion, like
 * that of every nbi operation and posted AMO, comes with the next quiet.
 * Quiet flushes only the endpoints that owe a remote completion (marked
 * when an operation is posted), each with ucp_ep_flush_nbx, all in flight
 * at once — or the whole worker when more than UCX_FLUSH_EPS_MAX peers
 * owe one, or when only blocking puts UCX completed late are marked.  A
 * quiet with nothing outstanding costs nothing, and a quiet with
 * something posted never waits on a peer it has nothing outstanding with
 * (a flush of the worker that does not return at once flushes every
 * endpoint, and over tcp waits for peers that may not progress). */
#include <string.h>

#include "transport/ucx/ucx_internal.h"

#define mark_dirty(w, pe) ucx_mark_dirty(w, pe)

void ucx_mark_dirty_slow(struct ucx_worker *w, int pe, unsigned char mark)
{
    const int locked = w->mode == UCS_THREAD_MODE_MULTI;
    if (locked)
        pthread_mutex_lock(&w->wire_lock);
    const unsigned char had = w->ep_dirty[pe];
    if (!had) {
        if (w->n_dirty < UCX_FLUSH_EPS_MAX)
            w->dirty_pes[w->n_dirty] = pe;
        w->n_dirty++;
    }
    if (mark > had)
        __atomic_store_n(&w->ep_dirty[pe], mark, __ATOMIC_SEQ_CST);
    __atomic_store_n(&w->dirty, 1, __ATOMIC_SEQ_CST);
    if (locked)
        pthread_mutex_unlock(&w->wire_lock);
}

/* Starts a put (dest is remote) or a get (src is remote) on w; `mark`
 * records the peer for the next flush. */
static ucs_status_ptr_t start_rma(struct ucx_worker *w, int is_put, void *dest, const void *src,
                                  size_t n, int pe, int mark, const char *fn)
{
    ucp_ep_h ep = ucx_ep(w, pe, fn);
    uint64_t ra;
    ucp_rkey_h rk = ucx_target(w, pe, is_put ? dest : src, &ra);
    ucp_request_param_t p;
    p.op_attr_mask = 0;
    ucs_status_ptr_t r =
        is_put ? ucp_put_nbx(ep, src, n, ra, rk, &p) : ucp_get_nbx(ep, dest, n, ra, rk, &p);
    if (mark)
        mark_dirty(w, pe);
    return r;
}

/* Posted, not waited for: remote completion comes with a flush of the
 * endpoint (quiet, or the request's test). */
void ucx_post_put(struct ucx_worker *w, void *dest, const void *src, size_t n, int pe,
                  const char *fn)
{
    ucx_forget(start_rma(w, 1, dest, src, n, pe, 1, fn), fn, pe, "put");
}

void ucx_post_get(struct ucx_worker *w, void *dest, const void *src, size_t n, int pe,
                  const char *fn)
{
    ucx_forget(start_rma(w, 0, dest, src, n, pe, 1, fn), fn, pe, "get");
}

ucs_status_ptr_t ucx_start_get(struct ucx_worker *w, void *dest, const void *src, size_t n, int pe,
                               const char *fn)
{
    return start_rma(w, 0, dest, src, n, pe, 1, fn);
}

/* A blocking put that UCX completed at once (a copy was sent) owes a
 * remote completion; one whose request completed later (a zero-copy put,
 * which over tcp waits for the peer's answer) has most likely completed
 * remotely too.  Its mark lets the quiet ask the worker first, which
 * answers at once when nothing is in flight (flush_marked). */
static void put_blocking(struct ucx_worker *w, void *dest, const void *src, size_t n, int pe,
                         const char *fn)
{
    ucs_status_ptr_t r = start_rma(w, 1, dest, src, n, pe, 0, fn);
    ucx_mark_dirty_as(w, pe, r == NULL || UCS_PTR_IS_ERR(r) ? UCX_MARK_POSTED : UCX_MARK_WAITED);
    ucx_wait(w, r, fn, pe, "put");
}

void ucx_net_put(struct shoal_net_ctx *ctx, void *dest, const void *src, size_t n, int pe, int nbi,
                 const char *fn)
{
    struct ucx_worker *w = ucx_ctx_worker(ctx, fn);
    if (nbi)
        ucx_post_put(w, dest, src, n, pe, fn);
    else
        put_blocking(w, dest, src, n, pe, fn);
}

void ucx_net_get(struct shoal_net_ctx *ctx, void *dest, const void *src, size_t n, int pe, int nbi,
                 const char *fn)
{
    struct ucx_worker *w = ucx_ctx_worker(ctx, fn);
    if (nbi)
        ucx_post_get(w, dest, src, n, pe, fn);
    else /* a blocking get leaves nothing for a flush to complete */
        ucx_wait(w, start_rma(w, 0, dest, src, n, pe, 0, fn), fn, pe, "get");
}

/* On a MULTI worker, flushes are serialized (flush_lock): a quiet that
 * finds nothing marked may not return while another thread's flush, which
 * took this thread's marks, is still completing them. */
static void flush_marked(struct ucx_worker *w, const char *fn)
{
    if (!__atomic_exchange_n(&w->dirty, 0, __ATOMIC_SEQ_CST))
        return;
    const int locked = w->mode == UCS_THREAD_MODE_MULTI;
    int pes[UCX_FLUSH_EPS_MAX], n, posted = 0;
    if (locked)
        pthread_mutex_lock(&w->wire_lock);
    n = w->n_dirty;
    if (n <= UCX_FLUSH_EPS_MAX) {
        memcpy(pes, w->dirty_pes, sizeof(int) * (size_t)n);
        for (int i = 0; i < n; i++)
            posted |=
                __atomic_exchange_n(&w->ep_dirty[pes[i]], 0, __ATOMIC_SEQ_CST) == UCX_MARK_POSTED;
    } else {
        memset(w->ep_dirty, 0, (size_t)ucx_g.n_pes);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
    w->n_dirty = 0;
    if (locked)
        pthread_mutex_unlock(&w->wire_lock);
    if (n == 0)
        return;
    ucp_request_param_t p;
    p.op_attr_mask = 0;
    /* Only blocking puts that completed late: a flush of the worker
     * returns at once when UCX has nothing in flight, where an endpoint's
     * flush may cost a round trip of its own (UCX 1.22 over tcp: any
     * endpoint that sent something owes an empty put the peer answers). */
    if (n > UCX_FLUSH_EPS_MAX || !posted) {
        ucx_wait(w, ucp_worker_flush_nbx(w->h, &p), fn, -1, "flush (quiet)");
        return;
    }
    ucs_status_ptr_t req[UCX_FLUSH_EPS_MAX];
    for (int i = 0; i < n; i++)
        req[i] = ucp_ep_flush_nbx(w->eps[pes[i]], &p);
    for (int i = 0; i < n; i++)
        ucx_wait(w, req[i], fn, pes[i], "flush (quiet)");
}

void ucx_flush_worker(struct ucx_worker *w, const char *fn)
{
    if (w->mode != UCS_THREAD_MODE_MULTI) {
        flush_marked(w, fn);
        return;
    }
    pthread_mutex_lock(&w->flush_lock);
    flush_marked(w, fn);
    pthread_mutex_unlock(&w->flush_lock);
}

static void flush_one(struct ucx_worker *w, void *arg)
{
    ucx_flush_worker(w, (const char *)arg);
}

static void flush_signalled(struct ucx_worker *w, void *arg)
{
    if (!__atomic_exchange_n(&w->signalled, 0, __ATOMIC_RELAXED))
        return;
    ucp_request_param_t p;
    p.op_attr_mask = 0;
    ucx_wait(w, ucp_worker_flush_nbx(w->h, &p), (const char *)arg, -1, "flush (signals)");
}

/* The target worker's own endpoints, one by one: a flush of the whole
 * worker would also wait on the endpoints that peers' connections made. */
void ucx_target_sender_flush(int all, const char *fn)
{
    struct ucx_worker *w = ucx_target_sender_if_any();
    if (!w || (!__atomic_exchange_n(&w->signalled, 0, __ATOMIC_RELAXED) && !all))
        return;
    ucp_request_param_t p;
    p.op_attr_mask = 0;
    for (int pe = 0; pe < ucx_g.n_pes; pe++) {
        ucp_ep_h ep = __atomic_load_n(&w->eps[pe], __ATOMIC_ACQUIRE);
        if (ep)
            ucx_wait(w, ucp_ep_flush_nbx(ep, &p), fn, pe, "flush (signals)");
    }
}

void ucx_net_flush_signals(struct shoal_net_ctx *n, const char *fn)
{
    ucx_target_sender_flush(0, fn);
    if (n->w != NULL)
        flush_signalled(n->w, (void *)fn);
    else
        ucx_default_workers_foreach(flush_signalled, (void *)fn);
}

void ucx_net_quiet(struct shoal_net_ctx *n)
{
    if (UCX_LIKELY(n->w != NULL))
        ucx_flush_worker(n->w, "shmem_quiet");
    else
        /* The default context under SHMEM_THREAD_MULTIPLE: what every
         * thread posted before this quiet. */
        ucx_default_workers_foreach(flush_one, (void *)"shmem_quiet");
}

void ucx_net_fence(struct shoal_net_ctx *ctx)
{
    /* Orders what the calling thread issued on the context: with
     * per-thread workers behind SHMEM_CTX_DEFAULT that is its own worker
     * (ordering between threads is the program's business, as the spec
     * says of multithreaded PEs).  Nothing outstanding: nothing to order. */
    struct ucx_worker *w = ucx_ctx_worker(ctx, "shmem_fence");
    if (!__atomic_load_n(&w->dirty, __ATOMIC_ACQUIRE))
        return;
    ucs_status_t st = ucp_worker_fence(w->h);
    if (st != UCS_OK)
        ucx_die("shmem_fence", -1, "fence", st);
}
