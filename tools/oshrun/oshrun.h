/* oshrun — Shoal's one-node launcher.  Shared declarations.
 *
 *   options.c  command line -> struct oshrun_opts
 *   spawn.c    environment, file descriptors, fork/exec of the PEs
 *   placement.c  which CPUs each PE is bound to (--bind-to, --cpus-per-pe,
 *              --report-bindings), from hwloc's topology
 *   iofwd.c    whole-line forwarding of every PE's stdout/stderr (--tag-output)
 *   server.c   the bootstrap protocol (src/boot/local_proto.h): HELLO,
 *              allgather/barrier rounds, FINALIZE, ABORT, GLOBAL_EXIT
 *   job.c      the event loop: signals, child exits, failure policy,
 *              termination (SIGTERM, then SIGKILL), timeouts
 *   ucx_start.c  UCX's start-up patches without their wait (programs that
 *              link Shoal, UCX 1.21 and later)
 *   util.c     clock, messages, /proc scans
 *   main.c     glue
 *
 * oshrun is single-threaded; everything runs from one poll() loop.  Signals
 * arrive through a signalfd (they are blocked otherwise), so no handler
 * races with the loop. */
#ifndef OSHRUN_H
#define OSHRUN_H

#include <stddef.h>
#include <stdint.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "boot/hang_page.h"
#include "boot/local_proto.h"

#define OSHRUN_MAX_PES 65536
/* SIGTERM first; SIGKILL whatever is left this long after. */
#define OSHRUN_KILL_GRACE 0.5
/* The PE that called shmem_global_exit is not sent SIGTERM: it is exiting by
 * itself (atexit handlers, flushing); it is killed only after this long. */
#define OSHRUN_GLOBAL_EXIT_GRACE 2.0
/* A PE whose connection closed is normally reaped within milliseconds; a
 * collective waiting for it fails only once it has been reaped (so the
 * error can say how it ended) or after this long. */
#define OSHRUN_HUP_GRACE 0.25
/* A "line" longer than this is forwarded in pieces. */
#define OSHRUN_LINE_MAX ((size_t)1 << 20)
/* A partial line (no newline yet) is forwarded once its stream has been
 * idle, so that a prompt shows up: no byte arrived on it for this long,
 * and then, over as long again, the PE was not kept waiting for a CPU for
 * most of the time (it is blocked, for its answer, or computing); or no
 * byte arrived for OSHRUN_PARTIAL_MAX whatever the load.  A PE writing
 * through a stdio buffer ends most writes mid-line and completes the line
 * with its next write, which comes late when the machine is loaded
 * (iofwd.c). */
#define OSHRUN_PARTIAL_DELAY 0.1
#define OSHRUN_PARTIAL_MAX 2.0

/* ---- options.c ---- */
enum { OSHRUN_BIND_CORE, OSHRUN_BIND_NUMA, OSHRUN_BIND_NONE };
/* One program of the command line: "oshrun ... -n 2 ./a x : -n 3 ./a y"
 * has two (MPMD), whose PEs are numbered in order (0-1, then 2-4). */
struct oshrun_block {
    int np;
    char **argv; /* program and its arguments (NULL-terminated) */
    int x0, nx;  /* its -x: xvars[x0 .. x0+nx) (block 0's are the whole job's) */
};
struct oshrun_opts {
    int np; /* every block's PEs */
    int tag_output;
    int bind;        /* OSHRUN_BIND_*; core by default */
    int cpus_per_pe; /* --cpus-per-pe (CPUs = hardware threads); 0: CPUs / PEs */
    int report_bindings;
    double timeout;    /* seconds; 0 = none */
    double dump_after; /* --dump-on-hang: seconds; 0 = none */
    char **xvars;      /* -x arguments, "VAR" or "VAR=value", block by block */
    int nx;
    struct oshrun_block *blocks;
    int nblocks;
};
/* Returns 0 (run), 1 (--help/--version printed: exit 0) or 2 (bad usage,
 * message printed: exit 2).  Writes NULL over each ":" of argv. */
int opts_parse(int argc, char **argv, struct oshrun_opts *o);
void opts_free(struct oshrun_opts *o);

