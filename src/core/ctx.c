/* Context objects.  Creation and destruction are not on any fast path; the
 * pool lock is taken only under SHMEM_THREAD_MULTIPLE, since at lower
 * levels no two threads call into the library at once. */
#include "core/ctx.h"

#include <pthread.h>
#include <stdlib.h>

#include "core/config/error.h"
#include "core/config/log.h"
#include "core/ops.h"

#define KNOWN_OPTIONS (SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE)

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shoal_ctx *pool; /* destroyed, reusable */

static long n_live, n_pooled;

static void lock(void)
{
    if (shoal_g.thread_level == SHMEM_THREAD_MULTIPLE)
        pthread_mutex_lock(&pool_lock);
}

static void unlock(void)
{
    if (shoal_g.thread_level == SHMEM_THREAD_MULTIPLE)
        pthread_mutex_unlock(&pool_lock);
}

/* Separate registry link: `next` serves the pool. */
struct ctx_box {
    struct shoal_ctx ctx;
    struct ctx_box *older;
};
static struct ctx_box *boxes;

void shoal_ctx_init_default(void)
{
    shoal_ctx_default.team = &shoal_team_world;
    shoal_ctx_default.options = 0;
    shoal_ctx_default.net = NULL;
    __atomic_store_n(&shoal_ctx_default.magic, SHOAL_CTX_LIVE, __ATOMIC_RELEASE);
}

int shoal_ctx_create(struct shoal_team *team, long options, shmem_ctx_t *out, const char *fn)
{
    if (SHOAL_UNLIKELY(shoal_g.init_count == 0 || shoal_g.finalized))
        shoal_err_not_init(fn);
    if (!out)
        shoal_fatal(fn, "argument 'ctx' is a null pointer");
    *out = SHMEM_CTX_INVALID;
    if (options & ~(long)KNOWN_OPTIONS) {
        shoal_warn(fn, "argument 'options' = %#lx has bits that are not SHMEM_CTX_* options",
                   options);
        return 1;
    }
    if (!team || team->magic != SHOAL_TEAM_LIVE || team->my_pe < 0)
        return 1;
    lock();
    struct shoal_ctx *c = pool;
    if (c) {
        pool = c->next;
        n_pooled--;
    } else {
        struct ctx_box *b = calloc(1, sizeof *b);
        if (!b) {
            unlock();
            return 1;
        }
        b->older = boxes;
        boxes = b;
        c = &b->ctx;
    }
    n_live++;
    unlock();
    c->options = (uint32_t)options;
    c->team = team;
    c->net = NULL;
    c->next = NULL;
    if (shoal_g.net_active && shoal_net_ctx_open(&c->net, 0, (options & SHMEM_CTX_PRIVATE) != 0,
                                                 (options & SHMEM_CTX_SERIALIZED) != 0, fn) < 0) {
        lock();
        c->next = pool;
        pool = c;
        n_live--;
        n_pooled++;
        unlock();
        return 1;
    }
    __atomic_store_n(&c->magic, SHOAL_CTX_LIVE, __ATOMIC_RELEASE);
    SHOAL_LOG(SHOAL_LOG_CTX, SHOAL_LOG_DEBUG, "%s: context %p, options %#lx, %s", fn, (void *)c,
              options, c->net ? "with network resources" : "on-node only");
    *out = c;
    return 0;
}

void shoal_ctx_destroy(shmem_ctx_t ctx, const char *fn)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    if (ctx == SHMEM_CTX_DEFAULT)
        shoal_fatal(fn, "argument 'ctx' is SHMEM_CTX_DEFAULT, which cannot be destroyed");
    shoal_ctx_check(ctx, fn);
    shoal_quiet(ctx, fn);
    __atomic_store_n(&ctx->magic, 0, __ATOMIC_RELEASE);
    if (ctx->net)
        shoal_net_ctx_close(ctx->net);
    ctx->net = NULL;
    lock();
    ctx->next = pool;
    pool = ctx;
    n_live--;
    n_pooled++;
    unlock();
}

void shoal_ctx_counts(long *live, long *pooled)
{
    lock();
    *live = n_live;
    *pooled = n_pooled;
    unlock();
}

/* The contexts a program created and did not destroy: their operations
 * complete (finalize's implicit quiet), then their network resources go
 * back before the transport shuts down. */
void shoal_ctx_quiet_all(const char *fn)
{
    for (struct ctx_box *b = boxes; b; b = b->older)
        if (b->ctx.magic == SHOAL_CTX_LIVE)
            shoal_quiet(&b->ctx, fn);
}

void shoal_ctx_release_net(void)
{
    for (struct ctx_box *b = boxes; b; b = b->older)
        if (b->ctx.net) {
            shoal_net_ctx_close(b->ctx.net);
            b->ctx.net = NULL;
        }
}

void shoal_ctx_teardown(void)
{
    while (boxes) {
        struct ctx_box *b = boxes;
        boxes = b->older;
        b->ctx.magic = 0;
        free(b);
    }
    pool = NULL;
    n_live = n_pooled = 0;
    shoal_ctx_default.magic = 0;
}
