/* transport/ofi — the network path of the core (transport/net.h) over
 * libfabric (OFI), chosen at run time by SHOAL_TRANSPORTS=ofi or shm,ofi.
 * Owns: the provider chosen for the job (fi_getinfo: reliable datagram
 * endpoints with RMA and atomics, FI_PROVIDER honoured), its fabric,
 * domain and address vector, the registration of the heap and the static
 * data segment with every peer's key and base, the target endpoint
 * through which peers reach this PE, and the endpoints of the contexts
 * (one per context, pooled on destroy; one per thread behind the default
 * context under SHMEM_THREAD_MULTIPLE), each with its own completion
 * queue and put and get counters.
 * May call: libfabric, boot/ (allgather, barrier), libc, and the contract
 * headers of its layer, transport/net.h and transport/env_rows.h: nothing
 * of core, whose part comes through shoal_net_init's arguments and hooks
 * (ofi_g.hooks).
 *
 * Only the API that libfabric 1.x and 2.x share: mr_mode bits, never the
 * FI_MR_BASIC / FI_MR_SCALABLE names.
 *
 * Files: ofi_ops.c (the table of net.h's functions), ofi_init.c (life
 * cycle, shmem-info's lines), ofi_lib.c (libfabric loaded at init), ofi_provider.c (choosing the provider and
 * opening fabric, domain, address vector and target endpoint, with the
 * checks of its atomics), ofi_mr.c (registration and the exchange of keys
 * and addresses), ofi_ep.c (endpoints, the contexts' pool),
 * ofi_thread_ep.c (the default context's endpoints per thread), ofi_wait.c
 * (waiting on counters, retries of -FI_EAGAIN, progress, errors),
 * ofi_rma.c (put, get, quiet, fence), ofi_amo.c (atomics, signals),
 * ofi_amo_emul.c (atomics the provider lacks, by compare-and-swap),
 * ofi_modes.c (FI_MR_LOCAL and FI_CONTEXT2 where the provider asks),
 * ofi_auto.c and ofi_auto_rule.c (SHOAL_TRANSPORTS=auto's look and rule),
 * ofi_peek.c (looks at a peer that never block), ofi_request.c
 * (the network part of _nbe requests), ofi_msgs.c, ofi_signal.c,
 * ofi_coll_msg.c and ofi_am.c (collectives' signals and data and active
 * messages as tagged messages: ofi_msgs.h), ofi_misc.c (core's progress
 * hook), ofi_progress.c (the progress thread, where progress is manual;
 * the endpoints that post, progressed by every wait), ofi_rxd.c (around
 * ofi_rxd's fetching atomics). */
#ifndef SHOAL_OFI_INTERNAL_H
#define SHOAL_OFI_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "transport/net.h"

#define OFI_LIKELY(x) __builtin_expect(!!(x), 1)
#define OFI_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The libfabric API version Shoal asks for: 1.5 has every call used here,
 * and 2.x still accepts it. */
#define OFI_API_VERSION FI_VERSION(1, 5)

/* A set of peers (which a flush must reach): a flag per PE and the list
 * of those set, under the owner's lock. */
struct ofi_peers {
    unsigned char *on; /* [n_pes] */
    int *list;         /* [n_pes] */
    int n;
};

/* An endpoint of this PE with what counts its operations: a context's,
 * the requests', or the one peeks use.  Every operation counts in a
 * counter: puts and non-fetching atomics in `put`, gets and fetching
 * atomics in `get`; `*_posted` counts what was posted, raised before the
 * post (so that completions never outnumber it), and the endpoint is
 * quiet when a counter read reaches the count read after it.  Counters do
 * not say which operation completed: an operation waited for by itself
 * (a blocking get or AMO) asks for a completion entry with its own
 * struct ofi_op as context (FI_COMPLETION; the queue is selective), and
 * whoever reads the queue marks it done.  Reading the queue also reports
 * errors and drives the provider's progress. */
/* An operation waited for by itself: the context of its completion entry. */
struct ofi_op {
    struct fi_context2 fi_ctx; /* first: the provider's, where it asks for FI_CONTEXT(2) */
    int done;                  /* set (release) by whoever read its entry */
    int err;                   /* its error (FI_E*), 0 on success */
};

