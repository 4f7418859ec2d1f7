/* Collectives under stress: sizes, back-to-back sequences, concurrent
 * teams, floating-point agreement, and the deprecated active-set forms with
 * pSync reuse.  Every result is compared with a serial reference.
 *
 *   stress sizes   broadcast/collect/fcollect/alltoall/alltoalls (mem and
 *                  C11 generic forms) with 0, 1, odd and 1 MiB + 3 bytes,
 *                  collect with different sizes per PE (0 included);
 *                  reductions and scans of 1 MiB + 24 bytes; on the world,
 *                  the reversed world and the odd PEs
 *   stress repeat  hundreds of collectives back to back with no other
 *                  synchronization, kinds and sizes varying, the source
 *                  rewritten right before each call (the spec says no sync
 *                  is needed for it), on the world, on a reversed team, and
 *                  alternating between the world and the odd PEs
 *   stress teams   rows and columns of 2-D splits running collectives
 *                  alternately (different rows at the same time), the even
 *                  and odd halves concurrently, a split of a row team
 *   stress float   float/double/long double/complex sum and prod with
 *                  inexact operands: every PE gets the identical result,
 *                  close to the serial one
 *   stress aset    shmem_{broadcast,collect,fcollect,alltoall,alltoalls}
 *                  {32,64} and *_to_all back to back: two alternating pSyncs
 *                  (and pWrks) for the routines that need every PE's data,
 *                  one pSync reused after a shmem_barrier for broadcast,
 *                  the even and odd halves at the same time; pSync restored
 *   stress bcast_reuse  small broadcasts (at most SHOAL_BCAST_INLINE = 48
 *                  bytes) back to back into ONE dest buffer, the root
 *                  changing every few calls, each result checked right after
 *                  the call.  The spec asks that dest be ready on every PE
 *                  before any PE calls; on one node Shoal's ring broadcast
 *                  does more (a PE's dest is written only by itself, and a
 *                  parent runs at most SHOAL_BCAST_RING_SLOTS rounds ahead),
 *                  and this checks it; so does the tree across nodes, whose
 *                  hops are messages a PE takes into dest once it is in the
 *                  round (variants: local, and all through UCX tcp, where
 *                  larger sizes go too; not a mix, where a parent on the
 *                  same node puts into its child's dest)
 *   stress late     a member enters a broadcast (8 KiB: the binomial tree)
 *                  and an fcollect 3 s after the others, who go on to a
 *                  barrier: no mismatch reported, the values right
 *
 * Dest buffers: a routine may only be called once dest is ready on every
 * member.  Back-to-back calls therefore rotate NSLOT dest buffers, and the
 * sequences are built so that between two uses of a slot a PE completes a
 * collective that needs data from every member (reduce, collect, fcollect,
 * alltoall of at least one element) — so every member has finished
 * checking the slot's previous contents. */
#include "coll_test.h"

#include <complex.h>
#include <unistd.h>
#include <float.h>
#include <math.h>

#define MIB (1024 * 1024)
#define BUF (6 * MIB)
#define NSLOT 4
#define SLOT (256 * 1024)

static int me, npes;
static char *src, *dst;

static ct_tdesc_t tw, trev, todd;

static void setup_teams(void)
{
    tw.name = "world";
    tw.t = SHMEM_TEAM_WORLD;
    ct_world_model(&tw.m);
    ct_make_team(&trev, "world reversed", SHMEM_TEAM_WORLD, &tw.m, npes - 1, -1, npes);
    ct_make_team(&todd, "odd PEs", SHMEM_TEAM_WORLD, &tw.m, npes > 1 ? 1 : 0, 2, npes / 2);
}

static void free_teams(void)
{
    shmem_barrier_all();
    shmem_team_destroy(trev.t);
    shmem_team_destroy(todd.t);
}

/* ============================================================ sizes */

static const size_t big = MIB + 3;

static void sizes_broadcast(const ct_tdesc_t *d)
{
    const size_t sz[] = {0, 1, 3, 4101, big};
    for (size_t si = 0; si < sizeof sz / sizeof sz[0]; si++)
        for (int rr = 0; rr < 2; rr++) {
            size_t n = sz[si];
            int root = rr ? d->m.n - 1 : 0;
            unsigned seed = (unsigned)(si * 2 + rr + 1);
            PHASE("sizes: broadcastmem %zu bytes, %s team, root %d", n, d->name, root);
            st_fill(src, n, d->m.me, seed);
            memset(dst, 0xA5, n + 64);
            shmem_barrier_all();
            if (d->m.me >= 0) {
                int rc = rr ? shmem_broadcastmem(d->t, dst, src, n, root)
                            : shmem_broadcast(d->t, (unsigned char *)dst,
                                              (const unsigned char *)src, n, root);
                CHECK_EQ_I(rc, 0);
                CHECK_PATTERN(dst, n, root, seed);
                CHECK_BYTES(dst + n, 64, 0xA5);
                CHECK_PATTERN(src, n, d->m.me, seed); /* source untouched */
            }
            shmem_barrier_all();
        }
}

