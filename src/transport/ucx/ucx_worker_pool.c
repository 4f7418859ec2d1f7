/* Workers: one per context, created in the UCX thread mode the context
 * needs (PRIVATE: single, SERIALIZED: serialized, otherwise multi only
 * under SHMEM_THREAD_MULTIPLE), returned to a pool per mode when the
 * context is destroyed and handed to the next context created with that
 * mode, endpoints and keys included (creation and wire-up are the costly
 * part).
 *
 * SHMEM_CTX_DEFAULT under SHMEM_THREAD_MULTIPLE (SHOAL_DEFAULT_CTX_WORKERS):
 * `thread` gives every thread its own worker (thread-local lookup; a
 * worker whose thread exited goes to the next new thread), N makes the
 * threads share N workers round-robin, `shared` is one worker for all.
 * These workers are MULTI: shmem_quiet on the default context from any
 * thread flushes all of them, so it completes what every thread posted
 * before it. */
#include <stdlib.h>
#include <string.h>

#include "transport/ucx/ucx_fds.h"
#include "transport/ucx/ucx_posix_dir.h"
#include "transport/ucx/ucx_internal.h"

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ucx_worker *pool[3]; /* by ucs_thread_mode_t */
static struct ucx_worker *all;     /* every worker (teardown) */
static struct ucx_worker *dflt;    /* the default context's per-thread workers */
static struct ucx_worker **rr;     /* N round-robin workers */
static int rr_n, rr_next;
static int n_ids;
static pthread_key_t tl_key;
static int tl_key_made;
static __thread struct ucx_worker *tl_worker;

static const char *mode_name(ucs_thread_mode_t m)
{
    return m == UCS_THREAD_MODE_SINGLE       ? "single"
           : m == UCS_THREAD_MODE_SERIALIZED ? "serialized"
                                             : "multi";
}

/* A thread that exits gives its default-context worker to the next new
 * thread (it stays on the default context's list, so quiet still covers
 * what the thread posted). */
static void thread_gone(void *p)
{
    struct ucx_worker *w = p;
    pthread_mutex_lock(&pool_lock);
    w->thread_owned = 0;
    ucx_g.n_in_use--;
    pthread_mutex_unlock(&pool_lock);
}

int ucx_worker_pool_init(void)
{
    memset(pool, 0, sizeof pool);
    all = dflt = NULL;
    rr = NULL;
    rr_n = rr_next = n_ids = 0;
    tl_worker = NULL;
    if (pthread_key_create(&tl_key, thread_gone) != 0)
        return -1;
    tl_key_made = 1;
    return 0;
}

static void state_free(struct ucx_worker *w)
{
    free(w->eps);
    free(w->rkeys);
    free(w->ep_dirty);
    free(w->ep_wired);
    free(w->dirty_pes);
    free(w);
}

/* A worker's zeroed state with its per-peer tables, around no UCP worker
 * yet; NULL when out of memory. */
static struct ucx_worker *state_alloc(void)
{
    const int n = ucx_g.n_pes;
    struct ucx_worker *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->eps = calloc((size_t)n, sizeof *w->eps);
    w->rkeys = calloc(2 * (size_t)n, sizeof *w->rkeys);
    w->ep_dirty = calloc((size_t)n, 1);
    w->ep_wired = calloc((size_t)n, 1);
    w->dirty_pes = calloc(UCX_FLUSH_EPS_MAX, sizeof *w->dirty_pes);
    if (!w->eps || !w->rkeys || !w->ep_dirty || !w->ep_wired || !w->dirty_pes) {
        state_free(w);
        return NULL;
    }
    return w;
}

/* State w now stands for UCP worker h. */
static void state_bind(struct ucx_worker *w, ucp_worker_h h, ucs_thread_mode_t mode)
{
    w->h = h;
    w->mode = mode;
    pthread_mutex_init(&w->wire_lock, NULL);
    pthread_mutex_init(&w->flush_lock, NULL);
}

/* Closes w's endpoints, destroys its UCP worker if it owns it, frees w. */
static void state_release(struct ucx_worker *w, int owns_worker)
{
    ucx_ep_close_all(w);
    if (owns_worker)
        ucp_worker_destroy(w->h);
    pthread_mutex_destroy(&w->wire_lock);
    pthread_mutex_destroy(&w->flush_lock);
    state_free(w);
}

/* Why a worker could not be made; fatal for this PE's first (the default
 * context's at init), without which it cannot communicate. */
static void worker_failed(ucs_thread_mode_t mode, ucs_status_t st, const char *fn)
{
    char msg[480];
    if (!ucx_posix_dir_short(msg, sizeof msg))
        snprintf(msg, sizeof msg,
                 "UCX worker creation (ucp_worker_create, thread mode %s) "
                 "failed: %s",
                 mode_name(mode), ucs_status_string(st));
    if (ucx_g.n_created == 0)
        ucx_fatalf(fn, "%s", msg);
    ucx_warnf(fn, "%s", msg);
}

