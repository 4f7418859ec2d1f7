/* transport/ucx — the network path of the core (transport/net.h) over UCP.
 * Owns: the UCP context of this PE, the registration of the heap and the
 * static-data segment, the peers' published worker addresses and packed
 * remote keys, the workers of the contexts (one per context, pooled on
 * destroy; per-thread ones behind SHMEM_CTX_DEFAULT under
 * SHMEM_THREAD_MULTIPLE), lazily created endpoints and unpacked keys, the
 * target-side worker and the optional progress thread.
 * May call: UCX (libucp), boot/ (allgather, barrier, abort), libc, the
 * public <shmem.h> for its constants, and the contract headers of its own
 * layer, transport/net.h and transport/env_rows.h: nothing of core, whose
 * part comes through shoal_net_init's arguments and hooks (ucx_g).
 *
 * Its rooms stand on one another, as UCX's own ucs, uct and ucp do, so
 * that calls between them run one way (scripts/check_layers.py fails on
 * one that runs up or sideways, and on a circle across them):
 *  - base/ (ucx_base.h): the state ucx_g and a worker's, errors, waiting
 *    on requests and who progresses the target worker, endpoints and
 *    remote keys;
 *  - config/ (ucx_config.h): its variables;
 *  - signal/ (ucx_signal.h): collectives' signals and data as tagged
 *    messages;
 *  - this room, on top, which calls those three (none of them calls
 *    another) and registers at init the hooks through which a floor
 *    reaches up (ucx_g.target_progressed).
 * This room's files: ucx_ops.c (the transport's table of net.h's
 * functions, struct shoal_net_ops, which the rooms' ucx_net_* fill), ucx_init.c (context, registration, address/key
 * exchange, life cycle, describe: it calls the other files), ucx_worker_pool.c
 * (workers, pools, the default context's per-thread workers), ucx_rma.c
 * (put/get, fence/quiet), ucx_amo.c (atomics), ucx_progress.c (progress,
 * the progress thread), ucx_lanes.c (what the endpoints' lanes leave to
 * the CPUs), ucx_fds.c (the file descriptors a new worker needs, against
 * RLIMIT_NOFILE), ucx_posix_dir.c (whether UCX_POSIX_DIR, /dev/shm, is what
 * failed a worker), ucx_startup.c (UCX's grace for code patches, given back
 * after oshrun started the program without it), ucx_peek.c (looks at a
 * peer's word that never block), ucx_request.c (the workers of _nbe
 * requests), ucx_am.c (active messages: ucp_am_send_nbx, the target's
 * receive handler), ucx_fit.c (the devices SHOAL_TRANSPORTS=auto asks
 * about). */
#ifndef SHOAL_UCX_INTERNAL_H
#define SHOAL_UCX_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <ucp/api/ucp.h>

#include <shmem.h>

#include "transport/net.h"
#include "transport/ucx/base/ucx_base.h"
#include "transport/ucx/config/ucx_config.h"

/* A context's state.  `w` is the context's worker; NULL means "the calling
 * thread's worker" (SHMEM_CTX_DEFAULT under SHMEM_THREAD_MULTIPLE, see
 * ucx_worker_pool.c). */
struct shoal_net_ctx {
    struct ucx_worker *w;
    int per_thread;
};

/* ucx_worker_pool.c */
int ucx_worker_pool_init(void);
void ucx_worker_pool_fini(void);
struct ucx_worker *ucx_worker_get(ucs_thread_mode_t mode, const char *fn);
void ucx_worker_put(struct ucx_worker *w);
struct ucx_worker *ucx_thread_default_worker(const char *fn);
/* The calling thread's worker behind SHMEM_CTX_DEFAULT, or NULL. */
struct ucx_worker *ucx_thread_worker_if_any(void);
/* Applies f to every worker of the default context (quiet/fence). */
void ucx_default_workers_foreach(void (*f)(struct ucx_worker *, void *), void *arg);
void ucx_all_workers_foreach(void (*f)(struct ucx_worker *, void *), void *arg);
struct ucx_worker *ucx_all_workers_head(void);
void ucx_describe_workers(FILE *f, const char *prefix);

/* The worker of context state `n` for the calling thread. */
static inline struct ucx_worker *ucx_ctx_worker(struct shoal_net_ctx *n, const char *fn)
{
    if (UCX_UNLIKELY(ucx_g.forked))
        ucx_forked_child(fn);
    struct ucx_worker *w = n->w;
    if (UCX_LIKELY(w != NULL))
        return w;
    return ucx_thread_default_worker(fn);
}

