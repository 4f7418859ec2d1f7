/* Teams (OpenSHMEM 1.6 §9.4, team management, and the team contexts of §9.5).
 *
 *   teams basic    predefined teams (WORLD, SHARED on one node, INVALID),
 *                  get_config, translate_pe with INVALID, team_ptr, splits
 *                  of an INVALID parent and invalid triplets
 *   teams split    every valid (start, stride, size) of split_strided on
 *                  the world team (odd and negative strides, start offsets,
 *                  stride 0 / size 1), and splits of splits three deep with
 *                  numbering relative to the parent; each new team is
 *                  checked with my_pe, n_pes, translate_pe both ways, and a
 *                  put + quiet + team_sync exchange among its members only
 *   teams split2d  split_2d with xrange 1, 2, 3, N-1, N, N+2 (not dividing
 *                  N, larger than N) of the world team and of a reversed
 *                  team; x/y teams, their numbering, configs
 *   teams ctx      team contexts: team_create_ctx, ctx_get_team, and RMA /
 *                  AMO through them use team PE numbers; team_ptr
 *   teams exhaust  split until the library runs out of teams: a nonzero
 *                  return and SHMEM_TEAM_INVALID on every PE, not a crash;
 *                  destroying them makes splits work again (twice) */
#include "coll_test.h"

static long g_mark[CT_MAXPE];
static long g_mark2[CT_MAXPE];
static long g_counter;
static long g_id;
static int g_count[CT_MAXPE];

static int me, npes;

/* Members of `team` (model m) put `tag` into g_mark[their team PE] on every
 * member, quiet, team_sync; then each member must see every member's tag.
 * A barrier_all afterwards separates rounds. */
static void exchange_on(shmem_team_t team, const ct_team_t *m, long tag, const char *what)
{
    if (m->me >= 0) {
        for (int k = 0; k < m->n; k++)
            shmem_long_p(&g_mark[m->me], tag, m->world[k]);
        shmem_quiet();
        int rc = shmem_team_sync(team);
        CHECK_MSG(rc == 0, "%s: shmem_team_sync returned %d", what, rc);
        for (int k = 0; k < m->n; k++)
            CHECK_MSG(g_mark[k] == tag,
                      "%s: after team_sync, the put of team PE %d (world %d) is missing: "
                      "slot holds %ld, expected %ld",
                      what, k, m->world[k], g_mark[k], tag);
    }
    shmem_barrier_all();
}

/* ------------------------------------------------------------------ basic */

