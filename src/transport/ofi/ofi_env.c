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

/* Which of `choices` (a NULL-ended list) variable `id` holds: its index,
 * or -1 with a message. */
static int choice(int id, const char *const *choices, const char *expected, char *err,
                  size_t errlen)
{
    const char *v = value(id);
    for (int i = 0; choices[i]; i++)
        if (!strcmp(v, choices[i]))
            return i;
    snprintf(err, errlen, "environment variable %s='%s' is malformed: expected one of %s",
             rows[id].name, v, expected);
    return -1;
}

/* SHOAL_OFI_AMO_DISABLE's list ("add,fetch-add", "all") as bits per
 * operation; -1 for a name that is none (or compare-swap, which carries
 * the others). */
static int amo_disabled(const char *v, unsigned *bits)
{
    *bits = 0;
    for (const char *p = v; *p; p += strcspn(p, ","), p += *p == ',') {
        const size_t n = strcspn(p, ",");
        if (n == 3 && !strncmp(p, "all", 3)) {
            *bits |= ~(1u << SHOAL_AMO_CSWAP);
            continue;
        }
        int op = 0;
        while (ofi_amo_name(op) &&
               (strlen(ofi_amo_name(op)) != n || strncmp(p, ofi_amo_name(op), n)))
            op++;
        if (!ofi_amo_name(op) || op == SHOAL_AMO_CSWAP)
            return -1;
        *bits |= 1u << op;
    }
    return 0;
}

/* SHOAL_OFI_ASSUME_MODES's list ("mr_local,context2"); -1 for a name
 * that is none. */
static int assumed_modes(const char *v)
{
    ofi_cfg.assume_mr_local = ofi_cfg.assume_ctx = 0;
    for (const char *p = v; *p; p += strcspn(p, ","), p += *p == ',') {
        const size_t n = strcspn(p, ",");
        if (n == 8 && !strncmp(p, "mr_local", n))
            ofi_cfg.assume_mr_local = 1;
        else if ((n == 7 && !strncmp(p, "context", n)) || (n == 8 && !strncmp(p, "context2", n)))
            ofi_cfg.assume_ctx = 1;
        else
            return -1;
    }
    return 0;
}

static int load(char *err, size_t errlen)
{
    const char *modes = value(OFI_ENV_ASSUME_MODES);
    if (assumed_modes(modes) < 0) {
        snprintf(err, errlen,
                 "environment variable %s='%s' is malformed: expected a comma-separated list of "
                 "mr_local, context, context2",
                 rows[OFI_ENV_ASSUME_MODES].name, modes);
        return -1;
    }
    const char *amo = value(OFI_ENV_AMO_DISABLE);
    if (amo_disabled(amo, &ofi_cfg.amo_disabled) < 0) {
        snprintf(err, errlen,
                 "environment variable %s='%s' is malformed: expected a comma-separated list of "
                 "fetch, set, swap, fetch-add, add, fetch-and, and, fetch-or, or, fetch-xor, xor, "
                 "or all",
                 rows[OFI_ENV_AMO_DISABLE].name, amo);
        return -1;
    }
    static const char *const progress[] = {"auto", "manual", NULL};
    static const char *const msgs[] = {"on", "signals", "off", NULL};
    const int p = choice(OFI_ENV_PROGRESS, progress, "auto, manual", err, errlen);
    const int m = p < 0 ? -1 : choice(OFI_ENV_MSGS, msgs, "on, signals, off", err, errlen);
    if (m < 0)
        return -1;
    ofi_cfg.progress_auto = p == 0;
    ofi_cfg.msgs_signals = m <= 1;
    ofi_cfg.msgs_coll = m == 0;
    ofi_cfg.auto_devices = value(OFI_ENV_AUTO_DEVICES);
    return 0;
}

static struct shoal_env_layer layer = {"ofi", 21, rows, OFI_ENV_COUNT, load, NULL};

struct shoal_env_layer *ofi_net_env_layer(void)
{
    return &layer;
}
