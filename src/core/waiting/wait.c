/* The wait engine and the point-to-point synchronization routines.
 *
 * A waiter spins with `pause`, then (oversubscribed only) yields, then
 * sleeps on the doorbell of the PE that owns the watched memory; how long
 * each phase lasts follows the placement (core/waiting/wait_policy.h).  Writers
 * ring that doorbell only when it is armed, once per sleep episode, and no
 * wake-up is lost (transport/shm/shm_doorbell.h): the sleep's timeout is a
 * safety net. */
#include "core/waiting/wait.h"

#include <sched.h>
#include <stdint.h>
#include <time.h>

#include "core/ext_hooks.h"
#include "core/ops.h"
#include "core/waiting/peer_check.h"
#include "core/waiting/wait_learn.h"
#include "core/waiting/wait_policy.h"
#include "core/waiting/wait_record.h"
#include "core/waiting/wait_slice.h"

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

void (*shoal_wait_calls_check)(struct shoal_waiter *w, uint64_t now);
void (*shoal_wait_calls_end)(void);

void shoal_waiter_init(struct shoal_waiter *w, int owner_slot, const char *fn, const void *addr)
{
    w->owner_slot = owner_slot;
    w->iter = 0;
    w->t0 = 0;
    /* Set at the first backoff (t0 == 0); set here too because gcc 12
     * cannot always follow that and warns (-Werror) where it inlines. */
    w->phase = NULL;
    w->sleep_ns = shoal_wait_p.sleep_ns;
    w->next_peer_check = 0;
    w->fn = fn;
    w->addr = addr;
    w->looked = 0;
    w->spin_ns = 0;
    w->adapting = 0;
    w->sleep_now = 0;
    w->short_slice = 0;
    w->relooked = 0;
}

/* The wait's spin: its phase's, or in a learning phase what the thread
 * learned (wait_learn.h). */
static void choose_spin(struct shoal_waiter *w)
{
    w->adapting = 0;
    w->sleep_now = 0;
    w->spin_ns = w->phase->spin_ns;
    if (w->phase->learn)
        shoal_learn_choose(w);
}

void shoal_waiter_done(struct shoal_waiter *w)
{
    if (!w->t0)
        return;
    if (shoal_wait_calls_end)
        shoal_wait_calls_end();
    shoal_wait_record_end();
    if (w->adapting)
        shoal_learn_done(w);
    if (w->short_slice)
        shoal_slice_restore(w);
}

void shoal_wait_counters(unsigned long long *sleeps, unsigned long long *wakes,
                         unsigned long long *late_timeouts)
{
    struct shoal_doorbell_stats s;
    shoal_doorbell_stats(&s);
    *sleeps = s.sleeps;
    *wakes = s.wakes;
    *late_timeouts = s.late_timeouts;
}

/* Memory written through the network changes only as the transport
 * progresses, and RDMA writes ring no doorbell: a waiter progresses the
 * network on every turn and never sleeps long while a network serves it. */
#define NET_SLEEP_MAX_NS 50000

/* Active messages (or any extension's work, core/ext_hooks.h): a waiting
 * thread runs pending handlers on its first turn and every AM_SERVE_EVERY
 * turns after (ext/am/am.h), and does not go to sleep while some are
 * pending (senders ring this PE's doorbell, so a sleep on it ends when
 * one arrives).  Looking on every turn (some 15
 * loads on as many lines) made the spin slower to see its own word:
 * pingpong's 8-byte put half round trip rose from 0.92x to 0.98x the
 * cache-line floor (0.94x now); a handler waits at most 7 turns of the
 * spin longer (shmemx_am_poll looks every time). */
#define AM_SERVE_EVERY 8u
struct ready_or_ext {
    int (*ready)(void *);
    void *arg;
};

static int ready_or_ext(void *p)
{
    const struct ready_or_ext *r = p;
    return shoal_ext_pending() || (r->ready && r->ready(r->arg));
}

