/* Memory ordering: fence, quiet, pe_quiet (1.6), their ctx forms, and
 * SHMEM_CTX_INVALID making fence/quiet no-ops.
 *
 * fence: a PE puts a data block, fences, then sets a flag (AMO) on its
 * right neighbour; the neighbour waits for the flag and must then see the
 * whole block.  Hundreds of rounds, with an acknowledgement so the sender
 * cannot overwrite a block that is being checked.  Four ways: blocking
 * putmem, put_nbi, p, and on a created context.
 *
 * quiet / pe_quiet: nbi (and blocking) puts to several PEs, then quiet (or pe_quiet over
 * the targets), then an AMO counter; the receiver sees every block once
 * its counter is complete.  nbi gets are complete after quiet. */
#include "shoal_test.h"

#define MAXPE 64
#define FWORDS 64
#define FROUNDS 1000

static shmem_ctx_t g_ctx;
static long g_fdata[FWORDS];
static long g_flag, g_ack;
static long g_count;

static long fval(long round, int pe, int i)
{
    return round * 1000003L + pe * 1009L + i;
}

static char g_ph[160];
#define PHASE(...) (snprintf(g_ph, sizeof g_ph, __VA_ARGS__), ST_PHASE(g_ph))

enum { F_PUTMEM, F_PUT_NBI, F_P, F_CTX, F_COUNT };
static const char *const fname[F_COUNT] = {"putmem", "put_nbi", "p", "ctx put_nbi"};

static void test_fence(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), r = (me + 1) % n, l = (me + n - 1) % n;
    long round = 0;
    /* The source of the nbi puts: it must outlive them (they complete at a
     * quiet, or, as here, once the acknowledgement proves delivery; on the
     * network path a put may still be queued when the loop comes round). */
    long buf[FWORDS];
    g_flag = g_ack = 0;
    shmem_barrier_all();
    for (int way = 0; way < F_COUNT; way++) {
        PHASE("fence: %s, data then flag", fname[way]);
        for (int k = 0; k < FROUNDS; k++) {
            round++;
            /* Send round `round` once the neighbour acknowledged the last. */
            shmem_long_wait_until(&g_ack, SHMEM_CMP_GE, round - 1);
            for (int i = 0; i < FWORDS; i++)
                buf[i] = fval(round, me, i);
            switch (way) {
            case F_PUTMEM:
                shmem_putmem(g_fdata, buf, sizeof buf, r);
                shmem_fence();
                shmem_long_atomic_set(&g_flag, round, r);
                break;
            case F_PUT_NBI:
                shmem_long_put_nbi(g_fdata, buf, FWORDS, r);
                shmem_fence();
                shmem_long_atomic_set(&g_flag, round, r);
                break;
            case F_P:
                for (int i = FWORDS - 1; i >= 0; i--)
                    shmem_long_p(&g_fdata[i], buf[i], r);
                shmem_fence();
                shmem_long_atomic_set(&g_flag, round, r);
                break;
            default:
                shmem_ctx_long_put_nbi(g_ctx, g_fdata, buf, FWORDS, r);
                shmem_ctx_fence(g_ctx);
                shmem_ctx_long_atomic_set(g_ctx, &g_flag, round, r);
                break;
            }
            /* Receive round `round` from the left neighbour. */
            shmem_long_wait_until(&g_flag, SHMEM_CMP_GE, round);
            long f = shmem_long_atomic_fetch(&g_flag, me);
            CHECK_MSG(f == round, "flag is %ld in round %ld (no sender may run ahead)", f, round);
            for (int i = 0; i < FWORDS; i++)
                CHECK_MSG(g_fdata[i] == fval(round, l, i),
                          "round %ld: flag seen but word %d of the data is %ld, expected %ld "
                          "(the fence did not order the put before the flag)",
                          round, i, g_fdata[i], fval(round, l, i));
            shmem_long_atomic_set(&g_ack, round, l);
        }
        /* Settle the contexts before switching ways. */
        shmem_quiet();
        shmem_ctx_quiet(g_ctx);
    }
    shmem_barrier_all();
    st_note("fence orders puts before the flag");
}

