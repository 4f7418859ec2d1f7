/* Explicit non-blocking requests over UCP (the "requests" part of
 * transport/net.h).  A request posts its operations on a worker of the request
 * pool: SHOAL_REQUEST_WORKERS slots, each holding one worker taken from
 * the context worker pool on its first use (endpoints and keys stay wired
 * across the requests that use it) and kept until finalize.  A request
 * takes a free slot for itself; when none is free, requests share the
 * slots round-robin.  Taking and giving back a slot is one atomic on the
 * slot: requests on distinct slots share no lock.  A slot's worker is
 * connected at creation to the peers this PE already talks to (prewire):
 * over tcp that moved a fresh request's first fetch-add from ~1.4 ms
 * (median) to ~0.25 ms, against ~20 us once wired.
 *
 * A request remembers the peers it posted puts and non-fetching AMOs to
 * since its last flush; its test flushes those endpoints (all in flight at
 * once, or the whole worker past REQ_PES peers) and progresses only its
 * own worker and this PE's target side, so completing it never waits for
 * another request's worker.  Gets and fetching AMOs complete with their
 * own UCP request (the value is in place then): the request keeps up to
 * REQ_OPS of them and needs no flush for those (over tcp a flush is one
 * more round trip: a fetch-add waited for at once took two).
 * A flush also covers a slot-mate's operations to the same peers: sharing
 * costs waiting, never correctness.  The worker's own marks
 * (ucx_mark_dirty) are set too, so shmem_quiet's flush covers requests. */
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

#include "transport/ucx/ucx_internal.h"

#define REQ_PES 8 /* peers a request flushes one by one */
#define REQ_OPS 8 /* gets and fetching AMOs a request waits for one by one */

struct req_slot {
    _Alignas(64) struct ucx_worker *w; /* NULL until first used */
    int users;                         /* requests holding the slot (atomic) */
    unsigned touched;                  /* bumped when an application thread uses w */
    unsigned seen;                     /* the progress thread's last look at `touched` */
};

struct shoal_net_req {
    struct req_slot *slot; /* NULL: nothing posted yet */
    int n_pes;             /* peers posted to since the last flush; > REQ_PES: many */
    int pes[REQ_PES];
    int n_flush; /* flushes in flight */
    int flush_pe[REQ_PES];
    ucs_status_ptr_t flush[REQ_PES];
    int n_ops; /* gets and fetching AMOs in flight, by their own UCP request */
    int op_pe[REQ_OPS];
    ucs_status_ptr_t ops[REQ_OPS];
    /* When a test first found it pending (0: none did): a second later the
     * tests ask whether its peer is still there (base/ucx_base.h). */
    uint64_t pending_since;
};

static struct req_slot *slots;
static int n_slots;
static unsigned rr_next;
static long n_shared; /* takes that found no free slot */
static pthread_mutex_t create_lock = PTHREAD_MUTEX_INITIALIZER;

size_t ucx_net_req_size(void)
{
    return sizeof(struct shoal_net_req);
}

/* MULTI only under SHMEM_THREAD_MULTIPLE, where threads may share a slot
 * and the progress thread helps requests that are left alone.  Otherwise
 * SERIALIZED: over tcp a MULTI worker made posting a 1 MiB put four times
 * slower (0.63 -> 2.6 ms, bench/overlap --config req), more than the
 * progress thread's help gave back. */
static ucs_thread_mode_t req_mode(void)
{
    if (ucx_g.thread_level == SHMEM_THREAD_MULTIPLE)
        return UCS_THREAD_MODE_MULTI;
    return UCS_THREAD_MODE_SERIALIZED;
}

