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

#include <stdint.h>
#include <stdio.h>

/* The top bit of the 64-bit tag: no other tagged traffic (the signals'
 * SIG_TAG starts with 0x53) can meet these. */
#define COLL_TAG_MARK ((uint64_t)1 << 63)
#define COLL_TAG_BITS (COLL_TAG_MARK - 1)

static const struct shoal_net_init_args *hooks;

void ucx_coll_msg_setup(const struct shoal_net_init_args *args)
{
    hooks = args;
}

static void arrived(const struct shoal_net_coll_rx *rx, size_t got, ucs_status_t st)
{
    const size_t want = rx->len;
    const int cut = st == UCS_ERR_MESSAGE_TRUNCATED; /* more than want */
    char msg[200];
    if (st != UCS_OK && !cut) {
        snprintf(msg, sizeof msg, "UCX: receiving a collective's data failed: %s",
                 ucs_status_string(st));
        hooks->fatal(rx->fn, msg);
    }
    if ((cut || got != want) && hooks->coll_msg_size) {
        hooks->coll_msg_size(rx->tag, cut ? SIZE_MAX : got, want, rx->fn);
    } else if (cut || got != want) {
        snprintf(msg, sizeof msg,
                 "a member sent %s bytes of this collective's data where this PE expects %zu "
                 "(the members' arguments differ)",
                 cut ? "more" : "fewer", want);
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
    /* UCX 1.13 does not fill info in at once: immediate completion is
     * denied, and the callback, which UCX then calls before it returns,
     * says the length (a root that sent less than a member expects). */
    ucp_tag_recv_info_t info;
    info.length = rx->len;
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                     UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_RECV_INFO |
                     UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
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

int ucx_coll_msg_waiting(ucp_worker_h target, uint64_t tag, uint64_t mask, uint64_t *found)
{
    ucp_tag_recv_info_t info;
    const ucp_tag_t mark_mask = ~COLL_TAG_BITS;
    if (!ucp_tag_probe_nb(target, COLL_TAG_MARK | (tag & COLL_TAG_BITS),
                          mark_mask | (mask & COLL_TAG_BITS), 0, &info))
        return 0;
    if (found)
        *found = info.sender_tag & COLL_TAG_BITS;
    return 1;
}

ucs_status_ptr_t ucx_coll_msg_start(ucp_ep_h ep, uint64_t tag, const void *src, size_t n)
{
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FLAG_FAST_CMPL;
    p.datatype = ucp_dt_make_contig(1);
    return ucp_tag_send_nbx(ep, src, n, COLL_TAG_MARK | (tag & COLL_TAG_BITS), &p);
}