/* A thread's first wait that blocks looks at the placement again (unless
 * the last look is a relook's time old at most): the job's threads have
 * changed since it began.  A job's first look is often made before its
 * threads exist, and the next one came 50 ms later: in thread_handoff (2
 * PEs as pretend nodes, 3000 items in 5-10 ms) the PEs found their threads
 * oversubscribed 25-55 ms after start, now at the threads' first waits. */
static __thread int thread_has_waited;

static const struct shoal_wait_phase *first_phase(uint64_t now_ns)
{
    if (SHOAL_LIKELY(thread_has_waited))
        return shoal_wait_phase_now(now_ns);
    thread_has_waited = 1;
    return shoal_wait_phase_relook(now_ns);
}

void shoal_backoff(struct shoal_waiter *w, int (*ready)(void *), void *arg)
{
    w->iter++;
    int moved = 0;
    if (shoal_g.net_active) {
        moved = shoal_net_progress();
        if (w->sleep_ns > NET_SLEEP_MAX_NS)
            w->sleep_ns = NET_SLEEP_MAX_NS;
    }
    if ((w->iter & (AM_SERVE_EVERY - 1)) == 1)
        shoal_ext_serve(w->fn);
    if (w->t0 == 0) {
        w->t0 = shoal_now_ns();
        w->phase = first_phase(w->t0);
        choose_spin(w);
        shoal_wait_record_begin(w->fn, w->addr, w->t0);
        return;
    }
    const struct shoal_wait_phase *ph = w->phase;
    if ((w->iter & (unsigned)(ph->check_every - 1)) != 0) {
        cpu_relax();
        return;
    }
    uint64_t now = shoal_now_ns(), dt = now - w->t0;
    shoal_peer_check(w, now, ready, arg);
    if (shoal_wait_calls_check)
        shoal_wait_calls_check(w, now);
    if (SHOAL_UNLIKELY(__atomic_load_n(&shoal_my_ctl()->global_exit, __ATOMIC_RELAXED)))
        shoal_global_exit_notice();
    /* The network handled something, perhaps what this waiter waits for:
     * look again before giving the CPU away.  A yield after every
     * progress call cost oversubscribed PEs a context switch per message:
     * a barrier of 8 PEs on 2 cores over tcp, each PE a pretend node, took
     * 217-244 us with 42 switches, 147-210 us with 22 after this (Open
     * MPI, whose waiters yield only when a progress call found nothing:
     * 126-151 us, 14 switches).  Every other turn at most: a waiter that
     * serves a stream of peers' requests still yields, so that a
     * requester on its CPU runs. */
    if (moved && !w->looked) {
        w->looked = 1;
        cpu_relax();
        return;
    }
    w->looked = 0;
    if (SHOAL_UNLIKELY(dt >= SHOAL_WAIT_RELOOK_NS) && ph == &shoal_wait_p.fit && !w->relooked) {
        w->relooked = 1;
        if ((w->phase = shoal_wait_phase_relook(now)) != ph) {
            choose_spin(w);
            return;
        }
    }
    if (dt < w->spin_ns || shoal_wait_p.never_sleep) {
        cpu_relax();
        return;
    }
    if (w->adapting)
        shoal_learn_spin_failed(w);
    if (dt < w->spin_ns + ph->yield_ns && !w->sleep_now) {
        sched_yield();
        if (ph->learn & SHOAL_LEARN_SLOW_YIELDS)
            shoal_learn_yielded(now);
        return;
    }
    /* Woken by a write: writes tend to come in bursts, so spin again
     * before the next sleep rather than ring for each of them (and look
     * at the placement again). */
    struct shoal_ctl *c = shoal_ctl_of_slot(w->owner_slot);
    struct ready_or_ext r = {ready, arg};
    if (shoal_g.net_active)
        shoal_net_idle();
    if (w->sleep_now && !w->short_slice)
        shoal_slice_shorten(w);
    if (shoal_doorbell_sleep(&c->bell, &c->sleepers, ready_or_ext, &r, w->sleep_ns)) {
        w->t0 = shoal_now_ns();
        w->phase = shoal_wait_phase_now(w->t0);
        w->spin_ns = w->phase->spin_ns;
        w->adapting = 0;
    }
}

