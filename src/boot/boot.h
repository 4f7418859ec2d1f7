/* boot/ — who am I, how many, and a few collective exchanges before any
 * transport exists.  Owns: the launcher protocols (local = our oshrun,
 * pmix = Open MPI's mpirun, Slurm's srun --mpi=pmix, ...; singleton = no
 * launcher).  May call: libc only — never core/, transport/ or api/ (errors
 * are returned, the caller reports them); boot/pmix/ also calls libpmix.
 * Files: boot_open.c (which bootstrap), boot_common.c (what the bootstraps
 * share: the progress hook, the hang page's descriptor, the owner check),
 * boot_local.c, boot_singleton.c, pmix/boot_pmix.c.
 *
 * Every call except abort is collective over all ranks of the job and is
 * made from one thread at a time (init, finalize, debug checks). */
#ifndef SHOAL_BOOT_H
#define SHOAL_BOOT_H
#include <stddef.h>
#include <stdint.h>

struct shoal_boot {
    const char *name; /* "local", "pmix", "singleton" for shmem-info */
    /* What carries its collective calls, for the hang report: "oshrun's
     * socket", "PMIx", "no launcher". */
    const char *channel;
    /* Names this job's objects on a node (segments' sockets): the same on
     * every PE of the job, different from every other job running on the
     * node; at most 64 characters of A-Z a-z 0-9 . _ -. */
    const char *jobid;
    int rank; /* 0 .. size-1 */
    int size;
    /* out[r*len .. r*len+len) receives rank r's `in`; returns 0 or -1. */
    int (*allgather)(const void *in, void *out, size_t len);
    int (*barrier)(void);
    /* Tells the launcher this rank is finalizing cleanly (the launcher then
     * treats its exit as normal).  Not collective. */
    void (*finalize)(void);
    /* Brings the whole job down with `status`; `reason` (may be NULL) is
     * printed by the launcher.  Does not return: after telling the launcher
     * it _exits this process with `status`.  (A struct member cannot be
     * declared _Noreturn; implementations should be.) */
    void (*abort)(int status, const char *reason);
    /* Same as abort, but the job-wide exit is the program's wish
     * (shmem_global_exit): the launcher exits with `status` and does not
     * report it as a failure.  Returns so the caller can run exit(). */
    void (*global_exit)(int status);
    /* This process ends because another PE called shmem_global_exit(status)
     * (it learned so from its memory, not from the launcher).  Returns 1
     * when the launcher, told by that PE, ends this process itself (the
     * caller gives it a moment), 0 when the process must end by itself:
     * where status is 0, its exit has been made a normal one for the
     * launcher (Open MPI 4's mpirun: PMIx_Finalize).  `mark` is what that
     * PE's exit_mark returned.  Not collective. */
    int (*leave)(int status, uint32_t mark);
    /* Called by the PE that calls shmem_global_exit, before global_exit:
     * where its peers' leave must know where it stands among the
     * bootstrap's collective calls, a number (SHOAL_BOOT_MARK_BITS wide)
     * that core hands to their leave.  NULL: nothing to tell. */
    uint32_t (*exit_mark)(void);
};

/* The one upcall boot makes, registered by the caller (NULL: none): run
 * over and over while a collective bootstrap call waits, so that a PE
 * blocked here keeps its network transport moving — peers' operations on
 * this PE and its own posted ones still complete.  The bootstraps read it
 * with shoal_boot_progress_hook(). */
typedef void (*shoal_boot_progress_fn)(void);
void shoal_boot_set_progress(shoal_boot_progress_fn progress);
shoal_boot_progress_fn shoal_boot_progress_hook(void);

/* The hang page (boot/hang_page.h): a descriptor of the memory in which
 * this process publishes where its threads wait, set by the caller before
 * shoal_boot_open (-1: none).  A bootstrap whose launcher can read it
 * passes it on (the local one: to oshrun, with HELLO), so that the
 * launcher reports hangs without signalling the process.  Whatever the
 * bootstrap, shoal_boot_open closes it: this process keeps its mapping. */
void shoal_boot_set_report_fd(int fd);
int shoal_boot_report_fd(void); /* for the bootstraps: -1 when none */

/* A bootstrap's leave where the launcher ends every PE of a job whose PE
 * called shmem_global_exit (oshrun; a job of one): returns 1. */
int shoal_boot_leave_ended(int status, uint32_t mark);

/* How many low bits of exit_mark's number reach the peers' leave. */
#define SHOAL_BOOT_MARK_BITS 23

/* For the bootstraps' open when already open: -1 with a message in errbuf
 * when this process is not `owner` (a forked child of PE `rank`, which
 * holds the launcher connection `conn`), else 0. */
int shoal_boot_check_owner(long owner, int rank, const char *conn, char *errbuf, size_t errlen);

/* Picks the bootstrap (boot_open.c): SHOAL_BOOT=local|pmix|singleton
 * forces one; otherwise (auto) SHOAL_BOOT_FD set by oshrun -> local; a PMIx
 * launcher's variables (PMIX_NAMESPACE, PMIX_RANK) -> pmix; otherwise a
 * singleton job of one PE.  Returns 0, or -1 with a message in errbuf. */
int shoal_boot_open(struct shoal_boot *b, char *errbuf, size_t errlen);
/* The bootstraps this build has, for shmem-info: "local, pmix, singleton". */
const char *shoal_boot_built(void);

/* Individual bootstraps (boot_local.c, pmix/boot_pmix.c — only in a build
 * with PMIx, SHOAL_HAVE_PMIX —, boot_singleton.c). */
int shoal_boot_local_open(struct shoal_boot *b, char *errbuf, size_t errlen);
int shoal_boot_pmix_open(struct shoal_boot *b, char *errbuf, size_t errlen);
int shoal_boot_singleton_open(struct shoal_boot *b, char *errbuf, size_t errlen);

/* Which bootstrap to use (boot_open.c): auto (the default), local, pmix,
 * singleton. */
#define SHOAL_ENV_BOOT "SHOAL_BOOT"

/* Environment contract between oshrun and boot_local.c. */
#define SHOAL_ENV_BOOT_FD "SHOAL_BOOT_FD" /* inherited socket to oshrun */
#define SHOAL_ENV_RANK "SHOAL_RANK"
#define SHOAL_ENV_SIZE "SHOAL_SIZE"
#define SHOAL_ENV_JOBID "SHOAL_JOBID" /* unique per job on this node */
/* oshrun started this program with UCX_MEM_BISTRO_GRACE_DURATION=0
 * (tools/oshrun/ucx_start.c); read by transport/ucx/ucx_startup.c. */
#define SHOAL_ENV_UCX_GRACE "SHOAL_OSHRUN_UCX_GRACE"

#endif
