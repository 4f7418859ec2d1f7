/* transport/net.h — the whole contract between core and a network transport
 * (transport/ucx: UCP, a worker per context; transport/ofi: libfabric;
 * transport/none: no network, where PEs off this node have no route),
 * owned by the layer that implements it, so that no include runs upward.
 * What core calls when the target PE is not reachable by load/store
 * (another node, or every peer under SHOAL_TRANSPORTS=ucx or ofi), and the
 * transport's life cycle.
 *
 * One build may hold several transports; the job chooses one at init
 * (SHOAL_TRANSPORTS names it, or "auto" takes the one that fits this
 * machine's fabric best: fabric_fit, net_select.c), every PE the same.  Each transport exports a const table of its
 * functions (struct shoal_net_ops, below); the calls of this header
 * dispatch through the chosen one (`shoal_net_ops`), so core names no
 * transport and holds no branch for one.
 *
 * A transport includes this header (and its own) only: core hands it at
 * init everything it needs (struct shoal_net_init_args: the bootstrap,
 * this PE's segments, the thread level, which PEs are mapped, and the
 * hooks through which it reaches up), and it answers with its decisions
 * (struct shoal_net_init_result).  It never reads or writes core's state,
 * and never calls this header's dispatching functions itself (its own
 * functions directly).
 *
 * Every operation works on the context's own transport state (struct
 * shoal_net_ctx, opaque to core, each transport's own): operations on one
 * context are issued and completed independently of every other context.
 * `pe` is a world PE; addresses are this PE's symmetric addresses (the
 * transport translates them with the peer's remote keys). */
#ifndef SHOAL_TRANSPORT_NET_H
#define SHOAL_TRANSPORT_NET_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct shoal_boot;
struct shoal_net_ctx;
struct shoal_net_am_msg;
struct shoal_net_coll_rx;
struct shoal_net_req;
struct shoal_env_layer;

/* Which peers the network serves (SHOAL_TRANSPORTS). */
enum shoal_net_mode {
    SHOAL_NET_OFF,    /* "shm": on-node peers only */
    SHOAL_NET_REMOTE, /* "shm,ucx", "auto": load/store on this node, the network beyond */
    SHOAL_NET_ALL,    /* "ucx", "ofi": every peer, this PE included, through the network */
};

/* The atomic operations (on 4- or 8-byte words; narrower ones are the
 * transport's business). */
enum shoal_amo_op {
    SHOAL_AMO_FETCH, /* returns *dest */
    SHOAL_AMO_SET,   /* *dest = value */
    SHOAL_AMO_CSWAP, /* if *dest == cond: *dest = value; returns old */
    SHOAL_AMO_SWAP,
    SHOAL_AMO_FADD, /* fetch-and-add; inc is add 1 */
    SHOAL_AMO_ADD,
    SHOAL_AMO_FAND,
    SHOAL_AMO_AND,
    SHOAL_AMO_FOR,
    SHOAL_AMO_OR,
    SHOAL_AMO_FXOR,
    SHOAL_AMO_XOR,
};