/* ---- per-PE state ---- */
struct reply { /* one message, shared by every PE it goes to */
    int refs;
    struct shoal_msg_hdr h;
    char *data;
};
struct txitem {
    struct reply *r;
    struct txitem *next;
};
struct linebuf {
    char *buf;
    size_t len, cap;
    /* When the last bytes of this stream arrived (the partial line in buf
     * waits for an idle stream); 0: nothing waits. */
    double last;
    /* A moment after that, and the PE's run-queue time (proc_run_delay) then. */
    double mark_at, mark_delay;
};

struct pe {
    int rank;
    pid_t pid;     /* 0: not spawned */
    int alive;     /* spawned and not yet reaped */
    int status;    /* wait status, once reaped */
    int sock;      /* oshrun's end of the boot socket; -1 once closed */
    double hup_at; /* when the connection closed */
    int io[2];     /* read ends of stdout/stderr (pipes or pty masters), or -1 */
    struct linebuf lb[2];
    int hello, finalized, aborted;
    int contributed; /* to the current allgather round */
    /* allgather rounds (barriers included) this PE has entered: every PE
     * makes the same calls, so the count names the round in its messages */
    unsigned long rounds_entered;
    int term_sent; /* SIGTERM sent */
    /* receiving */
    int rx_payload; /* 0: expecting a header record; 1: payload records */
    struct shoal_msg_hdr rx;
    uint64_t rx_got;
    char *rx_dst;     /* where payload goes (NULL: nowhere) */
    uint64_t rx_keep; /* bytes of payload kept at rx_dst; the rest is dropped */
    int rx_mismatch;  /* allgather length differs from the round's */
    char text[SHOAL_PROTO_TEXT_MAX + 1];
    int rx_fd; /* descriptor that came with the HELLO being received, or -1 */
    /* the PE's hang page (boot/hang_page.h), mapped read-only at HELLO */
    const struct shoal_hang_page *hang;
    /* sending */
    struct txitem *tx_head, *tx_tail;
    int tx_hdr_done;
    uint64_t tx_off;
    size_t tx_frag;
};

struct job {
    struct oshrun_opts *o;
    int n;
    struct pe *pes;
    int nspawned, alive;
    int sfd; /* signalfd */
    char jobid[48];
    /* the current allgather round */
    int round_active;
    uint64_t round_len;
    char *round_buf;
    int round_count;
    unsigned long round_seq; /* 1-based number of the current/next round */
    /* termination */
    int terminating;
    int exit_status;
    int exempt; /* PE not sent SIGTERM (abort/global_exit caller), or -1 */
    double kill_at, exempt_kill_at;
    int killed, exempt_killed;
    double deadline; /* --timeout, absolute; 0 = none */
    double dump_at;  /* --dump-on-hang, absolute; 0 = none or done */
    int out_dead[2]; /* our stdout/stderr is gone (EPIPE): drop output */
};

/* ---- placement.c ---- */
struct placement {
    int n;               /* PEs */
    int bound;           /* each PE gets its set in sets[]; else oshrun's mask */
    int whatif;          /* HWLOC_SYNTHETIC: computed and reported, not applied */
    int topo_known;      /* cores and NUMA nodes known (hwloc) */
    char why[160];       /* why not bound */
    size_t setsize;      /* bytes of one cpu_set_t */
    unsigned char *sets; /* n sets of setsize bytes */
    cpu_set_t *mask;     /* oshrun's affinity mask; NULL: not read (--bind-to none) */
    int ncores;
    int *cpu_core, *cpu_numa; /* per CPU: core (index), NUMA node (OS index); -1 */
    int *core_ncpu, *core_id; /* per core: CPUs of it in the mask; lstopo's L# */
};
/* Computes every PE's CPU set (before the first fork).  Returns 0, or -1
 * after printing why. */
int placement_compute(struct placement *pl, const struct oshrun_opts *o, int n);
/* In the child before exec: binds it (one system call; async-signal-safe).
 * Returns 0 or -1 (errno). */
