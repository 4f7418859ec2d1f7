/* The choice of the network transport (transport/net.h): the build's
 * networks are listed at configure time (shoal_net_list.h, written by
 * src/CMakeLists.txt: one X(name) per transport built, each exporting
 * shoal_net_<name>_ops), and the job takes the one SHOAL_TRANSPORTS names
 * at shmem_init, or under "auto" the one whose fabric_fit is best (only
 * where the network is needed: a one-node job asks no transport and loads
 * no library).  Until then, and in a build without one, the table is
 * transport/none's.
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
/* Counted, not read past the NULL: a build without a network has one
 * element (clang's -Warray-bounds). */
#define N_NETWORKS (sizeof networks / sizeof networks[0] - 1)

const struct shoal_net_ops *shoal_net_ops = &shoal_net_none_ops;

/* Why the job's network is the one it is (shmem-info, and the message of
 * a job whose PEs chose differently), and the same in short for the check
 * that every PE chose alike: 'n' (named), 'a' (auto, then each network's
 * fit as a digit), 'o' (auto, the build's only network), '-' (not needed). */
#define HOW_LEN 8
static char chosen_why[200], chosen_how[HOW_LEN];

/* "auto" where the network is needed: the transport that fits this
 * machine's fabric best (enum shoal_net_fit), ties to the build's order;
 * chosen_why says what each found. */
static const struct shoal_net_ops *choose_auto(void)
{
    if (N_NETWORKS < 2) {
        snprintf(chosen_why, sizeof chosen_why, "auto: the build's only network");
        snprintf(chosen_how, sizeof chosen_how, "o");
        return networks[0];
    }
    int best = 0, best_fit = -1;
    size_t n = (size_t)snprintf(chosen_why, sizeof chosen_why, "auto (");
    snprintf(chosen_how, sizeof chosen_how, "a");
    for (int i = 0; networks[i]; i++) {
        char found[160] = "no fabric of its own";
        const int fit = networks[i]->fabric_fit ? networks[i]->fabric_fit(found, sizeof found)
                                                : SHOAL_FIT_GENERIC;
        if (i + 2 < HOW_LEN)
            chosen_how[i + 1] = (char)('0' + fit);
        if (fit > best_fit) {
            best = i;
            best_fit = fit;
        }
        if (n < sizeof chosen_why)
            n += (size_t)snprintf(chosen_why + n, sizeof chosen_why - n, "%s%s: %s", i ? "; " : "",
                                  networks[i]->name, found);
    }
    if (n < sizeof chosen_why)
        snprintf(chosen_why + n, sizeof chosen_why - n, ")%s",
                 best_fit == SHOAL_FIT_GENERIC ? ": none has a fabric, the build's first" : "");
    return networks[best];
}

/* The transport SHOAL_TRANSPORTS names, or for "" (auto) the best fit
 * where the network is needed, else the build's first network (its init
 * finds nothing to do), else none; NULL with a message. */
static const struct shoal_net_ops *choose(const char *name, int needed, char *err, size_t errlen)
{
    if (!name || !*name) {
        if (!networks[0])
            return &shoal_net_none_ops;
        if (needed > 0)
            return choose_auto();
        snprintf(chosen_why, sizeof chosen_why, "auto: not needed, every PE is on this node");
        snprintf(chosen_how, sizeof chosen_how, "-");
        return networks[0];
    }
    snprintf(chosen_why, sizeof chosen_why, "SHOAL_TRANSPORTS names it%s",
             needed > 0 ? "" : "; not used, every PE is on this node");
    snprintf(chosen_how, sizeof chosen_how, "n");
    for (int i = 0; networks[i]; i++)
        if (!strcmp(networks[i]->name, name))
            return networks[i];
    snprintf(err, errlen,
             "SHOAL_TRANSPORTS names '%s', but this build of Shoal has no such transport (it "
             "has: %s); rebuild with its library installed (ucx: libucx-dev, ofi: libfabric-dev)",
             name, shoal_net_built());
    return NULL;
}

