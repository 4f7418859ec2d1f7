/* Memory management: shmem_malloc, calloc, align, realloc, free,
 * malloc_with_hints and the deprecated shmalloc/shfree/shrealloc/shmemalign.
 *
 *   memory all             every check below (default heap)
 *   memory exhaust         run with SHMEM_SYMMETRIC_SIZE=1M: a 2 MiB request
 *                          gives NULL on every PE and the program goes on
 *   memory heapsize BYTES  run with SHMEM_SYMMETRIC_SIZE set to a value
 *                          meaning BYTES: one block of BYTES bytes fits and
 *                          every byte of it is remotely writable
 *   memory align_any       shmem_align with every power of two (1, 2 and 4
 *                          included) works; alignments that are not powers
 *                          of two give NULL on every PE and leave the heaps
 *                          in step
 *
 * Symmetry is checked from the outside: every PE publishes the offsets of
 * its blocks (relative to its first block) and compares them with its
 * neighbours'. */
#include "shoal_test.h"

#define MAXPE 64
#define NOFF 64

static long g_offs[NOFF]; /* this PE's offsets, read by others */
static int g_flags[MAXPE];

static char *g_base; /* the first block: offsets are relative to it */

/* Every PE compares offs[0..k) with every other PE's. */
static void check_symmetric(const long *offs, int k, const char *what)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(k <= NOFF);
    memcpy(g_offs, offs, (size_t)k * sizeof(long));
    shmem_barrier_all();
    long theirs[NOFF];
    for (int pe = 0; pe < n; pe++) {
        if (pe == me)
            continue;
        shmem_getmem(theirs, g_offs, (size_t)k * sizeof(long), pe);
        for (int i = 0; i < k; i++)
            CHECK_MSG(theirs[i] == offs[i],
                      "%s: block %d is at offset %ld here but at %ld on PE %d", what, i, offs[i],
                      theirs[i], pe);
    }
    shmem_barrier_all();
}

static long off_of(const void *p)
{
    return (long)((const char *)p - g_base);
}

/* Write a pattern into p on every PE's copy (each PE writes the neighbour's)
 * and read it back: the block is usable remotely. */
static void check_remote_usable(void *p, size_t n_bytes, unsigned seed)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    unsigned char *src = malloc(n_bytes);
    CHECK_NOT_NULL(src);
    st_fill(src, n_bytes, me, seed);
    shmem_barrier_all();
    shmem_putmem(p, src, n_bytes, right);
    shmem_barrier_all();
    CHECK_PATTERN(p, n_bytes, left, seed);
    shmem_barrier_all();
    free(src);
}

static void test_zero_size(void)
{
    ST_PHASE("size 0");
    CHECK_NULL(shmem_malloc(0));
    CHECK_NULL(shmem_calloc(0, 8));
    CHECK_NULL(shmem_calloc(8, 0));
    CHECK_NULL(shmem_align(64, 0));
    CHECK_NULL(shmem_malloc_with_hints(0, 0));
    CHECK_NULL(shmem_malloc_with_hints(0, SHMEM_MALLOC_ATOMICS_REMOTE));
    shmem_free(NULL); /* no-op */
    /* A size-0 allocation is no action: it does not disturb the offsets. */
    void *a = shmem_malloc(100);
    CHECK_NOT_NULL(a);
    long o[1] = {off_of(a)};
    check_symmetric(o, 1, "after size-0 requests");
    shmem_free(a);
}

