/* Waiting, progress and errors.  A wait polls what it waits for (reading
 * an endpoint's counter or queue is what drives a provider with manual
 * progress) and the target endpoint (two PEs blocked on gets from each
 * other must both serve the other's); past a short spin it yields, says
 * so to the hang report (net_blocked), and a second in asks the core
 * every few ms whether its peer is still there (peer_watch).  It never
 * naps, and never takes the network's silence for a death: a peer may
 * compute without progressing, or be stopped in a debugger. */
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

#include "boot/boot.h"
#include "transport/ofi/ofi_internal.h"
#include "transport/ofi/ofi_msgs.h"

#define OFI_SPIN_NS 5000u
#define OFI_WATCH_AFTER_NS 1000000000u
#define OFI_WATCH_EVERY_NS 5000000u

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void ofi_fatalf(const char *fn, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ofi_g.hooks->fatal(fn, msg);
    abort(); /* the hook never returns */
}

void ofi_forked_child(const char *fn)
{
    char msg[256];
    if (shoal_boot_check_owner(ofi_g.owner_pid, ofi_g.me,
                               "network state (libfabric endpoints and connections)", msg,
                               sizeof msg) == 0)
        snprintf(msg, sizeof msg, "libfabric was used after fork");
    ofi_fatalf(fn, "%s: a forked child cannot communicate through it", msg);
}

static const char *host_of(int pe)
{
    const char *h = pe >= 0 && ofi_g.hooks->host_of ? ofi_g.hooks->host_of(pe) : NULL;
    return h ? h : "?";
}

void ofi_die(const char *fn, int pe, const char *what, ssize_t rc)
{
    if (pe >= 0)
        ofi_fatalf(fn, "libfabric (%s): %s to PE %d (on %s) failed: %s",
                   ofi_g.info->fabric_attr->prov_name, what, pe, host_of(pe),
                   ofi_strerror((int)-rc));
    ofi_fatalf(fn, "libfabric (%s): %s failed: %s", ofi_g.info->fabric_attr->prov_name, what,
               ofi_strerror((int)-rc));
}

/* An error entry of e's queue: an operation waited for by itself gets
 * its error (its waiter reports it); any other is fatal, with the
 * provider's own words, except after this PE entered shmem_finalize,
 * where a peer that closed its connections is no failure. */
static void queue_error(struct ofi_ep *e, const char *fn)
{
    struct fi_cq_err_entry ee = {0};
    char buf[256];
    if (fi_cq_readerr(e->cq, &ee, 0) < 1)
        return;
    if (ee.op_context && e == &ofi_g.target) { /* a receive's (ofi_msgs.h) */
        struct ofi_rx *rx = ee.op_context;
        rx->done(rx, ee.len, ee.tag, ee.err ? ee.err : FI_EIO, ee.olen);
        return;
    }
    struct ofi_op *op = ofi_ctx_in_ring(e, ee.op_context) ? NULL : ee.op_context;
    if (op) {
        op->err = ee.err ? ee.err : FI_EIO;
        __atomic_store_n(&op->done, 1, __ATOMIC_RELEASE);
        return;
    }
    if (__atomic_load_n(&ofi_g.leaving, __ATOMIC_RELAXED))
        return;
    const char *detail = fi_cq_strerror(e->cq, ee.prov_errno, ee.err_data, buf, sizeof buf);
    ofi_fatalf(fn, "libfabric (%s): an operation failed: %s (%s)",
               ofi_g.info->fabric_attr->prov_name, ofi_strerror(ee.err),
               detail ? detail : "no detail");
}

/* Only operations waited for by themselves ask for an entry: each names
 * its struct ofi_op. */
void ofi_ep_poll(struct ofi_ep *e, const char *fn)
{
    struct fi_cq_entry ent[16];
    ssize_t n = fi_cq_read(e->cq, ent, 16);
    for (ssize_t i = 0; i < n; i++)
        if (ent[i].op_context)
            __atomic_store_n(&((struct ofi_op *)ent[i].op_context)->done, 1, __ATOMIC_RELEASE);
    if (OFI_UNLIKELY(n == -FI_EAVAIL))
        queue_error(e, fn);
}

/* The target's queue holds the completions of the receives posted on it
 * (tagged entries: each names its struct ofi_rx).  One thread at a time
 * reads it and hands its entries on, so that active messages reach the
 * core in the order they arrived (another finds nothing to do). */
static pthread_mutex_t target_reader = PTHREAD_MUTEX_INITIALIZER;

