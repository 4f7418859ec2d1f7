/* Deprecated active-set collectives called by every PE of the job while the
 * active set holds only some of them, as older programs (and well-known
 * test suites) do.  A PE outside the set returns at once without touching
 * its dest, its pSync or any other PE; the members get the right result;
 * and the collectives that follow (the same set on the same pSync, the
 * whole world as an active set, a team reduction) still work.
 *
 * Sets: the even PEs (PE_start 0, logPE_stride 1, PE_size ceil(n/2)) and,
 * with 2 PEs or more, the odd ones (1, 1, floor(n/2)).  With 4 PEs the
 * first is {0, 2}, leaving PEs 1 and 3 out.  Every routine runs twice per
 * set (SHMEM_DEBUG warns once per routine: tests/coll/CMakeLists.txt). */
#include "coll_test.h"

#define NE 3                           /* elements per PE */
#define AREA (CT_MAXPE * CT_MAXPE * 8) /* bytes: the largest dest (collect) */
#define SENTINEL 0x5A                  /* dest bytes nobody may write */

static long pSync[SHMEM_SYNC_SIZE];
static long pSyncBar[SHMEM_BARRIER_SYNC_SIZE];
static double pWrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + CT_MAXPE * NE];
static int64_t g_src[AREA / 8], g_dest[AREA / 8];
static int64_t g_flag;

static int me, npes;

typedef struct {
    int start, logstride, size;
    int idx; /* my index in the set, -1 outside */
} aset_t;

static aset_t make_set(int start, int size)
{
    aset_t a = {start, 1, size, -1};
    if (me >= start && (me - start) % 2 == 0 && (me - start) / 2 < size)
        a.idx = (me - start) / 2;
    return a;
}

static int member_pe(const aset_t *a, int k)
{
    return a->start + (k << a->logstride);
}

/* Element i of what world PE pe contributes; never 0, fits in 32 bits. */
static int64_t val(int pe, size_t i)
{
    return (int64_t)pe * 1000 + (int64_t)i + 1;
}

static void put_elem(void *buf, size_t i, size_t esize, int64_t v)
{
    if (esize == 4)
        ((int32_t *)buf)[i] = (int32_t)v;
    else
        ((int64_t *)buf)[i] = v;
}

static int64_t get_elem(const void *buf, size_t i, size_t esize)
{
    return esize == 4 ? ((const int32_t *)buf)[i] : ((const int64_t *)buf)[i];
}

enum {
    C_BARRIER,
    C_SYNC,
    C_BCAST32,
    C_BCAST64,
    C_COLLECT32,
    C_COLLECT64,
    C_FCOLLECT32,
    C_FCOLLECT64,
    C_ALLTOALL32,
    C_ALLTOALL64,
    C_ALLTOALLS32,
    C_ALLTOALLS64,
    C_INT_SUM,
    C_DOUBLE_MAX,
    NCASES
};
static const char *const case_names[NCASES] = {"shmem_barrier",        "shmem_sync",
                                               "shmem_broadcast32",    "shmem_broadcast64",
                                               "shmem_collect32",      "shmem_collect64",
                                               "shmem_fcollect32",     "shmem_fcollect64",
                                               "shmem_alltoall32",     "shmem_alltoall64",
                                               "shmem_alltoalls32",    "shmem_alltoalls64",
                                               "shmem_int_sum_to_all", "shmem_double_max_to_all"};

static size_t esize_of(int c)
{
    switch (c) {
    case C_BCAST32:
    case C_COLLECT32:
    case C_FCOLLECT32:
    case C_ALLTOALL32:
    case C_ALLTOALLS32: return 4;
    case C_INT_SUM: return sizeof(int);
    default: return 8;
    }
}

/* What this member's source holds: alltoall(s) send n blocks of NE. */
static void fill_source(int c, const aset_t *a)
{
    size_t es = esize_of(c), n = (size_t)a->size;
    size_t count = (c >= C_ALLTOALL32 && c <= C_ALLTOALLS64) ? n * NE : NE;
    if (c == C_COLLECT32 || c == C_COLLECT64)
        count = (size_t)(a->idx < 0 ? 1 : a->idx + 1); /* member k gives k+1 */
    for (size_t i = 0; i < count; i++) {
        if (c == C_INT_SUM)
            ((int *)g_src)[i] = (int)val(me, i);
        else if (c == C_DOUBLE_MAX)
            ((double *)g_src)[i] = (double)val(me, i);
        else
            put_elem(g_src, i, es, val(me, i));
    }
}

