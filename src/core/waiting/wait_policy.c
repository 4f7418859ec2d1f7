/* The waiting policy from the placement (wait_policy.h). */
#include "core/waiting/wait_policy.h"

#include <dirent.h>
#include <stdio.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/waiting/wait_learn.h"
#include "core/waiting/wait_record.h"
#include "transport/shm/shm_doorbell.h"
#include "core/config/env.h"
#include "core/config/log.h"
#include "core/state.h"
#include "transport/net.h"

struct shoal_wait_policy shoal_wait_p = {
    .fit = {.spin_ns = 50000, .yield_ns = 50000, .check_every = 64},
    .over = {.spin_ns = 2000, .yield_ns = 50000, .check_every = 1},
    .sleep_ns = 1000000,
};

#define SAMPLE_EVERY_NS 50000000ull
/* An oversubscribed waiter's yields before it sleeps (wait_policy_init). */
#define OVER_YIELD_NS 50000ull
#define OVER_YIELD_NET_NS 2000000ull
/* A waiter's spin where the PEs fit the CPUs (wait_policy_init). */
#define FIT_SPIN_US 10000l
#define FIT_SPIN_NET_US 1000000l

void shoal_wait_publish_placement(void)
{
    cpu_set_t set;
    struct shoal_ctl *c = shoal_my_ctl();
    memset(c->cpu_mask, 0, sizeof c->cpu_mask);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return; /* cpu_mask_cpus stays 0: unknown, counted as every CPU */
    int n = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && cpu < 64 * SHOAL_CPU_MASK_WORDS; cpu++)
        if (CPU_ISSET(cpu, &set)) {
            c->cpu_mask[cpu / 64] |= 1ull << (cpu % 64);
            n++;
        }
    __atomic_store_n(&c->cpu_mask_cpus, n, __ATOMIC_RELEASE);
}

/* The ctl blocks of the PEs this PE maps, itself included: fn(ctl, arg). */
static void for_each_local(void (*fn)(const struct shoal_ctl *, void *), void *arg)
{
    for (int pe = 0; pe < shoal_g.n_pes; pe++) {
        int slot = pe == shoal_g.my_pe ? shoal_my_slot() : shoal_slot(pe);
        if (slot >= 0)
            fn(shoal_ctl_of_slot(slot), arg);
    }
}

struct union_acc {
    uint64_t mask[SHOAL_CPU_MASK_WORDS];
    int unknown;
};

static void add_mask(const struct shoal_ctl *c, void *arg)
{
    struct union_acc *u = arg;
    if (__atomic_load_n(&c->cpu_mask_cpus, __ATOMIC_ACQUIRE) == 0)
        u->unknown = 1;
    for (int w = 0; w < SHOAL_CPU_MASK_WORDS; w++)
        u->mask[w] |= c->cpu_mask[w];
}

/* CPUs in the union of the masks of the PEs this PE maps (the others on
 * this node, under SHOAL_TRANSPORTS=ucx, count as having this PE's). */
static int node_cpus(void)
{
    struct union_acc u;
    memset(&u, 0, sizeof u);
    for_each_local(add_mask, &u);
    if (u.unknown)
        return (int)sysconf(_SC_NPROCESSORS_ONLN);
    int n = 0;
    for (int w = 0; w < SHOAL_CPU_MASK_WORDS; w++)
        n += __builtin_popcountll(u.mask[w]);
    return n;
}

/* Threads of the process whose task directory is `dir` ("/proc/self/task",
 * "/proc/<pid>/task") that are running or runnable now (state R), the
 * network transport's helper threads not counted; -1 if it cannot be read.
 * With `computing` (this process only): how many of those are not in a
 * wait of Shoal. */
