/* Core's side of the network contract (net_link.h). */
#include "core/net_link.h"

#include "boot/boot.h"
#include "core/config/env.h"
#include "core/ext_hooks.h"
#include "core/config/log.h"
#include "core/ops.h"
#include "core/memory/segments.h"
#include "core/teams/sync.h"
#include "core/waiting/peer_check.h"
#include "core/waiting/wait_record.h"

static int mapped(int pe)
{
    return shoal_slot(pe) >= 0;
}

/* The progress thread applied other PEs' writes to this PE's memory. */
static void writes_arrived(void)
{
    shoal_bell_ring_if_armed(&shoal_my_ctl()->bell);
}

static int waiters_asleep(void)
{
    return __atomic_load_n(&shoal_my_ctl()->sleepers, __ATOMIC_RELAXED) != 0;
}

static _Noreturn void fatal(const char *fn, const char *msg)
{
    shoal_fatal(fn, "%s", msg);
}

static void warn(const char *fn, const char *msg)
{
    shoal_warn(fn, "%s", msg);
}

int shoal_net_link(struct shoal_boot *b, const struct shoal_config *cfg, char *err, size_t errlen)
{
    /* The transport keeps a pointer to its arguments (the hooks). */
    static struct shoal_net_init_args args;
    args = (struct shoal_net_init_args){
        .boot = b,
        .mode = cfg->net_mode,
        .transport = cfg->net_name,
        .remote = shoal_g.n_pes - shoal_g.n_local,
        .thread_level = shoal_g.thread_level,
        .seg_base = {shoal_g.heap_me, shoal_g.data_me},
        .seg_len = {shoal_g.heap_size, shoal_g.data_size},
        .mapped = mapped,
        .writes_arrived = writes_arrived,
        .waiters_asleep = waiters_asleep,
        .fatal = fatal,
        .warn = warn,
        .am_arrived = shoal_ext.net_am_arrived,
        .am_run = shoal_ext.net_am_run,
        .same_node = shoal_segments_same_node,
        .host_of = shoal_peer_host,
        .net_blocked = shoal_wait_net_begin,
        .coll_send_waits = shoal_group_send_waits,
        .coll_msg_size = shoal_group_msg_size,
        .net_unblocked = shoal_wait_net_end,
        .peer_watch = shoal_peer_watch,
        .peer_timeout_ns = shoal_g.peer_timeout_ns,
    };
    struct shoal_net_init_result r;
    int rc = shoal_net_init(&args, &r, err, errlen);
    shoal_g.net_active = r.active;
    shoal_g.amo_via_net = r.amo_via_net;
    shoal_g.net_coll_msgs = r.active && r.coll_msgs;
    shoal_g.net_signal_data = r.active && r.signal_data;
    SHOAL_LOG(SHOAL_LOG_NET, SHOAL_LOG_INFO,
              "network transport %s (%d PEs off this node, SHOAL_TRANSPORTS=%s); AMOs %s",
              rc < 0     ? "failed"
              : r.active ? "active"
                         : "not used",
              args.remote, cfg->transports,
              r.amo_via_net ? "all through the network" : "by the CPU on this node");
    return rc;
}

void shoal_net_counts(long *created, long *in_use, long *reused)
{
    shoal_net_worker_counts(created, in_use, reused);
}
