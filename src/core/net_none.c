/* The network path of a build without a network transport: every PE must be
 * on this node, so reaching one that is not is an error naming it. */
#include "core/net.h"
#include "core/error.h"

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