static void sizes_collect(const ct_tdesc_t *d)
{
    for (int variant = 0; variant < 2; variant++) {
        size_t sz[CT_MAXPE], total = 0, off[CT_MAXPE];
        for (int k = 0; k < d->m.n; k++) {
            static const size_t small[7] = {0, 1, 3, 17, 0, 5, 2};
            sz[k] = variant == 0 ? small[k % 7] : (k % 3 == 1 ? 0 : big / (size_t)d->m.n + k);
            off[k] = total;
            total += sz[k];
        }
        unsigned seed = 10 + variant;
        size_t mine = d->m.me >= 0 ? sz[d->m.me] : 0;
        PHASE("sizes: collectmem, %s sizes (%zu here, %zu in all), %s team",
              variant ? "large" : "small", mine, total, d->name);
        st_fill(src, mine, d->m.me, seed);
        memset(dst, 0xA5, total + 64);
        shmem_barrier_all();
        if (d->m.me >= 0) {
            int rc = variant ? shmem_collectmem(d->t, dst, src, mine)
                             : shmem_collect(d->t, (char *)dst, (const char *)src, mine);
            CHECK_EQ_I(rc, 0);
            for (int k = 0; k < d->m.n; k++)
                CHECK_MSG(st_verify(dst + off[k], sz[k], k, seed) == SIZE_MAX,
                          "collect: block of team PE %d (%zu bytes at %zu) is wrong", k, sz[k],
                          off[k]);
            CHECK_BYTES(dst + total, 64, 0xA5);
        }
        shmem_barrier_all();
    }
}

static void sizes_fcollect(const ct_tdesc_t *d)
{
    const size_t sz[] = {0, 1, 3, 5001, big / (size_t)(d->m.n ? d->m.n : 1)};
    for (size_t si = 0; si < sizeof sz / sizeof sz[0]; si++) {
        size_t n = sz[si], total = n * (size_t)d->m.n;
        unsigned seed = 20 + (unsigned)si;
        PHASE("sizes: fcollectmem %zu bytes each, %s team", n, d->name);
        st_fill(src, n, d->m.me, seed);
        memset(dst, 0xA5, total + 64);
        shmem_barrier_all();
        if (d->m.me >= 0) {
            int rc = si % 2 ? shmem_fcollectmem(d->t, dst, src, n)
                            : shmem_fcollect(d->t, (signed char *)dst, (signed char *)src, n);
            CHECK_EQ_I(rc, 0);
            for (int k = 0; k < d->m.n; k++)
                CHECK_MSG(st_verify(dst + (size_t)k * n, n, k, seed) == SIZE_MAX,
                          "fcollect: block of team PE %d is wrong", k);
            CHECK_BYTES(dst + total, 64, 0xA5);
        }
        shmem_barrier_all();
    }
}

static void sizes_alltoall(const ct_tdesc_t *d)
{
    int n = d->m.n ? d->m.n : 1;
    const size_t sz[] = {0, 1, 3, 1007, big / (size_t)n};
    for (size_t si = 0; si < sizeof sz / sizeof sz[0]; si++) {
        size_t b = sz[si], total = b * (size_t)d->m.n;
        unsigned seed = 30 + (unsigned)si;
        PHASE("sizes: alltoallmem %zu bytes per block, %s team", b, d->name);
        /* block j from team PE k: pattern of "PE" k*64 + j */
        for (int j = 0; j < d->m.n; j++)
            st_fill(src + (size_t)j * b, b, d->m.me * CT_MAXPE + j, seed);
        memset(dst, 0xA5, total + 64);
        shmem_barrier_all();
        if (d->m.me >= 0) {
            int rc =
                si % 2 ? shmem_alltoallmem(d->t, dst, src, b)
                       : shmem_alltoall(d->t, (unsigned char *)dst, (const unsigned char *)src, b);
            CHECK_EQ_I(rc, 0);
            for (int k = 0; k < d->m.n; k++)
                CHECK_MSG(st_verify(dst + (size_t)k * b, b, k * CT_MAXPE + d->m.me, seed) ==
                              SIZE_MAX,
                          "alltoall: block from team PE %d is wrong", k);
            CHECK_BYTES(dst + total, 64, 0xA5);
        }
        shmem_barrier_all();
    }
}

static void sizes_alltoalls(const ct_tdesc_t *d)
{
    const size_t sz[] = {0, 1, 5, 333};
    const ptrdiff_t ds = 3, ss = 2;
    for (size_t si = 0; si < sizeof sz / sizeof sz[0]; si++) {
        size_t nel = sz[si], cnt = nel * (size_t)d->m.n;
        size_t dlen = cnt ? (cnt - 1) * (size_t)ds + 1 : 0;
        unsigned seed = 40 + (unsigned)si;
        PHASE("sizes: alltoallsmem %zu elements, dst %td, sst %td, %s team", nel, ds, ss, d->name);
        memset(src, 0x5A, cnt * (size_t)ss + 1);
        for (size_t e = 0; e < cnt; e++)
            src[e * (size_t)ss] = (char)st_byte(d->m.me, e, seed);
        memset(dst, 0xA5, dlen + 64);
        shmem_barrier_all();
        if (d->m.me >= 0) {
            int rc = si % 2 ? shmem_alltoallsmem(d->t, dst, src, ds, ss, nel)
                            : shmem_alltoalls(d->t, (unsigned char *)dst,
                                              (const unsigned char *)src, ds, ss, nel);
            CHECK_EQ_I(rc, 0);
            for (size_t e = 0; e < dlen + 64; e++) {
                unsigned char got = (unsigned char)dst[e], want = 0xA5;
                if (e % (size_t)ds == 0 && e / (size_t)ds < cnt) {
                    size_t q = e / (size_t)ds, k = q / nel, i = q % nel;
                    want = st_byte((int)k, (size_t)d->m.me * nel + i, seed);
                }
                CHECK_MSG(got == want, "alltoalls: dest byte %zu is %#x, expected %#x", e, got,
                          want);
            }
        }
        shmem_barrier_all();
    }
}

