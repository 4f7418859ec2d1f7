/* pmix_hello: a Shoal program started by a PMIx launcher (mpirun).
 *
 *   pmix_hello hello N
 *
 * Checks: shmem_n_pes() is N, shmem_my_pe() is the launcher's rank
 * (PMIX_RANK), every PE puts to every PE (symmetric heap and static data),
 * a barrier, everybody reads what everybody wrote; an atomic count on PE 0;
 * gets from the next PE.  Prints "pmix_hello: PE r/N ok (namespace NS)"
 * (NS: PMIX_NAMESPACE) and exits 0.
 *
 *   pmix_hello stuck N
 *
 * Every PE prints "pmix_hello: PE r stuck" after a barrier, then waits in
 * shmem_wait_until for a word nobody writes: what is left when the
 * launcher is killed. */
#include "shoal_test.h"

static long sdata[256]; /* static data: symmetric */
static long counter;

static void exchange(long *heap, int me, int n, long round)
{
    for (int pe = 0; pe < n; pe++) {
        shmem_long_p(&heap[me], round * 1000000 + me * 1000 + pe, pe);
        long v = round * 1000000 + me * 1000 + pe + 1;
        shmem_putmem(&sdata[me], &v, sizeof v, pe);
    }
    shmem_barrier_all();
    for (int r = 0; r < n; r++) {
        CHECK_EQ_I(heap[r], round * 1000000 + r * 1000 + me);
        CHECK_EQ_I(sdata[r], round * 1000000 + r * 1000 + me + 1);
    }
    int next = (me + 1) % n;
    CHECK_EQ_I(shmem_long_g(&heap[next], next), round * 1000000 + next * 1000 + next);
    shmem_barrier_all(); /* nobody overwrites before everybody has read */
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: pmix_hello hello|stuck N\n");
        return 2;
    }
    int stuck = strcmp(argv[1], "stuck") == 0;
    if (strcmp(argv[1], "hello") != 0 && !stuck) {
        fprintf(stderr, "pmix_hello: unknown mode '%s'\n", argv[1]);
        return 2;
    }
    int want = atoi(argv[2]);
    const char *pr = getenv("PMIX_RANK");
    if (!pr) {
        fprintf(stderr, "pmix_hello: PMIX_RANK is not set: run me under mpirun\n");
        return 2;
    }

    shmem_init();
    st_begin();
    int me = shmem_my_pe(), n = shmem_n_pes();
    ST_PHASE("identity");
    CHECK_EQ_I(n, want);
    CHECK_EQ_I(me, atoi(pr));
    CHECK(n <= 256);

    if (stuck) {
        shmem_barrier_all();
        printf("pmix_hello: PE %d stuck\n", me);
        fflush(stdout);
        shmem_long_wait_until(&counter, SHMEM_CMP_EQ, -1);
        return 1;
    }

    ST_PHASE("exchange");
    long *heap = shmem_malloc(sizeof(long) * (size_t)n);
    CHECK_NOT_NULL(heap);
    exchange(heap, me, n, 1);

    ST_PHASE("atomic");
    shmem_long_atomic_add(&counter, me + 1, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ_I(counter, (long)n * (n + 1) / 2);

    shmem_free(heap);
    const char *ns = getenv("PMIX_NAMESPACE");
    printf("pmix_hello: PE %d/%d ok (namespace %s)\n", me, n, ns ? ns : "(unset)");
    fflush(stdout);
    shmem_finalize();
    return 0;
}
