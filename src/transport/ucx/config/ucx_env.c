/* The UCX transport's configuration: its rows (ucx_env_table.h), which
 * core lists in its one table (shoal_net_env_layer), and the loader that
 * fills ucx_cfg at init, before shoal_net_init reads it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/net.h"
#include "transport/ucx/config/ucx_config.h"

struct ucx_config ucx_cfg;

/* UCX_ENV_<id> and rows[] from ucx_env_table.h. */
#define SHOAL_ENV_TABLE "transport/ucx/config/ucx_env_table.h"
#define SHOAL_ENV_ID(id) UCX_ENV_##id
#include "transport/env_layer.h"

static const char *value(int id)
{
    const char *v = getenv(rows[id].name);
    return v ? v : rows[id].def;
}

/* A decimal number in [min, max], nothing else. */
static int number(const char *s, long min, long max, long *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    long v = strtol(s, &end, 10);
    if (*end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static int bad(char *err, size_t errlen, int id, const char *want)
{
    snprintf(err, errlen, "environment variable %s='%s' is malformed: expected %s", rows[id].name,
             value(id), want);
    return -1;
}

/* SHOAL_UCX_AM: -1 auto, 0, 1; -2 malformed. */
int ucx_env_am(void)
{
    const char *v = value(UCX_ENV_AM);
    if (!strcmp(v, "auto"))
        return -1;
    if (!strcmp(v, "0") || !strcmp(v, "1"))
        return v[0] - '0';
    return -2;
}

static int load(char *err, size_t errlen)
{
    const char *v = value(UCX_ENV_PROGRESS_THREAD);
    if (!strcmp(v, "auto"))
        ucx_cfg.progress_thread = -1;
    else if (!strcmp(v, "0") || !strcmp(v, "1"))
        ucx_cfg.progress_thread = v[0] - '0';
    else
        return bad(err, errlen, UCX_ENV_PROGRESS_THREAD, "one of auto, 0, 1");
    if (number(value(UCX_ENV_PROGRESS_INTERVAL_US), 0, 100000000, &ucx_cfg.progress_interval_us) <
        0)
        return bad(err, errlen, UCX_ENV_PROGRESS_INTERVAL_US, "a non-negative integer");
    v = value(UCX_ENV_DEFAULT_CTX_WORKERS);
    long nw;
    if (!strcmp(v, "shared"))
        ucx_cfg.default_ctx_workers = UCX_DFLT_SHARED;
    else if (!strcmp(v, "thread"))
        ucx_cfg.default_ctx_workers = UCX_DFLT_THREAD;
    else if (number(v, 1, 4096, &nw) == 0)
        ucx_cfg.default_ctx_workers = (int)nw;
    else
        return bad(err, errlen, UCX_ENV_DEFAULT_CTX_WORKERS,
                   "shared, thread or a number from 1 to 4096");
    long rw;
    if (number(value(UCX_ENV_REQUEST_WORKERS), 1, 1024, &rw) < 0)
        return bad(err, errlen, UCX_ENV_REQUEST_WORKERS, "a number from 1 to 1024");
    ucx_cfg.request_workers = (int)rw;
    ucx_cfg.am = ucx_env_am();
    if (ucx_cfg.am < -1)
        return bad(err, errlen, UCX_ENV_AM, "one of auto, 0, 1");
    v = value(UCX_ENV_ATOMICS);
    if (strcmp(v, "auto") && strcmp(v, "all"))
        return bad(err, errlen, UCX_ENV_ATOMICS, "one of auto, all");
    ucx_cfg.atomics_all = !strcmp(v, "all");
    v = value(UCX_ENV_SIGNALS);
    if (strcmp(v, "auto") && strcmp(v, "amo"))
        return bad(err, errlen, UCX_ENV_SIGNALS, "one of auto, amo");
    ucx_cfg.signals_amo = !strcmp(v, "amo");
    return 0;
}

static struct shoal_env_layer layer = {"ucx", 20, rows, UCX_ENV_COUNT, load, NULL};

struct shoal_env_layer *ucx_net_env_layer(void)
{
    return &layer;
}
