/* Wait records and the hang report (wait_record.h).
 *
 * Records live in a fixed table, one per thread that ever blocked, claimed
 * on first use and given back when the thread exits, so that a report can
 * walk them without a lock.  The thread's own fields (read by the wait
 * engine) are written with relaxed atomics; what a report needs is
 * published in the hang page (boot/hang_page.h) at the start of each wait
 * that blocks, under the record's sequence lock, and unpublished at its
 * end.  The report (oshrun's, from its read-only mapping of the page, or
 * this PE's on SIGQUIT) is a snapshot of a job that is stuck. */
#include "core/waiting/wait_record.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot.h"
#include "core/waiting/wait.h"
#include "core/ops.h"

#define RECORDS_MAX (SHOAL_HANG_RECORDS - 1)

static struct shoal_wait_record records[RECORDS_MAX + 1]; /* the last one is shared */
static int n_claimed;
static __thread struct shoal_wait_record *mine;
static pthread_key_t release_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* The hang page: a memfd mapping, or (memfd refused) this process's own
 * memory, which then serves the SIGQUIT report only. */
static struct shoal_hang_page fallback_page;
static struct shoal_hang_page *page = &fallback_page;
static int page_fd = -1;
static pthread_once_t page_once = PTHREAD_ONCE_INIT;
static int spare_busy; /* the shared record is being published */

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static void make_page(void)
{
    struct shoal_hang_page *pg = &fallback_page;
    int fd = memfd_create("shoal-hang-report", MFD_CLOEXEC);
    if (fd >= 0 && ftruncate(fd, (off_t)sizeof *pg) == 0) {
        void *m = mmap(NULL, sizeof *pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (m != MAP_FAILED)
            pg = m;
    }
    if (pg == &fallback_page && fd >= 0) {
        close(fd);
        fd = -1;
    }
    pg->version = SHOAL_HANG_VERSION;
    pg->size = (uint32_t)sizeof *pg;
    pg->world_slot = SHOAL_TEAM_SLOT_WORLD;
    pg->shared_slot = SHOAL_TEAM_SLOT_SHARED;
    for (int i = 0; i <= RECORDS_MAX; i++) /* touching none: pages come with use */
        records[i].pub = &pg->rec[i];
    struct shoal_wait_record *spare = &records[RECORDS_MAX];
    spare->thread = RECORDS_MAX;
    spare->peer = spare->peer_thread = spare->team_slot = -1;
    __atomic_store_n(&pg->magic, SHOAL_HANG_MAGIC, __ATOMIC_RELEASE);
    __atomic_store_n(&page, pg, __ATOMIC_RELEASE);
    page_fd = fd;
}

static void release(void *arg)
{
    struct shoal_wait_record *r = arg;
    STORE(r->fn, (const char *)NULL);
    __atomic_store_n(&r->pub->blocked, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&r->used, 0, __ATOMIC_RELEASE);
}

static void make_key(void)
{
    pthread_key_create(&release_key, release);
}

/* Claimers take turns (claim_locked): a fresh record reads as given back
 * (used == 0) from the raise of n_claimed until its claimer sets used, and
 * a claimer scanning for given-back records took it too, so that two
 * threads shared one record (ThreadSanitizer, ucx.fd_limit: 256 threads
 * that first wait at once).  Once per thread: the lock costs nothing. */
static pthread_mutex_t claim_lock = PTHREAD_MUTEX_INITIALIZER;

static struct shoal_wait_record *claim_locked(void)
{
    int n = __atomic_load_n(&n_claimed, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++) /* one given back by an exited thread */
        if (!__atomic_load_n(&records[i].used, __ATOMIC_RELAXED) &&
            !__atomic_exchange_n(&records[i].used, 1, __ATOMIC_ACQUIRE))
            return &records[i];
    while ((n = __atomic_load_n(&n_claimed, __ATOMIC_ACQUIRE)) < RECORDS_MAX)
        if (__atomic_compare_exchange_n(&n_claimed, &n, n + 1, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            records[n].thread = n;
            records[n].peer = -1;
            records[n].peer_thread = -1;
            records[n].team_slot = -1;
            __atomic_store_n(&records[n].used, 1, __ATOMIC_RELEASE);
            /* Records up to n may be published from now on. */
            struct shoal_hang_page *pg = __atomic_load_n(&page, __ATOMIC_ACQUIRE);
            uint32_t c = __atomic_load_n(&pg->claimed, __ATOMIC_RELAXED);
            while (c < (uint32_t)n + 1 &&
                   !__atomic_compare_exchange_n(&pg->claimed, &c, (uint32_t)n + 1, 0,
                                                __ATOMIC_RELEASE, __ATOMIC_RELAXED))
                ;
            return &records[n];
        }
    return &records[RECORDS_MAX]; /* initialized by make_page */
}

static struct shoal_wait_record *claim(void)
{
    pthread_once(&page_once, make_page);
    pthread_mutex_lock(&claim_lock);
    struct shoal_wait_record *r = claim_locked();
    pthread_mutex_unlock(&claim_lock);
    return r;
}

struct shoal_wait_record *shoal_wait_record_mine(void)
{
    if (SHOAL_LIKELY(mine != NULL))
        return mine;
    mine = claim();
    if (mine != &records[RECORDS_MAX]) {
        __atomic_store_n(&mine->tid, (int)syscall(SYS_gettid), __ATOMIC_RELAXED);
        pthread_once(&key_once, make_key);
        pthread_setspecific(release_key, mine);
    }
    return mine;
}

int shoal_wait_record_others_working(void)
{
    int n = __atomic_load_n(&n_claimed, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++)
        if (&records[i] != mine && __atomic_load_n(&records[i].used, __ATOMIC_ACQUIRE) &&
            LOAD(records[i].fn) == NULL)
            return 1;
    return 0;
}

int shoal_wait_record_tid_waiting(int tid)
{
    int n = __atomic_load_n(&n_claimed, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++)
        if (__atomic_load_n(&records[i].tid, __ATOMIC_RELAXED) == tid &&
            __atomic_load_n(&records[i].used, __ATOMIC_ACQUIRE))
            return LOAD(records[i].fn) != NULL;
    return 0;
}

void shoal_wait_note_peer(int team_slot, uint64_t seq, int peer, const char *what)
{
    struct shoal_wait_record *r = shoal_wait_record_mine();
    STORE(r->team_slot, team_slot);
    STORE(r->seq, seq);
    STORE(r->what, what);
    STORE(r->peer, peer);
}

void shoal_wait_note_thread(int thread, const char *what)
{
    struct shoal_wait_record *r = shoal_wait_record_mine();
    STORE(r->team_slot, -1);
    STORE(r->what, what);
    STORE(r->peer, -1);
    STORE(r->peer_thread, thread);
}

void shoal_wait_note_clear(void)
{
    struct shoal_wait_record *r = shoal_wait_record_mine();
    STORE(r->peer, -1);
    STORE(r->peer_thread, -1);
    STORE(r->team_slot, -1);
    STORE(r->what, (const char *)NULL);
}

static uint64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The page's text slot holding s, copied there if it is not yet (never
 * slots `keep` and `keep2`, which the record uses for its other texts).
 * The caller holds the record's sequence lock. */
static int32_t text_slot(struct shoal_wait_record *r, const char *s, int32_t keep, int32_t keep2)
{
    for (int i = 0; i < SHOAL_HANG_TEXTS; i++)
        if (r->texts[i] == s)
            return i;
    int i = r->next_text;
    while (i == keep || i == keep2)
        i = (i + 1) % SHOAL_HANG_TEXTS;
    r->next_text = (i + 1) % SHOAL_HANG_TEXTS;
    r->texts[i] = s;
    size_t n = strnlen(s, SHOAL_HANG_TEXT_MAX - 1);
    memcpy(r->pub->texts[i], s, n);
    r->pub->texts[i][n] = 0;
    return i;
}

/* The record as it stands, into the page (for a report). */
static void publish(struct shoal_wait_record *r)
{
    struct shoal_hang_rec *h = r->pub;
    uint32_t s = __atomic_load_n(&h->seq, __ATOMIC_RELAXED);
    __atomic_store_n(&h->seq, s + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    const char *fn = LOAD(r->fn), *what = LOAD(r->what), *via = LOAD(r->via);
    int32_t fi = text_slot(r, fn, -1, -1);
    int32_t wi = what ? text_slot(r, what, fi, -1) : -1;
    STORE(h->fn, fi);
    STORE(h->what, wi);
    STORE(h->via, via ? text_slot(r, via, fi, wi) : -1);
    STORE(h->peer, (int32_t)LOAD(r->peer));
    STORE(h->peer_thread, (int32_t)LOAD(r->peer_thread));
    STORE(h->team_slot, (int32_t)LOAD(r->team_slot));
    STORE(h->coll, LOAD(r->seq));
    STORE(h->since_ns, LOAD(r->since_ns));
    STORE(h->addr, (uint64_t)(uintptr_t)LOAD(r->addr));
    STORE(h->blocked, 1u);
    __atomic_store_n(&h->seq, s + 2, __ATOMIC_RELEASE);
}

void shoal_wait_record_begin(const char *fn, const void *addr, uint64_t now_ns)
{
    struct shoal_wait_record *r = shoal_wait_record_mine();
    if (!now_ns)
        now_ns = clock_ns();
    STORE(r->addr, addr);
    STORE(r->since_ns, now_ns);
    __atomic_store_n(&r->fn, fn, __ATOMIC_RELEASE);
    if (SHOAL_LIKELY(r != &records[RECORDS_MAX])) {
        publish(r);
    } else if (!__atomic_exchange_n(&spare_busy, 1, __ATOMIC_ACQUIRE)) {
        publish(r); /* threads beyond the table share it: one at a time */
        __atomic_store_n(&spare_busy, 0, __ATOMIC_RELEASE);
    }
}

void shoal_wait_record_end(void)
{
    struct shoal_wait_record *r = shoal_wait_record_mine();
    STORE(r->fn, (const char *)NULL);
    __atomic_store_n(&r->pub->blocked, 0u, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------ the report */

static void write_line(const char *s, size_t n, void *arg)
{
    int fd = *(const int *)arg;
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

/* Async-signal-safe (the SIGQUIT handler): before the page is made, the
 * empty fallback says that nothing is blocked. */
void shoal_wait_report(int fd)
{
    shoal_hang_report(__atomic_load_n(&page, __ATOMIC_ACQUIRE), shoal_g.my_pe, (long)getpid(),
                      clock_ns(), write_line, &fd);
}

static void on_sigquit(int sig)
{
    (void)sig;
    int saved = errno;
    shoal_wait_report(STDERR_FILENO);
    errno = saved;
}

static int installed, handed;

void shoal_wait_report_install(void)
{
    pthread_once(&page_once, make_page);
    if (!handed && page_fd >= 0) {
        handed = 1;
        shoal_boot_set_report_fd(page_fd); /* the bootstrap closes it */
        page_fd = -1;
    }
    /* An ignored SIGQUIT is the launcher's doing (Open MPI's mpirun starts
     * its processes so), and a report does no more than ignoring would. */
    struct sigaction old;
    if (installed || sigaction(SIGQUIT, NULL, &old) != 0 ||
        (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN))
        return; /* the program handles SIGQUIT itself */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigquit;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGQUIT, &sa, NULL) == 0)
        installed = 1;
}

/* ------------------------------------------------- waits in the network */

/* The outer wait's record, kept while a network request holds the
 * thread's record (ucx_wait inside a collective's send, say). */
struct saved_wait {
    const char *fn, *what, *via;
    const void *addr;
    int peer, peer_thread, team_slot;
    uint64_t seq, since_ns;
};
static __thread struct saved_wait net_saved;
static __thread int net_depth;

void shoal_wait_net_begin(const char *fn, int pe, const char *what)
{
    if (net_depth++)
        return;
    struct shoal_wait_record *r = shoal_wait_record_mine();
    net_saved = (struct saved_wait){LOAD(r->fn),        LOAD(r->what), LOAD(r->via),
                                    LOAD(r->addr),      LOAD(r->peer), LOAD(r->peer_thread),
                                    LOAD(r->team_slot), LOAD(r->seq),  LOAD(r->since_ns)};
    STORE(r->via, (const char *)NULL);
    STORE(r->team_slot, -1);
    STORE(r->seq, (uint64_t)0);
    STORE(r->peer_thread, -1);
    STORE(r->peer, pe);
    STORE(r->what, what);
    shoal_wait_record_begin(fn, NULL, 0);
}

void shoal_wait_net_end(void)
{
    if (net_depth == 0 || --net_depth)
        return;
    if (shoal_wait_calls_end) /* a collective's send may have said it waits */
        shoal_wait_calls_end();
    struct shoal_wait_record *r = shoal_wait_record_mine();
    const struct saved_wait *w = &net_saved;
    STORE(r->team_slot, w->team_slot);
    STORE(r->seq, w->seq);
    STORE(r->peer_thread, w->peer_thread);
    STORE(r->peer, w->peer);
    STORE(r->what, w->what);
    STORE(r->via, w->via);
    if (w->fn)
        shoal_wait_record_begin(w->fn, w->addr, w->since_ns);
    else
        shoal_wait_record_end();
}

/* ------------------------------------------------- waits in the bootstrap */

void shoal_wait_boot_begin(const char *fn, const char *what, const char *via)
{
    shoal_wait_note_peer(-1, 0, -1, what);
    STORE(shoal_wait_record_mine()->via, via);
    shoal_wait_record_begin(fn, NULL, 0);
}

void shoal_wait_boot_end(void)
{
    shoal_wait_record_end();
    STORE(shoal_wait_record_mine()->via, (const char *)NULL);
    shoal_wait_note_clear();
}