static void sizes_reduce(const ct_tdesc_t *d)
{
    const size_t nl = (MIB + 24) / sizeof(long);
    long *ls = (long *)src, *ld = (long *)dst;
    int n = d->m.n, t = d->m.me;
    PHASE("sizes: long sum_reduce of %zu elements, %s team", nl, d->name);
    for (size_t i = 0; i < nl; i++)
        ls[i] = (long)(t + 1) * 1000003L + (long)i;
    ld[nl] = -7;
    shmem_barrier_all();
    if (t >= 0) {
        CHECK_EQ_I(shmem_sum_reduce(d->t, ld, ls, nl), 0); /* C11 generic */
        for (size_t i = 0; i < nl; i++) {
            long e = (long)n * (n + 1) / 2 * 1000003L + (long)n * (long)i;
            CHECK_MSG(ld[i] == e, "sum_reduce[%zu] = %ld, expected %ld", i, ld[i], e);
        }
        CHECK_EQ_I(ld[nl], -7);
    }
    shmem_barrier_all();

    /* in place, max over doubles, and xor over uint64 */
    PHASE("sizes: double max_reduce in place, %zu elements, %s team", nl, d->name);
    double *dd = (double *)src;
    for (size_t i = 0; i < nl; i++)
        dd[i] = (double)((t * 7919 + (long)i * 31) % 1009) - 500.25;
    shmem_barrier_all();
    if (t >= 0) {
        CHECK_EQ_I(shmem_double_max_reduce(d->t, dd, dd, nl), 0);
        for (size_t i = 0; i < nl; i++) {
            double e = -1e300;
            for (int k = 0; k < n; k++) {
                double v = (double)((k * 7919 + (long)i * 31) % 1009) - 500.25;
                e = v > e ? v : e;
            }
            CHECK_MSG(dd[i] == e, "in-place max_reduce[%zu] = %g, expected %g", i, dd[i], e);
        }
    }
    shmem_barrier_all();
    PHASE("sizes: uint64 xor_reduce, %zu elements, %s team", nl, d->name);
    uint64_t *us = (uint64_t *)src, *ud = (uint64_t *)dst;
    for (size_t i = 0; i < nl; i++)
        us[i] = st_u64(t, i, 77);
    shmem_barrier_all();
    if (t >= 0) {
        CHECK_EQ_I(shmem_uint64_xor_reduce(d->t, ud, us, nl), 0);
        for (size_t i = 0; i < nl; i++) {
            uint64_t e = 0;
            for (int k = 0; k < n; k++)
                e ^= st_u64(k, i, 77);
            CHECK_MSG(ud[i] == e, "xor_reduce[%zu] wrong", i);
        }
    }
    shmem_barrier_all();

    const size_t ns = 50001;
    PHASE("sizes: long sum_exscan / sum_inscan of %zu elements, %s team", ns, d->name);
    for (size_t i = 0; i < ns; i++)
        ls[i] = (long)(t + 1) * 1000003L + (long)i;
    shmem_barrier_all();
    if (t >= 0) {
        CHECK_EQ_I(shmem_sum_exscan(d->t, ld, ls, ns), 0);
        for (size_t i = 0; i < ns; i++) {
            long e = (long)t * (t + 1) / 2 * 1000003L + (long)t * (long)i;
            CHECK_MSG(ld[i] == e, "team PE %d: sum_exscan[%zu] = %ld, expected %ld", t, i, ld[i],
                      e);
        }
        /* ls is the next call's dest: every member must be done with it */
        CHECK_EQ_I(shmem_team_sync(d->t), 0);
        CHECK_EQ_I(shmem_long_sum_inscan(d->t, ls, ls, ns), 0); /* in place */
        for (size_t i = 0; i < ns; i++) {
            long e = (long)(t + 1) * (t + 2) / 2 * 1000003L + (long)(t + 1) * (long)i;
            CHECK_MSG(ls[i] == e, "team PE %d: in-place sum_inscan[%zu] = %ld, expected %ld", t, i,
                      ls[i], e);
        }
    }
    shmem_barrier_all();
}

static void mode_sizes(void)
{
    const ct_tdesc_t *ts[] = {&tw, &trev, &todd};
    for (int i = 0; i < 3; i++) {
        if (ts[i]->m.n == 0)
            continue;
        sizes_broadcast(ts[i]);
        sizes_collect(ts[i]);
        sizes_fcollect(ts[i]);
        sizes_alltoall(ts[i]);
        sizes_alltoalls(ts[i]);
        sizes_reduce(ts[i]);
    }
}

/* =========================================================== repeat */

/* Kinds; "full" ones need data from every member. */
enum { K_BCAST, K_REDUCE, K_COLLECT, K_ALLTOALL, K_SCAN, K_FCOLLECT, K_NKINDS };
static const char *const kname[K_NKINDS] = {"broadcast",    "int sum_reduce",  "long collect",
                                            "int alltoall", "long sum_inscan", "double fcollect"};

typedef struct {
    const ct_tdesc_t *d;
    char *slots;   /* NSLOT dest buffers of SLOT bytes */
    char *srcbuf;  /* the source, rewritten before each call */
    unsigned next; /* next slot */
} seq_t;

/* One collective of `kind` on the sequence's team, iteration `it` (the same
 * on every member), checked against the reference. */
