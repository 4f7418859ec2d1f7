/* UCX life cycle: the UCP context of this PE, the registration of the
 * symmetric segments, the exchange of worker addresses and packed remote
 * keys through the bootstrap, the atomics policy, and what shmem-info says. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot.h"
#include "transport/ucx/signal/ucx_signal.h"
#include "transport/ucx/ucx_fds.h"
#include "transport/ucx/ucx_internal.h"
#include "transport/ucx/ucx_posix_dir.h"
#include "transport/ucx/ucx_startup.h"

static void forked_in_child(void)
{
    ucx_g.forked = 1;
}

/* What each PE publishes in the first allgather: where its segments are
 * and how long its packed worker address and keys are (the second
 * allgather carries them, padded to the longest). */
struct ucx_card {
    uint64_t base[2];
    uint32_t addr_len;
    uint32_t rkey_len[2];
    uint32_t am; /* takes UCP's active messages (ucx_g.am_here) */
};

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
             "UCX: %s failed: %s (UCX_TLS=%s; `ucx_info -d` lists this machine's transports)", what,
             ucs_status_string(st), getenv("UCX_TLS") ? getenv("UCX_TLS") : "(unset)");
    return -1;
}

/* UCX's own checks of a peer's liveness, set so that a dead peer or link
 * is noticed within SHOAL_PEER_TIMEOUT, unless the user set them: UCP's
 * keepalive rounds (a quarter of it), TCP keepalive on idle sockets (dead
 * after idle + count * interval: five eighths of it).  A request in
 * flight, a connection's set-up included, is timed by ucx_wait itself:
 * TCP retransmits unacknowledged data for some 15 minutes, and
 * UCX_TCP_SYN_CNT, which would bound the set-up, makes UCX 1.13 fail to
 * create a worker ("Invalid memory pool parameter(s)").  The tcp transport's settings go through the
 * environment (unset ones only): ucp_config_modify takes them but UCX 1.13
 * then calls them invalid configurations. */
/* Does UCX_TLS leave UCX's tcp transport in?  Its variables set where it
 * is out would be read by nobody, and UCX warns about every such variable
 * ("unused env variables") on each PE. */
static int tls_allow_tcp(void)
{
    const char *t = getenv("UCX_TLS");
    if (!t || !*t)
        return 1;
    const int except = t[0] == '^';
    int named = 0;
    for (const char *p = t + except; *p;) {
        size_t n = strcspn(p, ",");
        if ((n == 3 && !strncmp(p, "tcp", 3)) || (!except && n == 3 && !strncmp(p, "all", 3)))
            named = 1;
        p += n + (p[n] == ',');
    }
    return except ? !named : named;
}

static void set_liveness(ucp_config_t *uc, uint64_t timeout_ns)
{
    if (!timeout_ns)
        return;
    const double t = (double)timeout_ns / 1e9;
    char v[32];
    if (!getenv("UCX_KEEPALIVE_INTERVAL")) {
        snprintf(v, sizeof v, "%.3fs", t / 4);
        ucp_config_modify(uc, "KEEPALIVE_INTERVAL", v);
    }
    if (!tls_allow_tcp())
        return;
    snprintf(v, sizeof v, "%.3fs", t / 4);
    setenv("UCX_TCP_KEEPIDLE", v, 0);
    snprintf(v, sizeof v, "%.3fs", t / 8);
    setenv("UCX_TCP_KEEPINTVL", v, 0);
    setenv("UCX_TCP_KEEPCNT", "3", 0);
}

