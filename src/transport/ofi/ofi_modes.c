/* What some providers ask of the application (info->mode and mr_mode),
 * which Shoal offers in its hints (FI_MR_LOCAL only where no provider
 * serves without it: ofi_provider.c) and honours where the chosen
 * provider keeps them (every provider clears the bits it does not need):
 *
 * FI_CONTEXT / FI_CONTEXT2 (opx, efa-direct): the context of every
 * operation is a struct fi_context2 the provider may write in until the
 * operation completes, completion entry or not.  An operation waited for
 * by itself has one first in its struct ofi_op, a receive in its struct
 * ofi_rx, a peek in its slot.  The counted ones (non-blocking puts, gets
 * and atomics, the flushes' reads), which no entry names, take a slot of
 * their endpoint's ring before the post, kept through the provider's
 * -FI_EAGAIN answers: ticket t uses slot t % slots, free again once a
 * quiet covered it.  A quiet reads the tickets taken, then the number of
 * operations between their ticket and their count (ctx_posting), then
 * the counters: where none is between, every ticket it read belongs to an
 * operation the counters cover, else it frees none.  Before posting,
 * ofi_ctx_room waits for a quiet while half the ring is taken: the other
 * half is the margin for threads that post on one endpoint at once (a
 * ring overrun is fatal, never silent).
 *
 * FI_MR_LOCAL (efa-direct, verbs): every local buffer handed to a data
 * transfer needs the descriptor of a registration covering it.  Buffers
 * in a symmetric segment use the segment's registration (made with local
 * access too), the flushes' words their endpoint's own.  Any other buffer
 * (the user's private or stack memory, an AMO's operands and result): a
 * blocking operation's of at most OFI_BOUNCE_SIZE bytes goes through a
 * free slot of its endpoint's registered bounce area (copied in before
 * the post, out after the completion; slots taken with an atomic bit,
 * no lock); else the buffer is registered for the operation: a blocking
 * one closes it once complete, a non-blocking one holds it on its
 * endpoint until the quiet that completes it (with a quiet first when
 * OFI_HELD_SOFT_MAX are held), since its buffer is the program's until
 * then.  Registration per call costs a system call or two on fabric
 * hardware; a registration cache is the next step where a provider that
 * needs the mode serves Shoal's jobs (efa-direct, which needs it, has no
 * atomics and is refused: ofi_amo_check).  Nothing here is shared
 * between endpoints but the key counter of local registrations. */
#include <stdlib.h>
#include <string.h>

#include "transport/ofi/ofi_env.h"
#include "transport/ofi/ofi_internal.h"

/* Slots of a ring beyond what a flush posts at once (a read per peer). */
#define OFI_CTX_RING_HALF 512
/* Registrations held for non-blocking operations before a quiet. */
#define OFI_HELD_SOFT_MAX 64
/* Keys of local registrations (where Shoal chooses keys): above the
 * segments' 0 and 1. */
#define OFI_LOCAL_KEY_FIRST 16

/* An endpoint's bounce area: slots (at most 32, a bit each) and their
 * size (a blocking AMO takes two). */
#define OFI_BOUNCE_SLOTS 4
#define OFI_BOUNCE_SIZE 4096

#define LOCAL_ACCESS (FI_READ | FI_WRITE | FI_SEND | FI_RECV)

static uint64_t next_local_key = OFI_LOCAL_KEY_FIRST;

void ofi_modes_note(const struct fi_info *i)
{
    ofi_g.mr_local = (i->domain_attr->mr_mode & FI_MR_LOCAL) || ofi_cfg.assume_mr_local;
    ofi_g.op_ctx = (i->mode & (FI_CONTEXT | FI_CONTEXT2)) || ofi_cfg.assume_ctx;
    ofi_g.modes_assumed = ofi_cfg.assume_mr_local || ofi_cfg.assume_ctx;
}

uint64_t ofi_modes_seg_access(void)
{
    return FI_REMOTE_READ | FI_REMOTE_WRITE | (ofi_g.mr_local ? LOCAL_ACCESS : 0);
}