static void test_basic(void)
{
    PHASE("world team");
    CHECK_EQ_I(shmem_team_my_pe(SHMEM_TEAM_WORLD), me);
    CHECK_EQ_I(shmem_team_n_pes(SHMEM_TEAM_WORLD), npes);
    ct_team_t world;
    ct_world_model(&world);
    ct_check_team(SHMEM_TEAM_WORLD, &world, "SHMEM_TEAM_WORLD");

    PHASE("shared team (one node: every PE)");
    CHECK(SHMEM_TEAM_SHARED != SHMEM_TEAM_INVALID);
    ct_team_t shared;
    ct_model_of(SHMEM_TEAM_SHARED, &shared, "SHMEM_TEAM_SHARED");
    /* SHOAL_TRANSPORTS=ucx maps no other PE (as if each were on its own
     * node): the shared team is the caller alone; SHOAL_SPLIT_NODES makes
     * it the caller's pretend node. */
    int n_shared = 0;
    for (int pe = 0; pe < npes; pe++)
        n_shared += st_mapped(me, pe, npes);
    CHECK_MSG(shared.n == n_shared, "SHMEM_TEAM_SHARED has %d PEs; on one node it holds %d",
              shared.n, n_shared);
    ct_check_team(SHMEM_TEAM_SHARED, &shared, "SHMEM_TEAM_SHARED");
    for (int k = 0; k < shared.n; k++) {
        int w = shmem_team_translate_pe(SHMEM_TEAM_SHARED, k, SHMEM_TEAM_WORLD);
        CHECK_EQ_I(shmem_team_translate_pe(SHMEM_TEAM_WORLD, w, SHMEM_TEAM_SHARED), k);
    }

    PHASE("split of SHMEM_TEAM_SHARED");
    {
        shmem_team_t ts = SHMEM_TEAM_INVALID;
        ct_team_t sm;
        CHECK_EQ_I(
            shmem_team_split_strided(SHMEM_TEAM_SHARED, shared.n - 1, -1, shared.n, NULL, 0, &ts),
            0);
        ct_strided(&sm, &shared, shared.n - 1, -1, shared.n);
        ct_check_team(ts, &sm, "reversed split of SHMEM_TEAM_SHARED");
        exchange_on(ts, &sm, 55, "reversed split of SHMEM_TEAM_SHARED");
        shmem_team_destroy(ts);
    }

    PHASE("invalid team");
    CHECK_EQ_I(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1);
    CHECK_EQ_I(shmem_team_n_pes(SHMEM_TEAM_INVALID), -1);
    CHECK_EQ_I(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD), -1);
    CHECK_EQ_I(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID), -1);
    CHECK_EQ_I(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_INVALID), -1);
    shmem_team_destroy(SHMEM_TEAM_INVALID); /* a no-op */
    CHECK_NULL(shmem_team_ptr(SHMEM_TEAM_INVALID, &g_mark[0], me));

    PHASE("get_config");
    shmem_team_config_t cfg = {.num_contexts = 12345};
    CHECK_MSG(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg) != 0,
              "shmem_team_get_config(SHMEM_TEAM_INVALID) returned 0");
    CHECK_MSG(cfg.num_contexts == 12345,
              "shmem_team_get_config(SHMEM_TEAM_INVALID) wrote num_contexts = %d",
              cfg.num_contexts);
    CHECK_EQ_I(shmem_team_get_config(SHMEM_TEAM_WORLD, 0, &cfg), 0);
    CHECK_MSG(cfg.num_contexts == 12345, "get_config with mask 0 wrote num_contexts = %d",
              cfg.num_contexts);
    CHECK_EQ_I(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
    CHECK_MSG(cfg.num_contexts >= 0, "world num_contexts = %d", cfg.num_contexts);
    CHECK_EQ_I(shmem_team_get_config(SHMEM_TEAM_SHARED, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);

    /* A team made with a config: the masked value is reported, an
     * unmasked one is ignored (default 0). */
    shmem_team_t t1 = SHMEM_TEAM_INVALID, t2 = SHMEM_TEAM_INVALID, t3 = SHMEM_TEAM_INVALID;
    shmem_team_config_t c3 = {.num_contexts = 3}, c7 = {.num_contexts = 7};
    CHECK_EQ_I(
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &c3, SHMEM_TEAM_NUM_CONTEXTS, &t1),
        0);
    CHECK_EQ_I(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &c7, 0, &t2), 0);
    CHECK_EQ_I(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t3), 0);
    cfg.num_contexts = -5;
    CHECK_EQ_I(shmem_team_get_config(t1, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
    CHECK_MSG(cfg.num_contexts == 3,
              "team split with num_contexts 3 (masked): get_config reports %d", cfg.num_contexts);
    cfg.num_contexts = -5;
    CHECK_EQ_I(shmem_team_get_config(t2, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
    CHECK_MSG(cfg.num_contexts == 0,
              "team split with num_contexts 7 but mask 0: get_config reports %d, expected "
              "the default 0",
              cfg.num_contexts);
    cfg.num_contexts = -5;
    CHECK_EQ_I(shmem_team_get_config(t3, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
    CHECK_EQ_I(cfg.num_contexts, 0);
    /* Distinct handles for distinct teams. */
    CHECK(t1 != t2 && t2 != t3 && t1 != t3);
    CHECK(t1 != SHMEM_TEAM_WORLD && t1 != SHMEM_TEAM_SHARED);
    ct_check_team(t1, &world, "copy of WORLD (config)");
    shmem_team_destroy(t1);
    shmem_team_destroy(t2);
    shmem_team_destroy(t3);

    PHASE("team_ptr");
    for (int pe = 0; pe < npes; pe++)
        CHECK_EQ_P(shmem_team_ptr(SHMEM_TEAM_WORLD, &g_mark[1], pe), shmem_ptr(&g_mark[1], pe));
    for (int pe = 0; pe < shared.n; pe++) {
        int w = shmem_team_translate_pe(SHMEM_TEAM_SHARED, pe, SHMEM_TEAM_WORLD);
        long *p = (long *)shmem_team_ptr(SHMEM_TEAM_SHARED, &g_mark[1], pe);
        CHECK_MSG(p != NULL, "shmem_team_ptr(SHMEM_TEAM_SHARED, .., %d) is NULL", pe);
        CHECK_EQ_P(p, shmem_ptr(&g_mark[1], w));
    }
    g_id = 1000 + me;
    shmem_barrier_all();
    for (int pe = 0; pe < shared.n; pe++) {
        long *p = (long *)shmem_team_ptr(SHMEM_TEAM_SHARED, &g_id, pe);
        int w = shmem_team_translate_pe(SHMEM_TEAM_SHARED, pe, SHMEM_TEAM_WORLD);
        CHECK_MSG(*p == 1000 + w, "load through team_ptr(SHARED, &g_id, %d) read %ld", pe, *p);
    }
    shmem_barrier_all();

    PHASE("split of SHMEM_TEAM_INVALID");
    shmem_team_t nt = SHMEM_TEAM_WORLD;
    CHECK_MSG(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &nt) != 0,
              "split_strided(SHMEM_TEAM_INVALID) returned 0");
    CHECK_MSG(nt == SHMEM_TEAM_INVALID, "split_strided(SHMEM_TEAM_INVALID) gave a team");
    shmem_team_t xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
    CHECK_MSG(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, NULL, 0, &xt, NULL, 0, &yt) != 0,
              "split_2d(SHMEM_TEAM_INVALID) returned 0");
    CHECK_MSG(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID,
              "split_2d(SHMEM_TEAM_INVALID) gave a team");

    /* Invalid triplets that are not wrap-arounds (those are undefined):
     * a start outside the parent, size 0, and increasing sequences that run
     * past the last PE.  Every PE gets nonzero and SHMEM_TEAM_INVALID. */
    const int bad[][3] = {
        {npes, 1, 1},     /* start = N: outside the parent */
        {-1, 1, 1},       /* start = -1 */
        {0, 1, 0},        /* size 0 */
        {0, 1, npes + 1}, /* one PE more than the parent has */
        {0, 2, npes},     /* stride 2, size N: runs past N-1 when N > 1 */
    };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        int start = bad[b][0], stride = bad[b][1], size = bad[b][2];
        if (ct_triplet_ok(npes, start, stride, size))
            continue; /* valid for this N (stride 2, size 1 when N == 1) */
        PHASE("invalid triplet (%d, %d, %d) of %d PEs", start, stride, size, npes);
        nt = SHMEM_TEAM_WORLD;
        int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &nt);
        CHECK_MSG(rc != 0, "split_strided(WORLD, %d, %d, %d) of %d PEs returned 0", start, stride,
                  size, npes);
        CHECK_MSG(nt == SHMEM_TEAM_INVALID,
                  "split_strided(WORLD, %d, %d, %d) of %d PEs did not give SHMEM_TEAM_INVALID",
                  start, stride, size, npes);
    }
    shmem_barrier_all();
    /* A valid split still works after the failed ones. */
    PHASE("split after invalid triplets");
    CHECK_EQ_I(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &nt), 0);
    ct_check_team(nt, &world, "split after failures");
    exchange_on(nt, &world, 77, "split after failures");

    /* Last (so that a failure here hides nothing above): with a mask of 0,
     * get_config does nothing and config may be a null pointer (1.6). */
    PHASE("get_config with mask 0 and a NULL config");
    CHECK_EQ_I(shmem_team_get_config(nt, 0, NULL), 0);
    CHECK_EQ_I(shmem_team_get_config(SHMEM_TEAM_WORLD, 0, NULL), 0);
    shmem_team_destroy(nt);
}

