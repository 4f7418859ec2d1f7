/* The network path of a build without a network transport: every PE must be
 * on this node, so reaching one that is not is an error naming it. */
#include "core/net.h"
#include "core/env.h"
#include "core/error.h"
#include "core/state.h"

void shoal_net_put(struct shoal_ctx *ctx, void *dest, const void *src, size_t n, int pe, int nbi,
                   const char *fn)
{
    shoal_err_no_route(pe, fn);
}

void shoal_net_get(struct shoal_ctx *ctx, void *dest, const void *src, size_t n, int pe, int nbi,
                   const char *fn)
{
    shoal_err_no_route(pe, fn);
}

uint64_t shoal_net_amo(struct shoal_ctx *ctx, int op, const void *dest, unsigned size,
                       uint64_t value, uint64_t cond, int pe, const char *fn)
{
    shoal_err_no_route(pe, fn);
}

void shoal_net_amo_nbi(struct shoal_ctx *ctx, int op, void *fetch, const void *dest, unsigned size,
                       uint64_t value, uint64_t cond, int pe, const char *fn)
{
    shoal_err_no_route(pe, fn);
}

void shoal_net_quiet(struct shoal_ctx *ctx) {}
void shoal_net_fence(struct shoal_ctx *ctx) {}

int shoal_net_init(struct shoal_boot *b, const struct shoal_config *cfg, int remote, char *err,
                   size_t errlen)
{
    (void)b;
    const int mode = cfg->net_mode;
    shoal_g.net_active = 0;
    shoal_g.amo_via_net = 0;
    if (mode == SHOAL_NET_ALL) {
        snprintf(err, errlen,
                 "SHOAL_TRANSPORTS=ucx, but this build of Shoal has no UCX transport (rebuild with "
                 "libucx-dev installed)");
        return -1;
    }
    if (remote > 0) {
        snprintf(err, errlen,
                 "%d PEs are on other nodes, but this build of Shoal has no network transport "
                 "(rebuild with libucx-dev installed)",
                 remote);
        return -1;
    }
    return 0;
}

void shoal_net_fini(void) {}

int shoal_net_ctx_open(struct shoal_ctx *ctx, const char *fn)
{
    (void)ctx;
    (void)fn;
    return 0;
}

void shoal_net_ctx_close(struct shoal_ctx *ctx) { (void)ctx; }

void shoal_net_progress(void) {}

void shoal_net_describe(FILE *f, const char *prefix)
{
    fprintf(f, "%sNetwork: none (built without UCX); every PE must be on this node\n", prefix);
}

const char *shoal_net_built(void)
{
    return "shm";
}

/* Declared in shmemx.h: no network transport, no workers. */
__attribute__((visibility("default"))) void shmemx_net_worker_counts(long *created,
                                                                     long *in_use, long *reused)
{
    if (created)
        *created = 0;
    if (in_use)
        *in_use = 0;
    if (reused)
        *reused = 0;
}
