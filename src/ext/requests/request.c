/* Request objects (request.h): allocation from per-thread free lists,
 * completion (test, wait, waitall, waitany), merging, and the checks of
 * handles.  A request object is one block: the common fields, then the
 * transport's part.  Objects are carved from chunks that live until the
 * last finalize, so a stale handle still points at a request-shaped object
 * whose magic tells what became of it. */
#include "ext/requests/request.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ext_hooks.h"
#include "core/config/log.h"
#include "ext/requests/request_ops.h"

#define CHUNK_REQS 32 /* objects carved per chunk */

struct chunk {
    struct chunk *older;
    size_t obj_size;
    _Alignas(64) unsigned char objs[];
};

static pthread_mutex_t chunk_lock = PTHREAD_MUTEX_INITIALIZER;
static struct chunk *chunks;
unsigned shoal_request_generation = 1; /* bumped at teardown: thread lists go stale */
static size_t obj_size;

__thread struct shoal_request_tls shoal_request_tl;

/* The complete request (ext/requests/request.h): read-only, shared by every thread. */
const struct shmemx_request shoal_request_done = {.magic = SHOAL_REQ_DONE};

/* ---------------------------------------------------------- allocation */

static struct shmemx_request *obj_at(struct chunk *c, int i)
{
    return (struct shmemx_request *)(void *)(c->objs + (size_t)i * c->obj_size);
}

/* A new chunk onto the calling thread's free list (the only lock on this
 * path, taken once per CHUNK_REQS requests a thread ever holds at once). */
static void refill(const char *fn)
{
    pthread_mutex_lock(&chunk_lock);
    if (!obj_size)
        obj_size = (sizeof(struct shmemx_request) + shoal_net_req_size() + 63) & ~(size_t)63;
    struct chunk *c = aligned_alloc(64, sizeof *c + obj_size * CHUNK_REQS);
    if (!c) {
        pthread_mutex_unlock(&chunk_lock);
        shoal_fatal(fn, "out of memory for requests");
    }
    c->obj_size = obj_size;
    c->older = chunks;
    chunks = c;
    unsigned gen = shoal_request_generation;
    pthread_mutex_unlock(&chunk_lock);
    memset(c->objs, 0, obj_size * CHUNK_REQS);
    if (shoal_request_tl.generation != gen)
        shoal_request_tl.free = NULL; /* carved before the last finalize: gone */
    for (int i = CHUNK_REQS - 1; i >= 0; i--) {
        struct shmemx_request *r = obj_at(c, i);
        r->magic = SHOAL_REQ_FREE;
        r->next = shoal_request_tl.free;
        shoal_request_tl.free = r;
    }
    shoal_request_tl.generation = gen;
}

struct shmemx_request *shoal_request_new(const char *fn)
{
    shoal_check_init(fn);
    struct shmemx_request *r = shoal_request_pop();
    if (!r) {
        refill(fn);
        r = shoal_request_pop();
    }
    return r;
}

void shoal_request_net_begin(struct shmemx_request *r)
{
    memset(r->net, 0, obj_size - sizeof *r);
    r->net_used = 1;
    if (!__atomic_load_n(&shoal_ext_req_net_used, __ATOMIC_RELAXED))
        __atomic_store_n(&shoal_ext_req_net_used, 1, __ATOMIC_RELAXED);
}

/* A complete request (nothing pending, nothing merged) back to the calling
 * thread's list, clean for its next pop. */
static void release(struct shmemx_request *r)
{
    if (r->net_used) {
        shoal_net_req_release(shoal_request_net(r));
        r->net_used = 0;
    }
    __atomic_store_n(&r->failed, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&r->waiting, 0, __ATOMIC_RELAXED);
    shoal_request_push(r);
}

/* ---------------------------------------------------------------- checks */

_Noreturn void shoal_request_err_null(const char *fn, const char *arg)
{
    shoal_fatal(fn, "argument '%s' is a null pointer (pass the address of a shmemx_request_h)",
                arg);
}

/* SHMEM_DEBUG: is h one of our objects at all (before reading it)? */
static int ours(shmemx_request_h h)
{
    int found = h == SHOAL_REQUEST_DONE;
    pthread_mutex_lock(&chunk_lock);
    for (struct chunk *c = chunks; c && !found; c = c->older) {
        uintptr_t a = (uintptr_t)h, lo = (uintptr_t)c->objs;
        found = a >= lo && a < lo + c->obj_size * CHUNK_REQS && (a - lo) % c->obj_size == 0;
    }
    pthread_mutex_unlock(&chunk_lock);
    return found;
}