static int running_threads_in(const char *dir, int *computing)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    const int self = computing ? (int)syscall(SYS_gettid) : 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[340], buf[256];
        snprintf(path, sizeof path, "%s/%s/stat", dir, e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t k = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (k <= 0)
            continue;
        buf[k] = 0;
        const char *paren = strrchr(buf, ')'); /* the command may hold spaces */
        const char *name = strchr(buf, '(');
        if (!paren || !name || paren < name)
            continue;
        if (shoal_net_helper_thread(name + 1, (size_t)(paren - name - 1)))
            continue; /* the transport's threads sleep while we poll */
        if (paren[1] != ' ' || paren[2] != 'R')
            continue;
        n++;
        /* (The looking thread is about to wait: not counted.) */
        const int tid = atoi(e->d_name);
        if (computing && tid != self && !shoal_wait_record_tid_waiting(tid))
            ++*computing;
    }
    closedir(d);
    return n;
}

static int running_threads(int *computing)
{
    int n = running_threads_in("/proc/self/task", computing);
    return n > 0 ? n : 1;
}

/* Running threads of this machine's PEs that this PE does not map (each a
 * pretend node of its own, SHOAL_SPLIT_NODES; SHOAL_TRANSPORTS=ucx): they
 * run on the same CPUs, so they count as the mapped PEs' do (a producer
 * and a consumer thread per PE, 2 PEs on 2 cores as pretend nodes: each PE
 * saw its own 2 threads fit, and the threads spun 1 s for a partner
 * queued behind the spinners, 2.8 ms per item, against 2.3 us yielding).
 * Read from /proc/<pid>/task, at most UNMAPPED_READS of them per look in
 * turn (the others counted as the mean of those read); a PE whose pid is
 * not known here (another PID namespace) counts one. */
#define UNMAPPED_READS 8
static int unmapped_running(void)
{
    const int unmapped = shoal_g.n_host - shoal_g.n_local;
    if (unmapped <= 0)
        return 0;
    static int next_start; /* where the next look begins (two may overlap) */
    const int n = shoal_g.n_pes, start = __atomic_load_n(&next_start, __ATOMIC_RELAXED);
    int reads = 0, sum = 0, with_pid = 0;
    for (int k = 0; k < n && shoal_g.peer_pid; k++) {
        const int pe = (start + k) % n;
        const long pid = shoal_g.peer_pid[pe];
        if (pe == shoal_g.my_pe || shoal_slot(pe) >= 0 || pid <= 0)
            continue;
        with_pid++;
        if (reads == UNMAPPED_READS)
            continue;
        char dir[64];
        snprintf(dir, sizeof dir, "/proc/%ld/task", pid);
        int r = running_threads_in(dir, NULL);
        sum += r > 0 ? r : 1;
        if (++reads == UNMAPPED_READS)
            __atomic_store_n(&next_start, (pe + 1) % n, __ATOMIC_RELAXED);
    }
    const int estimated = reads ? (int)((long)sum * with_pid / reads) : 0;
    return estimated + (unmapped > with_pid ? unmapped - with_pid : 0);
}

/* Runnable threads on the whole machine now (the 4th field of
 * /proc/loadavg, "running/total"), the calling one included; -1 if
 * unknown.  Other jobs' threads compete for the same CPUs. */
static int machine_running(void)
{
    char buf[128];
    int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t k = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (k <= 0)
        return -1;
    buf[k] = 0;
    double l1, l5, l15;
    int running, total;
    if (sscanf(buf, "%lf %lf %lf %d/%d", &l1, &l5, &l15, &running, &total) != 5)
        return -1;
    return running;
}

static void add_running(const struct shoal_ctl *c, void *arg)
{
    int r = __atomic_load_n(&c->running_threads, __ATOMIC_RELAXED);
    *(int *)arg += r > 0 ? r : 1; /* a PE that never looked runs one at least */
}