struct shoal_net_init_args {
    struct shoal_boot *boot; /* rank, size, allgather, barrier, abort */
    int mode;                /* enum shoal_net_mode */
    const char *transport;   /* the network SHOAL_TRANSPORTS names ("ucx", "ofi"), "": any */
    int remote;              /* PEs not reachable by load/store */
    int thread_level;        /* SHMEM_THREAD_*; raised later by shoal_net_set_thread_level */
    void *seg_base[2];       /* this PE's heap and static data (NULL, 0: absent); */
    size_t seg_len[2];       /* every PE's are at the same addresses */
    int (*mapped)(int pe);   /* is world PE `pe` reachable by load/store? */
    /* Hooks into core (and, through core, into the extension layer). */
    void (*writes_arrived)(void); /* remote writes were applied here: wake local waiters */
    int (*waiters_asleep)(void);  /* are local waiters asleep (not progressing)? */
    void (*fatal)(const char *fn, const char *msg); /* report and end the job: never returns */
    void (*warn)(const char *fn, const char *msg);
    /* Active messages (ext/am/am.h; core passes on the hooks the extension
     * layer registered, core/ext_hooks.h: NULL without one): a message
     * arrived (the transport keeps `m` until shoal_net_am_release), and
     * "run pending handlers" for the progress thread (returns how many
     * ran; the transport tests it for NULL). */
    void (*am_arrived)(struct shoal_net_am_msg *m);
    size_t (*am_run)(void);
    /* Where the peers are (core/memory/pe_card.h): does `pe` share this
     * PE's node (kernel and namespaces: UCX may reach it through shared
     * memory, which cannot report a dead peer), and its host name, which
     * every message about a peer names. */
    int (*same_node)(int pe);
    const char *(*host_of)(int pe);
    /* A thread blocks in the transport on a request to `pe` (-1: several
     * peers), past a short spin: the hang report names it (the calls
     * nest with core's own waits; `what` is a static text). */
    void (*net_blocked)(const char *fn, int pe, const char *what);
    /* A collective's message (shoal_net_coll_send) to `pe` still waits for
     * its receiver to take it: the core looks for signs that the members
     * are in different collectives, fatal if it finds them.  Every few ms. */
    void (*coll_send_waits)(uint64_t tag, int pe, const char *fn);
    /* A collective's message tagged `tag` brought `got` bytes where its
     * receive wants `want` (got > want: more, cut): the members' calls
     * differ; the core reports it from the thread that waits for it (this
     * may run in the transport's callback, on its progress thread). */
    void (*coll_msg_size)(uint64_t tag, size_t got, size_t want, const char *fn);
    void (*net_unblocked)(void);
    /* A request to `pe` (-1: several peers) is still blocked a second into
     * its wait: the core asks whether the peer is still there (its process,
     * and its host at the TCP level: core/waiting/peer_reach.h), never
     * blocking, and ends the job naming the peer when it is not.  Silence
     * of the network is no sign of death (the peer may compute without
     * progressing, or be stopped in a debugger); call it every few ms at
     * most. */
    void (*peer_watch)(int pe, const char *fn, const char *what);
    /* SHOAL_PEER_TIMEOUT in ns (0: never): the transport's own checks of a
     * host or link (keepalive, connection set-up) are set to notice within
     * it; a peer that answers at the transport's level is never dead. */
    uint64_t peer_timeout_ns;
};

struct shoal_net_init_result {
    int active;      /* the transport serves some peer (contexts need its state) */
    int amo_via_net; /* every AMO of the job goes through it, this PE's own included
                        (its atomics need not be coherent with CPU atomics) */
    int coll_msgs;   /* every PE takes collectives' messages (shoal_net_coll_send) */
    int signal_data; /* shoal_net_signal_data carries data to every peer (up to 224 bytes) */
};

/* A receive in flight of a collective's message (coll_recv): once the
 * message is in buf, *counter grows by 1 (release) and waiters asleep are
 * woken (writes_arrived).  The caller keeps *rx until then; a message of
 * another size than `len` goes to the hook coll_msg_size (then counts as
 * arrived), or is fatal, naming fn. */
struct shoal_net_coll_rx {
    uint64_t *counter;
    size_t len;
    const char *fn;
    uint64_t tag; /* the receive's (for coll_msg_size) */
};

/* An active message that arrived (am_send, am_release below): ext/am
 * keeps it in its inbox until its handler ran. */
struct shoal_net_am_msg {
    struct shoal_net_am_msg *next; /* ext/am's inbox link */
    const void *payload;           /* valid once `ready` (rendezvous data comes later) */
    size_t len;
    int src, tag; /* sender (world PE), tag */
    unsigned ctr; /* the sender's completion counter */
    int ready;    /* set (release) by the transport when the payload is there */
};

/* How well a transport fits the fabric of this machine (fabric_fit):
 * "auto" takes the best, the build's order (ucx, then ofi) breaking ties. */
enum shoal_net_fit {
    SHOAL_FIT_GENERIC, /* TCP or shared memory only */
    SHOAL_FIT_DEVICE,  /* a fabric device it drives (UCX: InfiniBand, RoCE; libfabric: verbs) */
    SHOAL_FIT_NATIVE,  /* a fabric whose own provider it has (libfabric: cxi, efa, opx, psm*) */
    SHOAL_FIT_USER,    /* the user chose it (FI_PROVIDER is set) */
};