/* ------------------------------------------------------------------ split */

static long g_tag = 1;

/* Split `parent` (model pm; only members call) by (start, stride, size),
 * check the new team, exchange on it, and return it (or destroy it). */
static shmem_team_t split_checked(shmem_team_t parent, const ct_team_t *pm, int start, int stride,
                                  int size, ct_team_t *out, int keep, const char *label)
{
    char what[200];
    snprintf(what, sizeof what, "%s split_strided(%d, %d, %d) of a %d-PE parent", label, start,
             stride, size, pm->n);
    PHASE("%s", what);
    shmem_team_t t = (shmem_team_t)&g_tag; /* garbage: must be overwritten */
    int rc = shmem_team_split_strided(parent, start, stride, size, NULL, 0, &t);
    CHECK_MSG(rc == 0, "%s returned %d", what, rc);
    ct_strided(out, pm, start, stride, size);
    ct_check_team(t, out, what);
    if (!keep) {
        if (out->me >= 0) {
            for (int k = 0; k < out->n; k++)
                shmem_long_p(&g_mark[out->me], g_tag, out->world[k]);
            shmem_quiet();
            CHECK_EQ_I(shmem_team_sync(t), 0);
            for (int k = 0; k < out->n; k++)
                CHECK_MSG(g_mark[k] == g_tag, "%s: after team_sync, slot %d holds %ld, not %ld",
                          what, k, g_mark[k], g_tag);
            /* Separate this round's checks from the next round's puts among
             * the parent's members (non-members of t wait here). */
        }
        g_tag++;
        shmem_team_destroy(t);
        t = SHMEM_TEAM_INVALID;
    }
    return t;
}

/* Every valid triplet over `parent`, then a parent sync.  Members only. */
static void all_triplets(shmem_team_t parent, const ct_team_t *pm, const char *label)
{
    int n = pm->n;
    ct_team_t m;
    for (int stride = -n; stride <= n; stride++)
        for (int start = 0; start < n; start++)
            for (int size = 1; size <= n; size++) {
                if (!ct_triplet_ok(n, start, stride, size))
                    continue;
                /* Keep the 7-PE run short: every size for strides -2..2,
                 * sizes 1, 2 and the largest for the others. */
                if (n > 4 && (stride > 2 || stride < -2) && size > 2 &&
                    ct_triplet_ok(n, start, stride, size + 1))
                    continue;
                split_checked(parent, pm, start, stride, size, &m, 0, label);
                /* Members of the new team just read g_mark; the parent sync
                 * keeps the next triplet's puts away from those reads. */
                CHECK_EQ_I(shmem_team_sync(parent), 0);
            }
}

