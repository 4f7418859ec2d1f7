/* Reading and validating the environment (table: env_table.h). */
#include "core/env.h"
#include "core/net.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum shoal_env_kind { KIND_SIZE, KIND_BOOL, KIND_UINT, KIND_STRING };

struct shoal_env_row {
    const char *name, *alias, *def, *meaning;
    enum shoal_env_kind kind;
};

static const struct shoal_env_row rows[SHOAL_ENV_COUNT] = {
#define SHOAL_ENV(id, name, alias, kind, def, meaning) \
    [SHOAL_ENV_##id] = {name, alias, def, meaning, KIND_##kind},
#include "core/env_table.h"
#undef SHOAL_ENV
};

/* The spec's rule: the SHMEM_ spelling wins over the deprecated SMA_ one. */
static const char *lookup(const struct shoal_env_row *r, const char **used)
{
    const char *v = getenv(r->name);
    *used = r->name;
    if (!v && r->alias) {
        v = getenv(r->alias);
        *used = r->alias;
    }
    return v;
}

int shoal_parse_size(const char *s, size_t *out)
{
    /* [digits][.digits][suffix[anything]]: at least one digit; only the first
     * suffix letter counts (spec).  Exact integer arithmetic, rounded up. */
    const char *p = s;
    unsigned __int128 ip = 0, frac = 0, fscale = 1;
    int ndig = 0;
    while (isdigit((unsigned char)*p)) {
        ip = ip * 10 + (unsigned)(*p++ - '0');
        ndig++;
        if (ip > ((unsigned __int128)1 << 70))
            return -1;
    }
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) {
            if (fscale < (unsigned __int128)1e30) {
                frac = frac * 10 + (unsigned)(*p - '0');
                fscale *= 10;
            }
            p++;
            ndig++;
        }
    }
    if (ndig == 0)
        return -1;
    unsigned __int128 factor = 1;
    switch (*p) {
    case '\0': break;
    case 'k': case 'K': factor = (unsigned __int128)1 << 10; break;
    case 'm': case 'M': factor = (unsigned __int128)1 << 20; break;
    case 'g': case 'G': factor = (unsigned __int128)1 << 30; break;
    case 't': case 'T': factor = (unsigned __int128)1 << 40; break;
    default: return -1;
    }
    unsigned __int128 v = ip * factor + (frac * factor + fscale - 1) / fscale;
    if (v > SIZE_MAX / 2)
        return -1;
    *out = (size_t)v;
    return 0;
}

/* The usual spellings, in any case; empty is off (as if unset: what
 * "VAR= prog" means).  Anything else is malformed rather than "on": a typo
 * must not silently switch costly checks on or off. */
static int parse_bool(const char *s, int *out)
{
    static const char *const on[] = {"1", "yes", "y", "on", "true"};
    static const char *const off[] = {"", "0", "no", "n", "off", "false"};
    for (size_t i = 0; i < sizeof on / sizeof on[0]; i++)
        if (!strcasecmp(s, on[i]))
            return *out = 1, 0;
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        if (!strcasecmp(s, off[i]))
            return *out = 0, 0;
    return -1;
}

#define BOOL_WANT "a boolean: 1/0, yes/no, y/n, on/off or true/false (empty: off)"

static int parse_uint(const char *s, long *out)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)*s))
        return -1;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < 0)
        return -1;
    *out = v;
    return 0;
}

static int bad(char *errbuf, size_t errlen, const char *var, const char *val, const char *want)
{
    snprintf(errbuf, errlen, "environment variable %s='%s' is malformed: expected %s", var, val,
             want);
    return -1;
}

