/* The OFI transport's life cycle and what shmem-info says of it. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot.h"
#include "transport/ofi/ofi_internal.h"
#include "transport/ofi/ofi_msgs.h"

struct ofi_state ofi_g;

static void forked_in_child(void)
{
    ofi_g.forked = 1;
}

static void keep_args(const struct shoal_net_init_args *a)
{
    const long created = ofi_g.n_created, reused = ofi_g.n_reused;
    memset(&ofi_g, 0, sizeof ofi_g);
    ofi_g.n_created = created;
    ofi_g.n_reused = reused;
    ofi_g.hooks = a;
    ofi_g.mode = a->mode;
    ofi_g.thread_level = a->thread_level;
    ofi_g.peer_timeout_ns = a->peer_timeout_ns;
    for (int s = 0; s < 2; s++) {
        ofi_g.seg_base[s] = (uintptr_t)a->seg_base[s];
        ofi_g.seg_len[s] = a->seg_len[s];
    }
    pthread_mutex_init(&ofi_g.pool_lock, NULL);
}

static void release(void)
{
    ofi_msgs_fini();
    ofi_progress_thread_stop();
    ofi_request_fini();
    ofi_peek_fini();
    ofi_ctx_pool_fini();
    ofi_mr_close();
    ofi_provider_close();
    ofi_am_fini();
}

int ofi_net_init(const struct shoal_net_init_args *a, struct shoal_net_init_result *out, char *err,
                 size_t errlen)
{
    out->active = out->amo_via_net = out->coll_msgs = out->signal_data = 0;
    keep_args(a);
    const int needed = shoal_net_needed(a, err, errlen);
    if (needed <= 0)
        return needed; /* -1: said in err; 0: one node, the library not even opened */
    ofi_g.boot = a->boot;
    ofi_g.n_pes = a->boot->size;
    ofi_g.me = a->boot->rank;
    ofi_g.rc_mode = OFI_RC_READ;
    ofi_g.owner_pid = (long)getpid();
    static int atfork_done;
    if (!atfork_done && pthread_atfork(NULL, NULL, forked_in_child) == 0)
        atfork_done = 1;
    static struct ofi_signals saved; /* 10 KB: off the stack */
    ofi_signals_save(&saved);
    const int opened = ofi_lib_open(err, errlen) == 0 && ofi_provider_open(err, errlen) == 0;
    ofi_signals_restore(&saved);
    if (!opened || ofi_mr_exchange(err, errlen) < 0 || ofi_peek_init(err, errlen) < 0 ||
        ofi_msgs_setup(out, err, errlen) < 0 || ofi_progress_thread_start(err, errlen) < 0) {
        release();
        return -1;
    }
    /* The providers' atomics are done by the target's software (rxm, shm,
     * sockets) or its NIC: not coherent with CPU atomics on the word. */
    out->active = 1;
    out->amo_via_net = 1;
    return 0;
}

void ofi_net_fini(void)
{
    if (!ofi_g.fabric)
        return;
    __atomic_store_n(&ofi_g.leaving, 1, __ATOMIC_SEQ_CST);
    release();
}

void ofi_net_set_thread_level(int level)
{
    __atomic_store_n(&ofi_g.thread_level, level, __ATOMIC_RELAXED);
}

void ofi_net_leaving(void)
{
    __atomic_store_n(&ofi_g.leaving, 1, __ATOMIC_SEQ_CST);
}

const char *ofi_net_built(void)
{
    static char s[64];
    if (!s[0])
        snprintf(s, sizeof s, "ofi (libfabric %d.%d)", FI_MAJOR_VERSION, FI_MINOR_VERSION);
    return s;
}

