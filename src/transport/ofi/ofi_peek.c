/* Looks at a peer's word that never block (shoal_net_peek: whether a peer
 * a collective waits for has left the job): a read on an endpoint of their
 * own whose queue takes an entry per read, tested on later calls instead
 * of waited for, so that a peer that does not answer (computing, stopped,
 * or dead) leaves the caller free to go on with its wait and its other
 * checks.  One thread at a time looks; another returns "no answer yet". */
#include <stdlib.h>
#include <string.h>

#include "transport/ofi/ofi_internal.h"

struct peek_slot {
    uint32_t val; /* the read's destination */
    int state;    /* PEEK_IDLE, PEEK_OUT, PEEK_DONE */
};
enum { PEEK_IDLE, PEEK_OUT, PEEK_DONE };

static struct ofi_ep peek_ep;
static struct peek_slot *slots;
static pthread_mutex_t peek_lock = PTHREAD_MUTEX_INITIALIZER;

int ofi_peek_init(char *err, size_t errlen)
{
    slots = calloc((size_t)ofi_g.n_pes, sizeof *slots);
    if (!slots) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return ofi_ep_open(&peek_ep, 0, err, errlen);
}

void ofi_peek_fini(void)
{
    if (peek_ep.ep)
        ofi_ep_close(&peek_ep);
    free(slots);
    slots = NULL;
}

/* The answers that came: each entry's context is its slot.  A read that
 * failed says nothing of the peer, except in finalize, where a peer that
 * closed its connections left (SHOAL_LEFT_FINALIZE). */
static void harvest(const char *fn)
{
    struct fi_cq_entry ent[8];
    ssize_t n;
    while ((n = fi_cq_read(peek_ep.cq, ent, 8)) > 0)
        for (ssize_t i = 0; i < n; i++)
            ((struct peek_slot *)ent[i].op_context)->state = PEEK_DONE;
    if (n != -FI_EAVAIL)
        return;
    struct fi_cq_err_entry ee = {0};
    if (fi_cq_readerr(peek_ep.cq, &ee, 0) < 1 || !ee.op_context)
        return;
    struct peek_slot *s = ee.op_context;
    if (!__atomic_load_n(&ofi_g.leaving, __ATOMIC_RELAXED))
        ofi_fatalf(fn, "libfabric (%s): a read of PE %d's word failed: %s",
                   ofi_g.info->fabric_attr->prov_name, (int)(s - slots), fi_strerror(ee.err));
    s->val = 1; /* SHOAL_LEFT_FINALIZE */
    s->state = PEEK_DONE;
}

static void start(struct peek_slot *s, int pe, const void *addr, const char *fn)
{
    uint64_t ra, key;
    ofi_target(addr, pe, &ra, &key, fn);
    ssize_t rc = fi_read(peek_ep.ep, &s->val, sizeof s->val, NULL, (fi_addr_t)pe, ra, key, s);
    if (rc == 0)
        s->state = PEEK_OUT;
    else if (rc != -FI_EAGAIN) /* -FI_EAGAIN: the next look tries again */
        ofi_die(fn, pe, "read (a look at the peer)", rc);
}

int ofi_net_peek(int pe, const void *addr, uint32_t *value, const char *fn)
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
    } else if (s->state == PEEK_IDLE) {
        start(s, pe, addr, fn);
    }
    pthread_mutex_unlock(&peek_lock);
    return got;
}
