/* Atomics over libfabric on 4- and 8-byte unsigned words: a blocking one
 * waited for by its own completion entry, a non-blocking one counted (and
 * its peer marked for the next flush).  Every (operation, type) Shoal uses
 * is checked at init with fi_atomicvalid, fi_fetch_atomicvalid and
 * fi_compare_atomicvalid (a provider's FI_ATOMIC bit can lie): one the
 * provider lacks is emulated by compare-and-swap over the network
 * (ofi_amo_emul.c); a provider without compare-and-swap on both sizes, or
 * without what the flushes and signals use, is refused (ofi_provider.c
 * tries the next).  The providers emulate atomics in the target's software
 * (rxm, shm, sockets) or do them in the NIC, neither coherent with CPU
 * atomics on the same word, so every AMO of the job goes through the
 * network (amo_via_net, ofi_init.c). */
#include <string.h>

#include "transport/ofi/ofi_env.h"
#include "transport/ofi/ofi_internal.h"
#include "transport/ofi/ofi_msgs.h"

enum amo_kind { AMO_PLAIN, AMO_FETCH, AMO_COMPARE };

static const struct {
    enum fi_op op;
    enum amo_kind kind;
    const char *name;
} amo_map[] = {
    [SHOAL_AMO_FETCH] = {FI_ATOMIC_READ, AMO_FETCH, "fetch"},
    [SHOAL_AMO_SET] = {FI_ATOMIC_WRITE, AMO_PLAIN, "set"},
    [SHOAL_AMO_CSWAP] = {FI_CSWAP, AMO_COMPARE, "compare-swap"},
    [SHOAL_AMO_SWAP] = {FI_ATOMIC_WRITE, AMO_FETCH, "swap"},
    [SHOAL_AMO_FADD] = {FI_SUM, AMO_FETCH, "fetch-add"},
    [SHOAL_AMO_ADD] = {FI_SUM, AMO_PLAIN, "add"},
    [SHOAL_AMO_FAND] = {FI_BAND, AMO_FETCH, "fetch-and"},
    [SHOAL_AMO_AND] = {FI_BAND, AMO_PLAIN, "and"},
    [SHOAL_AMO_FOR] = {FI_BOR, AMO_FETCH, "fetch-or"},
    [SHOAL_AMO_OR] = {FI_BOR, AMO_PLAIN, "or"},
    [SHOAL_AMO_FXOR] = {FI_BXOR, AMO_FETCH, "fetch-xor"},
    [SHOAL_AMO_XOR] = {FI_BXOR, AMO_PLAIN, "xor"},
};
#define AMO_OPS ((int)(sizeof amo_map / sizeof amo_map[0]))

static int valid(struct fid_ep *ep, int op, enum fi_datatype dt)
{
    size_t count = 0;
    int rc = amo_map[op].kind == AMO_PLAIN ? fi_atomicvalid(ep, dt, amo_map[op].op, &count)
             : amo_map[op].kind == AMO_FETCH
                 ? fi_fetch_atomicvalid(ep, dt, amo_map[op].op, &count)
                 : fi_compare_atomicvalid(ep, dt, amo_map[op].op, &count);
    return rc == 0 && count >= 1;
}

unsigned char ofi_amo_native[AMO_OPS][2];

const char *ofi_amo_name(int op)
{
    return op >= 0 && op < AMO_OPS ? amo_map[op].name : NULL;
}

/* What the emulation itself, the flushes' atomic reads (ofi_rma.c) and
 * the signals' adds use: the provider must do them. */
static int required(int op, int bits)
{
    return op == SHOAL_AMO_CSWAP || (bits == 64 && (op == SHOAL_AMO_FETCH || op == SHOAL_AMO_ADD));
}

int ofi_amo_check(struct fid_ep *ep, char *err, size_t errlen)
{
    for (int bits = 32; bits <= 64; bits += 32)
        for (int op = 0; op < AMO_OPS; op++) {
            const int ok = valid(ep, op, bits == 32 ? FI_UINT32 : FI_UINT64);
            if (!ok && required(op, bits)) {
                snprintf(err, errlen, "its atomics lack %s on %d-bit integers (fi_%satomicvalid)",
                         amo_map[op].name, bits,
                         amo_map[op].kind == AMO_PLAIN   ? ""
                         : amo_map[op].kind == AMO_FETCH ? "fetch_"
                                                         : "compare_");
                return -1;
            }
            ofi_amo_native[op][bits == 64] = ok && !(ofi_cfg.amo_disabled & (1u << op));
        }
    return 0;
}

/* amo_map[op].kind, but a blocking non-fetching AMO over ofi_rxd in its
 * fetching form: rxd completes a non-fetching one once sent, before its
 * target applied it (num_segs 0: ofi_rxd.c), and the core reads its own
 * words with plain loads right after a blocking AMO on them. */
