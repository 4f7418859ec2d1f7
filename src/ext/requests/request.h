/* ext/requests/request.h — explicit non-blocking operations with request
 * handles (shmemx _nbe, docs/requests.md).  A request is an object of this
 * extension that carries the transport's part (struct shoal_net_req,
 * transport/net.h: on UCX a worker of the request pool) and, after shmemx_merge_request, the
 * requests merged into it.  It is complete when its own network part is,
 * when every request merged into it is, and when no operation of another
 * engine that joined it (shoal_request_add_pending) is still pending.
 *
 * On this node an operation completes at issue (load/store, CPU atomics):
 * it only makes sure the handle is live, and given a NULL handle it stores
 * the complete request SHOAL_REQUEST_DONE there instead of taking an object
 * (below).  Over the network it is posted on the request's resource.
 * Requests come from a per-thread free list, so threads with their own
 * requests share no lock on the path that issues, tests or waits for them.
 *
 * Its room, ext/requests/: request.c (objects, free lists, test/wait/merge,
 * the entry point for other engines' pending operations), request_ops.h
 * (the inline _nbe operations the generated wrappers call).
 * May call: core (state, errors, the addressing of ops.h, the extension
 * hooks' serve for its waits: core/ext_hooks.h), the shm transport, and
 * the network through transport/net.h; never ext/am (which calls it). */
#ifndef SHOAL_EXT_REQUEST_H
#define SHOAL_EXT_REQUEST_H

#include <shmemx.h>

#include "core/config/error.h"
#include "transport/net.h"
#include "core/state.h"

#define SHOAL_REQ_LIVE 0x5e9e5701u
#define SHOAL_REQ_MERGED 0x5e9e5702u /* merged into another: the handle is spent */
#define SHOAL_REQ_FREE 0x5e9e5700u
#define SHOAL_REQ_DONE 0x5e9e5703u /* the shared complete request (SHOAL_REQUEST_DONE) */

struct shmemx_request {
    uint32_t magic;
    int net_used;                     /* its network part is set up (at its first use) */
    int waiting;                      /* SHMEM_DEBUG: a thread waits on it (atomic) */
    unsigned long pending;            /* operations of other engines not yet done (atomic) */
    int failed;                       /* one of them failed (atomic) */
    struct shmemx_request *merged;    /* the requests merged into this one (flat list) */
    struct shmemx_request *next;      /* in a merged list, or a free list */
    _Alignas(16) unsigned char net[]; /* struct shoal_net_req (shoal_net_req_size bytes) */
};

/* The request of an operation that completed at issue (on this node)
 * given a NULL handle: one shared, read-only object instead of one from the
 * free list, which cost more than the operation (mt_rate req fetch-add:
 * 0.80x ctx).  A handle holding it is a complete request: test reports it
 * done, wait/waitall/waitany/free set the handle to NULL, merge takes
 * nothing from it, and an operation that joins it is on its own (a network
 * one takes a real request then, stored in place of it).  It is recognised
 * by its address before any field is read (its magic, SHOAL_REQ_DONE, is
 * not LIVE: a path that took it for a request would stop at the checks),
 * and it is never written (const: a write would fault).  Hidden, so that
 * its address is an operand, not a GOT load (wait compares with it).
 * Under SHMEM_DEBUG
 * operations take real requests, so that a stale copy of a handle is
 * still caught as freed or merged. */
extern const struct shmemx_request shoal_request_done __attribute__((visibility("hidden")));
#define SHOAL_REQUEST_DONE ((struct shmemx_request *)&shoal_request_done)

/* The first request operation that goes through the network sets core's
 * shoal_ext_req_net_used (core/ext_hooks.h): from then on quiet and fence
 * also cover the request workers (core/ops.c). */

/* The first network operation of a request sets up its network part (a
 * request that stays on this node never touches it). */
void shoal_request_net_begin(struct shmemx_request *r);

/* r's network part, for an operation that goes through the network. */
static inline struct shoal_net_req *shoal_request_net(struct shmemx_request *r)
{
    if (SHOAL_UNLIKELY(!r->net_used))
        shoal_request_net_begin(r);
    return (struct shoal_net_req *)(void *)r->net;
}