static int reg(void *buf, size_t n, struct fid_ep *ep, struct fid_mr **mr)
{
    const uint64_t key = __atomic_fetch_add(&next_local_key, 1, __ATOMIC_RELAXED);
    int rc = fi_mr_reg(ofi_g.domain, buf, n, LOCAL_ACCESS, 0, key, 0, mr, NULL);
    if (!rc && ep && (ofi_g.info->domain_attr->mr_mode & FI_MR_ENDPOINT)) {
        rc = fi_mr_bind(*mr, &ep->fid, 0);
        if (!rc)
            rc = fi_mr_enable(*mr);
    }
    if (rc && *mr) {
        fi_close(&(*mr)->fid);
        *mr = NULL;
    }
    return rc;
}

int ofi_modes_ep_open(struct ofi_ep *e, char *err, size_t errlen)
{
    if (ofi_g.op_ctx) {
        e->ctx_slots = 2 * (OFI_CTX_RING_HALF + (uint64_t)ofi_g.n_pes);
        e->ctx_ring = calloc(e->ctx_slots, sizeof *e->ctx_ring);
        if (!e->ctx_ring) {
            snprintf(err, errlen, "out of memory (operation contexts)");
            return -1;
        }
    }
    if (!ofi_g.mr_local)
        return 0;
    e->bounce = malloc(OFI_BOUNCE_SLOTS * OFI_BOUNCE_SIZE);
    if (!e->bounce) {
        snprintf(err, errlen, "out of memory (bounce area)");
        return -1;
    }
    int rc = reg(e->flush_words, sizeof e->flush_words, e->ep, &e->own_mr);
    if (!rc)
        rc = reg(e->bounce, OFI_BOUNCE_SLOTS * OFI_BOUNCE_SIZE, e->ep, &e->bounce_mr);
    if (rc) {
        snprintf(err, errlen, "fi_mr_reg (an endpoint's own words): %s", ofi_strerror(-rc));
        return -1;
    }
    return 0;
}

static void held_release(struct ofi_ep *e, uint64_t upto)
{
    pthread_mutex_lock(&e->held_lock);
    if (upto > e->held_freed) {
        const uint64_t k = upto - e->held_freed, n = e->held_total - e->held_freed;
        for (uint64_t i = 0; i < k; i++)
            fi_close(&e->held[i]->fid);
        memmove(e->held, e->held + k, (size_t)(n - k) * sizeof *e->held);
        e->held_freed = upto;
    }
    pthread_mutex_unlock(&e->held_lock);
}

/* After the endpoint closed (nothing it posted can still use them),
 * before its locks go. */
void ofi_modes_ep_close(struct ofi_ep *e)
{
    if (e->held_total > e->held_freed)
        held_release(e, e->held_total);
    if (e->own_mr)
        fi_close(&e->own_mr->fid);
    if (e->bounce_mr)
        fi_close(&e->bounce_mr->fid);
    free(e->bounce);
    e->bounce = NULL;
    e->bounce_mr = NULL;
    free(e->held);
    free(e->ctx_ring);
    e->held = NULL;
    e->ctx_ring = NULL;
    e->own_mr = NULL;
}

void ofi_ctx_room(struct ofi_ep *e, uint64_t need, const char *fn)
{
    if (OFI_LIKELY(!e->ctx_ring))
        return;
    const uint64_t half = e->ctx_slots / 2;
    if (__atomic_load_n(&e->ctx_taken, __ATOMIC_SEQ_CST) + need -
            __atomic_load_n(&e->ctx_free, __ATOMIC_SEQ_CST) >
        half)
        ofi_wait_quiet(e, fn, -1, "quiet (operation contexts in use: FI_CONTEXT2)");
}

