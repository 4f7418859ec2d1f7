/* Collectives' signals as one-way messages (shoal_net_signal), where no
 * PE's lanes do atomics in a device (decided job-wide: ucx_lanes.c).
 * There UCX emulates an AMO with the target's CPU: the request goes out,
 * and the target answers with a completion that the sender's next flush
 * needs, so a signal cost two messages and two trips through both PEs'
 * sockets, on the CPUs that run the PEs.  A signal needs no answer (its
 * receiver waits for it), so it travels as one tagged message to the
 * peer's target worker, where one of a pool of posted receives takes it:
 * the completion adds the value to the word with a CPU atomic (the same
 * atomics the emulated AMOs use, so both may meet on one word) and rings
 * the doorbell of waiters asleep.  The message rides the endpoint's
 * active-message lane, the one the emulated AMO took, so a fence orders
 * it after data as it ordered the AMO.
 *
 * A receive is posted again after the target worker's progress returns
 * (ucx_signal_repost), not from its completion: UCX may complete a new
 * receive at once from its queue of unexpected messages. */
#include "transport/ucx/signal/ucx_signal.h"

#include <stdio.h>
#include <string.h>

/* "SHOALSIG": no other tagged traffic shares the workers. */
#define SIG_TAG 0x53484f414c534947ull
#define SIG_SLOTS 64

struct sig_slot {
    struct ucx_signal_msg msg;
    void *req; /* posted receive; NULL while completed */
    struct sig_slot *next_done;
};

static struct sig_slot slots[SIG_SLOTS];
static struct sig_slot *done; /* completed, to post again (under the target's lock) */
static ucp_worker_h target;   /* NULL: no receives posted */
static const struct shoal_net_init_args *hooks;

static void apply(const struct ucx_signal_msg *m)
{
    if (m->len)
        memcpy((void *)(uintptr_t)m->data_addr, m->data, m->len);
    __atomic_add_fetch((uint64_t *)(uintptr_t)m->addr, m->value, __ATOMIC_RELEASE);
    hooks->writes_arrived();
}

static void recv_done(void *req, ucs_status_t st, const ucp_tag_recv_info_t *info, void *arg)
{
    (void)info;
    struct sig_slot *s = arg;
    s->req = NULL;
    ucp_request_free(req);
    if (st != UCS_OK)
        return; /* cancelled at finalize */
    apply(&s->msg);
    s->next_done = done;
    done = s;
}

static void post(struct sig_slot *s)
{
    ucp_request_param_t p;
    p.op_attr_mask =
        UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
    p.cb.recv = recv_done;
    p.user_data = s;
    p.datatype = ucp_dt_make_contig(1);
    for (;;) {
        s->next_done = s; /* not in `done` */
        ucs_status_ptr_t r =
            ucp_tag_recv_nbx(target, &s->msg, sizeof s->msg, SIG_TAG, ~(ucp_tag_t)0, &p);
        if (UCS_PTR_IS_ERR(r)) {
            char msg[160];
            snprintf(msg, sizeof msg, "UCX: posting a receive for collectives' signals failed: %s",
                     ucs_status_string(UCS_PTR_STATUS(r)));
            hooks->fatal("collectives' signals", msg);
        }
        if (r == NULL) { /* taken from the unexpected ones at once */
            apply(&s->msg);
            continue;
        }
        if (s->next_done == s) /* its completion did not run inside the call */
            s->req = r;
        return;
    }
}

void ucx_signal_setup(ucp_worker_h worker, const struct shoal_net_init_args *args)
{
    target = worker;
    hooks = args;
    for (int i = 0; i < SIG_SLOTS; i++)
        post(&slots[i]);
}

void ucx_signal_repost(void)
{
    while (__builtin_expect(done != NULL, 0)) {
        struct sig_slot *s = done;
        done = s->next_done;
        post(s);
    }
}

void ucx_signal_fini(void)
{
    if (!target)
        return;
    done = NULL;
    for (int i = 0; i < SIG_SLOTS; i++)
        if (slots[i].req)
            ucp_request_cancel(target, slots[i].req);
    /* The cancelled receives complete (and are freed) on progress. */
    for (int k = 0; k < 100; k++)
        ucp_worker_progress(target);
    memset(slots, 0, sizeof slots);
    target = NULL;
}

ucs_status_ptr_t ucx_signal_start(struct ucx_signal_msg *m, ucp_ep_h ep, uint64_t raddr,
                                  uint64_t value, uint64_t rdata, const void *src, size_t n)
{
    m->addr = raddr;
    m->value = value;
    m->data_addr = rdata;
    m->len = n;
    if (n)
        memcpy(m->data, src, n);
    ucp_request_param_t p;
    /* Complete once copied out (UCX 1.22's plain tagged send of a few bytes
     * is zero-copy over tcp). */
    p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FLAG_FAST_CMPL;
    p.datatype = ucp_dt_make_contig(1);
    return ucp_tag_send_nbx(ep, m, offsetof(struct ucx_signal_msg, data) + n, SIG_TAG, &p);
}
