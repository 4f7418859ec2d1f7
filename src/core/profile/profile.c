/* SHOAL_PROFILE's counters: the threads' blocks, the clock, the totals of
 * this PE, and the partial file of a job that goes down without a
 * finalize.  The merge and the report are prof_merge.c's. */
#include "core/profile/prof_internal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#if SHOAL_PROF_HAVE_TSC
#include <cpuid.h>
#endif

#include "boot/boot.h"
#include "core/config/error.h"

__thread struct shoal_prof_block *shoal_prof_tl __attribute__((tls_model("initial-exec")));
__thread struct shoal_prof_block *shoal_prof_quick __attribute__((tls_model("initial-exec")));
int shoal_prof_use_tsc;
int shoal_prof_on;

enum { IDLE, RUNNING, DONE };
static int state;
static int abandoned; /* a partial file was written (or the report is under way) */

/* Every thread's block, newest first.  Blocks are appended under the lock
 * and published with a release store, so that a reader (the report, a
 * signal handler) walks the list without it; they live until the report. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shoal_prof_block *registry;

static char path[SHOAL_PROF_PATH_MAX], stem[SHOAL_PROF_PATH_MAX];
static char job[SHOAL_PROF_JOB_MAX + 1];
static char host[SHOAL_PROF_HOST_MAX];
static int node;
/* The clock and CLOCK_MONOTONIC read together at the start, and the
 * monotonic clock at the stop (the wall time). */
static uint64_t tick0, ns0, ns_stop;

struct shoal_prof_block *shoal_prof_attach(void)
{
    /* Pages of its own: a block that shared a cache line or a page with
     * what the program or Shoal writes beside it made every counted call
     * slower (0.8 ns of an 8-byte put's 3.5 here). */
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t size = sizeof(struct shoal_prof_block) +
                  (size_t)shoal_g.n_pes * SHOAL_PROF_NTGT * sizeof(struct shoal_prof_cell);
    size = (size + page - 1) / page * page;
    void *mem = NULL;
    if (posix_memalign(&mem, page, size) != 0)
        shoal_fatal("SHOAL_PROFILE", "out of memory for a thread's profile (%zu bytes)", size);
    struct shoal_prof_block *b = memset(mem, 0, size);
    pthread_mutex_lock(&registry_lock);
    b->next = registry;
    __atomic_store_n(&registry, b, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&registry_lock);
    shoal_prof_tl = b;
    shoal_prof_quick = shoal_g.debug || shoal_g.net_active ? NULL : b;
    return b;
}

uint64_t shoal_prof_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* An invariant TSC ticks at one rate in every power state and on every
 * core (CPUID 0x80000007, EDX bit 8); Linux then keeps the cores' counters
 * in step. */
static int tsc_invariant(void)
{
#if SHOAL_PROF_HAVE_TSC
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1;
#else
    return 0;
#endif
}

/* The PE this one is grouped with in the report: the lowest it reaches by
 * load/store (none under SHOAL_TRANSPORTS=ucx: then itself). */
static int node_of_me(void)
{
    if (shoal_slot(shoal_g.my_pe) < 0)
        return shoal_g.my_pe;
    int p = 0;
    while (shoal_slot(p) < 0)
        p++;
    return p;
}

const char *shoal_prof_path(void)
{
    return path;
}

const char *shoal_prof_stem(void)
{
    return stem;
}

const char *shoal_prof_job(void)
{
    return job;
}

/* The files' names from SHOAL_PROFILE's value: a directory (one that
 * exists, or a name that ends in '/') holds SHOAL_PROF_DEFAULT_NAME.json
 * and its matrices; any other name is the JSON's, and the others' names
 * are it without ".json". */
static void name_files(const char *file)
{
    size_t n = strlen(file);
    struct stat st;
    int slash = n > 0 && file[n - 1] == '/';
    if (slash || (stat(file, &st) == 0 && S_ISDIR(st.st_mode)))
        snprintf(path, sizeof path, "%s%s%s.json", file, slash ? "" : "/", SHOAL_PROF_DEFAULT_NAME);
    else
        snprintf(path, sizeof path, "%s", file);
    snprintf(stem, sizeof stem, "%s", path);
    n = strlen(stem);
    if (n > 5 && !strcmp(stem + n - 5, ".json"))
        stem[n - 5] = '\0';
}

/* PE 0 says at once where the files cannot go (a run may be long): the
 * directory that would hold them is missing or not writable. */
