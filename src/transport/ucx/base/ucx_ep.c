/* Endpoints and remote keys, created on a worker's first operation to a
 * peer (never all-to-all at init: a 1,000-PE job wires only the pairs that
 * talk).  An endpoint connects to the peer's published target worker; the
 * peer's packed keys are unpacked for that endpoint at the same time.
 *
 * A peer that dies shows up as an endpoint error: the job is aborted
 * through the bootstrap (the launcher reports it) instead of hanging. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot.h"
#include "transport/ucx/base/ucx_base.h"

static void ep_failed(void *arg, ucp_ep_h ep, ucs_status_t st)
{
    (void)ep;
    /* In shmem_finalize peers close their connections as they go: no
     * failure (under srun across hosts, 5 clean runs of 20 ended with an
     * "Endpoint timeout" on a connection a peer had just closed). */
    if (ucx_g.finalizing || ucx_g.leaving)
        return;
    int pe = (int)(intptr_t)arg;
    /* A peer that died is usually seen by the launcher too, which ends the
     * job with that PE's own status within a second; wait for that first so
     * the job reports the cause, not this consequence. */
    if (ucx_g.boot && ucx_g.boot->abort) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        for (int i = 0; i < 30 && !ucx_g.finalizing && !ucx_g.leaving; i++)
            nanosleep(&ts, NULL);
    }
    if (ucx_g.finalizing || ucx_g.leaving)
        return;
    ucx_fatalf("network",
               "UCX endpoint to PE %d on host %s failed: %s (the peer exited or is "
               "unreachable); aborting the job",
               pe, ucx_host_of(pe), ucs_status_string(st));
}

/* Error mode PEER lets UCX report a dead peer.  UCX's shared-memory
 * transports cannot detect peer failure and refuse it (with an error
 * message), so peers on this machine are connected without it: a local
 * peer that dies is seen by the launcher, which takes the job down.  An
 * off-node transport that refuses it is retried without. */
static ucs_status_t connect_ep(ucp_worker_h wk, int pe, ucp_ep_h *ep)
{
    ucp_ep_params_t p;
    memset(&p, 0, sizeof p);
    p.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                   UCP_EP_PARAM_FIELD_ERR_HANDLER;
    p.address = (const ucp_address_t *)ucx_g.peer_addr[pe];
    p.err_mode = ucx_g.peer_same_host[pe] ? UCP_ERR_HANDLING_MODE_NONE : UCP_ERR_HANDLING_MODE_PEER;
    p.err_handler.cb = ep_failed;
    p.err_handler.arg = (void *)(intptr_t)pe;
    ucs_status_t st = ucp_ep_create(wk, &p, ep);
    if (st != UCS_OK && p.err_mode == UCP_ERR_HANDLING_MODE_PEER) {
        p.err_mode = UCP_ERR_HANDLING_MODE_NONE;
        st = ucp_ep_create(wk, &p, ep);
    }
    return st;
}

static ucp_ep_h wire(struct ucx_worker *w, int pe, const char *fn, int must)
{
    const int locked = w->mode == UCS_THREAD_MODE_MULTI;
    if (locked)
        pthread_mutex_lock(&w->wire_lock);
    ucp_ep_h ep = w->eps[pe];
    if (ep) {
        if (locked)
            pthread_mutex_unlock(&w->wire_lock);
        return ep;
    }
    ucs_status_t st = connect_ep(w->h, pe, &ep);
    if (st != UCS_OK && !must) {
        if (locked)
            pthread_mutex_unlock(&w->wire_lock);
        return NULL;
    }
    if (st != UCS_OK)
        ucx_fatalf(fn, "cannot connect to PE %d on host %s through UCX (ucp_ep_create): %s", pe,
                   ucx_host_of(pe), ucs_status_string(st));
    for (int s = 0; s < 2; s++) {
        const void *packed = ucx_g.peer_rkey[2 * pe + s];
        if (!packed)
            continue;
        st = ucp_ep_rkey_unpack(ep, packed, &w->rkeys[2 * pe + s]);
        if (st != UCS_OK)
            ucx_fatalf(fn, "cannot unpack the remote key of PE %d's %s (ucp_ep_rkey_unpack): %s",
                       pe, s ? "static data" : "symmetric heap", ucs_status_string(st));
    }
    __atomic_store_n(&w->eps[pe], ep, __ATOMIC_RELEASE);
    if (locked)
        pthread_mutex_unlock(&w->wire_lock);
    return ep;
}

ucp_ep_h ucx_ep_wire(struct ucx_worker *w, int pe, const char *fn)
{
    return wire(w, pe, fn, 1);
}

ucp_ep_h ucx_ep_try(struct ucx_worker *w, int pe, const char *fn)
{
    ucp_ep_h ep = __atomic_load_n(&w->eps[pe], __ATOMIC_ACQUIRE);
    return ep ? ep : wire(w, pe, fn, 0);
}

void ucx_ep_close_all(struct ucx_worker *w)
{
    for (int pe = 0; pe < ucx_g.n_pes; pe++) {
        for (int s = 0; s < 2; s++)
            if (w->rkeys[2 * pe + s]) {
                ucp_rkey_destroy(w->rkeys[2 * pe + s]);
                w->rkeys[2 * pe + s] = NULL;
            }
        ucp_ep_h ep = w->eps[pe];
        if (!ep)
            continue;
        w->eps[pe] = NULL;
        /* Everything is complete (the last barrier quieted it) and peers may
         * already be gone. */
        ucx_ep_close_force(ep, w->h);
    }
}

void ucx_ep_close_force(ucp_ep_h ep, ucp_worker_h wk)
{
    ucp_request_param_t p;
    memset(&p, 0, sizeof p);
    p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    p.flags = UCP_EP_CLOSE_FLAG_FORCE;
    ucs_status_ptr_t r = ucp_ep_close_nbx(ep, &p);
    if (r && !UCS_PTR_IS_ERR(r)) {
        while (ucp_request_check_status(r) == UCS_INPROGRESS)
            ucp_worker_progress(wk);
        ucp_request_free(r);
    }
}

/* Used once at init: which lanes an endpoint to `pe` gets (for the
 * progress-thread decision and shmem-info). */
ucp_ep_h ucx_probe_ep(ucp_worker_h wk, int pe)
{
    ucp_ep_h ep = NULL;
    return connect_ep(wk, pe, &ep) == UCS_OK ? ep : NULL;
}

void ucx_net_leaving(void)
{
    ucx_g.leaving = 1;
}
