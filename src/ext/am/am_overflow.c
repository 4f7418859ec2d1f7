/* Messages that cannot enter the target's ring yet, sent from inside a
 * handler (ext/am/am.h).  A handler must never wait for a ring slot or a
 * staging lane: its thread would then run further handlers inside the wait
 * (each deeper on the stack), and PEs whose handlers all send to each
 * other's full rings would end up nested too deep to drain anything.  So
 * such a message is copied here, per target PE, and enters the ring later,
 * from any polling or waiting thread (shoal_am_run).  While a target has
 * messages here, every later message to it queues behind them (order).
 * A streamed message queued here is, once in the ring, moved to the list
 * of streams whose chunks pollers write as the target takes them; its copy
 * is freed when the last chunk is in the lane. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ext/am/am.h"
#include "core/config/error.h"

struct ovf_msg {
    struct ovf_msg *next;
    struct shoal_am_slot hdr; /* payload below, not in hdr */
    int lane_held;            /* streamed: its lane is taken (hdr.lane) */
    _Alignas(16) unsigned char data[];
};

struct ovf_q {
    pthread_mutex_t lock;
    struct ovf_msg *head, *tail;
    int n;
};

static struct ovf_q *queues; /* per node slot */
static int n_queues;
/* Queued messages plus streams being written: pending work for pollers. */
int shoal_am_ovf_n;

/* Streamed messages in the ring whose chunks are still being written. */
static pthread_mutex_t streams_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ovf_msg *streams;

static void free_list(struct ovf_msg *m)
{
    for (struct ovf_msg *next; m; m = next) {
        next = m->next;
        free(m);
    }
}

void shoal_am_ovf_init(void)
{
    n_queues = shoal_g.n_local > 0 ? shoal_g.n_local : 1;
    queues = calloc((size_t)n_queues, sizeof *queues);
    if (!queues)
        shoal_fatal("shmem_init", "out of memory (active-message queues)");
    for (int i = 0; i < n_queues; i++)
        pthread_mutex_init(&queues[i].lock, NULL);
}

void shoal_am_ovf_fini(void)
{
    for (int i = 0; i < n_queues; i++) {
        free_list(queues[i].head);
        pthread_mutex_destroy(&queues[i].lock);
    }
    free_list(streams);
    streams = NULL;
    free(queues);
    queues = NULL;
    n_queues = 0;
    __atomic_store_n(&shoal_am_ovf_n, 0, __ATOMIC_RELAXED);
}

int shoal_am_ovf_busy(int tslot)
{
    return tslot < n_queues && __atomic_load_n(&queues[tslot].n, __ATOMIC_ACQUIRE) != 0;
}

void shoal_am_ovf_add(int tslot, const struct shoal_am_slot *hdr, const void *payload,
                      const char *fn)
{
    if (tslot >= n_queues)
        shoal_fatal(fn, "node slot %d out of range (%d PEs on this node)", tslot, n_queues);
    struct ovf_msg *m = malloc(sizeof *m + hdr->len);
    if (!m)
        shoal_fatal(fn, "out of memory for an active message of %llu bytes to PE %d",
                    (unsigned long long)hdr->len, tslot);
    m->next = NULL;
    m->hdr = *hdr;
    m->lane_held = 0;
    if (hdr->len)
        memcpy(m->data, payload, hdr->len);
    struct ovf_q *q = &queues[tslot];
    pthread_mutex_lock(&q->lock);
    if (q->tail)
        q->tail->next = m;
    else
        q->head = m;
    q->tail = m;
    __atomic_add_fetch(&q->n, 1, __ATOMIC_RELEASE);
    __atomic_add_fetch(&shoal_am_ovf_n, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&q->lock);
}

/* The queue's head into the ring: 1 when it left the queue (a streamed
 * one goes on to the stream list, still counted in shoal_am_ovf_n). */
static int post_head(int t, struct ovf_msg *m)
{
    if (m->hdr.kind != SHOAL_AM_K_STREAM) {
        if (!shoal_am_try_post(t, &m->hdr, m->data))
            return 0;
        __atomic_sub_fetch(&shoal_am_ovf_n, 1, __ATOMIC_RELAXED);
        free(m);
        return 1;
    }
    if (!shoal_am_stream_try_post(t, &m->hdr, m->data, &m->lane_held))
        return 0;
    pthread_mutex_lock(&streams_lock);
    m->next = streams;
    streams = m;
    pthread_mutex_unlock(&streams_lock);
    return 1;
}

/* Moves what fits into the targets' rings, in order; a queue another
 * thread is flushing is skipped. */
void shoal_am_ovf_flush(void)
{
    for (int t = 0; t < n_queues; t++) {
        struct ovf_q *q = &queues[t];
        if (!__atomic_load_n(&q->n, __ATOMIC_ACQUIRE) || pthread_mutex_trylock(&q->lock) != 0)
            continue;
        struct ovf_msg *m;
        while ((m = q->head)) {
            struct ovf_msg *next = m->next;
            if (!post_head(t, m))
                break;
            q->head = next;
            if (!q->head)
                q->tail = NULL;
            __atomic_sub_fetch(&q->n, 1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&q->lock);
    }
}

/* Writes the chunks the targets made room for; a stream whose last chunk
 * is in is done.  Skipped while another thread writes. */
void shoal_am_ovf_streams(void)
{
    if (!__atomic_load_n(&streams, __ATOMIC_ACQUIRE) || pthread_mutex_trylock(&streams_lock))
        return;
    for (struct ovf_msg **p = &streams, *m; (m = *p);) {
        if (!shoal_am_stream_step(m->hdr.lane, m->data, m->hdr.len)) {
            p = &m->next;
            continue;
        }
        *p = m->next;
        __atomic_sub_fetch(&shoal_am_ovf_n, 1, __ATOMIC_RELAXED);
        free(m);
    }
    pthread_mutex_unlock(&streams_lock);
}
