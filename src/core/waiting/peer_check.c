/* Is the peer a wait depends on still there (peer_check.h)?
 *
 * A collective names the PE it waits for in the thread's wait record.
 * Every few milliseconds (a load) for a peer mapped here, every 200 ms
 * (a network look) for one reached through the network, the waiter looks
 * at the peer's `leaving` word:
 *  - set: the peer entered shmem_finalize, exited, failed or called
 *    shmem_global_exit while this PE still waits for it;
 *  - a mapped peer's process is gone (killed: it wrote nothing);
 *  - a peer reached through the network: once the wait has lasted a
 *    second, its host is asked too (peer_reach.h): its process ended, or
 *    its host or the link to it has not answered for SHOAL_PEER_TIMEOUT.
 * A look that has not come back says nothing: the peer may be computing,
 * stopped in a debugger or without a progress thread, and the wait lasts
 * as long as it takes.  Neither look blocks (shoal_net_peek, and the
 * reachability probe), so a waiter whose peer died keeps its turns and
 * notices.  The transport's blocked requests ask the same of their peer
 * (shoal_peer_watch, the net_link hook). */
#include "core/waiting/peer_check.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/ops.h"
#include "core/waiting/peer_reach.h"
#include "core/waiting/wait.h"
#include "core/waiting/wait_record.h"

#define PEER_CHECK_MAPPED_NS 5000000ull   /* a load */
#define PEER_CHECK_NET_NS 200000000ull    /* a network look */
#define PEER_PID_NS 100000000ull          /* between looks at a mapped peer's process */
#define PEER_REACH_AFTER_NS 1000000000ull /* a wait this long asks the peer's host */
#define PEER_ANSWERED_NS 1000000000ull    /* an answer this recent: the peer answers */

