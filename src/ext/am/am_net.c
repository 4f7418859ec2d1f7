/* Active messages to PEs the network reaches (another node, or every PE
 * under SHOAL_TRANSPORTS=ucx), carried by the network's RMA and atomics
 * (transport/net.h) into the target's network ring (struct shoal_am_net_ring in
 * its message area, transport/shm/shm_am.h), unless the transport carries
 * messages itself (UCP AM: SHOAL_UCX_AM).  The ring's words are touched by
 * network operations only (never CPU atomics, which need not be coherent
 * with them); the on-node rings are not touched.
 *
 * A send: one network fetch-add on the target's `tail` takes position p;
 * once p < head + N (head: the count the target published, cached here
 * per target and fetched again only when the ring looks full) the slot
 * (header and inline payload) is put, a fence orders it, and a put of the
 * slot's `seq` = p + 1 publishes it.  A payload larger than a slot goes in
 * parts of up to a lane: each part is copied into one of the sender's
 * lanes (its message area, registered too), the slot names the lane, and
 * the target fetches the part with a get and gives the lane back with a
 * network add on the sender's net_lane_done word; the sender notices that
 * (service) and frees the lane.  The handler runs when the last part is in.
 *
 * A sender takes a lane before its position (it never holds a position
 * while it waits for a lane: the lanes come back only as targets take the
 * positions before it).  A send that cannot finish at once (no lane, no
 * room) is queued: from a handler with a copy of its payload, and it
 * returns (handlers never wait); elsewhere the sender waits, running
 * handlers, until pollers finished it.  Queued sends take new positions in
 * queue order (order of one context's messages), and a queued send that
 * holds a position is written as soon as there is room.
 *
 * The target: a thread that polls takes the next position under a lock,
 * copies the slot out (or fetches the part), publishes the count it took
 * every N/4 positions (a network set on its own `head`), and runs the
 * handler after releasing the lock.  Completion is shoal_am_done's, as
 * for every message. */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ext/am/am.h"
#include "core/config/error.h"
#include "transport/net.h"
#include "core/ops.h"
#include "core/waiting/wait.h"

#define NS SHOAL_AM_NET_SLOTS
#define PUBLISH_EVERY (NS / 4)

uint64_t shoal_am_net_head;
int shoal_am_net_busy;

/* ---------------------------------------------------------------- lanes */

/* Lanes lent to the network: bit i set while lane i holds a part that its
 * target has not fetched; it is done once net_lane_done[i] reaches
 * want[i].  Only a thread holding lanes_lock gives lanes back (so a bit
 * cannot be cleared for a later use of the lane). */
static uint32_t lanes_lent;
static uint64_t lane_want[SHOAL_AM_LANES], lane_used[SHOAL_AM_LANES];
static pthread_mutex_t lanes_lock = PTHREAD_MUTEX_INITIALIZER;

static void lane_lend(int i)
{
    __atomic_store_n(&lane_want[i], ++lane_used[i], __ATOMIC_RELAXED);
    __atomic_add_fetch(&shoal_am_net_busy, 1, __ATOMIC_RELAXED);
    __atomic_fetch_or(&lanes_lent, 1u << i, __ATOMIC_RELEASE);
}

static void lanes_harvest(void)
{
    if (!__atomic_load_n(&lanes_lent, __ATOMIC_ACQUIRE) || pthread_mutex_trylock(&lanes_lock))
        return;
    struct shoal_am_area *me = shoal_am_my_area();
    uint32_t m = __atomic_load_n(&lanes_lent, __ATOMIC_ACQUIRE);
    while (m) {
        int i = __builtin_ctz(m);
        m &= m - 1;
        if (__atomic_load_n(&me->net_lane_done[i], __ATOMIC_ACQUIRE) <
            __atomic_load_n(&lane_want[i], __ATOMIC_RELAXED))
            continue;
        __atomic_fetch_and(&lanes_lent, ~(1u << i), __ATOMIC_RELAXED);
        __atomic_sub_fetch(&shoal_am_net_busy, 1, __ATOMIC_RELAXED);
        shoal_am_lane_give_back(me, i);
    }
    pthread_mutex_unlock(&lanes_lock);
}

