/* listen_delay: an LD_PRELOAD shim for test_pmix.py's concurrent case.
 * After a successful listen() on an abstract Unix socket whose name starts
 * with "shoal-" (a segment socket, core/memory/segments.c) in the process of
 * PMIX_RANK 0, it sleeps SHOAL_TEST_LISTEN_DELAY seconds: that PE then holds
 * its job's socket name while its peers wait in the bootstrap barrier, so
 * another job started meanwhile surely overlaps with it.  With
 * SHOAL_TEST_LISTEN_UNTIL=PATH it sleeps until PATH exists instead, at most
 * the delay: the test releases it when it is done, however long the other
 * job took on a loaded machine.  Every other listen() (mpirun's own
 * included) is untouched. */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Sleeps `s` seconds, or (until != NULL) until that path exists. */
static void hold(double s, const char *until)
{
    struct timespec step = {0, 20000000};
    for (double left = s; until && left > 0; left -= 0.02) {
        if (access(until, F_OK) == 0)
            return;
        nanosleep(&step, NULL);
    }
    if (until)
        return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

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
        hold(atof(delay), getenv("SHOAL_TEST_LISTEN_UNTIL"));
    }
    return rc;
}