static void test_basic(void)
{
    ST_PHASE("malloc/free");
    int me = shmem_my_pe();
    long offs[NOFF];
    int k = 0;
    void *blocks[16];
    static const size_t sizes[] = {1, 7, 8, 63, 64, 65, 4095, 4096, 4097, 100000, 1 << 20, 3};
    const int nsz = (int)(sizeof sizes / sizeof sizes[0]);
    for (int i = 0; i < nsz; i++) {
        blocks[i] = shmem_malloc(sizes[i]);
        CHECK_NOT_NULL(blocks[i]);
        CHECK_MSG((uintptr_t)blocks[i] % _Alignof(max_align_t) == 0,
                  "shmem_malloc(%zu) = %p is not aligned for max_align_t", sizes[i], blocks[i]);
        offs[k++] = off_of(blocks[i]);
        memset(blocks[i], 0xA0 + i, sizes[i]);
    }
    /* Blocks do not overlap: each still holds its own fill. */
    for (int i = 0; i < nsz; i++)
        CHECK_BYTES(blocks[i], sizes[i], 0xA0 + i);
    check_symmetric(offs, k, "malloc");
    for (int i = 0; i < nsz; i++)
        check_remote_usable(blocks[i], sizes[i], (unsigned)i);
    /* Free in a different order than allocated. */
    for (int i = nsz - 1; i >= 0; i -= 2)
        shmem_free(blocks[i]);
    for (int i = nsz - 2; i >= 0; i -= 2)
        shmem_free(blocks[i]);
    (void)me;

    ST_PHASE("malloc_with_hints");
    static const long hints[] = {0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE,
                                 SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE};
    k = 0;
    for (int i = 0; i < 4; i++) {
        long *p = shmem_malloc_with_hints(64 * sizeof(long), hints[i]);
        CHECK_NOT_NULL(p);
        offs[k++] = off_of(p);
        /* Atomics and signals work on it. */
        p[0] = 0;
        shmem_barrier_all();
        for (int pe = 0; pe < shmem_n_pes(); pe++)
            shmem_long_atomic_inc(&p[0], pe);
        shmem_barrier_all();
        CHECK_EQ_I(shmem_long_atomic_fetch(&p[0], me), shmem_n_pes());
        check_remote_usable(p, 64 * sizeof(long), 100u + (unsigned)i);
        blocks[i] = p;
    }
    check_symmetric(offs, k, "malloc_with_hints");
    for (int i = 0; i < 4; i++)
        shmem_free(blocks[i]);
}

static void test_calloc(void)
{
    ST_PHASE("calloc");
    const size_t n_el = 1000, el = 24;
    /* Dirty a block, free it, and calloc the same size: a reused block is
     * zeroed too. */
    unsigned char *d = shmem_malloc(n_el * el);
    CHECK_NOT_NULL(d);
    memset(d, 0xff, n_el * el);
    long o1 = off_of(d);
    shmem_free(d);
    unsigned char *c = shmem_calloc(n_el, el);
    CHECK_NOT_NULL(c);
    CHECK_BYTES(c, n_el * el, 0);
    long offs[2] = {o1, off_of(c)};
    check_symmetric(offs, 2, "calloc");
    check_remote_usable(c, n_el * el, 7);
    shmem_free(c);

    /* Again with a block carved from a dirty larger one. */
    d = shmem_malloc(1 << 16);
    CHECK_NOT_NULL(d);
    memset(d, 0x5a, 1 << 16);
    shmem_free(d);
    int *ci = shmem_calloc(100, sizeof(int));
    CHECK_NOT_NULL(ci);
    CHECK_BYTES(ci, 100 * sizeof(int), 0);
    shmem_free(ci);

    /* count * size overflows: NULL on every PE, nothing else happens. */
    CHECK_NULL(shmem_calloc(SIZE_MAX / 2, 4));
}

static void test_calloc_race(void)
{
    ST_PHASE("calloc then immediate remote writes");
    /* The block is zero when calloc returns on any PE: a PE that returns
     * first may write into the others' copies at once (calloc is collective
     * and ends with a barrier), and that write must not be wiped out. */
    for (int round = 0; round < 50; round++) {
        int me = shmem_my_pe(), n = shmem_n_pes();
        long *cnt = shmem_calloc(2, sizeof(long));
        CHECK_NOT_NULL(cnt);
        for (int pe = 0; pe < n; pe++)
            shmem_long_atomic_inc(&cnt[1], pe);
        shmem_barrier_all();
        CHECK_MSG(cnt[1] == n && cnt[0] == 0,
                  "round %d: %d PEs incremented a word right after shmem_calloc returned, "
                  "the word reads %ld (increments made before this PE zeroed its copy were "
                  "lost)",
                  round, n, cnt[1]);
        shmem_free(cnt);
        (void)me;
    }
}

