/* PMIx bootstrap: the program was started by a PMIx launcher (Open MPI's
 * mpirun, Slurm's srun --mpi=pmix, PRRTE's prterun), which runs a PMIx
 * server on every node; boot_open.c picks this file when PMIX_NAMESPACE /
 * PMIX_RANK say so (or SHOAL_BOOT=pmix).  Compiled only in a build with
 * PMIx (SHOAL_HAVE_PMIX).
 *
 *   rank, size   PMIx_Init's rank in the namespace; PMIX_JOB_SIZE
 *   jobid        the namespace, made safe for a socket name
 *   allgather    PMIx_Put of a byte object under a fresh key
 *                ("shoal.ag.<n>": every PE makes the same calls in the
 *                same order), PMIx_Commit, PMIx_Fence collecting the data,
 *                then PMIx_Get of that key for every rank.  PMIx keeps
 *                every value for the life of the job and sends a PE's
 *                whole set again at each fence with data, so each round
 *                costs more as data accumulates: fine for start-up
 *                exchanges (a few KB per PE), not a data path
 *   barrier      PMIx_Fence collecting data (with nothing new to collect):
 *                Slurm's srun --mpi=pmix answers a fence that collects no
 *                data on each node by itself, without waiting for the
 *                other nodes (its mpi.conf PMIxFenceBarrier, false by
 *                default), so that a host's PEs left shmem_finalize and
 *                closed their connections while another host's were still
 *                in shmem_init; a fence that collects is a barrier under
 *                every launcher
 *   finalize     marks the PE as finalizing; PMIx_Finalize (after which
 *                the launcher treats the exit as normal) runs at exit, from
 *                an atexit handler, because the caller still makes
 *                bootstrap barriers after finalize (shmem_finalize's last
 *                barrier, the network transport's)
 *   abort        PMIx_Abort, then _exit(status)
 *   lost server  the launcher's PMIx server went away (mpirun or the
 *                node's daemon was killed): nothing can end this job any
 *                more, and a PE waiting for its peers would wait forever,
 *                so it says so and exits (status 1) from libpmix's thread
 *
 * Open MPI 4's mpirun (ORTE) is handled apart: its PMIx server now and
 * then crashes mpirun (SIGSEGV in PMIx_server_finalize, exit status 139)
 * after a PMIx_Abort, whereas a process that exits non-zero without
 * PMIx_Finalize reliably takes the job down with that status.  So under
 * ORTE (OMPI_MCA_orte_hnp_uri in the environment) abort and global_exit do
 * not call PMIx_Abort: the process just exits with the status, unfinalized.
 * ORTE has no way to end a job early with status 0 (an unfinalized exit 0
 * is an "improper" one: mpirun says so and returns 1), so
 * shmem_global_exit(0) ends the job the other way: every PE, told by its
 * global_exit word (core) with the caller's count of fences (exit_mark),
 * completes the fence it waits in, if any, and enters fences up to the
 * caller's last one, finalizes PMIx and exits 0 by itself (leave); the caller
 * does the same (global_exit), and mpirun, all its processes ended
 * normally, returns 0.  The fence matters: mpirun's PMIx server crashes at
 * its end (PMIx_server_finalize) when a fence some processes entered is
 * still pending.  Where a PE does not come within GLOBAL_EXIT_WAIT_S (it
 * calls no Shoal routine, so it never learns that the job ends), the
 * caller exits unfinalized after all, as before: mpirun ends the job with
 * status 1, and says so.
 *
 * Errors: the interface returns -1 without a text, so failed collectives
 * print one line on stderr ("shoal: PE r: bootstrap: ...").  libc and
 * libpmix only. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#include "boot/boot.h"

/* How long, under ORTE, shmem_global_exit(0) waits for every PE to enter
 * the last fence before it lets mpirun end the job (status 1). */
#define GLOBAL_EXIT_WAIT_S 10

static struct {
    int open;       /* PMIx_Init succeeded, PMIx_Finalize not yet called */
    int finalizing; /* finalize() was called: PMIx_Finalize at exit */
    int closed;     /* PMIx_Finalize called: cannot be opened again */
    int orte;       /* started by Open MPI 4's mpirun (see above) */
    pid_t pid;      /* the process that initialized PMIx */
    int rank, size;
    unsigned long seq; /* allgathers so far: names the next key */
    pmix_proc_t me, all;
    char jobid[65];
} P;

