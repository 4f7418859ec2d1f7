/* UCX life cycle: the UCP context of this PE, the registration of the
 * symmetric segments, the exchange of worker addresses and packed remote
 * keys through the bootstrap, the atomics policy, and what shmem-info says. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot.h"
#include "core/env.h"
#include "core/error.h"
#include "transport/ucx/ucx_internal.h"

struct ucx_state ucx_g;

_Noreturn void ucx_die(const char *fn, int pe, const char *what, ucs_status_t st)
{
    if (pe >= 0)
        shoal_fatal(fn, "UCX %s to PE %d failed: %s", what, pe, ucs_status_string(st));
    shoal_fatal(fn, "UCX %s failed: %s", what, ucs_status_string(st));
}

/* What each PE publishes in the first allgather: where its segments are
 * and how long its packed worker address and keys are (the second
 * allgather carries them, padded to the longest). */
struct ucx_card {
    uint64_t host;     /* which machine (hostname and boot id) */
    uint64_t base[2];
    uint32_t addr_len;
    uint32_t rkey_len[2];
    uint32_t pad;
};

static uint64_t host_hash(void)
{
    char buf[256 + 64] = {0};
    gethostname(buf, 255);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        size_t l = strlen(buf);
        if (!fgets(buf + l, (int)(sizeof buf - l), f))
            buf[l] = 0;
        fclose(f);
    }
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *c = buf; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return h;
}

/* UCX_ATOMIC_MODE as UCX itself resolved it (environment or config file). */
static int atomic_mode_is_cpu(const ucp_config_t *uc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return 0;
    ucp_config_print(uc, m, NULL, UCS_CONFIG_PRINT_CONFIG);
    fclose(m);
    int cpu = 0;
    const char *p = buf ? strstr(buf, "UCX_ATOMIC_MODE=") : NULL;
    if (p)
        cpu = !strncmp(p + strlen("UCX_ATOMIC_MODE="), "cpu", 3);
    free(buf);
    return cpu;
}

static int fail(char *err, size_t errlen, const char *what, ucs_status_t st)
{
    snprintf(err, errlen,
             "UCX: %s failed: %s (UCX_TLS=%s; `ucx_info -d` lists this machine's transports)",
             what, ucs_status_string(st), getenv("UCX_TLS") ? getenv("UCX_TLS") : "(unset)");
    return -1;
}