static void test_split(void)
{
    ct_team_t world;
    ct_world_model(&world);
    all_triplets(SHMEM_TEAM_WORLD, &world, "WORLD:");
    shmem_barrier_all();

    /* Splits of splits: WORLD -> reversed (N-1, -1, N) -> its odd members
     * (1, 2, N/2) -> that reversed -> ... numbering relative to each parent. */
    ct_team_t rev, odd, odd_rev, tail;
    shmem_team_t t_rev =
        split_checked(SHMEM_TEAM_WORLD, &world, npes - 1, -1, npes, &rev, 1, "nested 1:");
    all_triplets(t_rev, &rev, "child of reversed:");
    shmem_barrier_all();
    if (npes >= 2) {
        shmem_team_t t_odd = SHMEM_TEAM_INVALID;
        t_odd = split_checked(t_rev, &rev, 1, 2, npes / 2, &odd, 1, "nested 2:");
        if (odd.me >= 0) {
            /* only members of the parent call a split */
            shmem_team_t t_odd_rev =
                split_checked(t_odd, &odd, odd.n - 1, -1, odd.n, &odd_rev, 1, "nested 3:");
            all_triplets(t_odd_rev, &odd_rev, "child of nested 3:");
            /* translate between sibling levels, not only to WORLD */
            for (int k = 0; k < odd_rev.n; k++) {
                int in_parent = shmem_team_translate_pe(t_odd_rev, k, t_odd);
                CHECK_MSG(in_parent == odd.n - 1 - k,
                          "translate_pe(nested 3, %d, nested 2) = %d, expected %d", k, in_parent,
                          odd.n - 1 - k);
                int in_rev = shmem_team_translate_pe(t_odd_rev, k, t_rev);
                int expect = ct_index_of(&rev, odd_rev.world[k]);
                CHECK_MSG(in_rev == expect,
                          "translate_pe(nested 3, %d, nested 1) = %d, expected %d", k, in_rev,
                          expect);
            }
            /* a 1-PE team split from the nested team, and its own split */
            shmem_team_t t_one =
                split_checked(t_odd_rev, &odd_rev, odd_rev.n - 1, 0, 1, &tail, 1, "nested 4:");
            if (tail.me >= 0) {
                ct_team_t one2;
                shmem_team_t t_one2 = split_checked(t_one, &tail, 0, 1, 1, &one2, 1, "nested 5:");
                CHECK_EQ_I(shmem_team_sync(t_one2), 0);
                CHECK_EQ_I(shmem_team_translate_pe(t_one2, 0, SHMEM_TEAM_WORLD), world.world[me]);
                shmem_team_destroy(t_one2);
                shmem_team_destroy(t_one);
            } else {
                CHECK(t_one == SHMEM_TEAM_INVALID);
            }
            shmem_team_destroy(t_odd_rev);
            shmem_team_destroy(t_odd);
        } else {
            CHECK(t_odd == SHMEM_TEAM_INVALID);
        }
    }
    shmem_barrier_all();
    shmem_team_destroy(t_rev);

    /* Divergent histories: the even and odd halves split and destroy
     * different numbers of teams at the same time (concurrent splits of
     * disjoint parents); then world splits must still agree on every PE,
     * and every team must work (team_sync exchange and a sum reduction). */
    PHASE("divergent histories");
    g_tag = 5000000; /* the nested part above advanced it on some PEs only */
    {
        ct_team_t hm, wm, wm2;
        int half_start = me % 2, half_n = me % 2 ? npes / 2 : (npes + 1) / 2;
        shmem_team_t th[2] = {SHMEM_TEAM_INVALID, SHMEM_TEAM_INVALID};
        CHECK_EQ_I(
            shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &th[0]), 0);
        if (npes > 1)
            CHECK_EQ_I(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &th[1]),
                       0);
        shmem_team_t half = th[me % 2];
        ct_strided(&hm, &world, half_start, 2, half_n);
        ct_check_team(half, &hm, "half");
        shmem_team_t kids[8];
        int nk = me % 2 ? 2 : 5;
        for (int i = 0; i < nk; i++) {
            ct_team_t km;
            kids[i] = split_checked(half, &hm, i % 2 ? hm.n - 1 : 0, i % 2 ? -1 : 1, hm.n, &km, 1,
                                    "divergent child:");
        }
        /* the evens destroy 3 of their 5, newest first; the odds 1 of 2, oldest first */
        if (me % 2 == 0) {
            for (int i = 4; i >= 2; i--)
                shmem_team_destroy(kids[i]);
            nk = 2;
        } else {
            shmem_team_destroy(kids[0]);
            kids[0] = kids[1];
            nk = 1;
        }
        shmem_team_t w1 = split_checked(SHMEM_TEAM_WORLD, &world, npes - 1, -1, npes, &wm, 1,
                                        "after divergent histories:");
        exchange_on(w1, &wm, g_tag++, "world split after divergent histories");
        shmem_team_t w2 = split_checked(SHMEM_TEAM_WORLD, &world, 0, 1, npes, &wm2, 1,
                                        "after divergent histories (2):");
        /* every live team works: a sum of team PE numbers + 1 */
        shmem_team_t all[] = {w1, w2, half, kids[0], kids[nk - 1]};
        static int r_src, r_dst;
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
            int n = shmem_team_n_pes(all[i]);
            r_src = shmem_team_my_pe(all[i]) + 1;
            CHECK_EQ_I(shmem_int_sum_reduce(all[i], &r_dst, &r_src, 1), 0);
            CHECK_MSG(r_dst == n * (n + 1) / 2,
                      "team %zu after divergent histories: sum %d, "
                      "expected %d",
                      i, r_dst, n * (n + 1) / 2);
            shmem_barrier_all();
        }
        for (int i = 0; i < nk; i++)
            shmem_team_destroy(kids[i]);
        shmem_team_destroy(w2);
        shmem_team_destroy(w1);
        shmem_barrier_all();
        shmem_team_destroy(th[0]);
        shmem_team_destroy(th[1]);
    }
    shmem_barrier_all();

    /* Destroy and re-create in a loop: handles and resources are recycled. */
    PHASE("split/destroy loop");
    for (int i = 0; i < 200; i++) {
        int start = i % npes, size = npes - start;
        shmem_team_t t = SHMEM_TEAM_INVALID;
        CHECK_EQ_I(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, 1, size, NULL, 0, &t), 0);
        if (me >= start) {
            CHECK_EQ_I(shmem_team_my_pe(t), me - start);
            CHECK_EQ_I(shmem_team_sync(t), 0);
        } else {
            CHECK(t == SHMEM_TEAM_INVALID);
        }
        shmem_team_destroy(t);
    }
    shmem_barrier_all();
}

