/* Atomics over UCP.  UCP has 32- and 64-bit add, and, or, xor, swap and
 * compare-and-swap, each fetching or not; every core AMO maps onto them:
 *   fetch          -> fetching or with 0 (atomic read, coherent with the
 *                     other atomics, which a plain get need not be)
 *   set            -> swap whose old value nobody reads
 *   add/and/or/xor -> posted without a reply (complete at quiet)
 * A blocking AMO that is posted still waits for its local completion, as
 * a blocking put does: UCX may hold an operation back (an endpoint being
 * wired up, a full send queue) until the worker progresses again, and a
 * PE that posts the last signal of a barrier and then computes, or waits
 * in the bootstrap, must not keep it from its target.  Usually the
 * operation completes at once and this costs nothing.  (A set is a swap
 * whose request completes only with the reply, a round trip: it stays
 * posted, and the synchronization of the core uses adds.)
 * Other sizes (8/16-bit words) are compare-and-swap loops on the enclosing
 * aligned 32-bit word: the neighbouring bytes are written back unchanged,
 * so concurrent AMOs on them are not lost (the swap fails and retries). */
#include <string.h>

#include "transport/ucx/signal/ucx_signal.h"
#include "transport/ucx/ucx_internal.h"

static const ucp_atomic_op_t ucp_op[] = {
    [SHOAL_AMO_FETCH] = UCP_ATOMIC_OP_OR,    [SHOAL_AMO_SET] = UCP_ATOMIC_OP_SWAP,
    [SHOAL_AMO_CSWAP] = UCP_ATOMIC_OP_CSWAP, [SHOAL_AMO_SWAP] = UCP_ATOMIC_OP_SWAP,
    [SHOAL_AMO_FADD] = UCP_ATOMIC_OP_ADD,    [SHOAL_AMO_ADD] = UCP_ATOMIC_OP_ADD,
    [SHOAL_AMO_FAND] = UCP_ATOMIC_OP_AND,    [SHOAL_AMO_AND] = UCP_ATOMIC_OP_AND,
    [SHOAL_AMO_FOR] = UCP_ATOMIC_OP_OR,      [SHOAL_AMO_OR] = UCP_ATOMIC_OP_OR,
    [SHOAL_AMO_FXOR] = UCP_ATOMIC_OP_XOR,    [SHOAL_AMO_XOR] = UCP_ATOMIC_OP_XOR,
};

static inline int is_post(int op)
{
    return op == SHOAL_AMO_ADD || op == SHOAL_AMO_AND || op == SHOAL_AMO_OR || op == SHOAL_AMO_XOR;
}

static const char *op_name(int op)
{
    static const char *names[] = {"atomic fetch",     "atomic set",       "atomic compare-swap",
                                  "atomic swap",      "atomic fetch-add", "atomic add",
                                  "atomic fetch-and", "atomic and",       "atomic fetch-or",
                                  "atomic or",        "atomic fetch-xor", "atomic xor"};
    return op >= 0 && op <= SHOAL_AMO_XOR ? names[op] : "atomic";
}

/* The operand in the word size, in memory (UCP reads `size` bytes). */
union word {
    uint32_t u32;
    uint64_t u64;
};

static inline void put_word(union word *w, unsigned size, uint64_t v)
{
    if (size == 4)
        w->u32 = (uint32_t)v;
    else
        w->u64 = v;
}

static inline uint64_t get_word(const union word *w, unsigned size)
{
    return size == 4 ? w->u32 : w->u64;
}

static uint64_t narrow_amo(struct shoal_net_ctx *ctx, int op, const void *dest, unsigned size,
                           uint64_t value, uint64_t cond, int pe, const char *fn);

