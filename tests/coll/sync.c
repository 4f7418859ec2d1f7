/* Synchronization: shmem_barrier_all, shmem_sync_all, shmem_team_sync (and
 * the C11 shmem_sync(team)), and the deprecated active-set shmem_barrier and
 * shmem_sync (pSync of SHMEM_BARRIER_SYNC_SIZE longs set to
 * SHMEM_SYNC_VALUE).
 *
 * 1. Nobody leaves early: every member increments a counter on the group's
 *    first PE, one member arrives 50 ms late; after the sync each member
 *    reads the counter, which must equal the group size, and the others
 *    must have waited.  barrier_all and shmem_barrier complete the
 *    (non-fetching) increments themselves; before the sync-only routines
 *    the increment is a fetching AMO (complete on return).
 * 2. Ordering: before each sync every member writes the iteration number
 *    into its slot on every member (p, put_nbi, atomic set; shmem_quiet
 *    first where the routine does not complete remote updates) and a plain
 *    local store; after it every member sees all of them.  Hundreds of
 *    iterations on: the world (all routines), a strided team, the even and
 *    odd halves concurrently (teams and active sets), the rows and columns
 *    of a 2-D split alternating, active sets with strides 2 and 4, a
 *    one-PE set, and one pSync reused by shmem_barrier and shmem_sync
 *    alternately (the spec allows it for an unchanged active set).
 * 3. Every pSync holds SHMEM_SYNC_VALUE again at the end. */
#include "coll_test.h"

#define ROWS 4 /* slot rows: a PE is at most two iterations ahead of another */

static long g_slot[ROWS][CT_MAXPE];
static long g_local[ROWS];
static long g_cnt[512];
static long psA[SHMEM_BARRIER_SYNC_SIZE], psB[SHMEM_BARRIER_SYNC_SIZE],
    psC[SHMEM_BARRIER_SYNC_SIZE];

static int me, npes;

enum { K_BARRIER_ALL, K_SYNC_ALL, K_TEAM, K_GENERIC, K_ASET_BARRIER, K_ASET_SYNC };

typedef struct {
    char name[96];
    int kind;
    shmem_team_t team;
    int start, logstride, size;
    long *psync;
    ct_team_t m;
} group_t;

static void g_world(group_t *g, int kind, const char *name)
{
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    g->kind = kind;
    g->team = SHMEM_TEAM_WORLD;
    ct_world_model(&g->m);
}

static void g_team(group_t *g, int kind, shmem_team_t t, const ct_team_t *m, const char *name)
{
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    g->kind = kind;
    g->team = t;
    g->m = *m;
}

static void g_aset(group_t *g, int kind, int start, int logstride, int size, long *ps)
{
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s(%d, %d, %d)",
             kind == K_ASET_BARRIER ? "shmem_barrier" : "shmem_sync", start, logstride, size);
    g->kind = kind;
    g->start = start;
    g->logstride = logstride;
    g->size = size;
    g->psync = ps;
    g->m.n = size;
    g->m.me = -1;
    for (int i = 0; i < size; i++) {
        g->m.world[i] = start + (i << logstride);
        if (g->m.world[i] == me)
            g->m.me = i;
    }
}

/* Whether the routine itself completes outstanding remote updates. */
static int completes(const group_t *g)
{
    return g->kind == K_BARRIER_ALL || g->kind == K_ASET_BARRIER;
}

static void do_sync(const group_t *g)
{
    int rc = 0;
    switch (g->kind) {
    case K_BARRIER_ALL: shmem_barrier_all(); break;
    case K_SYNC_ALL: shmem_sync_all(); break;
    case K_TEAM: rc = shmem_team_sync(g->team); break;
    case K_GENERIC: rc = shmem_sync(g->team); break; /* C11: team form */
    case K_ASET_BARRIER: shmem_barrier(g->start, g->logstride, g->size, g->psync); break;
    default: shmem_sync(g->start, g->logstride, g->size, g->psync); break; /* active set */
    }
    CHECK_MSG(rc == 0, "%s returned %d", g->name, rc);
}

/* ------------------------------------------------------- 1. late arrival */

static int g_next_slot;

static double g_late_t[512]; /* when the late member arrived (CLOCK_MONOTONIC, node-wide) */