/* The slot array at first use; a worker for slot `s` when it has none. */
static void make_slots(const char *fn)
{
    pthread_mutex_lock(&create_lock);
    if (!slots) {
        int n = ucx_cfg.request_workers > 0 ? ucx_cfg.request_workers : 8;
        struct req_slot *a = aligned_alloc(64, sizeof *a * (size_t)n);
        if (!a) {
            pthread_mutex_unlock(&create_lock);
            ucx_fatalf(fn, "out of memory for %d request worker slots", n);
        }
        memset(a, 0, sizeof *a * (size_t)n);
        n_slots = n;
        __atomic_store_n(&slots, a, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&create_lock);
}

/* The peers some worker of this PE already has an endpoint to. */
static void note_peers(struct ucx_worker *o, void *arg)
{
    unsigned char *talks = arg;
    for (int pe = 0; pe < ucx_g.n_pes; pe++)
        if (__atomic_load_n(&o->eps[pe], __ATOMIC_ACQUIRE))
            talks[pe] = 1;
}

/* A new request worker is connected at once to every peer this PE
 * already talks to through UCX, keys unpacked, before any request sees it
 * (so no other thread contends for it): a request's first operation finds
 * its endpoint in place and the wire-up messages are already on their way.
 * Peers nobody talked to stay lazy, as everywhere (never all-to-all). */
static void prewire(struct ucx_worker *w, const char *fn)
{
    unsigned char *talks = calloc((size_t)ucx_g.n_pes, 1);
    if (!talks)
        return; /* lazily then */
    ucx_all_workers_foreach(note_peers, talks);
    for (int pe = 0; pe < ucx_g.n_pes; pe++)
        if (talks[pe] && !w->eps[pe])
            (void)ucx_ep_wire(w, pe, fn);
    free(talks);
    ucp_worker_progress(w->h); /* sends what the new endpoints have queued */
}

/* 0, or -1 when no worker can be made (file descriptors run out): the
 * caller decides whether that is fatal. */
static int make_worker(struct req_slot *s, const char *fn)
{
    pthread_mutex_lock(&create_lock);
    if (!s->w) {
        struct ucx_worker *w = ucx_worker_get(req_mode(), fn);
        if (!w) {
            pthread_mutex_unlock(&create_lock);
            return -1;
        }
        prewire(w, fn);
        __atomic_store_n(&s->w, w, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&create_lock);
    return 0;
}

/* A free slot, or (unless `own_only`) a shared one round-robin; NULL when
 * own_only and none is free, or when the slot's worker cannot be made. */
static struct req_slot *take(int how, const char *fn)
{
    static __thread unsigned hint;
    if (UCX_UNLIKELY(!__atomic_load_n(&slots, __ATOMIC_ACQUIRE)))
        make_slots(fn);
    struct req_slot *s = NULL;
    for (int i = 0; i < n_slots && !s && how != SHOAL_NET_REQ_SHARE; i++) {
        struct req_slot *c = &slots[(hint + (unsigned)i) % (unsigned)n_slots];
        int zero = 0;
        if (__atomic_load_n(&c->users, __ATOMIC_RELAXED) == 0 &&
            __atomic_compare_exchange_n(&c->users, &zero, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            s = c;
    }
    if (s) {
        hint = (unsigned)(s - slots);
    } else if (how == SHOAL_NET_REQ_OWN) {
        return NULL;
    } else {
        s = &slots[__atomic_fetch_add(&rr_next, 1, __ATOMIC_RELAXED) % (unsigned)n_slots];
        __atomic_fetch_add(&s->users, 1, __ATOMIC_ACQUIRE);
        __atomic_fetch_add(&n_shared, 1, __ATOMIC_RELAXED);
    }
    if (UCX_UNLIKELY(!__atomic_load_n(&s->w, __ATOMIC_ACQUIRE)) && make_worker(s, fn) < 0) {
        __atomic_fetch_sub(&s->users, 1, __ATOMIC_RELEASE);
        return NULL;
    }
    return s;
}

/* An application thread is about to use s's worker: the progress thread
 * keeps off it until it has been left alone for an interval (a relaxed
 * counter, not a lock: it only steers a heuristic). */
static inline void touch(struct req_slot *s)
{
    __atomic_store_n(&s->touched, __atomic_load_n(&s->touched, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
}

static inline struct ucx_worker *req_worker(struct shoal_net_req *r, const char *fn)
{
    if (UCX_UNLIKELY(!r->slot) && !(r->slot = take(0, fn)))
        ucx_fatalf(fn, "no UCX worker for an explicit non-blocking request");
    touch(r->slot);
    return r->slot->w;
}

/* Remember that `pe` owes r a remote completion. */
static inline void note_pe(struct shoal_net_req *r, int pe)
{
    int n = r->n_pes;
    if (UCX_UNLIKELY(n > REQ_PES))
        return;
    for (int i = 0; i < n; i++)
        if (r->pes[i] == pe)
            return;
    if (n < REQ_PES)
        r->pes[n] = pe;
    r->n_pes = n + 1;
}

int ucx_net_req_reserve(struct shoal_net_req *r, int how, const char *fn)
{
    if (r->slot)
        return 0;
    r->slot = take(how, fn);
    return r->slot ? 0 : -1;
}

void ucx_net_req_put(struct shoal_net_req *r, void *dest, const void *src, size_t n, int pe,
                     const char *fn)
{
    ucx_post_put(req_worker(r, fn), dest, src, n, pe, fn);
    note_pe(r, pe);
}

/* A get or fetching AMO just started: r waits for its UCP request, or,
 * when it already holds REQ_OPS of them, flushes its peer instead. */
static inline void keep_op(struct shoal_net_req *r, ucs_status_ptr_t op, int pe, const char *fn,
                           const char *what)
{
    if (UCX_UNLIKELY(UCS_PTR_IS_ERR(op)))
        ucx_die(fn, pe, what, UCS_PTR_STATUS(op));
    if (op == NULL)
        return; /* complete already */
    if (UCX_LIKELY(r->n_ops < REQ_OPS)) {
        r->ops[r->n_ops] = op;
        r->op_pe[r->n_ops++] = pe;
        return;
    }
    ucp_request_free(op);
    note_pe(r, pe);
}

void ucx_net_req_get(struct shoal_net_req *r, void *dest, const void *src, size_t n, int pe,
                     const char *fn)
{
    keep_op(r, ucx_start_get(req_worker(r, fn), dest, src, n, pe, fn), pe, fn, "get");
}

void ucx_net_req_amo(struct shoal_net_req *r, int op, void *fetch, const void *dest, unsigned size,
                     uint64_t value, uint64_t cond, int pe, const char *fn)
{
    if (UCX_UNLIKELY(size != 4 && size != 8))
        ucx_fatalf(fn, "%u-byte atomics have no non-blocking form over UCX", size);
    struct ucx_worker *w = req_worker(r, fn);
    if (fetch) {
        keep_op(r, ucx_start_amo(w, op, fetch, dest, size, value, cond, pe, fn), pe, fn, "atomic");
    } else {
        ucx_post_amo(w, op, fetch, dest, size, value, cond, pe, fn);
        note_pe(r, pe);
    }
}

void ucx_net_req_fence(struct shoal_net_req *r, const char *fn)
{
    if (!r->slot || r->n_pes == 0)
        return;
    ucs_status_t st = ucp_worker_fence(r->slot->w->h);
    if (st != UCS_OK)
        ucx_die(fn, -1, "fence", st);
}

/* Flush what r posted since its last flush: each peer's endpoint, or the
 * whole worker when r talked to many. */
static void start_flush(struct shoal_net_req *r, struct ucx_worker *w)
{
    ucp_request_param_t p;
    p.op_attr_mask = 0;
    if (r->n_pes > REQ_PES) {
        r->flush[0] = ucp_worker_flush_nbx(w->h, &p);
        r->flush_pe[0] = -1;
        r->n_flush = 1;
    } else {
        for (int i = 0; i < r->n_pes; i++) {
            r->flush[i] = ucp_ep_flush_nbx(w->eps[r->pes[i]], &p);
            r->flush_pe[i] = r->pes[i];
        }
        r->n_flush = r->n_pes;
    }
    r->n_pes = 0;
}

/* Drops the flushes that completed; fatal on a failed one. */
static void reap_flushes(struct shoal_net_req *r, const char *fn)
{
    int k = 0;
    for (int i = 0; i < r->n_flush; i++) {
        ucs_status_ptr_t f = r->flush[i];
        if (UCS_PTR_IS_ERR(f))
            ucx_die(fn, r->flush_pe[i], "request completion (flush)", UCS_PTR_STATUS(f));
        if (f != NULL) {
            ucs_status_t st = ucp_request_check_status(f);
            if (st == UCS_INPROGRESS) {
                r->flush[k] = f;
                r->flush_pe[k++] = r->flush_pe[i];
                continue;
            }
            ucp_request_free(f);
            if (st != UCS_OK)
                ucx_die(fn, r->flush_pe[i], "request completion (flush)", st);
        }
    }
    r->n_flush = k;
}

/* Drops the gets and fetching AMOs that completed; fatal on a failed one. */
static void reap_ops(struct shoal_net_req *r, const char *fn)
{
    int k = 0;
    for (int i = 0; i < r->n_ops; i++) {
        ucs_status_ptr_t op = r->ops[i];
        ucs_status_t st = ucp_request_check_status(op);
        if (st == UCS_INPROGRESS) {
            r->ops[k] = op;
            r->op_pe[k++] = r->op_pe[i];
            continue;
        }
        ucp_request_free(op);
        if (st != UCS_OK)
            ucx_die(fn, r->op_pe[i], "request completion (get or fetching atomic)", st);
    }
    r->n_ops = k;
}

static inline int net_done(const struct shoal_net_req *r)
{
    return !r->n_flush && !r->n_pes && !r->n_ops;
}

/* A request pending for a second: is its peer still there? */
static void watch_peer(struct shoal_net_req *r, const char *fn)
{
    const uint64_t now = ucx_now_ns();
    if (!r->pending_since)
        r->pending_since = now;
    if (now - r->pending_since < UCX_WATCH_AFTER_NS)
        return;
    ucx_peer_watch(r->n_ops          ? r->op_pe[0]
                   : r->n_flush == 1 ? r->flush_pe[0]
                                     : -1,
                   fn, r->n_ops ? "request's get or fetching atomic" : "request's completion");
}

int ucx_net_req_test(struct shoal_net_req *r, const char *fn)
{
    if (!r->slot)
        return 1;
    struct ucx_worker *w = r->slot->w;
    touch(r->slot);
    if (r->n_pes && !r->n_flush)
        start_flush(r, w);
    if (r->n_flush)
        reap_flushes(r, fn);
    if (r->n_ops)
        reap_ops(r, fn);
    if (net_done(r))
        goto done;
    unsigned did = ucp_worker_progress(w->h);
    if (!did)
        ucx_progress_target(); /* two PEs waiting on each other both serve */
    reap_flushes(r, fn);
    reap_ops(r, fn);
    if (net_done(r))
        goto done;
    watch_peer(r, fn);
    return 0;
done:
    r->pending_since = 0;
    return 1;
}

void ucx_net_req_release(struct shoal_net_req *r)
{
    if (!r->slot)
        return;
    __atomic_fetch_sub(&r->slot->users, 1, __ATOMIC_RELEASE);
    r->slot = NULL;
}

void ucx_net_req_quiet_all(const char *fn)
{
    struct req_slot *a = __atomic_load_n(&slots, __ATOMIC_ACQUIRE);
    for (int i = 0; a && i < n_slots; i++) {
        struct ucx_worker *w = __atomic_load_n(&a[i].w, __ATOMIC_ACQUIRE);
        if (w)
            ucx_flush_worker(w, fn);
    }
}

int ucx_request_progress(void)
{
    struct req_slot *a = __atomic_load_n(&slots, __ATOMIC_ACQUIRE);
    int busy = 0;
    for (int i = 0; a && i < n_slots; i++) {
        struct ucx_worker *w = __atomic_load_n(&a[i].w, __ATOMIC_ACQUIRE);
        if (!w || w->mode != UCS_THREAD_MODE_MULTI ||
            !__atomic_load_n(&a[i].users, __ATOMIC_RELAXED) ||
            !__atomic_load_n(&w->dirty, __ATOMIC_RELAXED))
            continue;
        busy = 1;
        /* Used by the application since the last look: it progresses the
         * worker itself, and competing for the worker's lock with a thread
         * that posts a large transfer would stall that thread. */
        unsigned t = __atomic_load_n(&a[i].touched, __ATOMIC_RELAXED);
        if (t != a[i].seen) {
            a[i].seen = t;
            continue;
        }
        ucp_worker_progress(w->h);
    }
    return busy;
}

void ucx_describe_requests(FILE *f, const char *prefix)
{
    int made = 0;
    for (int i = 0; slots && i < n_slots; i++)
        made += slots[i].w != NULL;
    fprintf(f,
            "%sUCX request workers (shmemx _nbe): pool of %d (SHOAL_REQUEST_WORKERS), %d created, "
            "%ld requests shared one because none was free\n",
            prefix, slots ? n_slots : ucx_cfg.request_workers, made,
            __atomic_load_n(&n_shared, __ATOMIC_RELAXED));
}

/* At finalize, while every peer still serves: the whole of each request
 * worker is flushed, the endpoints prewire made and nobody used included.
 * Their wire-up must finish here: a peer whose reply to it was still
 * queued when it destroyed its worker failed an assertion inside UCX
 * (requests.independent.ucx_tcp_slow_target). */
void ucx_request_flush_final(const char *fn)
{
    struct req_slot *a = __atomic_load_n(&slots, __ATOMIC_ACQUIRE);
    for (int i = 0; a && i < n_slots; i++) {
        struct ucx_worker *w = __atomic_load_n(&a[i].w, __ATOMIC_ACQUIRE);
        if (!w)
            continue;
        ucp_request_param_t p;
        p.op_attr_mask = 0;
        ucx_wait(w, ucp_worker_flush_nbx(w->h, &p), fn, -1, "flush (finalize)");
    }
}

/* The workers themselves go with the worker pool (ucx_worker_pool_fini). */
void ucx_request_pool_fini(void)
{
    free(slots);
    slots = NULL;
    n_slots = 0;
    rr_next = 0;
    n_shared = 0;
}