/* ---------------------------------------------------------------- split2d */

static void check_2d(shmem_team_t parent, const ct_team_t *pm, int xrange, int with_cfg)
{
    char what[200];
    snprintf(what, sizeof what, "split_2d(xrange %d) of a %d-PE parent%s", xrange, pm->n,
             with_cfg ? " with configs" : "");
    PHASE("%s", what);
    int n = pm->n, xr = xrange > n ? n : xrange;
    int p = pm->me, x = p % xr, y = p / xr;
    shmem_team_t xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID;
    /* Configs may differ between the future teams (spec example: the x=0
     * column passes a different y config); each team's members agree. */
    shmem_team_config_t xc = {.num_contexts = 2 + y}, yc = {.num_contexts = 1 + x};
    int rc = shmem_team_split_2d(parent, xrange, with_cfg ? &xc : NULL,
                                 with_cfg ? SHMEM_TEAM_NUM_CONTEXTS : 0, &xt, with_cfg ? &yc : NULL,
                                 with_cfg ? SHMEM_TEAM_NUM_CONTEXTS : 0, &yt);
    CHECK_MSG(rc == 0, "%s returned %d", what, rc);
    ct_team_t xm, ym;
    xm.n = (n - y * xr < xr) ? n - y * xr : xr;
    for (int j = 0; j < xm.n; j++)
        xm.world[j] = pm->world[y * xr + j];
    xm.me = x;
    ym.n = 0;
    for (int q = x; q < n; q += xr)
        ym.world[ym.n++] = pm->world[q];
    ym.me = y;
    char wx[240], wy[240];
    snprintf(wx, sizeof wx, "%s: x team (row y=%d)", what, y);
    snprintf(wy, sizeof wy, "%s: y team (column x=%d)", what, x);
    ct_check_team(xt, &xm, wx);
    ct_check_team(yt, &ym, wy);
    CHECK_MSG(shmem_team_my_pe(xt) == x, "%s: my_pe(xteam) is not the x coordinate %d", what, x);
    CHECK_MSG(shmem_team_my_pe(yt) == y, "%s: my_pe(yteam) is not the y coordinate %d", what, y);
    if (with_cfg) {
        shmem_team_config_t c = {.num_contexts = -1};
        CHECK_EQ_I(shmem_team_get_config(xt, SHMEM_TEAM_NUM_CONTEXTS, &c), 0);
        CHECK_MSG(c.num_contexts == 2 + y, "%s: x team num_contexts %d, expected %d", what,
                  c.num_contexts, 2 + y);
        CHECK_EQ_I(shmem_team_get_config(yt, SHMEM_TEAM_NUM_CONTEXTS, &c), 0);
        CHECK_MSG(c.num_contexts == 1 + x, "%s: y team num_contexts %d, expected %d", what,
                  c.num_contexts, 1 + x);
    }
    /* Rows then columns, each synchronizing only its own members: row
     * exchange through g_mark, column exchange through g_mark2. */
    for (int k = 0; k < xm.n; k++)
        shmem_long_p(&g_mark[xm.me], g_tag, xm.world[k]);
    for (int k = 0; k < ym.n; k++)
        shmem_long_p(&g_mark2[ym.me], g_tag, ym.world[k]);
    shmem_quiet();
    CHECK_EQ_I(shmem_team_sync(xt), 0);
    CHECK_EQ_I(shmem_team_sync(yt), 0);
    for (int k = 0; k < xm.n; k++)
        CHECK_MSG(g_mark[k] == g_tag, "%s: row slot %d holds %ld, expected %ld", what, k, g_mark[k],
                  g_tag);
    for (int k = 0; k < ym.n; k++)
        CHECK_MSG(g_mark2[k] == g_tag, "%s: column slot %d holds %ld, expected %ld", what, k,
                  g_mark2[k], g_tag);
    g_tag++;
    CHECK_EQ_I(shmem_team_sync(parent), 0);
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
}

