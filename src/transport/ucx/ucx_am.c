/* Active messages over UCP (transport/net.h), where every PE takes them
 * (SHOAL_UCX_AM=1, or auto with a UCX known good for them: ucx_am_wanted;
 * otherwise ext/am carries them over RMA and atomics, ext/am/am_net.c): a
 * message is one ucp_am_send_nbx
 * on the sending context's worker, to the target PE's published worker
 * (the endpoint every operation to that PE uses), with a small header
 * naming the tag, the sender and its completion counter.  UCX picks eager
 * or rendezvous by size.  The target worker's receive handler copies an
 * eager payload (or starts fetching a rendezvous one into its own buffer)
 * and hands the message up (am_arrived hook, ext/am's) in arrival order;
 * ext/am runs the handler later, on whichever thread polls, and releases it. */
#include <stdlib.h>
#include <string.h>

#include "transport/ucx/ucx_internal.h"

#define UCX_AM_ID 7

/* The first UCX release whose UCP active messages and tagged messages
 * Shoal's suite found sound (SHOAL_UCX_AM=auto and the signals take them
 * from there on).  Before 1.22, only with one rendezvous lane
 * (ucx_multi_rail_off): UCX 1.13.1 (Debian 12's) segfaulted in its tcp
 * transport's event handler with UCP_FEATURE_AM or _TAG on and two
 * rendezvous lanes (tcp over lo and eth0 to a peer on the same host):
 * `am_nbe_test merge` over tcp at 3 PEs crashed 13 of 100 runs, with
 * UCX_MAX_RNDV_LANES=1 0 of 90 (the crash: an endpoint's receive buffer
 * released twice).  Releases before 1.13 were not tried: they keep the
 * ring and atomic signals. */
#define UCX_AM_GOOD_MAJOR 1u
#define UCX_AM_GOOD_MINOR 13u
#define UCX_MULTI_RAIL_GOOD_MINOR 22u

static int version_good(unsigned *maj, unsigned *min, unsigned *rel)
{
    ucp_get_version(maj, min, rel);
    return *maj > UCX_AM_GOOD_MAJOR || (*maj == UCX_AM_GOOD_MAJOR && *min >= UCX_AM_GOOD_MINOR);
}

static int wanted(int setting)
{
    unsigned maj, min, rel;
    if (setting >= 0)
        return setting;
    return version_good(&maj, &min, &rel);
}

int ucx_am_version_good(void)
{
    unsigned maj, min, rel;
    return version_good(&maj, &min, &rel);
}

/* Whether a UCP context with active or tagged messages needs one
 * rendezvous lane: UCX before 1.22, unless the user chose the lanes. */
int ucx_multi_rail_off(void)
{
    unsigned maj, min, rel;
    ucp_get_version(&maj, &min, &rel);
    return maj == 1 && min < UCX_MULTI_RAIL_GOOD_MINOR && !getenv("UCX_MAX_RNDV_LANES");
}

int ucx_am_wanted(void)
{
    return wanted(ucx_cfg.am);
}

/* Before init (shmem-info alone) from the environment as it is now,
 * after it from what init read. */
void ucx_am_describe(FILE *f, const char *prefix, int initialized)
{
    unsigned maj, min, rel;
    int good = version_good(&maj, &min, &rel);
    int setting = initialized ? ucx_cfg.am : ucx_env_am();
    char why[160];
    if (setting >= 0)
        snprintf(why, sizeof why, "SHOAL_UCX_AM=%d", setting);
    else
        snprintf(why, sizeof why, "SHOAL_UCX_AM=auto: UCX %u.%u.%u is %s %u.%u%s", maj, min, rel,
                 good ? "known good for them, from" : "older than", UCX_AM_GOOD_MAJOR,
                 UCX_AM_GOOD_MINOR,
                 good && ucx_multi_rail_off() ? ", with one rendezvous lane before 1.22" : "");
    const char *ucp = "UCP active messages (ucp_am_send_nbx)";
    const char *ring = "RMA and atomics into the target's ring";
    if (!initialized)
        fprintf(f, "%sUCX active messages: %s (%s)\n", prefix, wanted(setting) ? ucp : ring, why);
    else if (ucx_g.am_here && !ucx_g.am)
        fprintf(f, "%sUCX active messages: %s (%s here, but not on every PE)\n", prefix, ring, why);
    else
        fprintf(f, "%sUCX active messages: %s (%s)\n", prefix, ucx_g.am ? ucp : ring, why);
}