static void late_arrival(const group_t *g, int round)
{
    int slot = g_next_slot++; /* advanced on every PE, members or not */
    CHECK(slot < (int)(sizeof g_cnt / sizeof g_cnt[0]));
    PHASE("late arrival, %s, round %d", g->name, round);
    if (g->m.me >= 0) {
        int late = round % 2 ? g->m.n - 1 : 0; /* first, then last member */
        int root = g->m.world[0];
        if (g->m.me == late) {
            st_sleep_us(50000);
            double t = st_now();
            for (int k = 0; k < g->m.n; k++)
                shmem_double_p(&g_late_t[slot], t, g->m.world[k]);
            shmem_quiet();
        }
        if (completes(g))
            shmem_long_atomic_inc(&g_cnt[slot], root);
        else
            (void)shmem_long_atomic_fetch_inc(&g_cnt[slot], root);
        do_sync(g);
        double t_exit = st_now();
        long c = shmem_long_atomic_fetch(&g_cnt[slot], root);
        CHECK_MSG(c == g->m.n,
                  "%s: after the sync the counter on PE %d is %ld, expected the %d members' "
                  "increments (member %d arrived 50 ms late)",
                  g->name, root, c, g->m.n, late);
        CHECK_MSG(g_late_t[slot] > 0 && t_exit >= g_late_t[slot],
                  "%s returned %.6f s before member %d (50 ms late) arrived", g->name,
                  g_late_t[slot] - t_exit, late);
    }
    shmem_barrier_all();
}

/* ------------------------------------------------------------ 2. ordering */

static long g_base = 1;