static int lane_take(void)
{
    int lane = shoal_am_lane_take(shoal_am_my_area());
    if (lane < 0 && __atomic_load_n(&lanes_lent, __ATOMIC_RELAXED)) {
        lanes_harvest();
        lane = shoal_am_lane_take(shoal_am_my_area());
    }
    return lane;
}

/* ---------------------------------------------------------------- sends */

struct job {
    struct job *next;
    int pe, tag;
    unsigned ctr;
    const unsigned char *payload;
    size_t len;
    unsigned char *owned; /* a queued copy (sent from a handler): freed when done */
    size_t off;           /* bytes written in earlier parts */
    size_t part;          /* the current part's bytes (in `lane`) */
    uint64_t id;          /* parts' key at the target */
    int lane;             /* the current part's lane, or -1 */
    int have_pos;
    uint64_t pos;
    int done;       /* a waiting sender's job: finished (release) */
    const char *fn; /* the sending routine, for errors while it waits */
};

/* Per target world PE: the largest head it was seen to publish. */
static uint64_t *head_cache;
static uint64_t next_id;

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static struct job *q_head, *q_tail;
static int q_n;

static struct shoal_am_net_ring *net_ring(void)
{
    return &shoal_am_my_area()->net; /* the same address on every PE */
}

/* Is there room for position pos in pe's ring? */
static int room(struct shoal_net_ctx *net, int pe, uint64_t pos, const char *fn)
{
    if (pos < __atomic_load_n(&head_cache[pe], __ATOMIC_RELAXED) + NS)
        return 1;
    uint64_t h = shoal_net_amo(net, SHOAL_AMO_FETCH, &net_ring()->head, 8, 0, 0, pe, fn);
    uint64_t c = __atomic_load_n(&head_cache[pe], __ATOMIC_RELAXED);
    while (c < h && !__atomic_compare_exchange_n(&head_cache[pe], &c, h, 1, __ATOMIC_RELAXED,
                                                 __ATOMIC_RELAXED))
        ;
    return pos < h + NS;
}

/* Writes the job's current slot at its position (there is room). */
static void write_slot(struct shoal_net_ctx *net, struct job *j, const char *fn)
{
    struct shoal_am_slot s;
    size_t bytes = offsetof(struct shoal_am_slot, payload);
    memset(&s, 0, bytes);
    s.len = j->len;
    s.tag = j->tag;
    s.src = shoal_g.my_pe;
    s.ctr = (uint16_t)j->ctr;
    if (j->lane < 0) {
        s.kind = SHOAL_AM_K_INLINE;
        if (j->len)
            memcpy(s.payload, j->payload, j->len);
        bytes += j->len;
    } else {
        s.kind = SHOAL_AM_K_NET_PART;
        s.lane = (uint8_t)j->lane;
        struct shoal_am_net_part p = {j->off, j->part, j->id};
        memcpy(s.payload, &p, sizeof p);
        bytes += sizeof p;
        lane_lend(j->lane); /* before the target can give it back */
    }
    struct shoal_am_slot *d = &net_ring()->slots[j->pos % NS];
    const size_t at = offsetof(struct shoal_am_slot, len);
    shoal_net_put(net, (char *)d + at, (char *)&s + at, bytes - at, j->pe, 0, fn);
    shoal_net_fence(net); /* the target sees seq only after the rest */
    uint64_t seq = j->pos + 1;
    shoal_net_put(net, &d->seq, &seq, sizeof seq, j->pe, 0, fn);
}

/* Advances the job without waiting: 1 once its last slot is written.
 * `may_claim` 0: write the part that holds a position, take no new one. */
static int step(struct job *j, struct shoal_net_ctx *net, int may_claim, const char *fn)
{
    for (;;) {
        if (!j->have_pos) {
            if (!may_claim)
                return 0;
            if (j->len > SHOAL_AM_INLINE) {
                int lane = lane_take();
                if (lane < 0)
                    return 0;
                j->lane = lane;
                j->part =
                    j->len - j->off < SHOAL_AM_LANE_SIZE ? j->len - j->off : SHOAL_AM_LANE_SIZE;
                memcpy(shoal_am_my_area()->lanes[lane].data, j->payload + j->off, j->part);
            }
            j->pos = shoal_net_amo(net, SHOAL_AMO_FADD, &net_ring()->tail, 8, 1, 0, j->pe, fn);
            j->have_pos = 1;
        }
        if (!room(net, j->pe, j->pos, fn))
            return 0;
        write_slot(net, j, fn);
        j->have_pos = 0;
        if (j->lane < 0)
            return 1;
        j->lane = -1;
        j->off += j->part;
        if (j->off >= j->len)
            return 1;
    }
}

