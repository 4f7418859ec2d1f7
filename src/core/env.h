/* Configuration read from the environment (table: env_table.h). */
#ifndef SHOAL_CORE_ENV_H
#define SHOAL_CORE_ENV_H
#include <stddef.h>
#include <stdio.h>

enum shoal_env_id {
#define SHOAL_ENV(id, name, alias, kind, def, meaning) SHOAL_ENV_##id,
#include "core/env_table.h"
#undef SHOAL_ENV
    SHOAL_ENV_COUNT
};

struct shoal_config {
    size_t symmetric_size;
    int debug, info, version;
    int wait_policy;          /* 0 auto, 1 spin, 2 sleep */
    long wait_spin_us;        /* -1 = auto */
    long wait_sleep_max_us;   /* -1 = auto */
    char transports[64];
    int net_mode;             /* enum shoal_net_mode */
    int coll_reduce;          /* 0 auto, 1 gather, 2 rsag */
    size_t coll_reduce_crossover;
    int coll_bcast;           /* 0 auto, 1 get, 2 tree */
    size_t coll_bcast_crossover;
    int progress_thread;      /* -1 auto, 0 off, 1 on (UCX) */
    long progress_interval_us;
    long split_nodes;         /* >= 1: pretend nodes (testing the mixed path) */
    int default_ctx_workers;  /* 0 shared, -1 one per thread, N > 0 round-robin (UCX) */
};

/* Parses every variable.  Returns 0, or -1 with a message naming the variable
 * in errbuf. */
int shoal_env_load(struct shoal_config *cfg, char *errbuf, size_t errlen);

/* Parses a SHMEM_SYMMETRIC_SIZE-style value.  Returns 0 or -1. */
int shoal_parse_size(const char *s, size_t *out);

/* Writes one line per variable: name, current value (or default), meaning. */
void shoal_env_print(FILE *f, const char *prefix);

#endif
