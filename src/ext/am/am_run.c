/* Running active-message handlers (ext/am/am.h): any thread that polls or
 * waits inside Shoal takes the next message, from this PE's on-node ring,
 * its network ring (am_net.c) or the inbox the network transport fills,
 * and runs its handler.
 *
 * Order: one thread that handles everything sees the ring's messages in
 * the order of their positions (each sender's in the order it sent them)
 * and the inbox's in arrival order; several handling threads may finish
 * them in any order.  A streamed payload (larger than a lane) is copied
 * in as its chunks come, by whichever thread polls, without blocking; until
 * it is complete no further message leaves the ring, so the order holds. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "ext/am/am.h"
#include "core/config/error.h"
#include "transport/net.h"
#include "core/ops.h"

int shoal_am_inbox_n;
int shoal_am_stream_busy;

/* Handlers running on this thread now (handlers that wait or poll). */
static __thread int depth;
/* The ring this thread looks at first next. */
static __thread unsigned next_ring;

int shoal_am_depth(void)
{
    return depth;
}

/* ------------------------------------------------------------ the inbox */

static pthread_mutex_t inbox_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shoal_net_am_msg *inbox_head, *inbox_tail;

void shoal_am_arrived(struct shoal_net_am_msg *m)
{
    m->next = NULL;
    pthread_mutex_lock(&inbox_lock);
    if (inbox_tail)
        inbox_tail->next = m;
    else
        inbox_head = m;
    inbox_tail = m;
    __atomic_add_fetch(&shoal_am_inbox_n, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&inbox_lock);
    shoal_bell_ring_if_armed(&shoal_my_ctl()->bell);
}

/* The oldest message, once its payload is there (a rendezvous message
 * still arriving keeps the later ones back: order). */
static struct shoal_net_am_msg *inbox_take(void)
{
    if (__atomic_load_n(&shoal_am_inbox_n, __ATOMIC_ACQUIRE) == 0)
        return NULL;
    pthread_mutex_lock(&inbox_lock);
    struct shoal_net_am_msg *m = inbox_head;
    if (m && __atomic_load_n(&m->ready, __ATOMIC_ACQUIRE)) {
        inbox_head = m->next;
        if (!inbox_head)
            inbox_tail = NULL;
        __atomic_sub_fetch(&shoal_am_inbox_n, 1, __ATOMIC_RELAXED);
    } else {
        m = NULL;
    }
    pthread_mutex_unlock(&inbox_lock);
    return m;
}

static void run_net(struct shoal_net_am_msg *m, const char *fn)
{
    void *arg;
    shoal_am_handler h = shoal_am_handler_of(m->tag, m->src, &arg, fn);
    int src = m->src;
    unsigned ctr = m->ctr;
    h(src, m->payload, m->len, arg);
    shoal_net_am_release(m);
    shoal_am_done(src, ctr, fn);
}

/* ------------------------------------------------- the streamed payload */

/* A streamed message: the current one is copied in as its chunks come;
 * those taken from the ring after it wait in `pending`, in order.  The
 * lock is held only for copies and list changes (never across a wait or a
 * handler), so spinning on it cannot deadlock. */
struct stream_msg {
    struct stream_msg *next;
    int src, tag, src_slot;
    unsigned ctr, lane;
    size_t len;
    uint64_t next_chunk, n; /* next chunk to copy, chunks in all */
    unsigned char *buf;
};
static struct {
    int lock;
    struct stream_msg *cur, *pend_head, *pend_tail;
} st;

static int stream_trylock(void)
{
    return !__atomic_load_n(&st.lock, __ATOMIC_RELAXED) &&
           !__atomic_exchange_n(&st.lock, 1, __ATOMIC_ACQUIRE);
}

static void stream_lock(void)
{
    while (!stream_trylock())
        sched_yield();
}

static void stream_unlock(void)
{
    __atomic_store_n(&st.lock, 0, __ATOMIC_RELEASE);
}

/* Copies the chunks of the current message that its sender has written
 * (lock held); 1 when the whole payload is in (its lane is given back). */