/* Killed peers write nothing: is its process gone (or a zombie)? */
static int process_gone(int pe)
{
    long pid = shoal_g.peer_pid ? shoal_g.peer_pid[pe] : -1;
    if (pid <= 0)
        return 0;
    if (kill((pid_t)pid, 0) < 0)
        return errno == ESRCH;
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

static const char *leaving_text(int how)
{
    switch (how) {
    case SHOAL_LEFT_FINALIZE: return "entered shmem_finalize";
    case SHOAL_LEFT_EXIT:
        return "exited without calling shmem_finalize (it returned from main or called exit)";
    case SHOAL_LEFT_FAILED: return "failed (an error ended it; see its message)";
    case SHOAL_LEFT_GLOBAL_EXIT: return "called shmem_global_exit";
    default: return "is gone (its process ended without a word: killed?)";
    }
}

#define GONE_KILLED 100

/* A peer that failed or died is seen by the launcher too, which ends the
 * job with that PE's own status within a second or two: let it, so that
 * the job reports the cause, not this consequence (mpirun took the status
 * of the first PE to fail); only a launcher cut off from it leaves the
 * report to this PE.  The mapped peers' own message is already out. */
static void launcher_grace(int pe, int how)
{
    char why[64];
    snprintf(why, sizeof why, "PE %d %s", pe, how == SHOAL_LEFT_FAILED ? "failed" : "is gone");
    shoal_job_ending(why);
    shoal_launcher_grace();
}

/* The peer's host does not answer (LOST): the end of the job, naming it. */
static _Noreturn void unreachable(const char *fn, int pe, const char *what, const char *why)
{
    shoal_fatal(fn,
                "PE %d on host %s is unreachable while this PE waits for it (%s): %s; the host "
                "or the link to it is down (SHOAL_PEER_TIMEOUT=%.0f s; a peer that is slow, "
                "busy or stopped in a debugger is never taken for dead, but one whose host is "
                "frozen is: SHOAL_PEER_TIMEOUT=0 waits forever)",
                pe, shoal_peer_host(pe), what, why, (double)shoal_g.peer_timeout_ns / 1e9);
}

/* Its process ended (GONE) while a request or the final barrier waits. */
static _Noreturn void gone(const char *fn, int pe, const char *what, const char *why)
{
    launcher_grace(pe, GONE_KILLED);
    shoal_fatal(fn, "PE %d on host %s is gone while this PE waits for it (%s): %s", pe,
                shoal_peer_host(pe), what, why);
}

/* Asks `pe`'s host (peer_reach.h) how it stands; ends the job where the
 * host does not answer, or (`gone_fatal`) where the process ended. */
static enum shoal_reach ask_or_end(int pe, uint64_t now, const char *fn, const char *what,
                                   int gone_fatal)
{
    char why[160];
    const enum shoal_reach st = shoal_reach_look(pe, now, why, sizeof why);
    if (st == SHOAL_REACH_LOST)
        unreachable(fn, pe, what, why);
    if (st == SHOAL_REACH_GONE && gone_fatal)
        gone(fn, pe, what, why);
    return st;
}

/* A wait's question to `pe`'s host: SHOAL_IN_JOB, or GONE_KILLED (the
 * launcher's grace comes first); fatal when the host does not answer. */
static int ask_host(int pe, uint64_t now, const char *fn, const char *what)
{
    return ask_or_end(pe, now, fn, what, 0) == SHOAL_REACH_GONE ? GONE_KILLED : SHOAL_IN_JOB;
}

/* When each peer last answered a look through the network (0: never),
 * allocated by the first look. */
static uint64_t *answered_at;

static void note_answer(int pe, uint64_t now)
{
    uint64_t *a = __atomic_load_n(&answered_at, __ATOMIC_ACQUIRE);
    if (!a) {
        uint64_t *fresh = calloc((size_t)shoal_g.n_pes, sizeof *fresh);
        if (!fresh)
            return;
        if (__atomic_compare_exchange_n(&answered_at, &a, fresh, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            a = fresh;
        else
            free(fresh);
    }
    __atomic_store_n(&a[pe], now, __ATOMIC_RELAXED);
}

/* A look at `pe`'s `leaving` word: 1 with *v once an answer came. */
static int peek_leaving(int pe, uint32_t *v, uint64_t now, const char *fn)
{
    if (!shoal_net_peek(pe, &shoal_my_ctl()->leaving, v, shoal_reach_may_connect(pe, now), fn))
        return 0;
    note_answer(pe, now);
    return 1;
}

int shoal_peer_answers(int pe)
{
    if (shoal_slot(pe) >= 0)
        return 1;
    const uint64_t now = shoal_now_ns();
    uint32_t v;
    peek_leaving(pe, &v, now, "a look at a peer");
    const uint64_t *a = __atomic_load_n(&answered_at, __ATOMIC_ACQUIRE);
    const uint64_t t = a ? __atomic_load_n(&a[pe], __ATOMIC_RELAXED) : 0;
    return t && now - t < PEER_ANSWERED_NS;
}

/* How the peer stands: SHOAL_IN_JOB, a SHOAL_LEFT_*, GONE_KILLED, or -1
 * while a look through the network is on its way. */
static int look(struct shoal_waiter *w, int pe, uint64_t now)
{
    static __thread uint64_t next_pid_look;
    int slot = shoal_slot(pe);
    if (slot >= 0) {
        int how = (int)__atomic_load_n(&shoal_ctl_of_slot(slot)->leaving, __ATOMIC_ACQUIRE);
        if (how == SHOAL_IN_JOB && now >= next_pid_look) {
            next_pid_look = now + PEER_PID_NS;
            if (process_gone(pe))
                how = GONE_KILLED;
        }
        return how;
    }
    uint32_t v = 0;
    if (peek_leaving(pe, &v, now, w->fn) && v != SHOAL_IN_JOB)
        return (int)v;
    /* (Not w->t0: a waiter that woke from a sleep starts its spin again.) */
    const struct shoal_wait_record *r = shoal_wait_record_mine();
    if (now - r->since_ns < PEER_REACH_AFTER_NS)
        return -1;
    return ask_host(pe, now, w->fn, r->what ? r->what : "its part of a collective");
}

void shoal_peer_check(struct shoal_waiter *w, uint64_t now, int (*ready)(void *), void *arg)
{
    const struct shoal_wait_record *r = shoal_wait_record_mine();
    int pe = __atomic_load_n(&r->peer, __ATOMIC_RELAXED);
    if (pe < 0 || now < w->next_peer_check)
        return;
    const uint64_t period = shoal_slot(pe) >= 0 ? PEER_CHECK_MAPPED_NS : PEER_CHECK_NET_NS;
    /* The first look comes a period into the wait: through the network
     * it is a round trip, which a wait as short as a barrier's would pay
     * every time (and a peer that left is found late by a period at most). */
    const int first = w->next_peer_check == 0;
    w->next_peer_check = now + period;
    if (first)
        return;
    int how = look(w, pe, now);
    if (how <= SHOAL_IN_JOB || (ready && ready(arg)))
        return;
    if (how == SHOAL_LEFT_FAILED || how == GONE_KILLED)
        launcher_grace(pe, how);
    if (how == SHOAL_LEFT_GLOBAL_EXIT) {
        /* Its word to this PE is on its way, or lost with the peer. */
        shoal_global_exit_notice();
        return;
    }
    const char *what = r->what ? r->what : "its part of the collective";
    shoal_fatal(w->fn, "PE %d %s while this PE still waits for it (%s)%s (PE %d runs on host %s)",
                pe, leaving_text(how), what,
                how == SHOAL_LEFT_FINALIZE || how == SHOAL_LEFT_EXIT
                    ? ": the PEs do not make the same collective calls"
                    : "",
                pe, shoal_peer_host(pe));
}

/* A bootstrap wait (the final barrier: a PMIx fence) waits for every PE
 * at once, and a launcher cut off by a dead link never ends it: while it
 * lasts, ask the hosts of the PEs reached through the network, a few at a
 * time, and end the job on one that does not answer.  A process that
 * ended is left to the launcher: a peer that passed the barrier may exit
 * before this PE hears that the barrier is over. */
#define BOOT_LOOK_AFTER_NS 1000000000ull /* a wait this long before looking */
#define BOOT_LOOK_EVERY_NS 100000000ull
#define LOOKS_PER_TURN 8

/* Asks the hosts of up to LOOKS_PER_TURN network peers, from *cursor on;
 * the cursor moves past those whose host holds the connection.  Fatal on
 * an unreachable one; a process gone is fatal only when `gone_fatal`. */
static void ask_hosts_in_turn(int *cursor, uint64_t now, const char *fn, const char *what,
                              int gone_fatal)
{
    int asked = 0;
    for (int k = 0; k < shoal_g.n_pes && asked < LOOKS_PER_TURN; k++) {
        int pe = (*cursor + k) % shoal_g.n_pes;
        if (pe == shoal_g.my_pe || shoal_slot(pe) >= 0)
            continue;
        asked++;
        if (ask_or_end(pe, now, fn, what, gone_fatal) == SHOAL_REACH_UP)
            *cursor = (pe + 1) % shoal_g.n_pes;
    }
}

void shoal_peer_check_all(uint64_t since_ns)
{
    static __thread uint64_t next;
    static __thread int cursor;
    const uint64_t now = shoal_now_ns();
    if (!shoal_g.net_active || now - since_ns < BOOT_LOOK_AFTER_NS || now < next)
        return;
    next = now + BOOT_LOOK_EVERY_NS;
    ask_hosts_in_turn(&cursor, now, "shmem_finalize", "every PE (bootstrap barrier)", 0);
}

void shoal_peer_watch(int pe, const char *fn, const char *what)
{
    static __thread uint64_t next;
    static __thread int cursor;
    const uint64_t now = shoal_now_ns();
    if (now < next)
        return;
    next = now + PEER_CHECK_NET_NS;
    if (pe < 0)
        ask_hosts_in_turn(&cursor, now, fn, what, 1);
    else
        (void)ask_or_end(pe, now, fn, what, 1);
}