static int kind_of(int op, const struct ofi_op *wait)
{
    const int kind = amo_map[op].kind;
    return OFI_UNLIKELY(ofi_g.fetch_guard) && wait && kind == AMO_PLAIN ? AMO_FETCH : kind;
}

/* An AMO's operands, in one piece of memory (one registration where
 * local buffers need one). */
struct amo_operands {
    uint64_t value, cond;
    uint32_t v32, c32;
};

/* One AMO.  With `op` (a blocking AMO) it asks for a completion entry of
 * its own and is waited for; without, its operands travel with the
 * request (FI_INJECT: an nbi AMO returns before completion) and its
 * completion is counted only (with a context from e's ring where the
 * provider needs one).  A fetching one writes the old value to *fetch,
 * whose registration (FI_MR_LOCAL) lasts until the AMO completed. */
static void post(struct ofi_ep *e, int op, void *fetch, const void *dest, unsigned size,
                 uint64_t value, uint64_t cond, int pe, struct ofi_op *wait, const char *fn)
{
    struct ofi_op own = {0};
    if (!wait && OFI_UNLIKELY(!ofi_g.inject_atomics))
        wait = &own; /* waited for, not injected (ofi_provider.c: sockets) */
    const int kind = kind_of(op, wait);
    if (OFI_UNLIKELY(ofi_g.fetch_guard) && kind != AMO_PLAIN) {
        ofi_rxd_before_fetch(e, pe, fn);
        wait = wait ? wait : &own;
    }
    uint64_t ra, key;
    ofi_target(dest, pe, &ra, &key, fn);
    const struct amo_operands o = {value, cond, (uint32_t)value, (uint32_t)cond};
    /* Where libfabric reads them: o, or a bounce slot (FI_MR_LOCAL). */
    struct ofi_local lo, lr;
    ofi_local_get(e, &o, sizeof o, OFI_LOCAL_IN, &lo, fn);
    ofi_local_get(e, fetch, fetch ? size : 0, wait ? OFI_LOCAL_OUT : OFI_LOCAL_HOLD, &lr, fn);
    const struct amo_operands *at = lo.at;
    void *src_at = size == 4 ? (void *)&at->v32 : (void *)&at->value;
    void *cmp_at = size == 4 ? (void *)&at->c32 : (void *)&at->cond;
    void *src_desc = ofi_desc(&lo, src_at, size, fn), *cmp_desc = ofi_desc(&lo, cmp_at, size, fn);
    void *res_desc = fetch ? ofi_desc(&lr, lr.at, size, fn) : NULL;
    struct fi_ioc src = {.addr = src_at, .count = 1};
    struct fi_ioc cmp = {.addr = cmp_at, .count = 1};
    struct fi_ioc res = {.addr = lr.at, .count = 1};
    struct fi_rma_ioc dst = {.addr = ra, .count = 1, .key = key};
    struct fi_msg_atomic m = {.msg_iov = &src,
                              .desc = &src_desc,
                              .iov_count = 1,
                              .addr = (fi_addr_t)pe,
                              .rma_iov = &dst,
                              .rma_iov_count = 1,
                              .datatype = size == 4 ? FI_UINT32 : FI_UINT64,
                              .op = amo_map[op].op,
                              .context = wait};
    const uint64_t flags = wait ? FI_COMPLETION : FI_INJECT;
    const char *what = amo_map[op].name;
    if (!wait)
        m.context = ofi_ctx_reserve(e, fn);
    if (kind == AMO_PLAIN)
        OFI_POST(e, &e->put_posted, fi_atomicmsg(e->ep, &m, flags), fn, pe, what);
    else if (kind == AMO_FETCH)
        OFI_POST(e, &e->get_posted, fi_fetch_atomicmsg(e->ep, &m, &res, &res_desc, 1, flags), fn,
                 pe, what);
    else
        OFI_POST(e, &e->get_posted,
                 fi_compare_atomicmsg(e->ep, &m, &cmp, &cmp_desc, 1, &res, &res_desc, 1, flags), fn,
                 pe, what);
    if (wait)
        ofi_wait_op(e, wait, fn, pe, what);
    else
        ofi_ctx_posted(e, m.context);
    ofi_local_done(e, &lo); /* the operands: taken at the post (FI_INJECT) or waited for */
    ofi_local_done(e, &lr);
}