int placement_apply(const struct placement *pl, int pe);
/* --report-bindings: PE pe's line on stderr. */
void placement_report(const struct placement *pl, int pe, long pid);
/* "hwloc X.Y.Z", or NULL when built without hwloc. */
const char *placement_topology_source(void);
void placement_free(struct placement *pl);

/* ---- spawn.c ---- */
/* oshrun's signal mask, SIGPIPE disposition and descriptor limit as it
 * found them (saved by main before changing them; restored in each PE). */
extern sigset_t oshrun_orig_mask;
extern struct sigaction oshrun_orig_sigpipe;
extern struct rlimit oshrun_orig_nofile;
/* Prepares and starts all PEs.  Returns 0, or the exit status oshrun should
 * end with (127: the program cannot be executed, 1: other errors), after
 * printing why; PEs already started are then in j->pes (alive). */
int spawn_all(struct job *j);

/* ---- ucx_start.c ---- */
/* Before the PEs start: a program at `path` whose executable links Shoal
 * or UCX gets UCX_MEM_BISTRO_GRACE_DURATION=0 (UCX's start-up patches
 * without their 0.4 s wait) unless the user set it, and
 * SHOAL_OSHRUN_UCX_GRACE=1 saying so.  Nothing where Shoal's UCX has no
 * such setting. */
void ucx_start_fast(const char *path);

/* ---- iofwd.c ---- */
void io_readable(struct job *j, struct pe *p, int which);
void io_drain(struct job *j, struct pe *p);  /* read what is there now */
void io_finish(struct job *j, struct pe *p); /* drain, flush a partial line, close */
/* One line of oshrun's own about PE p (a hang report line, with its
 * newline) on oshrun's stderr, tagged as the PE's under --tag-output. */
void io_report(struct job *j, struct pe *p, const char *line, size_t n);
/* Forwards the partial lines whose stream is idle by `now`
 * (OSHRUN_PARTIAL_DELAY); returns when the next one should be looked at
 * again (0: none waits). */
double io_flush_partial(struct job *j, double now);

/* ---- server.c ---- */
void srv_readable(struct job *j, struct pe *p);
void srv_writable(struct job *j, struct pe *p);
void srv_drain(struct job *j, struct pe *p); /* read every queued message */
void srv_close(struct job *j, struct pe *p); /* drop the connection */
void srv_unmap(struct pe *p);                /* its hang page, at the end */
/* A PE exited or hung up: fail a round it can no longer join.  Returns the
 * time at which it should be called again (a hung-up PE not yet reaped),
 * or 0. */
double srv_check_round(struct job *j);

/* ---- job.c ---- */
int job_run(struct job *j); /* returns oshrun's exit status */
/* Failure policy hooks called by the server. */
void job_abort(struct job *j, struct pe *p, int status, const char *reason);
void job_global_exit(struct job *j, struct pe *p, int status);
void job_protocol_error(struct job *j, struct pe *p, const char *what);
/* Ends the job: SIGTERM to every live PE except `exempt` (-1: none), SIGKILL
 * after the grace period.  The first call fixes the exit status. */
void job_terminate(struct job *j, int status, int exempt, double exempt_grace);
/* Prints where every live PE waits inside Shoal, read from the hang pages
 * they shared at HELLO (boot/hang_page.h): the PEs are not interrupted. */
void job_dump(struct job *j);

/* ---- util.c ---- */
double now_mono(void);
void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *sig_name(int sig);      /* "Segmentation fault" */
void *xcalloc(size_t n, size_t sz); /* exits 1 on failure */
/* Sends sig to every process whose parent is oshrun but that is not a PE
 * (orphans of PEs, adopted because oshrun is a child subreaper).  Returns
 * how many were signalled. */
int signal_orphans(struct job *j, int sig);
/* Seconds process `pid`'s threads have spent runnable but waiting for a
 * CPU, summed (/proc/PID/task/TID/schedstat); -1 if unknown. */
double proc_run_delay(pid_t pid);
/* Full write, retrying EINTR/EAGAIN.  Returns 0 or -1 (errno). */
int write_all(int fd, const void *buf, size_t len);

#endif