/* The UCP context, with the atomics mode UCX resolved. */
static int open_context(int n_pes, char *err, size_t errlen)
{
    ucx_startup_grace_back();
    ucp_config_t *uc;
    ucs_status_t st = ucp_config_read(NULL, NULL, &uc);
    if (st != UCS_OK)
        return fail(err, errlen, "reading the configuration (ucp_config_read)", st);
    set_liveness(uc, ucx_g.peer_timeout_ns);
    ucx_g.cpu_atomics = atomic_mode_is_cpu(uc);
    ucp_params_t p;
    memset(&p, 0, sizeof p);
    p.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED |
                   UCP_PARAM_FIELD_ESTIMATED_NUM_EPS;
    /* WAKEUP: the progress thread sleeps on the target worker's event fd. */
    p.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_WAKEUP;
    /* AM: Shoal's active messages (ucx_am.c), where SHOAL_UCX_AM and the
     * UCX version say so. */
    ucx_g.am_here = ucx_am_wanted();
    if (ucx_g.am_here)
        p.features |= UCP_FEATURE_AM;
    /* TAG: collectives' signals as messages (ucx_signal.c), where no lane
     * does atomics in a device (known only once endpoints exist), and with
     * a UCX whose tcp transport takes the feature (ucx_am.c's versions). */
    ucx_g.tag_here = !ucx_cfg.signals_amo && ucx_am_version_good();
    if (ucx_g.tag_here)
        p.features |= UCP_FEATURE_TAG;
    if ((ucx_g.am_here || ucx_g.tag_here) && ucx_multi_rail_off()) {
        st = ucp_config_modify(uc, "MAX_RNDV_LANES", "1");
        if (st != UCS_OK) {
            ucp_config_release(uc);
            return fail(err, errlen, "setting one rendezvous lane (ucp_config_modify)", st);
        }
    }
    /* Workers of several threads (contexts, progress thread) share it. */
    p.mt_workers_shared = 1;
    p.estimated_num_eps = (size_t)n_pes;
    st = ucp_init(&p, uc, &ucx_g.ctx);
    ucp_config_release(uc);
    return st == UCS_OK ? 0 : fail(err, errlen, "creating the UCP context (ucp_init)", st);
}

/* Registers the segments (already memfd mappings; nothing is copied) and
 * packs their keys into rk[s] (rklen[s] bytes; NULL for an absent one). */
static int register_segments(void *rk[2], size_t rklen[2], char *err, size_t errlen)
{
    for (int s = 0; s < 2; s++) {
        if (!ucx_g.seg_base[s] || !ucx_g.seg_len[s])
            continue;
        ucp_mem_map_params_t mp;
        memset(&mp, 0, sizeof mp);
        mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
        mp.address = (void *)ucx_g.seg_base[s];
        mp.length = ucx_g.seg_len[s];
        ucs_status_t st = ucp_mem_map(ucx_g.ctx, &mp, &ucx_g.mh[s]);
        if (st != UCS_OK)
            return fail(err, errlen,
                        s ? "registering the static data (ucp_mem_map)"
                          : "registering the symmetric heap (ucp_mem_map)",
                        st);
        st = ucp_rkey_pack(ucx_g.ctx, ucx_g.mh[s], &rk[s], &rklen[s]);
        if (st != UCS_OK)
            return fail(err, errlen, "packing a remote key (ucp_rkey_pack)", st);
    }
    return 0;
}

/* The published worker: every peer's endpoints to this PE connect to it.
 * Several threads may progress it (waiting threads, the progress thread),
 * hence MULTI. */