void *ofi_ctx_reserve(struct ofi_ep *e, const char *fn)
{
    if (OFI_LIKELY(!e->ctx_ring))
        return NULL;
    ofi_ctx_room(e, 1, fn);
    __atomic_fetch_add(&e->ctx_posting, 1, __ATOMIC_SEQ_CST);
    const uint64_t t = __atomic_fetch_add(&e->ctx_taken, 1, __ATOMIC_SEQ_CST);
    if (OFI_UNLIKELY(t - __atomic_load_n(&e->ctx_free, __ATOMIC_SEQ_CST) >= e->ctx_slots))
        ofi_fatalf(fn,
                   "internal error: more than %llu operations in flight on one endpoint "
                   "(its FI_CONTEXT2 ring)",
                   (unsigned long long)e->ctx_slots);
    return &e->ctx_ring[t % e->ctx_slots];
}

void ofi_ctx_posted(struct ofi_ep *e, const void *ctx)
{
    if (ctx)
        __atomic_fetch_sub(&e->ctx_posting, 1, __ATOMIC_SEQ_CST);
}

int ofi_ctx_in_ring(const struct ofi_ep *e, const void *ctx)
{
    const uintptr_t c = (uintptr_t)ctx, first = (uintptr_t)e->ctx_ring;
    return e->ctx_ring && c - first < e->ctx_slots * sizeof *e->ctx_ring;
}

void ofi_modes_mark(struct ofi_ep *e, struct ofi_modes_mark *m)
{
    if (OFI_LIKELY(!e->ctx_ring && !ofi_g.mr_local)) {
        m->ctx_taken = m->held_total = 0;
        return;
    }
    m->ctx_taken = __atomic_load_n(&e->ctx_taken, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&e->ctx_posting, __ATOMIC_SEQ_CST))
        m->ctx_taken = 0; /* a ticket below it may not be counted yet: free none */
    m->held_total = __atomic_load_n(&e->held_total, __ATOMIC_SEQ_CST);
}