/* "VIRT_ADDR|PROV_KEY" or "none". */
static void mr_mode_text(uint64_t m, char *out, size_t len)
{
    static const struct {
        uint64_t bit;
        const char *name;
    } bits[] = {{FI_MR_VIRT_ADDR, "VIRT_ADDR"}, {FI_MR_ALLOCATED, "ALLOCATED"},
                {FI_MR_PROV_KEY, "PROV_KEY"},   {FI_MR_ENDPOINT, "ENDPOINT"},
                {FI_MR_LOCAL, "LOCAL"},         {FI_MR_RAW, "RAW"}};
    size_t n = 0;
    out[0] = 0;
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
        if ((m & bits[i].bit) && n < len)
            n += (size_t)snprintf(out + n, len - n, "%s%s", n ? "|" : "", bits[i].name);
    if (!out[0])
        snprintf(out, len, "none");
}

static void describe_active(FILE *f, const char *prefix)
{
    const struct fi_info *i = ofi_g.info;
    const uint64_t m = i->domain_attr->mr_mode;
    char modes[96];
    mr_mode_text(m, modes, sizeof modes);
    fprintf(f, "%sNetwork: libfabric %u.%u, provider %s (fabric %s, domain %s; %s), %s\n", prefix,
            FI_MAJOR(ofi_lib.version()), FI_MINOR(ofi_lib.version()), i->fabric_attr->prov_name,
            i->fabric_attr->name, i->domain_attr->name, ofi_g.why_chosen,
            ofi_g.mode == SHOAL_NET_ALL
                ? "every PE through it, this PE included (SHOAL_TRANSPORTS=ofi)"
                : "PEs on other nodes through it, this node by load/store");
    fprintf(f, "%sOFI memory registration: mr_mode %s: %s keys, %s\n", prefix, modes,
            (m & FI_MR_PROV_KEY) ? "the provider's" : "Shoal's",
            (m & FI_MR_VIRT_ADDR) ? "virtual addresses" : "offsets into each segment");
    fprintf(f, "%sOFI progress: %s (SHOAL_OFI_PROGRESS)\n", prefix,
            ofi_g.manual_progress ? "manual: this PE's waits and calls progress peers' operations, "
                                    "and a progress thread while it computes or sleeps"
                                  : "automatic: the provider progresses peers' operations");
    fprintf(f, "%sOFI remote completion: %s\n", prefix,
            ofi_g.rc_mode == OFI_RC_READ
                ? "quiet reads each peer written since the last quiet, after the writes"
                : "the provider completes writes at delivery");
    fprintf(f,
            "%sOFI atomics: every AMO through the network, on-node peers and this PE "
            "included (the provider's atomics are not the CPU's)\n",
            prefix);
    fprintf(f, "%sOFI messages (SHOAL_OFI_MSGS): collectives' signals %s, their data %s\n", prefix,
            ofi_msgs.signals ? "as tagged messages (with the calls' signatures)" : "as atomic adds",
            ofi_msgs.coll ? "as tagged messages" : "by puts");
    fprintf(f, "%sOFI active messages: %s\n", prefix,
            ofi_msgs.am ? "tagged messages (SHOAL_OFI_MSGS)"
                        : "RMA and atomics into the target's ring (SHOAL_OFI_MSGS)");
    ofi_amo_describe(f, prefix);
    ofi_modes_describe(f, prefix);
    long created, in_use, reused;
    ofi_net_worker_counts(&created, &in_use, &reused);
    fprintf(f, "%sOFI contexts' endpoints: %ld created, %ld in use, %ld reused\n", prefix, created,
            in_use, reused);
}

void ofi_net_describe(FILE *f, const char *prefix, int initialized)
{
    if (ofi_g.fabric) {
        describe_active(f, prefix);
        return;
    }
    fprintf(f, "%sNetwork: libfabric %d.%d built in (loaded when used); %s\n", prefix,
            FI_MAJOR_VERSION, FI_MINOR_VERSION,
            !initialized ? "used when SHOAL_TRANSPORTS=ofi or shm,ofi, or by auto where it "
                           "offers a fabric's own provider or FI_PROVIDER is set"
                         : "not used (every PE is on this node)");
}