/* The slow paths of shoal_request_join: a new request, and the checks of
 * a handle that is not live (or any handle under SHMEM_DEBUG). */
struct shmemx_request *shoal_request_new(const char *fn);
struct shmemx_request *shoal_request_check(shmemx_request_h h, const char *fn, const char *arg);
_Noreturn void shoal_request_err_null(const char *fn, const char *arg);

/* The calling thread's free list (request.c), inline on the paths that
 * start and end a request.  initial-exec TLS: the general model costs a
 * call into the dynamic linker at each access.  `generation` is the
 * library's at the time the list was filled: a list from before the last
 * finalize is stale (its chunks are gone). */
struct shoal_request_tls {
    struct shmemx_request *free;
    unsigned generation;
};
extern __thread struct shoal_request_tls shoal_request_tl
    __attribute__((tls_model("initial-exec")));
extern unsigned shoal_request_generation;

/* A fresh request from the list, or NULL (then shoal_request_new).  Every
 * object on a list is clean (all fields zero but magic and next; see
 * shoal_request_push), so taking one writes two words. */
static inline struct shmemx_request *shoal_request_pop(void)
{
    struct shmemx_request *r = shoal_request_tl.free;
    if (SHOAL_UNLIKELY(!r || shoal_request_tl.generation !=
                                 __atomic_load_n(&shoal_request_generation, __ATOMIC_RELAXED)))
        return NULL;
    shoal_request_tl.free = r->next;
    r->next = NULL;
    __atomic_store_n(&r->magic, SHOAL_REQ_LIVE, __ATOMIC_RELEASE);
    return r;
}

/* A complete request back to the list.  The caller leaves it clean:
 * net_used, waiting, pending and failed zero, nothing merged into it. */
static inline void shoal_request_push(struct shmemx_request *r)
{
    __atomic_store_n(&r->magic, SHOAL_REQ_FREE, __ATOMIC_RELEASE);
    if (shoal_request_tl.generation != __atomic_load_n(&shoal_request_generation, __ATOMIC_RELAXED))
        return;
    r->next = shoal_request_tl.free;
    shoal_request_tl.free = r;
}

/* wait's fast path: a request complete at issue (SHOAL_REQUEST_DONE), or
 * one with only on-node operations, is freed at once.  1 when done, 0:
 * take the full path. */
static inline int shoal_request_wait_fast(shmemx_request_h *req)
{
    struct shmemx_request *r;
    if (SHOAL_LIKELY(req != NULL && (r = *req) == SHOAL_REQUEST_DONE)) {
        /* What the completion of an on-node request below orders (its
         * acquire load and release store; on x86 the compiler's only). */
        __atomic_thread_fence(__ATOMIC_ACQ_REL);
        *req = SHMEMX_REQUEST_NULL;
        return 1;
    }
    /* (SHMEM_DEBUG first: it checks that a handle is ours before reading it.)
     * magic is read on its own: the compiler would otherwise read it with
     * net_used as one 8-byte word, which cannot be forwarded from pop's
     * 4-byte store just before, and a request per operation then stalled
     * here (mt_rate req fetch on this node: 83% of wait's time). */
    if (SHOAL_UNLIKELY(shoal_g.debug || !req || !(r = *req) ||
                       __atomic_load_n(&r->magic, __ATOMIC_RELAXED) != SHOAL_REQ_LIVE ||
                       r->net_used || r->merged || __atomic_load_n(&r->pending, __ATOMIC_ACQUIRE) ||
                       __atomic_load_n(&r->failed, __ATOMIC_RELAXED)))
        return 0;
    *req = SHMEMX_REQUEST_NULL;
    shoal_request_push(r);
    return 1;
}

/* A fresh request (the calling thread's list, else shoal_request_new). */
static inline struct shmemx_request *shoal_request_fresh(const char *fn)
{
    struct shmemx_request *r = shoal_request_pop();
    return SHOAL_LIKELY(r != NULL) ? r : shoal_request_new(fn);
}