void ofi_modes_quiet(struct ofi_ep *e, const struct ofi_modes_mark *m)
{
    if (OFI_LIKELY(!m->ctx_taken && !m->held_total))
        return;
    uint64_t f = __atomic_load_n(&e->ctx_free, __ATOMIC_SEQ_CST);
    while (f < m->ctx_taken && !__atomic_compare_exchange_n(&e->ctx_free, &f, m->ctx_taken, 0,
                                                            __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        ;
    if (m->held_total > __atomic_load_n(&e->held_freed, __ATOMIC_ACQUIRE))
        held_release(e, m->held_total);
}

/* The segment (or e's own words) holding n bytes at a, or -1. */
static void covered(struct ofi_local *l, struct fid_mr *mr, uintptr_t base, size_t len)
{
    l->desc = fi_mr_desc(mr);
    l->base = base;
    l->len = len;
}

static int known(const struct ofi_ep *e, uintptr_t a, size_t n, struct ofi_local *l)
{
    for (int s = 0; s < 2; s++)
        if (ofi_g.mr[s] && a - ofi_g.seg_base[s] < ofi_g.seg_len[s] &&
            n <= ofi_g.seg_len[s] - (a - ofi_g.seg_base[s])) {
            covered(l, ofi_g.mr[s], ofi_g.seg_base[s], ofi_g.seg_len[s]);
            return 0;
        }
    const uintptr_t own = (uintptr_t)e->flush_words;
    if (e->own_mr && a - own < sizeof e->flush_words && n <= sizeof e->flush_words - (a - own)) {
        covered(l, e->own_mr, own, sizeof e->flush_words);
        return 0;
    }
    return -1;
}

/* A free slot of e's bounce area standing in for n bytes at buf: 0, or
 * -1 when none is free. */
static int bounce(struct ofi_ep *e, const void *buf, size_t n, struct ofi_local *l)
{
    if (!e->bounce || n > OFI_BOUNCE_SIZE)
        return -1;
    unsigned busy = __atomic_load_n(&e->bounce_busy, __ATOMIC_RELAXED);
    for (int s = 0; s < OFI_BOUNCE_SLOTS; s++) {
        if (busy & (1u << s))
            continue;
        busy = __atomic_fetch_or(&e->bounce_busy, 1u << s, __ATOMIC_ACQUIRE);
        if (busy & (1u << s))
            continue; /* another thread took it first */
        unsigned char *at = e->bounce + (size_t)s * OFI_BOUNCE_SIZE;
        l->at = at;
        l->slot = s + 1;
        covered(l, e->bounce_mr, (uintptr_t)at, OFI_BOUNCE_SIZE);
        if (l->use == OFI_LOCAL_IN)
            memcpy(at, buf, n);
        return 0;
    }
    return -1;
}

void ofi_local_get(struct ofi_ep *e, const void *buf, size_t n, int use, struct ofi_local *l,
                   const char *fn)
{
    *l = (struct ofi_local){.at = (void *)buf, .user = (void *)buf, .n = n, .use = use};
    if (OFI_LIKELY(!ofi_g.mr_local) || !n || known(e, (uintptr_t)buf, n, l) == 0)
        return;
    if ((use == OFI_LOCAL_IN || use == OFI_LOCAL_OUT) && bounce(e, buf, n, l) == 0)
        return;
    if (use == OFI_LOCAL_HOLD && __atomic_load_n(&e->held_total, __ATOMIC_SEQ_CST) -
                                         __atomic_load_n(&e->held_freed, __ATOMIC_SEQ_CST) >=
                                     OFI_HELD_SOFT_MAX)
        ofi_wait_quiet(e, fn, -1, "quiet (registrations of local buffers held: FI_MR_LOCAL)");
    const int rc = reg((void *)buf, n, e->ep, &l->mr);
    if (rc)
        ofi_fatalf(fn,
                   "libfabric (%s): registering a local buffer of %zu bytes at %p "
                   "(FI_MR_LOCAL) failed: %s",
                   ofi_g.info->fabric_attr->prov_name, n, buf, ofi_strerror(-rc));
    covered(l, l->mr, (uintptr_t)buf, n);
}

static void hold(struct ofi_ep *e, struct fid_mr *mr, const char *fn)
{
    pthread_mutex_lock(&e->held_lock);
    const uint64_t n = e->held_total - e->held_freed;
    if (n == e->held_cap) {
        const uint64_t cap = e->held_cap ? 2 * e->held_cap : OFI_HELD_SOFT_MAX;
        struct fid_mr **more = realloc(e->held, (size_t)cap * sizeof *more);
        if (!more)
            ofi_fatalf(fn, "out of memory (registrations held until quiet)");
        e->held = more;
        e->held_cap = cap;
    }
    e->held[n] = mr;
    __atomic_store_n(&e->held_total, e->held_total + 1, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&e->held_lock);
}

void ofi_local_done(struct ofi_ep *e, struct ofi_local *l)
{
    if (l->slot) {
        if (l->use == OFI_LOCAL_OUT)
            memcpy(l->user, l->at, l->n);
        __atomic_fetch_and(&e->bounce_busy, ~(1u << (l->slot - 1)), __ATOMIC_RELEASE);
        l->slot = 0;
        return;
    }
    if (OFI_LIKELY(!l->mr))
        return;
    if (l->use == OFI_LOCAL_HOLD)
        hold(e, l->mr, "quiet");
    else
        fi_close(&l->mr->fid);
    l->mr = NULL;
}

void *ofi_desc(const struct ofi_local *l, const void *buf, size_t n, const char *fn)
{
    const uintptr_t a = (uintptr_t)buf;
    if (OFI_UNLIKELY(ofi_g.mr_local && n &&
                     (!l->desc || a - l->base > l->len || n > l->len - (a - l->base))))
        ofi_fatalf(fn,
                   "internal error: a local buffer of %zu bytes at %p handed to libfabric "
                   "without a registration covering it (FI_MR_LOCAL)",
                   n, buf);
    return l->desc;
}

void ofi_modes_describe(FILE *f, const char *prefix)
{
    fprintf(f, "%sOFI modes: local buffers %s, operation contexts %s%s\n", prefix,
            ofi_g.mr_local ? "registered (FI_MR_LOCAL)" : "unregistered",
            ofi_g.op_ctx ? "the application's (FI_CONTEXT2)" : "not needed",
            ofi_g.modes_assumed ? " (assumed: SHOAL_OFI_ASSUME_MODES)" : "");
}