uint64_t ucx_net_amo(struct shoal_net_ctx *ctx, int op, const void *dest, unsigned size,
                     uint64_t value, uint64_t cond, int pe, const char *fn)
{
    if (UCX_UNLIKELY(size != 4 && size != 8))
        return narrow_amo(ctx, op, dest, size, value, cond, pe, fn);
    struct ucx_worker *w = ucx_ctx_worker(ctx, fn);
    ucp_ep_h ep = ucx_ep(w, pe, fn);
    uint64_t ra;
    ucp_rkey_h rk = ucx_target(w, pe, dest, &ra);
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
    p.datatype = ucp_dt_make_contig(size);
    union word in, out;
    /* AMOs on this PE's own memory complete before returning: the core
     * reads its own words with plain loads right after (e.g. an active
     * set's collective consumes a signal with an add of -1, then waits on
     * the word again), so a posted update must not still be in flight.  They
     * take the fetching form below. */
    if (pe == ucx_g.me && (is_post(op) || op == SHOAL_AMO_SET))
        op = op == SHOAL_AMO_SET ? SHOAL_AMO_SWAP : op - 1;
    if (is_post(op)) {
        put_word(&in, size, value);
        ucs_status_ptr_t r = ucp_atomic_op_nbx(ep, ucp_op[op], &in, 1, ra, rk, &p);
        ucx_mark_dirty(w, pe);
        ucx_wait(w, r, fn, pe, op_name(op));
        return 0;
    }
    if (op == SHOAL_AMO_SET) {
        /* A swap whose reply lands in the worker's sink: the set itself
         * completes at quiet, like a put. */
        put_word(&in, size, value);
        p.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        p.reply_buffer = &w->sink;
        ucs_status_ptr_t r = ucp_atomic_op_nbx(ep, UCP_ATOMIC_OP_SWAP, &in, 1, ra, rk, &p);
        ucx_mark_dirty(w, pe);
        ucx_forget(r, fn, pe, op_name(op));
        return 0;
    }
    if (op == SHOAL_AMO_CSWAP) {
        put_word(&in, size, cond);
        put_word(&out, size, value);
    } else {
        put_word(&in, size, op == SHOAL_AMO_FETCH ? 0 : value);
    }
    p.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    p.reply_buffer = &out;
    ucx_wait(w, ucp_atomic_op_nbx(ep, ucp_op[op], &in, 1, ra, rk, &p), fn, pe, op_name(op));
    return get_word(&out, size);
}

/* Posted, not waited for (nbi and request operations): the old value of
 * a fetching operation lands in *fetch, the update at the target, by the
 * next flush of the endpoint (or, for the fetch, when the returned UCP
 * request completes; ucx_post_amo forgets it).  `fetch` NULL: a
 * non-fetching operation (a set's reply goes to the worker's sink).
 * issue_amo posts it; ucx_start_amo also marks the endpoint for the next
 * flush (a collective's signal is not marked: shoal_net_signal). */
static ucs_status_ptr_t issue_amo(struct ucx_worker *w, int op, void *fetch, const void *dest,
                                  unsigned size, uint64_t value, uint64_t cond, int pe,
                                  const char *fn)
{
    ucp_ep_h ep = ucx_ep(w, pe, fn);
    uint64_t ra;
    ucp_rkey_h rk = ucx_target(w, pe, dest, &ra);
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
    p.datatype = ucp_dt_make_contig(size);
    union word in;
    if (op == SHOAL_AMO_SET)
        op = SHOAL_AMO_SWAP;
    if (!is_post(op)) {
        p.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        p.reply_buffer = fetch ? fetch : (void *)&w->sink;
    }
    if (op == SHOAL_AMO_CSWAP) {
        /* The swap value goes in the reply buffer, the old value comes
         * back there. */
        put_word(&in, size, cond);
        union word sw;
        put_word(&sw, size, value);
        memcpy(p.reply_buffer, &sw, size);
    } else {
        put_word(&in, size, op == SHOAL_AMO_FETCH ? 0 : value);
    }
    return ucp_atomic_op_nbx(ep, ucp_op[op], &in, 1, ra, rk, &p);
}

ucs_status_ptr_t ucx_start_amo(struct ucx_worker *w, int op, void *fetch, const void *dest,
                               unsigned size, uint64_t value, uint64_t cond, int pe, const char *fn)
{
    ucs_status_ptr_t r = issue_amo(w, op, fetch, dest, size, value, cond, pe, fn);
    ucx_mark_dirty(w, pe);
    return r;
}

/* Complete locally is not yet sent: over tcp the first messages of a new
 * connection wait in the endpoint until its set-up ends, which takes this
 * PE's progress, and a PE that leaves a barrier to compute would hold its
 * peers there.  The first signal to a peer is flushed (a round trip, once
 * per worker and peer). */
