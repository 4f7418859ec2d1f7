/* UCX's grace period for code patches, given back after oshrun started
 * this program without it (tools/oshrun/ucx_start.c says why start-up
 * needs none). */
#ifndef SHOAL_UCX_STARTUP_H
#define SHOAL_UCX_STARTUP_H

/* Before ucp_init: where SHOAL_OSHRUN_UCX_GRACE says oshrun set
 * UCX_MEM_BISTRO_GRACE_DURATION to 0 and UCX (1.21 and later) still has
 * it at 0, UCX's default grace again, for the patches UCX applies from
 * here on (its CUDA hooks, a re-install), when other threads may run. */
void ucx_startup_grace_back(void);

#endif
