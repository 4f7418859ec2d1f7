/* Active messages: the tag table, the send paths and shmemx_am_quiet
 * (ext/am/am.h says which route a message takes and how it completes). */
#include "ext/am/am.h"

#include <pthread.h>
#include <string.h>

#include "core/config/error.h"
#include "core/ops.h"
#include "ext/requests/request.h"
#include "core/waiting/wait.h"

_Static_assert(sizeof(struct shoal_am_area) <= SHOAL_AM_AREA_SIZE, "AM area too large");
_Static_assert(SHOAL_AM_LANES <= 32, "lanes_busy is one 32-bit word");

int shoal_am_live;

/* ------------------------------------------------------------ the tags */

/* Handlers are read by every thread that runs messages, without a lock:
 * the argument is stored before the handler (release) and read after it
 * (acquire).  Registration takes the lock so that two threads registering
 * one tag cannot both win. */
struct tag_entry {
    shoal_am_handler h;
    void *arg;
};
static struct tag_entry tags[SHOAL_AM_TAGS];
static pthread_mutex_t tags_lock = PTHREAD_MUTEX_INITIALIZER;

int shoal_am_register(int tag, shoal_am_handler h, void *arg)
{
    struct tag_entry *e = &tags[tag];
    int rc = 1;
    pthread_mutex_lock(&tags_lock);
    if (__atomic_load_n(&e->h, __ATOMIC_RELAXED) == NULL) {
        __atomic_store_n(&e->arg, arg, __ATOMIC_RELAXED);
        __atomic_store_n(&e->h, h, __ATOMIC_RELEASE);
        rc = 0;
    }
    pthread_mutex_unlock(&tags_lock);
    return rc;
}

int shoal_am_unregister(int tag)
{
    struct tag_entry *e = &tags[tag];
    pthread_mutex_lock(&tags_lock);
    int rc = __atomic_load_n(&e->h, __ATOMIC_RELAXED) == NULL;
    __atomic_store_n(&e->h, NULL, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&tags_lock);
    return rc;
}

shoal_am_handler shoal_am_handler_of(int tag, int src, void **arg, const char *fn)
{
    shoal_am_handler h = NULL;
    if (SHOAL_LIKELY((unsigned)tag < SHOAL_AM_TAGS))
        h = __atomic_load_n(&tags[tag].h, __ATOMIC_ACQUIRE);
    if (SHOAL_UNLIKELY(h == NULL))
        shoal_fatal(fn,
                    "an active message with tag %d arrived from PE %d, but PE %d has no handler "
                    "registered for tag %d (shmemx_am_register): the message cannot be handled",
                    tag, src, shoal_g.my_pe, tag);
    *arg = __atomic_load_n(&tags[tag].arg, __ATOMIC_RELAXED);
    return h;
}

