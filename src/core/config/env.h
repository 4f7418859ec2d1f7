/* core/config — what the PE was told and what it says: configuration,
 * errors, logging.
 *
 * Owns: the environment variables (env.c: core's rows in env_table.h
 * parsed into struct shoal_config, and the one table every layer's rows
 * join), fatal errors and warnings with the fast-path checks' cold ends
 * (error.c, error.h), and logging (log.c, log.h: SHOAL_LOG).
 * May call: core/state.h (the PE's number, its segments and the world
 * team, for messages), boot/boot.h (a fatal error ends the job through
 * the bootstrap's abort), the network transport's rows
 * (shoal_net_env_layer, transport/net.h), libc; nothing else of core.  Called by every layer
 * above (errors, logging), runtime.c (loading and printing the table) and
 * the layers that register rows (shoal_env_register).
 *
 * This header: configuration read from the environment.
 *
 * Each layer owns the rows of the variables it reads, all in one form
 * (SHOAL_ENV(id, name, alias, kind, default, meaning)): core in
 * core/config/env_table.h, the collectives in coll/coll_env_table.h, the UCX
 * transport in transport/ucx/config/ucx_env_table.h.  Core parses its own rows
 * into struct shoal_config; every other layer registers its rows with a
 * loader (shoal_env_register, from a constructor), which core runs at
 * init right after its own.  So shmem-info prints one table, and a
 * malformed value anywhere stops shmem_init the same way, naming the
 * variable. */
#ifndef SHOAL_CORE_ENV_H
#define SHOAL_CORE_ENV_H
#include <stddef.h>
#include <stdio.h>

#include "transport/env_rows.h"

void shoal_env_register(struct shoal_env_layer *layer);

enum shoal_env_id {
#define SHOAL_ENV(id, name, alias, kind, def, meaning) SHOAL_ENV_##id,
#include "core/config/env_table.h"
#undef SHOAL_ENV
    SHOAL_ENV_COUNT
};

struct shoal_config {
    size_t symmetric_size;
    int debug, info, version;
    int wait_policy;        /* 0 auto, 1 spin, 2 sleep */
    long wait_spin_us;      /* -1 = auto */
    long wait_sleep_max_us; /* -1 = auto */
    char transports[64];
    char net_name[16];   /* the network SHOAL_TRANSPORTS names ("ucx", "ofi"), "": any */
    int net_mode;        /* enum shoal_net_mode */
    long split_nodes;    /* >= 1: pretend nodes (testing the mixed path) */
    long peer_timeout_s; /* SHOAL_PEER_TIMEOUT, 0: never */
    char profile[1024];  /* SHOAL_PROFILE's file, "" when off */
};

/* Parses core's rows, then runs every registered layer's loader.
 * Returns 0, or -1 with a message naming the variable in errbuf. */
int shoal_env_load(struct shoal_config *cfg, char *errbuf, size_t errlen);

/* Writes one line per variable of every layer: name, current value (or
 * default), meaning. */
void shoal_env_print(FILE *f, const char *prefix);

/* For loaders.  The value of a row: the variable, else its deprecated
 * alias (the spec's rule: the SHMEM_ spelling wins), else the default;
 * *used is the name that was read (the row's name for the default). */
const char *shoal_env_value(const struct shoal_env_row *r, const char **used);
/* Writes "environment variable VAR='val' is malformed: expected <want>"
 * into err and returns -1. */
int shoal_env_bad(char *err, size_t errlen, const char *var, const char *val, const char *want);
/* Value parsers: 0, or -1 when `s` is malformed. */
int shoal_parse_size(const char *s, size_t *out); /* SHMEM_SYMMETRIC_SIZE style */
int shoal_parse_uint(const char *s, long *out);   /* decimal, >= 0 */
int shoal_parse_bool(const char *s, int *out);    /* 1/yes/y/on/true, 0/no/n/off/false/"" */
/* Index of `s` in the NULL-terminated `choices`, or -1. */
int shoal_parse_choice(const char *s, const char *const *choices);

#endif
