/* Barriers: shmem_barrier_all and shmem_sync_all, hundreds of iterations
 * each (team syncs belong to the team tests).  Before each barrier every PE
 * writes the iteration number into its slot on every PE (blocking p,
 * nbi puts, AMOs, and a plain local store read back by others); after it
 * every slot must hold that iteration.  Slots alternate between two rows so
 * that iteration i+1's writes cannot race with iteration i's checks.
 *
 * barrier_all completes outstanding puts itself; sync_all does not (spec),
 * so that loop calls shmem_quiet first. */
#include "shoal_test.h"

#define MAXPE 64
#define ITERS 500

static int g_slot[2][MAXPE];
static long g_amo[2][MAXPE];
static int g_local[2];

static char g_ph[160];
#define PHASE(...) (snprintf(g_ph, sizeof g_ph, __VA_ARGS__), ST_PHASE(g_ph))

enum { B_BARRIER_ALL, B_SYNC_ALL, B_COUNT };
static const char *const bname[B_COUNT] = {"shmem_barrier_all", "shmem_sync_all"};

static void sync_by(int how)
{
    switch (how) {
    case B_BARRIER_ALL: shmem_barrier_all(); break;
    default:
        shmem_quiet();
        shmem_sync_all();
        break;
    }
}

int main(void)
{
    shmem_init();
    st_begin();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int *hslot = shmem_malloc(2 * MAXPE * sizeof(int));
    CHECK_NOT_NULL(hslot);
    memset(hslot, 0, 2 * MAXPE * sizeof(int));
    shmem_barrier_all();
    int base = 0;
    for (int how = 0; how < B_COUNT; how++) {
        for (int it = 1; it <= ITERS; it++) {
            int v = base + it, row = v & 1;
            PHASE("%s iteration %d", bname[how], it);
            g_local[row] = v; /* a plain store: others read it after the barrier */
            for (int k = 0; k < n; k++) {
                int pe = (me + k) % n;
                switch (it % 3) {
                case 0: shmem_int_p(&g_slot[row][me], v, pe); break;
                case 1: shmem_int_put_nbi(&g_slot[row][me], &v, 1, pe); break;
                default: shmem_putmem(&g_slot[row][me], &v, sizeof v, pe); break;
                }
                shmem_int_put_nbi(&hslot[row * MAXPE + me], &v, 1, pe);
                shmem_long_atomic_set(&g_amo[row][me], v, pe);
            }
            /* Now and then one PE arrives late. */
            if (it % 50 == 0 && me == (it / 50) % n)
                st_sleep_us(2000);
            sync_by(how);
            for (int pe = 0; pe < n; pe++) {
                CHECK_MSG(g_slot[row][pe] == v,
                          "after %s %d: slot of PE %d holds %d (its put did not arrive)",
                          bname[how], it, pe, g_slot[row][pe]);
                CHECK_MSG(hslot[row * MAXPE + pe] == v, "after %s %d: heap slot of PE %d holds %d",
                          bname[how], it, pe, hslot[row * MAXPE + pe]);
                CHECK_MSG(g_amo[row][pe] == v, "after %s %d: AMO slot of PE %d holds %ld",
                          bname[how], it, pe, g_amo[row][pe]);
            }
            int theirs = shmem_int_g(&g_local[row], (me + 1) % n);
            CHECK_MSG(theirs == v, "after %s %d: PE %d's local store reads %d", bname[how], it,
                      (me + 1) % n, theirs);
        }
        base += ITERS;
        sync_by(how);
        st_note(bname[how]);
    }

    /* A barrier really waits for the last PE: PE n-1 arrives 100 ms late. */
    PHASE("barrier waits for a late PE");
    for (int how = 0; how < B_COUNT; how++) {
        sync_by(how);
        double t0 = st_now();
        if (me == n - 1)
            st_sleep_us(100000);
        sync_by(how);
        double dt = st_now() - t0;
        if (n > 1 && me != n - 1)
            CHECK_MSG(dt >= 0.08, "%s returned after %.3f s although PE %d arrived 0.1 s late",
                      bname[how], dt, n - 1);
    }
    shmem_barrier_all();
    shmem_free(hslot);
    ST_PHASE("finalize");
    shmem_finalize();
    if (st_me == 0)
        printf("ok: barrier (%d PEs)\n", st_npes);
    return 0;
}