/* A peer's chosen_how in words: "SHOAL_TRANSPORTS names it", "auto: ucx
 * no fabric, ofi FI_PROVIDER set". */
static void how_in_words(const char *how, char *out, size_t len)
{
    static const char *const fit_name[] = {"no fabric", "a fabric device",
                                           "a fabric's own provider", "FI_PROVIDER set"};
    if (how[0] != 'a') {
        snprintf(out, len, "%s",
                 how[0] == 'n'   ? "SHOAL_TRANSPORTS names it"
                 : how[0] == 'o' ? "auto: the build's only network"
                                 : "not needed");
        return;
    }
    size_t n = (size_t)snprintf(out, len, "auto:");
    for (int i = 0; networks[i] && i + 2 < HOW_LEN && n < len; i++) {
        const int fit = how[i + 1] - '0';
        n += (size_t)snprintf(out + n, len - n, "%s %s %s", i ? "," : "", networks[i]->name,
                              fit >= 0 && fit <= SHOAL_FIT_USER ? fit_name[fit] : "?");
    }
}

/* Every PE must use one network: a PE whose SHOAL_TRANSPORTS (or whose
 * build, or whose machine under "auto") chose another could not reach the
 * others.  Each PE sends its choice and, in short, why (24 bytes: the
 * allgather grows with the job). */
#define NAME_LEN 16
#define CHOICE_LEN (NAME_LEN + HOW_LEN)
static int same_everywhere(struct shoal_boot *b, const char *mine, char *err, size_t errlen)
{
    char me[CHOICE_LEN] = {0}, *all = calloc((size_t)b->size, CHOICE_LEN);
    snprintf(me, NAME_LEN, "%s", mine);
    memcpy(me + NAME_LEN, chosen_how, HOW_LEN - 1);
    int rc = -1;
    if (!all || b->allgather(me, all, CHOICE_LEN) < 0) {
        snprintf(err, errlen, "bootstrap allgather of the network transports' names failed");
        goto out;
    }
    for (int pe = 0; pe < b->size; pe++) {
        const char *theirs = all + (size_t)pe * CHOICE_LEN;
        if (strncmp(theirs, me, NAME_LEN)) {
            char why[128];
            how_in_words(theirs + NAME_LEN, why, sizeof why);
            snprintf(err, errlen,
                     "PE %d chose the %.16s network transport (%s) and PE %d the %.16s one "
                     "(%s): every PE must choose the same (SHOAL_TRANSPORTS)",
                     b->rank, me, chosen_why, pe, theirs, why);
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
    char said_by_init[256]; /* the transport's init says it again */
    const int needed = shoal_net_needed(args, said_by_init, sizeof said_by_init);
    const struct shoal_net_ops *t = choose(args->transport, needed, err, errlen);
    if (!t)
        return -1;
    shoal_net_ops = t;
    if (args->mode == SHOAL_NET_OFF) {
        snprintf(chosen_why, sizeof chosen_why, "not used: SHOAL_TRANSPORTS=shm");
        snprintf(chosen_how, sizeof chosen_how, "-");
    }
    if (needed > 0 && same_everywhere(args->boot, t->name, err, errlen) < 0)
        return -1;
    if (t->init(args, out, err, errlen) == 0)
        return 0;
    const size_t said = strlen(err);
    if (needed > 0 && (!args->transport || !*args->transport) && said < errlen)
        snprintf(err + said, errlen - said, " (the %s network: %s; SHOAL_TRANSPORTS names another)",
                 t->name, chosen_why);
    return -1;
}

void shoal_net_describe(FILE *f, const char *prefix, int initialized)
{
    if (initialized || !networks[0]) {
        shoal_net_ops->describe(f, prefix, initialized);
        if (initialized && chosen_why[0])
            fprintf(f, "%sNetwork choice: %s, %s\n", prefix, shoal_net_ops->name, chosen_why);
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