struct shmemx_request *shoal_request_check(shmemx_request_h h, const char *fn, const char *arg)
{
    if (shoal_g.debug && !ours(h))
        shoal_fatal(fn, "argument '%s' = %p is not a request handle of this PE", arg, (void *)h);
    uint32_t m = __atomic_load_n(&h->magic, __ATOMIC_ACQUIRE);
    if (m == SHOAL_REQ_LIVE)
        return h;
    /* (Every caller takes SHOAL_REQUEST_DONE before: a complete request is
     * never one to add to or wait on.) */
    if (m == SHOAL_REQ_DONE)
        shoal_fatal(fn, "internal error: argument '%s' = %p is the complete request", arg,
                    (void *)h);
    if (m == SHOAL_REQ_FREE)
        shoal_fatal(fn,
                    "argument '%s' = %p is a request that was already completed and freed "
                    "(by shmemx_request_wait, test or free)",
                    arg, (void *)h);
    if (m == SHOAL_REQ_MERGED)
        shoal_fatal(fn,
                    "argument '%s' = %p is a request that shmemx_merge_request merged into "
                    "another (use the merged handle)",
                    arg, (void *)h);
    shoal_fatal(fn, "argument '%s' = %p is not a request handle", arg, (void *)h);
}

static struct shmemx_request *live(shmemx_request_h h, const char *fn, const char *arg)
{
    if (SHOAL_UNLIKELY(shoal_g.debug || h->magic != SHOAL_REQ_LIVE))
        return shoal_request_check(h, fn, arg);
    return h;
}

/* ------------------------------------------------------------ completion */

static int own_done(struct shmemx_request *r, const char *fn)
{
    if (__atomic_load_n(&r->pending, __ATOMIC_ACQUIRE))
        return 0;
    return !r->net_used || shoal_net_req_test(shoal_request_net(r), fn);
}

/* One step towards completing r: progresses its network part and those of
 * the requests merged into it, releasing each that is done.  1 when r is
 * complete. */
static int step(struct shmemx_request *r, const char *fn)
{
    struct shmemx_request **link = &r->merged;
    while (*link) {
        struct shmemx_request *m = *link;
        if (own_done(m, fn)) {
            *link = m->next;
            r->failed |= m->failed;
            release(m);
        } else {
            link = &m->next;
        }
    }
    return own_done(r, fn) && r->merged == NULL;
}

static int anything_pending(struct shmemx_request *r)
{
    if (__atomic_load_n(&r->pending, __ATOMIC_RELAXED))
        return 1;
    for (struct shmemx_request *m = r->merged; m; m = m->next)
        if (__atomic_load_n(&m->pending, __ATOMIC_RELAXED))
            return 1;
    return 0;
}

/* Between steps: other engines' operations need the network progressed
 * (and active messages: a waiting thread runs handlers, and notices its
 * _nbe messages handled); after a short spin, let the thread we may wait
 * for run. */
static void backoff(unsigned *idle, const char *fn)
{
    /* Also with nothing of the network's here: a message this request
     * waits to see handled may need a peer's message (or its handler's
     * reply) that arrives only through this PE's network worker.  Without
     * an active network there is nothing to progress. */
    shoal_poll_network();
    shoal_ext_serve(fn);
    if (++*idle > 64)
        sched_yield();
}

/* r is complete: report a failed operation, then free it. */
static int finish(struct shmemx_request *r, shmemx_request_h *req)
{
    int failed = r->failed;
    *req = SHMEMX_REQUEST_NULL;
    release(r);
    return failed ? -1 : 0;
}

/* A handle that names no request object (NULL, or the complete request):
 * it is complete, and is set to NULL.  1 then; 0 for a request object. */
static int complete_without_object(shmemx_request_h *h)
{
    if (*h != SHMEMX_REQUEST_NULL && *h != SHOAL_REQUEST_DONE)
        return 0;
    *h = SHMEMX_REQUEST_NULL;
    return 1;
}

