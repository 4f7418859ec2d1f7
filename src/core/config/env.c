/* Reading and validating the environment (core's rows: env_table.h; the
 * other layers' rows arrive through shoal_env_register, see env.h). */
#include "core/config/env.h"
#include "core/config/log.h"
#include "transport/net.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct shoal_env_row rows[SHOAL_ENV_COUNT] = {
#define SHOAL_ENV(id, name, alias, kind, def, meaning) \
    [SHOAL_ENV_##id] = SHOAL_ENV_ROW(name, alias, kind, def, meaning),
#include "core/config/env_table.h"
#undef SHOAL_ENV
};

static struct shoal_env_layer *layers; /* sorted by order */

void shoal_env_register(struct shoal_env_layer *layer)
{
    struct shoal_env_layer **p = &layers;
    while (*p && (*p)->order <= layer->order)
        p = &(*p)->next;
    layer->next = *p;
    *p = layer;
}

const char *shoal_env_value(const struct shoal_env_row *r, const char **used)
{
    const char *v = getenv(r->name);
    *used = r->name;
    if (!v && r->alias) {
        v = getenv(r->alias);
        *used = r->alias;
    }
    if (!v) {
        *used = r->name;
        v = r->def;
    }
    return v;
}

int shoal_env_bad(char *err, size_t errlen, const char *var, const char *val, const char *want)
{
    snprintf(err, errlen, "environment variable %s='%s' is malformed: expected %s", var, val, want);
    return -1;
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
    case 'k':
    case 'K': factor = (unsigned __int128)1 << 10; break;
    case 'm':
    case 'M': factor = (unsigned __int128)1 << 20; break;
    case 'g':
    case 'G': factor = (unsigned __int128)1 << 30; break;
    case 't':
    case 'T': factor = (unsigned __int128)1 << 40; break;
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
int shoal_parse_bool(const char *s, int *out)
{
    static const char *const on[] = {"1", "yes", "y", "on", "true", NULL};
    static const char *const off[] = {"", "0", "no", "n", "off", "false", NULL};
    for (int i = 0; on[i]; i++)
        if (!strcasecmp(s, on[i]))
            return *out = 1, 0;
    for (int i = 0; off[i]; i++)
        if (!strcasecmp(s, off[i]))
            return *out = 0, 0;
    return -1;
}

/* The spec's "Any" variables: set is on, unless the value is one of the
 * off spellings (a set SHMEM_DEBUG=0 must not switch the checks on). */
static int parse_flag(const char *s)
{
    int v;
    return shoal_parse_bool(s, &v) < 0 ? 1 : v;
}

int shoal_parse_uint(const char *s, long *out)
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

int shoal_parse_choice(const char *s, const char *const *choices)
{
    for (int i = 0; choices[i]; i++)
        if (!strcmp(s, choices[i]))
            return i;
    return -1;
}

/* ------------------------------------------------------------ core's rows */

/* Each parser stores a row's value and returns NULL, or returns what was
 * expected when the value is malformed. */
typedef const char *(*row_parser)(const char *v, struct shoal_config *c);

static const char *p_size(const char *v, struct shoal_config *c)
{
    return shoal_parse_size(v, &c->symmetric_size) < 0
               ? "a number of bytes with an optional K/M/G/T suffix, e.g. 512M or 1.5G"
               : NULL;
}

static const char *p_debug(const char *v, struct shoal_config *c)
{
    c->debug = parse_flag(v);
    return NULL;
}

static const char *p_info(const char *v, struct shoal_config *c)
{
    c->info = parse_flag(v);
    return NULL;
}

static const char *p_version(const char *v, struct shoal_config *c)
{
    c->version = parse_flag(v);
    return NULL;
}

static const char *p_wait_policy(const char *v, struct shoal_config *c)
{
    static const char *const choices[] = {"auto", "spin", "sleep", NULL};
    c->wait_policy = shoal_parse_choice(v, choices);
    return c->wait_policy < 0 ? "one of auto, spin, sleep" : NULL;
}

/* "auto" (-1) or a number >= min. */
static int auto_or_uint(const char *v, long min, long *out)
{
    *out = -1;
    return strcmp(v, "auto") && (shoal_parse_uint(v, out) < 0 || *out < min) ? -1 : 0;
}

static const char *p_spin(const char *v, struct shoal_config *c)
{
    return auto_or_uint(v, 0, &c->wait_spin_us) < 0 ? "a non-negative integer or 'auto'" : NULL;
}

static const char *p_sleep_max(const char *v, struct shoal_config *c)
{
    return auto_or_uint(v, 1, &c->wait_sleep_max_us) < 0 ? "a positive integer or 'auto'" : NULL;
}

/* One name of SHOAL_TRANSPORTS' list: "shm" or a network's, each once. */
static int transports_item(const char *p, size_t n, int *shm, struct shoal_config *c)
{
    if (n == 3 && !strncmp(p, "shm", 3)) {
        *shm += 1;
        return *shm > 1 ? -1 : 0;
    }
    if (n == 0 || n >= sizeof c->net_name || c->net_name[0] ||
        strspn(p, "abcdefghijklmnopqrstuvwxyz") < n)
        return -1;
    memcpy(c->net_name, p, n);
    c->net_name[n] = 0;
    return 0;
}

/* "auto", "shm", a network's name ("ucx", "ofi": every peer through it),
 * or both ("shm,ucx"): which networks exist is the transports' business
 * (transport/net_select.c refuses one the build lacks). */
static const char *p_transports(const char *v, struct shoal_config *c)
{
    int shm = 0;
    c->net_name[0] = 0;
    for (const char *p = v; strcmp(v, "auto"); p += strcspn(p, ",") + 1) {
        if (transports_item(p, strcspn(p, ","), &shm, c) < 0)
            return "one of auto, shm, a network transport (ucx, ofi), or shm and one "
                   "(shm,ucx)";
        if (!p[strcspn(p, ",")])
            break;
    }
    c->net_mode = !strcmp(v, "auto") || (shm && c->net_name[0]) ? SHOAL_NET_REMOTE
                  : shm                                         ? SHOAL_NET_OFF
                                                                : SHOAL_NET_ALL;
    snprintf(c->transports, sizeof c->transports, "%s", v);
    return NULL;
}

static const char *p_log(const char *v, struct shoal_config *c)
{
    static char want[256];
    (void)c;
    return shoal_log_configure(v, want, sizeof want) < 0 ? want : NULL;
}

static const char *p_split(const char *v, struct shoal_config *c)
{
    return shoal_parse_uint(v, &c->split_nodes) < 0 || c->split_nodes < 1 ? "a positive integer"
                                                                          : NULL;
}

static const char *p_peer_timeout(const char *v, struct shoal_config *c)
{
    return shoal_parse_uint(v, &c->peer_timeout_s) < 0 || c->peer_timeout_s > 1000000
               ? "a number of seconds from 0 (never) to 1000000"
               : NULL;
}

/* Off, on (the default file) or a file name. */
static const char *p_profile(const char *v, struct shoal_config *c)
{
    int on;
    if (shoal_parse_bool(v, &on) < 0)
        snprintf(c->profile, sizeof c->profile, "%s", v);
    else if (on)
        snprintf(c->profile, sizeof c->profile, "shoal-profile.json");
    return strlen(v) >= sizeof c->profile ? "a file name shorter than 1024 bytes" : NULL;
}

static const row_parser parsers[SHOAL_ENV_COUNT] = {
    [SHOAL_ENV_SYMMETRIC_SIZE] = p_size,
    [SHOAL_ENV_DEBUG] = p_debug,
    [SHOAL_ENV_INFO] = p_info,
    [SHOAL_ENV_VERSION] = p_version,
    [SHOAL_ENV_WAIT_POLICY] = p_wait_policy,
    [SHOAL_ENV_WAIT_SPIN_US] = p_spin,
    [SHOAL_ENV_WAIT_SLEEP_MAX_US] = p_sleep_max,
    [SHOAL_ENV_TRANSPORTS] = p_transports,
    [SHOAL_ENV_SPLIT_NODES] = p_split,
    [SHOAL_ENV_PEER_TIMEOUT] = p_peer_timeout,
    [SHOAL_ENV_LOG] = p_log,
    [SHOAL_ENV_PROFILE] = p_profile,
    /* The bootstrap's rows are read by boot/ itself: listed, not parsed here. */
};

int shoal_env_load(struct shoal_config *cfg, char *errbuf, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    for (int id = 0; id < SHOAL_ENV_COUNT; id++) {
        if (!parsers[id])
            continue;
        const char *used, *v = shoal_env_value(&rows[id], &used);
        const char *want = parsers[id](v, cfg);
        if (want)
            return shoal_env_bad(errbuf, errlen, used, v, want);
    }
    for (struct shoal_env_layer *l = layers; l; l = l->next)
        if (l->load && l->load(errbuf, errlen) < 0)
            return -1;
    struct shoal_env_layer *net;
    for (int i = 0; (net = shoal_net_env_layer(i)) != NULL; i++)
        if (net->load && net->load(errbuf, errlen) < 0)
            return -1;
    return 0;
}

static void print_rows(FILE *f, const char *prefix, const struct shoal_env_row *r, int n)
{
    for (int i = 0; i < n; i++, r++) {
        const char *v = getenv(r->name);
        if (!v && r->alias)
            v = getenv(r->alias);
        fprintf(f, "%s%-28s = %-8s %s%s%s%s%s\n", prefix, r->name, v ? v : r->def,
                v ? "(set)     " : "(default) ", r->meaning, r->alias ? " [alias: " : "",
                r->alias ? r->alias : "", r->alias ? "]" : "");
    }
}

void shoal_env_print(FILE *f, const char *prefix)
{
    print_rows(f, prefix, rows, SHOAL_ENV_COUNT);
    for (const struct shoal_env_layer *l = layers; l; l = l->next)
        print_rows(f, prefix, l->rows, l->nrows);
    const struct shoal_env_layer *net;
    for (int i = 0; (net = shoal_net_env_layer(i)) != NULL; i++)
        print_rows(f, prefix, net->rows, net->nrows);
}
