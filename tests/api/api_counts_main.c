/* A count whose byte length cannot exist is an argument error in every
 * routine: each case of count_cases (generated from the API table) runs in
 * a child process of its own, a singleton PE (on this node, or through UCX
 * when the environment says SHOAL_TRANSPORTS=ucx), once per count below.
 * The child must exit with status 1 and a one-line error naming the
 * routine and the count argument; returning from the call, a signal or
 * another status is a failure.
 *
 *   api_counts [FILTER [quick]]   only the routines whose name contains
 *                                 FILTER ("" for all); quick: only the
 *                                 counts (1<<62)+2 and 1<<40 (over UCX,
 *                                 where each child costs a UCX start-up) */
#define _GNU_SOURCE 1
#include "count_cases.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void *buf;
uint64_t *sig;
long *psync;
#define PSYNC_LEN                                                                   \
    (SHMEM_ALLTOALLS_SYNC_SIZE > SHMEM_REDUCE_SYNC_SIZE ? SHMEM_ALLTOALLS_SYNC_SIZE \
                                                        : SHMEM_REDUCE_SYNC_SIZE)
size_t indices[16];
shmemx_request_h req;

static const struct {
    size_t n;
    const char *name;
} counts[] = {
    {(size_t)1 << 62, "1<<62"},
    {((size_t)1 << 62) + 2, "(1<<62)+2"},
    {SIZE_MAX, "SIZE_MAX"},
    {(size_t)1 << 40, "1<<40"},
};

static _Noreturn void child(const struct count_case *c, size_t n, int errfd)
{
    dup2(errfd, 2);
    setenv("SHOAL_BOOT", "singleton", 1);
    int got;
    /* The multi-threaded collectives need SHMEM_THREAD_MULTIPLE. */
    shmem_init_thread(strstr(c->routine, "_mt") ? SHMEM_THREAD_MULTIPLE : SHMEM_THREAD_SINGLE,
                      &got);
    buf = shmem_calloc(512, 64);
    sig = shmem_calloc(1, sizeof *sig);
    psync = shmem_malloc(PSYNC_LEN * sizeof *psync);
    if (!buf || !sig || !psync)
        _exit(97);
    for (size_t i = 0; i < PSYNC_LEN; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    c->call(n);
    fprintf(stderr, "RETURNED\n");
    _exit(98);
}

/* The child's stderr, read until it exits. */
static void drain(int fd, char *out, size_t cap)
{
    size_t len = 0;
    for (;;) {
        ssize_t r = read(fd, out + len, cap - 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
        if (len == cap - 1)
            len = cap / 2; /* keep reading; the line we need comes early */
    }
    out[len] = 0;
}

static int run_case(const struct count_case *c, size_t ci)
{
    int p[2];
    if (pipe(p) != 0)
        return perror("pipe"), 1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        child(c, counts[ci].n, p[1]);
    }
    close(p[1]);
    static char err[16384];
    drain(p[0], err, sizeof err);
    close(p[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    const char *why = NULL;
    char arg[64];
    snprintf(arg, sizeof arg, "'%s'", c->count);
    if (WIFSIGNALED(st))
        why = "killed by a signal";
    else if (WEXITSTATUS(st) != 1)
        why = WEXITSTATUS(st) == 98 ? "the call returned" : "exit status is not 1";
    else if (strstr(err, "Sanitizer") || strstr(err, "runtime error"))
        why = "a sanitizer reported an error";
    else if (!strstr(err, c->routine))
        why = "the message does not name the routine";
    else if (!strstr(err, arg))
        why = "the message does not name the count argument";
    if (!why)
        return 0;
    fprintf(stderr, "FAIL: %s(%s = %s): %s (status %d)\n--- its stderr:\n%s---\n", c->routine,
            c->count, counts[ci].name, why, WIFSIGNALED(st) ? -WTERMSIG(st) : WEXITSTATUS(st), err);
    return 1;
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : "";
    int quick = argc > 2 && !strcmp(argv[2], "quick");
    int failed = 0, ran = 0;
    for (size_t i = 0; i < count_ncases; i++) {
        if (!strstr(count_cases[i].routine, filter))
            continue;
        for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
            if (quick && ci != 1 && ci != 3)
                continue;
            failed += run_case(&count_cases[i], ci);
            ran++;
        }
    }
    printf("api_counts: %d of %d calls failed\n", failed, ran);
    return failed != 0 || ran == 0;
}