/* How a request takes its network resource (req_reserve). */
enum { SHOAL_NET_REQ_OWN = 1, SHOAL_NET_REQ_SHARE = 2 };

/* A transport: its name as SHOAL_TRANSPORTS spells it, and its functions. */
struct shoal_net_ops {
    const char *name;
    /* ------------------------------------------------------ life cycle
     * Called once at init, after the segments are mapped and before any
     * context exists, by every PE (collective: it may use the bootstrap's
     * allgather to exchange addresses and keys).  Returns 0 with its
     * decisions in *out, or -1 with a message. */
    int (*init)(const struct shoal_net_init_args *args, struct shoal_net_init_result *out,
                char *err, size_t errlen);
    void (*fini)(void);
    /* A nested shmem_init_thread granted a higher level. */
    void (*set_thread_level)(int level);
    /* A context's transport state; called for the default context at init
     * (is_default: under SHMEM_THREAD_MULTIPLE its threads get their own
     * resources behind it) and for every shmem_ctx_create while active.
     * `private_ctx`, `serialized`: the context's SHMEM_CTX_* options.
     * Returns 0, or -1 when no resource is left (the create fails). */
    int (*ctx_open)(struct shoal_net_ctx **net, int is_default, int private_ctx, int serialized,
                    const char *fn);
    /* After the context's operations are complete (quiet): return its
     * state to the transport's pool. */
    void (*ctx_close)(struct shoal_net_ctx *net);
    /* Make progress on what the calling thread and this PE's target side
     * have pending; called by waiting loops and bootstrap waits.  Returns
     * nonzero when something moved (a message or completion was handled). */
    int (*progress)(void);
    /* The calling thread stops progressing for a while (a waiter about to
     * sleep): the transport serves what arrives by itself from now on,
     * where it can (the UCX progress thread ends its nap). */
    void (*idle)(void);
    /* The calling thread is inside a Shoal call that waits, and progresses
     * the network while it has to (the UCX progress thread keeps out of
     * its way; a plain store, for every wait). */
    void (*attend)(void);
    /* Is a thread of this name (/proc/self/task/N/comm, `len` bytes) one
     * the transport runs beside the application's (UCX's async thread, the
     * progress thread), asleep while the application progresses?  The
     * waiting policy does not count those among the threads that compete
     * for the CPUs. */
    int (*helper_thread)(const char *name, size_t len);
    /* Lines for shmem-info / SHMEM_INFO (`initialized`: inside shmem_init;
     * before it, what the transport is and when it would be used). */
    void (*describe)(FILE *f, const char *prefix, int initialized);
    /* For SHOAL_TRANSPORTS=auto, once the network is needed (so never for
     * a one-node job): how well this transport fits the fabric here, in
     * enum shoal_net_fit, with what it found in `why`.  Cheap where there
     * is no fabric device (no library loaded).  NULL: SHOAL_FIT_GENERIC. */
    int (*fabric_fit)(char *why, size_t len);
    /* The build's part, e.g. "ucx (UCX 1.13.1)"; NULL for no network. */
    const char *(*built)(void);
    /* Its variables, for core's one table (transport/env_rows.h); NULL if
     * none.  Loaded whichever transport the job chooses. */
    struct shoal_env_layer *(*env_layer)(void);
    /* This PE's operations are complete and it enters the final barrier of
     * shmem_finalize: from now on its peers may close their connections at
     * any moment (each does once every PE is in that barrier), which is no
     * failure; a peer that dies meanwhile is still noticed by what waits
     * for it (a request failing or timing out). */
    void (*leaving)(void);

