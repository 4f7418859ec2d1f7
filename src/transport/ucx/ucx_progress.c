/* Progress.  Three places move UCX forward:
 *  - a thread blocked on one of its requests (ucx_wait, in the floor
 *    below: base/ucx_wait.c) progresses that request's worker and, when
 *    it is idle, this PE's target worker (two PEs blocked on gets from
 *    each other must both serve the other);
 *  - the core's waiting loops call shoal_net_progress;
 *  - the optional progress thread progresses the target worker, so that
 *    one-sided operations complete while the target computes without
 *    calling Shoal.
 *
 * SHOAL_PROGRESS_THREAD=auto turns the thread on when UCX emulates RMA or
 * atomics in software for the peers we reach (tcp, shared-memory atomics
 * on registered user memory, ...): then the target's CPU must run UCX
 * code for a get or an AMO to complete.  The rule is read off real
 * endpoints at init (ucx_lanes.c): if their configuration has no RMA lane
 * or no AMO lane, the emulation runs on the target.  With only hardware
 * RDMA lanes (InfiniBand/RoCE rc, dc) the thread stays off. */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "transport/ucx/ucx_internal.h"

static void progress_one(struct ucx_worker *w, void *arg)
{
    if (w->thread_owned || __atomic_load_n(&w->dirty, __ATOMIC_RELAXED))
        *(unsigned *)arg += ucp_worker_progress(w->h);
}

/* Under SHMEM_THREAD_MULTIPLE: the next MULTI-mode worker (default
 * context's, or a shared context's) with something outstanding, so that
 * what a thread posted and then left behind (it exited, or stopped
 * calling Shoal) still moves — e.g. a wire-up that was pending. */
static struct ucx_worker *rot_next;
static void progress_some_other(struct ucx_worker *own)
{
    struct ucx_worker *w = __atomic_load_n(&rot_next, __ATOMIC_RELAXED);
    for (int tries = 0; tries < 4; tries++) {
        if (!w)
            w = ucx_all_workers_head();
        if (!w)
            return;
        struct ucx_worker *next = w->all_next;
        if (w != own && w->mode == UCS_THREAD_MODE_MULTI &&
            __atomic_load_n(&w->dirty, __ATOMIC_RELAXED)) {
            __atomic_store_n(&rot_next, next, __ATOMIC_RELAXED);
            ucp_worker_progress(w->h);
            return;
        }
        w = next;
    }
    __atomic_store_n(&rot_next, w, __ATOMIC_RELAXED);
}

int ucx_net_progress(void)
{
    if (UCX_UNLIKELY(!ucx_g.ctx))
        return 0;
    unsigned did = ucx_progress_target();
    if (ucx_g.thread_level == SHMEM_THREAD_MULTIPLE) {
        /* Only what this thread may touch: its default-context worker
         * (MULTI) and the shared default worker. */
        struct ucx_worker *w = ucx_thread_worker_if_any();
        if (!w && ucx_g.dflt)
            w = ucx_g.dflt->w;
        if (w)
            did += ucp_worker_progress(w->h);
        static __thread unsigned calls;
        if ((++calls & 15) == 0)
            progress_some_other(w);
    } else {
        /* One thread at a time calls Shoal: every context's worker. */
        ucx_all_workers_foreach(progress_one, &did);
    }
    return did != 0;
}

/* ------------------------------------------------------ progress thread */

/* Waiters of the core's wait engine that went to sleep on this PE's
 * doorbell (core/waiting/wait.c) are not woken by writes that arrive through the
 * network: the progress thread rings the doorbell when it applied some. */
static void wake_local_waiters(void)
{
    ucx_g.hooks->writes_arrived();
}

/* The thread stays out of the way while the application progresses the
 * target worker itself (spinning waits, blocked operations: they set
 * app_polled): it then only looks now and then, each look further apart
 * (up to NAP_GROWTH intervals) while the application keeps polling,
 * because on a virtual machine each timer wake-up that preempts the
 * polling thread costs some 20 us (a 2-PE barrier over tcp: 28 us with
 * looks every 100 us, 17 us without the thread).  When the application
 * has not progressed since the last look (it computes) or sleeps in the
 * wait engine, the thread sleeps on the target worker's event fd
 * (ucp_worker_arm) and serves requests as they arrive, ringing the wait
 * engine's doorbell when it applied some.  A waiter about to sleep says so
 * (shoal_net_idle), which ends the thread's nap at once.  On two cores
 * shared by several PEs an event-driven thread that competed with a
 * spinning application thread for every message would cost more than it
 * saves. */
#define NAP_GROWTH 16
#define PROGRESS_THREAD_NAME "shoal-progress"

int ucx_net_helper_thread(const char *name, size_t len)
{
    /* UCX's own: "async" (UCX_ASYNC_MODE=thread: connection events). */
    static const char *const helpers[] = {PROGRESS_THREAD_NAME, "async"};
    for (size_t i = 0; i < sizeof helpers / sizeof helpers[0]; i++)
        if (strlen(helpers[i]) == len && !memcmp(name, helpers[i], len))
            return 1;
    return 0;
}

#if defined(__SANITIZE_THREAD__)
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
#endif

static int kick_fd = -1; /* eventfd: ends the thread's nap or armed sleep */
static int napping;      /* the thread naps: a kick is worth a syscall */

static void kick(void)
{
    uint64_t one = 1;
    if (kick_fd >= 0 && write(kick_fd, &one, sizeof one) < 0) {
        /* the counter is full: a wake-up is pending anyway */
    }
}

