/* The event loop and the failure policy.
 *
 * One poll() over: the signalfd (SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT),
 * every PE's boot socket, and every PE's two output pipes.  The timeout of
 * poll() is the next deadline (--timeout, the SIGKILL stage of a
 * termination, a partial output line due to be forwarded), so nothing spins.
 *
 * Policy.  The first of these ends the job, and fixes oshrun's exit status:
 *   a PE killed by signal S ........................ 128+S
 *   a PE exiting with status C != 0 ................ C
 *   a PE exiting 0 after HELLO but before FINALIZE . 1
 *   a PE sending ABORT(status) ..................... status (1 if 0)
 *   a PE sending GLOBAL_EXIT(status) ............... status (not a failure)
 *   SIGINT/SIGTERM/SIGHUP to oshrun ................ 128+signal
 *   --timeout ...................................... 124
 * SIGQUIT to oshrun ends nothing: oshrun prints where every PE waits
 * inside Shoal, read from the hang page each PE shared at HELLO
 * (boot/hang_page.h) without interrupting it, as on --timeout (before the
 * PEs are terminated) and once with --dump-on-hang.
 * Ending the job: one line on stderr saying why, SIGTERM to every live PE,
 * SIGKILL to whatever is left OSHRUN_KILL_GRACE later; a second signal to
 * oshrun skips the grace.  Exits that follow are not reported.  When a PE
 * is reaped, its pending messages (an ABORT, say) and output are read first,
 * so they are never lost to the race between exit and read.
 *
 * oshrun is a child subreaper: processes a PE leaves behind become oshrun's
 * children and are terminated with the job (and at its end). */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "oshrun.h"

static int others_alive(struct job *j, const struct pe *except)
{
    int k = 0;
    for (int i = 0; i < j->nspawned; i++)
        if (j->pes[i].alive && &j->pes[i] != except)
            k++;
    return k;
}

static void signal_pes(struct job *j, int sig, int skip)
{
    for (int i = 0; i < j->nspawned; i++) {
        struct pe *p = &j->pes[i];
        if (p->alive && i != skip) {
            kill(p->pid, sig);
            if (sig == SIGTERM)
                p->term_sent = 1;
        }
    }
    signal_orphans(j, sig);
}

struct dump_line {
    struct job *j;
    struct pe *p;
};

static void dump_emit(const char *line, size_t n, void *arg)
{
    struct dump_line *d = arg;
    io_report(d->j, d->p, line, n);
}

/* Read from the PEs' hang pages: a PE is never signalled for a report
 * (SIGQUIT cut its sleep() or pause() short, and a PE whose sleep ended
 * early went on, into shmem_finalize say, while the others still waited). */
void job_dump(struct job *j)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    for (int i = 0; i < j->nspawned; i++) {
        struct pe *p = &j->pes[i];
        if (!p->alive)
            continue;
        if (p->hang) {
            struct dump_line d = {j, p};
            shoal_hang_report(p->hang, p->rank, (long)p->pid, now, dump_emit, &d);
            continue;
        }
        char line[256];
        int n = snprintf(line, sizeof line, "oshrun: PE %d (pid %ld): no report: %s\n", p->rank,
                         (long)p->pid,
                         p->hello ? "the program did not share where it waits (not Shoal's "
                                    "library, or another version of it)"
                                  : "it has not called shmem_init yet");
        io_report(j, p, line, (size_t)n);
    }
}

void job_terminate(struct job *j, int status, int exempt, double exempt_grace)
{
    if (j->terminating)
        return;
    j->terminating = 1;
    j->exit_status = status;
    j->exempt = exempt;
    double t = now_mono();
    j->kill_at = t + OSHRUN_KILL_GRACE;
    j->exempt_kill_at = t + exempt_grace;
    signal_pes(j, SIGTERM, exempt);
}

static void kill_stage(struct job *j, double now)
{
    if (!j->terminating)
        return;
    if (!j->killed && now >= j->kill_at) {
        j->killed = 1;
        signal_pes(j, SIGKILL, j->exempt);
    }
    if (j->exempt >= 0 && !j->exempt_killed && now >= j->exempt_kill_at) {
        j->exempt_killed = 1;
        struct pe *p = &j->pes[j->exempt];
        if (p->alive)
            kill(p->pid, SIGKILL);
    }
}

static void report_and_end(struct job *j, struct pe *p, int status, const char *what)
{
    int k = others_alive(j, p);
    if (k)
        msg("PE %d (pid %ld) %s; terminating the other %d PE%s", p->rank, (long)p->pid, what, k,
            k == 1 ? "" : "s");
    else
        msg("PE %d (pid %ld) %s", p->rank, (long)p->pid, what);
    job_terminate(j, status, -1, 0);
}