int shoal_net_init(struct shoal_boot *b, const struct shoal_config *cfg, int remote, char *err,
                   size_t errlen)
{
    const int mode = cfg->net_mode;
    shoal_g.net_active = 0;
    shoal_g.amo_via_net = 0;
    memset(&ucx_g, 0, sizeof ucx_g);
    ucx_g.mode = mode;
    if (mode == SHOAL_NET_OFF) {
        if (remote > 0) {
            snprintf(err, errlen,
                     "%d PEs are on other nodes, but SHOAL_TRANSPORTS=shm allows this node only",
                     remote);
            return -1;
        }
        return 0;
    }
    /* One node and load/store allowed: UCX is not even initialized.  Every
     * PE sees the same `remote > 0`, so the decision is collective. */
    if (mode == SHOAL_NET_REMOTE && remote == 0)
        return 0;

    ucx_g.boot = b;
    ucx_g.n_pes = b->size;
    ucx_g.me = b->rank;
    ucx_g.progress_thread_cfg = ucx_cfg.progress_thread;
    ucx_g.progress_interval_us = ucx_cfg.progress_interval_us;
    ucx_g.dflt_policy = ucx_cfg.default_ctx_workers;

    ucp_config_t *uc;
    ucs_status_t st = ucp_config_read(NULL, NULL, &uc);
    if (st != UCS_OK)
        return fail(err, errlen, "reading the configuration (ucp_config_read)", st);
    ucx_g.cpu_atomics = atomic_mode_is_cpu(uc);
    ucp_params_t p;
    memset(&p, 0, sizeof p);
    p.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED |
                   UCP_PARAM_FIELD_ESTIMATED_NUM_EPS;
    /* WAKEUP: the progress thread sleeps on the target worker's event fd. */
    p.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_WAKEUP;
    /* Workers of several threads (contexts, progress thread) share it. */
    p.mt_workers_shared = 1;
    p.estimated_num_eps = (size_t)b->size;
    st = ucp_init(&p, uc, &ucx_g.ctx);
    ucp_config_release(uc);
    if (st != UCS_OK)
        return fail(err, errlen, "creating the UCP context (ucp_init)", st);

    /* Register the segments (already memfd mappings; nothing is copied). */
    void *rk[2] = {NULL, NULL};
    size_t rklen[2] = {0, 0};
    void *seg_addr[2] = {shoal_g.heap_me, shoal_g.data_me};
    size_t seg_len[2] = {shoal_g.heap_size, shoal_g.data_size};
    for (int s = 0; s < 2; s++) {
        if (!seg_addr[s] || !seg_len[s])
            continue;
        ucp_mem_map_params_t mp;
        memset(&mp, 0, sizeof mp);
        mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
        mp.address = seg_addr[s];
        mp.length = seg_len[s];
        st = ucp_mem_map(ucx_g.ctx, &mp, &ucx_g.mh[s]);
        if (st != UCS_OK)
            return fail(err, errlen,
                        s ? "registering the static data (ucp_mem_map)"
                          : "registering the symmetric heap (ucp_mem_map)",
                        st);
        st = ucp_rkey_pack(ucx_g.ctx, ucx_g.mh[s], &rk[s], &rklen[s]);
        if (st != UCS_OK)
            return fail(err, errlen, "packing a remote key (ucp_rkey_pack)", st);
    }

    /* The published worker: every peer's endpoints to this PE connect to
     * it.  Several threads may progress it (waiting threads, the progress
     * thread), hence MULTI unless no other thread can touch it. */
    if (ucx_worker_pool_init() < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    ucx_g.progress_on = 0;
    ucx_g.target_mode = UCS_THREAD_MODE_MULTI;
    ucp_worker_params_t wp;
    memset(&wp, 0, sizeof wp);
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = ucx_g.target_mode;
    st = ucp_worker_create(ucx_g.ctx, &wp, &ucx_g.target);
    if (st != UCS_OK)
        return fail(err, errlen, "creating the target worker (ucp_worker_create)", st);
    ucp_address_t *addr;
    size_t addr_len;
    st = ucp_worker_get_address(ucx_g.target, &addr, &addr_len);
    if (st != UCS_OK)
        return fail(err, errlen, "getting the worker address (ucp_worker_get_address)", st);

    /* Exchange: fixed-size cards, then the variable parts padded to the
     * longest. */
    const int n = b->size;
    struct ucx_card mine = {.host = host_hash(),
                            .base = {(uint64_t)(uintptr_t)seg_addr[0],
                                     (uint64_t)(uintptr_t)seg_addr[1]},
                            .addr_len = (uint32_t)addr_len,
                            .rkey_len = {(uint32_t)rklen[0], (uint32_t)rklen[1]}};
    struct ucx_card *cards = calloc((size_t)n, sizeof *cards);
    if (!cards || b->allgather(&mine, cards, sizeof mine) < 0) {
        snprintf(err, errlen, "bootstrap allgather of UCX addresses failed");
        return -1;
    }
    size_t maxlen = 8;
    for (int pe = 0; pe < n; pe++) {
        size_t l = (size_t)cards[pe].addr_len + cards[pe].rkey_len[0] + cards[pe].rkey_len[1];
        if (l > maxlen)
            maxlen = l;
    }
    maxlen = (maxlen + 7) & ~(size_t)7;
    char *in = calloc(1, maxlen);
    ucx_g.blob = malloc((size_t)n * maxlen);
    ucx_g.peer_addr = calloc((size_t)n, sizeof *ucx_g.peer_addr);
    ucx_g.peer_rkey = calloc(2 * (size_t)n, sizeof *ucx_g.peer_rkey);
    ucx_g.peer_base = calloc(2 * (size_t)n, sizeof *ucx_g.peer_base);
    ucx_g.peer_same_host = calloc((size_t)n, 1);
    if (!in || !ucx_g.peer_same_host || !ucx_g.blob || !ucx_g.peer_addr || !ucx_g.peer_rkey || !ucx_g.peer_base) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(in, addr, addr_len);
    if (rklen[0])
        memcpy(in + addr_len, rk[0], rklen[0]);
    if (rklen[1])
        memcpy(in + addr_len + rklen[0], rk[1], rklen[1]);
    ucp_worker_release_address(ucx_g.target, addr);
    for (int s = 0; s < 2; s++)
        if (rk[s])
            ucp_rkey_buffer_release(rk[s]);
    if (b->allgather(in, ucx_g.blob, maxlen) < 0) {
        snprintf(err, errlen, "bootstrap allgather of UCX addresses failed");
        return -1;
    }
    free(in);
    for (int pe = 0; pe < n; pe++) {
        const char *c = ucx_g.blob + (size_t)pe * maxlen;
        ucx_g.peer_addr[pe] = c;
        ucx_g.peer_same_host[pe] = cards[pe].host == mine.host;
        for (int s = 0; s < 2; s++) {
            ucx_g.peer_base[2 * pe + s] = cards[pe].base[s];
            ucx_g.peer_rkey[2 * pe + s] =
                cards[pe].rkey_len[s]
                    ? c + cards[pe].addr_len + (s ? cards[pe].rkey_len[0] : 0)
                    : NULL;
        }
    }
    free(cards);

    shoal_g.net_active = 1;
    /* CPU atomics on mapped words and UCX atomics on the same words are
     * coherent only in UCX's CPU atomic mode; otherwise every AMO of the
     * job goes through UCX (core/ops.h). */
    shoal_g.amo_via_net = mode == SHOAL_NET_ALL || !ucx_g.cpu_atomics;

    /* Does the target side need a progress thread?  Decided from the
     * lanes of a real endpoint (ucx_progress.c). */
    if (ucx_progress_thread_start() < 0) {
        snprintf(err, errlen, "cannot start the UCX progress thread");
        return -1;
    }
    return 0;
}

static void flush_final(struct ucx_worker *w, void *arg)
{
    (void)arg;
    ucx_flush_worker(w, "shmem_finalize");
}

void shoal_net_fini(void)
{
    if (!ucx_g.ctx)
        return;
    /* Complete what is outstanding (the last barrier's posted atomics)
     * while every peer still serves requests: with the progress thread
     * running here and there, a PE that reached the bootstrap barrier
     * below still answers.  After it, peers may exit at any time: their
     * endpoints' errors are expected and endpoints are closed by force. */
    if (ucx_progress_thread_run() == 0) {
        ucx_all_workers_foreach(flush_final, NULL);
        /* From here on a peer may be gone. */
        ucx_g.finalizing = 1;
        ucx_g.boot->barrier();
    }
    ucx_g.finalizing = 1;
    ucx_progress_thread_stop();
    ucx_worker_pool_fini();
    if (ucx_g.target)
        ucp_worker_destroy(ucx_g.target);
    for (int s = 0; s < 2; s++)
        if (ucx_g.mh[s])
            ucp_mem_unmap(ucx_g.ctx, ucx_g.mh[s]);
    ucp_cleanup(ucx_g.ctx);
    free(ucx_g.blob);
    free(ucx_g.peer_addr);
    free(ucx_g.peer_rkey);
    free(ucx_g.peer_base);
    free(ucx_g.peer_same_host);
    long created = ucx_g.n_created, reused = ucx_g.n_reused;
    memset(&ucx_g, 0, sizeof ucx_g);
    /* Kept for a query after finalize (tests). */
    ucx_g.n_created = created;
    ucx_g.n_reused = reused;
}

const char *shoal_net_built(void)
{
    static char s[64];
    if (!s[0])
        snprintf(s, sizeof s, "shm, ucx (UCX %s)", ucp_get_version_string());
    return s;
}

void shoal_net_describe(FILE *f, const char *prefix)
{
    if (!ucx_g.ctx) {
        fprintf(f, "%sNetwork: UCX %s built in; %s\n", prefix, ucp_get_version_string(),
                shoal_g.init_count == 0 ? "used when SHOAL_TRANSPORTS=ucx or PEs are on other nodes"
                                        : "not used (every PE is on this node)");
        return;
    }
    fprintf(f, "%sNetwork: UCX %s, %s\n", prefix, ucp_get_version_string(),
            ucx_g.mode == SHOAL_NET_ALL
                ? "every PE through UCX, this PE included (SHOAL_TRANSPORTS=ucx)"
                : "PEs on other nodes through UCX, this node by load/store");
    fprintf(f, "%sUCX transports: %s\n", prefix, ucx_g.tls_note[0] ? ucx_g.tls_note : "(unknown)");
    fprintf(f, "%sUCX atomics: %s\n", prefix,
            ucx_g.cpu_atomics
                ? (ucx_g.mode == SHOAL_NET_ALL
                       ? "UCX_ATOMIC_MODE=cpu; every AMO through UCX"
                       : "UCX_ATOMIC_MODE=cpu: CPU atomics on this node stay coherent with "
                         "UCX's, so on-node AMOs use the CPU")
                : "UCX device/guess atomic mode: every AMO goes through UCX, on-node peers "
                  "and this PE included (set UCX_ATOMIC_MODE=cpu to use CPU atomics on-node)");
    fprintf(f, "%sUCX progress thread: %s (SHOAL_PROGRESS_THREAD=%s; software-emulated RMA or "
               "AMO: %s), interval %ld us\n",
            prefix, ucx_g.progress_on ? "on" : "off",
            ucx_g.progress_thread_cfg < 0 ? "auto" : ucx_g.progress_thread_cfg ? "1" : "0",
            ucx_g.sw_emulated ? "yes" : "no", ucx_g.progress_interval_us);
    ucx_describe_workers(f, prefix);
}
