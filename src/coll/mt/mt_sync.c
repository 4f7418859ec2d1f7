/* The threads' rendezvous of the multi-threaded collectives (protocol:
 * mt_sync.h).  One state per team slot, private to the PE: collectives on
 * one team are called in the same order by every member, so one state per
 * team is never used by two collectives at once, while collectives on two
 * different teams (by two sets of threads) do not share one. */
#include "coll/mt/mt_sync.h"

#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "core/waiting/wait.h"
#include "core/waiting/wait_policy.h"
#include "core/waiting/wait_record.h"

struct shoal_mt_team {
    /* Arrivals of the current rendezvous, the nthreads they passed, and
     * which thread_ids have arrived: one line, written by every arrival. */
    _Alignas(SHOAL_CACHELINE) unsigned arrived;
    unsigned lead_sleeps; /* the leader sleeps on `arrived` */
    int nthreads;
    uint64_t ids[SHOAL_MT_MAX_THREADS / 64];
    /* Bumped by the leader to release a rendezvous; read by the waiters. */
    _Alignas(SHOAL_CACHELINE) unsigned gen;
    unsigned sleepers; /* threads asleep on `gen` */
    /* Written by the leader before a release, read by the others after. */
    _Alignas(SHOAL_CACHELINE) struct shoal_group g;
    struct shoal_mt_sig sig;
    const char *fn;
};
static struct shoal_mt_team teams[SHOAL_TEAM_SLOTS];

size_t shoal_mt_min_bytes = 16384;