void shoal_am_init(void)
{
    /* The area is in a fresh memfd (zeros: every ring slot free, every
     * lane and counter idle); only the flag is left to set. */
    shoal_am_ovf_init();
    shoal_am_rec_init();
    shoal_am_net_init();
    __atomic_store_n(&shoal_am_live, 1, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------ completion */

/* Counter 0 serves SHMEM_CTX_DEFAULT; other contexts get theirs at their
 * first send (kept by the context object, also through the context pool).
 * Past SHOAL_AM_COUNTERS contexts share counters: a quiet then waits for
 * the other contexts' messages too, which is slower, never wrong. */
static unsigned next_ctr;

static unsigned ctr_of(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_DEFAULT)
        return 0;
    uint32_t c = __atomic_load_n(&ctx->am_ctr, __ATOMIC_ACQUIRE);
    if (SHOAL_LIKELY(c != 0))
        return c - 1;
    unsigned n = __atomic_fetch_add(&next_ctr, 1, __ATOMIC_RELAXED) % (SHOAL_AM_COUNTERS - 1) + 1;
    uint32_t none = 0;
    if (!__atomic_compare_exchange_n(&ctx->am_ctr, &none, n + 1, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return none - 1; /* another thread of the context was first */
    return n;
}

/* handled + by_record >= sent, read in this order: everything sent before
 * the read of the first two was handled (their sum never passes sent).
 * _nbe messages count once some thread noticed their records moved. */
static int caught_up(void *p)
{
    struct shoal_am_counter *k = p;
    if (__atomic_load_n(&shoal_am_rec_n, __ATOMIC_RELAXED))
        shoal_am_rec_harvest();
    uint64_t h = __atomic_load_n(&k->handled, __ATOMIC_ACQUIRE) +
                 __atomic_load_n(&k->by_record, __ATOMIC_ACQUIRE);
    return h >= __atomic_load_n(&k->sent, __ATOMIC_ACQUIRE);
}

/* Waits in the wait engine (which runs handlers meanwhile) until ok(arg),
 * sleeping on the doorbell of the PE in node slot `owner`. */
static void am_wait(int owner, int (*ok)(void *), void *arg, const void *addr, const char *fn)
{
    if (ok(arg))
        return;
    struct shoal_waiter w;
    shoal_waiter_init(&w, owner, fn, addr);
    while (!ok(arg))
        shoal_backoff(&w, ok, arg);
    shoal_waiter_done(&w);
}

void shoal_am_quiet(shmem_ctx_t ctx, const char *fn)
{
    shoal_ctx_check(ctx, fn);
    if (ctx != SHMEM_CTX_DEFAULT && __atomic_load_n(&ctx->am_ctr, __ATOMIC_ACQUIRE) == 0)
        return; /* nothing was ever sent on it */
    struct shoal_am_counter *k = &shoal_am_my_area()->ctr[ctr_of(ctx)];
    am_wait(shoal_my_slot(), caught_up, k, &k->handled, fn);
}

/* The seam of completion: the sender's counter `ctr` learns that one more
 * of its messages was handled (an AMO: on-node a CPU atomic and a ring of
 * the sender's doorbell, over the network a UCX atomic; the fetching form
 * returns only once it is applied). */
void shoal_am_done(int src, unsigned ctr, const char *fn)
{
    struct shoal_am_area *a = shoal_am_my_area(); /* same offsets on `src` */
    uint64_t *h = ctr < SHOAL_AM_COUNTERS
                      ? &a->ctr[ctr].handled
                      : &a->rec_done[(ctr - SHOAL_AM_COUNTERS) % SHOAL_AM_RECORDS];
    (void)shoal_amo(SHMEM_CTX_DEFAULT, SHOAL_AMO_FADD, h, 8, 1, 0, src, fn);
}

/* --------------------------------------------------------- on-node path */

static void fill(struct shoal_am_ring *r, uint64_t pos, const struct shoal_am_slot *hdr,
                 const void *payload)
{
    struct shoal_am_slot *s = shoal_am_ring_slot(r, pos);
    s->len = hdr->len;
    s->tag = hdr->tag;
    s->src = hdr->src;
    s->ctr = hdr->ctr;
    s->kind = hdr->kind;
    s->lane = hdr->lane;
    s->ring = hdr->ring;
    if (payload && hdr->kind == SHOAL_AM_K_INLINE && hdr->len)
        memcpy(s->payload, payload, hdr->len);
    shoal_am_ring_publish(r, pos);
}

/* The one atomic of an inline send: taking the position. */
int shoal_am_try_post(int tslot, const struct shoal_am_slot *hdr, const void *payload)
{
    struct shoal_am_ring *r = &shoal_am_area_of_slot(tslot)->rings[hdr->ring];
    struct shoal_am_slot h = *hdr;
    struct shoal_am_area *me = shoal_am_my_area();
    if (h.kind == SHOAL_AM_K_LANE) {
        int lane = shoal_am_lane_take(me);
        if (lane < 0)
            return 0;
        h.lane = (uint8_t)lane;
    }
    uint64_t pos;
    if (!shoal_am_ring_claim(r, &pos)) {
        if (h.kind == SHOAL_AM_K_LANE)
            shoal_am_lane_give_back(me, h.lane);
        return 0;
    }
    if (h.kind == SHOAL_AM_K_LANE)
        memcpy(me->lanes[h.lane].data, payload, h.len);
    fill(r, pos, &h, payload);
    shoal_bell_ring_if_armed(&shoal_ctl_of_slot(tslot)->bell);
    return 1;
}

struct post_q {
    int tslot, done;
    const struct shoal_am_slot *hdr;
    const void *payload;
};

static int posted(void *p)
{
    struct post_q *q = p;
    return q->done || (q->done = !shoal_am_ovf_busy(q->tslot) &&
                                 shoal_am_try_post(q->tslot, q->hdr, q->payload));
}

/* An inline or staged message: into the ring now if there is room (and
 * nothing queued before it), else queued (from a handler) or waited for
 * (elsewhere: the wait runs handlers, which drain rings). */
static void post(int tslot, const struct shoal_am_slot *hdr, const void *payload, const char *fn)
{
    struct post_q q = {tslot, 0, hdr, payload};
    if (SHOAL_LIKELY(posted(&q)))
        return;
    if (shoal_am_depth() > 0) {
        shoal_am_ovf_add(tslot, hdr, payload, fn);
        return;
    }
    /* A full ring frees up on the target's doorbell, lanes on ours. */
    int owner = hdr->kind == SHOAL_AM_K_INLINE ? tslot : shoal_my_slot();
    am_wait(owner, posted, &q, &shoal_am_area_of_slot(tslot)->rings[hdr->ring], fn);
}

static void copy_chunk(struct shoal_am_lane *l, const void *payload, size_t len, uint64_t k)
{
    size_t off = (size_t)k * SHOAL_AM_CHUNK,
           n = len - off < SHOAL_AM_CHUNK ? len - off : SHOAL_AM_CHUNK;
    memcpy(l->data + (k & 1) * SHOAL_AM_CHUNK, (const char *)payload + off, n);
}

/* A payload larger than a lane is streamed: chunk k goes into half k mod 2
 * of the sender's lane once the target took chunk k - 2 out of it.  The
 * target copies chunks as they come whenever it polls (am_run.c), never
 * blocking, so two PEs streaming to each other (or one to itself) both
 * advance.  The first two chunks go in before the slot is posted. */
static void stream_begin(const struct shoal_am_slot *hdr, const void *payload)
{
    struct shoal_am_lane *l = &shoal_am_my_area()->lanes[hdr->lane];
    __atomic_store_n(&l->taken, 0, __ATOMIC_RELAXED);
    copy_chunk(l, payload, hdr->len, 0);
    copy_chunk(l, payload, hdr->len, 1);
    __atomic_store_n(&l->ready, 2, __ATOMIC_RELEASE);
}

int shoal_am_stream_step(int lane, const void *payload, uint64_t len)
{
    struct shoal_am_lane *l = &shoal_am_my_area()->lanes[lane];
    uint64_t n = (len + SHOAL_AM_CHUNK - 1) / SHOAL_AM_CHUNK; /* >= 3 */
    /* The next chunk to write is the count written: only its sender
     * writes `ready`, one thread at a time. */
    uint64_t k = __atomic_load_n(&l->ready, __ATOMIC_RELAXED), k0 = k;
    while (k < n && __atomic_load_n(&l->taken, __ATOMIC_ACQUIRE) + 1 >= k) {
        copy_chunk(l, payload, len, k);
        __atomic_store_n(&l->ready, ++k, __ATOMIC_RELEASE);
    }
    if (k != k0)
        shoal_bell_ring_if_armed(&shoal_my_ctl()->bell);
    return k >= n;
}

/* A lane for a streamed message, once (*lane_held), with its first two
 * chunks in: 0 while none is free. */
static int stream_take_lane(struct shoal_am_slot *hdr, const void *payload, int *lane_held)
{
    if (*lane_held)
        return 1;
    int lane = shoal_am_lane_take(shoal_am_my_area());
    if (lane < 0)
        return 0;
    hdr->lane = (uint8_t)lane;
    *lane_held = 1;
    stream_begin(hdr, payload);
    return 1;
}

int shoal_am_stream_try_post(int tslot, struct shoal_am_slot *hdr, const void *payload,
                             int *lane_held)
{
    if (!stream_take_lane(hdr, payload, lane_held))
        return 0;
    struct shoal_am_ring *r = &shoal_am_area_of_slot(tslot)->rings[hdr->ring];
    uint64_t pos;
    if (!shoal_am_ring_claim(r, &pos))
        return 0;
    fill(r, pos, hdr, NULL);
    shoal_bell_ring_if_armed(&shoal_ctl_of_slot(tslot)->bell);
    return 1;
}

struct stream_q {
    int tslot, lane_held, posted;
    struct shoal_am_slot *hdr;
    const void *payload;
};

/* A lane, then the slot once what was queued for the target is in (each
 * wait's condition may be asked again after it held: latched). */
static int stream_lane(void *p)
{
    struct stream_q *q = p;
    return stream_take_lane(q->hdr, q->payload, &q->lane_held);
}

static int stream_posted(void *p)
{
    struct stream_q *q = p;
    return q->posted ||
           (q->posted = !shoal_am_ovf_busy(q->tslot) &&
                        shoal_am_stream_try_post(q->tslot, q->hdr, q->payload, &q->lane_held));
}

static int stream_written(void *p)
{
    struct stream_q *q = p;
    return shoal_am_stream_step(q->hdr->lane, q->payload, q->hdr->len);
}

/* A streamed send outside handlers takes part until its last chunk is in
 * the lane: it waits for a lane (lanes come back on this PE's doorbell),
 * for room in the ring (the target's), and for the target to take chunks
 * (ours), running handlers meanwhile. */
static void stream(int tslot, struct shoal_am_slot *hdr, const void *payload, const char *fn)
{
    struct shoal_am_area *me = shoal_am_my_area();
    struct stream_q q = {tslot, 0, 0, hdr, payload};
    am_wait(shoal_my_slot(), stream_lane, &q, &me->lanes_busy, fn);
    am_wait(tslot, stream_posted, &q, &shoal_am_area_of_slot(tslot)->rings[hdr->ring], fn);
    /* (hdr->lane is set once the first wait is over) */
    am_wait(shoal_my_slot(), stream_written, &q, &me->lanes[hdr->lane].taken, fn);
}

static void send_mapped(int tslot, int tag, unsigned ring, unsigned ctr, const void *payload,
                        size_t len, const char *fn)
{
    struct shoal_am_slot hdr = {.len = len,
                                .tag = tag,
                                .src = shoal_g.my_pe,
                                .ctr = (uint16_t)ctr,
                                .ring = (uint16_t)(ring % SHOAL_AM_RINGS)};
    if (len <= SHOAL_AM_LANE_SIZE) {
        hdr.kind = len <= SHOAL_AM_INLINE ? SHOAL_AM_K_INLINE : SHOAL_AM_K_LANE;
        post(tslot, &hdr, payload, fn);
        return;
    }
    /* Streamed.  From a handler it never waits: a copy is queued, and
     * pollers post it and write its chunks as the target takes them (a
     * handler waiting for its target to take chunks could wait for a
     * handler of its own thread further up the stack, or for a target
     * doing the same: am.flood_big). */
    hdr.kind = SHOAL_AM_K_STREAM;
    if (shoal_am_depth() > 0)
        shoal_am_ovf_add(tslot, &hdr, payload, fn);
    else
        stream(tslot, &hdr, payload, fn);
}

/* `done`: where the target reports the message handled (a counter or a
 * record); `ctr`: the context's counter, which counts it as sent. */
static void send_to(shmem_ctx_t ctx, int wpe, int tag, unsigned ctr, unsigned done,
                    const void *payload, size_t len, const char *fn)
{
    /* Counted before it can be handled: a quiet never sees handled > sent. */
    __atomic_fetch_add(&shoal_am_my_area()->ctr[ctr].sent, 1, __ATOMIC_RELEASE);
    int tslot = shoal_slot(wpe);
    if (SHOAL_LIKELY(tslot >= 0))
        send_mapped(tslot, tag, ctr, done, payload, len, fn);
    else if (!shoal_net_am_send(ctx->net, wpe, tag, done, payload, len, fn))
        shoal_am_net_send(ctx->net, wpe, tag, done, payload, len, fn);
}

void shoal_am_send(shmem_ctx_t ctx, int pe, int tag, const void *payload, size_t len,
                   const char *fn)
{
    shoal_ctx_check(ctx, fn);
    int wpe = shoal_ctx_pe(ctx, pe, fn);
    unsigned ctr = ctr_of(ctx);
    send_to(ctx, wpe, tag, ctr, ctr, payload, len, fn);
}

void shoal_am_send_nbe(shmem_ctx_t ctx, int pe, int tag, const void *payload, size_t len,
                       struct shmemx_request **req, const char *fn)
{
    shoal_ctx_check(ctx, fn);
    int wpe = shoal_ctx_pe(ctx, pe, fn);
    struct shmemx_request *r = shoal_request_join(req, fn);
    unsigned ctr = ctr_of(ctx);
    send_to(ctx, wpe, tag, ctr, shoal_am_rec_take(r, ctr, fn), payload, len, fn);
}
