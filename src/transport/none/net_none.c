/* No network: the table (shoal_net_none_ops) that transport/net_select.c
 * holds before a transport is chosen, and chooses in a build without a
 * network transport.  Every PE must be on this node, so reaching one that
 * is not is an error naming it (through core's fatal hook).
 * May call: transport/net.h (the contract) and libc. */
#include <stdio.h>
#include <stdlib.h>

#include "transport/net.h"

static const struct shoal_net_init_args *core_hooks;

static _Noreturn void no_route(int pe, const char *fn)
{
    char msg[160];
    snprintf(msg, sizeof msg,
             "PE %d is not on this node and this build of Shoal has no network transport "
             "(rebuild with libucx-dev or libfabric-dev installed)",
             pe);
    if (!core_hooks) { /* before shmem_init: core checks its calls first */
        fprintf(stderr, "shoal: %s: %s\n", fn, msg);
        abort();
    }
    core_hooks->fatal(fn, msg);
    __builtin_unreachable();
}

static void none_put(struct shoal_net_ctx *net, void *dest, const void *src, size_t n, int pe,
                     int nbi, const char *fn)
{
    (void)net, (void)dest, (void)src, (void)n, (void)nbi;
    no_route(pe, fn);
}

static void none_get(struct shoal_net_ctx *net, void *dest, const void *src, size_t n, int pe,
                     int nbi, const char *fn)
{
    (void)net, (void)dest, (void)src, (void)n, (void)nbi;
    no_route(pe, fn);
}

static uint64_t none_amo(struct shoal_net_ctx *net, int op, const void *dest, unsigned size,
                         uint64_t value, uint64_t cond, int pe, const char *fn)
{
    (void)net, (void)op, (void)dest, (void)size, (void)value, (void)cond;
    no_route(pe, fn);
}

static void none_amo_nbi(struct shoal_net_ctx *net, int op, void *fetch, const void *dest,
                         unsigned size, uint64_t value, uint64_t cond, int pe, const char *fn)
{
    (void)net, (void)op, (void)fetch, (void)dest, (void)size, (void)value, (void)cond;
    no_route(pe, fn);
}

static void none_signal(struct shoal_net_ctx *net, uint64_t *word, uint64_t value, int pe,
                        const char *fn)
{
    (void)net, (void)word, (void)value;
    no_route(pe, fn);
}

static int none_signal_data(struct shoal_net_ctx *net, uint64_t *word, uint64_t value, void *dest,
                            const void *src, size_t n, int pe, const char *fn)
{
    (void)net, (void)word, (void)value, (void)dest, (void)src, (void)n;
    no_route(pe, fn);
}

static void none_coll_send(struct shoal_net_ctx *net, uint64_t tag, const void *src, size_t n,
                           int pe, int exchange, const char *fn)
{
    (void)net, (void)tag, (void)src, (void)n, (void)exchange;
    no_route(pe, fn);
}

static void none_coll_recv(uint64_t tag, void *buf, const struct shoal_net_coll_rx *rx)
{
    (void)tag, (void)buf;
    no_route(-1, rx->fn);
}

static int none_coll_waiting(uint64_t tag, uint64_t mask, uint64_t *found)
{
    (void)tag, (void)mask, (void)found;
    return 0;
}

static void none_flush_signals(struct shoal_net_ctx *net, const char *fn)
{
    (void)net, (void)fn;
}

static int none_am_send(struct shoal_net_ctx *net, int pe, int tag, unsigned ctr,
                        const void *payload, size_t len, const char *fn)
{
    (void)net, (void)tag, (void)ctr, (void)payload, (void)len;
    no_route(pe, fn);
}

/* Never called: nothing arrives without a network. */
static void none_am_release(struct shoal_net_am_msg *m)
{
    (void)m;
}

static void none_quiet(struct shoal_net_ctx *net)
{
    (void)net;
}
static void none_fence(struct shoal_net_ctx *net)
{
    (void)net;
}

static int none_init(const struct shoal_net_init_args *args, struct shoal_net_init_result *out,
                     char *err, size_t errlen)
{
    core_hooks = args;
    out->active = out->amo_via_net = out->coll_msgs = out->signal_data = 0;
    if (args->remote > 0 || args->mode == SHOAL_NET_ALL) {
        snprintf(err, errlen,
                 "%d PEs are on other nodes, but this build of Shoal has no network transport "
                 "(rebuild with libucx-dev or libfabric-dev installed)",
                 args->remote);
        return -1;
    }
    return 0;
}

static void none_fini(void) {}
static void none_set_thread_level(int level)
{
    (void)level;
}

static int none_ctx_open(struct shoal_net_ctx **net, int is_default, int private_ctx,
                         int serialized, const char *fn)
{
    (void)is_default, (void)private_ctx, (void)serialized, (void)fn;
    *net = NULL;
    return 0;
}

