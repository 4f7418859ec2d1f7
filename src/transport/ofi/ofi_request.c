/* The network part of _nbe requests.  A request posts on an endpoint of
 * its own, from a small pool, where it asked for one at allocation
 * (SHMEMX_REQUEST_RESOURCE_DEDICATED: refused once the pool is taken),
 * else on one endpoint shared by all (made at the first request).
 * Counters do not say which operation completed, so a request is complete
 * once its endpoint is quiet (every operation posted before the test
 * complete); a request that wrote is visible at its targets once a flush
 * read of each (ofi_rma.c), posted after its writes at its first test, is
 * back. */
#include <stdlib.h>

#include "transport/ofi/ofi_internal.h"

/* Endpoints of requests of their own (UCX's pool holds
 * SHOAL_REQUEST_WORKERS, 8 by default). */
#define OFI_REQ_OWN_MAX 8

struct shoal_net_req {
    struct ofi_ep *own; /* its own endpoint, or NULL: the shared one */
    int pe;             /* the one peer it wrote to; -2: several; -1: none */
    int state;          /* REQ_IDLE, REQ_POSTED, REQ_FLUSHED */
};
enum { REQ_IDLE, REQ_POSTED, REQ_FLUSHED };

static struct ofi_ep *shared;
static struct ofi_ep *own_ep[OFI_REQ_OWN_MAX];
static int own_taken[OFI_REQ_OWN_MAX];
static pthread_mutex_t req_lock = PTHREAD_MUTEX_INITIALIZER;

size_t ofi_net_req_size(void)
{
    return sizeof(struct shoal_net_req);
}

/* Under req_lock. */
static struct ofi_ep *new_ep(const char *fn)
{
    char err[200] = "out of memory";
    struct ofi_ep *e = calloc(1, sizeof *e);
    if (!e || ofi_ep_open(e, 1, err, sizeof err) < 0)
        ofi_fatalf(fn, "a request endpoint: %s", err);
    return e;
}

static struct ofi_ep *shared_ep(const char *fn)
{
    struct ofi_ep *e = __atomic_load_n(&shared, __ATOMIC_ACQUIRE);
    if (OFI_LIKELY(e != NULL))
        return e;
    pthread_mutex_lock(&req_lock);
    if (!shared)
        __atomic_store_n(&shared, new_ep(fn), __ATOMIC_RELEASE);
    pthread_mutex_unlock(&req_lock);
    return shared;
}

static struct ofi_ep *ep_of(struct shoal_net_req *r, const char *fn)
{
    return r->own ? r->own : shared_ep(fn);
}

int ofi_net_req_reserve(struct shoal_net_req *r, int how, const char *fn)
{
    if (how != SHOAL_NET_REQ_OWN) {
        (void)shared_ep(fn);
        return 0;
    }
    pthread_mutex_lock(&req_lock);
    for (int i = 0; i < OFI_REQ_OWN_MAX && !r->own; i++)
        if (!own_taken[i]) {
            if (!own_ep[i])
                own_ep[i] = new_ep(fn);
            own_taken[i] = 1;
            r->own = own_ep[i];
        }
    pthread_mutex_unlock(&req_lock);
    return r->own ? 0 : -1;
}

static void posted(struct shoal_net_req *r, int wrote_pe)
{
    if (wrote_pe >= 0)
        r->pe = r->state == REQ_IDLE || r->pe == -1 || r->pe == wrote_pe ? wrote_pe : -2;
    else if (r->state == REQ_IDLE)
        r->pe = -1;
    r->state = REQ_POSTED;
}

void ofi_net_req_put(struct shoal_net_req *r, void *dest, const void *src, size_t n, int pe,
                     const char *fn)
{
    ofi_post_put(ep_of(r, fn), dest, src, n, pe, fn);
    posted(r, pe);
}

void ofi_net_req_get(struct shoal_net_req *r, void *dest, const void *src, size_t n, int pe,
                     const char *fn)
{
    ofi_post_get(ep_of(r, fn), dest, src, n, pe, fn);
    posted(r, -1);
}

/* Over ofi_rxd a fetching one goes on the calling thread's own endpoint:
 * its guard (ofi_rxd.c) holds only on an endpoint no other thread posts
 * on (the shared one's window filled by other threads' operations let rxd
 * free it: requests.threads), and it is complete when it returns. */
void ofi_net_req_amo(struct shoal_net_req *r, int op, void *fetch, const void *dest, unsigned size,
                     uint64_t value, uint64_t cond, int pe, const char *fn)
{
    if (OFI_UNLIKELY(ofi_g.fetch_guard) && fetch) {
        ofi_post_amo(ofi_thread_ep_get(fn), op, fetch, dest, size, value, cond, pe, fn);
        return;
    }
    ofi_post_amo(ep_of(r, fn), op, fetch, dest, size, value, cond, pe, fn);
    posted(r, pe);
}

void ofi_net_req_fence(struct shoal_net_req *r, const char *fn)
{
    if (r->state != REQ_IDLE)
        ofi_ep_quiet(ep_of(r, fn), fn);
}

/* The reads that make r's writes visible: to its one peer, or to every
 * peer its endpoint wrote to since its last flush. */
static void flush(struct shoal_net_req *r, struct ofi_ep *e, const char *fn)
{
    if (r->pe >= 0 && ofi_g.rc_mode == OFI_RC_READ)
        ofi_flush_read(e, r->pe, fn);
    else if (r->pe == -2)
        ofi_flush_post(e, &e->dirty, fn);
    r->state = REQ_FLUSHED;
}

int ofi_net_req_test(struct shoal_net_req *r, const char *fn)
{
    if (r->state == REQ_IDLE)
        return 1;
    struct ofi_ep *e = ep_of(r, fn);
    if (r->state == REQ_POSTED)
        flush(r, e, fn);
    ofi_progress_target();
    return ofi_is_quiet(e, fn);
}

void ofi_net_req_release(struct shoal_net_req *r)
{
    if (r->own) {
        pthread_mutex_lock(&req_lock);
        for (int i = 0; i < OFI_REQ_OWN_MAX; i++)
            if (own_ep[i] == r->own)
                own_taken[i] = 0;
        pthread_mutex_unlock(&req_lock);
    }
    r->own = NULL;
    r->state = REQ_IDLE;
    r->pe = -1;
}

void ofi_net_req_quiet_all(const char *fn)
{
    struct ofi_ep *e = __atomic_load_n(&shared, __ATOMIC_ACQUIRE);
    if (e)
        ofi_ep_quiet(e, fn);
    pthread_mutex_lock(&req_lock);
    struct ofi_ep *own[OFI_REQ_OWN_MAX];
    for (int i = 0; i < OFI_REQ_OWN_MAX; i++)
        own[i] = own_ep[i];
    pthread_mutex_unlock(&req_lock);
    for (int i = 0; i < OFI_REQ_OWN_MAX; i++)
        if (own[i])
            ofi_ep_quiet(own[i], fn);
}

static void close_ep(struct ofi_ep **e)
{
    if (!*e)
        return;
    ofi_ep_close(*e);
    free(*e);
    *e = NULL;
}

void ofi_request_fini(void)
{
    close_ep(&shared);
    for (int i = 0; i < OFI_REQ_OWN_MAX; i++) {
        close_ep(&own_ep[i]);
        own_taken[i] = 0;
    }
}