/* A local buffer's registration, where the provider asks for FI_MR_LOCAL
 * (ofi_modes.c): what to hand to libfabric (`at`: the buffer, or a slot
 * of the endpoint's bounce area standing in for it), its descriptor, the
 * range that covers, and the region registered for this operation alone
 * (NULL: a segment's, the endpoint's own, or none). */
enum ofi_local_use {
    OFI_LOCAL_IN,   /* a blocking operation's source: may be copied to a bounce slot */
    OFI_LOCAL_OUT,  /* a blocking operation's destination: may land in one, copied out */
    OFI_LOCAL_HOLD, /* a non-blocking operation's: its registration held until a quiet */
    OFI_LOCAL_KEEP, /* the caller's until ofi_local_done (a peek's) */
};
struct ofi_local {
    void *at, *user;
    size_t n;
    void *desc;
    uintptr_t base;
    size_t len;
    struct fid_mr *mr;
    int use;  /* enum ofi_local_use */
    int slot; /* the bounce slot + 1, or 0 (none) */
};

struct ofi_ep {
    struct fid_ep *ep;
    struct fid_cq *cq;
    struct fid_cntr *put, *get;
    uint64_t put_posted, get_posted; /* atomic */
    uint64_t errs_seen;              /* the counters' errors already reported */
    pthread_mutex_t lock;            /* the peer sets */
    struct ofi_peers dirty;          /* written since the last flush (quiet, fence) */
    struct ofi_peers signalled;      /* signals since the last flush_signals */
    /* [0]: where the flushes' reads land, [1]: their (unused) operand;
     * registered as own_mr where local buffers need it. */
    uint64_t flush_words[2];
    /* FI_CONTEXT(2) and FI_MR_LOCAL, where the provider asks (ofi_modes.c):
     * contexts of counted operations, ticket t in slot t % ctx_slots, and
     * registrations of non-blocking operations' buffers, kept until a
     * quiet; all counts only grow. */
    struct fi_context2 *ctx_ring;
    uint64_t ctx_slots, ctx_taken, ctx_free; /* atomic */
    uint64_t ctx_posting;                    /* atomic: reserved, not yet counted */
    struct fid_mr *own_mr;
    unsigned char *bounce; /* OFI_BOUNCE_SLOTS of OFI_BOUNCE_SIZE bytes, registered */
    struct fid_mr *bounce_mr;
    unsigned bounce_busy; /* atomic: a bit per slot taken */
    pthread_mutex_t held_lock;
    struct fid_mr **held; /* [held_cap], entries held_freed..held_total-1 (mod cap) */
    uint64_t held_total, held_freed, held_cap;
    struct ofi_ep *next_sender; /* on the senders' list (ofi_progress.c) */
    int enlisted;
};

/* A context's state: its endpoint; pooled when the context goes.
 * `per_thread`: SHMEM_CTX_DEFAULT under SHMEM_THREAD_MULTIPLE, whose
 * threads each post on an endpoint of their own (ofi_thread_ep.c); then
 * `ctx_ep` is never opened.  Reach it only through ofi_ctx_ep. */
struct shoal_net_ctx {
    struct ofi_ep ctx_ep;
    struct shoal_net_ctx *next_free;
    int per_thread;
};

/* How this PE's writes are known to be visible at their target. */
enum ofi_remote_completion {
    OFI_RC_READ,     /* a read of each written peer after the writes (ofi_rma.c) */
    OFI_RC_DELIVERY, /* the provider completes writes at delivery */
};

struct ofi_state {
    const struct shoal_net_init_args *hooks;
    struct shoal_boot *boot;
    int me, n_pes, mode, thread_level;
    uint64_t peer_timeout_ns;
    /* The provider and its resources. */
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct ofi_ep target; /* peers' operations arrive through it */
    int manual_progress;  /* data progress is the application's */
    int rc_mode;          /* enum ofi_remote_completion */
    int inject_atomics;   /* non-blocking atomics injected (else waited for) */
    int fetch_guard;      /* ofi_rxd: fetching atomics posted as ofi_rxd.c says */
    int mr_local;         /* local buffers need descriptors (FI_MR_LOCAL, or assumed) */
    int op_ctx;           /* operations need a struct fi_context2 (FI_CONTEXT(2), or assumed) */
    int modes_assumed;    /* ... because SHOAL_OFI_ASSUME_MODES says so (testing) */
    size_t inject_size, max_msg;
    /* This PE's segments (heap, static data) and every peer's. */
    uintptr_t seg_base[2];
    size_t seg_len[2];
    struct fid_mr *mr[2];
    uint64_t *peer_key;  /* [2 * pe + s] */
    uint64_t *peer_base; /* [2 * pe + s]: added to the offset (0: offset addressing) */
    /* Contexts' endpoints. */
    pthread_mutex_t pool_lock;
    struct shoal_net_ctx *free_ctx;
    long n_created, n_in_use, n_reused;
    int leaving;         /* in shmem_finalize: peers may close their connections */
    long owner_pid;      /* the PE's process (a forked child is another) */
    volatile int forked; /* set in a forked child (pthread_atfork) */
    char why_chosen[160];
};
extern struct ofi_state ofi_g;

