/* Waiting on UCP's requests: a thread blocked on one of its requests
 * (ucx_wait) progresses that request's worker and, when it is idle, this
 * PE's target worker (two PEs blocked on gets from each other must both
 * serve the other); past a short spin it yields, then naps, and a wait
 * that hears nothing for SHOAL_PEER_TIMEOUT ends the job naming the peer.
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

void shoal_net_attend(void)
{
    if (!__atomic_load_n(&ucx_g.app_polled, __ATOMIC_RELAXED))
        __atomic_store_n(&ucx_g.app_polled, 1, __ATOMIC_RELAXED);
}

unsigned ucx_progress_target(void)
{
    /* An application thread polls: the progress thread steps back, also
     * when it holds the worker itself (else both would poll, and on a
     * full node the spare poller takes a core from a peer's sender). */
    shoal_net_attend();
    if (!ucx_target_take())
        return 0;
    unsigned did = ucp_worker_progress(ucx_g.target);
    ucx_target_progressed();
    ucx_target_give();
    return did;
}

#define WAIT_SPIN_NS 5000u
/* Past this much silence a waiter sleeps between looks, up to
 * WAIT_NAP_MAX_NS at a time: a request that cannot complete (a dead link)
 * costs no CPU, one that takes long costs at most a tenth of its wait. */
#define WAIT_NAP_AFTER_NS 10000000u
#define WAIT_NAP_MAX_NS 1000000u

/* The network brought (almost) nothing for SHOAL_PEER_TIMEOUT while this
 * request waited: its peer (or the link to it) is dead, or stopped. */
_Noreturn void ucx_timed_out(const char *fn, int pe, const char *what)
{
    const double s = (double)ucx_g.peer_timeout_ns / 1e9;
    if (pe >= 0)
        ucx_fatalf(fn,
                   "PE %d on host %s has not answered for %.0f s (a %s through UCX): the peer or "
                   "the link to it is dead (SHOAL_PEER_TIMEOUT=%g)",
                   pe, ucx_host_of(pe), s, what, s);
    ucx_fatalf(fn,
               "the network has brought nothing for %.0f s while this PE waited for a %s through "
               "UCX: a peer or the link to it is dead (SHOAL_PEER_TIMEOUT=%g)",
               s, what, s);
}

int ucx_alive_lost(struct ucx_alive *a, uint64_t now)
{
    const uint64_t limit = ucx_g.peer_timeout_ns;
    if (!limit || ucx_g.finalizing)
        return 0;
    if (!a->window_start) {
        a->window_start = now;
        return 0;
    }
    if (now - a->window_start <= limit)
        return 0;
    const int lost = a->events < UCX_ALIVE_EVENTS;
    a->window_start = now;
    a->events = 0;
    return lost;
}

/* A wait that outlasted its spin yields, then naps, says so to the hang
 * report, and ends the job when its peer is lost (ucx_alive_lost: UCX's
 * own keepalive rounds make a few events, two every interval, a quarter
 * of the timeout; a transfer that moves makes many, a 64 KiB fragment
 * each). */
struct slow_wait {
    uint64_t idle_since, spin_end, nap_ns, next_check;
    struct ucx_alive alive;
    int noted;
    void (*check)(void *);
    void *check_arg;
};

#define WAIT_CHECK_EVERY_NS 2000000u

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
    if (ucx_alive_lost(&sw->alive, now))
        ucx_timed_out(fn, pe, what);
    if (now - sw->idle_since < WAIT_NAP_AFTER_NS) {
        sched_yield();
        return;
    }
    sw->nap_ns = sw->nap_ns ? sw->nap_ns * 2 : 10000;
    if (sw->nap_ns > WAIT_NAP_MAX_NS)
        sw->nap_ns = WAIT_NAP_MAX_NS;
    struct timespec ts = {0, (long)sw->nap_ns};
    nanosleep(&ts, NULL);
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
    unsigned idle = 0, did;
    struct slow_wait sw = {0, 0, 0, 0, {0, 0}, 0, check, arg};
    while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
        /* The target worker only under ucx_target_take (the progress
         * thread arms it under the same flag). */
        if ((did = w->is_target ? ucx_progress_target() : ucp_worker_progress(w->h)) != 0) {
            idle = 0;
            sw.nap_ns = 0;
            sw.alive.events += did;
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
            if (!sw.alive.window_start)
                sw.alive.window_start = sw.idle_since;
            if (!sw.next_check) /* the first look a period into the wait */
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