/* One line, one write(): lines of different PEs do not interleave. */
__attribute__((format(printf, 1, 2))) static void print_err(const char *fmt, ...)
{
    char line[640];
    int n = snprintf(line, sizeof line, "shoal: PE %d: bootstrap: ", P.rank);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && n < (int)sizeof line)
        n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    if (n < 0)
        return;
    line[n++] = '\n';
    ssize_t w;
    do
        w = write(STDERR_FILENO, line, (size_t)n);
    while (w < 0 && errno == EINTR);
}

static int usable(const char *what)
{
    if (!P.open) {
        print_err("%s: the PMIx bootstrap is %s", what, P.closed ? "finalized" : "not open");
        return 0;
    }
    if (getpid() != P.pid) {
        print_err("%s called in process %ld, a forked child of PE %d (pid %ld): the PMIx "
                  "connection belongs to the PE",
                  what, (long)getpid(), P.rank, (long)P.pid);
        return 0;
    }
    return 1;
}

struct fence_wait {
    pmix_status_t status;
    int done;
};
/* The non-blocking fence under way in fence_collect, or NULL. */
static struct fence_wait *pending;
/* Fences this PE entered, the one pending included (the low
 * SHOAL_BOOT_MARK_BITS count): shmem_global_exit's caller tells its peers
 * its own number, so that each knows whether the fence it waits in is the
 * caller's last one or one the caller has already left (see last_fence). */
static uint32_t entered;
#define MARK_MASK ((1u << SHOAL_BOOT_MARK_BITS) - 1)

