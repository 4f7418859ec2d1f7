/* Deprecated setup routines that 1.6 still requires: start_pes, _my_pe,
 * _num_pes, and implicit finalization.
 *
 *   setup_deprecated finalize   ends with shmem_finalize
 *   setup_deprecated implicit   returns from main without finalizing
 *                               (deprecated implicit finalization) */
#include "shoal_test.h"

#define MAXPE 64
static int g_slots[MAXPE];

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "finalize";
    int init = -1;
    shmem_query_initialized(&init);
    CHECK_EQ_I(init, 0);

    start_pes(0);
    st_begin();
    ST_PHASE("start_pes");
    shmem_query_initialized(&init);
    CHECK(init != 0);
    CHECK_EQ_I(_my_pe(), shmem_my_pe());
    CHECK_EQ_I(_num_pes(), shmem_n_pes());
    int me = _my_pe(), n = _num_pes();
    CHECK(me >= 0 && me < n && n <= MAXPE);

    /* A second start_pes is a no-op (the 1.0 rule). */
    start_pes(0);
    CHECK_EQ_I(_my_pe(), me);
    CHECK_EQ_I(_num_pes(), n);

    ST_PHASE("communication after start_pes");
    for (int pe = 0; pe < n; pe++)
        shmem_int_p(&g_slots[me], me + 100, pe);
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++)
        CHECK_EQ_I(g_slots[pe], pe + 100);

    /* The deprecated allocator names live in memory.c; here just one. */
    long *p = shmalloc(sizeof(long));
    CHECK_NOT_NULL(p);
    *p = me;
    shmem_barrier_all();
    CHECK_EQ_I(shmem_long_g(p, (me + 1) % n), (me + 1) % n);
    shmem_barrier_all();
    shfree(p);

    if (!strcmp(mode, "finalize")) {
        ST_PHASE("finalize");
        shmem_finalize();
        shmem_query_initialized(&init);
        CHECK_EQ_I(init, 0);
    } else {
        ST_PHASE("implicit finalize");
        shmem_barrier_all();
    }
    if (me == 0)
        printf("ok: setup_deprecated %s\n", mode);
    return 0;
}
