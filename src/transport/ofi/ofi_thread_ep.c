/* SHMEM_CTX_DEFAULT under SHMEM_THREAD_MULTIPLE: every thread that uses
 * it posts on an endpoint of its own (queue and counters included), found
 * through a thread-local pointer, so that threads never meet in one
 * endpoint's lock or counters, as UCX gives each its own worker.  A
 * thread that exits leaves its endpoint to the next new thread; the
 * endpoint stays on the default context's list, so that a quiet of the
 * default context, from any thread, still completes what the departed
 * thread posted: quiet and flush_signals walk every endpoint of the list. */
#include <stdlib.h>

#include "transport/ofi/ofi_internal.h"

struct ofi_thread_ep {
    struct ofi_ep e;
    struct ofi_thread_ep *next; /* the list only grows (at its head) until finalize */
    int owned;                  /* a live thread has it (under pool_lock) */
    /* Posted counts whose operations were all seen complete, with both
     * peer sets empty (atomic): while the counts stay there and the sets
     * empty, a walk skips the endpoint without a call into libfabric (an
     * idle thread's, or a departed one's, costs a quiet of the default
     * context four loads). */
    uint64_t done_put, done_get;
};

static struct ofi_thread_ep *thread_eps;
static pthread_key_t gone_key;
static int gone_key_made;
static __thread struct ofi_thread_ep *tl_ep;

/* A thread that used the default context exits: its endpoint is free for
 * the next (what it posted is still on it, for the next quiet). */
static void thread_gone(void *p)
{
    struct ofi_thread_ep *t = p;
    pthread_mutex_lock(&ofi_g.pool_lock);
    t->owned = 0;
    ofi_g.n_in_use--;
    pthread_mutex_unlock(&ofi_g.pool_lock);
}

/* Under pool_lock: a free endpoint of the list, or a new one; NULL with
 * the reason in err. */
static struct ofi_thread_ep *take(char *err, size_t errlen)
{
    for (struct ofi_thread_ep *t = thread_eps; t; t = t->next)
        if (!t->owned) {
            ofi_g.n_reused++;
            return t;
        }
    struct ofi_thread_ep *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (ofi_ep_open(&t->e, 1, err, errlen) < 0) {
        free(t);
        return NULL;
    }
    ofi_g.n_created++;
    t->next = thread_eps;
    __atomic_store_n(&thread_eps, t, __ATOMIC_RELEASE);
    return t;
}

struct ofi_ep *ofi_thread_ep_get(const char *fn)
{
    if (OFI_LIKELY(tl_ep != NULL))
        return &tl_ep->e;
    char err[200] = "";
    pthread_mutex_lock(&ofi_g.pool_lock);
    if (!gone_key_made && pthread_key_create(&gone_key, thread_gone) == 0)
        gone_key_made = 1;
    struct ofi_thread_ep *t = take(err, sizeof err);
    if (t) {
        t->owned = 1;
        ofi_g.n_in_use++;
        if (gone_key_made)
            pthread_setspecific(gone_key, t);
    }
    pthread_mutex_unlock(&ofi_g.pool_lock);
    if (!t)
        ofi_fatalf(fn, "no libfabric endpoint for this thread's use of SHMEM_CTX_DEFAULT: %s", err);
    tl_ep = t;
    return &t->e;
}

/* No peer owed a flush (a put marks its peer after its post returned,
 * so a walk that marked t idle may have missed it), and nothing posted on
 * t since it was last seen idle. */
static int sets_empty(const struct ofi_ep *e)
{
    return !__atomic_load_n(&e->dirty.n, __ATOMIC_ACQUIRE) &&
           !__atomic_load_n(&e->signalled.n, __ATOMIC_ACQUIRE);
}

static int still_idle(struct ofi_thread_ep *t)
{
    return sets_empty(&t->e) &&
           __atomic_load_n(&t->e.put_posted, __ATOMIC_SEQ_CST) ==
               __atomic_load_n(&t->done_put, __ATOMIC_RELAXED) &&
           __atomic_load_n(&t->e.get_posted, __ATOMIC_SEQ_CST) ==
               __atomic_load_n(&t->done_get, __ATOMIC_RELAXED);
}

/* f (a quiet or a flush of signals) waits until every operation counted
 * when it looks is complete, so those counted before it began are: the
 * counts read first become t's marks where f left both sets empty.  Any
 * such mark is true, so concurrent walks may store theirs in any order. */
static void walk_one(struct ofi_thread_ep *t, void (*f)(struct ofi_ep *, const char *),
                     const char *fn)
{
    if (still_idle(t))
        return;
    const uint64_t put = __atomic_load_n(&t->e.put_posted, __ATOMIC_SEQ_CST);
    const uint64_t get = __atomic_load_n(&t->e.get_posted, __ATOMIC_SEQ_CST);
    f(&t->e, fn);
    if (!sets_empty(&t->e))
        return;
    __atomic_store_n(&t->done_put, put, __ATOMIC_RELAXED);
    __atomic_store_n(&t->done_get, get, __ATOMIC_RELAXED);
}

void ofi_thread_eps_foreach(void (*f)(struct ofi_ep *, const char *), const char *fn)
{
    for (struct ofi_thread_ep *t = __atomic_load_n(&thread_eps, __ATOMIC_ACQUIRE); t; t = t->next)
        walk_one(t, f, fn);
}

/* At finalize (no re-init follows: shmem_init after the last finalize is
 * refused), after the contexts were closed. */
void ofi_thread_eps_fini(void)
{
    if (gone_key_made) {
        pthread_key_delete(gone_key);
        gone_key_made = 0;
    }
    struct ofi_thread_ep *t = thread_eps;
    while (t) {
        struct ofi_thread_ep *next = t->next;
        ofi_ep_close(&t->e);
        free(t);
        t = next;
    }
    thread_eps = NULL;
    tl_ep = NULL;
}