/* ------------------------------------------------------------ comparisons */

static void check_cmp(int cmp, const char *fn)
{
    if (SHOAL_UNLIKELY(cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE))
        shoal_fatal(fn, "argument 'cmp' = %d is not one of SHMEM_CMP_EQ, _NE, _GT, _GE, _LT, _LE",
                    cmp);
}

#define CMP_BODY(a, b)                    \
    switch (cmp) {                        \
    case SHMEM_CMP_EQ: return (a) == (b); \
    case SHMEM_CMP_NE: return (a) != (b); \
    case SHMEM_CMP_GT: return (a) > (b);  \
    case SHMEM_CMP_GE: return (a) >= (b); \
    case SHMEM_CMP_LT: return (a) < (b);  \
    default: return (a) <= (b);           \
    }

/* Does element i of ivars satisfy "ivars[i] cmp values[i or 0]"? */
static inline int elem_ok(int kind, const void *ivars, size_t i, int cmp, const void *values,
                          int vector)
{
    size_t j = vector ? i : 0;
    switch (kind) {
    case SHOAL_W_I16: {
        int16_t a = __atomic_load_n((const int16_t *)ivars + i, __ATOMIC_ACQUIRE),
                b = ((const int16_t *)values)[j];
        CMP_BODY(a, b)
    }
    case SHOAL_W_U16: {
        uint16_t a = __atomic_load_n((const uint16_t *)ivars + i, __ATOMIC_ACQUIRE),
                 b = ((const uint16_t *)values)[j];
        CMP_BODY(a, b)
    }
    case SHOAL_W_I32: {
        int32_t a = __atomic_load_n((const int32_t *)ivars + i, __ATOMIC_ACQUIRE),
                b = ((const int32_t *)values)[j];
        CMP_BODY(a, b)
    }
    case SHOAL_W_U32: {
        uint32_t a = __atomic_load_n((const uint32_t *)ivars + i, __ATOMIC_ACQUIRE),
                 b = ((const uint32_t *)values)[j];
        CMP_BODY(a, b)
    }
    case SHOAL_W_I64: {
        int64_t a = __atomic_load_n((const int64_t *)ivars + i, __ATOMIC_ACQUIRE),
                b = ((const int64_t *)values)[j];
        CMP_BODY(a, b)
    }
    default: {
        uint64_t a = __atomic_load_n((const uint64_t *)ivars + i, __ATOMIC_ACQUIRE),
                 b = ((const uint64_t *)values)[j];
        CMP_BODY(a, b)
    }
    }
}

static size_t kind_size(int kind)
{
    return kind <= SHOAL_W_U16 ? 2 : kind <= SHOAL_W_U32 ? 4 : 8;
}

/* The word of a single-word wait is this PE's symmetric object; checking
 * that costs a range test per call, so it runs under SHMEM_DEBUG only
 * (vector waits: check_ivars). */
static void debug_check_ivars(int kind, const void *ivars, const char *fn)
{
    if (SHOAL_UNLIKELY(shoal_g.debug)) {
        (void)shoal_addr(ivars, kind_size(kind), shoal_g.my_pe, fn, "ivars");
        shoal_debug_check_align(ivars, kind_size(kind), fn, "ivars");
    }
}

/* ------------------------------------------------------------ set queries */

struct set_q {
    int kind, cmp, vector;
    const void *ivars, *values;
    size_t nelems;
    const int *status;
    int mode; /* 0 all, 1 any, 2 some */
};

static inline int active(const struct set_q *q, size_t i)
{
    return !q->status || q->status[i] == 0;
}

static int all_ok(const struct set_q *q)
{
    for (size_t i = 0; i < q->nelems; i++)
        if (active(q, i) && !elem_ok(q->kind, q->ivars, i, q->cmp, q->values, q->vector))
            return 0;
    return 1;
}

static size_t first_ok(const struct set_q *q)
{
    for (size_t i = 0; i < q->nelems; i++)
        if (active(q, i) && elem_ok(q->kind, q->ivars, i, q->cmp, q->values, q->vector))
            return i;
    return SIZE_MAX;
}