void shoal_coll_mt_config(size_t min_bytes)
{
    shoal_mt_min_bytes = min_bytes;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* A sleep is cut at 1 ms: the safety net if a wake-up were lost. */
static void futex_sleep(unsigned *word, unsigned val)
{
    struct timespec ts = {0, 1000000};
    (void)syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

static void futex_wake_all(unsigned *word)
{
    (void)syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* wait_while's loop, from t0, when its first look found *word == val. */
static void wait_while_blocked(unsigned *word, unsigned val, unsigned *sleepers, uint64_t t0)
{
    const struct shoal_wait_phase *ph = shoal_wait_phase_now(t0);
    for (unsigned turn = 1;; turn++) {
        if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != val)
            return;
        if (turn % (unsigned)ph->check_every) {
            cpu_relax();
            continue;
        }
        uint64_t dt = shoal_now_ns() - t0;
        if (dt < ph->spin_ns) {
            cpu_relax();
            continue;
        }
        shoal_poll_network();
        if (dt < ph->spin_ns + ph->yield_ns || shoal_wait_p.never_sleep) {
            sched_yield();
            continue;
        }
        /* Counted among the PE's sleepers too: the UCX progress thread
         * then serves peers' requests at once instead of waiting for the
         * application to progress (transport/net.h, waiters_asleep). */
        uint32_t *pe_sleepers = &shoal_my_ctl()->sleepers;
        __atomic_fetch_add(pe_sleepers, 1, __ATOMIC_SEQ_CST);
        __atomic_fetch_add(sleepers, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(word, __ATOMIC_SEQ_CST) == val)
            futex_sleep(word, val);
        __atomic_fetch_sub(sleepers, 1, __ATOMIC_SEQ_CST);
        __atomic_fetch_sub(pe_sleepers, 1, __ATOMIC_SEQ_CST);
    }
}

/* Waits while *word == val, the way the core's waits do
 * (core/waiting/wait_policy.h): spin with pause while the node's threads fit its
 * CPUs, else spin briefly and yield, then sleep on the word (counted in
 * *sleepers so that the writer knows to wake it), so that the threads
 * being waited for get the CPU.  A waiter that yields or sleeps also
 * moves the network along (a peer may be pulling from this PE).  Once it
 * blocks, the thread's wait record (core/waiting/wait_record.h) says that it waits
 * in `fn` for thread `thread` of this PE, so that a hang report names it. */
static void wait_while(unsigned *word, unsigned val, unsigned *sleepers, int thread,
                       const char *what, const char *fn)
{
    if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != val)
        return;
    uint64_t t0 = shoal_now_ns();
    shoal_wait_note_thread(thread, what);
    shoal_wait_record_begin(fn, word, t0);
    wait_while_blocked(word, val, sleepers, t0);
    shoal_wait_record_end();
    shoal_wait_note_clear();
}

/* After changing *word (seq_cst): wake whoever sleeps on it. */
static void wake(unsigned *word, unsigned *sleepers)
{
    if (__atomic_load_n(sleepers, __ATOMIC_SEQ_CST))
        futex_wake_all(word);
}

static const char *level_name(int level)
{
    switch (level) {
    case SHMEM_THREAD_SINGLE: return "SHMEM_THREAD_SINGLE";
    case SHMEM_THREAD_FUNNELED: return "SHMEM_THREAD_FUNNELED";
    case SHMEM_THREAD_SERIALIZED: return "SHMEM_THREAD_SERIALIZED";
    default: return "SHMEM_THREAD_MULTIPLE";
    }
}

int shoal_mt_open(struct shoal_mt *m, shmem_team_t team, int nthreads, int tid, const char *fn)
{
    if (SHOAL_UNLIKELY(shoal_g.init_count == 0 || shoal_g.finalized))
        shoal_err_not_init(fn);
    int level = __atomic_load_n(&shoal_g.thread_level, __ATOMIC_RELAXED);
    if (level != SHMEM_THREAD_MULTIPLE)
        shoal_fatal(fn,
                    "needs SHMEM_THREAD_MULTIPLE (threads of one PE call it at once), but the "
                    "library was initialized with %s: call shmem_init_thread",
                    level_name(level));
    if (nthreads < 1 || nthreads > SHOAL_MT_MAX_THREADS)
        shoal_fatal(fn, "argument 'nthreads' = %d is out of range (1..%d)", nthreads,
                    SHOAL_MT_MAX_THREADS);
    if (tid < 0 || tid >= nthreads)
        shoal_fatal(fn, "argument 'thread_id' = %d is out of range (0..%d, nthreads = %d)", tid,
                    nthreads - 1, nthreads);
    if (shoal_team_usable(team, fn))
        return -1;
    m->st = &teams[team->slot];
    m->nthreads = nthreads;
    m->tid = tid;
    return 0;
}

/* Counts this thread in, after checking that its thread_id is not taken
 * and that it agrees with the others on nthreads (either would make the
 * count meaningless: a hang or two leaders). */
static void check_in(struct shoal_mt *m, const char *fn)
{
    struct shoal_mt_team *st = m->st;
    uint64_t bit = (uint64_t)1 << (m->tid % 64);
    uint64_t had = __atomic_fetch_or(&st->ids[m->tid / 64], bit, __ATOMIC_RELAXED);
    if (had & bit)
        shoal_fatal(fn, "argument 'thread_id' = %d is passed by two threads of this PE at once",
                    m->tid);
    int seen = 0;
    if (!__atomic_compare_exchange_n(&st->nthreads, &seen, m->nthreads, 0, __ATOMIC_RELAXED,
                                     __ATOMIC_RELAXED) &&
        seen != m->nthreads)
        shoal_fatal(fn,
                    "argument 'nthreads' = %d (thread_id %d), but another thread of this PE "
                    "passed nthreads = %d",
                    m->nthreads, m->tid, seen);
}

/* The first thread_id of the rendezvous that has not arrived (the leader
 * reports that it waits for it). */
static int first_missing(const struct shoal_mt *m)
{
    const struct shoal_mt_team *st = m->st;
    for (int t = 0; t < m->nthreads; t++)
        if (!(__atomic_load_n(&st->ids[t / 64], __ATOMIC_RELAXED) >> (t % 64) & 1))
            return t;
    return m->nthreads - 1; /* all in: about to be released */
}

int shoal_mt_arrive(struct shoal_mt *m, const char *fn)
{
    struct shoal_mt_team *st = m->st;
    unsigned gen = __atomic_load_n(&st->gen, __ATOMIC_ACQUIRE);
    check_in(m, fn);
    unsigned a = __atomic_add_fetch(&st->arrived, 1, __ATOMIC_SEQ_CST);
    if (m->tid == 0) {
        while (a != (unsigned)m->nthreads) {
            if (__atomic_load_n(&st->arrived, __ATOMIC_ACQUIRE) == a)
                wait_while(&st->arrived, a, &st->lead_sleeps, first_missing(m),
                           "its call (each thread_id from 0 to nthreads - 1 calls once)", fn);
            a = __atomic_load_n(&st->arrived, __ATOMIC_ACQUIRE);
        }
        return 1;
    }
    wake(&st->arrived, &st->lead_sleeps);
    wait_while(&st->gen, gen, &st->sleepers, 0,
               "its release of the threads (thread_id 0 leads each step)", fn);
    return 0;
}

void shoal_mt_release(struct shoal_mt *m)
{
    struct shoal_mt_team *st = m->st;
    /* Nobody arrives again before the generation changes. */
    for (size_t i = 0; i < sizeof st->ids / sizeof st->ids[0]; i++)
        __atomic_store_n(&st->ids[i], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&st->nthreads, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&st->arrived, 0, __ATOMIC_RELAXED);
    __atomic_fetch_add(&st->gen, 1, __ATOMIC_SEQ_CST);
    wake(&st->gen, &st->sleepers);
}

/* SHMEM_DEBUG: this thread's arguments against the leader's. */
static void compare_sig(const struct shoal_mt *m, const struct shoal_mt_sig *mine, const char *fn)
{
    const struct shoal_mt_team *st = m->st;
    const struct shoal_mt_sig *lead = &st->sig;
    const char *what = NULL;
    if (strcmp(st->fn, fn))
        shoal_fatal(fn, "SHMEM_DEBUG: thread_id %d calls %s while thread_id 0 of this PE calls %s",
                    m->tid, fn, st->fn);
    if (mine->dest != lead->dest)
        what = "dest";
    else if (mine->source != lead->source)
        what = "source";
    else if (mine->count != lead->count)
        what = "size (nelems / nreduce)";
    else if (mine->extra != lead->extra)
        what = "PE_root";
    if (what)
        shoal_fatal(fn,
                    "SHMEM_DEBUG: thread_id %d passes a different %s than thread_id 0 of this PE "
                    "(dest %p / %p, source %p / %p, size %zu / %zu, root %ld / %ld)",
                    m->tid, what, mine->dest, lead->dest, mine->source, lead->source, mine->count,
                    lead->count, mine->extra, lead->extra);
}

void shoal_mt_begin(struct shoal_mt *m, shmem_team_t team, const struct shoal_mt_sig *sig,
                    uint64_t call, uint64_t dbg_a, uint64_t dbg_b, enum shoal_mt_mode mode,
                    const char *fn)
{
    struct shoal_mt_team *st = m->st;
    if (m->tid == 0) {
        st->sig = *sig;
        st->fn = fn;
    }
    if (shoal_mt_arrive(m, fn)) {
        if (mode != SHOAL_MT_SOLO) {
            shoal_group_of_team(&st->g, team, call, sig->count, fn);
            shoal_group_debug_check(&st->g, fn, dbg_a, dbg_b);
        }
        if (mode == SHOAL_MT_SYNC && st->g.size > 1)
            shoal_group_sync(&st->g, fn);
        shoal_mt_release(m);
    }
    if (mode != SHOAL_MT_SOLO)
        m->g = st->g;
    if (SHOAL_UNLIKELY(shoal_g.debug) && m->tid != 0)
        compare_sig(m, sig, fn);
}

void shoal_mt_end(struct shoal_mt *m, int sync, const char *fn)
{
    if (shoal_mt_arrive(m, fn)) {
        if (sync && m->g.size > 1)
            shoal_group_sync(&m->g, fn);
        shoal_mt_release(m);
    }
}

int shoal_mt_solo(struct shoal_mt *m, shmem_team_t team, const struct shoal_mt_sig *sig,
                  const char *fn)
{
    /* The comparison needs the leader's arguments to stay put until every
     * thread has read them: one more rendezvous, under SHMEM_DEBUG only. */
    if (SHOAL_UNLIKELY(shoal_g.debug))
        shoal_mt_begin(m, team, sig, 0, 0, 0, SHOAL_MT_SOLO, fn);
    return shoal_mt_arrive(m, fn);
}
