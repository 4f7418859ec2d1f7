/* The network path of a build without a network transport: every PE must be
 * on this node, so reaching one that is not is an error naming it (through
 * core's fatal hook).  May call: transport/net.h (the contract) and libc. */
#include <stdio.h>

#include "transport/net.h"

static const struct shoal_net_init_args *core_hooks;

static _Noreturn void no_route(int pe, const char *fn)
{
    char msg[160];
    snprintf(msg, sizeof msg,
             "PE %d is not on this node and this build of Shoal has no network transport "
             "(rebuild with libucx-dev installed)",
             pe);
    core_hooks->fatal(fn, msg);
    __builtin_unreachable();
}

void shoal_net_put(struct shoal_net_ctx *net, void *dest, const void *src, size_t n, int pe,
                   int nbi, const char *fn)
{
    (void)net, (void)dest, (void)src, (void)n, (void)nbi;
    no_route(pe, fn);
}

void shoal_net_get(struct shoal_net_ctx *net, void *dest, const void *src, size_t n, int pe,
                   int nbi, const char *fn)
{
    (void)net, (void)dest, (void)src, (void)n, (void)nbi;
    no_route(pe, fn);
}

uint64_t shoal_net_amo(struct shoal_net_ctx *net, int op, const void *dest, unsigned size,
                       uint64_t value, uint64_t cond, int pe, const char *fn)
{
    (void)net, (void)op, (void)dest, (void)size, (void)value, (void)cond;
    no_route(pe, fn);
}

void shoal_net_amo_nbi(struct shoal_net_ctx *net, int op, void *fetch, const void *dest,
                       unsigned size, uint64_t value, uint64_t cond, int pe, const char *fn)
{
    (void)net, (void)op, (void)fetch, (void)dest, (void)size, (void)value, (void)cond;
    no_route(pe, fn);
}

void shoal_net_signal(struct shoal_net_ctx *net, uint64_t *word, uint64_t value, int pe,
                      const char *fn)
{
    (void)net, (void)word, (void)value;
    no_route(pe, fn);
}

int shoal_net_signal_data(struct shoal_net_ctx *net, uint64_t *word, uint64_t value, void *dest,
                          const void *src, size_t n, int pe, const char *fn)
{
    (void)net, (void)word, (void)value, (void)dest, (void)src, (void)n;
    no_route(pe, fn);
}

void shoal_net_coll_send(struct shoal_net_ctx *net, uint64_t tag, const void *src, size_t n, int pe,
                         int exchange, const char *fn)
{
    (void)net, (void)tag, (void)src, (void)n, (void)exchange;
    no_route(pe, fn);
}

void shoal_net_coll_recv(uint64_t tag, void *buf, const struct shoal_net_coll_rx *rx)
{
    (void)tag, (void)buf;
    no_route(-1, rx->fn);
}

int shoal_net_coll_waiting(uint64_t tag, uint64_t mask, uint64_t *found)
{
    (void)tag, (void)mask, (void)found;
    return 0;
}

void shoal_net_flush_signals(struct shoal_net_ctx *net, const char *fn)
{
    (void)net, (void)fn;
}

int shoal_net_am_send(struct shoal_net_ctx *net, int pe, int tag, unsigned ctr, const void *payload,
                      size_t len, const char *fn)
{
    (void)net, (void)tag, (void)ctr, (void)payload, (void)len;
    no_route(pe, fn);
}

/* Never called: nothing arrives without a network. */
void shoal_net_am_release(struct shoal_net_am_msg *m)
{
    (void)m;
}

void shoal_net_quiet(struct shoal_net_ctx *net)
{
    (void)net;
}
void shoal_net_fence(struct shoal_net_ctx *net)
{
    (void)net;
}

