/* File descriptors for new workers (ucx_fds.h). */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "transport/ucx/ucx_fds.h"
#include "transport/ucx/ucx_internal.h"

/* Descriptors kept free, an eighth of the limit and at least 32: for the
 * program's own files and for what UCX opens for a moment (making a
 * worker reads /proc and /sys; connecting over shared memory opens the
 * peer's segment), which many threads connecting at once multiply
 * (UCX 1.22 over sm, 256 threads, 3 PEs: with 32 kept free, 1 run in 5
 * failed with "Endpoint timeout" in ucp_ep_create). */
#define FDS_MARGIN(limit) ((limit) / 8 > 32 ? (limit) / 8 : 32)
/* A new context's connections are estimated for at most this many peers
 * (a context of a large job rarely reaches them all); the average that
 * the contexts made so far really cost takes over where it is higher. */
#define REACH_CAP 8
/* A worker's own descriptors before one was measured (UCX 1.13 and 1.22
 * over tcp and shared memory: 6 to 10). */
#define WORKER_FDS_GUESS 10

static long base_open = -1; /* open descriptors when the first worker was made */
static long n_made;         /* workers made since */
static long worker_fds = WORKER_FDS_GUESS;
static int warned;

/* Descriptors open in this process, or -1 when that cannot be read (the
 * directory takes one itself, which is not counted). */
static long open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    long n = -1;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

/* tcp lanes of an endpoint to another PE, from what init saw (ucx_lanes.c
 * notes "tcp/lo.0 [...], tcp/eth0.0 [...]"); 2 before it looked. */
static int tcp_lanes(void)
{
    if (!ucx_g.tls_note[0])
        return 2;
    int n = 0;
    for (const char *p = ucx_g.tls_note; (p = strstr(p, "tcp/")); p += 4)
        n++;
    return n;
}

/* PEs a context may connect to through UCX. */
static int reach(void)
{
    if (ucx_g.mode == SHOAL_NET_ALL || !ucx_g.peer_same_host)
        return ucx_g.n_pes;
    int n = 0;
    for (int pe = 0; pe < ucx_g.n_pes; pe++)
        n += !ucx_g.peer_same_host[pe];
    return n;
}

/* What one more context may cost: its worker, one socket each way per
 * tcp lane to each peer it reaches (estimated), or the average of the
 * contexts made so far if higher. */
static long context_fds(long open)
{
    int peers = reach() < REACH_CAP ? reach() : REACH_CAP;
    long est = worker_fds + 2L * tcp_lanes() * peers;
    long avg = n_made > 0 && open > base_open ? (open - base_open + n_made - 1) / n_made : 0;
    return avg > est ? avg : est;
}

/* Why a PE cannot start UCX's workers, and what limit to raise. */
static void too_few(char *msg, size_t len, long open, const struct rlimit *rl, long cost)
{
    long limit = (long)rl->rlim_cur, need = open + cost + FDS_MARGIN(limit);
    char hard[64] = "unlimited";
    if (rl->rlim_max != RLIM_INFINITY)
        snprintf(hard, sizeof hard, "%ld", (long)rl->rlim_max);
    snprintf(msg, len,
             "too few file descriptors for the network transport (UCX): the soft limit "
             "RLIMIT_NOFILE is %ld, %ld are open, and a UCX worker needs about %ld more, with %ld "
             "kept free for the program and for what UCX opens as it connects; raise the limit "
             "before starting the job (`ulimit -n %ld` or more, up to the hard limit, %s; more "
             "for each context or thread with a worker of its own, and for each peer reached "
             "over tcp)",
             limit, open, cost, (long)FDS_MARGIN(limit), need > 1024 ? need : 1024, hard);
}

int ucx_fds_check_start(char *err, size_t errlen)
{
    struct rlimit rl;
    long open = open_fds();
    if (open < 0 || getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        open + worker_fds + FDS_MARGIN((long)rl.rlim_cur) <= (long)rl.rlim_cur)
        return 0;
    too_few(err, errlen, open, &rl, worker_fds);
    return -1;
}

/* No worker of this PE's own could be made: without one it cannot
 * communicate through UCX at all (the default context at init, or a
 * thread's first use of it), so the job ends. */
_Noreturn static void refuse_first(const char *fn, long open, const struct rlimit *rl, long cost)
{
    char msg[480];
    too_few(msg, sizeof msg, open, rl, cost);
    ucx_fatalf(fn, "%s", msg);
}

static void refuse(const char *fn, long open, long limit, long cost)
{
    if (warned++)
        return;
    ucx_warnf(fn,
              "not enough file descriptors for another UCX worker (a context's, or a thread's "
              "for SHMEM_CTX_DEFAULT): %ld of RLIMIT_NOFILE = %ld are open or owed to the %ld "
              "made, and one costs about %ld (%ld of its own, %d per peer it reaches over tcp); "
              "raise the limit (ulimit -n) or use fewer contexts; not created (further refusals "
              "on this PE are not reported)",
              open, limit, n_made, cost, worker_fds, 2 * tcp_lanes());
}

ucs_status_t ucx_fds_worker_create(const ucp_worker_params_t *wp, ucp_worker_h *h, const char *fn)
{
    struct rlimit rl;
    long open = open_fds();
    if (open < 0 || getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return ucp_worker_create(ucx_g.ctx, wp, h); /* nothing to go by */
    if (base_open < 0)
        base_open = open;
    long limit = (long)rl.rlim_cur, cost = context_fds(open);
    long owed = base_open + n_made * cost; /* made contexts may not have connected yet */
    long used = open > owed ? open : owed;
    if (used + cost + FDS_MARGIN(limit) > limit) {
        if (n_made == 0)
            refuse_first(fn, used, &rl, cost);
        refuse(fn, used, limit, cost);
        return UCS_ERR_EXCEEDS_LIMIT;
    }
    ucs_status_t st = ucp_worker_create(ucx_g.ctx, wp, h);
    if (st != UCS_OK)
        return st;
    /* The first worker's rise is its own cost: made at init, single-
     * threaded (later ones may see other threads' connections and
     * passing descriptors too). */
    long rise = open_fds() - open;
    if (n_made == 0 && rise > 0 && rise < 256)
        worker_fds = rise;
    n_made++;
    return st;
}