int shoal_request_test(shmemx_request_h *req, int *done, const char *fn)
{
    if (SHOAL_UNLIKELY(!req))
        shoal_request_err_null(fn, "req");
    if (SHOAL_UNLIKELY(!done))
        shoal_request_err_null(fn, "done");
    if (complete_without_object(req)) {
        *done = 1;
        return 0;
    }
    struct shmemx_request *r = live(*req, fn, "req");
    if (anything_pending(r))
        shoal_ext_serve(fn);
    *done = step(r, fn);
    if (*done)
        return finish(r, req);
    /* A program that tests in a loop is this PE's only progress: peers'
     * operations served by this PE's worker (atomics emulated over tcp,
     * their flushes) and messages to this PE must move, or both wait. */
    shoal_poll_network();
    return 0;
}

static void wait_one(struct shmemx_request *r, const char *fn)
{
    unsigned idle = 0;
    while (!step(r, fn))
        backoff(&idle, fn);
}

static void report_failure(const char *fn)
{
    shoal_fatal(fn, "an operation of the request failed");
}

void shoal_request_wait(shmemx_request_h *req, const char *fn)
{
    if (SHOAL_UNLIKELY(!req))
        shoal_request_err_null(fn, "req");
    /* (the complete request and the on-node-only one, complete at issue,
     * were taken by shoal_request_wait_fast before this) */
    if (complete_without_object(req))
        return;
    struct shmemx_request *r = live(*req, fn, "req");
    if (SHOAL_UNLIKELY(shoal_g.debug) && __atomic_exchange_n(&r->waiting, 1, __ATOMIC_ACQ_REL))
        shoal_fatal(fn,
                    "argument 'req' = %p: another thread is already waiting on this request "
                    "(one thread at a time may use a request)",
                    (void *)r);
    wait_one(r, fn);
    __atomic_store_n(&r->waiting, 0, __ATOMIC_RELEASE);
    if (finish(r, req))
        report_failure(fn);
}

void shoal_request_waitall(size_t n, shmemx_request_h *reqs, const char *fn)
{
    if (n && SHOAL_UNLIKELY(!reqs))
        shoal_request_err_null(fn, "reqs");
    for (size_t i = 0; i < n; i++)
        if (reqs[i] != SHMEMX_REQUEST_NULL && reqs[i] != SHOAL_REQUEST_DONE)
            (void)live(reqs[i], fn, "reqs");
    /* Round-robin, so that every request's flushes are in flight at once. */
    size_t left;
    unsigned idle = 0;
    do {
        left = 0;
        for (size_t i = 0; i < n; i++) {
            if (complete_without_object(&reqs[i]))
                continue;
            if (step(reqs[i], fn)) {
                if (finish(reqs[i], &reqs[i]))
                    report_failure(fn);
            } else {
                left++;
            }
        }
        if (left)
            backoff(&idle, fn);
    } while (left);
}

size_t shoal_request_waitany(size_t n, shmemx_request_h *reqs, const char *fn)
{
    if (n && SHOAL_UNLIKELY(!reqs))
        shoal_request_err_null(fn, "reqs");
    size_t live_n = 0;
    for (size_t i = 0; i < n; i++)
        if (reqs[i] != SHMEMX_REQUEST_NULL) {
            if (reqs[i] != SHOAL_REQUEST_DONE)
                (void)live(reqs[i], fn, "reqs");
            live_n++;
        }
    if (!live_n)
        return n; /* nothing to wait for */
    unsigned idle = 0;
    for (;;) {
        for (size_t i = 0; i < n; i++) {
            if (reqs[i] == SHOAL_REQUEST_DONE) {
                reqs[i] = SHMEMX_REQUEST_NULL;
                return i;
            }
            if (reqs[i] != SHMEMX_REQUEST_NULL && step(reqs[i], fn)) {
                if (finish(reqs[i], &reqs[i]))
                    report_failure(fn);
                return i;
            }
        }
        backoff(&idle, fn);
    }
}

/* ---------------------------------------------------------- alloc / free */