int shoal_net_init(const struct shoal_net_init_args *args, struct shoal_net_init_result *out,
                   char *err, size_t errlen)
{
    core_hooks = args;
    out->active = out->amo_via_net = out->coll_msgs = out->signal_data = 0;
    if (args->mode == SHOAL_NET_ALL) {
        snprintf(err, errlen,
                 "SHOAL_TRANSPORTS=ucx, but this build of Shoal has no UCX transport (rebuild with "
                 "libucx-dev installed)");
        return -1;
    }
    if (args->remote > 0) {
        snprintf(err, errlen,
                 "%d PEs are on other nodes, but this build of Shoal has no network transport "
                 "(rebuild with libucx-dev installed)",
                 args->remote);
        return -1;
    }
    return 0;
}

void shoal_net_fini(void) {}
void shoal_net_set_thread_level(int level)
{
    (void)level;
}

int shoal_net_ctx_open(struct shoal_net_ctx **net, int is_default, int private_ctx, int serialized,
                       const char *fn)
{
    (void)is_default, (void)private_ctx, (void)serialized, (void)fn;
    *net = NULL;
    return 0;
}

void shoal_net_ctx_close(struct shoal_net_ctx *net)
{
    (void)net;
}

int shoal_net_progress(void)
{
    return 0;
}

void shoal_net_idle(void) {}

void shoal_net_attend(void) {}

int shoal_net_helper_thread(const char *name, size_t len)
{
    (void)name;
    (void)len;
    return 0;
}

void shoal_net_describe(FILE *f, const char *prefix, int initialized)
{
    (void)initialized;
    fprintf(f, "%sNetwork: none (built without UCX); every PE must be on this node\n", prefix);
}

const char *shoal_net_built(void)
{
    return "shm";
}

struct shoal_env_layer *shoal_net_env_layer(void)
{
    return NULL;
}

void shoal_net_worker_counts(long *created, long *in_use, long *reused)
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

size_t shoal_net_req_size(void)
{
    return sizeof(struct shoal_net_req);
}

int shoal_net_req_reserve(struct shoal_net_req *r, int how, const char *fn)
{
    (void)r, (void)how, (void)fn;
    return 0;
}

void shoal_net_req_put(struct shoal_net_req *r, void *dest, const void *src, size_t n, int pe,
                       const char *fn)
{
    (void)r, (void)dest, (void)src, (void)n;
    no_route(pe, fn);
}

void shoal_net_req_get(struct shoal_net_req *r, void *dest, const void *src, size_t n, int pe,
                       const char *fn)
{
    (void)r, (void)dest, (void)src, (void)n;
    no_route(pe, fn);
}

void shoal_net_req_amo(struct shoal_net_req *r, int op, void *fetch, const void *dest,
                       unsigned size, uint64_t value, uint64_t cond, int pe, const char *fn)
{
    (void)r, (void)op, (void)fetch, (void)dest, (void)size, (void)value, (void)cond;
    no_route(pe, fn);
}

void shoal_net_req_fence(struct shoal_net_req *r, const char *fn)
{
    (void)r, (void)fn;
}

int shoal_net_req_test(struct shoal_net_req *r, const char *fn)
{
    (void)r, (void)fn;
    return 1;
}

void shoal_net_req_release(struct shoal_net_req *r)
{
    (void)r;
}

void shoal_net_req_quiet_all(const char *fn)
{
    (void)fn;
}

/* Never called: init refused every peer off this node. */
int shoal_net_peek(int pe, const void *addr, uint32_t *value, int connect, const char *fn)
{
    (void)pe;
    (void)addr;
    (void)connect;
    (void)fn;
    *value = 0;
    return 1;
}

int shoal_net_wired(int pe)
{
    (void)pe;
    return 0;
}

int shoal_net_look_start(void *dest, const void *src, size_t n, int pe, int connect, const char *fn)
{
    (void)dest, (void)src, (void)n, (void)pe, (void)connect, (void)fn;
    return -1;
}

int shoal_net_look_test(int ticket, const char *fn)
{
    (void)ticket, (void)fn;
    return -1;
}

void shoal_net_leaving(void) {}