static void test_quiet(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    const size_t chunk = 16384 + 5;
    unsigned char *buf = shmem_malloc(chunk * (size_t)n);
    unsigned char *src = malloc(chunk);
    unsigned char *loc = malloc(chunk * (size_t)n);
    CHECK_NOT_NULL(buf);
    CHECK_NOT_NULL(src);
    CHECK_NOT_NULL(loc);
    g_count = 0;
    shmem_barrier_all();
    long expect = 0;
    for (int round = 0; round < 40; round++) {
        int use_ctx = round & 1;
        /* Rounds 2 and 3 of every 4 put with blocking puts (to every PE,
         * or to the even ones only): their remote completion is the
         * quiet's too. */
        int blocking = round & 2, mixed = (round & 3) == 3;
        PHASE("quiet round %d (%s, %s puts)", round, use_ctx ? "ctx" : "default ctx",
              mixed      ? "blocking and nbi"
              : blocking ? "blocking"
                         : "nbi");
        st_fill(src, chunk, me, (unsigned)round);
        for (int pe = 0; pe < n; pe++) {
            void *dst = buf + chunk * (size_t)me;
            int nbi = !blocking || (mixed && (pe & 1));
            if (use_ctx && nbi)
                shmem_ctx_putmem_nbi(g_ctx, dst, src, chunk, pe);
            else if (use_ctx)
                shmem_ctx_putmem(g_ctx, dst, src, chunk, pe);
            else if (nbi)
                shmem_putmem_nbi(dst, src, chunk, pe);
            else
                shmem_putmem(dst, src, chunk, pe);
        }
        if (use_ctx)
            shmem_ctx_quiet(g_ctx);
        else
            shmem_quiet();
        for (int pe = 0; pe < n; pe++)
            shmem_long_atomic_inc(&g_count, pe);
        expect += n;
        shmem_long_wait_until(&g_count, SHMEM_CMP_GE, expect);
        for (int pe = 0; pe < n; pe++)
            CHECK_PATTERN(buf + chunk * (size_t)pe, chunk, pe, (unsigned)round);
        /* get_nbi: complete after quiet. */
        memset(loc, 0, chunk * (size_t)n);
        int from = (me + round) % n;
        if (use_ctx) {
            shmem_ctx_getmem_nbi(g_ctx, loc, buf, chunk * (size_t)n, from);
            shmem_ctx_quiet(g_ctx);
        } else {
            shmem_getmem_nbi(loc, buf, chunk * (size_t)n, from);
            shmem_quiet();
        }
        for (int pe = 0; pe < n; pe++)
            CHECK_PATTERN(loc + chunk * (size_t)pe, chunk, pe, (unsigned)round);
        shmem_barrier_all(); /* nobody overwrites a block still being checked */
    }
    st_note("quiet completes nbi puts and gets");

    /* pe_quiet over a list of targets (the even PEs, and the odd ones). */
    int list[MAXPE];
    for (int round = 0; round < 20; round++) {
        int use_ctx = round & 1, parity = (round >> 1) & 1;
        PHASE("pe_quiet round %d (%s, %s PEs)", round, use_ctx ? "ctx" : "default ctx",
              parity ? "odd" : "even");
        size_t k = 0;
        for (int pe = parity; pe < n; pe += 2)
            list[k++] = pe;
        g_count = 0;
        st_fill(src, chunk, me, 100u + (unsigned)round);
        shmem_barrier_all();
        for (size_t j = 0; j < k; j++) {
            if (use_ctx)
                shmem_ctx_putmem_nbi(g_ctx, buf + chunk * (size_t)me, src, chunk, list[j]);
            else
                shmem_putmem_nbi(buf + chunk * (size_t)me, src, chunk, list[j]);
        }
        if (use_ctx)
            shmem_ctx_pe_quiet(g_ctx, list, k);
        else
            shmem_pe_quiet(list, k);
        for (size_t j = 0; j < k; j++)
            shmem_long_atomic_inc(&g_count, list[j]);
        if (me % 2 == parity) {
            shmem_long_wait_until(&g_count, SHMEM_CMP_EQ, n);
            for (int pe = 0; pe < n; pe++)
                CHECK_PATTERN(buf + chunk * (size_t)pe, chunk, pe, 100u + (unsigned)round);
        }
        shmem_barrier_all();
    }
    /* npes = 0 returns at once, with or without a list. */
    PHASE("pe_quiet with npes 0");
    shmem_pe_quiet(list, 0);
    shmem_pe_quiet(NULL, 0);
    shmem_ctx_pe_quiet(g_ctx, list, 0);
    shmem_ctx_pe_quiet(g_ctx, NULL, 0);
    /* A list with every PE, one with this PE only. */
    list[0] = me;
    shmem_pe_quiet(list, 1);
    for (int pe = 0; pe < n; pe++)
        list[pe] = n - 1 - pe;
    shmem_pe_quiet(list, (size_t)n);
    shmem_barrier_all();
    st_note("pe_quiet");

    free(src);
    free(loc);
    shmem_free(buf);
}

static void test_invalid_ctx(void)
{
    PHASE("fence/quiet on SHMEM_CTX_INVALID");
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    /* A destroyed-then-invalid handle variable is still fine to use. */
    shmem_ctx_t c;
    CHECK_EQ_I(shmem_ctx_create(0, &c), 0);
    shmem_ctx_destroy(c);
    c = SHMEM_CTX_INVALID;
    shmem_ctx_fence(c);
    shmem_ctx_quiet(c);
    shmem_barrier_all();
    st_note("fence/quiet on SHMEM_CTX_INVALID are no-ops");
}

int main(void)
{
    shmem_init();
    st_begin();
    CHECK_EQ_I(shmem_ctx_create(0, &g_ctx), 0);
    test_fence();
    test_quiet();
    test_invalid_ctx();
    ST_PHASE("finalize");
    shmem_ctx_destroy(g_ctx);
    shmem_finalize();
    if (st_me == 0)
        printf("ok: ordering (%d PEs)\n", st_npes);
    return 0;
}