static void test_align(void)
{
    ST_PHASE("align");
    long offs[NOFF];
    int k = 0;
    void *blocks[NOFF];
    for (size_t a = sizeof(void *); a <= (size_t)1 << 20; a <<= 1) {
        /* A small block first, so the next alignment is not free. */
        void *pad = shmem_malloc(24);
        CHECK_NOT_NULL(pad);
        void *p = shmem_align(a, 3 * a / 2 + 1);
        CHECK_NOT_NULL(p);
        CHECK_MSG((uintptr_t)p % a == 0, "shmem_align(%zu, ...) = %p is not aligned", a, p);
        offs[k] = off_of(p);
        blocks[k++] = p;
        offs[k] = off_of(pad);
        blocks[k++] = pad;
        memset(p, 0x11, 3 * a / 2 + 1);
    }
    check_symmetric(offs, k, "align");
    check_remote_usable(blocks[k - 2], ((size_t)1 << 20) * 3 / 2 + 1, 9);
    for (int i = 0; i < k; i++)
        shmem_free(blocks[i]);

    /* Past the heap base's old 2 MiB alignment (tests-sos shmemalign asks
     * for 8 MiB): the address, not only the offset, is aligned on every PE. */
    k = 0;
    for (size_t a = (size_t)2 << 20; a <= (size_t)256 << 20; a <<= 1) {
        void *pad = shmem_malloc(24);
        CHECK_NOT_NULL(pad);
        void *q = shmem_align(a, 4096);
        CHECK_NOT_NULL(q);
        CHECK_MSG((uintptr_t)q % a == 0, "shmem_align(%zu, 4096) = %p is not aligned", a, q);
        offs[k] = off_of(q);
        blocks[k++] = q;
        offs[k] = off_of(pad);
        blocks[k++] = pad;
    }
    check_symmetric(offs, k, "align large");
    check_remote_usable(blocks[k - 2], 4096, 10);
    for (int i = k - 1; i >= 0; i--)
        shmem_free(blocks[i]);

    /* The deprecated name. */
    void *p = shmemalign(4096, 100);
    CHECK_NOT_NULL(p);
    CHECK((uintptr_t)p % 4096 == 0);
    long o = off_of(p);
    check_symmetric(&o, 1, "shmemalign");
    shfree(p);
}

/* Programs in the wild pass 1, 2 and 4: any power of two is accepted and
 * the block is at least as aligned as a shmem_malloc block. */
static void test_align_small(void)
{
    ST_PHASE("align small powers of two");
    long offs[NOFF];
    void *blocks[NOFF];
    int k = 0;
    for (size_t a = 1; a <= 128; a <<= 1) {
        void *pad = shmem_malloc(24);
        CHECK_NOT_NULL(pad);
        void *p = shmem_align(a, 100);
        CHECK_MSG(p != NULL, "shmem_align(%zu, 100) returned NULL", a);
        CHECK_MSG((uintptr_t)p % a == 0, "shmem_align(%zu, ...) = %p is not aligned", a, p);
        CHECK_MSG((uintptr_t)p % _Alignof(max_align_t) == 0,
                  "shmem_align(%zu, ...) = %p is less aligned than shmem_malloc's blocks", a, p);
        offs[k] = off_of(pad);
        blocks[k++] = pad;
        offs[k] = off_of(p);
        blocks[k++] = p;
    }
    void *d = shmemalign(2, 10);
    CHECK_NOT_NULL(d);
    offs[k] = off_of(d);
    blocks[k++] = d;
    check_symmetric(offs, k, "small alignments");
    check_remote_usable(blocks[1], 100, 21);
    for (int i = 0; i < k; i++)
        shmem_free(blocks[i]);
}

/* "Otherwise, it returns a null pointer": on every PE, without ending the
 * job, and the next allocation is symmetric again. */
static void test_align_not_power_of_two(void)
{
    ST_PHASE("align not a power of two");
    const size_t bad[] = {0, 3, 24, 48, 100, 4097, SIZE_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        void *p = shmem_align(bad[i], 64);
        CHECK_MSG(p == NULL, "shmem_align(%zu, 64) = %p, expected NULL", bad[i], p);
    }
    CHECK_NULL(shmemalign(12, 64));
    void *a = shmem_malloc(40);
    void *b = shmem_align(256, 40);
    CHECK_NOT_NULL(a);
    CHECK_NOT_NULL(b);
    long offs[2] = {off_of(a), off_of(b)};
    check_symmetric(offs, 2, "allocations after a NULL shmem_align");
    check_remote_usable(b, 40, 22);
    shmem_free(b);
    shmem_free(a);
}