/* The target worker's own endpoints, for collectives' signals and
 * exchanges (ucx_worker_pool.c); fini before the target worker goes. */
struct ucx_worker *ucx_target_sender(const char *fn);
struct ucx_worker *ucx_target_sender_if_any(void);
void ucx_target_sender_fini(void);
/* ucx_rma.c: flush its endpoints (all: even if it sent nothing since the
 * last flush). */
void ucx_target_sender_flush(int all, const char *fn);

/* ucx_rma.c: remote completion is owed for something posted to `pe`
 * (quiet flushes the endpoints that owe it, or the whole worker when there
 * are many). */
#define UCX_FLUSH_EPS_MAX 32
/* What a peer's mark says: only blocking puts that UCX completed later
 * than at once (WAITED), or anything else (POSTED). */
#define UCX_MARK_WAITED 1
#define UCX_MARK_POSTED 2
void ucx_mark_dirty_slow(struct ucx_worker *w, int pe, unsigned char mark);
/* Marks only grow (WAITED < POSTED) until a flush clears them. */
static inline void ucx_mark_dirty_as(struct ucx_worker *w, int pe, unsigned char mark)
{
    /* Read after the operation is posted: a flush that cleared the mark
     * before this load was issued after the operation (ucx_rma.c). */
    if (UCX_LIKELY(__atomic_load_n(&w->ep_dirty[pe], __ATOMIC_SEQ_CST) >= mark))
        return;
    ucx_mark_dirty_slow(w, pe, mark);
}
static inline void ucx_mark_dirty(struct ucx_worker *w, int pe)
{
    ucx_mark_dirty_as(w, pe, UCX_MARK_POSTED);
}

/* ucx_lanes.c: at init, after the exchange (collective): sw_emulated,
 * amo_via_net and tls_note from real endpoints' lanes.  0 or -1. */
int ucx_lanes_decide(void);
/* At finalize, before the target worker goes: the probes' endpoints. */
void ucx_lanes_fini(void);

/* ucx_progress.c: the progress thread. */
int ucx_progress_thread_start(void); /* at init: from sw_emulated, runs it or not */
int ucx_progress_thread_run(void);
void ucx_progress_thread_stop(void);
/* ucx_rma.c: completes what w's endpoints owe (quiet's flush). */
void ucx_flush_worker(struct ucx_worker *w, const char *fn);

/* Posted operations, not waited for (nbi and request operations): their
 * completion comes with a flush of the endpoint (ucx_rma.c, ucx_amo.c). */
void ucx_post_put(struct ucx_worker *w, void *dest, const void *src, size_t n, int pe,
                  const char *fn);
void ucx_post_get(struct ucx_worker *w, void *dest, const void *src, size_t n, int pe,
                  const char *fn);
void ucx_post_amo(struct ucx_worker *w, int op, void *fetch, const void *dest, unsigned size,
                  uint64_t value, uint64_t cond, int pe, const char *fn);
/* The same get and AMO, marked for the flush like the posted ones, but
 * returning UCP's request (NULL: done, or an error pointer): the get's
 * data, or a fetching AMO's old value, is in place when it completes,
 * without a flush (a request waits for that rather than flushing, which
 * over tcp costs a second round trip). */
ucs_status_ptr_t ucx_start_get(struct ucx_worker *w, void *dest, const void *src, size_t n, int pe,
                               const char *fn);
ucs_status_ptr_t ucx_start_amo(struct ucx_worker *w, int op, void *fetch, const void *dest,
                               unsigned size, uint64_t value, uint64_t cond, int pe,
                               const char *fn);

/* ucx_peek.c: shoal_net_peek's looks in flight (init after the exchange;
 * fini before the workers go, release after). */
int ucx_peek_init(void);
void ucx_peek_fini(void);
void ucx_peek_release(void);

/* ucx_request.c: the workers of explicit non-blocking requests. */
void ucx_request_pool_fini(void);
void ucx_request_flush_final(const char *fn); /* before the final barrier */
void ucx_describe_requests(FILE *f, const char *prefix);
/* The progress thread's share while the application computes: progress
 * the request workers held by requests with operations outstanding (MULTI
 * workers only); 1 when there were some. */
int ucx_request_progress(void);
/* ucx_am.c: active messages arrive at the target worker (its receive
 * handler hands them to core through the am_arrived hook). */
/* Whether this PE takes UCP's active messages (SHOAL_UCX_AM, and for auto
 * the version of the UCX library loaded), before the context is made. */
