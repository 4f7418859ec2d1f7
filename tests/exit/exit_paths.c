/* Ways a program leaves an OpenSHMEM job, written as users write them:
 * no barrier before shmem_finalize, no finalize at all, exit() in the
 * middle, a PE that leaves while the others still synchronize.
 *
 *   exit_paths hello        init, print, finalize
 *   exit_paths put          one put to the next PE, finalize
 *   exit_paths ctx          a context with a put on it, finalize (not destroyed)
 *   exit_paths amo          one atomic add to the next PE, finalize
 *   exit_paths no_finalize  one put, return from main without finalize
 *   exit_paths exit0        one put, exit(0) without finalize
 *   exit_paths global_exit  PE 0 calls shmem_global_exit(0) while the others
 *                           wait in a barrier that never completes
 *   exit_paths global_exit_late
 *                           PE 0 calls shmem_global_exit(0) after 0.5 s, while
 *                           the others wait in shmem_finalize's bootstrap
 *                           barrier
 *   exit_paths early_exit   PE 1 calls exit(0) while the others go into a
 *                           barrier (an error the job must report, not a hang)
 *   exit_paths early_finalize
 *                           PE 1 calls shmem_finalize while the others go into
 *                           a barrier (the same, with an explicit finalize)
 *   exit_paths mismatch     PE 0 in shmem_barrier_all, the others in a sum
 *                           reduction (mismatch_debug: the same, run with
 *                           SHMEM_DEBUG=1, which compares the calls)
 *   exit_paths hang         PE 0 waits for a flag nobody sets, the others wait
 *                           in shmem_barrier_all (the launcher's --timeout must
 *                           make every PE say where it waits)
 *   exit_paths hang_sleep   PE 0 sleeps 20 s, PE 2 (if any) waits in pause(),
 *                           then each finalizes; the others wait in
 *                           shmem_barrier_all.  Asking where the PEs wait
 *                           (--dump-on-hang, --timeout, SIGQUIT to oshrun) must
 *                           not cut the sleep or the pause short: each says so
 *                           on stderr if it was
 *   exit_paths global_exit_busy
 *                           PE 0 calls shmem_global_exit(5) while the others
 *                           keep getting from it: they end with it, and none
 *                           reports its peer's going as an error
 *   exit_paths fork_put     each PE forks a child that puts to the next PE:
 *                           where that PE is reached through the network the
 *                           child must fail with the forked-child error (and
 *                           the parent go on), where it is mapped it may put
 *   exit_paths nested       PE 0 runs this program again (system()) with the
 *                           environment it inherited: the inner program must
 *                           fail at once with a clear error, not join the job
 *   exit_paths hang_net     PE 1 stops itself (SIGSTOP); PE 0 gets from it,
 *                           the others wait in shmem_barrier_all: run through
 *                           the network (SHOAL_TRANSPORTS=ucx), the report
 *                           must say that PE 0 waits for PE 1 in a get
 *   exit_paths hang_mt      every PE calls shmemx_team_broadcastmem_mt with
 *                           nthreads 2 from one thread only (thread_id 0 on
 *                           even PEs, 1 on odd ones): the report must say which
 *                           thread of the PE it waits for
 *   exit_paths hang_init    PE 1 (oshrun's SHOAL_RANK) waits in pause() before
 *                           shmem_init: the report must say that the others
 *                           wait in shmem_init's bootstrap call, through
 *                           oshrun's socket
 *   exit_paths hang_finalize
 *                           PE 1 waits in pause() before shmem_finalize: the
 *                           others wait in its bootstrap barrier */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <shmem.h>
#include <signal.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long target[4];
static long flag;
static int red_src[4], red_dst[4];
static char bc_src[64], bc_dst[64];

/* The child of fork_put: the put, then exit 0 (reached only where the put
 * was allowed). */
static int fork_put(int me, int n, const char *self)
{
    (void)self;
    int next = (me + 1) % n, fds[2];
    int mapped = shmem_ptr(&target[3], next) != NULL;
    if (pipe(fds) != 0)
        return 1;
    fflush(stdout);
    fflush(stderr);
    pid_t p = fork();
    if (p == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        shmem_long_p(&target[3], 7, next);
        shmem_quiet();
        _exit(0);
    }
    close(fds[1]);
    char err[4096];
    size_t got = 0;
    ssize_t r;
    while (got < sizeof err - 1 && (r = read(fds[0], err + got, sizeof err - 1 - got)) > 0)
        got += (size_t)r;
    err[got] = 0;
    close(fds[0]);
    int status = 0;
    waitpid(p, &status, 0);
    int ok = mapped ? WIFEXITED(status) && WEXITSTATUS(status) == 0
                    : WIFEXITED(status) && WEXITSTATUS(status) != 0 && strstr(err, "forked child");
    if (!ok) {
        fprintf(stderr,
                "exit_paths: PE %d: the forked child's put to %s PE %d: status %d, "
                "stderr:\n%s\n",
                me, mapped ? "mapped" : "network", next, status, err);
        return 1;
    }
    return 0;
}