static void check_destination(void)
{
    char dir[sizeof path];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        slash[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    struct stat st;
    int err = stat(dir, &st) != 0             ? errno
              : !S_ISDIR(st.st_mode)          ? ENOTDIR
              : access(dir, W_OK | X_OK) != 0 ? errno
                                              : 0;
    if (err)
        shoal_warn("SHOAL_PROFILE", "the profile cannot be written to %s: %s: %s", path, dir,
                   strerror(err));
}

static void on_fatal(const char *routine)
{
    char why[160];
    snprintf(why, sizeof why, "fatal error in %s", routine ? routine : "Shoal");
    shoal_prof_abandon(why);
}

/* SIGTERM is how launchers end the other PEs of a failed job (oshrun,
 * mpirun, srun): each writes its partial file, then dies of the signal. */
static struct sigaction old_term;
static int term_installed;

static void on_term(int sig)
{
    shoal_prof_abandon("terminated by SIGTERM");
    raise(sig); /* SA_RESETHAND: the default action, once this returns */
}

/* Only where the program left SIGTERM alone. */
static void install_term(void)
{
    struct sigaction sa;
    if (sigaction(SIGTERM, NULL, &old_term) != 0 || old_term.sa_handler != SIG_DFL)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    term_installed = sigaction(SIGTERM, &sa, NULL) == 0;
}

void shoal_prof_start(const char *file)
{
    if (state != IDLE)
        return;
    name_files(file);
    if (shoal_g.my_pe == 0)
        check_destination();
    if (shoal_g.boot && shoal_g.boot->jobid)
        snprintf(job, sizeof job, "%s", shoal_g.boot->jobid);
    struct utsname u;
    if (uname(&u) == 0) /* (a longer name is cut) */
        memcpy(host, u.nodename, strnlen(u.nodename, sizeof host - 1));
    node = node_of_me();
    shoal_prof_use_tsc = tsc_invariant();
    tick0 = shoal_prof_now();
    ns0 = shoal_prof_clock_ns();
    shoal_fatal_hook_set(on_fatal);
    shoal_ending_hook_set(shoal_prof_abandon);
    install_term();
    state = RUNNING;
    shoal_prof_on = 1;
    shoal_g.slow = 1;
}

void shoal_prof_stop(void)
{
    if (state != RUNNING || !shoal_prof_on)
        return;
    shoal_prof_on = 0;
    shoal_g.slow = shoal_g.debug;
    ns_stop = shoal_prof_clock_ns();
}

/* ---------------------------------------------------------- this PE's totals */

/* ns per tick of shoal_prof_now, from the start to now. */
static double ns_per_tick(void)
{
    if (!shoal_prof_use_tsc)
        return 1.0;
    uint64_t t = shoal_prof_now(), n = shoal_prof_clock_ns();
    return t > tick0 ? (double)(n - ns0) / (double)(t - tick0) : 1.0;
}

static int route_of(int fam, int dst)
{
    if (shoal_prof_class_of[fam] == SHOAL_PROF_C_AMO && shoal_g.amo_via_net)
        return SHOAL_PROF_NETWORK;
    return shoal_slot(dst) >= 0 ? SHOAL_PROF_ON_NODE : SHOAL_PROF_NETWORK;
}

static void add_cells(struct shoal_prof_pe *out, const struct shoal_prof_block *b)
{
    for (size_t i = 0, n = (size_t)shoal_g.n_pes * SHOAL_PROF_NTGT; i < n; i++) {
        const struct shoal_prof_cell *c = &b->cell[i];
        if (c->ops) {
            out->calls[i % SHOAL_PROF_NTGT] += c->ops;
            out->bytes[i % SHOAL_PROF_NTGT] += c->bytes;
        }
    }
}

void shoal_prof_sum_pe(struct shoal_prof_pe *out)
{
    memset(out, 0, sizeof *out);
    out->magic = SHOAL_PROF_MAGIC;
    out->nfam = SHOAL_PROF_NFAM;
    out->pe = shoal_g.my_pe;
    out->node = node;
    out->amo_via_net = (uint32_t)shoal_g.amo_via_net;
    out->wall_ns = (ns_stop ? ns_stop : shoal_prof_clock_ns()) - ns0;
    memcpy(out->host, host, sizeof host);
    double scale = ns_per_tick();
    for (const struct shoal_prof_block *b = __atomic_load_n(&registry, __ATOMIC_ACQUIRE); b;
         b = b->next) {
        out->threads++;
        for (int f = 0; f < SHOAL_PROF_NFAM; f++) {
            out->calls[f] += b->fam[f].calls;
            out->bytes[f] += b->fam[f].bytes;
            out->ns[f] += (uint64_t)((double)b->fam[f].ticks * scale);
        }
        add_cells(out, b);
    }
    for (int f = 0; f < SHOAL_PROF_NFAM; f++)
        out->shoal_ns += out->ns[f];
    size_t cursor = 0;
    struct shoal_prof_pair p;
    while (shoal_prof_next_pair(&cursor, &p))
        out->npairs++;
}

int shoal_prof_next_pair(size_t *cursor, struct shoal_prof_pair *out)
{
    const struct shoal_prof_block *head = __atomic_load_n(&registry, __ATOMIC_ACQUIRE);
    for (size_t n = (size_t)shoal_g.n_pes * SHOAL_PROF_NTGT; *cursor < n;) {
        size_t i = (*cursor)++;
        uint64_t ops = 0, bytes = 0;
        for (const struct shoal_prof_block *b = head; b; b = b->next) {
            ops += b->cell[i].ops;
            bytes += b->cell[i].bytes;
        }
        if (!ops)
            continue;
        int dst = (int)(i / SHOAL_PROF_NTGT), fam = (int)(i % SHOAL_PROF_NTGT);
        *out = (struct shoal_prof_pair){(uint32_t)shoal_g.my_pe,      (uint32_t)dst, (uint16_t)fam,
                                        (uint16_t)route_of(fam, dst), ops,           bytes};
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ partial files */

static size_t put_str(char *d, size_t at, size_t cap, const char *s)
{
    while (*s && at + 1 < cap)
        d[at++] = *s++;
    d[at] = '\0';
    return at;
}

static size_t put_uint(char *d, size_t at, size_t cap, unsigned long v)
{
    char tmp[24];
    int n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n > 0 && at + 1 < cap)
        d[at++] = tmp[--n];
    d[at] = '\0';
    return at;
}

/* The text of errno `err` where the C library gives it without a lock or
 * an allocation (glibc 2.32 and later), else its number. */
static size_t put_errno(char *d, size_t at, size_t cap, int err)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
    const char *text = strerrordesc_np(err);
    if (text)
        return put_str(d, at, cap, text);
#endif
    at = put_str(d, at, cap, "errno ");
    return put_uint(d, at, cap, (unsigned long)err);
}

static int next_pair_cb(void *arg, struct shoal_prof_pair *out)
{
    return shoal_prof_next_pair(arg, out);
}

/* Names the file, writes it and says so on stderr, all with system calls
 * only (a signal handler may be the caller). */
void shoal_prof_abandon(const char *why)
{
    if (state != RUNNING || __atomic_exchange_n(&abandoned, 1, __ATOMIC_ACQ_REL))
        return;
    /* The routines' counted twins count without testing shoal_prof_on. */
    shoal_prof_on = 0;
    shoal_g.slow = shoal_g.debug;
    char file[sizeof stem + 32], msg[sizeof file + 128];
    size_t n = put_str(file, 0, sizeof file, stem);
    n = put_str(file, n, sizeof file, ".pe");
    n = put_uint(file, n, sizeof file, (unsigned long)shoal_g.my_pe);
    put_str(file, n, sizeof file, ".json");
    struct shoal_prof_pe me;
    shoal_prof_sum_pe(&me);
    size_t cursor = 0;
    int rc = shoal_prof_write_json(file, shoal_g.n_pes, &me, 1, next_pair_cb, &cursor, why);
    int err = errno;
    size_t m = put_str(msg, 0, sizeof msg, "shoal: PE ");
    m = put_uint(msg, m, sizeof msg, (unsigned long)shoal_g.my_pe);
    m = put_str(msg, m, sizeof msg,
                rc == 0 ? ": SHOAL_PROFILE: this PE's profile (partial: " : ": SHOAL_PROFILE: ");
    m = put_str(msg, m, sizeof msg, rc == 0 ? why : "cannot write ");
    m = put_str(msg, m, sizeof msg, rc == 0 ? ") in " : "");
    m = put_str(msg, m, sizeof msg, file);
    if (rc != 0) {
        m = put_str(msg, m, sizeof msg, ": ");
        m = put_errno(msg, m, sizeof msg, err);
    }
    m = put_str(msg, m, sizeof msg, "\n");
    ssize_t w = write(STDERR_FILENO, msg, m);
    (void)w;
}

/* ------------------------------------------------------------- the report */

/* The calibration of a run shorter than this is too coarse: the report
 * waits out the rest. */
#define CALIBRATION_NS 20000000u

int shoal_prof_finishing(void)
{
    if (state != RUNNING || __atomic_exchange_n(&abandoned, 1, __ATOMIC_ACQ_REL))
        return 0;
    shoal_prof_stop();
    uint64_t elapsed = shoal_prof_clock_ns() - ns0;
    if (shoal_prof_use_tsc && elapsed < CALIBRATION_NS) {
        uint64_t rest = CALIBRATION_NS - elapsed;
        struct timespec ts = {0, (long)rest};
        nanosleep(&ts, NULL);
    }
    return 1;
}

void shoal_prof_release(void)
{
    if (term_installed) {
        struct sigaction cur;
        if (sigaction(SIGTERM, NULL, &cur) == 0 && cur.sa_handler == on_term)
            sigaction(SIGTERM, &old_term, NULL);
        term_installed = 0;
    }
    shoal_fatal_hook_set(NULL);
    shoal_ending_hook_set(NULL);
    state = DONE;
}