static void step(seq_t *q, int kind, int it)
{
    const ct_tdesc_t *d = q->d;
    int n = d->m.n, t = d->m.me;
    if (t < 0)
        return;
    char *db = q->slots + (size_t)(q->next++ % NSLOT) * SLOT;
    char *sb = q->srcbuf;
    unsigned seed = (unsigned)it * 7u + (unsigned)kind;
    PHASE("repeat: %s on the %s team, iteration %d", kname[kind], d->name, it);
    switch (kind) {
    case K_BCAST: {
        int root = it % n;
        size_t sz = it % 50 == 0 ? 100000 : 1 + (size_t)(it * 13) % 300;
        st_fill(sb, sz, t, seed);
        CHECK_EQ_I(shmem_broadcastmem(d->t, db, sb, sz, root), 0);
        CHECK_MSG(st_verify(db, sz, root, seed) == SIZE_MAX,
                  "broadcast of %zu bytes from team PE %d: wrong data", sz, root);
        break;
    }
    case K_REDUCE: {
        size_t nr = 1 + (size_t)it % 37;
        int *s = (int *)sb, *r = (int *)db;
        for (size_t i = 0; i < nr; i++)
            s[i] = (t + 1) * (it + (int)i);
        CHECK_EQ_I(shmem_int_sum_reduce(d->t, r, s, nr), 0);
        for (size_t i = 0; i < nr; i++)
            CHECK_MSG(r[i] == n * (n + 1) / 2 * (it + (int)i), "sum_reduce[%zu] = %d, expected %d",
                      i, r[i], n * (n + 1) / 2 * (it + (int)i));
        break;
    }
    case K_COLLECT: {
        long *s = (long *)sb, *r = (long *)db;
        size_t mine = 1 + (size_t)(t + it) % 5;
        for (size_t i = 0; i < mine; i++)
            s[i] = (long)t * 1000000 + it * 100 + (long)i;
        CHECK_EQ_I(shmem_long_collect(d->t, r, s, mine), 0);
        size_t at = 0;
        for (int k = 0; k < n; k++)
            for (size_t i = 0; i < 1 + (size_t)(k + it) % 5; i++, at++)
                CHECK_MSG(r[at] == (long)k * 1000000 + it * 100 + (long)i,
                          "collect[%zu] = %ld (block of team PE %d, element %zu)", at, r[at], k, i);
        break;
    }
    case K_ALLTOALL: {
        size_t b = 1 + (size_t)it % 4;
        int *s = (int *)sb, *r = (int *)db;
        for (int j = 0; j < n; j++)
            for (size_t i = 0; i < b; i++)
                s[(size_t)j * b + i] = t * 10000 + j * 100 + (int)i + it;
        CHECK_EQ_I(shmem_int_alltoall(d->t, r, s, b), 0);
        for (int k = 0; k < n; k++)
            for (size_t i = 0; i < b; i++)
                CHECK_MSG(r[(size_t)k * b + i] == k * 10000 + t * 100 + (int)i + it,
                          "alltoall: element %zu of the block from team PE %d is %d", i, k,
                          r[(size_t)k * b + i]);
        break;
    }
    case K_SCAN: {
        size_t ne = 1 + (size_t)it % 9;
        long *s = (long *)sb, *r = (long *)db;
        for (size_t i = 0; i < ne; i++)
            s[i] = (long)(t + 1) * (it + 1) + (long)i;
        CHECK_EQ_I(shmem_long_sum_inscan(d->t, r, s, ne), 0);
        for (size_t i = 0; i < ne; i++) {
            long e = (long)(t + 1) * (t + 2) / 2 * (it + 1) + (long)(t + 1) * (long)i;
            CHECK_MSG(r[i] == e, "team PE %d: inscan[%zu] = %ld, expected %ld", t, i, r[i], e);
        }
        break;
    }
    default: {
        size_t ne = 1 + (size_t)it % 6;
        double *s = (double *)sb, *r = (double *)db;
        for (size_t i = 0; i < ne; i++)
            s[i] = t + 0.5 * (double)i + it * 0.25;
        CHECK_EQ_I(shmem_fcollect(d->t, r, s, ne), 0); /* C11 generic */
        for (int k = 0; k < n; k++)
            for (size_t i = 0; i < ne; i++)
                CHECK_MSG(r[(size_t)k * ne + i] == k + 0.5 * (double)i + it * 0.25,
                          "fcollect: element %zu of team PE %d is %g", i, k, r[(size_t)k * ne + i]);
        break;
    }
    }
}

/* The 6-kind cycle: any two consecutive kinds include a "full" one, so
 * NSLOT >= 3 slots are safe. */
static void mode_repeat(void)
{
    const int iters = npes > 4 ? 200 : 500;
    seq_t qw = {&tw, dst, src, 0};
    seq_t qr = {&trev, dst + (size_t)NSLOT * SLOT, src + MIB, 0};
    seq_t qo = {&todd, dst + (size_t)2 * NSLOT * SLOT, src + 2 * MIB, 0};
    shmem_barrier_all();
    for (int it = 0; it < iters; it++)
        step(&qw, it % K_NKINDS, it);
    for (int it = 0; it < iters; it++)
        step(&qr, (it + 3) % K_NKINDS, it);
    /* alternate teams: world, odd PEs, world, ... (non-members skip) */
    for (int it = 0; it < iters; it++) {
        step(&qw, it % K_NKINDS, it + 1000);
        step(&qo, (it + 2) % K_NKINDS, it + 2000);
        step(&qr, (it + 4) % K_NKINDS, it + 3000);
    }
    shmem_barrier_all();

    /* SHMEM_TEAM_SHARED (one node: every PE, numbered as in the world) */
    ct_tdesc_t tsh = {"shared", SHMEM_TEAM_SHARED, tw.m};
    ct_model_of(SHMEM_TEAM_SHARED, &tsh.m, "SHMEM_TEAM_SHARED");
    seq_t qs = {&tsh, dst + (size_t)3 * NSLOT * SLOT, src + 3 * MIB, 0};
    for (int it = 0; it < iters / 2; it++)
        step(&qs, (it + 1) % K_NKINDS, it + 4000);
    shmem_barrier_all();

    /* Create, use once, destroy at once, many times: a new team may take
     * the slot of the one just destroyed while its last signals are still
     * settling.  Shapes: reversed world, even PEs, odd PEs reversed, and
     * the rows of a 2-D split. */
    for (int it = 0; it < iters / 2; it++) {
        ct_tdesc_t d;
        shmem_team_t other = SHMEM_TEAM_INVALID;
        int shape = it % 4;
        PHASE("repeat: create/use/destroy %d, shape %d", it, shape);
        if (shape == 0) {
            ct_make_team(&d, "new reversed world", SHMEM_TEAM_WORLD, &tw.m, npes - 1, -1, npes);
        } else if (shape == 1) {
            ct_make_team(&d, "new even PEs", SHMEM_TEAM_WORLD, &tw.m, 0, 2, (npes + 1) / 2);
        } else if (shape == 2) {
            int hi = npes < 2 ? 0 : (npes - 1) % 2 ? npes - 1 : npes - 2;
            ct_make_team(&d, "new odd PEs reversed", SHMEM_TEAM_WORLD, &tw.m, hi, -2, npes / 2);
        } else {
            d.name = "new 2-D row";
            CHECK_EQ_I(shmem_team_split_2d(SHMEM_TEAM_WORLD, 3, NULL, 0, &d.t, NULL, 0, &other), 0);
            d.m.n = 0;
            for (int q = (me / 3) * 3; q < npes && q < (me / 3 + 1) * 3; q++)
                d.m.world[d.m.n++] = q;
            d.m.me = me % 3;
        }
        seq_t qn = {&d, dst + (size_t)3 * NSLOT * SLOT, src + 3 * MIB, 0};
        step(&qn, it % K_NKINDS, it + 5000);
        if (d.m.me >= 0)
            shmem_team_destroy(d.t);
        shmem_team_destroy(other);
    }
    shmem_barrier_all();
}