    /* ------------------------------------------------------ operations */
    void (*put)(struct shoal_net_ctx *net, void *dest, const void *src, size_t n, int pe, int nbi,
                const char *fn);
    void (*get)(struct shoal_net_ctx *net, void *dest, const void *src, size_t n, int pe, int nbi,
                const char *fn);
    uint64_t (*amo)(struct shoal_net_ctx *net, int op, const void *dest, unsigned size,
                    uint64_t value, uint64_t cond, int pe, const char *fn);
    void (*amo_nbi)(struct shoal_net_ctx *net, int op, void *fetch, const void *dest, unsigned size,
                    uint64_t value, uint64_t cond, int pe, const char *fn);
    void (*quiet)(struct shoal_net_ctx *net);
    void (*fence)(struct shoal_net_ctx *net);
    /* A collective's signal: a 64-bit add of `value` that its receiver
     * waits for, so no later quiet needs to complete it (it does not make
     * the next quiet flush the endpoint: a barrier's own signal made every
     * next barrier flush).  Locally complete at return, as a blocking AMO. */
    void (*signal)(struct shoal_net_ctx *net, uint64_t *word, uint64_t value, int pe,
                   const char *fn);
    /* The same signal with `n` bytes of data for `dest` (a symmetric
     * address) that the receiver sees before the signal, with no fence
     * between them; 0 (at once, nothing sent) where this transport cannot
     * carry them so: the caller puts, fences and signals. */
    int (*signal_data)(struct shoal_net_ctx *net, uint64_t *word, uint64_t value, void *dest,
                       const void *src, size_t n, int pe, const char *fn);
    /* Completes the signals posted through `net` (the default context:
     * every thread's): before a PE says it has left the job, since a peer
     * still waiting for its last signal must not see the departure first. */
    void (*flush_signals)(struct shoal_net_ctx *net, const char *fn);
    /* A collective's data as one message to a peer the network serves,
     * which the receiver takes into its own buffer by `tag` (the team,
     * which of its collectives, which message of it: the caller's to make
     * unique, low 63 bits): one that comes early waits in the receiver's
     * transport until the receive is posted, so a sender never waits for
     * the receiver to be done with an earlier round.  Only where
     * shoal_net_init_result.coll_msgs; the send returns when src may be
     * reused.  `exchange`: the collective's members send to each other
     * (fcollect, reductions), so the message goes the way the peer's come
     * (one connection both ways); else (a broadcast, whose root streams)
     * from the context's own resources. */
    void (*coll_send)(struct shoal_net_ctx *net, uint64_t tag, const void *src, size_t n, int pe,
                      int exchange, const char *fn);
    void (*coll_recv)(uint64_t tag, void *buf, const struct shoal_net_coll_rx *rx);
    /* Has a collective's message whose tag equals `tag` on the bits of
     * `mask` arrived without a receive posted for it yet?  Only looks: the
     * message stays for its receive.  *found (unless NULL): its tag, low
     * 63 bits. */
    int (*coll_waiting)(uint64_t tag, uint64_t mask, uint64_t *found);

    /* ------------------------------------------------- active messages
     * A message to a PE the network serves, where the transport carries
     * messages itself (UCX: UCP active messages, SHOAL_UCX_AM): it
     * delivers it at the target through the am_arrived hook, in the order
     * sent on one context's worker; the extension layer (ext/am) runs the
     * handler and then releases it.  Where it does not, ext/am carries
     * them with the operations above (ext/am/am_net.c).  Completion at the
     * sender ("handled") is ext/am's business (an AMO on counter `ctr`).
     * am_send: 1: sent, returns when `payload` may be reused; 0 (at once):
     * this transport does not carry messages in this job, ext/am sends it. */
    int (*am_send)(struct shoal_net_ctx *net, int pe, int tag, unsigned ctr, const void *payload,
                   size_t len, const char *fn);
    void (*am_release)(struct shoal_net_am_msg *m);