static void fence_done(pmix_status_t status, void *cbdata)
{
    struct fence_wait *f = cbdata;
    f->status = status;
    __atomic_store_n(&f->done, 1, __ATOMIC_RELEASE);
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs the progress hook (if any) until f is done or `deadline`
 * (CLOCK_MONOTONIC seconds; 0: none) passes.  Returns whether it is done. */
static int fence_wait_until(struct fence_wait *f, double deadline)
{
    void (*progress)(void) = shoal_boot_progress_hook();
    for (unsigned spins = 0; !__atomic_load_n(&f->done, __ATOMIC_ACQUIRE); spins++) {
        if (deadline > 0 && (spins & 255) == 0 && mono_s() > deadline)
            return 0;
        if (progress)
            progress();
        if (spins >= 256 || !progress) {
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
        }
    }
    return 1;
}

/* One fence, collecting data: the only kind that is a barrier under Slurm
 * (see the top of the file).  PMIx_Fence, or with `nb` the non-blocking
 * fence, the progress hook (if any) run while it is pending, up to
 * `deadline` (0: none).  Its status; *done: 0 where the non-blocking fence
 * could not start or the deadline passed. */
static pmix_status_t fence_collect(int nb, double deadline, int *done)
{
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_status_t rc;
    *done = 1;
    entered = (entered + 1) & MARK_MASK;
    if (!nb) {
        rc = PMIx_Fence(&P.all, 1, &info, 1);
    } else {
        struct fence_wait f = {PMIX_SUCCESS, 0};
        rc = PMIx_Fence_nb(&P.all, 1, &info, 1, fence_done, &f);
        if (rc == PMIX_OPERATION_SUCCEEDED) {
            rc = PMIX_SUCCESS;
        } else if (rc != PMIX_SUCCESS) {
            *done = 0;
        } else {
            pending = &f;
            *done = fence_wait_until(&f, deadline);
            pending = NULL;
            rc = f.status;
        }
    }
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

/* Non-blocking once the caller registered a progress hook (PMIx calls
 * fence_done from its own thread): a PE waiting here keeps its network
 * transport serving the peers that have not reached the fence yet. */
static int fence(void)
{
    int done;
    pmix_status_t rc = fence_collect(shoal_boot_progress_hook() != NULL, 0, &done);
    if (rc != PMIX_SUCCESS) {
        print_err("PMIx_Fence failed: %s (did another PE of the job exit?)", PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

/* atexit: a PE that finalized tells the launcher it ends cleanly.  One
 * that did not (exit with an error, shmem_global_exit) stays unfinalized,
 * which is how the launcher learns that the job failed.  A forked child
 * inherits the handler but not the connection. */
static void finalize_at_exit(void)
{
    if (!P.open || !P.finalizing || getpid() != P.pid)
        return;
    P.open = 0;
    P.closed = 1;
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS)
        print_err("PMIx_Finalize failed: %s", PMIx_Error_string(rc));
}

static int pmix_barrier(void)
{
    if (!usable("barrier"))
        return -1;
    return fence();
}

static int pmix_allgather(const void *in, void *out, size_t len)
{
    if (len == 0)
        return pmix_barrier();
    if (!usable("allgather"))
        return -1;
    char key[PMIX_MAX_KEYLEN + 1];
    snprintf(key, sizeof key, "shoal.ag.%lu", P.seq++);

    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)in; /* PMIx_Put copies it */
    v.data.bo.size = len;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        print_err("allgather: PMIx_Put/PMIx_Commit of %zu bytes failed: %s", len,
                  PMIx_Error_string(rc));
        return -1;
    }
    if (fence() < 0)
        return -1;
    /* Our own contribution last: `in` may be our slot of `out` (in place). */
    char *o = out;
    for (int r = 0; r < P.size; r++) {
        if (r == P.rank)
            continue;
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, P.me.nspace, (pmix_rank_t)r);
        pmix_value_t *got = NULL;
        rc = PMIx_Get(&p, key, NULL, 0, &got);
        if (rc != PMIX_SUCCESS || !got || got->type != PMIX_BYTE_OBJECT ||
            got->data.bo.size != len) {
            if (rc != PMIX_SUCCESS)
                print_err("allgather: PMIx_Get of rank %d's %zu bytes failed: %s", r, len,
                          PMIx_Error_string(rc));
            else
                print_err("allgather: rank %d contributed %zu bytes where %zu were expected "
                          "(do all PEs make the same bootstrap calls?)",
                          r, got && got->type == PMIX_BYTE_OBJECT ? got->data.bo.size : 0, len);
            if (got)
                PMIX_VALUE_RELEASE(got);
            return -1;
        }
        memcpy(o + (size_t)r * len, got->data.bo.bytes, len);
        PMIX_VALUE_RELEASE(got);
    }
    memmove(o + (size_t)P.rank * len, in, len);
    return 0;
}

static void pmix_finalize(void)
{
    if (usable("finalize"))
        P.finalizing = 1;
}

static _Noreturn void pmix_abort(int status, const char *reason)
{
    if (!P.orte && P.open && getpid() == P.pid)
        PMIx_Abort(status, reason ? reason : "shoal: abort", NULL, 0);
    _exit(status);
}

static uint32_t pmix_exit_mark(void)
{
    return entered;
}

/* Under ORTE with status 0: the last fence of shmem_global_exit's caller,
 * whose mark (fences it had entered) was `mark`, bounded by `deadline`
 * (0: none).  This PE may wait in that fence already, or in the one
 * before, which the caller has left but whose end has not reached this PE
 * yet (PMIx tells each process from its own thread): it completes the
 * one it waits in, then enters fences up to the caller's last.  Returns
 * whether that completed. */
static int last_fence(uint32_t mark, double deadline)
{
    if (pending && !fence_wait_until(pending, deadline))
        return 0;
    uint32_t behind = (mark + 1 - entered) & MARK_MASK;
    if (behind > 1) /* not a mark of this job's fences: one more, as without one */
        behind = 1;
    for (; behind > 0; behind--) {
        int done;
        (void)fence_collect(1, deadline, &done);
        if (!done)
            return 0;
    }
    return 1;
}

/* The caller runs exit(status) next.  Under ORTE the unfinalized non-zero
 * exit is what ends the job, and with status 0 every PE's finalized one
 * (see the top of the file). */
static void pmix_global_exit(int status)
{
    if (!P.open || getpid() != P.pid)
        return;
    if (!P.orte) {
        PMIx_Abort(status, "shmem_global_exit", NULL, 0);
    } else if (status == 0) {
        if (last_fence(entered, mono_s() + GLOBAL_EXIT_WAIT_S))
            P.finalizing = 1; /* PMIx_Finalize at exit */
        else
            print_err("shmem_global_exit(0): not every PE ended within %d s (a PE that calls no "
                      "Shoal routine does not learn that the job ends), so Open MPI's mpirun "
                      "ends the job, with status 1",
                      GLOBAL_EXIT_WAIT_S);
    }
}

/* Another PE's shmem_global_exit(status): where it aborted the job
 * (PMIx_Abort, or ORTE told by its non-zero exit) the launcher ends this
 * process; under ORTE with status 0 this process ends itself, finalized,
 * after the last fence (the caller's exit ends the job if that fails). */
static int pmix_leave(int status, uint32_t mark)
{
    if (!P.orte || status != 0)
        return 1;
    if (!P.open || getpid() != P.pid || !last_fence(mark, 0))
        return 1;
    P.open = 0;
    P.closed = 1;
    PMIx_Finalize(NULL, 0);
    return 0;
}

static void fill(struct shoal_boot *b)
{
    b->name = "pmix";
    b->channel = "PMIx";
    b->jobid = P.jobid;
    b->rank = P.rank;
    b->size = P.size;
    b->allgather = pmix_allgather;
    b->barrier = pmix_barrier;
    b->finalize = pmix_finalize;
    b->abort = pmix_abort;
    b->global_exit = pmix_global_exit;
    b->leave = pmix_leave;
    b->exit_mark = pmix_exit_mark;
}

/* "pmix-<namespace>", with characters a socket name should not hold
 * replaced by '_' and a hash of the real namespace added when anything was
 * replaced or cut, so that distinct namespaces stay distinct. */
static void make_jobid(const char *ns)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *p = ns; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    const size_t keep = 40;
    char *j = P.jobid;
    int altered = 0;
    size_t n = (size_t)snprintf(j, sizeof P.jobid, "pmix-");
    size_t i;
    for (i = 0; i < keep && ns[i]; i++) {
        char c = ns[i];
        int ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 c == '-' || c == '_' || c == '.';
        if (!ok)
            altered = 1;
        j[n++] = ok ? c : '_';
    }
    if (ns[i])
        altered = 1;
    j[n] = 0;
    if (altered || !*ns)
        snprintf(j + n, sizeof P.jobid - n, "-%08x", (unsigned)h);
}

