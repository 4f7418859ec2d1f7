/* Contexts (ctx.c).  A context owns its transport state; on-node it needs
 * none, so it holds no lock at all.  Destroyed contexts go back to a pool
 * (the UCX transport will keep their workers there). */
#ifndef SHOAL_CORE_CTX_H
#define SHOAL_CORE_CTX_H
#include "core/state.h"
int shoal_ctx_create(struct shoal_team *team, long options, shmem_ctx_t *ctx, const char *fn);
void shoal_ctx_destroy(shmem_ctx_t ctx, const char *fn);
void shoal_ctx_init_default(void);
void shoal_ctx_teardown(void);
/* At the last finalize: quiet every context the program did not destroy;
 * later (before the network shuts down) release their network state. */
void shoal_ctx_quiet_all(const char *fn);
void shoal_ctx_release_net(void);
/* Contexts created and live, for shmem-info / tests. */
void shoal_ctx_counts(long *live, long *pooled);
#endif
