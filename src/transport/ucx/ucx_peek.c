/* Looks at a peer's word that never block (shoal_net_peek: whether a
 * peer a collective waits for has left the job): a get on the target
 * worker's sender, tested on later calls instead of waited for, so that a
 * peer that does not answer (computing, stopped, or dead) leaves the
 * caller free to go on with its wait and its other checks. */
#include <stdlib.h>

#include "transport/ucx/ucx_internal.h"

struct peek_slot {
    ucs_status_ptr_t req; /* in flight (NULL: none, or done at once) */
    uint32_t val;         /* the get's destination */
    int busy;             /* a thread is using this slot */
    int done;             /* val holds an answer not yet returned */
};

static struct peek_slot *slots;

int ucx_peek_init(void)
{
    slots = calloc((size_t)ucx_g.n_pes, sizeof *slots);
    return slots ? 0 : -1;
}

/* Before the workers go: requests still in flight are given back (their
 * endpoints are closed by force next). */
void ucx_peek_fini(void)
{
    if (!slots)
        return;
    for (int pe = 0; pe < ucx_g.n_pes; pe++)
        if (slots[pe].req) {
            ucp_request_cancel(ucx_g.target, slots[pe].req);
            ucp_request_free(slots[pe].req);
            slots[pe].req = NULL;
        }
}

void ucx_peek_release(void)
{
    free(slots);
    slots = NULL;
}

static void start(struct peek_slot *s, struct ucx_worker *w, int pe, const void *addr,
                  const char *fn)
{
    ucs_status_ptr_t r = ucx_start_get(w, &s->val, addr, sizeof s->val, pe, fn);
    if (UCS_PTR_IS_ERR(r))
        ucx_die(fn, pe, "get (a look at the peer)", UCS_PTR_STATUS(r));
    s->req = r;
    s->done = r == NULL;
}

int shoal_net_peek(int pe, const void *addr, uint32_t *value, const char *fn)
{
    struct peek_slot *s = &slots[pe];
    if (__atomic_exchange_n(&s->busy, 1, __ATOMIC_ACQUIRE))
        return 0; /* another thread looks at this peer */
    struct ucx_worker *w = ucx_target_sender(fn);
    int got = 0;
    /* A peer that cannot be connected to any more (it left: under mpirun,
     * "Destination is unreachable" once its process ended) has no answer;
     * whether it is gone is the core's question (peer_reach.h). */
    if (!s->req && !s->done && ucx_ep_try(w, pe, fn)) {
        start(s, w, pe, addr, fn);
    } else if (s->req) {
        ucx_progress_target();
        ucs_status_t st = ucp_request_check_status(s->req);
        if (st != UCS_INPROGRESS) {
            ucp_request_free(s->req);
            s->req = NULL;
            if (st != UCS_OK && !ucx_g.leaving)
                ucx_die(fn, pe, "get (a look at the peer)", st);
            s->done = 1; /* after a failure in finalize: the peer closed, it left */
            if (st != UCS_OK)
                s->val = 1; /* SHOAL_LEFT_FINALIZE */
        }
    }
    if (s->done) {
        *value = s->val;
        s->done = 0;
        got = 1;
    }
    __atomic_store_n(&s->busy, 0, __ATOMIC_RELEASE);
    return got;
}