static void first_signal_flushed(struct ucx_worker *w, int pe, const char *fn)
{
    if (UCX_UNLIKELY(!__atomic_load_n(&w->ep_wired[pe], __ATOMIC_RELAXED))) {
        ucp_request_param_t p;
        p.op_attr_mask = 0;
        ucx_wait(w, ucp_ep_flush_nbx(w->eps[pe], &p), fn, pe, "flush (first signal)");
        __atomic_store_n(&w->ep_wired[pe], 1, __ATOMIC_RELAXED);
    }
}

/* A signal as a tagged message (signal/ucx_signal.h), with its n <=
 * UCX_SIGNAL_DATA_MAX bytes of data for dest. */
static void signal_msg(struct ucx_worker *w, uint64_t *word, uint64_t value, void *dest,
                       const void *src, size_t n, int pe, const char *fn)
{
    ucp_ep_h ep = ucx_ep(w, pe, fn);
    uint64_t raddr, rdata = 0;
    (void)ucx_target(w, pe, word, &raddr);
    if (n)
        (void)ucx_target(w, pe, dest, &rdata);
    struct ucx_signal_msg m;
    ucx_wait(w, ucx_signal_start(&m, ep, raddr, value, rdata, src, n), fn, pe,
             "signal (tagged message)");
}

/* A signal to another PE: a tagged message where the job takes them (then
 * with its data, if any), else an atomic add (n is 0 then).  Not marked
 * dirty: the receiver waits for it; only a PE that leaves
 * (shoal_net_flush_signals) must see it delivered first.  A message
 * leaves from the target worker (ucx_target_sender), unless this
 * context's worker holds something unflushed for pe that it must follow
 * (a put and a fence before it: the endpoint's order delivers it after
 * them); an atomic add leaves from the context's worker. */
static void signal_peer(struct shoal_net_ctx *ctx, uint64_t *word, uint64_t value, void *dest,
                        const void *src, size_t n, int pe, const char *fn)
{
    struct ucx_worker *w = ucx_ctx_worker(ctx, fn);
    if (ucx_g.signal_msgs && !__atomic_load_n(&w->ep_dirty[pe], __ATOMIC_RELAXED))
        w = ucx_target_sender(fn);
    __atomic_store_n(&w->signalled, 1, __ATOMIC_RELAXED);
    if (ucx_g.signal_msgs)
        signal_msg(w, word, value, dest, src, n, pe, fn);
    else
        ucx_wait(w, issue_amo(w, SHOAL_AMO_ADD, NULL, word, 8, value, 0, pe, fn), fn, pe,
                 "atomic add (signal)");
    first_signal_flushed(w, pe, fn);
}

void ucx_net_signal(struct shoal_net_ctx *ctx, uint64_t *word, uint64_t value, int pe,
                    const char *fn)
{
    if (UCX_UNLIKELY(pe == ucx_g.me)) {
        /* (Own words complete before returning: shoal_net_amo's rule.) */
        (void)ucx_net_amo(ctx, SHOAL_AMO_ADD, word, 8, value, 0, pe, fn);
        return;
    }
    signal_peer(ctx, word, value, NULL, NULL, 0, pe, fn);
}

int ucx_net_signal_data(struct shoal_net_ctx *ctx, uint64_t *word, uint64_t value, void *dest,
                        const void *src, size_t n, int pe, const char *fn)
{
    if (!ucx_g.signal_msgs || pe == ucx_g.me || n > UCX_SIGNAL_DATA_MAX)
        return 0;
    signal_peer(ctx, word, value, dest, src, n, pe, fn);
    return 1;
}

#define COLL_TARGET_MAX 4096u

/* A large message waits for its receiver's receive: members in different
 * collectives would each wait for the other's (the core looks). */
struct coll_send {
    uint64_t tag;
    int pe;
    const char *fn;
};

static void coll_send_waits(void *arg)
{
    const struct coll_send *cs = arg;
    if (ucx_g.hooks->coll_send_waits)
        ucx_g.hooks->coll_send_waits(cs->tag, cs->pe, cs->fn);
}

