/* transport/ucx/signal — collectives' signals as tagged messages (why and
 * how: ucx_signal.c), and collectives' data as tagged messages
 * (ucx_coll_msg.c).  Owns: the pool of signal receives posted on the
 * target worker.  May call: UCX and the contract header transport/net.h (its
 * hooks); the rest of transport/ucx calls what is below and decides when
 * (ucx_lanes.c: every PE must take them). */
#ifndef SHOAL_UCX_SIGNAL_H
#define SHOAL_UCX_SIGNAL_H

#include <stddef.h>
#include <stdint.h>
#include <ucp/api/ucp.h>

#include "transport/net.h"

/* Data bytes a signal may carry (shoal_net_signal_data): written before
 * the add, so no fence has to order them (UCX 1.22's fence over tcp is a
 * flush of the worker: a round trip). */
#define UCX_SIGNAL_DATA_MAX 224

/* A signal on the wire.  The sender's copy must live until the send
 * completes (the caller's frame, while it waits for the request). */
struct ucx_signal_msg {
    uint64_t addr; /* the word, in the receiver's address space */
    uint64_t value;
    uint64_t data_addr; /* where the data goes (receiver's space) */
    uint64_t len;       /* bytes of data, 0 for none */
    unsigned char data[UCX_SIGNAL_DATA_MAX];
};

/* At init, after the decision: posts the receives on `target`; applied
 * signals ring args->writes_arrived, errors go to args->fatal. */
void ucx_signal_setup(ucp_worker_h target, const struct shoal_net_init_args *args);
/* After each progress of the target worker, by whoever holds it. */
void ucx_signal_repost(void);
/* After the progress thread stopped: cancels the receives. */
void ucx_signal_fini(void);
/* Sends the add of `value` to the receiver's word at `raddr`, with `n`
 * (<= UCX_SIGNAL_DATA_MAX) bytes of src for its address `rdata`, from *m:
 * UCP's request (NULL: done), which the caller waits for before *m goes. */
ucs_status_ptr_t ucx_signal_start(struct ucx_signal_msg *m, ucp_ep_h ep, uint64_t raddr,
                                  uint64_t value, uint64_t rdata, const void *src, size_t n);

/* Collectives' data as tagged messages (ucx_coll_msg.c): at init, where
 * every PE takes them; then a send of `n` bytes tagged `tag` (its low 56
 * bits), UCP's request (NULL: done) that the caller waits for before src
 * goes; and the receive, on the target worker, of the message tagged `tag`
 * into buf (rx: its size and the counter it bumps, shoal_net_coll_recv). */
void ucx_coll_msg_setup(const struct shoal_net_init_args *args);
ucs_status_ptr_t ucx_coll_msg_start(ucp_ep_h ep, uint64_t tag, const void *src, size_t n);
/* Is a message matching `tag` on `mask` among the target's unexpected
 * ones (shoal_net_coll_waiting)? */
int ucx_coll_msg_waiting(ucp_worker_h target, uint64_t tag, uint64_t mask, uint64_t *found);
void ucx_coll_msg_post(ucp_worker_h target, uint64_t tag, void *buf,
                       const struct shoal_net_coll_rx *rx);

#endif
