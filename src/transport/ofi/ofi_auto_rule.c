/* SHOAL_TRANSPORTS=auto's rule over libfabric's providers (ofi_auto.h).
 * A native provider drives its fabric's own interface (Slingshot's cxi,
 * AWS's efa, Omni-Path's opx and psm2, psm3 on Intel's Ethernet and
 * verbs NICs), which UCX has no transport for or reaches only through
 * verbs or TCP; tcp, udp, sockets, shm and net are generic. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "transport/net.h"
#include "transport/ofi/ofi_auto.h"

static const char *const native[] = {"cxi", "efa", "opx", "psm3", "psm2"};

/* The core provider of a layered name ("verbs" of "verbs;ofi_rxm"). */
static int core_is(const char *prov, const char *core)
{
    const size_t n = strcspn(prov, ";");
    return n == strlen(core) && !strncmp(prov, core, n);
}

static int is_native(const char *prov)
{
    for (size_t k = 0; k < sizeof native / sizeof native[0]; k++)
        if (core_is(prov, native[k]))
            return 1;
    return 0;
}

/* "tcp;ofi_rxm, sockets" (each once) into why. */
static void list_all(const char *const *provs, size_t n, char *why, size_t len)
{
    size_t at = (size_t)snprintf(why, len, "libfabric offers no fabric provider, only ");
    for (size_t i = 0; i < n && at < len; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= !strcmp(provs[j], provs[i]);
        if (!seen)
            at += (size_t)snprintf(why + at, len - at, "%s%s", i ? ", " : "", provs[i]);
    }
    if (!n)
        snprintf(why, len, "libfabric offers no provider with RMA and atomics");
}

int ofi_auto_rule(const char *const *provs, size_t n, char *why, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (is_native(provs[i])) {
            snprintf(why, len, "libfabric offers %s, a fabric's own provider", provs[i]);
            return SHOAL_FIT_NATIVE;
        }
    for (size_t i = 0; i < n; i++)
        if (core_is(provs[i], "verbs")) {
            snprintf(why, len, "libfabric offers %s", provs[i]);
            return SHOAL_FIT_DEVICE;
        }
    list_all(provs, n, why, len);
    return SHOAL_FIT_GENERIC;
}

/* Is `core` (n bytes) one of the names of `list` (',' and ';' separate)? */
static int named(const char *list, const char *core, size_t n)
{
    for (const char *p = list; *p; p += strcspn(p, ",;"), p += *p != 0) {
        const size_t k = strcspn(p, ",;");
        if (k == n && !strncasecmp(p, core, n))
            return 1;
    }
    return 0;
}

/* Inclusion names the core provider (FI_PROVIDER=tcp admits tcp;ofi_rxm);
 * exclusion takes out every provider layered on a name too
 * (FI_PROVIDER=^ofi_rxm leaves no tcp;ofi_rxm: ofi.no_atomics). */
int ofi_fi_provider_allows(const char *filter, const char *prov)
{
    if (filter[0] != '^')
        return named(filter, prov, strcspn(prov, ";"));
    for (const char *p = prov; *p; p += strcspn(p, ";"), p += *p != 0)
        if (named(filter + 1, p, strcspn(p, ";")))
            return 0;
    return 1;
}