void job_abort(struct job *j, struct pe *p, int status, const char *reason)
{
    if (j->terminating)
        return;
    int st = status & 0xff;
    if (st == 0)
        st = 1; /* an abort is a failure, whatever the status says */
    int k = others_alive(j, p);
    char others[64] = "";
    if (k)
        snprintf(others, sizeof others, "; terminating the other %d PE%s", k, k == 1 ? "" : "s");
    msg("PE %d (pid %ld) aborted the job with status %d%s%s%s", p->rank, (long)p->pid, status,
        reason && *reason ? ": " : "", reason ? reason : "", others);
    /* It exits by itself right after ABORT; SIGKILL only if it lingers. */
    job_terminate(j, st, p->rank, OSHRUN_KILL_GRACE);
}

void job_global_exit(struct job *j, struct pe *p, int status)
{
    if (j->terminating)
        return;
    int k = others_alive(j, p);
    if (k)
        msg("PE %d called shmem_global_exit(%d); terminating the other %d PE%s", p->rank, status, k,
            k == 1 ? "" : "s");
    job_terminate(j, status & 0xff, p->rank, OSHRUN_GLOBAL_EXIT_GRACE);
}

void job_protocol_error(struct job *j, struct pe *p, const char *what)
{
    srv_close(j, p);
    if (j->terminating)
        return;
    char w[256];
    snprintf(w, sizeof w, "broke the bootstrap protocol (%s)", what);
    report_and_end(j, p, 1, w);
}

/* A PE has been reaped. */
static void pe_exited(struct job *j, struct pe *p, int st)
{
    p->alive = 0;
    p->status = st;
    j->alive--;
    /* Its last messages and output first: they explain what follows. */
    if (p->sock >= 0) {
        srv_drain(j, p);
        srv_close(j, p);
    }
    io_drain(j, p);
    if (!j->terminating) {
        char what[160];
        if (WIFSIGNALED(st)) {
            int s = WTERMSIG(st);
            snprintf(what, sizeof what, "was killed by signal %d (%s)%s", s, sig_name(s),
                     WCOREDUMP(st) ? " (core dumped)" : "");
            report_and_end(j, p, 128 + s, what);
        } else if (WIFEXITED(st)) {
            int c = WEXITSTATUS(st);
            int early = p->hello && !p->finalized;
            if (c != 0 || early) {
                snprintf(what, sizeof what, "exited with status %d%s", c,
                         early ? " before shmem_finalize" : "");
                report_and_end(j, p, c ? c : 1, what);
            }
        }
    }
    srv_check_round(j);
}

static void reap(struct job *j)
{
    for (;;) {
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid <= 0)
            return;
        for (int i = 0; i < j->nspawned; i++) {
            struct pe *p = &j->pes[i];
            if (p->pid == pid && p->alive) {
                pe_exited(j, p, st);
                break;
            }
        } /* not a PE: an adopted orphan, nothing to report */
    }
}

static void on_term_signal(struct job *j, int sig)
{
    if (!j->terminating) {
        int k = j->alive;
        msg("received signal %d (%s); terminating the %d PE%s", sig, sig_name(sig), k,
            k == 1 ? "" : "s");
        job_terminate(j, 128 + sig, -1, 0);
    } else {
        /* Asked twice: no more grace. */
        j->kill_at = 0;
        j->exempt_kill_at = 0;
    }
}

static void on_sigquit(struct job *j, const struct signalfd_siginfo *si)
{
    /* From the terminal (Ctrl-\) the PEs, in oshrun's process group, got
     * it themselves; from kill(1) only oshrun did. */
    if (si->ssi_code == SI_KERNEL)
        return;
    msg("received SIGQUIT: where every PE waits");
    job_dump(j);
}

static void on_signals(struct job *j)
{
    struct signalfd_siginfo si[32];
    ssize_t n;
    do
        n = read(j->sfd, si, sizeof si);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
        return;
    /* Termination requests before child exits: on Ctrl-C the PEs get
     * SIGINT too, and their deaths must not read as a failure. */
    for (size_t i = 0; i < (size_t)n / sizeof si[0]; i++) {
        if (si[i].ssi_signo == SIGQUIT)
            on_sigquit(j, &si[i]);
        else if (si[i].ssi_signo != SIGCHLD)
            on_term_signal(j, (int)si[i].ssi_signo);
    }
}

static int ms_until(double t, double now)
{
    double ms = ceil((t - now) * 1000.0);
    if (ms < 0)
        return 0;
    if (ms > 3600000)
        return 3600000;
    return (int)ms + 1;
}

/* Every PE has been reaped: forward what is left of their output and take
 * care of processes they left behind. */
static void finish(struct job *j)
{
    for (int i = 0; i < j->n; i++) {
        io_finish(j, &j->pes[i]);
        srv_close(j, &j->pes[i]);
    }
    if (signal_orphans(j, SIGTERM) > 0) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        double end = now_mono() + OSHRUN_KILL_GRACE;
        do {
            nanosleep(&ts, NULL);
            while (waitpid(-1, NULL, WNOHANG) > 0)
                ;
        } while (now_mono() < end && signal_orphans(j, 0) > 0);
        for (int tries = 0; tries < 100 && signal_orphans(j, SIGKILL) > 0; tries++) {
            nanosleep(&ts, NULL);
            while (waitpid(-1, NULL, WNOHANG) > 0)
                ;
        }
    }
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
}