/* The live request an operation's handle names, checked; NULL when the
 * handle is SHMEMX_REQUEST_NULL or SHOAL_REQUEST_DONE (there is no request
 * to add to: the operation takes one if it must, shoal_request_complete or
 * shoal_request_of).  `debug`: SHMEM_DEBUG's checks, constant at each call
 * site: the _nbe operations test shoal_g.debug once, before everything, and
 * take a separate path (each branch here shows in nbe_rate on this node:
 * with a second debug test, _nbe fetch-add ran at 0.96x blocking; without,
 * 1.00x). */
static inline struct shmemx_request *shoal_request_handle(shmemx_request_h *req, int debug,
                                                          const char *fn)
{
    if (SHOAL_UNLIKELY(req == NULL))
        shoal_request_err_null(fn, "req");
    struct shmemx_request *r = *req;
    if (r == NULL || r == SHOAL_REQUEST_DONE)
        return NULL;
    if (SHOAL_UNLIKELY(debug || r->magic != SHOAL_REQ_LIVE))
        return shoal_request_check(r, fn, "req");
    return r;
}

/* An operation whose handle gave r (shoal_request_handle) completed at
 * issue: a NULL handle becomes (and SHOAL_REQUEST_DONE stays) the complete
 * request; under SHMEM_DEBUG a real one, whose checks then follow the
 * handle's copies. */
static inline void shoal_request_complete(shmemx_request_h *req, struct shmemx_request *r,
                                          int debug, const char *fn)
{
    if (r == NULL)
        *req = debug ? shoal_request_fresh(fn) : SHOAL_REQUEST_DONE;
}

/* An operation whose handle gave r goes on: the request it joins, a new
 * one (stored into *req, over SHOAL_REQUEST_DONE too) when r is NULL. */
static inline struct shmemx_request *shoal_request_of(shmemx_request_h *req,
                                                      struct shmemx_request *r, const char *fn)
{
    if (SHOAL_LIKELY(r != NULL))
        return r;
    return *req = shoal_request_fresh(fn);
}

/* The request an operation joins: *req, or a new one when *req is
 * SHMEMX_REQUEST_NULL or SHOAL_REQUEST_DONE (stored back into *req).  For
 * operations that cannot complete at issue (other engines'). */
static inline struct shmemx_request *shoal_request_join(shmemx_request_h *req, const char *fn)
{
    return shoal_request_of(req, shoal_request_handle(req, SHOAL_OPS_DEBUG, fn), fn);
}

/* ---- The internal entry point for other engines (active messages, a
 * copy thread): one more operation of request `r`, completed later by
 * shoal_request_op_done(r, status) from any thread (status 0: success).
 * Until then test reports r incomplete and wait keeps the network
 * progressing (shoal_net_progress).  A failed operation makes test return
 * nonzero and wait end the job with the routine's name. */
static inline void shoal_request_add_pending(struct shmemx_request *r)
{
    __atomic_fetch_add(&r->pending, 1, __ATOMIC_RELAXED);
}
static inline void shoal_request_op_done(struct shmemx_request *r, int status)
{
    if (status)
        __atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
    __atomic_fetch_sub(&r->pending, 1, __ATOMIC_RELEASE);
}

/* The routines of shmemx.h (request.c). */
int shoal_request_alloc(const shmemx_request_params_t *params, shmemx_request_h *req,
                        const char *fn);
void shoal_request_free(shmemx_request_h *req, const char *fn);
int shoal_request_test(shmemx_request_h *req, int *done, const char *fn);
void shoal_request_wait(shmemx_request_h *req, const char *fn);
void shoal_request_waitall(size_t n, shmemx_request_h *reqs, const char *fn);
size_t shoal_request_waitany(size_t n, shmemx_request_h *reqs, const char *fn);
int shoal_request_merge(size_t count, shmemx_request_h **requests, shmemx_request_h *merged,
                        const char *fn);
/* At the last finalize, after the network is gone: drop every request. */
void shoal_request_teardown(void);

#endif
