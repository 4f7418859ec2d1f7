/* Looks at a peer that never block: its word (shoal_net_peek: whether a
 * peer a collective waits for has left the job) and blocks of its memory
 * (shoal_net_look_start: its collective call records).  Reads on an
 * endpoint of their own whose queue takes an entry per read, tested on
 * later calls instead of waited for, so that a peer that does not answer
 * (computing, stopped, or dead) leaves the caller free to go on with its
 * wait and its other checks.  A read goes to a peer this endpoint never
 * addressed only where the caller says the peer's host answers (rxm
 * connects on the first operation to a peer).  One thread at a time reads
 * the queue; another finds "no answer yet". */
#include <stdlib.h>
#include <string.h>

#include "transport/ofi/ofi_internal.h"
#include "transport/ofi/ofi_msgs.h"

struct peek_slot {
    struct fi_context2 fi_ctx; /* first: the provider's, where it asks for FI_CONTEXT(2) */
    uint32_t val;              /* the read's destination */
    int state;                 /* PEEK_IDLE, PEEK_OUT, PEEK_DONE */
};
enum { PEEK_IDLE, PEEK_OUT, PEEK_DONE };

/* The block looks, by ticket.  A look the provider refused for now
 * (-FI_EAGAIN: rxm still connects) keeps its arguments and is posted
 * again by the next test. */
#define LOOKS 64
struct look {
    struct fi_context2 fi_ctx; /* first: the provider's, where it asks for FI_CONTEXT(2) */
    int state; /* LOOK_*; changed by the thread holding the ticket or the queue's reader */
    int pe;
    void *dest;
    size_t n;
    uint64_t raddr, key;
    struct ofi_local reg; /* dest's registration (FI_MR_LOCAL), until the look ends */
};
enum { LOOK_FREE, LOOK_TAKEN, LOOK_AGAIN, LOOK_FLIGHT, LOOK_DONE, LOOK_FAILED };

static struct ofi_ep peek_ep;
static struct peek_slot *slots;
static unsigned char *addressed;   /* [pe]: peek_ep posted to it (its connection is made) */
static struct ofi_local slots_reg; /* the slots' registration (FI_MR_LOCAL) */
static struct look looks[LOOKS];
static pthread_mutex_t peek_lock = PTHREAD_MUTEX_INITIALIZER;

int ofi_peek_init(char *err, size_t errlen)
{
    slots = calloc((size_t)ofi_g.n_pes, sizeof *slots);
    addressed = calloc((size_t)ofi_g.n_pes, 1);
    if (!slots || !addressed) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (ofi_ep_open(&peek_ep, 0, err, errlen) < 0)
        return -1;
    ofi_local_get(&peek_ep, slots, (size_t)ofi_g.n_pes * sizeof *slots, OFI_LOCAL_KEEP, &slots_reg,
                  "shmem_init");
    return 0;
}

/* Looks in flight fail (their tickets test -1); closing the endpoint
 * cancels their reads. */
void ofi_peek_fini(void)
{
    for (int k = 0; k < LOOKS; k++) {
        const int st = __atomic_load_n(&looks[k].state, __ATOMIC_ACQUIRE);
        if (st == LOOK_AGAIN || st == LOOK_FLIGHT)
            __atomic_store_n(&looks[k].state, LOOK_FAILED, __ATOMIC_RELEASE);
    }
    if (peek_ep.ep)
        ofi_ep_close(&peek_ep);
    for (int k = 0; k < LOOKS; k++)
        ofi_local_done(&peek_ep, &looks[k].reg);
    ofi_local_done(&peek_ep, &slots_reg);
    free(slots);
    free(addressed);
    slots = NULL;
    addressed = NULL;
}

static struct look *look_of(void *ctx)
{
    const uintptr_t c = (uintptr_t)ctx, first = (uintptr_t)looks;
    return c - first < sizeof looks ? ctx : NULL;
}

/* A failed read: a look's says nothing (its ticket tests -1); a peek's is
 * fatal, except in finalize, where a peer that closed its connections left
 * (SHOAL_LEFT_FINALIZE). */
static void read_failed(const char *fn)
{
    struct fi_cq_err_entry ee = {0};
    if (fi_cq_readerr(peek_ep.cq, &ee, 0) < 1 || !ee.op_context)
        return;
    struct look *l = look_of(ee.op_context);
    if (l) {
        __atomic_store_n(&l->state, LOOK_FAILED, __ATOMIC_RELEASE);
        return;
    }
    struct peek_slot *s = ee.op_context;
    if (!__atomic_load_n(&ofi_g.leaving, __ATOMIC_RELAXED))
        ofi_fatalf(fn, "libfabric (%s): a read of PE %d's word failed: %s",
                   ofi_g.info->fabric_attr->prov_name, (int)(s - slots), ofi_strerror(ee.err));
    s->val = 1; /* SHOAL_LEFT_FINALIZE */
    s->state = PEEK_DONE;
}

/* The answers that came: each entry's context is its slot or look.  Under
 * peek_lock. */
