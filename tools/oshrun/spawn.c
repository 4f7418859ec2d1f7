/* Starting the PEs.
 *
 * Everything a child needs is prepared before fork(); between fork() and
 * exec the child only makes system calls (async-signal-safe):
 *   - PR_SET_PDEATHSIG(SIGKILL), then getppid() is checked, so a PE never
 *     outlives oshrun (oshrun is single-threaded, so "parent thread exits"
 *     means oshrun exits);
 *   - the signal mask, SIGPIPE's disposition and the descriptor limit that
 *     oshrun changed for itself are restored;
 *   - stdin: PE 0 keeps oshrun's, the others read /dev/null; stdout and
 *     stderr are pipes to oshrun, which forwards whole lines (iofwd.c);
 *     where oshrun's own stream is a terminal, a pseudo-terminal instead,
 *     so the program still sees a terminal (isatty, line-buffered stdio:
 *     its output appears as it prints, as without oshrun);
 *   - the boot socket is the only descriptor oshrun opened that survives
 *     exec (everything else is O_CLOEXEC, in particular the other PEs'
 *     sockets and pipes);
 *   - its CPU set (placement.c, computed before the first fork):
 *     sched_setaffinity, so the PE starts bound.
 * A failed exec is reported to oshrun through a close-on-exec pipe (the
 * errno; negated when binding failed). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "boot/boot.h"
#include "oshrun.h"

extern char **environ;

/* Saved in main() before oshrun changes them for itself. */
sigset_t oshrun_orig_mask;
struct sigaction oshrun_orig_sigpipe;
struct rlimit oshrun_orig_nofile;

/* execvp's search, done once in oshrun so that "not found" is reported
 * before anything starts.  Returns a malloc'd path or NULL (errno). */
static char *resolve(const char *prog)
{
    struct stat st;
    if (strchr(prog, '/')) {
        if (stat(prog, &st) < 0)
            return NULL;
        if (S_ISDIR(st.st_mode)) {
            errno = EISDIR;
            return NULL;
        }
        if (access(prog, X_OK) < 0)
            return NULL;
        return strdup(prog);
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    int seen_eacces = 0;
    size_t pl = strlen(prog);
    for (const char *p = path;;) {
        const char *c = strchr(p, ':');
        size_t dl = c ? (size_t)(c - p) : strlen(p);
        char *cand = malloc(dl + pl + 3);
        if (!cand)
            return NULL;
        if (dl == 0)
            snprintf(cand, pl + 3, "./%s", prog);
        else
            snprintf(cand, dl + pl + 2, "%.*s/%s", (int)dl, p, prog);
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(cand, X_OK) == 0)
                return cand;
            seen_eacces = 1;
        }
        free(cand);
        if (!c)
            break;
        p = c + 1;
    }
    errno = seen_eacces ? EACCES : ENOENT;
    return NULL;
}

static void make_jobid(struct job *j)
{
    unsigned int r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
        r = (unsigned int)(now_mono() * 1e9) ^ (unsigned int)getpid() * 2654435761u;
    snprintf(j->jobid, sizeof j->jobid, "%ld-%08x", (long)getpid(), r);
}

/* Raises the descriptor limit if N PEs need more than it allows (a boot
 * socket and two output channels each). */
static int ensure_fds(struct job *j)
{
    rlim_t need = (rlim_t)j->n * 3 + 64;
    struct rlimit rl = oshrun_orig_nofile;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
        rl.rlim_cur = (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need) ? need : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        if (rl.rlim_cur < need) {
            msg("-n %d needs %llu file descriptors in oshrun, but the limit is %llu "
                "(ulimit -n)",
                j->n, (unsigned long long)need, (unsigned long long)rl.rlim_max);
            return -1;
        }
    }
    return 0;
}

/* The child, between fork and exec: system calls only. */
static _Noreturn void child(char *const *argv, int rank, const char *path, int sock, int devnull,
                            int out_w, int err_w, int report_w, pid_t parent,
                            const struct placement *pl)
{
    int e;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
        _exit(1); /* oshrun is already gone */
    sigaction(SIGPIPE, &oshrun_orig_sigpipe, NULL);
    sigprocmask(SIG_SETMASK, &oshrun_orig_mask, NULL);
    setrlimit(RLIMIT_NOFILE, &oshrun_orig_nofile);
    if (rank != 0 && dup2(devnull, STDIN_FILENO) < 0)
        goto fail;
    if (dup2(out_w, STDOUT_FILENO) < 0 || dup2(err_w, STDERR_FILENO) < 0)
        goto fail;
    if (fcntl(sock, F_SETFD, 0) < 0) /* the one descriptor that crosses exec */
        goto fail;
    if (placement_apply(pl, rank) < 0) {
        e = -errno;
        goto report;
    }
    execve(path, argv, environ);
fail:
    e = errno;
report:
    while (write(report_w, &e, sizeof e) < 0 && errno == EINTR)
        ;
    _exit(127);
}