static void test_split2d(void)
{
    ct_team_t world, rev;
    ct_world_model(&world);
    int xs[] = {1, 2, 3, npes - 1, npes, npes + 2};
    for (int cfg = 0; cfg < 2; cfg++)
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
            if (xs[i] >= 1)
                check_2d(SHMEM_TEAM_WORLD, &world, xs[i], cfg);
    shmem_team_t t_rev = SHMEM_TEAM_INVALID;
    CHECK_EQ_I(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &t_rev), 0);
    ct_strided(&rev, &world, npes - 1, -1, npes);
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        if (xs[i] >= 1)
            check_2d(t_rev, &rev, xs[i], 0);
    /* A 2-D split of a strided team that leaves some PEs out. */
    if (npes >= 3) {
        ct_team_t sub;
        shmem_team_t t_sub = SHMEM_TEAM_INVALID;
        CHECK_EQ_I(shmem_team_split_strided(t_rev, 0, 1, npes - 1, NULL, 0, &t_sub), 0);
        ct_strided(&sub, &rev, 0, 1, npes - 1);
        if (sub.me >= 0) {
            check_2d(t_sub, &sub, 2, 1);
            shmem_team_destroy(t_sub);
        }
    }
    shmem_barrier_all();
    shmem_team_destroy(t_rev);
}

/* -------------------------------------------------------------------- ctx */

static void ctx_on_team(shmem_team_t t, const ct_team_t *m, long options, const char *what)
{
    static long round;
    round++; /* on every PE, members or not */
    PHASE("%s", what);
    if (m->me < 0)
        return;
    shmem_ctx_t c = SHMEM_CTX_INVALID;
    int rc = shmem_team_create_ctx(t, options, &c);
    CHECK_MSG(rc == 0, "%s: shmem_team_create_ctx returned %d", what, rc);
    CHECK(c != SHMEM_CTX_INVALID);
    shmem_team_t back = SHMEM_TEAM_INVALID;
    CHECK_EQ_I(shmem_ctx_get_team(c, &back), 0);
    CHECK_MSG(back == t, "%s: shmem_ctx_get_team does not give the team back", what);

    int n = m->n, k = m->me, right = (k + 1) % n, left = (k + n - 1) % n;
    long v = round * 100000 + 5000 + 10 * m->world[k];
    /* put to team PE `right`: lands on world PE m->world[right] */
    shmem_ctx_long_p(c, &g_mark[k], v, right);
    shmem_ctx_long_put(c, &g_mark2[k], &v, 1, right);
    /* AMO to team PE 0 */
    shmem_ctx_long_atomic_add(c, &g_counter, k + 1, 0);
    shmem_ctx_quiet(c);
    CHECK_EQ_I(shmem_team_sync(t), 0);
    long from_left = round * 100000 + 5000 + 10 * m->world[left];
    CHECK_MSG(g_mark[left] == from_left,
              "%s: put through the team ctx from team PE %d (world %d) to team PE %d: slot "
              "holds %ld, expected %ld (team PE numbers not used?)",
              what, left, m->world[left], k, g_mark[left], from_left);
    CHECK_MSG(g_mark2[left] == from_left, "%s: shmem_ctx_long_put: slot holds %ld, expected %ld",
              what, g_mark2[left], from_left);
    if (k == 0)
        CHECK_MSG(g_counter == (long)n * (n + 1) / 2,
                  "%s: AMO through the team ctx to team PE 0: counter %ld, expected %d", what,
                  g_counter, n * (n + 1) / 2);
    /* get through the ctx: g_id holds the world PE number */
    for (int j = 0; j < n; j++) {
        long got = shmem_ctx_long_g(c, &g_id, j);
        CHECK_MSG(got == m->world[j],
                  "%s: shmem_ctx_long_g(.., team PE %d) read the id of "
                  "world PE %ld, expected %d",
                  what, j, got, m->world[j]);
        long f = shmem_ctx_long_atomic_fetch(c, &g_id, j);
        CHECK_EQ_I(f, m->world[j]);
    }
    /* team_ptr uses team PE numbers too */
    for (int j = 0; j < n; j++)
        CHECK_EQ_P(shmem_team_ptr(t, &g_mark[0], j), shmem_ptr(&g_mark[0], m->world[j]));
    CHECK_EQ_I(shmem_team_sync(t), 0);
    if (k == 0)
        g_counter = 0;
    shmem_ctx_destroy(c);
    CHECK_EQ_I(shmem_team_sync(t), 0);
}