void ucx_net_coll_send(struct shoal_net_ctx *ctx, uint64_t tag, const void *src, size_t n, int pe,
                       int exchange, const char *fn)
{
    /* An exchange's small messages leave from the target worker, as
     * signals do (signal_peer): OSU fcollect of 8 B at 8 PEs on 2 cores
     * over tcp, 3 rounds, 213 -> 134 us (Open MPI 141-152).  A
     * broadcast's, and large ones, from the context's worker: a root that
     * streams broadcasts and never polls between them would send on the
     * worker its progress thread serves, and a rendezvous would be
     * progressed under the thread's flag (coll_bench over tcp, 2 PEs:
     * broadcast 8 B 4.7 -> 11 us, 64 KiB 59 -> 135 us from the target
     * worker; fcollect 64 KiB some 10% slower). */
    struct ucx_worker *w =
        exchange && n <= COLL_TARGET_MAX ? ucx_target_sender(fn) : ucx_ctx_worker(ctx, fn);
    __atomic_store_n(&w->signalled, 1, __ATOMIC_RELAXED); /* as a signal: see signal_peer */
    struct coll_send cs = {tag, pe, fn};
    ucx_wait_check(w, ucx_coll_msg_start(ucx_ep(w, pe, fn), tag, src, n), fn, pe,
                   "collective's data (tagged message)", coll_send_waits, &cs);
    first_signal_flushed(w, pe, fn);
}

void ucx_net_coll_recv(uint64_t tag, void *buf, const struct shoal_net_coll_rx *rx)
{
    ucx_coll_msg_post(ucx_g.target, tag, buf, rx);
}

int ucx_net_coll_waiting(uint64_t tag, uint64_t mask, uint64_t *found)
{
    return ucx_g.target && ucx_coll_msg_waiting(ucx_g.target, tag, mask, found);
}

void ucx_post_amo(struct ucx_worker *w, int op, void *fetch, const void *dest, unsigned size,
                  uint64_t value, uint64_t cond, int pe, const char *fn)
{
    ucx_forget(ucx_start_amo(w, op, fetch, dest, size, value, cond, pe, fn), fn, pe, op_name(op));
}

void ucx_net_amo_nbi(struct shoal_net_ctx *ctx, int op, void *fetch, const void *dest,
                     unsigned size, uint64_t value, uint64_t cond, int pe, const char *fn)
{
    if (UCX_UNLIKELY(size != 4 && size != 8)) {
        uint64_t old = narrow_amo(ctx, op, dest, size, value, cond, pe, fn);
        memcpy(fetch, &old, size); /* little-endian: the low bytes */
        return;
    }
    ucx_post_amo(ucx_ctx_worker(ctx, fn), op, fetch, dest, size, value, cond, pe, fn);
}

/* 1- and 2-byte AMOs: compare-and-swap on the enclosing aligned 32-bit
 * word (little-endian byte lanes). */
static uint64_t narrow_amo(struct shoal_net_ctx *ctx, int op, const void *dest, unsigned size,
                           uint64_t value, uint64_t cond, int pe, const char *fn)
{
    if (size != 1 && size != 2)
        ucx_fatalf(fn, "%u-byte atomics are not supported over UCX", size);
    uintptr_t a = (uintptr_t)dest;
    const void *word = (const void *)(a & ~(uintptr_t)3);
    unsigned shift = (unsigned)(a & 3) * 8;
    if (shift + size * 8 > 32)
        ucx_fatalf(fn, "argument at %p is not aligned to its %u-byte size", dest, size);
    const uint32_t mask = (size == 1 ? 0xffu : 0xffffu) << shift;
    uint32_t cur = (uint32_t)ucx_net_amo(ctx, SHOAL_AMO_FETCH, word, 4, 0, 0, pe, fn);
    for (;;) {
        uint32_t oldv = (cur & mask) >> shift, v = (uint32_t)value & (mask >> shift), nv;
        switch (op) {
        case SHOAL_AMO_FETCH: return oldv;
        case SHOAL_AMO_SET:
        case SHOAL_AMO_SWAP: nv = v; break;
        case SHOAL_AMO_CSWAP:
            if (oldv != ((uint32_t)cond & (mask >> shift)))
                return oldv;
            nv = v;
            break;
        case SHOAL_AMO_FADD:
        case SHOAL_AMO_ADD: nv = oldv + v; break;
        case SHOAL_AMO_FAND:
        case SHOAL_AMO_AND: nv = oldv & v; break;
        case SHOAL_AMO_FOR:
        case SHOAL_AMO_OR: nv = oldv | v; break;
        default: nv = oldv ^ v; break;
        }
        uint32_t want = (cur & ~mask) | ((nv << shift) & mask);
        uint32_t seen = (uint32_t)ucx_net_amo(ctx, SHOAL_AMO_CSWAP, word, 4, want, cur, pe, fn);
        if (seen == cur)
            return oldv;
        cur = seen;
    }
}