/* A job-level number (PMIX_JOB_SIZE is a uint32 in every server seen so
 * far; others are accepted). */
static int get_job_uint(const char *key, uint64_t *out)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&P.all, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || !v)
        return -1;
    int ok = 1;
    switch (v->type) {
    case PMIX_UINT32: *out = v->data.uint32; break;
    case PMIX_UINT64: *out = v->data.uint64; break;
    case PMIX_UINT: *out = v->data.uint; break;
    case PMIX_UINT16: *out = v->data.uint16; break;
    case PMIX_INT:
        ok = v->data.integer >= 0;
        *out = (uint64_t)v->data.integer;
        break;
    case PMIX_INT32:
        ok = v->data.int32 >= 0;
        *out = (uint64_t)v->data.int32;
        break;
    default: ok = 0;
    }
    PMIX_VALUE_RELEASE(v);
    return ok ? 0 : -1;
}

#ifdef PMIX_ERR_LOST_CONNECTION
#define SHOAL_PMIX_LOST PMIX_ERR_LOST_CONNECTION /* PMIx 4 */
#else
#define SHOAL_PMIX_LOST PMIX_ERR_LOST_CONNECTION_TO_SERVER
#endif

static void lost_server(size_t id, pmix_status_t status, const pmix_proc_t *source,
                        pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                        pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    (void)cbfunc, (void)cbdata;
    /* Its stderr may be a pipe to the dead launcher: no SIGPIPE for this. */
    signal(SIGPIPE, SIG_IGN);
    print_err("lost the connection to the launcher's PMIx server (%s): the launcher is gone "
              "and cannot end the job; exiting",
              PMIx_Error_string(status));
    _exit(1);
}

/* After PMIx_Init; a failure costs only the clean exit above. */
static void watch_server(void)
{
    pmix_status_t code = SHOAL_PMIX_LOST;
    PMIx_Register_event_handler(&code, 1, NULL, 0, lost_server, NULL, NULL);
}

