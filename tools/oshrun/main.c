/* oshrun: parse the command line, set up signals, start the PEs, serve
 * them until every one has exited, exit with the job's status.
 * The pieces are described in oshrun.h. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "oshrun.h"

int main(int argc, char **argv)
{
    /* Descriptors 0-2 must be open, or a socket could land there and be
     * clobbered by the dup2()s in the children. */
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
            return 1;

    struct oshrun_opts o;
    int r = opts_parse(argc, argv, &o);
    if (r) {
        opts_free(&o);
        return r == 1 ? 0 : 2;
    }

    /* What the PEs must get back (spawn.c restores it in each child). */
    sigprocmask(SIG_SETMASK, NULL, &oshrun_orig_mask);
    sigaction(SIGPIPE, NULL, &oshrun_orig_sigpipe);
    getrlimit(RLIMIT_NOFILE, &oshrun_orig_nofile);

    /* Our stdout may close under us (oshrun ... | head): EPIPE, not death.
     * SIGCHLD may arrive ignored from our parent: then we could not wait. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    sa.sa_handler = SIG_DFL;
    sigaction(SIGCHLD, &sa, NULL);

    sigset_t set;
    sigemptyset(&set);
    int sigs[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&set, sigs[i]);
    sigprocmask(SIG_BLOCK, &set, NULL);
    struct job j;
    memset(&j, 0, sizeof j);
    j.sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (j.sfd < 0) {
        perror("oshrun: signalfd");
        return 1;
    }
    /* Whatever a PE leaves behind becomes ours, and ends with the job. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);

    j.o = &o;
    j.n = o.np;
    j.pes = xcalloc((size_t)j.n, sizeof *j.pes);
    for (int i = 0; i < j.n; i++) {
        j.pes[i].rank = i;
        j.pes[i].sock = -1;
        j.pes[i].rx_fd = -1;
        j.pes[i].io[0] = j.pes[i].io[1] = -1;
    }
    j.exempt = -1;
    j.round_seq = 1;
    if (o.timeout > 0)
        j.deadline = now_mono() + o.timeout;
    if (o.dump_after > 0)
        j.dump_at = now_mono() + o.dump_after;

    int rc = spawn_all(&j);
    if (rc)
        job_terminate(&j, rc, -1, 0); /* spawn_all said why */
    rc = job_run(&j);
    /* Everything is released, so leak checkers (SHOAL_ASAN) stay quiet. */
    free(j.round_buf);
    for (int i = 0; i < j.n; i++)
        srv_unmap(&j.pes[i]);
    free(j.pes);
    opts_free(&o);
    close(j.sfd);
    return rc;
}
