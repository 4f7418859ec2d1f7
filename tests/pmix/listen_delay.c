/* listen_delay: an LD_PRELOAD shim for test_pmix.py's concurrent case.
 * After a successful listen() on an abstract Unix socket whose name starts
 * with "shoal-" (a segment socket, core/memory/segments.c) in the process of
 * PMIX_RANK 0, it sleeps SHOAL_TEST_LISTEN_DELAY seconds: that PE then holds
 * its job's socket name while its peers wait in the bootstrap barrier, so
 * another job started meanwhile surely overlaps with it.  Every other
 * listen() (mpirun's own included) is untouched. */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>

int listen(int fd, int backlog)
{
    static int (*real)(int, int);
    if (!real)
        real = (int (*)(int, int))dlsym(RTLD_NEXT, "listen");
    int rc = real(fd, backlog);
    const char *delay = getenv("SHOAL_TEST_LISTEN_DELAY");
    const char *rank = getenv("PMIX_RANK");
    if (rc != 0 || !delay || !rank || strcmp(rank, "0") != 0)
        return rc;
    struct sockaddr_un a;
    socklen_t len = sizeof a;
    memset(&a, 0, sizeof a);
    if (getsockname(fd, (struct sockaddr *)&a, &len) == 0 && a.sun_family == AF_UNIX &&
        a.sun_path[0] == 0 && !strncmp(a.sun_path + 1, "shoal-", 6)) {
        double s = atof(delay);
        struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
    return rc;
}