    /* Worker statistics (shmemx_net_worker_counts): created, in use, reused. */
    void (*worker_counts)(long *created, long *in_use, long *reused);
    /* A look at the 4-byte word `addr` (a symmetric address of this PE) on
     * peer `pe` that never blocks, for the checks of a peer's liveness:
     * the first call starts it and returns 0; later calls return 0 while
     * it is on its way, or 1 with *value once the answer arrived (the next
     * call starts another).  A look that does not come back says nothing
     * of the peer's life (it may compute without progressing): the core
     * asks its host for that (net_init_args.peer_watch).  Any thread; one
     * look per peer at a time. */
    int (*peek)(int pe, const void *addr, uint32_t *value, int connect, const char *fn);
    /* Whether this PE's looks reach `pe` through an endpoint already made.
     * Where not, a look may make one only with `connect`, which the core
     * gives where the peer's host answers (core/waiting/peer_reach.h):
     * making one may block for minutes on a host that does not. */
    int (*wired)(int pe);
    /* A look at n bytes at `src` (this PE's symmetric address) on `pe`
     * into `dest`, for a wait's diagnostics: never blocks, and never ends
     * the job.  Returns a ticket, or -1 when it cannot be made now; test
     * the ticket until it says 1 (dest holds the bytes) or -1 (the look
     * failed: dest says nothing); 0 while it is on its way.  dest stays
     * the caller's until then.  Any thread, a few looks at a time. */
    int (*look_start)(void *dest, const void *src, size_t n, int pe, int connect, const char *fn);
    int (*look_test)(int ticket, const char *fn);

    /* ------------------------------------------------------- requests
     * The network part of an explicit non-blocking request (shmemx _nbe,
     * ext/requests/request.h).  The request extension embeds req_size()
     * bytes of it, zeroed, in each request object, and hands it to these
     * calls; the transport takes a network resource for it (UCX: a worker
     * of the request pool, SHOAL_REQUEST_WORKERS) at its first operation
     * or at req_reserve, and gives it back at req_release.  Requests with
     * distinct resources are issued and completed without a lock in
     * common.  `pe` is a world PE, addresses are this PE's symmetric
     * addresses, as above. */
    size_t (*req_size)(void);
    /* Take the resource now, at allocation: one of its own
     * (SHOAL_NET_REQ_OWN; -1 when none is free) or one shared with other
     * requests (SHOAL_NET_REQ_SHARE).  Returns 0 or -1. */
    int (*req_reserve)(struct shoal_net_req *r, int how, const char *fn);
    void (*req_put)(struct shoal_net_req *r, void *dest, const void *src, size_t n, int pe,
                    const char *fn);
    void (*req_get)(struct shoal_net_req *r, void *dest, const void *src, size_t n, int pe,
                    const char *fn);
    /* `fetch` receives the old value (NULL: a non-fetching operation). */
    void (*req_amo)(struct shoal_net_req *r, int op, void *fetch, const void *dest, unsigned size,
                    uint64_t value, uint64_t cond, int pe, const char *fn);
    /* What r issued before is delivered before what it issues after. */
    void (*req_fence)(struct shoal_net_req *r, const char *fn);
    /* Progress r without blocking: 1 when every operation issued on it is
     * complete (puts and AMOs visible at their targets, gets and fetched
     * values in the local buffers), else 0.  Fatal (naming fn) on failure. */
    int (*req_test)(struct shoal_net_req *r, const char *fn);
    /* After r tested complete: give its resource back. */
    void (*req_release)(struct shoal_net_req *r);
    /* shmem_quiet: complete every request operation issued so far (by any
     * thread, on any request). */
    void (*req_quiet_all)(const char *fn);
};

/* ------------------------------------------------------- the choice
 * (net_select.c).  The chosen transport's table: transport/none's (no
 * route beyond this node) until shoal_net_init chose, and kept after
 * shoal_net_fini (its counters stay readable). */
extern const struct shoal_net_ops *shoal_net_ops __attribute__((visibility("hidden")));

/* Chooses the transport (args->transport, or for "auto" the best
 * fabric_fit where the network is needed), checks that every PE chose the
 * same one where the network serves some peer, and runs its init.
 * Collective. */
int shoal_net_init(const struct shoal_net_init_args *args, struct shoal_net_init_result *out,
                   char *err, size_t errlen);
/* Whether the network serves some peer of this job: 1 yes, 0 no (one node
 * and load/store allowed: a transport's init returns at once, its library
 * not even opened), -1 where peers are on other nodes but SHOAL_TRANSPORTS
 * allows this node only (said in err).  Every PE sees the same
 * `remote > 0` (a PE alone on its node has every other PE remote), so the
 * answer is collective.  (Inline: the transports use it, and the choice
 * above calls them.) */
