/* Choosing the provider: fi_getinfo for reliable datagram endpoints with
 * RMA and atomics (FI_PROVIDER, libfabric's own variable, narrows the
 * list: first_call_unfiltered says how), then, in libfabric's order, the first candidate whose fabric,
 * domain, address vector and target endpoint open and whose atomics pass
 * the checks (a provider's FI_ATOMIC bit can lie: `net` in libfabric 1.17
 * takes FI_ATOMIC in fi_getinfo and validates no atomic type).  Automatic
 * progress where the provider offers it (SHOAL_OFI_PROGRESS=auto), else
 * manual progress asked for as such (a provider left to choose picks its
 * default, automatic for sockets), and the waits progress it.
 *
 * sockets progresses manually even under auto: its automatic progress is
 * a thread that, after each event, spins FI_SOCKETS_PE_WAITTIME ms (10)
 * beside the application's polling thread; on a loaded host every
 * operation then waited for the scheduler (a blocking read: 30 ms with
 * automatic, 30 us with manual progress, two cores at a load of 19), and
 * the tests' watchdogs took the job for hung. */
#include <stdlib.h>
#include <string.h>

#include "transport/ofi/ofi_auto.h"
#include "transport/ofi/ofi_env.h"
#include "transport/ofi/ofi_internal.h"

/* Every mr_mode bit Shoal handles (the provider clears those it does not
 * need): addresses as virtual addresses or offsets, keys the provider
 * chooses or Shoal's, memory registered as allocated, MRs bound to an
 * endpoint.  And the modes: the application's operation contexts
 * (FI_CONTEXT, FI_CONTEXT2), which cost Shoal a slot of a ring per
 * operation.  Shoal does what the chosen provider keeps (ofi_modes.c). */
#define OFI_MR_MODES (FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT)
#define OFI_MODES (FI_CONTEXT | FI_CONTEXT2)

/* The providers whose automatic progress Shoal does not ask for. */
#define OFI_MANUAL_ALWAYS "sockets"
/* The providers whose injected atomics never leave with manual progress
 * (sockets: fi_inject_atomic or FI_INJECT, 300 posted, none applied after
 * 1000 reads of both queues and the counter; fi_inject_write and atomics
 * not injected arrive): there a non-blocking atomic is waited for. */
#define OFI_NO_INJECT_ATOMICS "sockets"

/* Tagged messages beside RMA and atomics (ofi_msgs.h), where a provider
 * has them; cleared for a second search where none has. */
static uint64_t msg_caps = FI_TAGGED;
/* FI_MR_LOCAL, offered only in a last search, where no provider serves
 * without it: ofi_rxm (over verbs) and efa keep it when it is offered,
 * leaving their own registration caches to the application (rxm lists
 * such an info first "for better performance", efa then turns its cache
 * off), and Shoal would then register or bounce every private buffer and
 * send no messages (ofi_modes.c). */
static uint64_t mr_local_offer;

struct fi_info *ofi_provider_hints(enum fi_progress progress)
{
    struct fi_info *h = ofi_lib.dupinfo(NULL);
    if (!h)
        return NULL;
    h->caps = FI_RMA | FI_ATOMIC | msg_caps;
    h->mode = OFI_MODES;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->mr_mode = OFI_MR_MODES | mr_local_offer;
    h->domain_attr->threading = FI_THREAD_SAFE;
    h->domain_attr->data_progress = progress;
    /* Asked for as the other OpenSHMEMs do; rxm accepts it and does not
     * keep it, so quiet reads each written peer anyway (ofi_rma.c). */
    h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    return h;
}

/* Is `p` one of the names of the list "a, b, c"? */
static int listed(const char *list, const char *p)
{
    const size_t pl = strlen(p);
    for (const char *at = list; *at;) {
        size_t n = strcspn(at, ",");
        if (n == pl && !strncmp(at, p, pl))
            return 1;
        at += n;
        at += strspn(at, ", ");
    }
    return 0;
}

