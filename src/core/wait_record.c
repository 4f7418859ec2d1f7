/* Wait records and the hang report (wait_record.h).
 *
 * Records live in a fixed table, one per thread that ever blocked, claimed
 * on first use and given back when the thread exits, so that the SIGQUIT
 * handler can walk them without a lock.  Fields are written and read with
 * relaxed atomics: the report is a snapshot of a job that is stuck. */
#include "core/wait_record.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/ops.h"

#define RECORDS_MAX 256

static struct shoal_wait_record records[RECORDS_MAX + 1]; /* the last one is shared */
static int n_claimed;
static __thread struct shoal_wait_record *mine;
static pthread_key_t release_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static void release(void *arg)
{
    struct shoal_wait_record *r = arg;
    STORE(r->fn, NULL);
    __atomic_store_n(&r->used, 0, __ATOMIC_RELEASE);
}

static void make_key(void)
{
    pthread_key_create(&release_key, release);
}

static struct shoal_wait_record *claim(void)
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
            records[n].team_slot = -1;
            __atomic_store_n(&records[n].used, 1, __ATOMIC_RELEASE);
            return &records[n];
        }
    records[RECORDS_MAX].thread = RECORDS_MAX;
    return &records[RECORDS_MAX];
}

struct shoal_wait_record *shoal_wait_record_mine(void)
{
    if (SHOAL_LIKELY(mine != NULL))
        return mine;
    mine = claim();
    if (mine != &records[RECORDS_MAX]) {
        pthread_once(&key_once, make_key);
        pthread_setspecific(release_key, mine);
    }
    return mine;
}

void shoal_wait_note_peer(int team_slot, uint64_t seq, int peer, const char *what)
{
    struct shoal_wait_record *r = shoal_wait_record_mine();
    STORE(r->team_slot, team_slot);
    STORE(r->seq, seq);
    STORE(r->what, what);
    STORE(r->peer, peer);
}

void shoal_wait_note_clear(void)
{
    struct shoal_wait_record *r = shoal_wait_record_mine();
    STORE(r->peer, -1);
    STORE(r->team_slot, -1);
    STORE(r->what, (const char *)NULL);
}

static uint64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void shoal_wait_record_begin(const char *fn, const void *addr, uint64_t now_ns)
{
    struct shoal_wait_record *r = shoal_wait_record_mine();
    if (!now_ns)
        now_ns = clock_ns();
    STORE(r->addr, addr);
    STORE(r->since_ns, now_ns);
    __atomic_store_n(&r->fn, fn, __ATOMIC_RELEASE);
}

void shoal_wait_record_end(void)
{
    STORE(shoal_wait_record_mine()->fn, (const char *)NULL);
}

/* ------------------------------------------------------------ the report */

static const char *team_name(int slot, char *buf, size_t len)
{
    if (slot == SHOAL_TEAM_SLOT_WORLD)
        return "SHMEM_TEAM_WORLD";
    if (slot == SHOAL_TEAM_SLOT_SHARED)
        return "SHMEM_TEAM_SHARED";
    if (slot == -2)
        return "an active set";
    snprintf(buf, len, "the team in slot %d", slot);
    return buf;
}

static void write_line(int fd, const char *s, size_t n)
{
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

static int report_one(int fd, const struct shoal_wait_record *r, uint64_t now)
{
    const char *fn = LOAD(r->fn);
    if (!fn)
        return 0;
    char line[512], team[48], coll[128] = "", peer[160] = "";
    uint64_t since = LOAD(r->since_ns);
    double secs = since && now > since ? (double)(now - since) / 1e9 : 0.0;
    int slot = LOAD(r->team_slot), pe = LOAD(r->peer);
    const char *what = LOAD(r->what);
    if (slot != -1)
        snprintf(coll, sizeof coll, " (collective #%llu on %s)", (unsigned long long)LOAD(r->seq),
                 team_name(slot, team, sizeof team));
    if (pe >= 0)
        snprintf(peer, sizeof peer, ", waiting for PE %d%s%s", pe, what ? ": " : "",
                 what ? what : "");
    else if (what)
        snprintf(peer, sizeof peer, ", waiting for %s", what);
    int n = snprintf(line, sizeof line,
                     "shoal: PE %d (pid %ld): thread %d blocked for %.2f s in %s%s%s (word %p)\n",
                     shoal_g.my_pe, (long)getpid(), r->thread, secs, fn, coll, peer, LOAD(r->addr));
    write_line(fd, line, n < (int)sizeof line ? (size_t)n : sizeof line - 1);
    return 1;
}

void shoal_wait_report(int fd)
{
    uint64_t now = clock_ns();
    int n = __atomic_load_n(&n_claimed, __ATOMIC_ACQUIRE), blocked = 0;
    for (int i = 0; i < n; i++)
        blocked += report_one(fd, &records[i], now);
    blocked += report_one(fd, &records[RECORDS_MAX], now);
    if (!blocked) {
        char line[160];
        int k = snprintf(line, sizeof line,
                         "shoal: PE %d (pid %ld): no thread is blocked in Shoal (computing, or "
                         "blocked outside Shoal)\n",
                         shoal_g.my_pe, (long)getpid());
        write_line(fd, line, (size_t)k);
    }
}

static void on_sigquit(int sig)
{
    (void)sig;
    int saved = errno;
    shoal_wait_report(STDERR_FILENO);
    errno = saved;
}

static int installed;

void shoal_wait_report_install(void)
{
    struct sigaction old;
    if (installed || sigaction(SIGQUIT, NULL, &old) != 0 || old.sa_handler != SIG_DFL)
        return; /* the program handles SIGQUIT itself */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigquit;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGQUIT, &sa, NULL) == 0)
        installed = 1;
}

/* -------------------------------------------------------- leaving the job */

int shoal_peer_leaving(int pe, const char *fn)
{
    int slot = shoal_slot(pe);
    if (slot >= 0)
        return (int)__atomic_load_n(&shoal_ctl_of_slot(slot)->leaving, __ATOMIC_ACQUIRE);
    return (int)shoal_net_amo(shoal_ctx_default.net, SHOAL_AMO_FETCH, &shoal_my_ctl()->leaving, 4,
                              0, 0, pe, fn);
}