/* A pseudo-terminal for a PE's output to terminal `like` (oshrun's stdout
 * or stderr): fd[0] the master oshrun reads, fd[1] the slave the PE writes.
 * Output processing is off, so bytes pass unchanged ("\n" stays "\n"); the
 * window size is oshrun's.  Returns -1 if there is none to be had. */
static int open_pty(int like, int fd[2])
{
    fd[0] = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (fd[0] < 0)
        return -1;
    char name[128];
    struct termios t;
    if (grantpt(fd[0]) < 0 || unlockpt(fd[0]) < 0 || ptsname_r(fd[0], name, sizeof name) != 0)
        goto fail;
    fd[1] = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (fd[1] < 0)
        goto fail;
    if (tcgetattr(fd[1], &t) == 0) {
        t.c_oflag &= ~(tcflag_t)OPOST;
        tcsetattr(fd[1], TCSANOW, &t);
    }
    struct winsize ws;
    if (ioctl(like, TIOCGWINSZ, &ws) == 0)
        ioctl(fd[1], TIOCSWINSZ, &ws);
    return 0;
fail:
    close(fd[0]);
    fd[0] = -1;
    return -1;
}

/* The channel for a PE's stream `which` (0: stdout, 1: stderr). */
static int open_output(int which, int fd[2])
{
    int like = which ? STDERR_FILENO : STDOUT_FILENO;
    if (isatty(like) && open_pty(like, fd) == 0)
        return 0;
    return pipe2(fd, O_CLOEXEC);
}

static void set_env_int(const char *name, long v)
{
    char b[32];
    snprintf(b, sizeof b, "%ld", v);
    setenv(name, b, 1);
}

/* -x VAR=value into oshrun's environment, which the PEs inherit ("-x VAR":
 * exported already if set).  *old (when old != NULL) receives VAR's value
 * before, malloc'd, or NULL. */
static void export_var(char *xv, char **old)
{
    char *eq = strchr(xv, '=');
    if (!eq)
        return;
    *eq = 0;
    if (old) {
        const char *was = getenv(xv);
        *old = was ? strdup(was) : NULL;
    }
    setenv(xv, eq + 1, 1);
    *eq = '=';
}

/* Block b's -x, set (olds != NULL: the values before, into olds) or put
 * back as they were (olds of the set, in reverse order: a variable given
 * twice ends as it began). */
static void block_vars(const struct oshrun_opts *o, const struct oshrun_block *b, char **olds,
                       int restore)
{
    for (int k = 0; k < b->nx; k++) {
        int i = restore ? b->nx - 1 - k : k;
        char *xv = o->xvars[b->x0 + i], *eq = strchr(xv, '=');
        if (!restore) {
            olds[i] = NULL;
            export_var(xv, &olds[i]);
            continue;
        }
        if (!eq)
            continue;
        *eq = 0;
        if (olds[i])
            setenv(xv, olds[i], 1);
        else
            unsetenv(xv);
        *eq = '=';
        free(olds[i]);
    }
}