int shoal_request_alloc(const shmemx_request_params_t *params, shmemx_request_h *req,
                        const char *fn)
{
    if (SHOAL_UNLIKELY(!req))
        shoal_request_err_null(fn, "req");
    *req = SHMEMX_REQUEST_NULL;
    int how = params ? params->resource : SHMEMX_REQUEST_RESOURCE_DEFAULT;
    if (how != SHMEMX_REQUEST_RESOURCE_DEFAULT && how != SHMEMX_REQUEST_RESOURCE_DEDICATED &&
        how != SHMEMX_REQUEST_RESOURCE_SHARED)
        shoal_fatal(
            fn,
            "argument 'params->resource' = %d is not one of SHMEMX_REQUEST_RESOURCE_DEFAULT, "
            "_DEDICATED, _SHARED",
            how);
    struct shmemx_request *r = shoal_request_new(fn);
    if (how != SHMEMX_REQUEST_RESOURCE_DEFAULT && shoal_g.net_active &&
        shoal_net_req_reserve(shoal_request_net(r),
                              how == SHMEMX_REQUEST_RESOURCE_DEDICATED ? SHOAL_NET_REQ_OWN
                                                                       : SHOAL_NET_REQ_SHARE,
                              fn) < 0) {
        release(r);
        SHOAL_LOG(SHOAL_LOG_NET, SHOAL_LOG_DEBUG,
                  "%s: no free request worker for a dedicated request", fn);
        return 1;
    }
    *req = r;
    return 0;
}

/* Freeing completes the request first: its operations still owe their
 * effects, and its network resource cannot go back with them in flight. */
void shoal_request_free(shmemx_request_h *req, const char *fn)
{
    if (SHOAL_UNLIKELY(!req))
        shoal_request_err_null(fn, "req");
    if (complete_without_object(req))
        return;
    struct shmemx_request *r = live(*req, fn, "req");
    wait_one(r, fn);
    if (finish(r, req))
        report_failure(fn);
}

/* -------------------------------------------------------------- merging */

/* Checks merge's inputs before anything changes: fatal on a null pointer,
 * a request that is not live, 'merged' itself or one given twice.  Returns
 * how many inputs have operations of their own to take. */
static int merge_inputs(size_t count, shmemx_request_h **requests, shmemx_request_h *merged,
                        const struct shmemx_request *into, const char *fn)
{
    int real = 0;
    for (size_t i = 0; i < count; i++) {
        if (!requests[i])
            shoal_fatal(fn, "argument 'requests[%zu]' is a null pointer", i);
        shmemx_request_h h = *requests[i];
        if (h == SHMEMX_REQUEST_NULL)
            continue;
        int done = h == SHOAL_REQUEST_DONE;
        if (!done && SHOAL_UNLIKELY(shoal_g.debug || h->magic != SHOAL_REQ_LIVE)) {
            char arg[48]; /* the element, by its index */
            snprintf(arg, sizeof arg, "requests[%zu]", i);
            (void)shoal_request_check(h, fn, arg);
        }
        if (done ? requests[i] == merged : h == into)
            shoal_fatal(fn,
                        "argument 'requests[%zu]' is the request 'merged' itself: a request "
                        "cannot be merged into itself",
                        i);
        for (size_t j = 0; j < i; j++)
            if (done ? requests[j] == requests[i] : *requests[j] == h)
                shoal_fatal(
                    fn, "arguments 'requests[%zu]' and 'requests[%zu]' are the same request", j, i);
        real += !done;
    }
    return real;
}

/* h and what was merged into it join into's flat list; h is spent. */
static void merge_one(struct shmemx_request *into, struct shmemx_request *h)
{
    struct shmemx_request *tail = h;
    while (tail->next)
        tail = tail->next;
    tail->next = into->merged;
    into->merged = h;
    struct shmemx_request *kids = h->merged;
    h->merged = NULL;
    if (kids) {
        struct shmemx_request *kt = kids;
        while (kt->next)
            kt = kt->next;
        kt->next = into->merged;
        into->merged = kids;
    }
    __atomic_store_n(&h->magic, SHOAL_REQ_MERGED, __ATOMIC_RELEASE);
}

/* A handle holding SHOAL_REQUEST_DONE is a complete request of its own:
 * it adds nothing to the merge (its handle is set to NULL like the
 * others), and a merge that takes only such requests (or none) gives the
 * complete request too, without an object.  Being the complete request is
 * no identity: two handles may hold it, so "the same request" (merged
 * into itself, given twice) is then told by the handles' addresses. */
