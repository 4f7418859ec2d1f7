/* core/net.h — the network path of the core operations: what ops.h calls
 * when the target PE is not on this node.  The on-node library has no
 * network transport yet (UCX is issue 5), so these report that the PE has
 * no route; the UCX transport will implement them on ctx->net. */
#ifndef SHOAL_CORE_NET_H
#define SHOAL_CORE_NET_H
#include <stddef.h>
#include <stdint.h>

struct shoal_ctx;
void shoal_net_put(struct shoal_ctx *ctx, void *dest, const void *src, size_t n, int pe, int nbi,
                   const char *fn);
void shoal_net_get(struct shoal_ctx *ctx, void *dest, const void *src, size_t n, int pe, int nbi,
                   const char *fn);
uint64_t shoal_net_amo(struct shoal_ctx *ctx, int op, const void *dest, unsigned size,
                       uint64_t value, uint64_t cond, int pe, const char *fn);
void shoal_net_amo_nbi(struct shoal_ctx *ctx, int op, void *fetch, const void *dest, unsigned size,
                       uint64_t value, uint64_t cond, int pe, const char *fn);
void shoal_net_quiet(struct shoal_ctx *ctx);
void shoal_net_fence(struct shoal_ctx *ctx);
#endif
