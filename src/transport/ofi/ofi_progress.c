/* The progress thread, where the provider progresses only manually (shm,
 * udp;ofi_rxd, sockets as Shoal opens it; cxi and efa on real fabrics):
 * there a peer's get or atomic on this PE completes only while something
 * here reads the target endpoint's queue, and a PE that computes outside
 * Shoal's calls, or sleeps in the wait engine, would leave its peers
 * waiting.  As UCX's (ucx_progress.c), it keeps out of the way while the
 * application progresses (its waits say so: ofi_net_attend): it then
 * looks only now and then, each look further apart; when the application
 * has not progressed since the last look, or its waiters sleep, it serves
 * the target endpoint every OFI_PROGRESS_EVERY_US, and rings the wait
 * engine's doorbell when peers' operations arrived.  A waiter about to
 * sleep says so (ofi_net_idle), which ends the thread's nap at once. */
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "transport/ofi/ofi_internal.h"

#define OFI_PROGRESS_EVERY_US 200
#define OFI_NAP_GROWTH 16
#define OFI_PROGRESS_THREAD_NAME "shoal-ofi-prog"

static pthread_t tid;
static int running, stop;
static int app_polled; /* the application progressed since the last look */
static int napping;    /* the thread naps: a kick is worth a syscall */
static int kick_fd = -1;

void ofi_net_attend(void)
{
    if (!__atomic_load_n(&app_polled, __ATOMIC_RELAXED))
        __atomic_store_n(&app_polled, 1, __ATOMIC_RELAXED);
}

void ofi_net_idle(void)
{
    if (__atomic_load_n(&napping, __ATOMIC_RELAXED) &&
        __atomic_exchange_n(&napping, 0, __ATOMIC_ACQ_REL)) {
        uint64_t one = 1;
        if (write(kick_fd, &one, sizeof one) < 0) {
            /* the counter is full: a wake-up is pending anyway */
        }
    }
}

int ofi_net_helper_thread(const char *name, size_t len)
{
    return len == strlen(OFI_PROGRESS_THREAD_NAME) && !memcmp(name, OFI_PROGRESS_THREAD_NAME, len);
}

/* Sleeps `us` or until kicked. */
static void nap(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    struct pollfd pfd = {.fd = kick_fd, .events = POLLIN};
    __atomic_store_n(&napping, 1, __ATOMIC_RELEASE);
    int n = ppoll(&pfd, 1, &ts, NULL);
    __atomic_store_n(&napping, 0, __ATOMIC_RELEASE);
    uint64_t v;
    if (n > 0 && read(kick_fd, &v, sizeof v) < 0) {
        /* another reader took it */
    }
}

/* The endpoints that post (contexts', threads', requests'): with manual
 * progress an operation leaves, is retransmitted and completes only
 * while its own endpoint's queue or counters are read, and a wait for
 * something else (a barrier's signal, sent as a tagged message or an
 * injected add) reads only its own and the target's: ofi_rxd's
 * handshake answer (CTS) to the first packet to a peer then waited on
 * the sender's endpoint forever.  Appended at open, removed at close;
 * one walker at a time (another finds the lock taken and goes on). */
static struct ofi_ep *senders;
static pthread_mutex_t senders_lock = PTHREAD_MUTEX_INITIALIZER;

void ofi_progress_enlist(struct ofi_ep *e)
{
    if (!ofi_g.manual_progress)
        return;
    pthread_mutex_lock(&senders_lock);
    e->next_sender = senders;
    e->enlisted = 1;
    __atomic_store_n(&senders, e, __ATOMIC_RELEASE); /* read unlocked below */
    pthread_mutex_unlock(&senders_lock);
}

void ofi_progress_delist(struct ofi_ep *e)
{
    if (!e->enlisted)
        return;
    pthread_mutex_lock(&senders_lock);
    struct ofi_ep **at = &senders;
    while (*at && *at != e)
        at = &(*at)->next_sender;
    if (*at)
        __atomic_store_n(at, e->next_sender, __ATOMIC_RELEASE);
    e->enlisted = 0;
    pthread_mutex_unlock(&senders_lock);
}

void ofi_progress_senders(void)
{
    if (!__atomic_load_n(&senders, __ATOMIC_RELAXED) || pthread_mutex_trylock(&senders_lock))
        return;
    for (struct ofi_ep *e = senders; e; e = e->next_sender)
        ofi_ep_poll(e, "(progress)");
    pthread_mutex_unlock(&senders_lock);
}

/* Serves what peers' operations brought to the target endpoint, and moves
 * this PE's own operations. */
static void serve(void)
{
    int did = 0;
    ofi_progress_senders();
    while (ofi_progress_target())
        did = 1;
    if (did)
        ofi_g.hooks->writes_arrived();
}

static void *progress_main(void *arg)
{
    (void)arg;
    long wait_us = OFI_PROGRESS_EVERY_US;
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        const int app_active =
            __atomic_exchange_n(&app_polled, 0, __ATOMIC_RELAXED) && !ofi_g.hooks->waiters_asleep();
        if (app_active) {
            wait_us = wait_us < OFI_PROGRESS_EVERY_US * OFI_NAP_GROWTH ? wait_us * 2 : wait_us;
        } else {
            serve();
            wait_us = OFI_PROGRESS_EVERY_US;
        }
        nap(wait_us);
    }
    return NULL;
}

int ofi_progress_thread_start(char *err, size_t errlen)
{
    if (running || !ofi_g.manual_progress)
        return 0;
    stop = 0;
    kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (kick_fd < 0 || pthread_create(&tid, NULL, progress_main, NULL) != 0) {
        snprintf(err, errlen, "the OFI progress thread cannot start");
        if (kick_fd >= 0)
            close(kick_fd);
        kick_fd = -1;
        return -1;
    }
    pthread_setname_np(tid, OFI_PROGRESS_THREAD_NAME);
    running = 1;
    return 0;
}

void ofi_progress_thread_stop(void)
{
    if (!running)
        return;
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    uint64_t one = 1;
    if (write(kick_fd, &one, sizeof one) < 0) {
        /* a wake-up is pending anyway */
    }
    pthread_join(tid, NULL);
    close(kick_fd);
    kick_fd = -1;
    running = 0;
}