static void call(int c, const aset_t *a)
{
    int s = a->start, l = a->logstride, n = a->size, root = n - 1;
    void *d = g_dest;
    const void *src = g_src;
    switch (c) {
    case C_BARRIER:
        /* The members' puts are complete when the barrier returns. */
        if (a->idx >= 0)
            shmem_int64_p(&g_flag, val(me, 0), member_pe(a, (a->idx + 1) % n));
        shmem_barrier(s, l, n, pSyncBar);
        break;
    case C_SYNC: shmem_sync(s, l, n, pSync); break;
    case C_BCAST32: shmem_broadcast32(d, src, NE, root, s, l, n, pSync); break;
    case C_BCAST64: shmem_broadcast64(d, src, NE, root, s, l, n, pSync); break;
    case C_COLLECT32:
        shmem_collect32(d, src, (size_t)(a->idx < 0 ? 1 : a->idx + 1), s, l, n, pSync);
        break;
    case C_COLLECT64:
        shmem_collect64(d, src, (size_t)(a->idx < 0 ? 1 : a->idx + 1), s, l, n, pSync);
        break;
    case C_FCOLLECT32: shmem_fcollect32(d, src, NE, s, l, n, pSync); break;
    case C_FCOLLECT64: shmem_fcollect64(d, src, NE, s, l, n, pSync); break;
    case C_ALLTOALL32: shmem_alltoall32(d, src, NE, s, l, n, pSync); break;
    case C_ALLTOALL64: shmem_alltoall64(d, src, NE, s, l, n, pSync); break;
    case C_ALLTOALLS32: shmem_alltoalls32(d, src, 2, 1, NE, s, l, n, pSync); break;
    case C_ALLTOALLS64: shmem_alltoalls64(d, src, 2, 1, NE, s, l, n, pSync); break;
    case C_INT_SUM: shmem_int_sum_to_all(d, src, NE, s, l, n, (int *)(void *)pWrk, pSync); break;
    default: shmem_double_max_to_all(d, src, NE, s, l, n, pWrk, pSync); break;
    }
}

/* How many dest elements of a member the routine writes (or skips). */
static size_t dest_count(int c, const aset_t *a)
{
    size_t n = (size_t)a->size;
    switch (c) {
    case C_COLLECT32:
    case C_COLLECT64: return n * (n + 1) / 2;
    case C_FCOLLECT32:
    case C_FCOLLECT64:
    case C_ALLTOALL32:
    case C_ALLTOALL64: return n * NE;
    case C_ALLTOALLS32:
    case C_ALLTOALLS64: return n * NE * 2;
    case C_BARRIER:
    case C_SYNC: return 0;
    default: return NE;
    }
}

/* Expected dest element i of member a->idx, or -1 where dest keeps the
 * sentinel (the broadcast root's, the gaps of alltoalls with dst 2). */
static int64_t expected(int c, const aset_t *a, size_t i)
{
    int n = a->size, j = a->idx;
    switch (c) {
    case C_BCAST32:
    case C_BCAST64: return j == n - 1 ? -1 : val(member_pe(a, n - 1), i);
    case C_COLLECT32:
    case C_COLLECT64: {
        size_t at = 0; /* member k's k+1 elements start at k(k+1)/2 */
        int k = 0;
        while (i >= at + (size_t)k + 1)
            at += (size_t)++k;
        return val(member_pe(a, k), i - at);
    }
    case C_FCOLLECT32:
    case C_FCOLLECT64: return val(member_pe(a, (int)(i / NE)), i % NE);
    case C_ALLTOALL32:
    case C_ALLTOALL64: return val(member_pe(a, (int)(i / NE)), (size_t)j * NE + i % NE);
    case C_ALLTOALLS32:
    case C_ALLTOALLS64:
        if (i % 2)
            return -1;
        return val(member_pe(a, (int)(i / 2 / NE)), (size_t)j * NE + i / 2 % NE);
    case C_INT_SUM: {
        int64_t sum = 0;
        for (int k = 0; k < n; k++)
            sum += val(member_pe(a, k), i);
        return sum;
    }
    default: return val(member_pe(a, n - 1), i); /* double max: the last member's */
    }
}

