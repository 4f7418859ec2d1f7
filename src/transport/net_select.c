/* The choice of the network transport (transport/net.h): the build's
 * networks are listed at configure time (shoal_net_list.h, written by
 * src/CMakeLists.txt: one X(name) per transport built, each exporting
 * shoal_net_<name>_ops), and the job takes the one SHOAL_TRANSPORTS names,
 * or the first, at shmem_init.  Until then, and in a build without one,
 * the table is transport/none's.
 * May call: the transports' tables, boot/boot.h (the allgather), libc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "shoal_net_list.h"
#include "transport/net.h"

#define SHOAL_NET_DECLARE(name) extern const struct shoal_net_ops shoal_net_##name##_ops;
#define SHOAL_NET_ENTRY(name) &shoal_net_##name##_ops,
SHOAL_NET_TRANSPORTS(SHOAL_NET_DECLARE)
extern const struct shoal_net_ops shoal_net_none_ops;

/* In the order of preference of "auto". */
static const struct shoal_net_ops *const networks[] = {SHOAL_NET_TRANSPORTS(SHOAL_NET_ENTRY) NULL};

const struct shoal_net_ops *shoal_net_ops = &shoal_net_none_ops;

/* The transport SHOAL_TRANSPORTS names ("": the build's first network,
 * else none), or NULL with a message. */
static const struct shoal_net_ops *choose(const char *name, char *err, size_t errlen)
{
    if (!name || !*name)
        return networks[0] ? networks[0] : &shoal_net_none_ops;
    for (int i = 0; networks[i]; i++)
        if (!strcmp(networks[i]->name, name))
            return networks[i];
    snprintf(err, errlen,
             "SHOAL_TRANSPORTS names '%s', but this build of Shoal has no such transport (it "
             "has: %s); rebuild with its library installed (ucx: libucx-dev, ofi: libfabric-dev)",
             name, shoal_net_built());
    return NULL;
}

/* Every PE must use one network: a PE whose SHOAL_TRANSPORTS (or whose
 * build) chose another could not reach the others. */
#define NAME_LEN 16
static int same_everywhere(struct shoal_boot *b, const char *mine, char *err, size_t errlen)
{
    char me[NAME_LEN] = {0}, *all = calloc((size_t)b->size, NAME_LEN);
    snprintf(me, sizeof me, "%s", mine);
    int rc = -1;
    if (!all || b->allgather(me, all, NAME_LEN) < 0) {
        snprintf(err, errlen, "bootstrap allgather of the network transports' names failed");
        goto out;
    }
    for (int pe = 0; pe < b->size; pe++) {
        const char *theirs = all + (size_t)pe * NAME_LEN;
        if (strncmp(theirs, me, NAME_LEN)) {
            snprintf(err, errlen,
                     "PE %d chose the %.16s network transport and PE %d the %.16s one: every PE "
                     "must choose the same (SHOAL_TRANSPORTS)",
                     b->rank, me, pe, theirs);
            goto out;
        }
    }
    rc = 0;
out:
    free(all);
    return rc;
}

int shoal_net_init(const struct shoal_net_init_args *args, struct shoal_net_init_result *out,
                   char *err, size_t errlen)
{
    out->active = out->amo_via_net = out->coll_msgs = out->signal_data = 0;
    const struct shoal_net_ops *t = choose(args->transport, err, errlen);
    if (!t)
        return -1;
    shoal_net_ops = t;
    if (shoal_net_needed(args, err, errlen) > 0 &&
        same_everywhere(args->boot, t->name, err, errlen) < 0)
        return -1;
    return t->init(args, out, err, errlen);
}

void shoal_net_describe(FILE *f, const char *prefix, int initialized)
{
    if (initialized || !networks[0]) {
        shoal_net_ops->describe(f, prefix, initialized);
        return;
    }
    for (int i = 0; networks[i]; i++)
        networks[i]->describe(f, prefix, 0);
}

const char *shoal_net_built(void)
{
    static char s[256];
    if (s[0])
        return s;
    size_t n = (size_t)snprintf(s, sizeof s, "shm");
    for (int i = 0; networks[i] && n < sizeof s; i++)
        n += (size_t)snprintf(s + n, sizeof s - n, ", %s", networks[i]->built());
    return s;
}

struct shoal_env_layer *shoal_net_env_layer(int i)
{
    for (int k = 0; networks[k]; k++) {
        struct shoal_env_layer *l = networks[k]->env_layer();
        if (l && i-- == 0)
            return l;
    }
    return NULL;
}