void ucx_net_idle(void)
{
    if (__atomic_load_n(&napping, __ATOMIC_RELAXED) &&
        __atomic_exchange_n(&napping, 0, __ATOMIC_ACQ_REL))
        kick();
}

/* Sleeps until the kick fd or `efd` (when >= 0: the armed target worker)
 * has events, or ns pass.  `nap`: a kick is expected.  Returns 1 when
 * kicked. */
static int sleep_on(int efd, long ns, int nap)
{
    struct timespec ts = {ns / 1000000000, ns % 1000000000};
    struct pollfd pfd[2] = {{.fd = kick_fd, .events = POLLIN}, {.fd = efd, .events = POLLIN}};
    if (nap)
        __atomic_store_n(&napping, 1, __ATOMIC_RELEASE);
    int n = ppoll(pfd, efd >= 0 ? 2 : 1, &ts, NULL);
    if (nap)
        __atomic_store_n(&napping, 0, __ATOMIC_RELEASE);
    if (n <= 0 || !(pfd[0].revents & POLLIN))
        return 0;
    uint64_t v;
    if (read(kick_fd, &v, sizeof v) < 0) {
        /* another reader took it */
    }
    return 1;
}

/* Serves the target worker, the requests and the handlers once; returns
 * whether requests have operations in flight. */
static int serve_once(void)
{
    unsigned did = 0, k;
    if (ucx_target_take()) {
        while ((k = ucp_worker_progress(ucx_g.target)) != 0)
            did += k;
        ucx_target_progressed();
        ucx_target_give();
    }
    if (did)
        wake_local_waiters();
    int req_busy = ucx_request_progress();
    /* Handlers of active messages, where core allows it here. */
    if (ucx_g.hooks->am_run)
        ucx_g.hooks->am_run();
    return req_busy;
}

static void *progress_main(void *arg)
{
    (void)arg;
#if defined(__SANITIZE_THREAD__)
    /* This thread touches the heap only on other PEs' behalf (UCX applies
     * their puts, gets and AMOs here), ordered by their synchronization
     * through the network, which ThreadSanitizer cannot see; and UCX's
     * frames are often missing from its reports, so suppressions cannot
     * catch them.  Its own state is shared through atomics. */
    __tsan_ignore_thread_begin();
#endif
    const long base = ucx_g.progress_interval_us * 1000;
    long nap = base;
    int efd = -1, kicked = 0;
    if (ucp_worker_get_efd(ucx_g.target, &efd) != UCS_OK)
        efd = -1;
    while (!__atomic_load_n(&ucx_g.progress_stop, __ATOMIC_ACQUIRE)) {
        /* A thread asleep in the wait engine counts as idle: it progresses
         * only between sleeps, so requests would wait for it; so does one
         * that said it is about to sleep (kicked). */
        int app_active = __atomic_exchange_n(&ucx_g.app_polled, 0, __ATOMIC_RELAXED) && !kicked &&
                         !ucx_g.hooks->waiters_asleep();
        /* Requests with operations in flight (a large put of an _nbe
         * request overlapping computation) need their initiator worker
         * moved too: then the thread polls instead of sleeping on the
         * target's events. */
        int req_busy = 0;
        if (app_active) {
            nap = nap < base * NAP_GROWTH ? nap * 2 : nap;
        } else {
            req_busy = serve_once();
            nap = base;
        }
        if (base <= 0) {
            sched_yield();
            continue;
        }
        if (app_active || efd < 0 || req_busy || !ucx_target_take()) {
            kicked = sleep_on(-1, app_active ? nap : base, 1);
        } else {
            /* Armed under the flag, as the worker is progressed: UCX 1.13
             * could livelock an application thread inside
             * ucp_worker_progress(target) while this thread armed the
             * same worker (both PEs of exit_paths amo over ucx_sm spun in
             * shmem_finalize's flush, this thread on a spinlock in
             * ucp_worker_arm, about once in 100 runs under load). */
            ucs_status_t armed = ucp_worker_arm(ucx_g.target);
            ucx_target_give();
            kicked = 0;
            if (armed == UCS_ERR_BUSY)
                continue; /* events arrived meanwhile */
            /* Woken by an event; the timeout only bounds a missed one. */
            sleep_on(efd, base * 10, 0);
        }
        ucx_g.progress_wakeups++;
    }
#if defined(__SANITIZE_THREAD__)
    __tsan_ignore_thread_end();
#endif
    return NULL;
}

int ucx_progress_thread_start(void)
{
    int on = ucx_g.progress_thread_cfg;
    if (on < 0)
        on = ucx_g.sw_emulated;
    return on ? ucx_progress_thread_run() : 0;
}

int ucx_progress_thread_run(void)
{
    if (ucx_g.progress_on)
        return 0;
    ucx_g.progress_stop = 0;
    kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (kick_fd < 0)
        return -1;
    if (pthread_create(&ucx_g.progress_tid, NULL, progress_main, NULL) != 0) {
        close(kick_fd);
        kick_fd = -1;
        return -1;
    }
    pthread_setname_np(ucx_g.progress_tid, PROGRESS_THREAD_NAME);
    ucx_g.progress_on = 1;
    return 0;
}

void ucx_progress_thread_stop(void)
{
    if (!ucx_g.progress_on)
        return;
    __atomic_store_n(&ucx_g.progress_stop, 1, __ATOMIC_RELEASE);
    kick();
    pthread_join(ucx_g.progress_tid, NULL);
    close(kick_fd);
    kick_fd = -1;
    ucx_g.progress_on = 0;
}
