/* Waiting on UCP's requests: a thread blocked on one of its requests
 * (ucx_wait) progresses that request's worker and, when it is idle, this
 * PE's target worker (two PEs blocked on gets from each other must both
 * serve the other); past a short spin it yields, and a second in it asks
 * the core whether its peer is still there (net.h's peer_watch).
 * The other places that move UCX forward (shoal_net_progress, the progress
 * thread) are the room above's (ucx_progress.c). */
#include <sched.h>
#include <time.h>

#include "transport/ucx/base/ucx_base.h"

/* One thread at a time progresses the target worker, the progress thread
 * included; the others skip it rather than queue on the worker's lock.
 * With more threads than cores, a convoy behind a preempted holder costs
 * milliseconds, and a progress thread spinning on the lock while a waiting
 * application thread polled the sockets under it took a third of the CPU
 * of a 2-core node (bench/nbe_rate over tcp). */
int ucx_target_busy; /* ucx_target_take, ucx_target_give (ucx_base.h) */

void ucx_net_attend(void)
{
    if (!__atomic_load_n(&ucx_g.app_polled, __ATOMIC_RELAXED))
        __atomic_store_n(&ucx_g.app_polled, 1, __ATOMIC_RELAXED);
}

unsigned ucx_progress_target(void)
{
    /* An application thread polls: the progress thread steps back, also
     * when it holds the worker itself (else both would poll, and on a
     * full node the spare poller takes a core from a peer's sender). */
    ucx_net_attend();
    if (!ucx_target_take())
        return 0;
    unsigned did = ucp_worker_progress(ucx_g.target);
    ucx_target_progressed();
    ucx_target_give();
    return did;
}

void ucx_peer_watch(int pe, const char *fn, const char *what)
{
    if (!ucx_g.finalizing && ucx_g.hooks && ucx_g.hooks->peer_watch)
        ucx_g.hooks->peer_watch(pe, fn, what);
}

#define WAIT_SPIN_NS 5000u
#define WAIT_CHECK_EVERY_NS 2000000u

/* A wait that outlasted its spin yields, says so to the hang report, and,
 * a second in, asks the core whether its peer is still there.  It never
 * naps and never counts the network's events: a request to a peer that
 * computes without progressing, or is stopped in a debugger, waits as
 * long as it takes, and two PEs blocked on gets from each other (each
 * serving the other's through the target worker) must both keep polling:
 * naps of up to 1 ms after 10 ms of silence had made big gets both ways
 * over tcp on a loaded machine drop to a tenth of their rate now and then. */
struct slow_wait {
    uint64_t idle_since, spin_end, watch_from, next_check;
    int noted;
    void (*check)(void *);
    void *check_arg;
};

static void slow_turn(struct slow_wait *sw, const char *fn, int pe, const char *what)
{
    uint64_t now = ucx_now_ns();
    if (now <= sw->spin_end)
        return;
    if (!sw->noted && ucx_g.hooks && ucx_g.hooks->net_blocked) {
        ucx_g.hooks->net_blocked(fn, pe, what);
        sw->noted = 1;
    }
    if (sw->check && now >= sw->next_check) {
        sw->next_check = now + WAIT_CHECK_EVERY_NS;
        sw->check(sw->check_arg);
    }
    if (now >= sw->watch_from)
        ucx_peer_watch(pe, fn, what);
    sched_yield();
}

void ucx_wait(struct ucx_worker *w, ucs_status_ptr_t req, const char *fn, int pe, const char *what)
{
    ucx_wait_check(w, req, fn, pe, what, NULL, NULL);
}

void ucx_wait_check(struct ucx_worker *w, ucs_status_ptr_t req, const char *fn, int pe,
                    const char *what, void (*check)(void *), void *arg)
{
    if (UCX_LIKELY(req == NULL))
        return;
    if (UCX_UNLIKELY(UCS_PTR_IS_ERR(req)))
        ucx_die(fn, pe, what, UCS_PTR_STATUS(req));
    ucs_status_t st;
    unsigned idle = 0;
    struct slow_wait sw = {0, 0, 0, 0, 0, check, arg};
    while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
        /* The target worker only under ucx_target_take (the progress
         * thread arms it under the same flag). */
        if (w->is_target ? ucx_progress_target() : ucp_worker_progress(w->h)) {
            idle = 0;
            continue;
        }
        if (!w->is_target) /* (else just progressed) */
            ucx_progress_target();
        /* PEs (and their threads) may outnumber cores: after a short spin,
         * let the peer we wait for run.  A spin counted in turns was as
         * long as the transport's polls: over tcp each turn polls two
         * workers' sockets, and 64 turns held the CPU for some 80 us (OSU
         * fetch-add at 4 PEs on 2 cores, each PE a pretend node, 6 rounds:
         * 61 -> 34 us with 4 turns).  Where the waiter has a CPU of its
         * own the yield returns at once. */
        if (idle++ == 0) {
            sw.idle_since = ucx_now_ns();
            sw.spin_end = sw.idle_since + WAIT_SPIN_NS;
            if (!sw.watch_from) /* the first looks a period into the wait */
                sw.watch_from = sw.idle_since + UCX_WATCH_AFTER_NS;
            if (!sw.next_check)
                sw.next_check = sw.idle_since + WAIT_CHECK_EVERY_NS;
        } else {
            slow_turn(&sw, fn, pe, what);
        }
    }
    if (sw.noted)
        ucx_g.hooks->net_unblocked();
    ucp_request_free(req);
    /* In shmem_finalize, past this PE's last operation, a peer that
     * closes its connections fails the flushes that remain: no loss. */
    if (UCX_UNLIKELY(st != UCS_OK) && !ucx_g.leaving)
        ucx_die(fn, pe, what, st);
}
