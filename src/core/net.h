/* core/net.h — the network path of the core operations: what ops.h calls
 * when the target PE is not reachable by load/store (another node, or every
 * peer under SHOAL_TRANSPORTS=ucx), and the transport's life cycle.
 * Implemented by transport/ucx (UCP: a worker per context) or, in a build
 * without a network transport, by transport/none (no route to such PEs).
 *
 * Every operation works on ctx->net, the context's own transport state:
 * operations on one context are issued and completed independently of
 * every other context.  `pe` is a world PE; addresses are this PE's
 * symmetric addresses (the transport translates them with the peer's
 * remote keys). */
#ifndef SHOAL_CORE_NET_H
#define SHOAL_CORE_NET_H
#include <stddef.h>
#include <stdint.h>

struct shoal_ctx;
struct shoal_boot;
#include <stdio.h>

/* Which peers the network serves (SHOAL_TRANSPORTS). */
enum shoal_net_mode {
    SHOAL_NET_OFF,    /* "shm": on-node peers only */
    SHOAL_NET_REMOTE, /* "shm,ucx": load/store on this node, the network beyond */
    SHOAL_NET_ALL,    /* "ucx": every peer, this PE included, through the network */
};

struct shoal_config;
/* Called once at init, after the segments are mapped and before any
 * context exists, by every PE (collective: it may use the bootstrap's
 * allgather to exchange addresses and keys).  cfg->net_mode is the mode
 * (enum shoal_net_mode); the transport reads its own variables from cfg.
 * `remote` is the number of PEs not reachable by load/store.  Sets
 * shoal_g.net_active and shoal_g.amo_via_net as it decides.  Returns 0 or
 * -1 with a message. */
int shoal_net_init(struct shoal_boot *b, const struct shoal_config *cfg, int remote, char *err,
                   size_t errlen);
void shoal_net_fini(void);
/* Give a context its transport state (ctx->net); called for the default
 * context at init and for every shmem_ctx_create while net_active.
 * Returns 0, or -1 when no resource is left (the create fails). */
int shoal_net_ctx_open(struct shoal_ctx *ctx, const char *fn);
/* After the context's operations are complete (quiet): return its state
 * to the transport's pool. */
void shoal_net_ctx_close(struct shoal_ctx *ctx);
/* Make progress on what the calling thread and this PE's target side
 * have pending; called by waiting loops. */
void shoal_net_progress(void);
/* Lines for shmem-info / SHMEM_INFO. */
void shoal_net_describe(FILE *f, const char *prefix);
/* Which transports this build has, e.g. "shm" or "shm, ucx (UCX 1.13.1)". */
const char *shoal_net_built(void);
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