int ofi_progress_target(void)
{
    if (pthread_mutex_trylock(&target_reader))
        return 0;
    struct fi_cq_tagged_entry ent[8];
    ssize_t n = fi_cq_read(ofi_g.target.cq, ent, 8);
    for (ssize_t i = 0; i < n; i++) {
        struct ofi_rx *rx = ent[i].op_context;
        if (rx)
            rx->done(rx, ent[i].len, ent[i].tag, 0, 0);
    }
    if (OFI_UNLIKELY(n == -FI_EAVAIL))
        queue_error(&ofi_g.target, "(progress)");
    pthread_mutex_unlock(&target_reader);
    return n > 0;
}

void ofi_slow_turn(struct ofi_slow *s, struct ofi_ep *e, const char *fn, int pe, const char *what)
{
    if (e)
        ofi_ep_poll(e, fn);
    ofi_progress_target();
    ofi_net_attend();
    uint64_t now = now_ns();
    if (!s->t0) {
        s->t0 = now;
        s->next_watch = now + OFI_WATCH_AFTER_NS;
        return;
    }
    if (now - s->t0 < OFI_SPIN_NS)
        return;
    if (!s->noted && ofi_g.hooks->net_blocked) {
        ofi_g.hooks->net_blocked(fn, pe, what);
        s->noted = 1;
    }
    if (now >= s->next_watch && ofi_g.hooks->peer_watch &&
        !__atomic_load_n(&ofi_g.leaving, __ATOMIC_RELAXED)) {
        s->next_watch = now + OFI_WATCH_EVERY_NS;
        ofi_g.hooks->peer_watch(pe, fn, what);
    }
    sched_yield();
}

void ofi_slow_end(struct ofi_slow *s)
{
    if (s->noted)
        ofi_g.hooks->net_unblocked();
}

void ofi_wait_op(struct ofi_ep *e, struct ofi_op *op, const char *fn, int pe, const char *what)
{
    ofi_ep_poll(e, fn);
    if (!__atomic_load_n(&op->done, __ATOMIC_ACQUIRE)) {
        struct ofi_slow s = {0, 0, 0};
        while (!__atomic_load_n(&op->done, __ATOMIC_ACQUIRE))
            ofi_slow_turn(&s, e, fn, pe, what);
        ofi_slow_end(&s);
    }
    if (OFI_UNLIKELY(op->err) && !__atomic_load_n(&ofi_g.leaving, __ATOMIC_RELAXED))
        ofi_die(fn, pe, what, -op->err);
}

/* A counter's errors: fatal (operations without an entry of their own
 * also write an error entry, which says more). */
static void check_errors(struct ofi_ep *e, struct fid_cntr *c, const char *fn)
{
    if (OFI_LIKELY(fi_cntr_readerr(c) == 0) || __atomic_load_n(&ofi_g.leaving, __ATOMIC_RELAXED))
        return;
    queue_error(e, fn);
    ofi_die(fn, -1, "an operation", -FI_EIO);
}

/* Counters read before the counts: completions never outnumber the
 * counts (each is raised before its post), so a counter that reaches the
 * count read after it means every operation counted when it was read is
 * complete.  Failed operations complete too (in error: fatal, except in
 * finalize). */
static int counters_quiet(struct ofi_ep *e)
{
    const uint64_t put = fi_cntr_read(e->put) + fi_cntr_readerr(e->put);
    const uint64_t get = fi_cntr_read(e->get) + fi_cntr_readerr(e->get);
    return put >= __atomic_load_n(&e->put_posted, __ATOMIC_SEQ_CST) &&
           get >= __atomic_load_n(&e->get_posted, __ATOMIC_SEQ_CST);
}

/* Quiet also frees what the operations counted before it held: their
 * contexts and registrations (ofi_modes.c), marked before the counters
 * are read. */
int ofi_is_quiet(struct ofi_ep *e, const char *fn)
{
    struct ofi_modes_mark m;
    ofi_modes_mark(e, &m);
    ofi_ep_poll(e, fn);
    check_errors(e, e->put, fn);
    check_errors(e, e->get, fn);
    if (!counters_quiet(e))
        return 0;
    ofi_modes_quiet(e, &m);
    return 1;
}

void ofi_wait_quiet(struct ofi_ep *e, const char *fn, int pe, const char *what)
{
    struct ofi_modes_mark m;
    ofi_modes_mark(e, &m);
    if (OFI_LIKELY(counters_quiet(e))) {
        ofi_modes_quiet(e, &m);
        return;
    }
    if (OFI_UNLIKELY(ofi_g.forked))
        ofi_forked_child(fn);
    struct ofi_slow s = {0, 0, 0};
    while (!ofi_is_quiet(e, fn))
        ofi_slow_turn(&s, e, fn, pe, what);
    ofi_slow_end(&s);
}