static void test_realloc(void)
{
    ST_PHASE("realloc");
    int me = shmem_my_pe(), n = shmem_n_pes();
    /* NULL ptr: behaves as malloc. */
    unsigned char *p = shmem_realloc(NULL, 1000);
    CHECK_NOT_NULL(p);
    st_fill(p, 1000, me, 21);
    /* Something after it, so that growing must move. */
    void *blocker = shmem_malloc(64);
    CHECK_NOT_NULL(blocker);

    long offs[8];
    int k = 0;
    offs[k++] = off_of(p);
    unsigned char *q = shmem_realloc(p, 300000); /* grow */
    CHECK_NOT_NULL(q);
    offs[k++] = off_of(q);
    CHECK_PATTERN(q, 1000, me, 21);
    check_remote_usable(q, 300000, 22);
    st_fill(q, 300000, me, 23);
    unsigned char *r = shmem_realloc(q, 5000); /* shrink */
    CHECK_NOT_NULL(r);
    offs[k++] = off_of(r);
    CHECK_PATTERN(r, 5000, me, 23);
    /* Remote puts into the result: every PE writes a piece of every PE's. */
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++) {
        unsigned char piece[100];
        st_fill(piece, sizeof piece, me, 24);
        shmem_putmem(r + 100 * me, piece, sizeof piece, pe);
    }
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++)
        CHECK_PATTERN(r + 100 * pe, 100, pe, 24);
    CHECK_PATTERN_AT(r + 100 * n, 5000 - 100 * (size_t)n, me, 23, 100 * (size_t)n);

    /* The deprecated name grows too. */
    st_fill(r, 5000, me, 25);
    unsigned char *s = shrealloc(r, 70000);
    CHECK_NOT_NULL(s);
    offs[k++] = off_of(s);
    CHECK_PATTERN(s, 5000, me, 25);

    /* A request that cannot be met: NULL on every PE, block unchanged. */
    unsigned char *t = shmem_realloc(s, (size_t)1 << 50);
    CHECK_NULL(t);
    CHECK_PATTERN(s, 5000, me, 25);
    check_remote_usable(s, 70000, 26);
    check_symmetric(offs, k, "realloc");

    /* size 0 frees, returns NULL. */
    CHECK_NULL(shmem_realloc(s, 0));
    shmem_free(blocker);
    /* The space is really back: a huge block fits again where it was. */
}

/* A long deterministic sequence of mixed collective calls; every block keeps
 * its own contents (no overlaps), offsets agree across PEs. */
static void test_mixed(void)
{
    ST_PHASE("1000 mixed allocations");
    int me = shmem_my_pe();
    enum { SLOTS = 48, STEPS = 1000 };
    unsigned char *blk[SLOTS] = {0};
    size_t sz[SLOTS] = {0};
    unsigned tag[SLOTS] = {0};
    st_rng_t rng = {0x1234567887654321ull};
    long digest = 0;
    for (int step = 0; step < STEPS; step++) {
        int s = (int)st_rng_below(&rng, SLOTS);
        int op = (int)st_rng_below(&rng, 5);
        size_t size = 1 + (size_t)st_rng_below(&rng, st_rng_below(&rng, 4) == 0 ? 200000 : 2000);
        if (blk[s]) {
            /* Its contents survived everything since it was written. */
            CHECK_MSG(st_verify(blk[s], sz[s], me, tag[s]) == SIZE_MAX,
                      "step %d: block in slot %d (%zu bytes) was overwritten", step, s, sz[s]);
        }
        if (!blk[s] || op == 0) {
            if (blk[s])
                shmem_free(blk[s]);
            switch (op) {
            case 1: blk[s] = shmem_calloc(1, size); break;
            case 2: blk[s] = shmem_align((size_t)64 << st_rng_below(&rng, 6), size); break;
            case 3: blk[s] = shmem_malloc_with_hints(size, SHMEM_MALLOC_ATOMICS_REMOTE); break;
            default: blk[s] = shmem_malloc(size); break;
            }
            CHECK_NOT_NULL(blk[s]);
            if (op == 1)
                CHECK_BYTES(blk[s], size, 0);
            sz[s] = size;
        } else if (op == 1 || op == 2) {
            unsigned char *nb = shmem_realloc(blk[s], size);
            CHECK_NOT_NULL(nb);
            size_t keep = size < sz[s] ? size : sz[s];
            CHECK_MSG(st_verify(nb, keep, me, tag[s]) == SIZE_MAX,
                      "step %d: realloc of slot %d lost contents", step, s);
            blk[s] = nb;
            sz[s] = size;
        } else {
            shmem_free(blk[s]);
            blk[s] = NULL;
            sz[s] = 0;
            continue;
        }
        tag[s] = (unsigned)step;
        st_fill(blk[s], sz[s], me, tag[s]);
        digest = (long)((unsigned long)digest * 31u + (unsigned long)off_of(blk[s]));
        if (step % 100 == 99) {
            long offs[SLOTS + 1];
            for (int i = 0; i < SLOTS; i++)
                offs[i] = blk[i] ? off_of(blk[i]) : -1;
            offs[SLOTS] = digest;
            check_symmetric(offs, SLOTS + 1, "mixed sequence");
        }
    }
    for (int i = 0; i < SLOTS; i++)
        if (blk[i])
            shmem_free(blk[i]);
}

