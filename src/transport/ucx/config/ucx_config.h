/* transport/ucx/config — the UCX transport's environment variables: their
 * rows (ucx_env_table.h), which core lists in its one table
 * (ucx_net_env_layer, the ops table's env_layer), and the values read at
 * init (ucx_cfg).
 * May call: libc and the contract headers (transport/env_layer.h); the rest
 * of transport/ucx reads ucx_cfg. */
#ifndef SHOAL_UCX_CONFIG_H
#define SHOAL_UCX_CONFIG_H

enum ucx_dflt_policy { UCX_DFLT_SHARED = 0, UCX_DFLT_THREAD = -1 /* N > 0: round-robin */ };

/* The transport's variables (ucx_env.c, rows in ucx_env_table.h). */
struct ucx_config {
    int progress_thread; /* -1 auto, 0 off, 1 on */
    long progress_interval_us;
    int default_ctx_workers; /* enum ucx_dflt_policy or N > 0 */
    int request_workers;     /* SHOAL_REQUEST_WORKERS: the request pool's size */
    int am;                  /* SHOAL_UCX_AM: -1 auto, 0 the RMA ring, 1 UCP AM */
    int atomics_all;         /* SHOAL_UCX_ATOMICS=all: every AMO through UCX */
    int signals_amo;         /* SHOAL_UCX_SIGNALS=amo: collectives' signals as AMOs */
};
extern struct ucx_config ucx_cfg;
/* SHOAL_UCX_AM as set now (for shmem-info before init): -1 auto, 0, 1;
 * -2 malformed. */
int ucx_env_am(void);
/* The layer of its rows (struct shoal_net_ops.env_layer). */
struct shoal_env_layer;
struct shoal_env_layer *ucx_net_env_layer(void);

#endif