int ucx_am_wanted(void);
/* Whether the UCX library loaded takes UCP's message features (active
 * messages, tags): from 1.13 on, and before 1.22 only with one rendezvous
 * lane, which ucx_multi_rail_off says to set (ucx_am.c). */
int ucx_am_version_good(void);
int ucx_multi_rail_off(void);
int ucx_am_setup(char *err, size_t errlen);
/* The line shmem-info prints about it. */
void ucx_am_describe(FILE *f, const char *prefix, int initialized);

/* net.h's functions (struct shoal_net_ops, ucx_ops.c), by file: */
/* ucx_init.c */
int ucx_net_init(const struct shoal_net_init_args *a, struct shoal_net_init_result *out, char *err,
                 size_t errlen);
void ucx_net_fini(void);
void ucx_net_set_thread_level(int level);
const char *ucx_net_built(void);
/* ucx_fit.c: for SHOAL_TRANSPORTS=auto (net.h's fabric_fit). */
int ucx_net_fabric_fit(char *why, size_t len);
void ucx_net_describe(FILE *f, const char *prefix, int initialized);
/* ucx_worker_pool.c */
int ucx_net_ctx_open(struct shoal_net_ctx **net, int is_default, int private_ctx, int serialized,
                     const char *fn);
void ucx_net_ctx_close(struct shoal_net_ctx *n);
void ucx_net_worker_counts(long *created, long *in_use, long *reused);
/* ucx_progress.c */
int ucx_net_progress(void);
void ucx_net_idle(void);
int ucx_net_helper_thread(const char *name, size_t len);
/* ucx_rma.c */
void ucx_net_put(struct shoal_net_ctx *ctx, void *dest, const void *src, size_t n, int pe, int nbi,
                 const char *fn);
void ucx_net_get(struct shoal_net_ctx *ctx, void *dest, const void *src, size_t n, int pe, int nbi,
                 const char *fn);
void ucx_net_flush_signals(struct shoal_net_ctx *n, const char *fn);
void ucx_net_quiet(struct shoal_net_ctx *n);
void ucx_net_fence(struct shoal_net_ctx *ctx);
/* ucx_amo.c */
uint64_t ucx_net_amo(struct shoal_net_ctx *ctx, int op, const void *dest, unsigned size,
                     uint64_t value, uint64_t cond, int pe, const char *fn);
void ucx_net_amo_nbi(struct shoal_net_ctx *ctx, int op, void *fetch, const void *dest,
                     unsigned size, uint64_t value, uint64_t cond, int pe, const char *fn);
void ucx_net_signal(struct shoal_net_ctx *ctx, uint64_t *word, uint64_t value, int pe,
                    const char *fn);
int ucx_net_signal_data(struct shoal_net_ctx *ctx, uint64_t *word, uint64_t value, void *dest,
                        const void *src, size_t n, int pe, const char *fn);
void ucx_net_coll_send(struct shoal_net_ctx *ctx, uint64_t tag, const void *src, size_t n, int pe,
                       int exchange, const char *fn);
void ucx_net_coll_recv(uint64_t tag, void *buf, const struct shoal_net_coll_rx *rx);
int ucx_net_coll_waiting(uint64_t tag, uint64_t mask, uint64_t *found);
/* ucx_am.c */
int ucx_net_am_send(struct shoal_net_ctx *net, int pe, int tag, unsigned ctr, const void *payload,
                    size_t len, const char *fn);
void ucx_net_am_release(struct shoal_net_am_msg *m);
/* ucx_peek.c */
int ucx_net_peek(int pe, const void *addr, uint32_t *value, int connect, const char *fn);
int ucx_net_wired(int pe);
int ucx_net_look_start(void *dest, const void *src, size_t n, int pe, int connect, const char *fn);
int ucx_net_look_test(int ticket, const char *fn);
/* ucx_request.c */
size_t ucx_net_req_size(void);
int ucx_net_req_reserve(struct shoal_net_req *r, int how, const char *fn);
void ucx_net_req_put(struct shoal_net_req *r, void *dest, const void *src, size_t n, int pe,
                     const char *fn);
void ucx_net_req_get(struct shoal_net_req *r, void *dest, const void *src, size_t n, int pe,
                     const char *fn);
void ucx_net_req_amo(struct shoal_net_req *r, int op, void *fetch, const void *dest, unsigned size,
                     uint64_t value, uint64_t cond, int pe, const char *fn);
void ucx_net_req_fence(struct shoal_net_req *r, const char *fn);
int ucx_net_req_test(struct shoal_net_req *r, const char *fn);
void ucx_net_req_release(struct shoal_net_req *r);
void ucx_net_req_quiet_all(const char *fn);

#endif