static void check_member(int c, const aset_t *a)
{
    if (c == C_BARRIER) {
        int from = member_pe(a, (a->idx + a->size - 1) % a->size);
        CHECK_MSG(g_flag == val(from, 0),
                  "shmem_barrier: the put of PE %d is not complete "
                  "(flag %lld)",
                  from, (long long)g_flag);
        return;
    }
    size_t es = esize_of(c);
    for (size_t i = 0; i < dest_count(c, a); i++) {
        int64_t want = expected(c, a, i);
        const unsigned char *at = (const unsigned char *)g_dest + i * es;
        if (want < 0) {
            CHECK_MSG(st_verify_byte(at, es, SENTINEL) == SIZE_MAX,
                      "%s: member %d: dest element %zu was written", case_names[c], a->idx, i);
            continue;
        }
        int64_t got = c == C_INT_SUM      ? ((int *)g_dest)[i]
                      : c == C_DOUBLE_MAX ? (int64_t)((double *)g_dest)[i]
                                          : get_elem(g_dest, i, es);
        CHECK_MSG(got == want, "%s: member %d of (%d, %d, %d): dest[%zu] = %lld, expected %lld",
                  case_names[c], a->idx, a->start, a->logstride, a->size, i, (long long)got,
                  (long long)want);
    }
}

/* After everyone is done: every pSync is back at SHMEM_SYNC_VALUE (the
 * outsiders' never left it), and an outsider's dest and flag are as they
 * were. */
static void check_after(int c, const aset_t *a)
{
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        CHECK_MSG(pSync[i] == SHMEM_SYNC_VALUE, "%s: PE %d (%s the set): pSync[%d] = %ld",
                  case_names[c], me, a->idx < 0 ? "outside" : "in", i, pSync[i]);
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        CHECK_MSG(pSyncBar[i] == SHMEM_SYNC_VALUE, "%s: PE %d: barrier pSync[%d] = %ld",
                  case_names[c], me, i, pSyncBar[i]);
    if (a->idx >= 0)
        return;
    size_t bad = st_verify_byte(g_dest, sizeof g_dest, SENTINEL);
    CHECK_MSG(bad == SIZE_MAX,
              "%s: PE %d is outside the active set (%d, %d, %d) but byte %zu "
              "of its dest was written",
              case_names[c], me, a->start, a->logstride, a->size, bad);
    CHECK_MSG(g_flag == -1, "%s: PE %d is outside the set but was put to", case_names[c], me);
}

static void run_case(int c, const aset_t *a, int rep)
{
    PHASE("%s on (%d, %d, %d), repetition %d", case_names[c], a->start, a->logstride, a->size, rep);
    memset(g_dest, SENTINEL, sizeof g_dest);
    g_flag = -1;
    fill_source(c, a);
    shmem_barrier_all();
    call(c, a);
    if (a->idx >= 0)
        check_member(c, a);
    shmem_barrier_all();
    check_after(c, a);
}

/* The collectives after: the whole world as an active set on the same
 * pSync, and a team reduction. */
static void check_next_collectives(void)
{
    PHASE("world collectives after the set");
    static long s[NE], d[NE]; /* symmetric */
    for (int i = 0; i < NE; i++)
        s[i] = me + i;
    shmem_barrier_all();
    shmem_long_sum_to_all(d, s, NE, 0, 0, npes, (long *)(void *)pWrk, pSync);
    for (int i = 0; i < NE; i++)
        CHECK_EQ_I(d[i], (long)npes * (npes - 1) / 2 + (long)npes * i);
    long *ts = shmem_malloc(2 * sizeof(long));
    CHECK_NOT_NULL(ts);
    ts[0] = me + 1;
    shmem_barrier_all();
    CHECK_EQ_I(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, ts + 1, ts, 1), 0);
    CHECK_EQ_I(ts[1], (long)npes * (npes + 1) / 2);
    shmem_free(ts);
}

int main(void)
{
    shmem_init();
    st_begin();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= CT_MAXPE);
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        pSync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        pSyncBar[i] = SHMEM_SYNC_VALUE;
    aset_t sets[2] = {make_set(0, (npes + 1) / 2), make_set(1, npes / 2)};
    int nsets = npes >= 2 ? 2 : 1;
    for (int si = 0; si < nsets; si++) {
        for (int rep = 0; rep < 2; rep++)
            for (int c = 0; c < NCASES; c++)
                run_case(c, &sets[si], rep);
        check_next_collectives();
        st_note(si ? "odd PEs as the active set" : "even PEs as the active set");
    }
    ST_PHASE("finalize");
    shmem_finalize();
    if (me == 0)
        printf("ok: aset_outside (%d PEs)\n", npes);
    return 0;
}
