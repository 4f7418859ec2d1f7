/* transport/ucx/base — the floor the rest of transport/ucx stands on, as
 * UCX's ucs stands under uct and ucp: the transport's state (ucx_g, the
 * worker's state), its errors (ucx_state.c), waiting on UCP's requests and
 * who progresses the target worker (ucx_wait.c), and endpoints with their
 * remote keys (ucx_ep.c).
 * May call: UCX, boot/ (the owner check, the abort), libc, the contract
 * header transport/net.h (core's hooks, kept in ucx_g.hooks); nothing else
 * of transport/ucx.  Where it needs the rooms above, they register a hook
 * at init (ucx_g.target_progressed: signal/'s reposts). */
#ifndef SHOAL_UCX_BASE_H
#define SHOAL_UCX_BASE_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <ucp/api/ucp.h>

#include "transport/net.h"

#define UCX_LIKELY(x) __builtin_expect(!!(x), 1)

/* CLOCK_MONOTONIC in ns: the clock of waits, looks and their timeouts. */
static inline uint64_t ucx_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
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
    /* After each progress of the target worker, by whoever holds it (NULL:
     * nothing): set at init by the room that needs it (signal/'s reposts). */
    void (*target_progressed)(void);
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

/* ucx_state.c */
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

/* ucx_ep.c */
ucp_ep_h ucx_ep_wire(struct ucx_worker *w, int pe, const char *fn);
/* The same where failing to connect is an answer, not an error (a look at
 * a peer that may have left): NULL. */
ucp_ep_h ucx_ep_try(struct ucx_worker *w, int pe, const char *fn);
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

/* ucx_wait.c */
/* Waits for a request returned by a UCP call; progresses the worker (and
 * the target side, so that two PEs blocked on each other both advance).
 * Fatal on error, naming `pe` (or -1 for no single peer). */
void ucx_wait(struct ucx_worker *w, ucs_status_ptr_t req, const char *fn, int pe, const char *what);
/* The same, calling check(arg) every few ms once the wait is slow. */
void ucx_wait_check(struct ucx_worker *w, ucs_status_ptr_t req, const char *fn, int pe,
                    const char *what, void (*check)(void *), void *arg);
/* A request still pending a second into its wait (ucx_wait, the _nbe
 * requests' tests) asks the core whether its peer is still there, every
 * 200 ms at most (net.h's peer_watch; -1: several peers). */
#define UCX_WATCH_AFTER_NS 1000000000u
void ucx_peer_watch(int pe, const char *fn, const char *what);
/* Posted and forgotten: the request is released, flush completes it. */
static inline void ucx_forget(ucs_status_ptr_t req, const char *fn, int pe, const char *what)
{
    if (UCX_UNLIKELY(UCS_PTR_IS_ERR(req)))
        ucx_die(fn, pe, what, UCS_PTR_STATUS(req));
    if (req != NULL)
        ucp_request_free(req);
}
unsigned ucx_progress_target(void); /* what ucp_worker_progress handled */
/* net.h's attend (ucx_wait.c) and leaving (ucx_ep.c), the floor's part of
 * the ops table (ucx_ops.c). */
void ucx_net_attend(void);
void ucx_net_leaving(void);
/* One thread at a time progresses the target worker (why: ucx_wait.c);
 * the progress thread takes it with these too. */
extern int ucx_target_busy;
static inline int ucx_target_take(void)
{
    return !__atomic_load_n(&ucx_target_busy, __ATOMIC_RELAXED) &&
           !__atomic_exchange_n(&ucx_target_busy, 1, __ATOMIC_ACQUIRE);
}
static inline void ucx_target_give(void)
{
    __atomic_store_n(&ucx_target_busy, 0, __ATOMIC_RELEASE);
}
/* Whoever progressed the target worker, still holding it: the rooms
 * above have their say (ucx_g.target_progressed). */
static inline void ucx_target_progressed(void)
{
    if (ucx_g.target_progressed)
        ucx_g.target_progressed();
}

#endif
