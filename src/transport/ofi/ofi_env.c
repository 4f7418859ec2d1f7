/* The OFI transport's configuration: its rows (ofi_env_table.h) and the
 * loader that fills ofi_cfg before ofi_net_init reads it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/ofi/ofi_env.h"
#include "transport/ofi/ofi_internal.h"

struct ofi_config ofi_cfg;

/* OFI_ENV_<id> and rows[] from ofi_env_table.h. */
#define SHOAL_ENV_TABLE "transport/ofi/ofi_env_table.h"
#define SHOAL_ENV_ID(id) OFI_ENV_##id
#include "transport/env_layer.h"

static const char *value(int id)
{
    const char *v = getenv(rows[id].name);
    return v ? v : rows[id].def;
}

static int load(char *err, size_t errlen)
{
    const char *v = value(OFI_ENV_PROGRESS);
    if (strcmp(v, "auto") && strcmp(v, "manual")) {
        snprintf(err, errlen,
                 "environment variable %s='%s' is malformed: expected one of auto, manual",
                 rows[OFI_ENV_PROGRESS].name, v);
        return -1;
    }
    ofi_cfg.progress_auto = !strcmp(v, "auto");
    return 0;
}

static struct shoal_env_layer layer = {"ofi", 21, rows, OFI_ENV_COUNT, load, NULL};

struct shoal_env_layer *ofi_net_env_layer(void)
{
    return &layer;
}