int shoal_env_load(struct shoal_config *cfg, char *errbuf, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    for (int id = 0; id < SHOAL_ENV_COUNT; id++) {
        const struct shoal_env_row *r = &rows[id];
        const char *used;
        const char *v = lookup(r, &used);
        if (!v)
            v = r->def;
        switch (id) {
        case SHOAL_ENV_SYMMETRIC_SIZE:
            if (shoal_parse_size(v, &cfg->symmetric_size) < 0)
                return bad(errbuf, errlen, used, v,
                           "a number of bytes with an optional K/M/G/T suffix, e.g. 512M or 1.5G");
            break;
        case SHOAL_ENV_DEBUG:
            if (parse_bool(v, &cfg->debug) < 0)
                return bad(errbuf, errlen, used, v, BOOL_WANT);
            break;
        case SHOAL_ENV_INFO:
            if (parse_bool(v, &cfg->info) < 0)
                return bad(errbuf, errlen, used, v, BOOL_WANT);
            break;
        case SHOAL_ENV_VERSION:
            if (parse_bool(v, &cfg->version) < 0)
                return bad(errbuf, errlen, used, v, BOOL_WANT);
            break;
        case SHOAL_ENV_WAIT_SPIN_US:
            cfg->wait_spin_us = -1;
            if (strcmp(v, "auto") && parse_uint(v, &cfg->wait_spin_us) < 0)
                return bad(errbuf, errlen, used, v, "a non-negative integer or 'auto'");
            break;
        case SHOAL_ENV_WAIT_SLEEP_MAX_US:
            cfg->wait_sleep_max_us = -1;
            if (strcmp(v, "auto") &&
                (parse_uint(v, &cfg->wait_sleep_max_us) < 0 || cfg->wait_sleep_max_us < 1))
                return bad(errbuf, errlen, used, v, "a positive integer or 'auto'");
            break;
        case SHOAL_ENV_WAIT_POLICY:
            if (!strcmp(v, "auto"))
                cfg->wait_policy = 0;
            else if (!strcmp(v, "spin"))
                cfg->wait_policy = 1;
            else if (!strcmp(v, "sleep"))
                cfg->wait_policy = 2;
            else
                return bad(errbuf, errlen, used, v, "one of auto, spin, sleep");
            break;
        case SHOAL_ENV_COLL_REDUCE:
            if (!strcmp(v, "auto"))
                cfg->coll_reduce = 0;
            else if (!strcmp(v, "gather"))
                cfg->coll_reduce = 1;
            else if (!strcmp(v, "rsag"))
                cfg->coll_reduce = 2;
            else
                return bad(errbuf, errlen, used, v, "one of auto, gather, rsag");
            break;
        case SHOAL_ENV_COLL_REDUCE_CROSSOVER:
            if (shoal_parse_size(v, &cfg->coll_reduce_crossover) < 0)
                return bad(errbuf, errlen, used, v,
                           "a number of bytes with an optional K/M/G/T suffix, e.g. 64K");
            break;
        case SHOAL_ENV_COLL_BCAST:
            if (!strcmp(v, "auto"))
                cfg->coll_bcast = 0;
            else if (!strcmp(v, "get"))
                cfg->coll_bcast = 1;
            else if (!strcmp(v, "tree"))
                cfg->coll_bcast = 2;
            else
                return bad(errbuf, errlen, used, v, "one of auto, get, tree");
            break;
        case SHOAL_ENV_COLL_BCAST_CROSSOVER:
            if (shoal_parse_size(v, &cfg->coll_bcast_crossover) < 0)
                return bad(errbuf, errlen, used, v,
                           "a number of bytes with an optional K/M/G/T suffix, e.g. 64K");
            break;
        case SHOAL_ENV_PROGRESS_THREAD:
            if (!strcmp(v, "auto"))
                cfg->progress_thread = -1;
            else if (!strcmp(v, "0") || !strcmp(v, "1"))
                cfg->progress_thread = v[0] - '0';
            else
                return bad(errbuf, errlen, used, v, "one of auto, 0, 1");
            break;
        case SHOAL_ENV_PROGRESS_INTERVAL_US:
            if (parse_uint(v, &cfg->progress_interval_us) < 0)
                return bad(errbuf, errlen, used, v, "a non-negative integer");
            break;
        case SHOAL_ENV_SPLIT_NODES:
            if (parse_uint(v, &cfg->split_nodes) < 0 || cfg->split_nodes < 1)
                return bad(errbuf, errlen, used, v, "a positive integer");
            break;
        case SHOAL_ENV_DEFAULT_CTX_WORKERS: {
            long nw = 0;
            if (!strcmp(v, "shared"))
                cfg->default_ctx_workers = 0;
            else if (!strcmp(v, "thread"))
                cfg->default_ctx_workers = -1;
            else if (parse_uint(v, &nw) == 0 && nw >= 1 && nw <= 4096)
                cfg->default_ctx_workers = (int)nw;
            else
                return bad(errbuf, errlen, used, v, "shared, thread or a number from 1 to 4096");
            break;
        }
        case SHOAL_ENV_TRANSPORTS:
            if (!strcmp(v, "shm"))
                cfg->net_mode = SHOAL_NET_OFF;
            else if (!strcmp(v, "ucx"))
                cfg->net_mode = SHOAL_NET_ALL;
            else if (!strcmp(v, "auto") || !strcmp(v, "shm,ucx") || !strcmp(v, "ucx,shm"))
                cfg->net_mode = SHOAL_NET_REMOTE;
            else
                return bad(errbuf, errlen, used, v, "one of auto, shm, ucx, shm,ucx");
            snprintf(cfg->transports, sizeof cfg->transports, "%s", v);
            break;
        }
    }
    return 0;
}

void shoal_env_print(FILE *f, const char *prefix)
{
    for (int id = 0; id < SHOAL_ENV_COUNT; id++) {
        const struct shoal_env_row *r = &rows[id];
        const char *used;
        const char *v = lookup(r, &used);
        fprintf(f, "%s%-28s = %-8s %s%s%s%s%s\n", prefix, r->name, v ? v : r->def,
                v ? "(set)     " : "(default) ", r->meaning, r->alias ? " [alias: " : "",
                r->alias ? r->alias : "", r->alias ? "]" : "");
    }
}