int shoal_request_merge(size_t count, shmemx_request_h **requests, shmemx_request_h *merged,
                        const char *fn)
{
    if (SHOAL_UNLIKELY(!merged))
        shoal_request_err_null(fn, "merged");
    if (count && SHOAL_UNLIKELY(!requests))
        shoal_request_err_null(fn, "requests");
    struct shmemx_request *into = NULL;
    if (*merged != SHMEMX_REQUEST_NULL && *merged != SHOAL_REQUEST_DONE)
        into = live(*merged, fn, "merged");
    int real = merge_inputs(count, requests, merged, into, fn);
    if (!into && !real) {
        /* Nothing to take: the result is complete (a request given as
         * 'merged' stays itself). */
        for (size_t i = 0; i < count; i++)
            *requests[i] = SHMEMX_REQUEST_NULL;
        *merged = shoal_g.debug ? shoal_request_new(fn) : SHOAL_REQUEST_DONE;
        return 0;
    }
    if (!into)
        into = shoal_request_new(fn);
    for (size_t i = 0; i < count; i++) {
        struct shmemx_request *h = *requests[i];
        if (h == SHMEMX_REQUEST_NULL)
            continue;
        *requests[i] = SHMEMX_REQUEST_NULL;
        if (h != SHOAL_REQUEST_DONE)
            merge_one(into, h);
    }
    *merged = into;
    return 0;
}

/* ------------------------------------------------------------- put-signal */

void shoal_put_signal_nbe(shmem_ctx_t ctx, void *dest, const void *src, size_t n,
                          uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                          shmemx_request_h *req, const char *fn)
{
    shoal_ctx_check(ctx, fn);
    int wpe = shoal_ctx_pe(ctx, pe, fn);
    if (SHOAL_UNLIKELY(sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD))
        shoal_fatal(fn, "argument 'sig_op' = %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD",
                    sig_op);
    int debug = shoal_g.debug;
    struct shmemx_request *r = shoal_request_handle(req, debug, fn);
    char *sig = shoal_addr(sig_addr, 8, wpe, fn, "sig_addr");
    if (SHOAL_UNLIKELY(debug))
        shoal_debug_check_align(sig_addr, 8, fn, "sig_addr");
    if (n) {
        char *rp = shoal_addr_n(dest, n, wpe, fn, "dest", "nelems");
        if (SHOAL_UNLIKELY(debug))
            shoal_debug_check_overlap(shoal_user_view(rp, dest, wpe), n, src, n, fn, "dest",
                                      "source");
        if (rp) {
            memcpy(rp, src, n); /* the signal below rings */
        } else {
            r = shoal_request_of(req, r, fn);
            shoal_net_req_put(shoal_request_net(r), dest, src, n, wpe, fn);
        }
    }
    int op = sig_op == SHMEM_SIGNAL_SET ? SHOAL_AMO_SET : SHOAL_AMO_ADD;
    if (sig && !shoal_g.amo_via_net) {
        /* The seq_cst atomic orders the data stores before the signal.
         * With the data on this node too, complete now (r NULL: no
         * request was taken above). */
        shoal_shm_amo(op, sig, 8, signal, 0, shoal_bell_of(wpe));
        shoal_request_complete(req, r, debug, fn);
        return;
    }
    r = shoal_request_of(req, r, fn);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    shoal_net_req_fence(shoal_request_net(r), fn);
    shoal_net_req_amo(shoal_request_net(r), op, NULL, sig_addr, 8, signal, 0, wpe, fn);
}

/* ------------------------------------------------- the debug-checked bodies */

void shoal_rma_nbe_debug(shmem_ctx_t ctx, int is_put, void *local, const void *remote, size_t n,
                         int pe, shmemx_request_h *req, const char *fn)
{
    shoal_rma_nbe_body(ctx, is_put, local, remote, n, pe, req, 1, fn);
}

/* The AMO's full path (ext/requests/request_ops.h): with SHMEM_DEBUG's checks or
 * without. */
__attribute__((noinline)) void shoal_amo_nbe_slow(shmem_ctx_t ctx, int op, void *fetch,
                                                  const void *dest, unsigned size, uint64_t value,
                                                  uint64_t cond, int pe, shmemx_request_h *req,
                                                  const char *fn)
{
    if (SHOAL_UNLIKELY(shoal_g.debug))
        shoal_amo_nbe_body(ctx, op, fetch, dest, size, value, cond, pe, req, 1, fn);
    else
        shoal_amo_nbe_body(ctx, op, fetch, dest, size, value, cond, pe, req, 0, fn);
}

/* ------------------------------------------------------------- teardown */

void shoal_request_teardown(void)
{
    pthread_mutex_lock(&chunk_lock);
    while (chunks) {
        struct chunk *c = chunks;
        chunks = c->older;
        free(c);
    }
    __atomic_store_n(&shoal_request_generation, shoal_request_generation + 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&chunk_lock);
    shoal_request_tl.free = NULL;
    __atomic_store_n(&shoal_ext_req_net_used, 0, __ATOMIC_RELAXED);
}