/* Queued sends that can go on, in order (a queue another thread works on
 * is skipped).  The queue's sends use the default context's network
 * state: the calling thread's. */
static void flush(const char *fn)
{
    if (!__atomic_load_n(&q_n, __ATOMIC_ACQUIRE) || pthread_mutex_trylock(&q_lock))
        return;
    struct shoal_net_ctx *net = SHMEM_CTX_DEFAULT->net;
    int may_claim = 1;
    for (struct job **pp = &q_head, *j, *prev = NULL; (j = *pp);) {
        if (!(j->have_pos || may_claim) || !step(j, net, may_claim, fn)) {
            may_claim = 0; /* later sends take positions after this one's */
            prev = j;
            pp = &j->next;
            continue;
        }
        *pp = j->next;
        if (q_tail == j)
            q_tail = prev;
        __atomic_sub_fetch(&shoal_am_net_busy, 1, __ATOMIC_RELAXED);
        __atomic_sub_fetch(&q_n, 1, __ATOMIC_RELEASE);
        if (j->owned) {
            free(j->owned);
            free(j);
        } else {
            __atomic_store_n(&j->done, 1, __ATOMIC_RELEASE); /* its sender returns */
        }
    }
    pthread_mutex_unlock(&q_lock);
}

static void enqueue(struct job *j)
{
    j->next = NULL;
    pthread_mutex_lock(&q_lock);
    if (q_tail)
        q_tail->next = j;
    else
        q_head = j;
    q_tail = j;
    __atomic_add_fetch(&shoal_am_net_busy, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&q_n, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&q_lock);
}

void shoal_am_net_service(const char *fn)
{
    lanes_harvest();
    flush(fn);
}

static int job_done(void *p)
{
    struct job *j = p;
    if (__atomic_load_n(&j->done, __ATOMIC_ACQUIRE))
        return 1;
    shoal_am_net_service(j->fn);
    return __atomic_load_n(&j->done, __ATOMIC_ACQUIRE);
}

void shoal_am_net_send(struct shoal_net_ctx *net, int pe, int tag, unsigned ctr,
                       const void *payload, size_t len, const char *fn)
{
    struct job j = {
        .pe = pe, .tag = tag, .ctr = ctr, .payload = payload, .len = len, .lane = -1, .fn = fn};
    if (len > SHOAL_AM_INLINE)
        j.id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
    /* Behind queued sends (order) unless there are none. */
    if (SHOAL_LIKELY(!__atomic_load_n(&q_n, __ATOMIC_ACQUIRE)) && step(&j, net, 1, fn))
        return;
    if (shoal_am_depth() > 0) {
        struct job *q = malloc(sizeof *q);
        unsigned char *copy = malloc(len ? len : 1);
        if (!q || !copy)
            shoal_fatal(fn, "out of memory for an active message of %zu bytes to PE %d", len, pe);
        if (len)
            memcpy(copy, payload, len);
        *q = j;
        q->owned = copy;
        q->payload = copy;
        enqueue(q);
        return;
    }
    enqueue(&j);
    if (job_done(&j))
        return;
    struct shoal_waiter w;
    shoal_waiter_init(&w, shoal_my_slot(), fn, &j.done);
    while (!job_done(&j))
        shoal_backoff(&w, job_done, &j);
    shoal_waiter_done(&w);
}

/* --------------------------------------------------------------- target */

/* A message whose parts are coming in, by sender and id. */
struct assembly {
    struct assembly *next;
    int src;
    uint64_t id;
    unsigned char *buf;
};

static pthread_mutex_t take_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t published;
static struct assembly *assembling;

/* Under take_lock: the buffer of part p of the message from src (a new
 * one for its first part). */