static void test_ctx(void)
{
    ct_team_t world, rev, odd;
    ct_world_model(&world);
    g_id = me;
    shmem_barrier_all();
    shmem_team_config_t cfg = {.num_contexts = 2};
    shmem_team_t t_rev = SHMEM_TEAM_INVALID, t_odd = SHMEM_TEAM_INVALID;
    CHECK_EQ_I(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, &cfg,
                                        SHMEM_TEAM_NUM_CONTEXTS, &t_rev),
               0);
    ct_strided(&rev, &world, npes - 1, -1, npes);
    ctx_on_team(t_rev, &rev, 0, "ctx on the reversed world team");
    ctx_on_team(t_rev, &rev, SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED,
                "private ctx on the reversed world team");
    shmem_barrier_all();
    /* odd world PEs, highest first: (N-1 or N-2, -2, N/2) */
    if (npes >= 2) {
        int hi = (npes - 1) % 2 ? npes - 1 : npes - 2;
        CHECK_EQ_I(shmem_team_split_strided(SHMEM_TEAM_WORLD, hi, -2, npes / 2, &cfg,
                                            SHMEM_TEAM_NUM_CONTEXTS, &t_odd),
                   0);
        ct_strided(&odd, &world, hi, -2, npes / 2);
        ct_check_team(t_odd, &odd, "odd PEs reversed");
        ctx_on_team(t_odd, &odd, 0, "ctx on the odd PEs, reversed");
        shmem_barrier_all();
        shmem_team_destroy(t_odd);
    }
    /* Two contexts on one team alive at once, and on SHMEM_TEAM_SHARED. */
    PHASE("two contexts on one team");
    shmem_ctx_t c1 = SHMEM_CTX_INVALID, c2 = SHMEM_CTX_INVALID;
    CHECK_EQ_I(shmem_team_create_ctx(t_rev, 0, &c1), 0);
    CHECK_EQ_I(shmem_team_create_ctx(t_rev, 0, &c2), 0);
    CHECK(c1 != c2);
    int k = rev.me, n = rev.n;
    shmem_ctx_long_p(c1, &g_mark[k], 11 + k, (k + 1) % n);
    shmem_ctx_long_p(c2, &g_mark2[k], 22 + k, (k + 2) % n);
    shmem_ctx_quiet(c1);
    shmem_ctx_quiet(c2);
    CHECK_EQ_I(shmem_team_sync(t_rev), 0);
    int l1 = (k + n - 1) % n, l2 = (k + 2 * n - 2) % n;
    CHECK_EQ_I(g_mark[l1], 11 + l1);
    CHECK_EQ_I(g_mark2[l2], 22 + l2);
    shmem_ctx_destroy(c1);
    shmem_ctx_destroy(c2);
    shmem_ctx_t cs = SHMEM_CTX_INVALID;
    CHECK_EQ_I(shmem_team_create_ctx(SHMEM_TEAM_SHARED, 0, &cs), 0);
    shmem_team_t back = SHMEM_TEAM_INVALID;
    CHECK_EQ_I(shmem_ctx_get_team(cs, &back), 0);
    CHECK(back == SHMEM_TEAM_SHARED);
    shmem_ctx_destroy(cs);
    shmem_barrier_all();
    shmem_team_destroy(t_rev);

    PHASE("team_create_ctx(SHMEM_TEAM_INVALID)");
    shmem_ctx_t ci = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ci) != 0);
    CHECK(ci == SHMEM_CTX_INVALID);
    shmem_barrier_all();
}

/* ---------------------------------------------------------------- exhaust */

#define CAP 1000

