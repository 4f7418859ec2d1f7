/* The UCX transport's configuration: its rows (ucx_env_table.h) join the
 * one table of variables (core/env.h); the loader fills ucx_cfg at init,
 * before shoal_net_init reads it. */
#include <string.h>

#include "core/env.h"
#include "transport/ucx/ucx_internal.h"

struct ucx_config ucx_cfg;

enum ucx_env_id {
#define SHOAL_ENV(id, name, alias, kind, def, meaning) UCX_ENV_##id,
#include "transport/ucx/ucx_env_table.h"
#undef SHOAL_ENV
    UCX_ENV_COUNT
};

static const struct shoal_env_row rows[UCX_ENV_COUNT] = {
#define SHOAL_ENV(id, name, alias, kind, def, meaning) \
    [UCX_ENV_##id] = SHOAL_ENV_ROW(name, alias, kind, def, meaning),
#include "transport/ucx/ucx_env_table.h"
#undef SHOAL_ENV
};

static int load_progress(char *err, size_t errlen)
{
    static const char *const choices[] = {"0", "1", "auto", NULL};
    const char *used, *v = shoal_env_value(&rows[UCX_ENV_PROGRESS_THREAD], &used);
    int k = shoal_parse_choice(v, choices);
    if (k < 0)
        return shoal_env_bad(err, errlen, used, v, "one of auto, 0, 1");
    ucx_cfg.progress_thread = k == 2 ? -1 : k;
    v = shoal_env_value(&rows[UCX_ENV_PROGRESS_INTERVAL_US], &used);
    if (shoal_parse_uint(v, &ucx_cfg.progress_interval_us) < 0)
        return shoal_env_bad(err, errlen, used, v, "a non-negative integer");
    return 0;
}

static int load_default_workers(char *err, size_t errlen)
{
    const char *used, *v = shoal_env_value(&rows[UCX_ENV_DEFAULT_CTX_WORKERS], &used);
    long nw = 0;
    if (!strcmp(v, "shared"))
        ucx_cfg.default_ctx_workers = UCX_DFLT_SHARED;
    else if (!strcmp(v, "thread"))
        ucx_cfg.default_ctx_workers = UCX_DFLT_THREAD;
    else if (shoal_parse_uint(v, &nw) == 0 && nw >= 1 && nw <= 4096)
        ucx_cfg.default_ctx_workers = (int)nw;
    else
        return shoal_env_bad(err, errlen, used, v, "shared, thread or a number from 1 to 4096");
    return 0;
}

static int load(char *err, size_t errlen)
{
    return load_progress(err, errlen) < 0 || load_default_workers(err, errlen) < 0 ? -1 : 0;
}

static struct shoal_env_layer layer = {"ucx", 20, rows, UCX_ENV_COUNT, load, NULL};

__attribute__((constructor)) static void register_rows(void)
{
    shoal_env_register(&layer);
}