struct am_hdr {
    int32_t tag, src;
    uint32_t ctr, pad;
};

/* core's view, then the payload. */
struct ucx_am_msg {
    struct shoal_net_am_msg m;
    _Alignas(16) unsigned char data[];
};

int ucx_net_am_send(struct shoal_net_ctx *net, int pe, int tag, unsigned ctr, const void *payload,
                    size_t len, const char *fn)
{
    if (!ucx_g.am)
        return 0; /* ext/am carries it over RMA and atomics (am_net.c) */
    struct ucx_worker *w = ucx_ctx_worker(net, fn);
    ucp_ep_h ep = ucx_ep(w, pe, fn);
    struct am_hdr h = {tag, ucx_g.me, ctr, 0};
    ucp_request_param_t p;
    p.op_attr_mask = 0;
    /* The header and payload are the caller's until the request completes:
     * wait for it (the payload may be reused on return). */
    ucs_status_ptr_t r = ucp_am_send_nbx(ep, UCX_AM_ID, &h, sizeof h, payload, len, &p);
    ucx_wait(w, r, fn, pe, "an active message (ucp_am_send_nbx)");
    return 1;
}

void ucx_net_am_release(struct shoal_net_am_msg *m)
{
    free(m);
}

static void rndv_done(void *request, ucs_status_t st, size_t length, void *user_data)
{
    (void)length;
    struct ucx_am_msg *x = user_data;
    if (st != UCS_OK)
        ucx_fatalf("active message",
                   "receiving the payload of an active message from PE %d "
                   "failed: %s",
                   x->m.src, ucs_status_string(st));
    __atomic_store_n(&x->m.ready, 1, __ATOMIC_RELEASE);
    ucp_request_free(request);
}

static ucs_status_t am_recv(void *arg, const void *header, size_t header_length, void *data,
                            size_t length, const ucp_am_recv_param_t *param)
{
    (void)arg;
    struct am_hdr h;
    if (header_length != sizeof h)
        ucx_fatalf("active message", "a message with a %zu-byte header arrived (expected %zu)",
                   header_length, sizeof h);
    memcpy(&h, header, sizeof h);
    struct ucx_am_msg *x = malloc(sizeof *x + length);
    if (!x)
        ucx_fatalf("active message",
                   "out of memory for an active message of %zu bytes from "
                   "PE %d",
                   length, (int)h.src);
    x->m.next = NULL;
    x->m.payload = x->data;
    x->m.len = length;
    x->m.src = h.src;
    x->m.tag = h.tag;
    x->m.ctr = h.ctr;
    int rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
    if (!rndv) {
        memcpy(x->data, data, length);
        x->m.ready = 1;
        ucx_g.hooks->am_arrived(&x->m);
        return UCS_OK;
    }
    /* Queued now (order), ready once the data is here. */
    x->m.ready = 0;
    ucx_g.hooks->am_arrived(&x->m);
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p.cb.recv_am = rndv_done;
    p.user_data = x;
    ucs_status_ptr_t r = ucp_am_recv_data_nbx(ucx_g.target, data, x->data, length, &p);
    if (UCS_PTR_IS_ERR(r))
        ucx_fatalf("active message",
                   "fetching the payload of an active message from PE %d "
                   "failed: %s",
                   (int)h.src, ucs_status_string(UCS_PTR_STATUS(r)));
    if (r == NULL)
        __atomic_store_n(&x->m.ready, 1, __ATOMIC_RELEASE);
    return UCS_OK;
}

int ucx_am_setup(char *err, size_t errlen)
{
    if (!ucx_g.am_here)
        return 0;
    ucp_am_handler_param_t hp;
    memset(&hp, 0, sizeof hp);
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                    UCP_AM_HANDLER_PARAM_FIELD_CB;
    hp.id = UCX_AM_ID;
    hp.flags = UCP_AM_FLAG_WHOLE_MSG;
    hp.cb = am_recv;
    ucs_status_t st = ucp_worker_set_am_recv_handler(ucx_g.target, &hp);
    if (st != UCS_OK) {
        snprintf(err, errlen, "UCX: setting the active-message handler failed: %s",
                 ucs_status_string(st));
        return -1;
    }
    return 0;
}