static void test_deprecated(void)
{
    ST_PHASE("shmalloc/shfree");
    int me = shmem_my_pe(), n = shmem_n_pes();
    int *p = shmalloc(16 * sizeof(int));
    CHECK_NOT_NULL(p);
    long o = off_of(p);
    check_symmetric(&o, 1, "shmalloc");
    shmem_int_p(&p[0], me, (me + 1) % n);
    shmem_barrier_all();
    CHECK_EQ_I(p[0], (me + n - 1) % n);
    shmem_barrier_all();
    shfree(p);
}

/* ------------------------------------------------------ special modes */

static int run_exhaust(void)
{
    ST_PHASE("exhaust");
    int me = shmem_my_pe(), n = shmem_n_pes();
    void *big = shmem_malloc((size_t)2 << 20);
    CHECK_NULL(big);
    /* Every PE got NULL: count them on PE 0. */
    shmem_int_atomic_inc(&g_flags[0], 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ_I(shmem_int_atomic_fetch(&g_flags[0], 0), n);
    CHECK_NULL(shmem_calloc(1, (size_t)2 << 20));
    CHECK_NULL(shmem_align(4096, (size_t)2 << 20));
    /* The program goes on: smaller blocks still work. */
    char *small = shmem_malloc(1000);
    CHECK_NOT_NULL(small);
    check_remote_usable(small, 1000, 3);
    void *grown = shmem_realloc(small, (size_t)4 << 20);
    CHECK_NULL(grown);
    check_remote_usable(small, 1000, 4);
    shmem_free(small);
    return 0;
}

static int run_heapsize(size_t want)
{
    ST_PHASE("heapsize");
    void *p = shmem_malloc(want);
    CHECK_MSG(p != NULL, "a heap of SHMEM_SYMMETRIC_SIZE=%s must hold one block of %zu bytes",
              getenv("SHMEM_SYMMETRIC_SIZE") ? getenv("SHMEM_SYMMETRIC_SIZE") : "(unset)", want);
    /* Both ends and the middle of the block are remotely writable. */
    size_t slice = want < 8192 ? want : 4096;
    check_remote_usable(p, slice, 5);
    check_remote_usable((char *)p + (want - slice) / 2, slice, 6);
    check_remote_usable((char *)p + (want - slice), slice, 7);
    shmem_free(p);
    /* The space is back: the same block fits again. */
    p = shmem_malloc(want);
    CHECK_NOT_NULL(p);
    shmem_free(p);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    shmem_init();
    st_begin();
    /* The first block anchors the offsets (not in heapsize mode: it must
     * find the whole heap free). */
    int rc = 0;
    if (strcmp(mode, "heapsize") != 0) {
        g_base = shmem_malloc(64);
        CHECK_NOT_NULL(g_base);
    }
    if (!strcmp(mode, "exhaust")) {
        rc = run_exhaust();
    } else if (!strcmp(mode, "heapsize")) {
        CHECK(argc > 2);
        rc = run_heapsize((size_t)strtoull(argv[2], NULL, 10));
    } else if (!strcmp(mode, "align_any")) {
        test_align_small();
        test_align_not_power_of_two();
    } else {
        test_zero_size();
        test_basic();
        test_calloc();
        test_align();
        test_realloc();
        test_mixed();
        test_deprecated();
        test_calloc_race();
    }
    ST_PHASE("finalize");
    shmem_free(g_base);
    shmem_finalize();
    if (st_me == 0)
        printf("ok: memory %s (%d PEs)\n", mode, st_npes);
    return rc;
}