/* Called with pool_lock held or while single-threaded. */
static struct ucx_worker *create(ucs_thread_mode_t mode, const char *fn)
{
    struct ucx_worker *w = state_alloc();
    if (!w)
        return NULL;
    ucp_worker_h h;
    ucp_worker_params_t wp;
    memset(&wp, 0, sizeof wp);
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = mode;
    ucs_status_t st = ucx_fds_worker_create(&wp, &h, fn);
    if (st != UCS_OK) {
        if (st != UCS_ERR_EXCEEDS_LIMIT) /* ucx_fds.c said why */
            worker_failed(mode, st, fn);
        state_free(w);
        return NULL;
    }
    state_bind(w, h, mode);
    w->id = n_ids++;
    w->all_next = all;
    __atomic_store_n(&all, w, __ATOMIC_RELEASE);
    ucx_g.n_created++;
    return w;
}

/* The target worker as a sender: collectives' signals and exchanges leave
 * from the worker they arrive at, so that two PEs' exchanges share one
 * connection each way (over tcp one socket, whose acknowledgements ride
 * on the replies, instead of two with a bare acknowledgement for every
 * message).  Made at first use, not on the list of workers (the target
 * is progressed and destroyed on its own). */
static struct ucx_worker *target_w;

struct ucx_worker *ucx_target_sender(const char *fn)
{
    /* The application uses the target worker: the progress thread keeps
     * out of its way (ucx_progress.c), as while it polls. */
    ucx_net_attend();
    struct ucx_worker *w = __atomic_load_n(&target_w, __ATOMIC_ACQUIRE);
    if (UCX_LIKELY(w != NULL))
        return w;
    pthread_mutex_lock(&pool_lock);
    w = target_w;
    if (!w) {
        w = state_alloc();
        if (!w) {
            pthread_mutex_unlock(&pool_lock);
            ucx_fatalf(fn, "out of memory for the target worker's endpoints");
        }
        state_bind(w, ucx_g.target, ucx_g.target_mode);
        w->id = -1;
        w->is_target = 1;
        __atomic_store_n(&target_w, w, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&pool_lock);
    return w;
}

struct ucx_worker *ucx_target_sender_if_any(void)
{
    return __atomic_load_n(&target_w, __ATOMIC_ACQUIRE);
}

void ucx_target_sender_fini(void)
{
    if (!target_w)
        return;
    state_release(target_w, 0); /* the target worker goes in ucx_init.c */
    target_w = NULL;
}

struct ucx_worker *ucx_worker_get(ucs_thread_mode_t mode, const char *fn)
{
    pthread_mutex_lock(&pool_lock);
    struct ucx_worker *w = pool[mode];
    if (w) {
        pool[mode] = w->next;
        w->next = NULL;
        ucx_g.n_reused++;
    } else {
        w = create(mode, fn);
    }
    if (w) {
        ucx_g.n_in_use++;
        w->thread_owned = 1;
    }
    pthread_mutex_unlock(&pool_lock);
    return w;
}

void ucx_worker_put(struct ucx_worker *w)
{
    pthread_mutex_lock(&pool_lock);
    w->thread_owned = 0;
    w->next = pool[w->mode];
    pool[w->mode] = w;
    ucx_g.n_in_use--;
    pthread_mutex_unlock(&pool_lock);
}

static void dflt_push(struct ucx_worker *w)
{
    w->dflt_next = dflt;
    __atomic_store_n(&dflt, w, __ATOMIC_RELEASE);
}

struct ucx_worker *ucx_thread_default_worker(const char *fn)
{
    struct ucx_worker *w = tl_worker;
    if (UCX_LIKELY(w != NULL))
        return w;
    pthread_mutex_lock(&pool_lock);
    if (ucx_g.dflt_policy > 0) {
        if (!rr) {
            rr = calloc((size_t)ucx_g.dflt_policy, sizeof *rr);
            rr_n = rr ? ucx_g.dflt_policy : 0;
        }
        if (rr_n > 0) {
            int i = rr_next++ % rr_n;
            if (!rr[i]) {
                rr[i] = create(UCS_THREAD_MODE_MULTI, fn);
                if (rr[i]) {
                    dflt_push(rr[i]);
                    ucx_g.n_in_use++;
                }
            }
            w = rr[i];
        }
    } else {
        for (struct ucx_worker *c = dflt; c; c = c->dflt_next)
            if (!c->thread_owned) {
                w = c;
                ucx_g.n_reused++;
                break;
            }
        if (!w) {
            w = create(UCS_THREAD_MODE_MULTI, fn);
            if (w)
                dflt_push(w);
        }
        if (w) {
            w->thread_owned = 1;
            ucx_g.n_in_use++;
            pthread_setspecific(tl_key, w);
        } else {
            w = dflt; /* no descriptors for one more (ucx_fds.c): share one, as N does */
        }
    }
    pthread_mutex_unlock(&pool_lock);
    if (!w)
        ucx_fatalf(fn, "no UCX worker for this thread's use of SHMEM_CTX_DEFAULT");
    tl_worker = w;
    return w;
}

struct ucx_worker *ucx_thread_worker_if_any(void)
{
    return tl_worker;
}

void ucx_default_workers_foreach(void (*f)(struct ucx_worker *, void *), void *arg)
{
    /* Workers are only ever pushed at the head and live until finalize:
     * walking without the lock is safe. */
    for (struct ucx_worker *w = __atomic_load_n(&dflt, __ATOMIC_ACQUIRE); w; w = w->dflt_next)
        f(w, arg);
}

void ucx_all_workers_foreach(void (*f)(struct ucx_worker *, void *), void *arg)
{
    for (struct ucx_worker *w = __atomic_load_n(&all, __ATOMIC_ACQUIRE); w; w = w->all_next)
        f(w, arg);
}

struct ucx_worker *ucx_all_workers_head(void)
{
    return __atomic_load_n(&all, __ATOMIC_ACQUIRE);
}

void ucx_worker_pool_fini(void)
{
    if (tl_key_made) {
        pthread_key_delete(tl_key);
        tl_key_made = 0;
    }
    struct ucx_worker *w = all;
    while (w) {
        struct ucx_worker *next = w->all_next;
        state_release(w, 1);
        w = next;
    }
    all = dflt = NULL;
    memset(pool, 0, sizeof pool);
    free(rr);
    rr = NULL;
    rr_n = 0;
    tl_worker = NULL;
}

/* ----------------------------------------------------------- contexts */

static ucs_thread_mode_t mode_for(int private_ctx, int serialized)
{
    const int level = ucx_g.thread_level;
    if (private_ctx)
        return UCS_THREAD_MODE_SINGLE;
    if (serialized)
        return level == SHMEM_THREAD_SINGLE ? UCS_THREAD_MODE_SINGLE : UCS_THREAD_MODE_SERIALIZED;
    if (level == SHMEM_THREAD_MULTIPLE)
        return UCS_THREAD_MODE_MULTI;
    return level == SHMEM_THREAD_SINGLE ? UCS_THREAD_MODE_SINGLE : UCS_THREAD_MODE_SERIALIZED;
}

int ucx_net_ctx_open(struct shoal_net_ctx **net, int is_default, int private_ctx, int serialized,
                     const char *fn)
{
    struct shoal_net_ctx *n = calloc(1, sizeof *n);
    if (!n)
        return -1;
    if (is_default && ucx_g.thread_level == SHMEM_THREAD_MULTIPLE &&
        ucx_g.dflt_policy != UCX_DFLT_SHARED) {
        n->per_thread = 1;
    } else {
        n->w = ucx_worker_get(mode_for(private_ctx, serialized), fn);
        if (!n->w) {
            free(n);
            return -1;
        }
    }
    if (is_default)
        ucx_g.dflt = n;
    *net = n;
    return 0;
}

void ucx_net_ctx_close(struct shoal_net_ctx *n)
{
    if (!n)
        return;
    if (n == ucx_g.dflt)
        ucx_g.dflt = NULL;
    if (n->w)
        ucx_worker_put(n->w);
    free(n);
}

void ucx_describe_workers(FILE *f, const char *prefix)
{
    pthread_mutex_lock(&pool_lock);
    long c = ucx_g.n_created, u = ucx_g.n_in_use, r = ucx_g.n_reused;
    pthread_mutex_unlock(&pool_lock);
    char d[96];
    if (ucx_g.thread_level != SHMEM_THREAD_MULTIPLE || ucx_g.dflt_policy == UCX_DFLT_SHARED)
        snprintf(d, sizeof d, "one worker");
    else if (ucx_g.dflt_policy == UCX_DFLT_THREAD)
        snprintf(d, sizeof d, "one worker per thread");
    else
        snprintf(d, sizeof d, "%d workers shared round-robin by the threads", ucx_g.dflt_policy);
    fprintf(f,
            "%sUCX workers: %ld created, %ld in use, %ld reuses from the pool (one per context; "
            "SHMEM_CTX_DEFAULT: %s), plus the target worker\n",
            prefix, c, u, r, d);
}

/* Counters for tests and tools (shmemx_net_worker_counts). */
void ucx_net_worker_counts(long *created, long *in_use, long *reused)
{
    pthread_mutex_lock(&pool_lock);
    if (created)
        *created = ucx_g.n_created;
    if (in_use)
        *in_use = ucx_g.n_in_use;
    if (reused)
        *reused = ucx_g.n_reused;
    pthread_mutex_unlock(&pool_lock);
}