/* A look counts the threads running at one instant, and misses those
 * asleep for a moment: threads that hand work to each other sleep and wake
 * by turns, so a look may find them asleep and the CPUs "fitting", and the
 * PE then spins while they queue for its CPUs (thread_handoff, 2 PEs as
 * pretend nodes: one PE's looks counted 2 running threads, then 4, then 2;
 * one run in 15 took 127 us per item, against 1.5-21).  A PE that has seen
 * its threads oversubscribe the CPUs keeps that decision until its looks
 * have seen them fit for OVER_THREADS_KEEP_NS. */
#define OVER_THREADS_KEEP_NS 500000000ull

static int keep_over_threads(int over, uint64_t now_ns)
{
    static uint64_t last_seen_ns;
    uint64_t seen = __atomic_load_n(&last_seen_ns, __ATOMIC_RELAXED);
    if (over == 2)
        __atomic_store_n(&last_seen_ns, now_ns, __ATOMIC_RELAXED);
    return over == 0 && seen && now_ns - seen < OVER_THREADS_KEEP_NS ? 2 : over;
}

static void decide(uint64_t now_ns)
{
    struct shoal_wait_policy *p = &shoal_wait_p;
    int computing = 0;
    __atomic_store_n(&shoal_my_ctl()->running_threads, running_threads(&computing),
                     __ATOMIC_RELAXED);
    __atomic_store_n(&p->computing, computing, __ATOMIC_RELAXED);
    int running = unmapped_running();
    for_each_local(add_running, &running);
    __atomic_store_n(&p->node_running, running, __ATOMIC_RELAXED);
    int machine = machine_running();
    __atomic_store_n(&p->machine_running, machine, __ATOMIC_RELAXED);
    /* Other jobs' load is the scheduler's business (it shares the CPUs
     * fairly, and a spinning waiter then only spends its own share): only
     * this job's PEs and threads decide.  The machine's count is shown. */
    int over = shoal_wait_pes_exceed_cpus() ? 1 : running > p->node_cpus ? 2 : 0;
    over = keep_over_threads(over, now_ns);
    SHOAL_LOG(SHOAL_LOG_WAIT, SHOAL_LOG_TRACE, "placement: %d running threads, %d computing",
              running, computing);
    if (over != __atomic_load_n(&p->oversubscribed, __ATOMIC_RELAXED))
        SHOAL_LOG(SHOAL_LOG_WAIT, SHOAL_LOG_DEBUG,
                  "waiting policy now %s: %d PEs, %d running threads, %d CPUs",
                  over == 1 ? "oversubscribed by PEs"
                  : over    ? "oversubscribed by threads"
                            : "fits",
                  p->node_pes, running, p->node_cpus);
    __atomic_store_n(&p->oversubscribed, over, __ATOMIC_RELAXED);
}

static const struct shoal_wait_phase *phase_of(const struct shoal_wait_policy *p, int over)
{
    return over == 2 ? &p->over_threads : over ? &p->over : &p->fit;
}

static uint64_t next_sample, last_sample;

/* Looks at the placement now, unless another waiter of the PE has looked
 * since this one read `seen_next` (the others use the last decision). */