static int create_target(char *err, size_t errlen)
{
    if (ucx_worker_pool_init() < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (ucx_fds_check_start(err, errlen) < 0)
        return -1; /* UCX would fail, saying less */
    ucx_g.progress_on = 0;
    ucx_g.target_mode = UCS_THREAD_MODE_MULTI;
    ucp_worker_params_t wp;
    memset(&wp, 0, sizeof wp);
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = ucx_g.target_mode;
    ucs_status_t st = ucp_worker_create(ucx_g.ctx, &wp, &ucx_g.target);
    if (st != UCS_OK && ucx_posix_dir_short(err, errlen))
        return -1; /* UCX said "Out of memory" */
    return st == UCS_OK ? 0
                        : fail(err, errlen, "creating the target worker (ucp_worker_create)", st);
}

/* Where the peers' addresses and keys are in the exchanged blob. */
static void index_peers(const struct ucx_card *cards, int n, size_t maxlen)
{
    for (int pe = 0; pe < n; pe++) {
        const char *c = ucx_g.blob + (size_t)pe * maxlen;
        ucx_g.peer_addr[pe] = c;
        ucx_g.peer_same_host[pe] = ucx_g.hooks->same_node ? ucx_g.hooks->same_node(pe) != 0 : 0;
        for (int s = 0; s < 2; s++) {
            ucx_g.peer_base[2 * pe + s] = cards[pe].base[s];
            ucx_g.peer_rkey[2 * pe + s] =
                cards[pe].rkey_len[s] ? c + cards[pe].addr_len + (s ? cards[pe].rkey_len[0] : 0)
                                      : NULL;
        }
    }
}

/* Exchange through the bootstrap: fixed-size cards, then the variable
 * parts (worker address, packed keys) padded to the longest.  One cleanup
 * path releases what was acquired here. */
static int exchange(struct shoal_boot *b, void *rk[2], size_t rklen[2], char *err, size_t errlen)
{
    const int n = b->size;
    int rc = -1;
    char *in = NULL;
    ucp_address_t *addr = NULL;
    size_t addr_len;
    ucs_status_t st = ucp_worker_get_address(ucx_g.target, &addr, &addr_len);
    if (st != UCS_OK)
        return fail(err, errlen, "getting the worker address (ucp_worker_get_address)", st);
    struct ucx_card mine = {.base = {ucx_g.seg_base[0], ucx_g.seg_base[1]},
                            .addr_len = (uint32_t)addr_len,
                            .rkey_len = {(uint32_t)rklen[0], (uint32_t)rklen[1]},
                            .am = (uint32_t)ucx_g.am_here};
    struct ucx_card *cards = calloc((size_t)n, sizeof *cards);
    if (!cards || b->allgather(&mine, cards, sizeof mine) < 0) {
        snprintf(err, errlen, "bootstrap allgather of UCX addresses failed");
        goto out_cards;
    }
    size_t maxlen = 8;
    for (int pe = 0; pe < n; pe++) {
        size_t l = (size_t)cards[pe].addr_len + cards[pe].rkey_len[0] + cards[pe].rkey_len[1];
        maxlen = l > maxlen ? l : maxlen;
    }
    maxlen = (maxlen + 7) & ~(size_t)7;
    /* UCP's active messages only where every PE receives them (a job
     * whose PEs chose differently, by SHOAL_UCX_AM or by their UCX, uses
     * the ring everywhere: every PE polls it). */
    ucx_g.am = 1;
    for (int pe = 0; pe < n; pe++)
        ucx_g.am &= cards[pe].am != 0;
    in = calloc(1, maxlen);
    ucx_g.blob = malloc((size_t)n * maxlen);
    ucx_g.peer_addr = calloc((size_t)n, sizeof *ucx_g.peer_addr);
    ucx_g.peer_rkey = calloc(2 * (size_t)n, sizeof *ucx_g.peer_rkey);
    ucx_g.peer_base = calloc(2 * (size_t)n, sizeof *ucx_g.peer_base);
    ucx_g.peer_same_host = calloc((size_t)n, 1);
    if (!in || !ucx_g.peer_same_host || !ucx_g.blob || !ucx_g.peer_addr || !ucx_g.peer_rkey ||
        !ucx_g.peer_base) {
        snprintf(err, errlen, "out of memory");
        goto out_in;
    }
    memcpy(in, addr, addr_len);
    if (rklen[0])
        memcpy(in + addr_len, rk[0], rklen[0]);
    if (rklen[1])
        memcpy(in + addr_len + rklen[0], rk[1], rklen[1]);
    if (b->allgather(in, ucx_g.blob, maxlen) < 0) {
        snprintf(err, errlen, "bootstrap allgather of UCX addresses failed");
        goto out_in;
    }
    index_peers(cards, n, maxlen);
    rc = 0;
out_in:
    free(in);
out_cards:
    free(cards);
    ucp_worker_release_address(ucx_g.target, addr);
    return rc;
}

static void keep_args(const struct shoal_net_init_args *a)
{
    memset(&ucx_g, 0, sizeof ucx_g);
    ucx_g.mode = a->mode;
    ucx_g.hooks = a;
    ucx_g.thread_level = a->thread_level;
    for (int s = 0; s < 2; s++) {
        ucx_g.seg_base[s] = (uintptr_t)a->seg_base[s];
        ucx_g.seg_len[s] = a->seg_len[s];
    }
}

int ucx_net_init(const struct shoal_net_init_args *a, struct shoal_net_init_result *out, char *err,
                 size_t errlen)
{
    out->active = out->amo_via_net = out->coll_msgs = out->signal_data = 0;
    keep_args(a);
    const int needed = shoal_net_needed(a, err, errlen);
    if (needed <= 0)
        return needed; /* -1: said in err; 0: one node, the library not even opened */

    struct shoal_boot *b = a->boot;
    ucx_g.boot = b;
    ucx_g.n_pes = b->size;
    ucx_g.me = b->rank;
    ucx_g.progress_thread_cfg = ucx_cfg.progress_thread;
    ucx_g.progress_interval_us = ucx_cfg.progress_interval_us;
    ucx_g.dflt_policy = ucx_cfg.default_ctx_workers;
    ucx_g.peer_timeout_ns = a->peer_timeout_ns;
    ucx_g.owner_pid = (long)getpid();
    static int atfork_done;
    if (!atfork_done && pthread_atfork(NULL, NULL, forked_in_child) == 0)
        atfork_done = 1;

    void *rk[2] = {NULL, NULL};
    size_t rklen[2] = {0, 0};
    int rc = -1;
    if (open_context(b->size, err, errlen) < 0 || register_segments(rk, rklen, err, errlen) < 0 ||
        create_target(err, errlen) < 0 || ucx_am_setup(err, errlen) < 0 ||
        exchange(b, rk, rklen, err, errlen) < 0)
        goto out;
    /* CPU atomics on mapped words and UCX atomics on the same words are
     * coherent in UCX's CPU atomic mode, or where no lane of the job does
     * atomics in a device; otherwise every AMO of the job goes through UCX
     * (core/ops.h).  And does the target side need a progress thread?
     * Both from the lanes of real endpoints (ucx_lanes.c). */
    out->active = 1;
    if (ucx_peek_init() < 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (ucx_lanes_decide() < 0) {
        snprintf(err, errlen, "bootstrap allgather of the UCX atomics' domain failed");
        goto out;
    }
    out->amo_via_net = ucx_g.amo_via_net;
    if (ucx_g.signal_msgs) {
        /* Its receives are posted again after each progress of the target
         * worker, which the floor below (base/ucx_wait.c) runs too. */
        ucx_g.target_progressed = ucx_signal_repost;
        ucx_signal_setup(ucx_g.target, a);
    }
    if (ucx_g.coll_msgs)
        ucx_coll_msg_setup(a);
    out->coll_msgs = ucx_g.coll_msgs;
    out->signal_data = ucx_g.signal_msgs;
    if (ucx_progress_thread_start() < 0) {
        snprintf(err, errlen, "cannot start the UCX progress thread");
        goto out;
    }
    rc = 0;
out:
    for (int s = 0; s < 2; s++)
        if (rk[s])
            ucp_rkey_buffer_release(rk[s]);
    return rc;
}

void ucx_net_set_thread_level(int level)
{
    __atomic_store_n(&ucx_g.thread_level, level, __ATOMIC_RELAXED);
}

static void flush_final(struct ucx_worker *w, void *arg)
{
    (void)arg;
    ucx_flush_worker(w, "shmem_finalize");
    /* And what no quiet needed completed: collectives' signals
     * (shoal_net_signal) since core's shoal_net_flush_signals. */
    ucp_request_param_t p;
    p.op_attr_mask = 0;
    ucx_wait(w, ucp_worker_flush_nbx(w->h, &p), "shmem_finalize", -1, "flush (finalize)");
}

void ucx_net_fini(void)
{
    if (!ucx_g.ctx)
        return;
    /* Complete what is outstanding (the last barrier's signals) while
     * every peer still serves requests: with the progress thread
     * running here and there, a PE that reached the bootstrap barrier
     * below still answers.  After it, peers may exit at any time: their
     * endpoints' errors are expected and endpoints are closed by force. */
    if (ucx_progress_thread_run() == 0) {
        ucx_all_workers_foreach(flush_final, NULL);
        ucx_target_sender_flush(1, "shmem_finalize");
        ucx_request_flush_final("shmem_finalize");
        /* From here on a peer may be gone. */
        ucx_g.finalizing = 1;
        ucx_g.boot->barrier();
    }
    ucx_g.finalizing = 1;
    ucx_progress_thread_stop();
    ucx_peek_fini();
    ucx_signal_fini();
    ucx_request_pool_fini();
    ucx_worker_pool_fini();
    ucx_target_sender_fini();
    ucx_lanes_fini();
    if (ucx_g.target)
        ucp_worker_destroy(ucx_g.target);
    for (int s = 0; s < 2; s++)
        if (ucx_g.mh[s])
            ucp_mem_unmap(ucx_g.ctx, ucx_g.mh[s]);
    ucp_cleanup(ucx_g.ctx);
    ucx_peek_release();
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

const char *ucx_net_built(void)
{
    static char s[64];
    if (!s[0])
        snprintf(s, sizeof s, "ucx (UCX %s)", ucp_get_version_string());
    return s;
}

void ucx_net_describe(FILE *f, const char *prefix, int initialized)
{
    if (!ucx_g.ctx) {
        fprintf(f, "%sNetwork: UCX %s built in; %s\n", prefix, ucp_get_version_string(),
                !initialized ? "used when SHOAL_TRANSPORTS=ucx or PEs are on other nodes"
                             : "not used (every PE is on this node)");
        if (!initialized)
            ucx_am_describe(f, prefix, 0);
        return;
    }
    fprintf(f, "%sNetwork: UCX %s, %s\n", prefix, ucp_get_version_string(),
            ucx_g.mode == SHOAL_NET_ALL
                ? "every PE through UCX, this PE included (SHOAL_TRANSPORTS=ucx)"
                : "PEs on other nodes through UCX, this node by load/store");
    fprintf(f, "%sUCX transports: %s\n", prefix, ucx_g.tls_note[0] ? ucx_g.tls_note : "(unknown)");
    fprintf(f, "%sUCX atomics: %s\n", prefix,
            !ucx_g.amo_via_net
                ? (ucx_g.cpu_atomics ? "UCX_ATOMIC_MODE=cpu: CPU atomics stay coherent with "
                                       "UCX's, so AMOs to PEs mapped here use the CPU"
                                     : "no lane does atomics in a device (UCX emulates them "
                                       "with the target's CPU): AMOs to PEs mapped here use "
                                       "the CPU")
            : ucx_cfg.atomics_all
                ? "every AMO goes through UCX, on-node peers and this PE included "
                  "(SHOAL_UCX_ATOMICS=all)"
                : "UCX device/guess atomic mode with device atomics: every AMO goes through UCX, "
                  "on-node peers and this PE included (set UCX_ATOMIC_MODE=cpu to use CPU "
                  "atomics on-node)");
    fprintf(f,
            "%sUCX progress thread: %s (SHOAL_PROGRESS_THREAD=%s; software-emulated RMA or "
            "AMO: %s), interval %ld us\n",
            prefix, ucx_g.progress_on ? "on" : "off",
            ucx_g.progress_thread_cfg < 0 ? "auto"
            : ucx_g.progress_thread_cfg   ? "1"
                                          : "0",
            ucx_g.sw_emulated ? "yes" : "no", ucx_g.progress_interval_us);
    fprintf(f, "%sUCX collectives' signals: %s\n", prefix,
            ucx_g.signal_msgs     ? "tagged messages (no lane does atomics in a device)"
            : ucx_cfg.signals_amo ? "atomic adds (SHOAL_UCX_SIGNALS=amo)"
            : !ucx_g.tag_here
                ? "atomic adds (this UCX is older than 1.13, whose tagged messages Shoal "
                  "has not tried)"
                : "atomic adds (some PE's lanes do atomics in a device, or it cannot take "
                  "messages)");
    fprintf(f, "%sUCX collectives' data on teams across nodes: %s\n", prefix,
            ucx_g.coll_msgs ? "tagged messages (no sync, no acknowledgements)"
                            : "puts and gets (some PE cannot take tagged messages)");
    ucx_am_describe(f, prefix, 1);
    ucx_describe_workers(f, prefix);
    ucx_describe_requests(f, prefix);
}
