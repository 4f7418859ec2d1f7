/* Programs whose PEs make collective calls that do not match: each mode
 * is one mistake, and expect_failure.py checks that the job ends, within
 * seconds, with the message that names both calls (issue 40: once wrong
 * values, a silent success, a live peer called dead after 20 s, or a hang).
 *
 * A mode is MODE_N, e.g. op_100000:
 *
 *   mismatch op N        PE 0 shmem_long_max_reduce, the others
 *                        shmem_long_sum_reduce, N elements each
 *   mismatch root N      shmem_long_broadcast of N elements, root 0 on PE 0
 *                        and root 1 on the others
 *   mismatch root_wait N the same, root 1 on PE 0 and 0 on the others
 *                        (with two PEs each waits for the other)
 *   mismatch bsize N     shmem_long_broadcast from PE 0 of N elements, the
 *                        others expecting 2N, and calling 0.2 s late (the
 *                        data is there before they ask for it)
 *   mismatch a2a N       PE 0 shmem_long_alltoall, the others
 *                        shmem_long_fcollect, N elements per PE
 *   mismatch team N      PE 0 reduces on a split copy of the world team,
 *                        the others on SHMEM_TEAM_WORLD (N longs)
 *   mismatch sumfc N     PE 0 shmem_int_sum_reduce, the others
 *                        shmem_int_fcollect, N ints each
 *
 * After the mismatched call every PE enters a barrier: a PE that returned
 * waits there while the others report.  A job in which every PE gets
 * through ends with status 98 and says so. */
#include "shoal_test.h"

static void mismatched(const char *mode, size_t ne, int me, int n)
{
    /* The alltoall and the fcollects take every PE's block. */
    const size_t all = !strcmp(mode, "a2a") || !strcmp(mode, "sumfc") || !strcmp(mode, "bsize")
                           ? ne * (size_t)n
                           : ne;
    long *src = shmem_calloc(all, sizeof(long));
    long *dst = shmem_calloc(all, sizeof(long));
    if (!src || !dst) {
        fprintf(stderr, "mismatch: out of symmetric memory for %zu elements\n", all);
        exit(97);
    }
    for (size_t i = 0; i < all; i++)
        src[i] = me + 1;
    shmem_barrier_all();
    if (!strcmp(mode, "op")) {
        if (me == 0)
            shmem_long_max_reduce(SHMEM_TEAM_WORLD, dst, src, ne);
        else
            shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, ne);
    } else if (!strcmp(mode, "root") || !strcmp(mode, "root_wait")) {
        const int mine = (me == 0) == !strcmp(mode, "root") ? 0 : 1;
        shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, ne, mine);
    } else if (!strcmp(mode, "bsize")) {
        if (me != 0)
            st_sleep_us(200000);
        shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, me == 0 ? ne : 2 * ne, 0);
    } else if (!strcmp(mode, "a2a")) {
        if (me == 0)
            shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, ne);
        else
            shmem_long_fcollect(SHMEM_TEAM_WORLD, dst, src, ne);
    } else if (!strcmp(mode, "team")) {
        shmem_team_t copy;
        if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &copy) != 0)
            exit(96);
        shmem_long_sum_reduce(me == 0 ? copy : SHMEM_TEAM_WORLD, dst, src, ne);
    } else if (!strcmp(mode, "sumfc")) {
        if (me == 0)
            shmem_int_sum_reduce(SHMEM_TEAM_WORLD, (int *)dst, (const int *)src, ne);
        else
            shmem_int_fcollect(SHMEM_TEAM_WORLD, (int *)dst, (const int *)src, ne);
    } else {
        fprintf(stderr, "mismatch: unknown mode '%s'\n", mode);
        exit(2);
    }
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    char mode[64];
    const char *us = argc == 2 ? strrchr(argv[1], '_') : NULL;
    if (!us || (size_t)(us - argv[1]) >= sizeof mode) {
        fprintf(stderr, "usage: mismatch MODE_ELEMENTS\n");
        return 2;
    }
    memcpy(mode, argv[1], (size_t)(us - argv[1]));
    mode[us - argv[1]] = 0;
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    mismatched(mode, (size_t)atol(us + 1), me, n);
    shmem_finalize();
    if (n > 1) {
        fprintf(stderr, "mismatch: mode '%s': PE %d got through its mismatched call\n", argv[1],
                me);
        return 98;
    }
    return 0;
}