static void harvest(const char *fn)
{
    struct fi_cq_entry ent[8];
    ssize_t n;
    while ((n = fi_cq_read(peek_ep.cq, ent, 8)) > 0)
        for (ssize_t i = 0; i < n; i++) {
            struct look *l = look_of(ent[i].op_context);
            if (l)
                __atomic_store_n(&l->state, LOOK_DONE, __ATOMIC_RELEASE);
            else
                ((struct peek_slot *)ent[i].op_context)->state = PEEK_DONE;
        }
    if (n == -FI_EAVAIL)
        read_failed(fn);
}

/* Whether a read to pe may go: through a connection made before, or a new
 * one where the caller allows it or pe's signals arrive (its host
 * answers: a mismatch found in a signal's signature names the sender's
 * call from its records at once, ofi_msgs.h). */
static int may_address(int pe, int connect)
{
    if (__atomic_load_n(&addressed[pe], __ATOMIC_ACQUIRE))
        return 1;
    if (!connect && !ofi_msgs_heard(pe))
        return 0;
    __atomic_store_n(&addressed[pe], 1, __ATOMIC_RELEASE);
    return 1;
}

int ofi_net_wired(int pe)
{
    return addressed && pe >= 0 && pe < ofi_g.n_pes &&
           __atomic_load_n(&addressed[pe], __ATOMIC_ACQUIRE);
}

static void start(struct peek_slot *s, int pe, const void *addr, const char *fn)
{
    uint64_t ra, key;
    ofi_target(addr, pe, &ra, &key, fn);
    void *desc = ofi_desc(&slots_reg, &s->val, sizeof s->val, fn);
    ssize_t rc = fi_read(peek_ep.ep, &s->val, sizeof s->val, desc, (fi_addr_t)pe, ra, key, s);
    if (rc == 0)
        s->state = PEEK_OUT;
    else if (rc != -FI_EAGAIN) /* -FI_EAGAIN: the next look tries again */
        ofi_die(fn, pe, "read (a look at the peer)", rc);
}

int ofi_net_peek(int pe, const void *addr, uint32_t *value, int connect, const char *fn)
{
    if (pthread_mutex_trylock(&peek_lock))
        return 0;
    harvest(fn);
    ofi_progress_target();
    struct peek_slot *s = &slots[pe];
    int got = 0;
    if (s->state == PEEK_DONE) {
        *value = s->val;
        s->state = PEEK_IDLE;
        got = 1;
    } else if (s->state == PEEK_IDLE && may_address(pe, connect)) {
        start(s, pe, addr, fn);
    }
    pthread_mutex_unlock(&peek_lock);
    return got;
}

/* Posts look l's read: LOOK_FLIGHT, LOOK_AGAIN (the provider asks to try
 * later), or LOOK_FAILED.  By the ticket's holder. */
static void look_post(struct look *l)
{
    __atomic_store_n(&l->state, LOOK_FLIGHT, __ATOMIC_RELEASE);
    const ssize_t rc = fi_read(peek_ep.ep, l->dest, l->n, ofi_desc(&l->reg, l->dest, l->n, "look"),
                               (fi_addr_t)l->pe, l->raddr, l->key, l);
    if (rc)
        __atomic_store_n(&l->state, rc == -FI_EAGAIN ? LOOK_AGAIN : LOOK_FAILED, __ATOMIC_RELEASE);
}

int ofi_net_look_start(void *dest, const void *src, size_t n, int pe, int connect, const char *fn)
{
    uint64_t ra, key;
    if (!slots || pe < 0 || pe >= ofi_g.n_pes || n > ofi_g.max_msg ||
        ofi_target_try(src, pe, &ra, &key) < 0 || !may_address(pe, connect))
        return -1;
    for (int k = 0; k < LOOKS; k++) {
        int free_ = LOOK_FREE;
        if (!__atomic_compare_exchange_n(&looks[k].state, &free_, LOOK_TAKEN, 0, __ATOMIC_ACQUIRE,
                                         __ATOMIC_RELAXED))
            continue;
        looks[k].pe = pe;
        looks[k].dest = dest;
        looks[k].n = n;
        looks[k].raddr = ra;
        looks[k].key = key;
        ofi_local_get(&peek_ep, dest, n, OFI_LOCAL_KEEP, &looks[k].reg, fn);
        look_post(&looks[k]);
        if (__atomic_load_n(&looks[k].state, __ATOMIC_ACQUIRE) != LOOK_FAILED)
            return k;
        ofi_local_done(&peek_ep, &looks[k].reg);
        __atomic_store_n(&looks[k].state, LOOK_FREE, __ATOMIC_RELEASE);
        return -1;
    }
    return -1;
}

int ofi_net_look_test(int ticket, const char *fn)
{
    if (ticket < 0 || ticket >= LOOKS)
        return -1;
    struct look *l = &looks[ticket];
    if (slots && !pthread_mutex_trylock(&peek_lock)) {
        harvest(fn);
        pthread_mutex_unlock(&peek_lock);
    }
    const int st = __atomic_load_n(&l->state, __ATOMIC_ACQUIRE);
    if (st == LOOK_AGAIN && slots)
        look_post(l);
    if (st == LOOK_AGAIN || st == LOOK_FLIGHT)
        return 0;
    if (slots)
        ofi_local_done(&peek_ep, &l->reg);
    __atomic_store_n(&l->state, LOOK_FREE, __ATOMIC_RELEASE);
    return st == LOOK_DONE ? 1 : -1;
}