static void look(uint64_t now_ns, uint64_t seen_next)
{
    if (__atomic_compare_exchange_n(&next_sample, &seen_next, now_ns + SAMPLE_EVERY_NS, 0,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        __atomic_store_n(&last_sample, now_ns, __ATOMIC_RELAXED);
        decide(now_ns);
    }
}

static const struct shoal_wait_phase *forced_phase(const struct shoal_wait_policy *p)
{
    return p->forced == 2 ? &p->over : &p->fit;
}

const struct shoal_wait_phase *shoal_wait_phase_now(uint64_t now_ns)
{
    struct shoal_wait_policy *p = &shoal_wait_p;
    if (p->forced)
        return forced_phase(p);
    uint64_t next = __atomic_load_n(&next_sample, __ATOMIC_RELAXED);
    if (now_ns >= next)
        look(now_ns, next);
    return phase_of(p, __atomic_load_n(&p->oversubscribed, __ATOMIC_RELAXED));
}

const struct shoal_wait_phase *shoal_wait_phase_relook(uint64_t now_ns)
{
    struct shoal_wait_policy *p = &shoal_wait_p;
    if (p->forced)
        return forced_phase(p);
    uint64_t next = __atomic_load_n(&next_sample, __ATOMIC_RELAXED);
    if (now_ns >= next ||
        now_ns >= __atomic_load_n(&last_sample, __ATOMIC_RELAXED) + SHOAL_WAIT_RELOOK_NS)
        look(now_ns, next);
    return phase_of(p, __atomic_load_n(&p->oversubscribed, __ATOMIC_RELAXED));
}

void shoal_wait_policy_init(const struct shoal_config *cfg)
{
    struct shoal_wait_policy *p = &shoal_wait_p;
    p->online_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    /* PEs of this machine reached through the network (pretend nodes,
     * SHOAL_TRANSPORTS=ucx) compete for its CPUs too, and their masks are
     * not mapped here: then the machine's CPUs count (4 PEs on 2 cores,
     * each a pretend node, had spun for their time slice on a CPU whose
     * other PE they waited for: a barrier over tcp took 1.9 ms). */
    const int unmapped = shoal_g.n_host > shoal_g.n_local;
    p->node_pes = unmapped ? shoal_g.n_host : shoal_g.n_local;
    p->node_cpus = unmapped ? p->online_cpus : node_cpus();
    p->my_cpus = shoal_my_ctl()->cpu_mask_cpus;
    p->forced = cfg->wait_policy;
    p->never_sleep = cfg->wait_policy == 1;
    /* A sleeper's memory is served through the network by the progress
     * thread, woken by the transport's event for each request: a wake-up
     * per get or AMO of a peer.  Where the network serves this PE, the
     * spin lasts 1 s, not 10 ms (OSU's get over tcp, whose target waits in
     * a barrier for the whole loop, 2 PEs, 4 rounds: 1.19 -> 1.01 times
     * Open MPI's, whose waiters never sleep). */
    const long fit_spin_us = shoal_g.net_active ? FIT_SPIN_NET_US : FIT_SPIN_US;
    p->fit.spin_ns = (uint64_t)(cfg->wait_spin_us >= 0 ? cfg->wait_spin_us : fit_spin_us) * 1000u;
    p->fit.yield_ns = 0;
    p->fit.check_every = 64;
    /* Oversubscribed: give the CPU away at once, for a while before
     * sleeping (a yield is cheaper than a futex round trip when the peer
     * runs soon).  A spin first only delays the PE being waited for, which
     * may be the one this yield lets run: OSU's barrier at 4 PEs on 2
     * cores took 10.7-13.4 us after a 2 us spin, 5.5-6.0 without. */
    p->over.spin_ns = (uint64_t)(cfg->wait_spin_us >= 0 ? cfg->wait_spin_us : 0) * 1000u;
    /* Where a network serves this PE, yield longer before sleeping: what
     * arrives through it (tcp) moves only as a worker is progressed, which
     * a sleeper does not do, so its sleep ends by the timeout or by the
     * progress thread's wake-up, after more switches.  OSU over tcp at 4
     * PEs on 2 cores (each a pretend node): barrier 231-234 -> 54-59 us,
     * fcollect 8 B 232-295 -> 60-81, broadcast 8 B 137-149 -> 33-35 (Open
     * MPI, whose waiters yield and never sleep: 149, 76, 29). */
    p->over.yield_ns = shoal_g.net_active ? OVER_YIELD_NET_NS : OVER_YIELD_NS;
    p->over.check_every = 1;
    /* Where only threads oversubscribe (the PEs fit the CPUs), each thread
     * learns from its waits (wait_learn.h): a short spin where its partner
     * answers within it (mt_latency, 2 PEs x 2 threads on 2 cores, 300k
     * round trips: fetch-add 1.5 us yielding, Open MPI's spinning threads
     * 0.18-0.39), and spinning instead of yielding where yields hand the
     * CPU to the program's compute threads (bench/busy_threads, 2 PEs with
     * one busy thread each: a barrier took 1.2 ms, a ping-pong 1.4 ms).
     * Not where PEs oversubscribe: there the awaited PE mostly waits for
     * this CPU, and a spin only delays it (the barrier above; the short
     * spin cost coll_bench's collectives at 4 and 8 PEs on 2 cores 7-15%,
     * and spinning where yields were slow made busy_threads' barrier at 3
     * PEs on 2 cores 11.7 ms, against 4.3 yielding). */
    p->over_threads = p->over;
    p->over_threads.learn = SHOAL_LEARN_SHORT_SPIN | SHOAL_LEARN_SLOW_YIELDS;
    if (cfg->wait_spin_us >= 0 || cfg->wait_policy != 0)
        p->over_threads.learn = 0; /* the user chose */
    long sleep_us = cfg->wait_sleep_max_us > 0 ? cfg->wait_sleep_max_us
                    : shoal_doorbell_exact()   ? 100000
                                               : 1000;
    p->sleep_ns = sleep_us * 1000;
    p->oversubscribed = p->forced == 2 || (p->forced == 0 && shoal_wait_pes_exceed_cpus());
}

void shoal_wait_describe(FILE *f, const char *prefix)
{
    const struct shoal_wait_policy *p = &shoal_wait_p;
    if (shoal_g.init_count == 0) {
        fprintf(f, "%sWaiting: decided at init from the PEs' CPU affinity (SHOAL_WAIT_POLICY)\n",
                prefix);
        return;
    }
    int over = __atomic_load_n(&p->oversubscribed, __ATOMIC_RELAXED);
    const struct shoal_wait_phase *ph = phase_of(p, over);
    const char *why = p->forced == 1   ? "SHOAL_WAIT_POLICY=spin"
                      : p->forced == 2 ? "SHOAL_WAIT_POLICY=sleep"
                      : over == 1      ? "now oversubscribed: more PEs than CPUs"
                      : over           ? "now oversubscribed: more running threads than CPUs"
                                       : "now the PEs and their running threads fit the CPUs";
    if (p->never_sleep)
        fprintf(f, "%sWaiting: spin with pause, never sleep (%s)\n", prefix, why);
    else if (ph->learn)
        fprintf(f,
                "%sWaiting: spin %llu us (or %u, or %u us where a thread's waits show that "
                "it pays), yield %llu us (none where yields lose the CPU to compute threads), "
                "then sleep on the doorbell (%s)\n",
                prefix, (unsigned long long)(ph->spin_ns / 1000), SHOAL_LEARN_SHORT_SPIN_NS / 1000,
                SHOAL_LEARN_LONG_SPIN_NS / 1000, (unsigned long long)(ph->yield_ns / 1000), why);
    else
        fprintf(f, "%sWaiting: spin %llu us, yield %llu us, then sleep on the doorbell (%s)\n",
                prefix, (unsigned long long)(ph->spin_ns / 1000),
                (unsigned long long)(ph->yield_ns / 1000), why);
    fprintf(f,
            "%sPlacement: %d PEs on this node, %d CPUs in the union of their affinity masks, "
            "%d in this PE's; at the last look (every 50 ms while waiting) the PEs ran %d "
            "threads and the machine %d on %d CPUs\n",
            prefix, p->node_pes, p->node_cpus, p->my_cpus,
            __atomic_load_n(&p->node_running, __ATOMIC_RELAXED),
            __atomic_load_n(&p->machine_running, __ATOMIC_RELAXED), p->online_cpus);
    fprintf(f, "%sWake-ups: %s; a sleep re-checks after %ld us at most\n", prefix,
            shoal_doorbell_exact() ? "exact (membarrier: a write wakes a sleeper at most once "
                                     "per sleep, none is lost)"
                                   : "best effort (no membarrier: short sleeps bound a missed "
                                     "wake-up)",
            p->sleep_ns / 1000);
}