/* A program started from inside a PE (system(), a fork and exec)
 * inherits the PE's PMIX_NAMESPACE and PMIX_RANK, and PMIx_Init may then
 * succeed against the PE's own server and leave both waiting in a fence
 * forever.  So a PE leaves its identity and pid in SHOAL_PMIX_PE for its
 * children, and a process that inherited both is refused at once (a
 * launcher started from a PE gives its processes a namespace of their
 * own, which does not match). */
#define PE_MARK "SHOAL_PMIX_PE"

static int started_inside_pe(char *errbuf, size_t errlen)
{
    const char *mark = getenv(PE_MARK), *ns = getenv("PMIX_NAMESPACE"), *rank = getenv("PMIX_RANK");
    char mine[512];
    snprintf(mine, sizeof mine, "%s/%s/", ns ? ns : "", rank ? rank : "");
    if (!mark || !ns || !rank || strncmp(mark, mine, strlen(mine)))
        return 0;
    long pid = strtol(mark + strlen(mine), NULL, 10);
    if (pid == (long)getpid())
        return 0;
    snprintf(errbuf, errlen,
             "this process (pid %ld) was started from inside PE %s (pid %ld) of the job %.60s "
             "and inherited its PMIx identity (PMIX_NAMESPACE, PMIX_RANK): it cannot join that "
             "job.  Unset PMIX_NAMESPACE and PMIX_RANK (or set %s=singleton) to run it alone, or "
             "start it with a launcher of its own",
             (long)getpid(), rank, pid, ns, SHOAL_ENV_BOOT);
    return -1;
}

static void mark_pe(void)
{
    const char *ns = getenv("PMIX_NAMESPACE"), *rank = getenv("PMIX_RANK");
    if (!ns || !rank)
        return;
    char mark[512];
    snprintf(mark, sizeof mark, "%s/%s/%ld", ns, rank, (long)getpid());
    setenv(PE_MARK, mark, 1);
}

int shoal_boot_pmix_open(struct shoal_boot *b, char *errbuf, size_t errlen)
{
    if (P.open) {
        if (shoal_boot_check_owner((long)P.pid, P.rank, "PMIx connection", errbuf, errlen))
            return -1;
        fill(b); /* opened before in this process: same job */
        return 0;
    }
    if (P.closed) {
        snprintf(errbuf, errlen, "the PMIx bootstrap was finalized and cannot be reopened");
        return -1;
    }
    if (started_inside_pe(errbuf, errlen) < 0)
        return -1;
    mark_pe();
    pmix_status_t rc = PMIx_Init(&P.me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        const char *ns = getenv("PMIX_NAMESPACE");
        snprintf(errbuf, errlen,
                 "PMIx_Init failed: %s (PMIX_NAMESPACE=%.60s).  The PMIx bootstrap needs a "
                 "running PMIx launcher: start the program with mpirun or srun --mpi=pmix (a "
                 "program started by a PE inherits its PMIX_* variables: unset them, or set "
                 "%s=singleton, to run it alone)",
                 PMIx_Error_string(rc), ns ? ns : "(unset)", SHOAL_ENV_BOOT);
        return -1;
    }
    P.pid = getpid();
    P.rank = (int)P.me.rank;
    PMIX_LOAD_PROCID(&P.all, P.me.nspace, PMIX_RANK_WILDCARD);
    uint64_t size = 0;
    if (get_job_uint(PMIX_JOB_SIZE, &size) < 0 || size < 1 || size > INT32_MAX ||
        P.me.rank >= size) {
        snprintf(errbuf, errlen,
                 "the PMIx server gives no usable job size (PMIX_JOB_SIZE) for namespace %s, "
                 "rank %u",
                 P.me.nspace, (unsigned)P.me.rank);
        PMIx_Finalize(NULL, 0);
        return -1;
    }
    P.size = (int)size;
    make_jobid(P.me.nspace);
    P.orte = getenv("OMPI_MCA_orte_hnp_uri") != NULL;
    P.seq = 0;
    P.finalizing = 0;
    /* Registered after PMIx_Init, so it runs before anything libpmix
     * registered at exit. */
    static int registered;
    if (!registered && atexit(finalize_at_exit) == 0)
        registered = 1;
    if (!registered) {
        snprintf(errbuf, errlen, "atexit failed: cannot arrange PMIx_Finalize at exit");
        PMIx_Finalize(NULL, 0);
        return -1;
    }
    watch_server();
    P.open = 1;
    fill(b);
    return 0;
}