/* Iterations alternate between group a (even) and b (odd; NULL: a). */
static void ordering(const group_t *a, const group_t *b, int iters)
{
    for (int it = 0; it < iters; it++) {
        const group_t *g = (b && (it & 1)) ? b : a;
        if (g->m.me < 0)
            continue;
        long v = g_base + it;
        int row = it % ROWS;
        PHASE("ordering, %s, iteration %d", g->name, it);
        g_local[row] = v;
        for (int k = 0; k < g->m.n; k++) {
            int pe = g->m.world[(g->m.me + k) % g->m.n];
            switch ((it + k) % 3) {
            case 0: shmem_long_p(&g_slot[row][me], v, pe); break;
            case 1: shmem_long_put_nbi(&g_slot[row][me], &v, 1, pe); break;
            default: shmem_long_atomic_set(&g_slot[row][me], v, pe); break;
            }
        }
        if (it % 37 == 0 && g->m.me == (it / 37) % g->m.n)
            st_sleep_us(3000); /* now and then one member is late */
        if (!completes(g))
            shmem_quiet();
        do_sync(g);
        for (int k = 0; k < g->m.n; k++) {
            int pe = g->m.world[k];
            CHECK_MSG(g_slot[row][pe] == v,
                      "%s, iteration %d: the write of member %d (PE %d) is not visible after "
                      "the sync: slot holds %ld, expected %ld",
                      g->name, it, k, pe, g_slot[row][pe], v);
        }
        int nb = g->m.world[(g->m.me + 1) % g->m.n];
        long theirs = shmem_long_g(&g_local[row], nb);
        CHECK_MSG(theirs == v, "%s, iteration %d: PE %d's local store reads %ld, expected %ld",
                  g->name, it, nb, theirs, v);
    }
    g_base += iters + 10;
    ST_PHASE("ordering: barrier_all between groups");
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    st_begin();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= CT_MAXPE);
    const int iters = npes > 4 ? 100 : 300;
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psA[i] = psB[i] = psC[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();

    ct_team_t world;
    ct_world_model(&world);
    group_t gba, gsa, gtw, gts, ggw, gab, gas;
    g_world(&gba, K_BARRIER_ALL, "shmem_barrier_all");
    g_world(&gsa, K_SYNC_ALL, "shmem_sync_all");
    g_world(&gtw, K_TEAM, "shmem_team_sync(SHMEM_TEAM_WORLD)");
    ct_team_t shared;
    ct_model_of(SHMEM_TEAM_SHARED, &shared, "SHMEM_TEAM_SHARED");
    g_team(&gts, K_TEAM, SHMEM_TEAM_SHARED, &shared, "shmem_team_sync(SHMEM_TEAM_SHARED)");
    g_world(&ggw, K_GENERIC, "shmem_sync(SHMEM_TEAM_WORLD) (C11)");
    g_aset(&gab, K_ASET_BARRIER, 0, 0, npes, psA);
    g_aset(&gas, K_ASET_SYNC, 0, 0, npes, psA);

    /* Teams: world PEs 1, 4, 7, ... reversed (a strided team with an odd
     * stride and start offset), the even and odd halves, a 2-D split. */
    ct_team_t m3, mev, mod, mx, my;
    shmem_team_t t3 = SHMEM_TEAM_INVALID, tev = SHMEM_TEAM_INVALID, tod = SHMEM_TEAM_INVALID;
    shmem_team_t tx = SHMEM_TEAM_INVALID, ty = SHMEM_TEAM_INVALID;
    int n3 = npes >= 2 ? (npes - 2) / 3 + 1 : 1, s3 = npes >= 2 ? 1 + 3 * (n3 - 1) : 0;
    CHECK_EQ_I(shmem_team_split_strided(SHMEM_TEAM_WORLD, s3, -3, n3, NULL, 0, &t3), 0);
    ct_strided(&m3, &world, s3, -3, n3);
    CHECK_EQ_I(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &tev), 0);
    ct_strided(&mev, &world, 0, 2, (npes + 1) / 2);
    if (npes >= 2) {
        CHECK_EQ_I(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &tod), 0);
        ct_strided(&mod, &world, 1, 2, npes / 2);
    } else {
        mod.n = 0;
        mod.me = -1;
    }
    int xr = 2;
    CHECK_EQ_I(shmem_team_split_2d(SHMEM_TEAM_WORLD, xr, NULL, 0, &tx, NULL, 0, &ty), 0);
    mx.n = 0;
    for (int q = (me / xr) * xr; q < npes && q < (me / xr + 1) * xr; q++)
        mx.world[mx.n++] = q;
    mx.me = me % xr;
    my.n = 0;
    for (int q = me % xr; q < npes; q += xr)
        my.world[my.n++] = q;
    my.me = me / xr;
    ct_check_team(tx, &mx, "2-D x team");
    ct_check_team(ty, &my, "2-D y team");

    group_t g3, ghalf, grow, gcol;
    g_team(&g3, K_TEAM, t3, &m3, "shmem_team_sync(PEs 1+3i, reversed)");
    if (me % 2 == 0)
        g_team(&ghalf, K_TEAM, tev, &mev, "shmem_team_sync(even PEs)");
    else
        g_team(&ghalf, K_TEAM, tod, &mod, "shmem_team_sync(odd PEs)");
    g_team(&grow, K_TEAM, tx, &mx, "shmem_team_sync(2-D row)");
    g_team(&gcol, K_GENERIC, ty, &my, "shmem_sync(2-D column) (C11)");

    /* Active sets. */
    group_t ahalf_b, ahalf_s, a4, a1, arest;
    if (me % 2 == 0) {
        g_aset(&ahalf_b, K_ASET_BARRIER, 0, 1, (npes + 1) / 2, psB);
        g_aset(&ahalf_s, K_ASET_SYNC, 0, 1, (npes + 1) / 2, psB);
    } else {
        g_aset(&ahalf_b, K_ASET_BARRIER, 1, 1, npes / 2, psC);
        g_aset(&ahalf_s, K_ASET_SYNC, 1, 1, npes / 2, psC);
    }
    g_aset(&a4, K_ASET_BARRIER, 0, 2, (npes + 3) / 4, psA);
    g_aset(&a1, K_ASET_SYNC, npes - 1, 0, 1, psB);
    g_aset(&arest, K_ASET_BARRIER, npes > 1 ? 1 : 0, 0, npes > 1 ? npes - 1 : 1, psC);

    /* 1. late arrival */
    const group_t *late_groups[] = {&gba,   &gsa,  &gtw,  &gts,     &ggw,     &gab, &gas,  &g3,
                                    &ghalf, &grow, &gcol, &ahalf_b, &ahalf_s, &a4,  &arest};
    for (size_t i = 0; i < sizeof late_groups / sizeof late_groups[0]; i++)
        for (int round = 0; round < 2; round++)
            late_arrival(late_groups[i], round);
    st_note("late arrival");

    /* 2. ordering */
    ordering(&gba, NULL, iters);
    ordering(&gsa, NULL, iters);
    ordering(&gtw, &ggw, iters);
    ordering(&gts, NULL, iters / 2);
    ordering(&g3, NULL, iters);
    ordering(&ghalf, NULL, iters);       /* halves concurrently */
    ordering(&grow, &gcol, 2 * iters);   /* rows and columns alternating */
    ordering(&gab, &gas, iters);         /* one pSync, barrier and sync alternating */
    ordering(&ahalf_b, &ahalf_s, iters); /* halves concurrently, own pSyncs */
    ordering(&a4, NULL, iters);          /* psA again, another active set */
    ordering(&a1, NULL, iters / 4);
    ordering(&arest, NULL, iters);
    st_note("ordering");

    /* 3. pSync restored */
    PHASE("pSync restored");
    shmem_barrier_all();
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++) {
        CHECK_MSG(psA[i] == SHMEM_SYNC_VALUE, "pSync A[%d] = %ld after the calls", i, psA[i]);
        CHECK_MSG(psB[i] == SHMEM_SYNC_VALUE, "pSync B[%d] = %ld after the calls", i, psB[i]);
        CHECK_MSG(psC[i] == SHMEM_SYNC_VALUE, "pSync C[%d] = %ld after the calls", i, psC[i]);
    }

    shmem_barrier_all();
    shmem_team_destroy(t3);
    shmem_team_destroy(tev);
    shmem_team_destroy(tod);
    shmem_team_destroy(tx);
    shmem_team_destroy(ty);
    ST_PHASE("finalize");
    shmem_finalize();
    if (me == 0)
        printf("ok: sync (%d PEs)\n", npes);
    return 0;
}