static unsigned char *assembly_buf(int src, const struct shoal_am_net_part *p, size_t len,
                                   const char *fn)
{
    if (p->off == 0) {
        unsigned char *buf = malloc(len);
        struct assembly *a = p->n == len ? NULL : malloc(sizeof *a);
        if (!buf || (p->n != len && !a))
            shoal_fatal(fn, "out of memory for an active message of %zu bytes from PE %d", len,
                        src);
        if (a) {
            *a = (struct assembly){assembling, src, p->id, buf};
            assembling = a;
        }
        return buf;
    }
    for (struct assembly **pp = &assembling, *a; (a = *pp); pp = &a->next) {
        if (a->src != src || a->id != p->id)
            continue;
        unsigned char *buf = a->buf;
        if (p->off + p->n == len) { /* the last part: no longer assembling */
            *pp = a->next;
            free(a);
        }
        return buf;
    }
    shoal_fatal(fn, "a part of an active message from PE %d arrived before its first part", src);
}

int shoal_am_net_run_one(const char *fn)
{
    if (!shoal_am_net_ready() || pthread_mutex_trylock(&take_lock))
        return -1;
    struct shoal_am_net_ring *r = net_ring();
    uint64_t h = shoal_am_net_head;
    const struct shoal_am_slot *s = &r->slots[h % NS];
    if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != h + 1) {
        pthread_mutex_unlock(&take_lock);
        return -1;
    }
    struct shoal_net_ctx *net = SHMEM_CTX_DEFAULT->net;
    int src = s->src, tag = s->tag;
    unsigned ctr = s->ctr;
    size_t len = (size_t)s->len;
    int run = 1;
    _Alignas(16) unsigned char inl[SHOAL_AM_INLINE];
    unsigned char *buf = NULL;
    if (s->kind == SHOAL_AM_K_INLINE) {
        memcpy(inl, s->payload, len);
    } else {
        struct shoal_am_net_part p;
        memcpy(&p, s->payload, sizeof p);
        unsigned lane = s->lane;
        buf = assembly_buf(src, &p, len, fn);
        shoal_net_get(net, buf + p.off, shoal_am_my_area()->lanes[lane].data, p.n, src, 0, fn);
        shoal_net_amo(net, SHOAL_AMO_ADD, &shoal_am_my_area()->net_lane_done[lane], 8, 1, 0, src,
                      fn);
        run = p.off + p.n == len;
    }
    __atomic_store_n(&shoal_am_net_head, h + 1, __ATOMIC_RELEASE);
    if (h + 1 - published >= PUBLISH_EVERY) {
        published = h + 1;
        shoal_net_amo(net, SHOAL_AMO_SET, &r->head, 8, h + 1, 0, shoal_g.my_pe, fn);
    }
    pthread_mutex_unlock(&take_lock);
    if (!run)
        return 0;
    void *arg;
    shoal_am_handler fh = shoal_am_handler_of(tag, src, &arg, fn);
    fh(src, buf ? buf : inl, len, arg);
    free(buf);
    shoal_am_done(src, ctr, fn);
    return 1;
}

/* ------------------------------------------------------------ life cycle */

void shoal_am_net_init(void)
{
    /* The area is fresh (zeros) at every init: so is this state. */
    shoal_am_net_head = published = 0;
    lanes_lent = 0;
    memset(lane_want, 0, sizeof lane_want);
    memset(lane_used, 0, sizeof lane_used);
    head_cache = calloc((size_t)shoal_g.n_pes, sizeof *head_cache);
    if (!head_cache)
        shoal_fatal("shmem_init", "out of memory (active-message network state)");
}

void shoal_am_net_fini(void)
{
    /* Sends still queued and messages half assembled are dropped. */
    pthread_mutex_lock(&q_lock);
    for (struct job *j = q_head, *next; j; j = next) {
        next = j->next;
        if (j->owned) {
            free(j->owned);
            free(j);
        }
    }
    q_head = q_tail = NULL;
    __atomic_store_n(&q_n, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&q_lock);
    pthread_mutex_lock(&take_lock);
    for (struct assembly *a = assembling, *next; a; a = next) {
        next = a->next;
        free(a->buf);
        free(a);
    }
    assembling = NULL;
    pthread_mutex_unlock(&take_lock);
    __atomic_store_n(&shoal_am_net_busy, 0, __ATOMIC_RELAXED);
    free(head_cache);
    head_cache = NULL;
}