static int stream_copy(struct stream_msg *m)
{
    struct shoal_am_area *sa = shoal_am_area_of_slot(m->src_slot);
    struct shoal_am_lane *l = &sa->lanes[m->lane];
    uint32_t *bell = &shoal_ctl_of_slot(m->src_slot)->bell;
    uint64_t ready = __atomic_load_n(&l->ready, __ATOMIC_ACQUIRE);
    while (m->next_chunk < ready) {
        size_t off = (size_t)m->next_chunk * SHOAL_AM_CHUNK;
        size_t n = m->len - off < SHOAL_AM_CHUNK ? m->len - off : SHOAL_AM_CHUNK;
        memcpy(m->buf + off, l->data + (m->next_chunk & 1) * SHOAL_AM_CHUNK, n);
        m->next_chunk++;
        __atomic_store_n(&l->taken, m->next_chunk, __ATOMIC_RELEASE);
        shoal_bell_ring_if_armed(bell);
    }
    if (m->next_chunk < m->n)
        return 0;
    shoal_am_lane_give_back(sa, (int)m->lane);
    shoal_bell_ring_if_armed(bell);
    return 1;
}

/* Lock held, the current message complete: the next pending one becomes
 * current, the lock is released, and the handler runs. */
static void stream_finish(const char *fn)
{
    struct stream_msg *m = st.cur;
    st.cur = st.pend_head;
    if (st.pend_head) {
        st.pend_head = st.pend_head->next;
        if (!st.pend_head)
            st.pend_tail = NULL;
    }
    __atomic_store_n(&shoal_am_stream_busy, st.cur != NULL, __ATOMIC_RELEASE);
    stream_unlock();
    void *arg;
    shoal_am_handler h = shoal_am_handler_of(m->tag, m->src, &arg, fn);
    h(m->src, m->buf, m->len, arg);
    int src = m->src;
    unsigned ctr = m->ctr;
    free(m->buf);
    free(m);
    shoal_am_done(src, ctr, fn);
}

/* Advances the current stream: 1 when this thread completed it (and ran
 * its handler), 0 otherwise (nothing new, or another thread copies). */
static int stream_advance(const char *fn)
{
    if (!stream_trylock())
        return 0;
    if (!st.cur || !stream_copy(st.cur)) {
        stream_unlock();
        return 0;
    }
    stream_finish(fn);
    return 1;
}

/* A streamed message left the ring: it becomes current, or waits behind
 * the current one. */
static int stream_start(const struct shoal_am_slot *s, const char *fn)
{
    void *arg;
    (void)shoal_am_handler_of(s->tag, s->src, &arg, fn); /* report a bad tag now */
    struct stream_msg *m = calloc(1, sizeof *m);
    unsigned char *buf = malloc(s->len);
    if (!m || !buf)
        shoal_fatal(fn, "out of memory for an active message of %llu bytes from PE %d",
                    (unsigned long long)s->len, s->src);
    *m = (struct stream_msg){.src = s->src,
                             .tag = s->tag,
                             .src_slot = shoal_slot(s->src),
                             .ctr = s->ctr,
                             .lane = s->lane,
                             .len = s->len,
                             .n = (s->len + SHOAL_AM_CHUNK - 1) / SHOAL_AM_CHUNK,
                             .buf = buf};
    stream_lock();
    if (st.cur) {
        if (st.pend_tail)
            st.pend_tail->next = m;
        else
            st.pend_head = m;
        st.pend_tail = m;
        stream_unlock();
        return 0;
    }
    st.cur = m;
    __atomic_store_n(&shoal_am_stream_busy, 1, __ATOMIC_RELEASE);
    if (!stream_copy(m)) {
        stream_unlock();
        return 0;
    }
    stream_finish(fn);
    return 1;
}

static void stream_free_all(void)
{
    struct stream_msg *m = st.cur;
    if (m)
        m->next = st.pend_head;
    else
        m = st.pend_head;
    while (m) {
        struct stream_msg *next = m->next;
        free(m->buf);
        free(m);
        m = next;
    }
    st.cur = st.pend_head = st.pend_tail = NULL;
}

/* ------------------------------------------------------------- the ring */

/* Runs the message at ring position `pos` (slot `s`, taken); returns the
 * number of handlers that ran (0 for a stream that is not complete). */