static size_t n_active(const struct set_q *q)
{
    size_t n = 0;
    for (size_t i = 0; i < q->nelems; i++)
        n += active(q, i);
    return n;
}

static int set_ready(void *arg)
{
    const struct set_q *q = arg;
    return q->mode == 0 ? all_ok(q) : first_ok(q) != SIZE_MAX;
}

/* Waits and tests start with shoal_poll_network: a call may be a turn of
 * the caller's own polling loop (a test, or a wait whose value is already
 * here), over a network the value may arrive only through this PE's
 * progress (an AMO that UCX runs on the target's CPU), and the progress
 * thread may be off or keep out of the loop's way (a wait tells it that
 * this thread polls). */
static void wait_set(struct set_q *q, const char *fn)
{
    shoal_poll_network();
    if (set_ready(q))
        return;
    struct shoal_waiter w;
    shoal_waiter_init(&w, shoal_my_slot(), fn, q->ivars);
    while (!set_ready(q))
        shoal_backoff(&w, set_ready, q);
    shoal_waiter_done(&w);
}

static size_t collect_ok(const struct set_q *q, size_t *indices)
{
    size_t n = 0;
    for (size_t i = 0; i < q->nelems; i++)
        if (active(q, i) && elem_ok(q->kind, q->ivars, i, q->cmp, q->values, q->vector))
            indices[n++] = i;
    return n;
}

/* The array of a vector wait: its length is a count the caller passed, so
 * it is checked always (a count too large for the object, or for the
 * address space, would walk off the segment); one range test per call.
 * Under SHMEM_DEBUG its alignment too. */
static void check_ivars(int kind, const void *ivars, size_t nelems, const char *fn)
{
    if (!nelems)
        return;
    (void)shoal_addr_n(ivars, shoal_nbytes(nelems, kind_size(kind), fn), shoal_g.my_pe, fn, "ivars",
                       "nelems");
    if (SHOAL_UNLIKELY(shoal_g.debug))
        shoal_debug_check_align(ivars, kind_size(kind), fn, "ivars");
}

#define SETQ(mode_)                       \
    shoal_check_init(fn);                 \
    check_cmp(cmp, fn);                   \
    check_ivars(kind, ivars, nelems, fn); \
    struct set_q q = {kind, cmp, vector, ivars, values, nelems, status, mode_}

void shoal_wait_until(int kind, void *ivar, int cmp, const void *value, const char *fn)
{
    shoal_check_init(fn);
    check_cmp(cmp, fn);
    debug_check_ivars(kind, ivar, fn);
    if (elem_ok(kind, ivar, 0, cmp, value, 0))
        return;
    struct set_q q = {kind, cmp, 0, ivar, value, 1, NULL, 0};
    wait_set(&q, fn);
}

int shoal_test(int kind, void *ivar, int cmp, const void *value, const char *fn)
{
    shoal_check_init(fn);
    check_cmp(cmp, fn);
    debug_check_ivars(kind, ivar, fn);
    shoal_poll_network();
    return elem_ok(kind, ivar, 0, cmp, value, 0);
}

void shoal_wait_until_all(int kind, void *ivars, size_t nelems, const int *status, int cmp,
                          const void *values, int vector, const char *fn)
{
    SETQ(0);
    wait_set(&q, fn);
}

/* Where this thread's next test_any / wait_until_any on an array starts
 * looking.  When several elements satisfy, scanning from 0 every time would
 * return the lowest one forever and starve the others (a server loop over
 * test_any with status NULL would never see index 1); other libraries
 * rotate too.  A call starts just after the index that the previous call on
 * the same array returned, so with every element satisfying, n successive
 * calls return all n.  Per thread: threads neither share nor contend.  Per
 * array (a slot chosen by address): a program alternating between two
 * arrays (in different slots) does not see only every other index of each. */
#define ANY_SLOTS 16
static __thread size_t any_next[ANY_SLOTS];