/* ofi_lib.c: libfabric's exported functions, loaded at init (the rest
 * are the headers' inline calls through its objects' tables). */
struct ofi_lib {
    void *handle;
    int in_process_before; /* another part of the program had loaded it */
    int (*getinfo)(uint32_t version, const char *node, const char *service, uint64_t flags,
                   const struct fi_info *hints, struct fi_info **info);
    void (*freeinfo)(struct fi_info *info);
    struct fi_info *(*dupinfo)(const struct fi_info *info);
    int (*fabric)(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
    uint32_t (*version)(void);
    const char *(*strerror)(int errnum);
};
extern struct ofi_lib ofi_lib;
/* Loads libfabric (once); 0 or -1 with a message. */
int ofi_lib_open(char *err, size_t errlen);
/* fi_strerror, or libc's before libfabric is loaded. */
const char *ofi_strerror(int errnum);
/* The signals' dispositions, kept across what loads libfabric and opens
 * its providers (their libraries' constructors set handlers). */
struct ofi_signals {
    struct sigaction act[NSIG];
};
void ofi_signals_save(struct ofi_signals *saved);
void ofi_signals_restore(const struct ofi_signals *saved);

/* ofi_provider.c: chooses and opens (fabric, domain, av, target endpoint,
 * atomics checked); 0 or -1 with a message. */
int ofi_provider_open(char *err, size_t errlen);
/* The fi_getinfo hints of what Shoal needs, with data progress
 * `progress`; NULL when out of memory. */
struct fi_info *ofi_provider_hints(enum fi_progress progress);
void ofi_provider_close(void);
/* ofi_mr.c: registers the segments and exchanges keys, bases and the
 * target endpoints' names (collective); 0 or -1 with a message. */
int ofi_mr_exchange(char *err, size_t errlen);
void ofi_mr_close(void);

/* ofi_ep.c: an endpoint bound to the address vector, with its queue and
 * counters (counters: 0 for the target's and the peeks', which use their
 * queue); 0 or -1 with a message. */
int ofi_ep_open(struct ofi_ep *e, int counters, char *err, size_t errlen);
void ofi_ep_close(struct ofi_ep *e);
void ofi_ctx_pool_fini(void);
/* ofi_thread_ep.c: the calling thread's endpoint behind SHMEM_CTX_DEFAULT
 * (made or taken from a thread that exited, at its first use; fatal when
 * none can be opened); every such endpoint, for quiet and flush_signals;
 * their release at finalize. */
struct ofi_ep *ofi_thread_ep_get(const char *fn);
void ofi_thread_eps_foreach(void (*f)(struct ofi_ep *, const char *), const char *fn);
void ofi_thread_eps_fini(void);
/* The endpoint through which the calling thread posts on context `net`. */
static inline struct ofi_ep *ofi_ctx_ep(struct shoal_net_ctx *net, const char *fn)
{
    return OFI_LIKELY(!net->per_thread) ? &net->ctx_ep : ofi_thread_ep_get(fn);
}
/* f on every endpoint behind `net`: its own, or every thread's. */
static inline void ofi_ctx_eps_foreach(struct shoal_net_ctx *net,
                                       void (*f)(struct ofi_ep *, const char *), const char *fn)
{
    if (OFI_LIKELY(!net->per_thread))
        f(&net->ctx_ep, fn);
    else
        ofi_thread_eps_foreach(f, fn);
}

/* ofi_wait.c */
/* Fatal (through core's hook): `what` to `pe` (-1: several) failed with
 * libfabric's return code rc. */
_Noreturn void ofi_die(const char *fn, int pe, const char *what, ssize_t rc);
_Noreturn void ofi_fatalf(const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A forked child of this PE must not touch the PE's endpoints (shared
 * with its parent after fork): fatal, naming the parent. */
_Noreturn void ofi_forked_child(const char *fn);
/* Reads e's queue (progress, and errors: fatal). */
void ofi_ep_poll(struct ofi_ep *e, const char *fn);
/* Progress of the target endpoint: peers' operations on this PE. */
int ofi_progress_target(void);
/* A turn of a wait that found nothing yet: progress, then, past a short
 * spin, yield, tell the hang report, and a second in ask the core whether
 * the peer is still there. */
struct ofi_slow {
    uint64_t t0, next_watch;
    int noted;
};
void ofi_slow_turn(struct ofi_slow *s, struct ofi_ep *e, const char *fn, int pe, const char *what);
void ofi_slow_end(struct ofi_slow *s);
/* Posts `call` (an expression of libfabric's return code), counted in
 * *posted first, again while the provider answers -FI_EAGAIN (rxm opens
 * connections on demand); fatal on any other error. */
#define OFI_POST(e, posted, call, fn, pe, what)                \
    do {                                                       \
        ssize_t rc_;                                           \
        struct ofi_slow slow_ = {0, 0, 0};                     \
        if (OFI_UNLIKELY(ofi_g.forked))                        \
            ofi_forked_child(fn);                              \
        for (;;) {                                             \
            __atomic_fetch_add((posted), 1, __ATOMIC_SEQ_CST); \
            rc_ = (call);                                      \
            if (rc_ != -FI_EAGAIN)                             \
                break;                                         \
            __atomic_fetch_sub((posted), 1, __ATOMIC_SEQ_CST); \
            ofi_slow_turn(&slow_, (e), (fn), (pe), (what));    \
        }                                                      \
        ofi_slow_end(&slow_);                                  \
        if (OFI_UNLIKELY(rc_ != 0))                            \
            ofi_die((fn), (pe), (what), rc_);                  \
    } while (0)
/* Waits for one operation posted with `op` as its context. */
void ofi_wait_op(struct ofi_ep *e, struct ofi_op *op, const char *fn, int pe, const char *what);
/* Waits until every operation posted on e before the call is complete. */
void ofi_wait_quiet(struct ofi_ep *e, const char *fn, int pe, const char *what);
/* The same without blocking (progresses e once): 1 when they are. */
int ofi_is_quiet(struct ofi_ep *e, const char *fn);

/* ofi_progress.c: the progress thread, where progress is manual (0, or
 * -1 with a message); stopped before the endpoints close. */
int ofi_progress_thread_start(char *err, size_t errlen);
void ofi_progress_thread_stop(void);
/* With manual progress, an endpoint's own operations move only while its
 * queue or counters are read: every endpoint that posts is listed, and
 * core's waits and the progress thread read them all. */
void ofi_progress_enlist(struct ofi_ep *e);
void ofi_progress_delist(struct ofi_ep *e);
void ofi_progress_senders(void);

/* ofi_rma.c */
/* The peer's address and key for this PE's symmetric address `addr`. */
void ofi_target(const void *addr, int pe, uint64_t *raddr, uint64_t *key, const char *fn);
/* The same, -1 (not fatal) for an address in no segment. */
int ofi_target_try(const void *addr, int pe, uint64_t *raddr, uint64_t *key);
void ofi_post_put(struct ofi_ep *e, void *dest, const void *src, size_t n, int pe, const char *fn);
void ofi_post_get(struct ofi_ep *e, void *dest, const void *src, size_t n, int pe, const char *fn);
/* A get on e that returns once the data is in dest. */
void ofi_get_blocking(struct ofi_ep *e, void *dest, const void *src, size_t n, int pe,
                      const char *fn);
/* Posts the reads that make e's writes to the peers of `set` visible
 * (OFI_RC_READ; nothing for OFI_RC_DELIVERY), emptying the set. */
void ofi_flush_post(struct ofi_ep *e, struct ofi_peers *set, const char *fn);
void ofi_flush_read(struct ofi_ep *e, int pe, const char *fn);
void ofi_ep_quiet(struct ofi_ep *e, const char *fn);
void ofi_peers_add(struct ofi_ep *e, struct ofi_peers *set, int pe);

/* ofi_amo.c */
/* Checks that the provider does every operation Shoal asks on 4- and
 * 8-byte words (ep: an enabled endpoint); 0 or -1 with a message. */
int ofi_amo_check(struct fid_ep *ep, char *err, size_t errlen);
void ofi_post_amo(struct ofi_ep *e, int op, void *fetch, const void *dest, unsigned size,
                  uint64_t value, uint64_t cond, int pe, const char *fn);
/* A blocking AMO that the provider does; returns the old value. */
uint64_t ofi_amo_blocking(struct ofi_ep *e, int op, const void *dest, unsigned size, uint64_t value,
                          uint64_t cond, int pe, const char *fn);
/* Which (operation, size) the provider does itself, [op][size == 8] (set
 * by ofi_amo_check): the others are emulated. */
extern unsigned char ofi_amo_native[SHOAL_AMO_XOR + 1][2];
/* "fetch-add" for SHOAL_AMO_FADD; NULL past the last operation. */
const char *ofi_amo_name(int op);
/* ofi_amo_emul.c: `op` (not compare-swap) by compare-and-swap over the
 * network, complete at return; returns the old value. */
uint64_t ofi_amo_emulate(struct ofi_ep *e, int op, const void *dest, unsigned size, uint64_t value,
                         int pe, const char *fn);
/* shmem-info's line: which atomics are emulated. */
void ofi_amo_describe(FILE *f, const char *prefix);

/* ofi_rxd.c: is `i` ofi_rxd, whose fetching atomics need the guard; the
 * guard, before each fetching atomic on e to pe (the AMO is then waited
 * for). */
int ofi_rxd_fetch_guard(const struct fi_info *i);
void ofi_rxd_before_fetch(struct ofi_ep *e, int pe, const char *fn);
/* ofi_modes.c: FI_MR_LOCAL and FI_CONTEXT / FI_CONTEXT2. */
/* What candidate `i` asks for, with SHOAL_OFI_ASSUME_MODES. */
void ofi_modes_note(const struct fi_info *i);
/* A counting endpoint's ring and own registration; 0 or -1 with a message. */
int ofi_modes_ep_open(struct ofi_ep *e, char *err, size_t errlen);
void ofi_modes_ep_close(struct ofi_ep *e);
/* Room in e's ring for `need` more counted operations (waits for quiet
 * when there is none); before the posts. */
void ofi_ctx_room(struct ofi_ep *e, uint64_t need, const char *fn);
/* The context of one counted operation (NULL where none is needed),
 * taken before OFI_POST (kept through its retries); ofi_ctx_posted after
 * it. */
void *ofi_ctx_reserve(struct ofi_ep *e, const char *fn);
void ofi_ctx_posted(struct ofi_ep *e, const void *ctx);
/* Whether ctx is a slot of e's ring (an error entry of a counted op). */
int ofi_ctx_in_ring(const struct ofi_ep *e, const void *ctx);
/* What a quiet that follows may release: read before the counters. */
struct ofi_modes_mark {
    uint64_t ctx_taken, held_total;
};
void ofi_modes_mark(struct ofi_ep *e, struct ofi_modes_mark *m);
/* The counters reached the counts read after the mark: release. */
void ofi_modes_quiet(struct ofi_ep *e, const struct ofi_modes_mark *m);
/* What to hand to libfabric for n bytes at buf, and its registration
 * (buf itself and no descriptor where FI_MR_LOCAL is off); `use`: enum
 * ofi_local_use. */
void ofi_local_get(struct ofi_ep *e, const void *buf, size_t n, int use, struct ofi_local *l,
                   const char *fn);
/* After the post (HOLD, or an injected IN) or the completion: copies a
 * bounced OUT back, frees its slot, closes or holds what was made. */
void ofi_local_done(struct ofi_ep *e, struct ofi_local *l);
/* l's descriptor for n bytes at buf, checked where FI_MR_LOCAL is on:
 * fatal when it does not cover them (a local buffer left unregistered). */
void *ofi_desc(const struct ofi_local *l, const void *buf, size_t n, const char *fn);
/* The access flags of the segments' registration. */
uint64_t ofi_modes_seg_access(void);
void ofi_modes_describe(FILE *f, const char *prefix);

/* ofi_peek.c */
int ofi_peek_init(char *err, size_t errlen);
void ofi_peek_fini(void);

/* ofi_request.c */
void ofi_request_fini(void);

/* net.h's functions (struct shoal_net_ops, ofi_ops.c), by file: */
/* ofi_init.c */
int ofi_net_init(const struct shoal_net_init_args *a, struct shoal_net_init_result *out, char *err,
                 size_t errlen);
void ofi_net_fini(void);
void ofi_net_set_thread_level(int level);
void ofi_net_describe(FILE *f, const char *prefix, int initialized);
const char *ofi_net_built(void);
/* ofi_auto.c */
int ofi_net_fabric_fit(char *why, size_t len);
struct shoal_env_layer *ofi_net_env_layer(void);
void ofi_net_leaving(void);
/* ofi_ep.c */
int ofi_net_ctx_open(struct shoal_net_ctx **net, int is_default, int private_ctx, int serialized,
                     const char *fn);
void ofi_net_ctx_close(struct shoal_net_ctx *net);
void ofi_net_worker_counts(long *created, long *in_use, long *reused);
/* ofi_rma.c */
void ofi_net_put(struct shoal_net_ctx *net, void *dest, const void *src, size_t n, int pe, int nbi,
                 const char *fn);
void ofi_net_get(struct shoal_net_ctx *net, void *dest, const void *src, size_t n, int pe, int nbi,
                 const char *fn);
void ofi_net_quiet(struct shoal_net_ctx *net);
void ofi_net_fence(struct shoal_net_ctx *net);
/* ofi_amo.c */
uint64_t ofi_net_amo(struct shoal_net_ctx *net, int op, const void *dest, unsigned size,
                     uint64_t value, uint64_t cond, int pe, const char *fn);
void ofi_net_amo_nbi(struct shoal_net_ctx *net, int op, void *fetch, const void *dest,
                     unsigned size, uint64_t value, uint64_t cond, int pe, const char *fn);
void ofi_net_signal(struct shoal_net_ctx *net, uint64_t *word, uint64_t value, int pe,
                    const char *fn);
void ofi_net_flush_signals(struct shoal_net_ctx *net, const char *fn);

/* ofi_peek.c */
int ofi_net_peek(int pe, const void *addr, uint32_t *value, int connect, const char *fn);
int ofi_net_wired(int pe);
int ofi_net_look_start(void *dest, const void *src, size_t n, int pe, int connect, const char *fn);
int ofi_net_look_test(int ticket, const char *fn);
/* ofi_misc.c */
int ofi_net_progress(void);
void ofi_net_idle(void);
void ofi_net_attend(void);
int ofi_net_helper_thread(const char *name, size_t len);
/* ofi_signal.c, ofi_coll_msg.c */
int ofi_net_signal_data(struct shoal_net_ctx *net, uint64_t *word, uint64_t value, void *dest,
                        const void *src, size_t n, int pe, const char *fn);
void ofi_net_coll_send(struct shoal_net_ctx *net, uint64_t tag, const void *src, size_t n, int pe,
                       int exchange, const char *fn);
void ofi_net_coll_recv(uint64_t tag, void *buf, const struct shoal_net_coll_rx *rx);
int ofi_net_coll_waiting(uint64_t tag, uint64_t mask, uint64_t *found);
/* ofi_am.c */
int ofi_net_am_send(struct shoal_net_ctx *net, int pe, int tag, unsigned ctr, const void *payload,
                    size_t len, const char *fn);
void ofi_net_am_release(struct shoal_net_am_msg *m);
/* ofi_request.c */
size_t ofi_net_req_size(void);
int ofi_net_req_reserve(struct shoal_net_req *r, int how, const char *fn);
void ofi_net_req_put(struct shoal_net_req *r, void *dest, const void *src, size_t n, int pe,
                     const char *fn);
void ofi_net_req_get(struct shoal_net_req *r, void *dest, const void *src, size_t n, int pe,
                     const char *fn);
void ofi_net_req_amo(struct shoal_net_req *r, int op, void *fetch, const void *dest, unsigned size,
                     uint64_t value, uint64_t cond, int pe, const char *fn);
void ofi_net_req_fence(struct shoal_net_req *r, const char *fn);
int ofi_net_req_test(struct shoal_net_req *r, const char *fn);
void ofi_net_req_release(struct shoal_net_req *r);
void ofi_net_req_quiet_all(const char *fn);

#endif