/* "tcp;ofi_rxm, sockets, ..." (each provider once): what libfabric offers
 * here, for the message of a job it cannot serve. */
static void list_providers(char *out, size_t len)
{
    struct fi_info *all = NULL;
    size_t n = 0;
    out[0] = 0;
    if (ofi_lib.getinfo(OFI_API_VERSION, NULL, NULL, 0, NULL, &all) == 0)
        for (struct fi_info *i = all; i && n + 2 < len; i = i->next)
            if (!listed(out, i->fabric_attr->prov_name))
                n += (size_t)snprintf(out + n, len - n, "%s%s", n ? ", " : "",
                                      i->fabric_attr->prov_name);
    if (!out[0])
        snprintf(out, len, "none");
    ofi_lib.freeinfo(all);
}

/* libfabric reads FI_PROVIDER once, at its first call, and from then on
 * offers only the providers it names: the message of a job that names
 * none that serves would list nothing.  So where Shoal loaded libfabric
 * itself, that first call runs without the variable (put back at once:
 * the program's other threads, if any, must not read the environment
 * during shmem_init), and the choice applies FI_PROVIDER as libfabric
 * does (ofi_fi_provider_allows).  Where libfabric was in the process
 * before, it keeps its own filter. */
static void first_call_unfiltered(const char *filter)
{
    static int done;
    if (!filter || done || ofi_lib.in_process_before)
        return;
    done = 1;
    char *keep = strdup(filter);
    if (!keep)
        return;
    struct fi_info *all = NULL;
    unsetenv("FI_PROVIDER");
    if (ofi_lib.getinfo(OFI_API_VERSION, NULL, NULL, 0, NULL, &all) == 0)
        ofi_lib.freeinfo(all);
    setenv("FI_PROVIDER", keep, 1);
    free(keep);
}

static int opened(int rc, const char *what, char *err, size_t errlen)
{
    if (rc)
        snprintf(err, errlen, "%s: %s", what, ofi_strerror(-rc));
    return rc;
}

/* Opens fabric, domain, address vector and target endpoint of `i`, and
 * checks its atomics; 0, or -1 with what failed (all closed again). */
static int try_candidate(const struct fi_info *i, char *err, size_t errlen)
{
    ofi_g.info = ofi_lib.dupinfo(i);
    if (!ofi_g.info) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    ofi_modes_note(i);
    struct fi_av_attr av = {.type = FI_AV_TABLE, .count = (size_t)ofi_g.n_pes};
    if (opened(ofi_lib.fabric(i->fabric_attr, &ofi_g.fabric, NULL), "fi_fabric", err, errlen) ||
        opened(fi_domain(ofi_g.fabric, ofi_g.info, &ofi_g.domain, NULL), "fi_domain", err,
               errlen) ||
        opened(fi_av_open(ofi_g.domain, &av, &ofi_g.av, NULL), "fi_av_open", err, errlen) ||
        ofi_ep_open(&ofi_g.target, 0, err, errlen) < 0 ||
        ofi_amo_check(ofi_g.target.ep, err, errlen) < 0) {
        ofi_provider_close();
        return -1;
    }
    return 0;
}

static void note_choice(const char *env_provider)
{
    const struct fi_info *i = ofi_g.info;
    ofi_g.manual_progress = i->domain_attr->data_progress != FI_PROGRESS_AUTO;
    ofi_g.inject_size = i->tx_attr->inject_size;
    ofi_g.inject_atomics =
        !(ofi_g.manual_progress && listed(OFI_NO_INJECT_ATOMICS, i->fabric_attr->prov_name));
    ofi_g.fetch_guard = ofi_rxd_fetch_guard(i);
    ofi_g.max_msg = i->ep_attr->max_msg_size ? i->ep_attr->max_msg_size : SIZE_MAX;
    snprintf(ofi_g.why_chosen, sizeof ofi_g.why_chosen, "%s%s%s",
             env_provider ? "FI_PROVIDER=" : "libfabric's first provider with RMA and atomics",
             env_provider ? env_provider : "", env_provider ? "" : " on reliable datagrams");
}

