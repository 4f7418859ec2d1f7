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
 *   exit_paths hang_mt      every PE calls shmemx_team_broadcastmem_mt with
 *                           nthreads 2 from one thread only (thread_id 0 on
 *                           even PEs, 1 on odd ones): the report must say which
 *                           thread of the PE it waits for */
#include <errno.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long target[4];
static long flag;
static int red_src[4], red_dst[4];
static char bc_src[64], bc_dst[64];

static void one_put(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_long_p(&target[0], me + 1, (me + 1) % n);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "hello";
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
    } else if (!strcmp(mode, "hang_mt")) {
        shmemx_team_broadcastmem_mt(SHMEM_TEAM_WORLD, bc_dst, bc_src, sizeof bc_src, 0, 2, me % 2);
    } else {
        fprintf(stderr, "exit_paths: unknown mode '%s'\n", mode);
        return 2;
    }
    shmem_finalize();
    return 0;
}