static inline int shoal_net_needed(const struct shoal_net_init_args *a, char *err, size_t errlen)
{
    if (a->mode == SHOAL_NET_ALL)
        return 1;
    if (a->remote == 0)
        return 0;
    if (a->mode == SHOAL_NET_REMOTE)
        return 1;
    snprintf(err, errlen,
             "%d PEs are on other nodes, but SHOAL_TRANSPORTS=shm allows this node only",
             a->remote);
    return -1;
}
/* Lines for shmem-info / SHMEM_INFO: the chosen transport's, or before
 * init every network the build has. */
void shoal_net_describe(FILE *f, const char *prefix, int initialized);
/* Which transports this build has, e.g. "shm" or "shm, ucx (UCX 1.13.1),
 * ofi (libfabric 1.17)". */
const char *shoal_net_built(void);
/* The variables of the i-th network the build has (transport/env_rows.h):
 * NULL past the last; a transport without variables is skipped. */
struct shoal_env_layer *shoal_net_env_layer(int i);

/* ------------------------------------------------------- the calls
 * Core's calls, each one load and an indirect call into the chosen table
 * (docs/architecture.md measures it). */
#define SHOAL_NET_CALL(f, ...) (shoal_net_ops->f(__VA_ARGS__))
static inline void shoal_net_fini(void)
{
    SHOAL_NET_CALL(fini);
}
static inline void shoal_net_set_thread_level(int level)
{
    SHOAL_NET_CALL(set_thread_level, level);
}
static inline int shoal_net_ctx_open(struct shoal_net_ctx **net, int is_default, int private_ctx,
                                     int serialized, const char *fn)
{
    return SHOAL_NET_CALL(ctx_open, net, is_default, private_ctx, serialized, fn);
}
static inline void shoal_net_ctx_close(struct shoal_net_ctx *net)
{
    SHOAL_NET_CALL(ctx_close, net);
}
static inline int shoal_net_progress(void)
{
    return SHOAL_NET_CALL(progress);
}
static inline void shoal_net_idle(void)
{
    SHOAL_NET_CALL(idle);
}
static inline void shoal_net_attend(void)
{
    SHOAL_NET_CALL(attend);
}
static inline int shoal_net_helper_thread(const char *name, size_t len)
{
    return SHOAL_NET_CALL(helper_thread, name, len);
}
static inline void shoal_net_leaving(void)
{
    SHOAL_NET_CALL(leaving);
}
static inline void shoal_net_put(struct shoal_net_ctx *net, void *dest, const void *src, size_t n,
                                 int pe, int nbi, const char *fn)
{
    SHOAL_NET_CALL(put, net, dest, src, n, pe, nbi, fn);
}
static inline void shoal_net_get(struct shoal_net_ctx *net, void *dest, const void *src, size_t n,
                                 int pe, int nbi, const char *fn)
{
    SHOAL_NET_CALL(get, net, dest, src, n, pe, nbi, fn);
}
static inline uint64_t shoal_net_amo(struct shoal_net_ctx *net, int op, const void *dest,
                                     unsigned size, uint64_t value, uint64_t cond, int pe,
                                     const char *fn)
{
    return SHOAL_NET_CALL(amo, net, op, dest, size, value, cond, pe, fn);
}
static inline void shoal_net_amo_nbi(struct shoal_net_ctx *net, int op, void *fetch,
                                     const void *dest, unsigned size, uint64_t value, uint64_t cond,
                                     int pe, const char *fn)
{
    SHOAL_NET_CALL(amo_nbi, net, op, fetch, dest, size, value, cond, pe, fn);
}
static inline void shoal_net_quiet(struct shoal_net_ctx *net)
{
    SHOAL_NET_CALL(quiet, net);
}
static inline void shoal_net_fence(struct shoal_net_ctx *net)
{
    SHOAL_NET_CALL(fence, net);
}
static inline void shoal_net_signal(struct shoal_net_ctx *net, uint64_t *word, uint64_t value,
                                    int pe, const char *fn)
{
    SHOAL_NET_CALL(signal, net, word, value, pe, fn);
}
static inline int shoal_net_signal_data(struct shoal_net_ctx *net, uint64_t *word, uint64_t value,
                                        void *dest, const void *src, size_t n, int pe,
                                        const char *fn)
{
    return SHOAL_NET_CALL(signal_data, net, word, value, dest, src, n, pe, fn);
}
static inline void shoal_net_flush_signals(struct shoal_net_ctx *net, const char *fn)
{
    SHOAL_NET_CALL(flush_signals, net, fn);
}
static inline void shoal_net_coll_send(struct shoal_net_ctx *net, uint64_t tag, const void *src,
                                       size_t n, int pe, int exchange, const char *fn)
{
    SHOAL_NET_CALL(coll_send, net, tag, src, n, pe, exchange, fn);
}
static inline void shoal_net_coll_recv(uint64_t tag, void *buf, const struct shoal_net_coll_rx *rx)
{
    SHOAL_NET_CALL(coll_recv, tag, buf, rx);
}
static inline int shoal_net_coll_waiting(uint64_t tag, uint64_t mask, uint64_t *found)
{
    return SHOAL_NET_CALL(coll_waiting, tag, mask, found);
}
static inline int shoal_net_am_send(struct shoal_net_ctx *net, int pe, int tag, unsigned ctr,
                                    const void *payload, size_t len, const char *fn)
{
    return SHOAL_NET_CALL(am_send, net, pe, tag, ctr, payload, len, fn);
}
static inline void shoal_net_am_release(struct shoal_net_am_msg *m)
{
    SHOAL_NET_CALL(am_release, m);
}
static inline void shoal_net_worker_counts(long *created, long *in_use, long *reused)
{
    SHOAL_NET_CALL(worker_counts, created, in_use, reused);
}
static inline int shoal_net_peek(int pe, const void *addr, uint32_t *value, int connect,
                                 const char *fn)
{
    return SHOAL_NET_CALL(peek, pe, addr, value, connect, fn);
}
static inline int shoal_net_wired(int pe)
{
    return SHOAL_NET_CALL(wired, pe);
}
static inline int shoal_net_look_start(void *dest, const void *src, size_t n, int pe, int connect,
                                       const char *fn)
{
    return SHOAL_NET_CALL(look_start, dest, src, n, pe, connect, fn);
}
static inline int shoal_net_look_test(int ticket, const char *fn)
{
    return SHOAL_NET_CALL(look_test, ticket, fn);
}
static inline size_t shoal_net_req_size(void)
{
    return SHOAL_NET_CALL(req_size);
}
static inline int shoal_net_req_reserve(struct shoal_net_req *r, int how, const char *fn)
{
    return SHOAL_NET_CALL(req_reserve, r, how, fn);
}
static inline void shoal_net_req_put(struct shoal_net_req *r, void *dest, const void *src, size_t n,
                                     int pe, const char *fn)
{
    SHOAL_NET_CALL(req_put, r, dest, src, n, pe, fn);
}
static inline void shoal_net_req_get(struct shoal_net_req *r, void *dest, const void *src, size_t n,
                                     int pe, const char *fn)
{
    SHOAL_NET_CALL(req_get, r, dest, src, n, pe, fn);
}
static inline void shoal_net_req_amo(struct shoal_net_req *r, int op, void *fetch, const void *dest,
                                     unsigned size, uint64_t value, uint64_t cond, int pe,
                                     const char *fn)
{
    SHOAL_NET_CALL(req_amo, r, op, fetch, dest, size, value, cond, pe, fn);
}
static inline void shoal_net_req_fence(struct shoal_net_req *r, const char *fn)
{
    SHOAL_NET_CALL(req_fence, r, fn);
}
static inline int shoal_net_req_test(struct shoal_net_req *r, const char *fn)
{
    return SHOAL_NET_CALL(req_test, r, fn);
}
static inline void shoal_net_req_release(struct shoal_net_req *r)
{
    SHOAL_NET_CALL(req_release, r);
}
static inline void shoal_net_req_quiet_all(const char *fn)
{
    SHOAL_NET_CALL(req_quiet_all, fn);
}
#undef SHOAL_NET_CALL
#endif