static size_t *any_slot(const void *ivars)
{
    uint64_t h = (uint64_t)(uintptr_t)ivars * 0x9E3779B97F4A7C15ull;
    return &any_next[h >> 60];
}

/* The first satisfying active element from the array's slot on (wrapping
 * around), or SIZE_MAX; the slot then starts after it. */
static size_t next_ok(const struct set_q *q)
{
    size_t *next = any_slot(q->ivars);
    size_t start = q->nelems ? *next % q->nelems : 0;
    for (size_t k = 0; k < q->nelems; k++) {
        size_t i = start + k < q->nelems ? start + k : start + k - q->nelems;
        if (active(q, i) && elem_ok(q->kind, q->ivars, i, q->cmp, q->values, q->vector)) {
            *next = i + 1;
            return i;
        }
    }
    return SIZE_MAX;
}

size_t shoal_wait_until_any(int kind, void *ivars, size_t nelems, const int *status, int cmp,
                            const void *values, int vector, const char *fn)
{
    SETQ(1);
    if (n_active(&q) == 0)
        return SIZE_MAX;
    /* An element may stop satisfying between the wait and the pick. */
    size_t i;
    while ((i = next_ok(&q)) == SIZE_MAX)
        wait_set(&q, fn);
    return i;
}

size_t shoal_wait_until_some(int kind, void *ivars, size_t nelems, size_t *indices,
                             const int *status, int cmp, const void *values, int vector,
                             const char *fn)
{
    SETQ(2);
    if (n_active(&q) == 0)
        return 0;
    wait_set(&q, fn);
    return collect_ok(&q, indices);
}

int shoal_test_all(int kind, void *ivars, size_t nelems, const int *status, int cmp,
                   const void *values, int vector, const char *fn)
{
    SETQ(0);
    shoal_poll_network();
    return all_ok(&q);
}

size_t shoal_test_any(int kind, void *ivars, size_t nelems, const int *status, int cmp,
                      const void *values, int vector, const char *fn)
{
    SETQ(1);
    shoal_poll_network();
    return next_ok(&q);
}

size_t shoal_test_some(int kind, void *ivars, size_t nelems, size_t *indices, const int *status,
                       int cmp, const void *values, int vector, const char *fn)
{
    SETQ(2);
    shoal_poll_network();
    return collect_ok(&q, indices);
}

struct sig_q {
    const uint64_t *sig;
    int cmp;
    uint64_t value, seen;
};

static int sig_ready(void *arg)
{
    struct sig_q *q = arg;
    uint64_t a = __atomic_load_n(q->sig, __ATOMIC_ACQUIRE), b = q->value;
    int cmp = q->cmp;
    q->seen = a;
    CMP_BODY(a, b)
}

uint64_t shoal_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t value, const char *fn)
{
    shoal_check_init(fn);
    check_cmp(cmp, fn);
    debug_check_ivars(SHOAL_W_U64, sig_addr, fn);
    struct sig_q q = {sig_addr, cmp, value, 0};
    if (sig_ready(&q))
        return q.seen;
    struct shoal_waiter w;
    shoal_waiter_init(&w, shoal_my_slot(), fn, sig_addr);
    while (!sig_ready(&q))
        shoal_backoff(&w, sig_ready, &q);
    shoal_waiter_done(&w);
    return q.seen;
}

/* Internal waits on mapped memory of any local PE (locks, barriers). */
struct mapped_q {
    int kind, cmp;
    const void *p, *value;
};

static int mapped_ready(void *arg)
{
    const struct mapped_q *q = arg;
    return elem_ok(q->kind, q->p, 0, q->cmp, q->value, 0);
}

void shoal_wait_mapped(int kind, const void *mapped, int owner_slot, int cmp, const void *value,
                       const char *fn)
{
    struct mapped_q q = {kind, cmp, mapped, value};
    if (mapped_ready(&q))
        return;
    struct shoal_waiter w;
    shoal_waiter_init(&w, owner_slot, fn, mapped);
    while (!mapped_ready(&q))
        shoal_backoff(&w, mapped_ready, &q);
    shoal_waiter_done(&w);
}
