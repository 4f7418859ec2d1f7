/* Looks at a peer that never block: its word (shoal_net_peek: whether a
 * peer a collective waits for has left the job) and blocks of its memory
 * (shoal_net_look_start: its collective call records).  Gets on the target
 * worker's sender, tested on later calls instead of waited for, so that a
 * peer that does not answer (computing, stopped, or dead) leaves the
 * caller free to go on with its wait and its other checks; an endpoint is
 * made only where the caller says the peer's host answers (UCX's tcp
 * connects blocking by default). */
#include <stdlib.h>

#include "transport/ucx/ucx_internal.h"

struct peek_slot {
    ucs_status_ptr_t req; /* in flight (NULL: none, or done at once) */
    uint32_t val;         /* the get's destination */
    int busy;             /* a thread is using this slot */
    int done;             /* val holds an answer not yet returned */
};

static struct peek_slot *slots;

/* The block looks in flight, by ticket; taken and given back by their
 * threads, cancelled at the end. */
#define LOOKS 64
static struct {
    ucs_status_ptr_t req;
    int state; /* LOOK_FREE, LOOK_TAKEN (by its thread), LOOK_FLIGHT (req set) */
} looks[LOOKS];
enum { LOOK_FREE, LOOK_TAKEN, LOOK_FLIGHT };

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
    for (int k = 0; k < LOOKS; k++)
        if (__atomic_exchange_n(&looks[k].state, LOOK_TAKEN, __ATOMIC_ACQ_REL) == LOOK_FLIGHT) {
            ucp_request_cancel(ucx_g.target, looks[k].req);
            ucp_request_free(looks[k].req);
            looks[k].req = NULL;
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

/* The target worker's sender reaches pe: through the endpoint it has, or
 * one made now where `connect`. */
static struct ucx_worker *reach(int pe, int connect, const char *fn)
{
    struct ucx_worker *w = connect ? ucx_target_sender(fn) : ucx_target_sender_if_any();
    if (!w || !(connect ? ucx_ep_try(w, pe, fn) : __atomic_load_n(&w->eps[pe], __ATOMIC_ACQUIRE)))
        return NULL;
    return w;
}

int ucx_net_wired(int pe)
{
    return reach(pe, 0, NULL) != NULL;
}

int ucx_net_look_start(void *dest, const void *src, size_t n, int pe, int connect, const char *fn)
{
    struct ucx_worker *w = reach(pe, connect, fn);
    if (!w)
        return -1;
    for (int k = 0; k < LOOKS; k++) {
        int free_ = LOOK_FREE;
        if (!__atomic_compare_exchange_n(&looks[k].state, &free_, LOOK_TAKEN, 0, __ATOMIC_ACQUIRE,
                                         __ATOMIC_RELAXED))
            continue;
        ucs_status_ptr_t r = ucx_start_get(w, dest, src, n, pe, fn);
        if (UCS_PTR_IS_ERR(r)) {
            __atomic_store_n(&looks[k].state, LOOK_FREE, __ATOMIC_RELEASE);
            return -1;
        }
        looks[k].req = r;
        if (r)
            __atomic_store_n(&looks[k].state, LOOK_FLIGHT, __ATOMIC_RELEASE);
        return k; /* TAKEN with req NULL: complete at once */
    }
    return -1;
}

int ucx_net_look_test(int ticket, const char *fn)
{
    (void)fn;
    if (ticket < 0 || ticket >= LOOKS)
        return -1;
    if (__atomic_load_n(&looks[ticket].state, __ATOMIC_ACQUIRE) == LOOK_FLIGHT) {
        ucx_progress_target();
        ucs_status_t st = ucp_request_check_status(looks[ticket].req);
        if (st == UCS_INPROGRESS)
            return 0;
        int flight = LOOK_FLIGHT;
        if (!__atomic_compare_exchange_n(&looks[ticket].state, &flight, LOOK_TAKEN, 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            return -1; /* cancelled at the end */
        ucp_request_free(looks[ticket].req);
        looks[ticket].req = NULL;
        __atomic_store_n(&looks[ticket].state, LOOK_FREE, __ATOMIC_RELEASE);
        return st == UCS_OK ? 1 : -1;
    }
    __atomic_store_n(&looks[ticket].state, LOOK_FREE, __ATOMIC_RELEASE);
    return 1;
}

int ucx_net_peek(int pe, const void *addr, uint32_t *value, int connect, const char *fn)
{
    struct peek_slot *s = &slots[pe];
    if (__atomic_exchange_n(&s->busy, 1, __ATOMIC_ACQUIRE))
        return 0; /* another thread looks at this peer */
    struct ucx_worker *w = s->req || s->done ? NULL : reach(pe, connect, fn);
    int got = 0;
    /* A peer that cannot be connected to any more (it left: under mpirun,
     * "Destination is unreachable" once its process ended) has no answer;
     * whether it is gone is the core's question (peer_reach.h). */
    if (w) {
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