/* ============================================================ teams */

static void mode_teams(void)
{
    const int iters = npes > 4 ? 120 : 300;
    ct_team_t world = tw.m;
    for (int xr = 2; xr <= 3; xr++) {
        PHASE("teams: split_2d xrange %d", xr);
        ct_tdesc_t row = {"2-D row", SHMEM_TEAM_INVALID, {0}},
                   col = {"2-D column", SHMEM_TEAM_INVALID, {0}};
        CHECK_EQ_I(shmem_team_split_2d(SHMEM_TEAM_WORLD, xr, NULL, 0, &row.t, NULL, 0, &col.t), 0);
        int x = me % xr, y = me / xr;
        row.m.n = 0;
        for (int q = y * xr; q < npes && q < (y + 1) * xr; q++)
            row.m.world[row.m.n++] = q;
        row.m.me = x;
        col.m.n = 0;
        for (int q = x; q < npes; q += xr)
            col.m.world[col.m.n++] = q;
        col.m.me = y;
        ct_check_team(row.t, &row.m, "2-D row");
        ct_check_team(col.t, &col.m, "2-D column");
        /* a reversed copy of my row, split from the row team */
        ct_tdesc_t nest;
        ct_make_team(&nest, "reversed row (split of the row team)", row.t, &row.m, row.m.n - 1, -1,
                     row.m.n);
        seq_t qr = {&row, dst, src, 0};
        seq_t qc = {&col, dst + (size_t)NSLOT * SLOT, src + MIB, 0};
        seq_t qn = {&nest, dst + (size_t)2 * NSLOT * SLOT, src + 2 * MIB, 0};
        static const int rowk[3] = {K_REDUCE, K_FCOLLECT, K_COLLECT}; /* all "full" */
        static const int colk[3] = {K_BCAST, K_ALLTOALL, K_SCAN};     /* one "full" in 3 */
        for (int it = 0; it < iters; it++) {
            step(&qr, rowk[it % 3], it);
            step(&qc, colk[it % 3], it);
            step(&qn, it % K_NKINDS, it);
        }
        shmem_barrier_all();
        shmem_team_destroy(nest.t);
        shmem_team_destroy(row.t);
        shmem_team_destroy(col.t);
    }
    /* even and odd halves at the same time, different kinds */
    PHASE("teams: halves");
    ct_tdesc_t ev, od;
    ct_make_team(&ev, "even PEs", SHMEM_TEAM_WORLD, &world, 0, 2, (npes + 1) / 2);
    ct_make_team(&od, "odd PEs", SHMEM_TEAM_WORLD, &world, npes > 1 ? 1 : 0, 2, npes / 2);
    seq_t qe = {&ev, dst, src, 0}, qo = {&od, dst, src, 0}; /* disjoint PEs: same buffers */
    for (int it = 0; it < iters; it++) {
        step(&qe, it % K_NKINDS, it);
        step(&qo, (it + 3) % K_NKINDS, it + 500);
    }
    shmem_barrier_all();
    shmem_team_destroy(ev.t);
    shmem_team_destroy(od.t);
}

/* ============================================================ float */

/* Inexact operands: the result may depend on the order of operations, but
 * every PE must get the same bits, close to the serial result. */