/* nested: the program again, from inside PE 0, with PE 0's environment. */
static int nested(int me, const char *self)
{
    if (me != 0)
        return 0;
    char cmd[4200];
    /* The timeout catches an inner program that hangs (joined the job);
     * a loaded machine may take seconds to start it, which is no failure. */
    snprintf(cmd, sizeof cmd, "timeout 90 %s hello 2>&1", self);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    FILE *f = popen(cmd, "r");
    char out[4096] = "";
    size_t got = f ? fread(out, 1, sizeof out - 1, f) : 0;
    out[got] = 0;
    int status = f ? pclose(f) : -1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (status == 0 || !WIFEXITED(status) || WEXITSTATUS(status) == 124 || !strstr(out, "shoal")) {
        fprintf(stderr,
                "exit_paths: the program started inside PE 0: status %d after %.1f s "
                "(expected a clear error, not a hang), output:\n%s\n",
                status, dt, out);
        return 1;
    }
    printf("nested: refused after %.2f s: %s", dt, out);
    return 0;
}

static void one_put(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_long_p(&target[0], me + 1, (me + 1) % n);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "hello";
    const char *rank = getenv("SHOAL_RANK");
    if (!strcmp(mode, "hang_init") && rank && atoi(rank) == 1)
        pause();
    if (!strcmp(mode, "hang_mt")) {
        int provided;
        if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0 ||
            provided != SHMEM_THREAD_MULTIPLE) {
            fprintf(stderr, "exit_paths: no SHMEM_THREAD_MULTIPLE\n");
            return 1;
        }
    } else {
        shmem_init();
    }
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (!strcmp(mode, "hello")) {
        printf("PE %d of %d\n", me, n);
    } else if (!strcmp(mode, "put")) {
        one_put();
    } else if (!strcmp(mode, "ctx")) {
        shmem_ctx_t ctx;
        if (shmem_ctx_create(0, &ctx) != 0) {
            fprintf(stderr, "PE %d: shmem_ctx_create failed\n", me);
            return 1;
        }
        shmem_ctx_long_p(ctx, &target[1], me + 1, (me + 1) % n);
    } else if (!strcmp(mode, "amo")) {
        shmem_long_atomic_add(&target[2], 1, (me + 1) % n);
    } else if (!strcmp(mode, "no_finalize")) {
        one_put();
        return 0;
    } else if (!strcmp(mode, "exit0")) {
        one_put();
        exit(0);
    } else if (!strcmp(mode, "global_exit")) {
        if (me == 0)
            shmem_global_exit(0);
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1); /* never set */
    } else if (!strcmp(mode, "global_exit_late")) {
        if (me == 0) {
            struct timespec ts = {0, 500000000};
            nanosleep(&ts, NULL);
            shmem_global_exit(0);
        }
    } else if (!strcmp(mode, "global_exit_busy")) {
        shmem_barrier_all();
        if (me == 0) {
            struct timespec ts = {0, 200000000};
            nanosleep(&ts, NULL);
            shmem_global_exit(5);
        }
        for (;;)
            flag += shmem_long_g(&target[0], 0);
    } else if (!strcmp(mode, "fork_put")) {
        if (fork_put(me, n, argv[0]))
            return 1;
        shmem_barrier_all();
    } else if (!strcmp(mode, "nested")) {
        if (nested(me, argv[0]))
            return 1;
        shmem_barrier_all();
    } else if (!strcmp(mode, "early_exit") || !strcmp(mode, "early_finalize")) {
        if (me == 1) {
            if (!strcmp(mode, "early_exit"))
                exit(0);
            shmem_finalize();
            return 0;
        }
        shmem_barrier_all();
    } else if (!strcmp(mode, "mismatch") || !strcmp(mode, "mismatch_debug")) {
        if (me == 0)
            shmem_barrier_all();
        else
            shmem_int_sum_reduce(SHMEM_TEAM_WORLD, red_dst, red_src, 4);
    } else if (!strcmp(mode, "hang")) {
        if (me == 0)
            shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
        else
            shmem_barrier_all();
    } else if (!strcmp(mode, "hang_net")) {
        shmem_barrier_all();
        if (me == 1)
            raise(SIGSTOP);
        else if (me == 0)
            flag = shmem_long_g(&target[0], 1);
        shmem_barrier_all();
    } else if (!strcmp(mode, "hang_sleep")) {
        if (me == 0) {
            unsigned left = sleep(20);
            if (left)
                fprintf(stderr, "exit_paths: PE 0: sleep(20) was cut short, %u s left\n", left);
        } else if (me == 2) {
            pause();
            fprintf(stderr, "exit_paths: PE 2: pause() returned (%s)\n", strerror(errno));
        } else {
            shmem_barrier_all();
        }
    } else if (!strcmp(mode, "hang_init")) {
        fprintf(stderr, "exit_paths: PE %d: shmem_init returned\n", me);
    } else if (!strcmp(mode, "hang_finalize")) {
        if (me == 1)
            pause();
    } else if (!strcmp(mode, "hang_mt")) {
        shmemx_team_broadcastmem_mt(SHMEM_TEAM_WORLD, bc_dst, bc_src, sizeof bc_src, 0, 2, me % 2);
    } else {
        fprintf(stderr, "exit_paths: unknown mode '%s'\n", mode);
        return 2;
    }
    shmem_finalize();
    return 0;
}