static int exhaust_once(shmem_team_t *teams, int round)
{
    int got = 0, rc = 0;
    PHASE("exhaust round %d: splitting", round);
    while (got < CAP) {
        shmem_team_t t = (shmem_team_t)&g_tag; /* must be overwritten */
        /* alternate whole-world copies and odd-size strided teams */
        if (got % 2 == 0)
            rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
        else
            rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &t);
        if (rc != 0) {
            CHECK_MSG(t == SHMEM_TEAM_INVALID,
                      "split %d failed with %d but did not set SHMEM_TEAM_INVALID", got, rc);
            break;
        }
        CHECK_MSG(t != SHMEM_TEAM_INVALID, "split %d returned 0 but gave SHMEM_TEAM_INVALID", got);
        teams[got++] = t;
    }
    /* Every PE saw the same number of successes (team creation returns the
     * same code on every PE). */
    PHASE("exhaust round %d: compare counts", round);
    for (int pe = 0; pe < npes; pe++)
        shmem_int_p(&g_count[me], got, pe);
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        CHECK_MSG(g_count[pe] == got, "PE %d created %d teams before a failure, this PE %d", pe,
                  g_count[pe], got);
    if (got == CAP && me == 0)
        printf("note: %d splits all succeeded: the failure path was not reached\n", CAP);
    CHECK_MSG(got >= 60, "only %d simultaneous teams could be created (Shoal supports 60)", got);
    /* The teams that exist all work. */
    PHASE("exhaust round %d: use the teams", round);
    for (int i = 0; i < got; i += (got > 50 ? 7 : 1)) {
        int expect = i % 2 == 0 ? me : npes - 1 - me;
        CHECK_MSG(shmem_team_my_pe(teams[i]) == expect, "team %d: my_pe %d, expected %d", i,
                  shmem_team_my_pe(teams[i]), expect);
        CHECK_EQ_I(shmem_team_sync(teams[i]), 0);
    }
    CHECK_EQ_I(shmem_team_sync(teams[got - 1]), 0);
    /* Collectives still work at the limit (they may need no new resources):
     * on the world and on the newest team. */
    PHASE("exhaust round %d: collectives at the limit", round);
    static long r_src[4], r_dst[4];
    for (int i = 0; i < 4; i++)
        r_src[i] = (long)me * 10 + i;
    shmem_team_t last = teams[got - 1];
    CHECK_EQ_I(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, r_dst, r_src, 4), 0);
    for (int i = 0; i < 4; i++)
        CHECK_EQ_I(r_dst[i], (long)npes * (npes - 1) / 2 * 10 + (long)npes * i);
    static long big[CT_MAXPE];
    CHECK_EQ_I(shmem_long_fcollect(last, big, r_src, 1), 0);
    for (int k = 0; k < npes; k++) {
        int w = shmem_team_translate_pe(last, k, SHMEM_TEAM_WORLD);
        CHECK_MSG(big[k] == (long)w * 10, "fcollect on team %d at the limit: element %d = %ld",
                  got - 1, k, big[k]);
    }
    shmem_barrier_all();
    PHASE("exhaust round %d: destroy", round);
    for (int i = got - 1; i >= 0; i--)
        shmem_team_destroy(teams[i]);
    /* After destroying them, a split works again. */
    PHASE("exhaust round %d: split after destroy", round);
    shmem_team_t t = SHMEM_TEAM_INVALID;
    CHECK_EQ_I(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t), 0);
    CHECK(t != SHMEM_TEAM_INVALID);
    CHECK_EQ_I(shmem_team_my_pe(t), me);
    CHECK_EQ_I(shmem_team_sync(t), 0);
    shmem_team_destroy(t);
    shmem_barrier_all();
    return got;
}

static void test_exhaust(void)
{
    static shmem_team_t teams[CAP];
    int a = exhaust_once(teams, 1);
    int b = exhaust_once(teams, 2);
    CHECK_MSG(a == b, "round 1 created %d teams, round 2 only %d (destroy leaks resources)", a, b);
    /* 2-D splits also fail cleanly when the library is out of teams:
     * fill it with 1-team splits, then split_2d must fail or succeed
     * with consistent handles. */
    PHASE("exhaust: split_2d at the limit");
    int got = 0;
    while (got < CAP &&
           shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &teams[got]) == 0)
        got++;
    if (got > 0) {
        shmem_team_destroy(teams[--got]); /* room for exactly one team */
        shmem_team_t xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
        int rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &xt, NULL, 0, &yt);
        if (rc != 0) {
            /* "If either team cannot be created, that team will be assigned
             * SHMEM_TEAM_INVALID" */
            CHECK(xt == SHMEM_TEAM_INVALID || yt == SHMEM_TEAM_INVALID);
        } else {
            CHECK(xt != SHMEM_TEAM_INVALID && yt != SHMEM_TEAM_INVALID);
        }
        if (xt != SHMEM_TEAM_INVALID) {
            CHECK_EQ_I(shmem_team_my_pe(xt), 0);
            CHECK_EQ_I(shmem_team_n_pes(xt), 1);
        }
        if (yt != SHMEM_TEAM_INVALID) {
            CHECK_EQ_I(shmem_team_my_pe(yt), me);
            CHECK_EQ_I(shmem_team_n_pes(yt), npes);
            CHECK_EQ_I(shmem_team_sync(yt), 0);
        }
        shmem_team_destroy(xt);
        shmem_team_destroy(yt);
    }
    for (int i = got - 1; i >= 0; i--)
        shmem_team_destroy(teams[i]);
    shmem_barrier_all();
    if (me == 0)
        printf("ok: %d simultaneous teams before the library ran out\n", a);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "basic";
    shmem_init();
    st_begin();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= CT_MAXPE);
    if (!strcmp(mode, "basic"))
        test_basic();
    else if (!strcmp(mode, "split"))
        test_split();
    else if (!strcmp(mode, "split2d"))
        test_split2d();
    else if (!strcmp(mode, "ctx"))
        test_ctx();
    else if (!strcmp(mode, "exhaust"))
        test_exhaust();
    else
        CHECK_MSG(0, "unknown mode %s", mode);
    ST_PHASE("finalize");
    shmem_barrier_all();
    shmem_finalize();
    if (me == 0)
        printf("ok: teams %s (%d PEs)\n", mode, npes);
    return 0;
}