/* One fi_getinfo with `progress` asked for, its candidates that
 * FI_PROVIDER allows tried in libfabric's order; 0 (chosen or none), or
 * -1 with a message.  `why` keeps the first refusal's reason. */
static int try_pass(enum fi_progress progress, const char *env_provider, char *why, size_t whylen,
                    char *err, size_t errlen)
{
    struct fi_info *list = NULL;
    struct fi_info *h = ofi_provider_hints(progress);
    int rc = h ? ofi_lib.getinfo(OFI_API_VERSION, NULL, NULL, 0, h, &list) : -FI_ENOMEM;
    ofi_lib.freeinfo(h);
    if (rc == -FI_ENODATA)
        return 0;
    if (rc) {
        snprintf(err, errlen, "libfabric: fi_getinfo failed: %s", ofi_strerror(-rc));
        return -1;
    }
    for (struct fi_info *i = list; i && !ofi_g.fabric; i = i->next) {
        char e[200];
        const char *prov = i->fabric_attr->prov_name;
        if ((env_provider && !ofi_fi_provider_allows(env_provider, prov)) ||
            (progress == FI_PROGRESS_AUTO && listed(OFI_MANUAL_ALWAYS, prov)))
            continue;
        if (try_candidate(i, e, sizeof e) < 0 && !why[0])
            snprintf(why, whylen, "provider %s (domain %s) cannot serve it: %s", prov,
                     i->domain_attr->name, e);
    }
    ofi_lib.freeinfo(list);
    return 0;
}

int ofi_provider_open(char *err, size_t errlen)
{
    first_call_unfiltered(getenv("FI_PROVIDER"));
    const char *env_provider = getenv("FI_PROVIDER");
    char why[256] = "";
    /* With SHOAL_OFI_PROGRESS=auto, providers that progress by themselves
     * first; then those asked to progress manually; then any (a provider
     * that takes no explicit manual progress). */
    static const enum fi_progress passes[] = {FI_PROGRESS_AUTO, FI_PROGRESS_MANUAL,
                                              FI_PROGRESS_UNSPEC};
    for (int pass = ofi_cfg.progress_auto ? 0 : 1; pass < 3 && !ofi_g.fabric; pass++)
        if (try_pass(passes[pass], env_provider, why, sizeof why, err, errlen) < 0)
            return -1;
    if (ofi_g.fabric) {
        note_choice(env_provider);
        return 0;
    }
    if (msg_caps) {
        msg_caps = 0;
        const int rc = ofi_provider_open(err, errlen);
        msg_caps = FI_TAGGED;
        return rc;
    }
    if (!mr_local_offer) { /* messages are off under FI_MR_LOCAL anyway */
        mr_local_offer = FI_MR_LOCAL;
        const int rc = ofi_provider_open(err, errlen);
        mr_local_offer = 0;
        return rc;
    }
    char provs[256];
    list_providers(provs, sizeof provs);
    snprintf(err, errlen,
             "libfabric %u.%u has no provider for Shoal (reliable datagram endpoints with RMA and "
             "atomics; FI_PROVIDER=%s)%s%s; providers here: %s (`fi_info -l`)",
             FI_MAJOR(ofi_lib.version()), FI_MINOR(ofi_lib.version()),
             env_provider ? env_provider : "(unset)", why[0] ? ": " : "", why, provs);
    return -1;
}

void ofi_provider_close(void)
{
    ofi_ep_close(&ofi_g.target);
    if (ofi_g.av)
        fi_close(&ofi_g.av->fid);
    if (ofi_g.domain)
        fi_close(&ofi_g.domain->fid);
    if (ofi_g.fabric)
        fi_close(&ofi_g.fabric->fid);
    if (ofi_g.info)
        ofi_lib.freeinfo(ofi_g.info);
    ofi_g.av = NULL;
    ofi_g.domain = NULL;
    ofi_g.fabric = NULL;
    ofi_g.info = NULL;
}