/* Not waited for: the next flush completes it at the target. */
void ofi_post_amo(struct ofi_ep *e, int op, void *fetch, const void *dest, unsigned size,
                  uint64_t value, uint64_t cond, int pe, const char *fn)
{
    if (OFI_UNLIKELY(!ofi_amo_native[op][size == 8])) { /* complete at return */
        const uint64_t old = ofi_amo_emulate(e, op, dest, size, value, pe, fn);
        if (fetch && size == 4)
            *(uint32_t *)fetch = (uint32_t)old;
        else if (fetch)
            *(uint64_t *)fetch = old;
        return;
    }
    post(e, op, fetch, dest, size, value, cond, pe, NULL, fn);
    ofi_peers_add(e, &e->dirty, pe);
}

/* A blocking AMO returns once it completed: a fetching one when its old
 * value is here, a non-fetching one when its own completion came (with
 * rxm: once the target applied it; with shm once queued, so the next
 * quiet still flushes its peer).  Not only the spec's local
 * completion: the core reads this PE's own words with plain loads right
 * after an AMO on them (an active set's collective consumes a signal with
 * an add of -1, then waits on the word), and with manual progress an
 * operation posted on a context nobody progresses would not even leave. */
uint64_t ofi_amo_blocking(struct ofi_ep *e, int op, const void *dest, unsigned size, uint64_t value,
                          uint64_t cond, int pe, const char *fn)
{
    union {
        uint32_t u32;
        uint64_t u64;
    } old = {.u64 = 0};
    struct ofi_op done = {0};
    post(e, op, &old, dest, size, value, cond, pe, &done, fn);
    if (amo_map[op].kind == AMO_PLAIN) /* complete, perhaps only locally (shm) */
        ofi_peers_add(e, &e->dirty, pe);
    return size == 4 ? old.u32 : old.u64;
}

/* Where the provider progresses by itself, a non-fetching AMO to another
 * PE is posted as an nbi one is, as over UCX: it leaves without this PE's
 * help, and quiet completes it at the target.  Waiting for its completion
 * cost a round trip each (rxm answers once the target applied it):
 * mt_rate's atomic_add over tcp;ofi_rxm ran at a fetch-add's rate.  To
 * this PE itself, or where progress is manual, it still completes before
 * returning (ofi_amo_blocking says why). */
static int posted_alone(int op, int pe)
{
    return amo_map[op].kind == AMO_PLAIN && pe != ofi_g.me && !ofi_g.manual_progress &&
           ofi_g.inject_atomics;
}

uint64_t ofi_net_amo(struct shoal_net_ctx *net, int op, const void *dest, unsigned size,
                     uint64_t value, uint64_t cond, int pe, const char *fn)
{
    struct ofi_ep *e = ofi_ctx_ep(net, fn);
    if (OFI_UNLIKELY(!ofi_amo_native[op][size == 8]))
        return ofi_amo_emulate(e, op, dest, size, value, pe, fn);
    if (posted_alone(op, pe)) {
        ofi_post_amo(e, op, NULL, dest, size, value, cond, pe, fn);
        return 0;
    }
    return ofi_amo_blocking(e, op, dest, size, value, cond, pe, fn);
}

void ofi_net_amo_nbi(struct shoal_net_ctx *net, int op, void *fetch, const void *dest,
                     unsigned size, uint64_t value, uint64_t cond, int pe, const char *fn)
{
    ofi_post_amo(ofi_ctx_ep(net, fn), op, fetch, dest, size, value, cond, pe, fn);
}

/* A collective's signal: a tagged message to another PE where the job
 * takes them (ofi_signal.c), else an injected add; its peer is marked for
 * the next flush_signals, not for quiet's flush (its receiver waits for
 * it). */
void ofi_net_signal(struct shoal_net_ctx *net, uint64_t *word, uint64_t value, int pe,
                    const char *fn)
{
    struct ofi_ep *e = ofi_ctx_ep(net, fn);
    if (ofi_msgs.signals && pe != ofi_g.me) {
        ofi_signal_send(e, word, value, NULL, NULL, 0, pe, fn);
        return;
    }
    /* fi_atomicmsg with FI_INJECT, not fi_inject_atomic: ofi_rxd's
     * (libfabric 1.17 to 2.x, rxd_atomic_inject) looks the peer up by the
     * target's memory address instead of dest_addr and answers -FI_EAGAIN
     * forever. */
    post(e, SHOAL_AMO_ADD, NULL, word, 8, value, 0, pe, NULL, fn);
    ofi_peers_add(e, &e->signalled, pe);
}

static void flush_signals(struct ofi_ep *e, const char *fn)
{
    ofi_flush_post(e, &e->signalled, fn);
    ofi_wait_quiet(e, fn, -1, "flush (signals)");
}

/* The default context under SHMEM_THREAD_MULTIPLE: every thread's. */
void ofi_net_flush_signals(struct shoal_net_ctx *net, const char *fn)
{
    ofi_ctx_eps_foreach(net, flush_signals, fn);
}