static int run_slot(struct shoal_am_ring *r, struct shoal_am_slot *s, uint64_t pos, const char *fn)
{
    int src = s->src, tag = s->tag, kind = s->kind, lane = s->lane;
    unsigned ctr = s->ctr;
    size_t len = (size_t)s->len;
    uint32_t *my_bell = &shoal_my_ctl()->bell;
    if (kind == SHOAL_AM_K_STREAM) {
        struct shoal_am_slot copy = *s;
        shoal_am_ring_release(r, pos);
        shoal_bell_ring_if_armed(my_bell);
        return stream_start(&copy, fn);
    }
    void *arg;
    shoal_am_handler h = shoal_am_handler_of(tag, src, &arg, fn);
    if (kind == SHOAL_AM_K_INLINE) {
        /* Copied out, so that the slot is free while the handler runs: a
         * handler that sends (and waits for a slot somewhere) must not hold
         * one of this ring's slots meanwhile. */
        _Alignas(16) unsigned char copy[SHOAL_AM_INLINE];
        memcpy(copy, s->payload, len);
        shoal_am_ring_release(r, pos);
        shoal_bell_ring_if_armed(my_bell);
        h(src, copy, len, arg);
    } else {
        shoal_am_ring_release(r, pos);
        shoal_bell_ring_if_armed(my_bell);
        int sslot = shoal_slot(src);
        struct shoal_am_area *sa = shoal_am_area_of_slot(sslot);
        h(src, sa->lanes[lane].data, len, arg);
        shoal_am_lane_give_back(sa, lane);
        shoal_bell_ring_if_armed(&shoal_ctl_of_slot(sslot)->bell);
    }
    shoal_am_done(src, ctr, fn);
    return 1;
}

size_t shoal_am_run(size_t max, const char *fn)
{
    if (!__atomic_load_n(&shoal_am_live, __ATOMIC_ACQUIRE))
        return 0;
    /* Noticing completions runs no handler: also at any depth. */
    if (__atomic_load_n(&shoal_am_rec_n, __ATOMIC_RELAXED))
        shoal_am_rec_harvest();
    /* Nor does moving sends to the network on. */
    if (__atomic_load_n(&shoal_am_net_busy, __ATOMIC_RELAXED))
        shoal_am_net_service(fn);
    /* Nor does writing the chunks of streams sent from handlers. */
    if (__atomic_load_n(&shoal_am_ovf_n, __ATOMIC_RELAXED))
        shoal_am_ovf_streams();
    if (depth >= SHOAL_AM_MAX_DEPTH)
        return 0;
    depth++;
    if (__atomic_load_n(&shoal_am_ovf_n, __ATOMIC_RELAXED))
        shoal_am_ovf_flush();
    struct shoal_am_ring *rings = shoal_am_my_area()->rings, *r = NULL;
    size_t n = 0;
    while (n < max) {
        struct shoal_am_slot *s = NULL;
        uint64_t pos;
        if (__atomic_load_n(&shoal_am_stream_busy, __ATOMIC_ACQUIRE)) {
            if (stream_advance(fn)) {
                n++;
                continue;
            }
        } else {
            /* Each thread starts at its own ring (fewer consumers meet on
             * one head); every ring is looked at before the inbox. */
            unsigned k0 = next_ring++;
            for (unsigned k = 0; k < SHOAL_AM_RINGS && !s; k++) {
                r = &rings[(k0 + k) % SHOAL_AM_RINGS];
                s = shoal_am_ring_take(r, &pos);
            }
        }
        if (s) {
            n += (size_t)run_slot(r, s, pos, fn);
            continue;
        }
        int k = shoal_am_net_run_one(fn);
        if (k >= 0) {
            n += (size_t)k;
            continue;
        }
        struct shoal_net_am_msg *m = inbox_take();
        if (!m)
            break;
        run_net(m, fn);
        n++;
    }
    depth--;
    return n;
}

/* The progress thread runs handlers only where the program allows threads
 * it did not create to call into Shoal alongside its own. */
size_t shoal_am_progress_thread_run(void)
{
    if (shoal_g.thread_level != SHMEM_THREAD_MULTIPLE)
        return 0;
    return shoal_am_run(SHOAL_AM_BATCH, "the progress thread");
}

void shoal_am_fini(void)
{
    __atomic_store_n(&shoal_am_live, 0, __ATOMIC_RELEASE);
    pthread_mutex_lock(&inbox_lock);
    while (inbox_head) {
        struct shoal_net_am_msg *m = inbox_head;
        inbox_head = m->next;
        if (__atomic_load_n(&m->ready, __ATOMIC_ACQUIRE))
            shoal_net_am_release(m);
    }
    inbox_tail = NULL;
    __atomic_store_n(&shoal_am_inbox_n, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&inbox_lock);
    stream_free_all();
    shoal_am_ovf_fini();
    shoal_am_net_fini();
    __atomic_store_n(&shoal_am_stream_busy, 0, __ATOMIC_RELAXED);
    /* Records still in flight are dropped with their requests. */
    __atomic_store_n(&shoal_am_rec_n, 0, __ATOMIC_RELAXED);
}