static void none_ctx_close(struct shoal_net_ctx *net)
{
    (void)net;
}

static int none_progress(void)
{
    return 0;
}

static void none_idle(void) {}

static void none_attend(void) {}

static int none_helper_thread(const char *name, size_t len)
{
    (void)name;
    (void)len;
    return 0;
}

static void none_describe(FILE *f, const char *prefix, int initialized)
{
    (void)initialized;
    fprintf(f, "%sNetwork: none (built without UCX or libfabric); every PE must be on this node\n",
            prefix);
}

static const char *none_built(void)
{
    return NULL;
}

static struct shoal_env_layer *none_env_layer(void)
{
    return NULL;
}

static void none_worker_counts(long *created, long *in_use, long *reused)
{
    if (created)
        *created = 0;
    if (in_use)
        *in_use = 0;
    if (reused)
        *reused = 0;
}

/* Requests (shmemx _nbe): on-node operations complete at issue, so a
 * request never holds anything here; a remote PE has no route. */
struct shoal_net_req {
    int unused;
};

static size_t none_req_size(void)
{
    return sizeof(struct shoal_net_req);
}

static int none_req_reserve(struct shoal_net_req *r, int how, const char *fn)
{
    (void)r, (void)how, (void)fn;
    return 0;
}

static void none_req_put(struct shoal_net_req *r, void *dest, const void *src, size_t n, int pe,
                         const char *fn)
{
    (void)r, (void)dest, (void)src, (void)n;
    no_route(pe, fn);
}

static void none_req_get(struct shoal_net_req *r, void *dest, const void *src, size_t n, int pe,
                         const char *fn)
{
    (void)r, (void)dest, (void)src, (void)n;
    no_route(pe, fn);
}

static void none_req_amo(struct shoal_net_req *r, int op, void *fetch, const void *dest,
                         unsigned size, uint64_t value, uint64_t cond, int pe, const char *fn)
{
    (void)r, (void)op, (void)fetch, (void)dest, (void)size, (void)value, (void)cond;
    no_route(pe, fn);
}

static void none_req_fence(struct shoal_net_req *r, const char *fn)
{
    (void)r, (void)fn;
}

static int none_req_test(struct shoal_net_req *r, const char *fn)
{
    (void)r, (void)fn;
    return 1;
}

static void none_req_release(struct shoal_net_req *r)
{
    (void)r;
}

static void none_req_quiet_all(const char *fn)
{
    (void)fn;
}

/* Never called: init refused every peer off this node. */
static int none_peek(int pe, const void *addr, uint32_t *value, int connect, const char *fn)
{
    (void)pe;
    (void)addr;
    (void)connect;
    (void)fn;
    *value = 0;
    return 1;
}

static int none_wired(int pe)
{
    (void)pe;
    return 0;
}

static int none_look_start(void *dest, const void *src, size_t n, int pe, int connect,
                           const char *fn)
{
    (void)dest, (void)src, (void)n, (void)pe, (void)connect, (void)fn;
    return -1;
}

static int none_look_test(int ticket, const char *fn)
{
    (void)ticket, (void)fn;
    return -1;
}

static void none_leaving(void) {}

const struct shoal_net_ops shoal_net_none_ops = {
    .name = "none",
    .init = none_init,
    .fini = none_fini,
    .set_thread_level = none_set_thread_level,
    .ctx_open = none_ctx_open,
    .ctx_close = none_ctx_close,
    .progress = none_progress,
    .idle = none_idle,
    .attend = none_attend,
    .helper_thread = none_helper_thread,
    .describe = none_describe,
    .built = none_built,
    .env_layer = none_env_layer,
    .leaving = none_leaving,
    .put = none_put,
    .get = none_get,
    .amo = none_amo,
    .amo_nbi = none_amo_nbi,
    .quiet = none_quiet,
    .fence = none_fence,
    .signal = none_signal,
    .signal_data = none_signal_data,
    .flush_signals = none_flush_signals,
    .coll_send = none_coll_send,
    .coll_recv = none_coll_recv,
    .coll_waiting = none_coll_waiting,
    .am_send = none_am_send,
    .am_release = none_am_release,
    .worker_counts = none_worker_counts,
    .peek = none_peek,
    .wired = none_wired,
    .look_start = none_look_start,
    .look_test = none_look_test,
    .req_size = none_req_size,
    .req_reserve = none_req_reserve,
    .req_put = none_req_put,
    .req_get = none_req_get,
    .req_amo = none_req_amo,
    .req_fence = none_req_fence,
    .req_test = none_req_test,
    .req_release = none_req_release,
    .req_quiet_all = none_req_quiet_all,
};
