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
 * Files: ucx_init.c (context, registration, address/key exchange, life
 * cycle, describe), ucx_worker_pool.c (workers, pools, the default
 * context's per-thread workers), ucx_ep.c (lazy endpoints and rkeys, error
 * callback), ucx_rma.c (put/get, fence/quiet), ucx_amo.c (atomics),
 * ucx_progress.c (waits on requests, progress, the progress thread),
 * ucx_lanes.c (what the endpoints' lanes leave to the CPUs),
 * ucx_fds.c (the file descriptors a new worker needs, against
 * RLIMIT_NOFILE), ucx_startup.c (UCX's grace for code patches, given back
 * after oshrun started the program without it),
 * rooms config/ (its variables) and signal/ (collectives' signals as
 * tagged messages),
 * ucx_am.c (active messages: ucp_am_send_nbx, the target's receive handler). */
#ifndef SHOAL_UCX_INTERNAL_H
#define SHOAL_UCX_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <ucp/api/ucp.h>

#include <shmem.h>

#include "transport/net.h"
#include "transport/ucx/config/ucx_config.h"

#define UCX_LIKELY(x) __builtin_expect(!!(x), 1)
#define UCX_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* One initiator worker: what a context issues its operations on.  Its
 * endpoints and unpacked remote keys live as long as the worker, so a
 * pooled worker comes back already wired to the peers it talked to. */
struct ucx_worker {
    ucp_worker_h h;
    ucs_thread_mode_t mode;       /* as created: pools are per mode */
    ucp_ep_h *eps;                /* [n_pes], NULL until first use */
    ucp_rkey_h *rkeys;            /* [2 * n_pes]: heap, static data */
    pthread_mutex_t wire_lock;    /* MULTI worker: lazy wire-up, the marks below */
    pthread_mutex_t flush_lock;   /* MULTI worker: one flush at a time (ucx_rma.c) */
    int dirty;                    /* something posted since the last flush */
    int signalled;                /* shoal_net_signal since the last whole flush */
    unsigned char *ep_dirty;      /* [n_pes]: posted to that peer since the last flush:
                                   * UCX_MARK_WAITED, or UCX_MARK_POSTED (ucx_rma.c) */
    unsigned char *ep_wired;      /* [n_pes]: a signal to that peer was flushed once */
    int *dirty_pes;               /* [UCX_FLUSH_EPS_MAX] the peers with ep_dirty set */
    int n_dirty;                  /* > UCX_FLUSH_EPS_MAX: flush the whole worker */
    int id;                       /* creation order, for messages */
    int thread_owned;             /* a per-thread default-ctx worker that has an owner */
    int is_target;                /* the target worker's sender (ucx_target_sender) */
    uint64_t sink;                /* reply of a SET (swap) nobody reads */
    struct ucx_worker *next;      /* pool link */
    struct ucx_worker *all_next;  /* list of every worker (teardown) */
    struct ucx_worker *dflt_next; /* the default context's workers */
};

/* A context's state.  `w` is the context's worker; NULL means "the calling
 * thread's worker" (SHMEM_CTX_DEFAULT under SHMEM_THREAD_MULTIPLE, see
 * ucx_worker_pool.c). */
struct shoal_net_ctx {
    struct ucx_worker *w;
    int per_thread;
};

struct ucx_state {
    ucp_context_h ctx;
    ucp_mem_h mh[2];     /* heap, static data (NULL if none) */
    ucp_worker_h target; /* the one published worker: peers' endpoints connect here */
    ucs_thread_mode_t target_mode;
    int n_pes, me, mode;
    int thread_level;      /* SHMEM_THREAD_* (raised by a nested init) */
    int amo_via_net;       /* decided at init (shoal_net_init_result) */
    uintptr_t seg_base[2]; /* this PE's heap and static data */
    size_t seg_len[2];
    struct shoal_net_ctx *dflt;              /* SHMEM_CTX_DEFAULT's state */
    const struct shoal_net_init_args *hooks; /* mapped, writes_arrived, waiters_asleep, fatal */
    /* Per peer (from the allgather). */
    const void **peer_addr;        /* [n] worker addresses */
    const void **peer_rkey;        /* [2n] packed keys (NULL: segment absent) */
    uint64_t *peer_base;           /* [2n] segment base addresses */
    unsigned char *peer_same_host; /* [n] on this machine */
    char *blob;                    /* storage of the above */
    int cpu_atomics;               /* UCX_ATOMIC_MODE=cpu */
    int sw_emulated;               /* RMA or AMO need the target's progress */
    int am_here;                   /* UCP_FEATURE_AM and the receive handler on this PE */
    int am;                        /* ... on every PE: messages go by ucp_am_send_nbx */
    int tag_here;                  /* UCP_FEATURE_TAG on this PE (signals as messages) */
    int signal_msgs;               /* ... on every PE: collectives' signals as tagged messages */
    int coll_msgs;                 /* every PE takes tags: collectives' data as messages */
    char tls_note[512];            /* what the self endpoint uses, for describe */
    /* Configuration (core/config/env_table.h). */
    int progress_thread_cfg; /* -1 auto, 0 off, 1 on */
    long progress_interval_us;
    int dflt_policy; /* enum ucx_dflt_policy or N > 0 */
    /* Progress thread. */
    int progress_on;
    pthread_t progress_tid;
    volatile int progress_stop;
    unsigned long progress_wakeups;
    int app_polled; /* an application thread polled the target since the progress thread looked */
    /* Life. */
    volatile int finalizing;
    volatile int leaving;     /* shoal_net_leaving: peers may close their endpoints */
    long owner_pid;           /* the process that opened UCX */
    volatile int forked;      /* set in a forked child (pthread_atfork) */
    uint64_t peer_timeout_ns; /* SHOAL_PEER_TIMEOUT (0: never) */
    struct shoal_boot *boot;
    /* Worker counters (shmemx_net_worker_counts). */
    long n_created, n_in_use, n_reused;
};
extern struct ucx_state ucx_g;

/* ucx_init.c */
_Noreturn void ucx_die(const char *fn, int pe, const char *what, ucs_status_t st);
/* Peer `pe`'s host name, for messages ("?" when unknown). */
const char *ucx_host_of(int pe);
/* A forked child of this PE must not touch UCX (its workers and
 * connections belong to the parent): fatal, naming the parent. */
_Noreturn void ucx_forked_child(const char *fn);
/* Errors through core's hooks: one line naming the routine, then the job
 * ends (fatal) or goes on (warn). */
_Noreturn void ucx_fatalf(const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ucx_warnf(const char *fn, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

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

/* ucx_ep.c */
ucp_ep_h ucx_ep_wire(struct ucx_worker *w, int pe, const char *fn);
void ucx_ep_close_all(struct ucx_worker *w);
/* Closes `ep` of worker `wk` without a handshake (nothing is pending on it,
 * and the peer may be gone), progressing wk until it is closed. */
void ucx_ep_close_force(ucp_ep_h ep, ucp_worker_h wk);
/* An endpoint of `wk` to `pe` outside any worker's table, or NULL: used
 * once at init to see which lanes UCX picks. */
ucp_ep_h ucx_probe_ep(ucp_worker_h wk, int pe);
/* Remote address and key of `addr` (a symmetric address of this PE) on
 * `pe`, through w's endpoint to pe (created on first use). */
static inline ucp_ep_h ucx_ep(struct ucx_worker *w, int pe, const char *fn)
{
    ucp_ep_h ep = __atomic_load_n(&w->eps[pe], __ATOMIC_ACQUIRE);
    if (UCX_LIKELY(ep != NULL))
        return ep;
    return ucx_ep_wire(w, pe, fn);
}
static inline ucp_rkey_h ucx_target(struct ucx_worker *w, int pe, const void *addr, uint64_t *raddr)
{
    uintptr_t a = (uintptr_t)addr;
    size_t off = a - ucx_g.seg_base[0];
    int seg = 0;
    if (off >= ucx_g.seg_len[0]) {
        off = a - ucx_g.seg_base[1];
        seg = 1;
    }
    *raddr = ucx_g.peer_base[2 * pe + seg] + off;
    return w->rkeys[2 * pe + seg];
}

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

/* ucx_progress.c */
/* Waits for a request returned by a UCP call; progresses the worker (and
 * the target side, so that two PEs blocked on each other both advance).
 * Fatal on error, naming `pe` (or -1 for no single peer). */
void ucx_wait(struct ucx_worker *w, ucs_status_ptr_t req, const char *fn, int pe, const char *what);
/* A request waited a whole SHOAL_PEER_TIMEOUT while its worker saw fewer
 * than this many events (UCX's keepalive rounds make a few): fatal,
 * naming the peer (-1: several) and its host. */
#define UCX_ALIVE_EVENTS 16u
_Noreturn void ucx_timed_out(const char *fn, int pe, const char *what);
/* Posted and forgotten: the request is released, flush completes it. */
static inline void ucx_forget(ucs_status_ptr_t req, const char *fn, int pe, const char *what)
{
    if (UCX_UNLIKELY(UCS_PTR_IS_ERR(req)))
        ucx_die(fn, pe, what, UCS_PTR_STATUS(req));
    if (req != NULL)
        ucp_request_free(req);
}
unsigned ucx_progress_target(void); /* what ucp_worker_progress handled */
/* ucx_lanes.c: at init, after the exchange (collective): sw_emulated,
 * amo_via_net and tls_note from real endpoints' lanes.  0 or -1. */
int ucx_lanes_decide(void);
/* At finalize, before the target worker goes: the probes' endpoints. */
void ucx_lanes_fini(void);

int ucx_progress_thread_start(void); /* at init: from sw_emulated, runs it or not */
int ucx_progress_thread_run(void);
void ucx_progress_thread_stop(void);
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

#endif