#define FLOAT_CASE(T, FN, OPS, VAL, TOL, BYTES)                                                  \
    do {                                                                                         \
        T *s = (T *)src, *r = (T *)dst;                                                          \
        const size_t nr = nrf;                                                                   \
        PHASE("float: %s, %s team, %zu elements", #FN, d->name, nr);                             \
        for (size_t i = 0; i < nr; i++)                                                          \
            s[i] = VAL(t, i);                                                                    \
        shmem_barrier_all();                                                                     \
        if (t >= 0) {                                                                            \
            CHECK_EQ_I(FN(d->t, r, s, nr), 0);                                                   \
            for (size_t i = 0; i < nr; i++) {                                                    \
                T e = VAL(0, i);                                                                 \
                for (int k = 1; k < n; k++)                                                      \
                    e = e OPS VAL(k, i);                                                         \
                long double err = cabsl((long double _Complex)(r[i] - e));                       \
                long double mag = cabsl((long double _Complex)e);                                \
                CHECK_MSG(err <= (TOL)*mag, "%s[%zu]: relative error %Lg", #FN, i,               \
                          mag > 0 ? err / mag : err);                                            \
            }                                                                                    \
        }                                                                                        \
        shmem_barrier_all();                                                                     \
        if (t >= 0)                                                                              \
            for (int k = 0; k < n; k++) {                                                        \
                T theirs[8];                                                                     \
                for (size_t i = 0; i < nr; i += 8) {                                             \
                    size_t c = nr - i < 8 ? nr - i : 8;                                          \
                    shmem_getmem(theirs, r + i, c * sizeof(T), d->m.world[k]);                   \
                    for (size_t j = 0; j < c; j++)                                               \
                        CHECK_MSG(memcmp(&theirs[j], &r[i + j], BYTES) == 0,                     \
                                  "%s[%zu]: team PE %d got different bits than team PE %d", #FN, \
                                  i + j, k, t);                                                  \
                }                                                                                \
            }                                                                                    \
        shmem_barrier_all();                                                                     \
    } while (0)

/* x87 long double: 10 value bytes, the rest padding */
#define LD_BYTES (LDBL_MANT_DIG == 64 ? 10 : sizeof(long double))

#define VS_F(k, i) ((float)(0.1 * ((k) + 1) + 1e-3 * (double)(i) + 1.0 / 3.0))
#define VP_F(k, i) ((float)(1.0 + 0.01 * ((k) + 1) + 1e-4 * (double)(i)))
#define VS_D(k, i) (0.1 * ((k) + 1) + 1e-3 * (double)(i) + 1.0 / 3.0)
#define VP_D(k, i) (1.0 + 0.01 * ((k) + 1) + 1e-4 * (double)(i))
#define VS_L(k, i) (0.1L * ((k) + 1) + 1e-3L * (long double)(i) + 1.0L / 3.0L)
#define VP_L(k, i) (1.0L + 0.01L * ((k) + 1) + 1e-4L * (long double)(i))
#define VS_CD(k, i) (VS_D(k, i) + VP_D(k, i) * I)
#define VP_CD(k, i) (VP_D(k, i) + 0.01 * ((k) + 1) * I)
#define VS_CF(k, i) ((float _Complex)VS_CD(k, i))
#define VP_CF(k, i) ((float _Complex)VP_CD(k, i))

static void mode_float(void)
{
    const ct_tdesc_t *ts[] = {&tw, &trev, &todd};
    /* 700 elements: below the usual crossovers between "small" and "large"
     * algorithms; 5000: above them (40 KB of doubles). */
    for (int ti = 0; ti < 6; ti++) {
        const ct_tdesc_t *d = ts[ti % 3];
        const size_t nrf = ti < 3 ? 700 : 5000;
        int n = d->m.n, t = d->m.me;
        if (n == 0)
            continue;
        FLOAT_CASE(float, shmem_float_sum_reduce, +, VS_F, 1e-5L, sizeof(float));
        FLOAT_CASE(float, shmem_float_prod_reduce, *, VP_F, 1e-5L, sizeof(float));
        FLOAT_CASE(double, shmem_double_sum_reduce, +, VS_D, 1e-13L, sizeof(double));
        FLOAT_CASE(double, shmem_double_prod_reduce, *, VP_D, 1e-13L, sizeof(double));
        FLOAT_CASE(long double, shmem_longdouble_sum_reduce, +, VS_L, 1e-17L, LD_BYTES);
        FLOAT_CASE(long double, shmem_longdouble_prod_reduce, *, VP_L, 1e-17L, LD_BYTES);
        FLOAT_CASE(double _Complex, shmem_complexd_sum_reduce, +, VS_CD, 1e-13L,
                   sizeof(double _Complex));
        FLOAT_CASE(double _Complex, shmem_complexd_prod_reduce, *, VP_CD, 1e-13L,
                   sizeof(double _Complex));
        FLOAT_CASE(float _Complex, shmem_complexf_sum_reduce, +, VS_CF, 1e-5L,
                   sizeof(float _Complex));
        FLOAT_CASE(float _Complex, shmem_complexf_prod_reduce, *, VP_CF, 1e-5L,
                   sizeof(float _Complex));
    }
}

/* ============================================================= aset */

/* Whole world: psA/psB alternate, psBar for shmem_barrier.  Halves: the
 * even PEs use psE, the odd ones psO (two arrays each). */
static long psA[SHMEM_SYNC_SIZE], psB[SHMEM_SYNC_SIZE], psBar[SHMEM_BARRIER_SYNC_SIZE];
static long psE[2][SHMEM_SYNC_SIZE], psO[2][SHMEM_SYNC_SIZE];

typedef struct {
    int start, logstride, size, idx;
} aset_t;

static void mode_aset(void)
{
    const int iters = npes > 4 ? 80 : 200;
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        psA[i] = psB[i] = psE[0][i] = psE[1][i] = psO[0][i] = psO[1][i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psBar[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();

    aset_t all = {0, 0, npes, me};
    aset_t half =
        me % 2 == 0 ? (aset_t){0, 1, (npes + 1) / 2, me / 2} : (aset_t){1, 1, npes / 2, me / 2};
    long(*psh)[SHMEM_SYNC_SIZE] = me % 2 == 0 ? psE : psO;
    long *wrkA = (long *)(src + 4 * MIB), *wrkB = wrkA + 64;

    /* 1. Routines that need every member's data, back to back, two pSyncs
     *    (and two pWrks) alternating; NSLOT dest slots rotating. */
    const aset_t *sets[2] = {&all, &half};
    for (int si = 0; si < 2; si++) {
        const aset_t *a = sets[si];
        long *psx[2] = {si ? psh[0] : psA, si ? psh[1] : psB};
        shmem_barrier_all();
        int n = a->size, t = a->idx;
        for (int it = 0; it < iters; it++) {
            char *db = dst + (size_t)(it % NSLOT) * SLOT;
            long *ps = psx[it % 2];
            int kind = it % 4;
            PHASE("aset: active set (%d, %d, %d), iteration %d, kind %d", a->start, a->logstride,
                  a->size, it, kind);
            if (kind == 0) {
                /* fcollect64 */
                size_t ne = 1 + (size_t)it % 5;
                int64_t *s = (int64_t *)src, *r = (int64_t *)db;
                for (size_t i = 0; i < ne; i++)
                    s[i] = (int64_t)t << 40 | (int64_t)it << 8 | (int64_t)i;
                shmem_fcollect64(r, s, ne, a->start, a->logstride, a->size, ps);
                for (int k = 0; k < n; k++)
                    for (size_t i = 0; i < ne; i++)
                        CHECK_MSG(r[(size_t)k * ne + i] ==
                                      ((int64_t)k << 40 | (int64_t)it << 8 | (int64_t)i),
                                  "fcollect64: element %zu of set PE %d wrong", i, k);
            } else if (kind == 1) {
                /* collect32, sizes 1..3 */
                int32_t *s = (int32_t *)src, *r = (int32_t *)db;
                size_t mine = 1 + (size_t)(t + it) % 3;
                for (size_t i = 0; i < mine; i++)
                    s[i] = t * 100000 + it * 10 + (int32_t)i;
                shmem_collect32(r, s, mine, a->start, a->logstride, a->size, ps);
                size_t at = 0;
                for (int k = 0; k < n; k++)
                    for (size_t i = 0; i < 1 + (size_t)(k + it) % 3; i++, at++)
                        CHECK_MSG(r[at] == k * 100000 + it * 10 + (int32_t)i, "collect32[%zu] = %d",
                                  at, r[at]);
            } else if (kind == 2) {
                /* long sum_to_all, alternating pWrk too */
                int nr = 1 + it % 40;
                long *s = (long *)src, *r = (long *)db, *w = (it / 4) % 2 ? wrkA : wrkB;
                for (int i = 0; i < nr; i++)
                    s[i] = (long)(t + 1) * (it + i);
                shmem_long_sum_to_all(r, s, nr, a->start, a->logstride, a->size, w, ps);
                for (int i = 0; i < nr; i++)
                    CHECK_MSG(r[i] == (long)n * (n + 1) / 2 * (it + i), "long_sum_to_all[%d] = %ld",
                              i, r[i]);
            } else {
                /* alltoalls64 with strides dst 2, sst 3 */
                size_t ne = 1 + (size_t)it % 2, cnt = ne * (size_t)n;
                int64_t *s = (int64_t *)src, *r = (int64_t *)db;
                for (size_t e = 0; e < cnt; e++)
                    s[e * 3] = (int64_t)t * 1000 + (int64_t)e + it;
                shmem_alltoalls64(r, s, 2, 3, ne, a->start, a->logstride, a->size, ps);
                for (int k = 0; k < n; k++)
                    for (size_t i = 0; i < ne; i++)
                        CHECK_MSG(r[((size_t)k * ne + i) * 2] ==
                                      (int64_t)k * 1000 + (int64_t)((size_t)t * ne + i) + it,
                                  "alltoalls64: element %zu from set PE %d wrong", i, k);
            }
        }
        shmem_barrier_all();
    }

    /* 2. broadcast64 back to back on one pSync, a shmem_barrier (its own
     *    pSync, reused on every call) making the reuse legal. */
    for (int si = 0; si < 2; si++) {
        const aset_t *a = sets[si];
        long *ps = si ? psh[0] : psA, *pb = si ? psh[1] : psBar;
        shmem_barrier_all();
        for (int it = 0; it < iters; it++) {
            int root = it % a->size;
            size_t ne = 1 + (size_t)it % 7;
            int64_t *s = (int64_t *)src, *r = (int64_t *)(dst + (size_t)(it % 2) * SLOT);
            PHASE("aset: broadcast64 on (%d, %d, %d), iteration %d", a->start, a->logstride,
                  a->size, it);
            for (size_t i = 0; i < ne; i++) {
                s[i] = (int64_t)a->idx * 1000 + it * 10 + (int64_t)i;
                r[i] = -1;
            }
            shmem_barrier(a->start, a->logstride, a->size, pb);
            shmem_broadcast64(r, s, ne, root, a->start, a->logstride, a->size, ps);
            for (size_t i = 0; i < ne; i++) {
                int64_t e = a->idx == root ? -1 : (int64_t)root * 1000 + it * 10 + (int64_t)i;
                CHECK_MSG(r[i] == e,
                          "broadcast64 from set PE %d: element %zu = %lld, expected "
                          "%lld%s",
                          root, i, (long long)r[i], (long long)e,
                          a->idx == root ? " (the root's dest is not written)" : "");
            }
        }
        shmem_barrier_all();
    }

    /* 2b. The set of every PE interleaved with SHMEM_TEAM_WORLD's
     *     collectives, no other synchronization: the set's broadcasts
     *     (alternating pSyncs, each into its own dest), the team's
     *     broadcast and reduction, and shmem_sync on the set. */
    shmem_barrier_all();
    for (int it = 0; it < iters; it++) {
        int root = (it / 3) % npes;
        int64_t *s = (int64_t *)src, *ra = (int64_t *)(dst + (size_t)(it % 2) * SLOT),
                *rt = (int64_t *)(dst + 2 * SLOT), *rs = rt + 8;
        PHASE("aset: every PE's set and SHMEM_TEAM_WORLD interleaved, iteration %d", it);
        for (int i = 0; i < 4; i++)
            s[i] = (int64_t)me * 1000 + it * 10 + i;
        shmem_broadcast64(ra, s, 4, root, 0, 0, npes, it % 2 ? psA : psB);
        shmem_broadcastmem(SHMEM_TEAM_WORLD, rt, s, 4 * sizeof(int64_t), (root + 1) % npes);
        shmem_int64_sum_reduce(SHMEM_TEAM_WORLD, rs, s, 4);
        shmem_sync(0, 0, npes, psBar);
        for (int i = 0; i < 4; i++) {
            if (me != root)
                CHECK_MSG(ra[i] == (int64_t)root * 1000 + it * 10 + i,
                          "set broadcast64 from PE %d: element %d = %lld", root, i,
                          (long long)ra[i]);
            CHECK_MSG(rt[i] == (int64_t)((root + 1) % npes) * 1000 + it * 10 + i,
                      "team broadcast: element %d = %lld", i, (long long)rt[i]);
            CHECK_MSG(rs[i] ==
                          (int64_t)npes * (npes - 1) / 2 * 1000 + (int64_t)npes * (it * 10 + i),
                      "team sum: element %d = %lld", i, (long long)rs[i]);
        }
        /* The next broadcast writes ra's other slot, the team's rt and rs:
         * every PE has read them before it leaves the next shmem_sync. */
        shmem_sync(0, 0, npes, psBar);
    }
    shmem_barrier_all();

    /* 3. pSyncs restored */
    PHASE("aset: pSync restored");
    shmem_barrier_all();
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++) {
        CHECK_MSG(psA[i] == SHMEM_SYNC_VALUE, "psA[%d] = %ld", i, psA[i]);
        CHECK_MSG(psB[i] == SHMEM_SYNC_VALUE, "psB[%d] = %ld", i, psB[i]);
        for (int h = 0; h < 2; h++) {
            CHECK_MSG(psE[h][i] == SHMEM_SYNC_VALUE, "psE[%d][%d] = %ld", h, i, psE[h][i]);
            CHECK_MSG(psO[h][i] == SHMEM_SYNC_VALUE, "psO[%d][%d] = %ld", h, i, psO[h][i]);
        }
    }
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        CHECK_MSG(psBar[i] == SHMEM_SYNC_VALUE, "psBar[%d] = %ld", i, psBar[i]);
}

/* =========================================================== bcast_reuse */

static void bcast_reuse_on(const ct_tdesc_t *d, int iters)
{
    static const size_t sizes[] = {8, 1, 48, 47, 8, 32, 17, 8, 40, 3};
    static const size_t big[] = {8, 1, 56, 300, 8, 4096, 17, 70000, 48, 3};
    const size_t nsizes = sizeof sizes / sizeof *sizes;
    const char *tr = getenv("SHOAL_TRANSPORTS");
    const size_t *sz_of = tr && !strcmp(tr, "ucx") ? big : sizes;
    int n = d->m.n, t = d->m.me;
    if (t < 0)
        return;
    for (int it = 0; it < iters; it++) {
        int root = (it / 3) % n; /* a few calls per root, then the next */
        size_t sz = sz_of[(size_t)it % nsizes];
        unsigned seed = (unsigned)it * 11u + 5u;
        PHASE("bcast_reuse: %zu bytes on the %s team, root %d, iteration %d", sz, d->name, root,
              it);
        st_fill(src, sz, t, seed);
        CHECK_EQ_I(shmem_broadcastmem(d->t, dst, src, sz, root), 0);
        size_t bad = st_verify(dst, sz, root, seed);
        CHECK_MSG(bad == SIZE_MAX,
                  "broadcast %d of %zu bytes from team PE %d into the reused dest: byte %zu "
                  "wrong",
                  it, sz, root, bad);
    }
}

static void mode_bcast_reuse(void)
{
    bcast_reuse_on(&tw, 3000);
    bcast_reuse_on(&trev, 1000);
    bcast_reuse_on(&todd, 1000);
}

/* ============================================================= late */

/* A member that enters a collective 3 s after the others (it computed
 * longer) is no mismatch: the broadcast's members that have their data
 * go on to a barrier and signal members still waiting for the late one's
 * data; an fcollect's members wait for its block.  Each value is checked. */
static void mode_late(void)
{
    const int late = npes > 2 ? 2 : npes - 1;
    const size_t bsz = 8192; /* the binomial tree, not the flat one */
    for (int it = 0; it < 2; it++) {
        PHASE("late: broadcast of %zu bytes, PE %d 3 s late, iteration %d", bsz, late, it);
        st_fill(src, bsz, me, 7u + (unsigned)it);
        if (me == late)
            sleep(3);
        CHECK_EQ_I(shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, bsz, 0), 0);
        if (me != 0)
            CHECK_MSG(st_verify(dst, bsz, 0, 7u + (unsigned)it) == SIZE_MAX,
                      "broadcast with a late member: wrong data");
        shmem_barrier_all();
    }
    PHASE("late: fcollect of 8 bytes, PE %d 3 s late", late);
    st_fill(src, 8, me, 3u);
    if (me == late)
        sleep(3);
    CHECK_EQ_I(shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, 8), 0);
    for (int j = 0; j < npes; j++)
        CHECK_MSG(st_verify(dst + (size_t)j * 8, 8, j, 3u) == SIZE_MAX,
                  "fcollect with a late member: block %d wrong", j);
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "sizes";
    shmem_init();
    st_begin();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= CT_MAXPE);
    src = (char *)shmem_malloc(BUF);
    dst = (char *)shmem_malloc(BUF);
    CHECK_NOT_NULL(src);
    CHECK_NOT_NULL(dst);
    setup_teams();
    if (!strcmp(mode, "sizes"))
        mode_sizes();
    else if (!strcmp(mode, "repeat"))
        mode_repeat();
    else if (!strcmp(mode, "teams"))
        mode_teams();
    else if (!strcmp(mode, "float"))
        mode_float();
    else if (!strcmp(mode, "aset"))
        mode_aset();
    else if (!strcmp(mode, "bcast_reuse"))
        mode_bcast_reuse();
    else if (!strcmp(mode, "late"))
        mode_late();
    else
        CHECK_MSG(0, "unknown mode %s", mode);
    free_teams();
    shmem_free(dst);
    shmem_free(src);
    ST_PHASE("finalize");
    shmem_finalize();
    if (me == 0)
        printf("ok: stress %s (%d PEs)\n", mode, npes);
    return 0;
}
