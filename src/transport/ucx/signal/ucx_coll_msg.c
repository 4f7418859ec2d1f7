/* Collectives' data as tagged messages (shoal_net_coll_send/recv), where
 * every PE of the job takes UCP's tag feature.  A put of a collective's
 * data into a peer must wait until the peer no longer reads what it
 * overwrites, which costs an acknowledgement per round; a message waits
 * in the receiver's UCX instead (eager data in its queue of unexpected
 * messages, rendezvous data at the sender) until the receiver posts the
 * receive, into its own buffer, for the same tag.  The tag names the team,
 * which of its collectives this is and which message of it, so messages
 * that come early never meet the wrong receive and need no ordering.
 *
 * Receives go to the target worker, which every thread (and the progress
 * thread) progresses; a completed one counts itself in the caller's
 * counter and rings the doorbell of waiters asleep. */
#include "transport/ucx/signal/ucx_signal.h"

#include <stdio.h>

/* The top byte of the 64-bit tag: no other tagged traffic (the signals'
 * SIG_TAG starts with 0x53) can meet these. */
#define COLL_TAG_MARK ((uint64_t)0xc5 << 56)
#define COLL_TAG_BITS (((uint64_t)1 << 56) - 1)

static const struct shoal_net_init_args *hooks;

void ucx_coll_msg_setup(const struct shoal_net_init_args *args)
{
    hooks = args;
}

static void arrived(const struct shoal_net_coll_rx *rx, size_t got, ucs_status_t st)
{
    const size_t want = rx->len;
    if (st != UCS_OK || got != want) {
        char msg[200];
        if (st == UCS_OK || st == UCS_ERR_MESSAGE_TRUNCATED)
            snprintf(msg, sizeof msg,
                     "a member sent %s bytes of this collective's data where this PE expects %zu "
                     "(the members' arguments differ)",
                     st == UCS_OK ? "fewer" : "more", want);
        else
            snprintf(msg, sizeof msg, "UCX: receiving a collective's data failed: %s",
                     ucs_status_string(st));
        hooks->fatal(rx->fn, msg);
    }
    __atomic_add_fetch(rx->counter, 1, __ATOMIC_RELEASE);
    hooks->writes_arrived();
}

static void recv_done(void *req, ucs_status_t st, const ucp_tag_recv_info_t *info, void *arg)
{
    ucp_request_free(req);
    arrived(arg, info ? info->length : 0, st);
}

void ucx_coll_msg_post(ucp_worker_h target, uint64_t tag, void *buf,
                       const struct shoal_net_coll_rx *rx)
{
    ucp_tag_recv_info_t info;
    info.length = rx->len; /* UCX 1.13 does not fill it in at once */
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                     UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_RECV_INFO;
    p.cb.recv = recv_done;
    p.user_data = (void *)rx;
    p.datatype = ucp_dt_make_contig(1);
    p.recv_info.tag_info = &info;
    ucs_status_ptr_t q = ucp_tag_recv_nbx(target, buf, rx->len,
                                          COLL_TAG_MARK | (tag & COLL_TAG_BITS), ~(ucp_tag_t)0, &p);
    if (q == NULL) /* taken from the unexpected ones at once; no callback */
        arrived(rx, info.length, UCS_OK);
    else if (UCS_PTR_IS_ERR(q))
        arrived(rx, 0, UCS_PTR_STATUS(q));
}

int ucx_coll_msg_waiting(ucp_worker_h target, uint64_t tag, uint64_t mask)
{
    ucp_tag_recv_info_t info;
    const ucp_tag_t mark_mask = ~COLL_TAG_BITS;
    return ucp_tag_probe_nb(target, COLL_TAG_MARK | (tag & COLL_TAG_BITS),
                            mark_mask | (mask & COLL_TAG_BITS), 0, &info) != NULL;
}

ucs_status_ptr_t ucx_coll_msg_start(ucp_ep_h ep, uint64_t tag, const void *src, size_t n)
{
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FLAG_FAST_CMPL;
    p.datatype = ucp_dt_make_contig(1);
    return ucp_tag_send_nbx(ep, src, n, COLL_TAG_MARK | (tag & COLL_TAG_BITS), &p);
}