static void close_all(const int *fds, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* Forks PE r and waits until it has exec'd.  Returns 0, or the exit status
 * oshrun should end with after saying why. */
static int spawn_one(struct job *j, int r, const char *path, char *const *argv, int devnull,
                     pid_t self, const struct placement *pl)
{
    struct pe *p = &j->pes[r];
    int sv[2] = {-1, -1}, outp[2] = {-1, -1}, errp[2] = {-1, -1}, rep[2] = {-1, -1};
    const char *what = NULL;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
        what = "the boot socket";
    else if (open_output(0, outp) < 0 || open_output(1, errp) < 0)
        what = "the output pipes";
    else if (pipe2(rep, O_CLOEXEC) < 0)
        what = "a pipe";
    if (what) {
        msg("cannot create %s for PE %d: %s", what, r, strerror(errno));
        int all[] = {sv[0], sv[1], outp[0], outp[1], errp[0], errp[1], rep[0], rep[1]};
        close_all(all, sizeof all / sizeof all[0]);
        return 1;
    }
    set_env_int(SHOAL_ENV_RANK, r);
    set_env_int(SHOAL_ENV_BOOT_FD, sv[1]);

    pid_t pid = fork();
    if (pid == 0)
        child(argv, r, path, sv[1], devnull, outp[1], errp[1], rep[1], self, pl);
    int fork_err = errno;
    int child_ends[] = {sv[1], rep[1], outp[1], errp[1]};
    close_all(child_ends, 4);
    if (pid < 0) {
        msg("cannot start PE %d: fork: %s", r, strerror(fork_err));
        int ours[] = {sv[0], rep[0], outp[0], errp[0]};
        close_all(ours, 4);
        return 1;
    }
    p->pid = pid;
    p->alive = 1;
    p->sock = sv[0];
    fcntl(p->sock, F_SETFL, O_NONBLOCK);
    p->io[0] = outp[0];
    p->io[1] = errp[0];
    fcntl(outp[0], F_SETFL, O_NONBLOCK);
    fcntl(errp[0], F_SETFL, O_NONBLOCK);
    j->nspawned = r + 1;
    j->alive++;
    if (j->o->report_bindings)
        placement_report(pl, r, (long)pid);

    /* Blocks until the child has exec'd (EOF) or failed (errno). */
    int e = 0;
    ssize_t n;
    do
        n = read(rep[0], &e, sizeof e);
    while (n < 0 && errno == EINTR);
    close(rep[0]);
    if (n == (ssize_t)sizeof e && e < 0) {
        msg("cannot bind PE %d to its CPUs: sched_setaffinity: %s", r, strerror(-e));
        return 1;
    }
    if (n == (ssize_t)sizeof e) {
        msg("cannot execute '%s' (PE %d): %s", path, r, strerror(e));
        return 127;
    }
    return 0;
}

/* Every block's program found before anything starts: paths[b], or the
 * exit status after saying why. */
static int resolve_all(const struct oshrun_opts *o, char **paths)
{
    for (int b = 0; b < o->nblocks; b++) {
        const char *prog = o->blocks[b].argv[0];
        paths[b] = resolve(prog);
        if (paths[b]) {
            ucx_start_fast(paths[b]);
            continue;
        }
        if (errno == ENOENT && !strchr(prog, '/'))
            msg("cannot execute '%s': command not found (searched PATH)", prog);
        else
            msg("cannot execute '%s': %s", prog, strerror(errno));
        return 127;
    }
    return 0;
}

/* The PEs of every block, in rank order; a later block's -x only while
 * its own PEs start. */
static int spawn_blocks(struct job *j, char **paths, int devnull, const struct placement *pl)
{
    const struct oshrun_opts *o = j->o;
    char **olds = xcalloc((size_t)o->nx + 1, sizeof *olds);
    pid_t self = getpid();
    int rc = 0, r = 0;
    for (int b = 0; b < o->nblocks && rc == 0; b++) {
        const struct oshrun_block *bl = &o->blocks[b];
        if (b > 0)
            block_vars(o, bl, olds, 0);
        for (int k = 0; k < bl->np && rc == 0; k++, r++)
            rc = spawn_one(j, r, paths[b], bl->argv, devnull, self, pl);
        if (b > 0)
            block_vars(o, bl, olds, 1);
    }
    free(olds);
    return rc;
}

int spawn_all(struct job *j)
{
    struct oshrun_opts *o = j->o;
    for (int i = 0; i < o->blocks[0].nx; i++) /* the whole job's */
        export_var(o->xvars[i], NULL);
    char **paths = xcalloc((size_t)o->nblocks, sizeof *paths);
    int rc = resolve_all(o, paths), devnull = -1;
    struct placement pl;
    memset(&pl, 0, sizeof pl);
    if (rc)
        goto out;
    rc = 1;
    /* Every PE's CPU set, before the first fork (the children only apply it). */
    if (ensure_fds(j) < 0 || placement_compute(&pl, o, j->n) < 0)
        goto out;
    devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0) {
        msg("cannot open /dev/null: %s", strerror(errno));
        goto out;
    }
    make_jobid(j);
    setenv(SHOAL_ENV_JOBID, j->jobid, 1);
    set_env_int(SHOAL_ENV_SIZE, j->n);
    rc = spawn_blocks(j, paths, devnull, &pl);
out:
    if (devnull >= 0)
        close(devnull);
    for (int b = 0; b < o->nblocks; b++)
        free(paths[b]);
    free(paths);
    placement_free(&pl);
    return rc;
}
