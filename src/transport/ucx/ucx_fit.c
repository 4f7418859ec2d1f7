/* For SHOAL_TRANSPORTS=auto (transport/net_select.c): does UCX find a
 * fabric device here?  Its "ib" component lists the verbs devices
 * (InfiniBand, RoCE; also EFA and Omni-Path NICs, whose libfabric
 * providers fit better) and "ugni" Cray's Aries; TCP and shared memory
 * are no fabric.  Only asks UCX's components (as ucx_info -d does),
 * nothing opened. */
#include <string.h>

#include <uct/api/uct.h>

#include "transport/ucx/ucx_internal.h"

/* The devices named in the reason (a node has a few). */
#define MAX_NAMED 16

/* Appends the devices of `c` (its memory domains) to why. */
static int devices_of(uct_component_h c, char *why, size_t len, size_t *n)
{
    uct_component_attr_t attr = {.field_mask = UCT_COMPONENT_ATTR_FIELD_NAME |
                                               UCT_COMPONENT_ATTR_FIELD_MD_RESOURCE_COUNT};
    if (uct_component_query(c, &attr) != UCS_OK ||
        (strcmp(attr.name, "ib") && strcmp(attr.name, "ugni")) || !attr.md_resource_count)
        return 0;
    uct_md_resource_desc_t mds[MAX_NAMED];
    memset(mds, 0, sizeof mds);
    attr.field_mask = UCT_COMPONENT_ATTR_FIELD_MD_RESOURCES;
    attr.md_resources = mds;
    if (attr.md_resource_count > MAX_NAMED || uct_component_query(c, &attr) != UCS_OK) {
        if (*n < len)
            *n += (size_t)snprintf(why + *n, len - *n, "%s%u %s devices", *n ? ", " : "",
                                   attr.md_resource_count, attr.name);
        return 1;
    }
    for (unsigned i = 0; i < attr.md_resource_count && *n < len; i++)
        *n += (size_t)snprintf(why + *n, len - *n, "%s%s", *n ? ", " : "devices ", mds[i].md_name);
    return 1;
}

int ucx_net_fabric_fit(char *why, size_t len)
{
    uct_component_h *comps;
    unsigned n_comps;
    size_t n = 0;
    int found = 0;
    why[0] = 0;
    if (uct_query_components(&comps, &n_comps) == UCS_OK) {
        for (unsigned i = 0; i < n_comps; i++)
            found |= devices_of(comps[i], why, len, &n);
        uct_release_component_list(comps);
    }
    if (!found)
        snprintf(why, len, "no InfiniBand or RoCE device");
    return found ? SHOAL_FIT_DEVICE : SHOAL_FIT_GENERIC;
}
