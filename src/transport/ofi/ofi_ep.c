/* Endpoints: each bound to the job's address vector and to a completion
 * queue of its own (selective: only errors and what asks for an entry
 * land there), a context's also to a put and a get counter.  Contexts'
 * endpoints are pooled: a destroyed context's endpoint serves the next.
 * Nothing on a context's path takes a lock another context takes: its
 * endpoint, queue and counters are its own (libfabric's locks in them
 * are per object), and so are its counts and peer sets; the pool's lock
 * is taken at create and destroy only. */
#include <stdlib.h>
#include <string.h>

#include <shmem.h> /* SHMEM_THREAD_MULTIPLE */

#include "transport/ofi/ofi_internal.h"

static int peers_init(struct ofi_peers *s)
{
    s->on = calloc((size_t)ofi_g.n_pes, 1);
    s->list = calloc((size_t)ofi_g.n_pes, sizeof *s->list);
    s->n = 0;
    return s->on && s->list ? 0 : -1;
}

static void peers_free(struct ofi_peers *s)
{
    free(s->on);
    free(s->list);
    s->on = NULL;
    s->list = NULL;
}

static int step(int rc, const char *what, char *err, size_t errlen)
{
    if (rc)
        snprintf(err, errlen, "%s: %s", what, ofi_strerror(-rc));
    return rc;
}

static int open_counter(struct ofi_ep *e, struct fid_cntr **c, uint64_t flags, char *err,
                        size_t errlen)
{
    struct fi_cntr_attr a = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE};
    return step(fi_cntr_open(ofi_g.domain, &a, c, NULL), "fi_cntr_open", err, errlen) ||
           step(fi_ep_bind(e->ep, &(*c)->fid, flags), "fi_ep_bind (counter)", err, errlen);
}

/* `counters`: a context's endpoint (operations counted, no queue entries
 * but errors); else its queue takes an entry for every operation that
 * asks (the peeks'), or none (the target's, which posts nothing). */
int ofi_ep_open(struct ofi_ep *e, int counters, char *err, size_t errlen)
{
    memset(e, 0, sizeof *e);
    /* The target's receives need their length and tag (ofi_msgs.h). */
    struct fi_cq_attr cq = {.format =
                                e == &ofi_g.target ? FI_CQ_FORMAT_TAGGED : FI_CQ_FORMAT_CONTEXT,
                            .wait_obj = FI_WAIT_NONE};
    const uint64_t bind = FI_TRANSMIT | FI_RECV | (counters ? FI_SELECTIVE_COMPLETION : 0);
    if (peers_init(&e->dirty) < 0 || peers_init(&e->signalled) < 0) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    pthread_mutex_init(&e->lock, NULL);
    pthread_mutex_init(&e->held_lock, NULL);
    if (step(fi_cq_open(ofi_g.domain, &cq, &e->cq, NULL), "fi_cq_open", err, errlen) ||
        step(fi_endpoint(ofi_g.domain, ofi_g.info, &e->ep, NULL), "fi_endpoint", err, errlen) ||
        step(fi_ep_bind(e->ep, &ofi_g.av->fid, 0), "fi_ep_bind (address vector)", err, errlen) ||
        step(fi_ep_bind(e->ep, &e->cq->fid, bind), "fi_ep_bind (queue)", err, errlen))
        goto fail;
    if (counters && (open_counter(e, &e->put, FI_WRITE, err, errlen) ||
                     open_counter(e, &e->get, FI_READ, err, errlen)))
        goto fail;
    if (step(fi_enable(e->ep), "fi_enable", err, errlen) ||
        (counters && ofi_modes_ep_open(e, err, errlen) < 0))
        goto fail;
    if (counters)
        ofi_progress_enlist(e);
    return 0;
fail:
    ofi_ep_close(e);
    return -1;
}

void ofi_ep_close(struct ofi_ep *e)
{
    ofi_progress_delist(e);
    if (e->ep)
        fi_close(&e->ep->fid);
    if (e->put)
        fi_close(&e->put->fid);
    if (e->get)
        fi_close(&e->get->fid);
    if (e->cq)
        fi_close(&e->cq->fid);
    ofi_modes_ep_close(e);
    if (e->dirty.on || e->signalled.on) {
        pthread_mutex_destroy(&e->lock);
        pthread_mutex_destroy(&e->held_lock);
    }
    peers_free(&e->dirty);
    peers_free(&e->signalled);
    memset(e, 0, sizeof *e);
}

/* ------------------------------------------------------------ contexts */

/* A pooled endpoint, or a new one; NULL (warned) when none can be opened. */
static struct shoal_net_ctx *ctx_take(const char *fn)
{
    pthread_mutex_lock(&ofi_g.pool_lock);
    struct shoal_net_ctx *c = ofi_g.free_ctx;
    if (c) {
        ofi_g.free_ctx = c->next_free;
        ofi_g.n_reused++;
        ofi_g.n_in_use++;
    }
    pthread_mutex_unlock(&ofi_g.pool_lock);
    if (c)
        return c;
    char err[200] = "out of memory";
    c = calloc(1, sizeof *c);
    if (!c || ofi_ep_open(&c->ctx_ep, 1, err, sizeof err) < 0) {
        ofi_g.hooks->warn(fn, err);
        free(c);
        return NULL;
    }
    pthread_mutex_lock(&ofi_g.pool_lock);
    ofi_g.n_created++;
    ofi_g.n_in_use++;
    pthread_mutex_unlock(&ofi_g.pool_lock);
    return c;
}

/* Every context, private and serialized ones included, posts on an
 * endpoint of its own; the default context under SHMEM_THREAD_MULTIPLE on
 * each thread's (ofi_thread_ep.c), made at the thread's first use. */
int ofi_net_ctx_open(struct shoal_net_ctx **net, int is_default, int private_ctx, int serialized,
                     const char *fn)
{
    (void)private_ctx, (void)serialized;
    struct shoal_net_ctx *c;
    if (is_default &&
        __atomic_load_n(&ofi_g.thread_level, __ATOMIC_RELAXED) == SHMEM_THREAD_MULTIPLE) {
        c = calloc(1, sizeof *c);
        if (c)
            c->per_thread = 1;
    } else {
        c = ctx_take(fn);
    }
    if (!c)
        return -1;
    *net = c;
    return 0;
}

void ofi_net_ctx_close(struct shoal_net_ctx *c)
{
    if (!c)
        return;
    if (c->per_thread) { /* its endpoints are the threads' until finalize */
        free(c);
        return;
    }
    pthread_mutex_lock(&ofi_g.pool_lock);
    c->next_free = ofi_g.free_ctx;
    ofi_g.free_ctx = c;
    ofi_g.n_in_use--;
    pthread_mutex_unlock(&ofi_g.pool_lock);
}

/* At finalize: every pooled endpoint goes (the contexts still open were
 * closed by core before). */
void ofi_ctx_pool_fini(void)
{
    struct shoal_net_ctx *c = ofi_g.free_ctx;
    while (c) {
        struct shoal_net_ctx *next = c->next_free;
        ofi_ep_close(&c->ctx_ep);
        free(c);
        c = next;
    }
    ofi_g.free_ctx = NULL;
    ofi_thread_eps_fini();
}

void ofi_net_worker_counts(long *created, long *in_use, long *reused)
{
    pthread_mutex_lock(&ofi_g.pool_lock);
    if (created)
        *created = ofi_g.n_created;
    if (in_use)
        *in_use = ofi_g.n_in_use;
    if (reused)
        *reused = ofi_g.n_reused;
    pthread_mutex_unlock(&ofi_g.pool_lock);
}