/* --timeout and --dump-on-hang.  1: the job is being ended now. */
static int check_deadlines(struct job *j, double now)
{
    if (j->deadline > 0 && !j->terminating && now >= j->deadline) {
        int k = j->alive;
        msg("the job did not finish within --timeout %g s; terminating the %d PE%s", j->o->timeout,
            k, k == 1 ? "" : "s");
        job_dump(j);
        job_terminate(j, 124, -1, 0);
        return 1;
    }
    if (j->dump_at > 0 && !j->terminating && now >= j->dump_at) {
        j->dump_at = 0;
        msg("--dump-on-hang %g s: asking every PE where it waits", j->o->dump_after);
        job_dump(j);
    }
    return 0;
}

/* The signalfd, then each PE's socket (who = 3i) and output pipes
 * (3i + 1, 3i + 2).  Returns the number of entries. */
static int build_pollset(struct job *j, struct pollfd *pf, int *who)
{
    int k = 0;
    pf[k] = (struct pollfd){.fd = j->sfd, .events = POLLIN};
    who[k++] = -1;
    for (int i = 0; i < j->nspawned; i++) {
        struct pe *p = &j->pes[i];
        if (p->sock >= 0) {
            pf[k] = (struct pollfd){.fd = p->sock,
                                    .events = (short)(POLLIN | (p->tx_head ? POLLOUT : 0))};
            who[k++] = i * 3;
        }
        for (int w = 0; w < 2; w++)
            if (p->io[w] >= 0) {
                pf[k] = (struct pollfd){.fd = p->io[w], .events = POLLIN};
                who[k++] = i * 3 + 1 + w;
            }
    }
    return k;
}

/* The earlier of timeout (ms, -1: none) and the deadline t (0: none). */
static int earlier(int timeout, double t, double now)
{
    if (t <= 0)
        return timeout;
    int ms = ms_until(t, now);
    return timeout < 0 || ms < timeout ? ms : timeout;
}

/* poll()'s timeout: the next deadline of any kind, or -1. */
static int next_timeout(const struct job *j, double now, double recheck, double flush_at)
{
    int timeout = -1;
    if (!j->terminating) {
        timeout = earlier(timeout, j->deadline, now);
        timeout = earlier(timeout, j->dump_at, now);
    } else {
        if (!j->killed)
            timeout = earlier(timeout, j->kill_at, now);
        if (j->exempt >= 0 && !j->exempt_killed)
            timeout = earlier(timeout, j->exempt_kill_at, now);
    }
    timeout = earlier(timeout, recheck, now);
    return earlier(timeout, flush_at, now);
}

/* What poll() reported on the PEs' sockets and pipes; then queued replies
 * go out where there is room. */
static void dispatch(struct job *j, const struct pollfd *pf, const int *who, int k)
{
    for (int x = 1; x < k; x++) {
        if (!pf[x].revents)
            continue;
        struct pe *p = &j->pes[who[x] / 3];
        int kind = who[x] % 3;
        if (kind == 0) {
            if (p->sock != pf[x].fd)
                continue; /* closed meanwhile */
            if (pf[x].revents & (POLLIN | POLLHUP | POLLERR))
                srv_readable(j, p);
            if ((pf[x].revents & POLLOUT) && p->sock >= 0)
                srv_writable(j, p);
        } else if (p->io[kind - 1] == pf[x].fd) {
            io_readable(j, p, kind - 1);
        }
    }
    for (int i = 0; i < j->nspawned; i++)
        if (j->pes[i].tx_head && j->pes[i].sock >= 0)
            srv_writable(j, &j->pes[i]);
}

int job_run(struct job *j)
{
    size_t cap = 1 + 3 * (size_t)j->n;
    struct pollfd *pf = xcalloc(cap, sizeof *pf);
    int *who = xcalloc(cap, sizeof *who);

    while (j->alive > 0) {
        double now = now_mono();
        kill_stage(j, now);
        if (check_deadlines(j, now))
            continue;
        /* A round waiting for a hung-up PE may fail now (replies queued
         * here are polled for below). */
        double recheck = srv_check_round(j);
        double flush_at = io_flush_partial(j, now);
        int k = build_pollset(j, pf, who);
        int r = poll(pf, (nfds_t)k, next_timeout(j, now, recheck, flush_at));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            msg("poll failed: %s; killing the job", strerror(errno));
            job_terminate(j, 1, -1, 0);
            j->kill_at = 0;
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
            reap(j);
            continue;
        }
        if (pf[0].revents)
            on_signals(j);
        reap(j); /* cheap, and immune to coalesced SIGCHLDs */
        dispatch(j, pf, who, k);
    }
    finish(j);
    free(pf);
    free(who);
    return j->terminating ? j->exit_status : 0;
}
