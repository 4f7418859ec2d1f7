/* Unit test of the symmetric-heap allocator (src/core/memory/heap_alloc.c), checked
 * against a reference model: an owner map with one entry per 64-byte unit.
 * Single process; compiled together with heap_alloc.c and its self-check. */
#include "core/memory/heap_alloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int shoal_heap_check(const struct shoal_heap *h);

#define CHECK(c)                                                                  \
    do {                                                                          \
        if (!(c)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); \
            exit(1);                                                              \
        }                                                                         \
    } while (0)
#define CHECK_HEAP(h)                                                                      \
    do {                                                                                   \
        int rc_ = shoal_heap_check(h);                                                     \
        if (rc_) {                                                                         \
            fprintf(stderr, "%s:%d: heap invariant %d broken\n", __FILE__, __LINE__, rc_); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)

static uint64_t rng_state;
static void rng_seed(uint64_t s)
{
    rng_state = s ? s : 1;
}
static uint64_t rng(void) /* xorshift64*: fixed seeds, same on every run */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}
static size_t rnd(size_t n)
{
    return (size_t)(rng() % n);
}

static size_t up64(size_t s)
{
    return (s + 63) & ~(size_t)63;
}

static struct shoal_heap_stats stats(const struct shoal_heap *h)
{
    struct shoal_heap_stats st;
    shoal_heap_stats(h, &st);
    return st;
}

static int stats_eq(struct shoal_heap_stats a, struct shoal_heap_stats b)
{
    return a.total == b.total && a.used == b.used && a.free == b.free &&
           a.largest_free == b.largest_free && a.nblocks == b.nblocks;
}

static void check_empty(const struct shoal_heap *h, size_t total)
{
    struct shoal_heap_stats st = stats(h);
    CHECK(st.total == total && st.used == 0 && st.free == total);
    CHECK(st.largest_free == total && st.nblocks == 0);
    CHECK_HEAP(h);
}

/* ---- reference model ---- */

struct model {
    size_t base, total, units;
    uint32_t *owner;    /* 0 = free, else live index + 1 */
    size_t *off, *size; /* live blocks */
    size_t nlive, cap, used;
};

static void model_init(struct model *m, size_t base, size_t total, size_t cap)
{
    m->base = base;
    m->total = total;
    m->units = total / 64;
    m->owner = calloc(m->units, sizeof *m->owner);
    m->off = malloc(cap * sizeof *m->off);
    m->size = malloc(cap * sizeof *m->size);
    CHECK(m->owner && m->off && m->size);
    m->nlive = 0;
    m->cap = cap;
    m->used = 0;
}

static void model_fini(struct model *m)
{
    free(m->owner);
    free(m->off);
    free(m->size);
}

static void model_mark(struct model *m, size_t off, size_t size, uint32_t who)
{
    for (size_t u = (off - m->base) / 64, e = u + size / 64; u < e; u++) {
        CHECK(who == 0 ? m->owner[u] != 0 : m->owner[u] == 0); /* no overlap */
        m->owner[u] = who;
    }
}

static void model_add(struct model *m, size_t off, size_t size)
{
    CHECK(m->nlive < m->cap);
    CHECK(off >= m->base && off - m->base <= m->total && size <= m->total - (off - m->base));
    m->off[m->nlive] = off;
    m->size[m->nlive] = size;
    m->nlive++;
    model_mark(m, off, size, (uint32_t)m->nlive);
    m->used += size;
}

static void model_remove(struct model *m, size_t k)
{
    model_mark(m, m->off[k], m->size[k], 0);
    m->used -= m->size[k];
    m->nlive--;
    if (k != m->nlive) {
        m->off[k] = m->off[m->nlive];
        m->size[k] = m->size[m->nlive];
        model_mark(m, m->off[k], m->size[k], 0);
        model_mark(m, m->off[k], m->size[k], (uint32_t)k + 1);
    }
}

/* Largest free run, and whether some run holds `size` bytes at an offset
 * that is a multiple of `align`. */
static size_t model_runs(const struct model *m, size_t size, size_t align, int *fits)
{
    size_t best = 0;
    *fits = 0;
    for (size_t u = 0; u < m->units;) {
        if (m->owner[u]) {
            u++;
            continue;
        }
        size_t s = u;
        while (u < m->units && !m->owner[u])
            u++;
        size_t roff = m->base + s * 64, rlen = (u - s) * 64;
        if (rlen > best)
            best = rlen;
        size_t pad = (align - (roff & (align - 1))) & (align - 1);
        if (size && pad <= rlen && rlen - pad >= size)
            *fits = 1;
    }
    return best;
}

static void model_compare(const struct shoal_heap *h, const struct model *m)
{
    int dummy;
    struct shoal_heap_stats st = stats(h);
    CHECK(st.total == m->total && st.used == m->used && st.free == m->total - m->used);
    CHECK(st.nblocks == m->nlive);
    CHECK(st.largest_free == model_runs(m, 0, 64, &dummy));
    for (size_t k = 0; k < m->nlive; k++) {
        CHECK(shoal_heap_block_size(h, m->off[k]) == m->size[k]);
        if (m->size[k] > 64)
            CHECK(shoal_heap_block_size(h, m->off[k] + 64) == 0);
    }
    CHECK_HEAP(h);
}

/* ---- tests ---- */

static void test_basic(void)
{
    struct shoal_heap *h = shoal_heap_create(0, 1 * MiB);
    size_t a, b, c;
    CHECK(h);
    check_empty(h, 1 * MiB);
    CHECK(shoal_heap_alloc(h, 1, 1, &a) == 0 && a == 0);
    CHECK(shoal_heap_block_size(h, a) == 64);
    CHECK(shoal_heap_alloc(h, 65, 8, &b) == 0 && b == 64);
    CHECK(shoal_heap_block_size(h, b) == 128);
    CHECK(shoal_heap_alloc(h, 64, 0, &c) == 0 && c == 192); /* 0: default */
    CHECK(shoal_heap_alloc(h, 0, 64, &c) == -1);            /* size 0 */
    CHECK(shoal_heap_alloc(h, 64, 96, &c) == -1);           /* not a power of 2 */
    struct shoal_heap_stats st = stats(h);
    CHECK(st.used == 256 && st.nblocks == 3 && st.largest_free == 1 * MiB - 256);
    CHECK_HEAP(h);
    /* Reuse of an exact hole: same size comes back at the same offset. */
    CHECK(shoal_heap_free(h, b) == 0);
    CHECK(shoal_heap_alloc(h, 100, 64, &c) == 0 && c == 64);
    shoal_heap_destroy(h);
    shoal_heap_destroy(NULL);

    /* An empty range and an unaligned range are handled, not trusted. */
    h = shoal_heap_create(0, 0);
    CHECK(h);
    CHECK(shoal_heap_alloc(h, 1, 1, &a) == -1);
    check_empty(h, 0);
    shoal_heap_destroy(h);
    h = shoal_heap_create(10, 1000);
    CHECK(h);
    CHECK(stats(h).total == 896);
    CHECK(shoal_heap_alloc(h, 1, 1, &a) == 0 && a == 64);
    shoal_heap_destroy(h);
    puts("basic: ok");
}

static void test_alignment(void)
{
    const size_t base = 64 * 7, total = 64 * MiB;
    struct shoal_heap *h = shoal_heap_create(base, total);
    struct model m;
    model_init(&m, base, total, 4096);
    rng_seed(11);
    for (int k = 0; k < 2000; k++) {
        size_t align = (size_t)1 << rnd(17), size = 1 + rnd(5000), off;
        CHECK(shoal_heap_alloc(h, size, align, &off) == 0);
        CHECK(off % align == 0 && off % 64 == 0);
        CHECK(shoal_heap_block_size(h, off) == up64(size));
        model_add(&m, off, up64(size));
        if (rnd(3) == 0) {
            size_t v = rnd(m.nlive);
            CHECK(shoal_heap_free(h, m.off[v]) == 0);
            model_remove(&m, v);
        }
    }
    model_compare(h, &m);
    model_fini(&m);
    shoal_heap_destroy(h);
    puts("alignment: ok");
}

enum order { FIFO, LIFO, RANDOM };

static void test_coalesce(enum order ord, int mixed)
{
    const size_t total = 16 * MiB;
    struct shoal_heap *h = shoal_heap_create(0, total);
    size_t cap = total / 64, n = 0, *offs = malloc(cap * sizeof *offs), off;
    CHECK(h && offs);
    rng_seed(1234 + ord);
    /* Fill the heap to exhaustion, then free everything. */
    for (;;) {
        size_t size = mixed ? 1 + rnd(rnd(8) == 0 ? 256 * KiB : 4 * KiB) : 4 * KiB;
        if (shoal_heap_alloc(h, size, mixed ? (size_t)1 << rnd(13) : 64, &off))
            break;
        offs[n++] = off;
    }
    CHECK(n > 100);
    if (!mixed) {
        CHECK(n == total / (4 * KiB) && stats(h).free == 0 && stats(h).largest_free == 0);
    }
    CHECK_HEAP(h);
    if (ord == RANDOM)
        for (size_t k = n - 1; k > 0; k--) {
            size_t j = rnd(k + 1), t = offs[k];
            offs[k] = offs[j];
            offs[j] = t;
        }
    for (size_t k = 0; k < n; k++) {
        size_t i = ord == LIFO ? n - 1 - k : k;
        CHECK(shoal_heap_free(h, offs[i]) == 0);
        if (k % 997 == 0)
            CHECK_HEAP(h);
    }
    check_empty(h, total);
    free(offs);
    shoal_heap_destroy(h);
    printf("coalesce %s%s: ok\n",
           ord == FIFO   ? "fifo"
           : ord == LIFO ? "lifo"
                         : "random",
           mixed ? " (mixed sizes/aligns)" : "");
}

/* One random sequence of alloc/free/resize, logged as it goes. */
static void run_sequence(struct shoal_heap *h, uint64_t seed, size_t *log, size_t nlog)
{
    size_t live[512], nlive = 0;
    rng_seed(seed);
    for (size_t k = 0; k < nlog; k++) {
        size_t op = rnd(10), r = 0;
        if (op < 5 && nlive < 512) {
            size_t off = 0;
            r = (size_t)shoal_heap_alloc(h, 1 + rnd(64 * KiB), (size_t)1 << rnd(14), &off);
            if (r == 0)
                live[nlive++] = off;
            r = r * 0x10000 + off;
        } else if (op < 8 && nlive) {
            size_t v = rnd(nlive);
            r = (size_t)shoal_heap_free(h, live[v]);
            live[v] = live[--nlive];
        } else if (nlive) {
            size_t v = rnd(nlive);
            r = (size_t)shoal_heap_resize(h, live[v], 1 + rnd(128 * KiB));
        }
        log[k] = r;
    }
}

static void test_determinism(void)
{
    const size_t n = 20000;
    size_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    CHECK(a && b);
    struct shoal_heap *h1 = shoal_heap_create(0, 32 * MiB);
    /* The second heap's private metadata is at other addresses and grown at
     * other times (a throwaway heap in between); offsets must not care. */
    struct shoal_heap *junk = shoal_heap_create(64, 64 * 100);
    run_sequence(h1, 99, a, n);
    struct shoal_heap *h2 = shoal_heap_create(0, 32 * MiB);
    run_sequence(h2, 99, b, n);
    CHECK(memcmp(a, b, n * sizeof *a) == 0);
    CHECK(stats_eq(stats(h1), stats(h2)));
    CHECK_HEAP(h1);
    CHECK_HEAP(h2);
    shoal_heap_destroy(h1);
    shoal_heap_destroy(h2);
    shoal_heap_destroy(junk);
    free(a);
    free(b);
    puts("determinism: ok");
}

static void test_invalid_free(void)
{
    const size_t base = 4096;
    struct shoal_heap *h = shoal_heap_create(base, 1 * MiB);
    size_t a, b;
    CHECK(shoal_heap_alloc(h, 1000, 64, &a) == 0 && shoal_heap_alloc(h, 64, 64, &b) == 0);
    struct shoal_heap_stats before = stats(h);
    size_t bad[] = {a + 64,         a + 1, a - 64,   b + 64,
                    base + 1 * MiB, 0,     SIZE_MAX, base + 512 * KiB /* inside the free block */};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        CHECK(shoal_heap_free(h, bad[k]) == -1);
        CHECK(shoal_heap_block_size(h, bad[k]) == 0);
        CHECK(shoal_heap_resize(h, bad[k], 64) == -1);
    }
    CHECK(stats_eq(before, stats(h)));
    CHECK_HEAP(h);
    CHECK(shoal_heap_free(h, a) == 0);
    CHECK(shoal_heap_free(h, a) == -1); /* double free */
    CHECK(shoal_heap_block_size(h, a) == 0 && shoal_heap_resize(h, a, 64) == -1);
    CHECK(shoal_heap_free(h, b) == 0);
    CHECK(shoal_heap_free(h, b) == -1);
    CHECK(shoal_heap_free(NULL, b) == -1);
    check_empty(h, 1 * MiB);
    shoal_heap_destroy(h);
    puts("invalid free: ok");
}

static void test_resize(void)
{
    struct shoal_heap *h = shoal_heap_create(0, 64 * KiB);
    size_t a, b, c, d;
    CHECK(shoal_heap_alloc(h, 1024, 64, &a) == 0 && a == 0);
    CHECK(shoal_heap_alloc(h, 1024, 64, &b) == 0 && b == 1024);
    CHECK(shoal_heap_alloc(h, 1024, 64, &c) == 0 && c == 2048);
    CHECK(shoal_heap_free(h, b) == 0);
    CHECK_HEAP(h);

    CHECK(shoal_heap_resize(h, a, 1024) == 0); /* same size */
    CHECK(shoal_heap_resize(h, a, 1000) == 0); /* rounds to same */
    CHECK(shoal_heap_resize(h, a, 1500) == 0 && shoal_heap_block_size(h, a) == 1536);
    CHECK(stats(h).used == 1536 + 1024 && stats(h).nblocks == 2);
    CHECK_HEAP(h);
    CHECK(shoal_heap_resize(h, a, 2048) == 0); /* takes all of b */
    CHECK_HEAP(h);
    struct shoal_heap_stats before = stats(h);
    CHECK(shoal_heap_resize(h, a, 2049) == -1); /* c is in the way */
    CHECK(shoal_heap_resize(h, a, 0) == -1);
    CHECK(shoal_heap_resize(h, a, SIZE_MAX) == -1);
    CHECK(shoal_heap_resize(h, c, 62 * KiB + 1) == -1); /* past the end */
    CHECK(stats_eq(before, stats(h)) && shoal_heap_block_size(h, a) == 2048);
    CHECK_HEAP(h);
    CHECK(shoal_heap_resize(h, c, 62 * KiB) == 0); /* to the very end */
    CHECK(stats(h).free == 0 && stats(h).largest_free == 0);
    CHECK(shoal_heap_alloc(h, 64, 64, &d) == -1);
    CHECK_HEAP(h);

    /* Shrink with a used neighbour: a new free block appears. */
    CHECK(shoal_heap_resize(h, a, 64) == 0);
    CHECK(stats(h).largest_free == 1984 && stats(h).used == 64 + 62 * KiB);
    CHECK_HEAP(h);
    /* Shrink with a free neighbour: the tail merges into it. */
    CHECK(shoal_heap_resize(h, c, 1 * KiB) == 0);
    CHECK(stats(h).largest_free == 61 * KiB);
    CHECK_HEAP(h);
    /* Grow that takes exactly the whole free neighbour. */
    CHECK(shoal_heap_resize(h, a, 2048) == 0);
    CHECK(stats(h).largest_free == 61 * KiB && stats(h).nblocks == 2);
    CHECK_HEAP(h);
    CHECK(shoal_heap_alloc(h, 64, 64, &d) == 0 && d == 3 * KiB); /* shrunk tail */
    CHECK(shoal_heap_free(h, d) == 0);
    CHECK(shoal_heap_free(h, c) == 0 && shoal_heap_free(h, a) == 0);
    check_empty(h, 64 * KiB);
    shoal_heap_destroy(h);
    puts("resize: ok");
}

static void test_oom(void)
{
    const size_t total = 1 * MiB;
    struct shoal_heap *h = shoal_heap_create(0, total);
    size_t a, b, x;
    CHECK(shoal_heap_alloc(h, total + 1, 64, &x) == -1);
    CHECK(shoal_heap_alloc(h, SIZE_MAX, 64, &x) == -1);
    CHECK(shoal_heap_alloc(h, SIZE_MAX - 62, 64, &x) == -1);
    /* Offset 0 is a multiple of every alignment. */
    CHECK(shoal_heap_alloc(h, 64, (size_t)1 << (sizeof(size_t) * 8 - 1), &x) == 0 && x == 0);
    CHECK(shoal_heap_free(h, x) == 0);
    CHECK(shoal_heap_alloc(h, total, 64, &a) == 0 && a == 0);
    struct shoal_heap_stats st = stats(h);
    CHECK(st.used == total && st.free == 0 && st.largest_free == 0 && st.nblocks == 1);
    CHECK(shoal_heap_alloc(h, 1, 1, &x) == -1);
    CHECK(stats_eq(st, stats(h)));
    CHECK(shoal_heap_free(h, a) == 0);
    /* Fragmented: plenty free in total, no single run fits. */
    size_t offs[256];
    for (int k = 0; k < 256; k++)
        CHECK(shoal_heap_alloc(h, 4 * KiB, 64, &offs[k]) == 0);
    for (int k = 0; k < 256; k += 2)
        CHECK(shoal_heap_free(h, offs[k]) == 0);
    st = stats(h);
    CHECK(st.free == total / 2 && st.largest_free == 4 * KiB && st.nblocks == 128);
    CHECK(shoal_heap_alloc(h, 4 * KiB + 1, 64, &x) == -1);
    CHECK(shoal_heap_alloc(h, 4 * KiB, 8 * KiB, &x) == 0 && x % (8 * KiB) == 0);
    CHECK(shoal_heap_alloc(h, 4 * KiB, 8 * KiB, &b) == 0 && b % (8 * KiB) == 0 && b != x);
    CHECK(shoal_heap_alloc(h, 4 * KiB, 16 * KiB, &b) == 0 && b % (16 * KiB) == 0);
    CHECK_HEAP(h);
    shoal_heap_destroy(h);
    puts("out of memory: ok");
}

static void test_large_align(void)
{
    size_t a, b, c;
    struct shoal_heap *h = shoal_heap_create(0, 64 * MiB);
    CHECK(shoal_heap_alloc(h, 64, 64, &a) == 0 && a == 0);
    CHECK(shoal_heap_alloc(h, 100, 4 * KiB, &b) == 0 && b == 4 * KiB);
    CHECK(shoal_heap_alloc(h, 3 * MiB, 2 * MiB, &c) == 0 && c == 2 * MiB);
    CHECK(stats(h).used == 64 + 128 + 3 * MiB && stats(h).nblocks == 3);
    CHECK_HEAP(h);
    /* The leading fragments stay usable. */
    CHECK(shoal_heap_alloc(h, 4 * KiB - 64, 64, &a) == 0 && a == 64);
    CHECK_HEAP(h);
    shoal_heap_destroy(h);

    /* Exactly one aligned spot: the fast path cannot prove a fit, the
     * fallback must still find it. */
    h = shoal_heap_create(0, 3 * MiB);
    CHECK(shoal_heap_alloc(h, 2 * MiB, 2 * MiB, &a) == 0 && a == 0);
    CHECK(shoal_heap_alloc(h, 1 * MiB + 64, 2 * MiB, &b) == -1);
    CHECK(shoal_heap_alloc(h, 1 * MiB, 2 * MiB, &b) == 0 && b == 2 * MiB);
    CHECK(stats(h).free == 0);
    CHECK(shoal_heap_free(h, a) == 0 && shoal_heap_free(h, b) == 0);
    CHECK(shoal_heap_alloc(h, 64, 64, &a) == 0 && a == 0);
    CHECK(shoal_heap_alloc(h, 1 * MiB, 2 * MiB, &b) == 0 && b == 2 * MiB);
    CHECK(shoal_heap_alloc(h, 2 * MiB - 64, 64, &c) == 0 && c == 64);
    CHECK(stats(h).free == 0);
    CHECK_HEAP(h);
    shoal_heap_destroy(h);

    /* Alignment is of the absolute offset, even when larger than the heap. */
    h = shoal_heap_create(2 * MiB - 4 * KiB, 64 * KiB);
    CHECK(shoal_heap_alloc(h, 4 * KiB, 2 * MiB, &a) == 0 && a == 2 * MiB);
    CHECK(shoal_heap_alloc(h, 4 * KiB, 4 * MiB, &b) == -1);
    CHECK(shoal_heap_alloc(h, 64, (size_t)1 << (sizeof(size_t) * 8 - 1), &b) == -1);
    CHECK_HEAP(h);
    shoal_heap_destroy(h);
    puts("large alignment: ok");
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void test_huge(void)
{
    if (sizeof(size_t) < 8)
        return;
    const size_t total = (size_t)1 << 44, n = 1000000;
    struct shoal_heap *h = shoal_heap_create(0, total);
    size_t *offs = malloc(n * sizeof *offs), big, x;
    CHECK(h && offs);
    CHECK(shoal_heap_alloc(h, total / 2, 1 * GiB, &big) == 0 && big == 0);
    double t0 = now();
    rng_seed(7);
    for (size_t k = 0; k < n; k++) {
        size_t size = k % 3 ? 64 : 64 + rnd(16 * KiB);
        CHECK(shoal_heap_alloc(h, size, 64, &offs[k]) == 0);
    }
    double t1 = now();
    CHECK(stats(h).nblocks == n + 1);
    CHECK_HEAP(h);
    for (size_t k = n - 1; k > 0; k--) {
        size_t j = rnd(k + 1), t = offs[k];
        offs[k] = offs[j];
        offs[j] = t;
    }
    double t2 = now();
    for (size_t k = 0; k < n; k++)
        CHECK(shoal_heap_free(h, offs[k]) == 0);
    double t3 = now();
    CHECK(shoal_heap_alloc(h, total / 2 + 64, 64, &x) == -1);
    CHECK(shoal_heap_alloc(h, total / 2, 64, &x) == 0 && x == total / 2);
    CHECK(shoal_heap_free(h, x) == 0 && shoal_heap_free(h, big) == 0);
    check_empty(h, total);
    printf("huge heap (2^44 bytes, 10^6 blocks): ok  alloc %.0f ns/op, random free %.0f ns/op\n",
           (t1 - t0) * 1e9 / (double)n, (t3 - t2) * 1e9 / (double)n);
    free(offs);
    shoal_heap_destroy(h);
}

/* 10^5 random operations, every result checked against the model. */
static void test_stress(uint64_t seed)
{
    const size_t base = 3 * MiB + 192, total = 16 * MiB, ops = 100000;
    struct shoal_heap *h = shoal_heap_create(base, total);
    struct model m;
    size_t nfail = 0, nfree = 0, nresize = 0, nresize_fail = 0;
    model_init(&m, base, total, total / 64);
    rng_seed(seed);
    for (size_t op = 0; op < ops; op++) {
        size_t r = rnd(100);
        if (r < 50 || m.nlive == 0) {
            size_t size, align = 64, off = 0;
            size_t kind = rnd(100);
            if (kind < 60)
                size = 1 + rnd(512); /* small */
            else if (kind < 90)
                size = 1 + rnd(16 * KiB);
            else if (kind < 99)
                size = 1 + rnd(512 * KiB);
            else
                size = 1 + rnd(4 * MiB); /* large arrays */
            if (rnd(4) == 0)
                align = (size_t)1 << rnd(22);
            int rc = shoal_heap_alloc(h, size, align, &off);
            int fits;
            if (rc == 0) {
                CHECK(off % (align < 64 ? 64 : align) == 0);
                CHECK(shoal_heap_block_size(h, off) == up64(size));
                model_add(&m, off, up64(size)); /* checks overlap and range */
            } else {
                /* Exhaustion is only reported when the model agrees. */
                model_runs(&m, up64(size), align < 64 ? 64 : align, &fits);
                CHECK(!fits);
                nfail++;
            }
        } else if (r < 85) {
            size_t v = rnd(m.nlive);
            CHECK(shoal_heap_free(h, m.off[v]) == 0);
            model_remove(&m, v);
            nfree++;
        } else if (r < 97) {
            size_t v = rnd(m.nlive), cur = m.size[v];
            size_t want = rnd(2) ? 1 + rnd(cur) : cur + 1 + rnd(64 * KiB);
            size_t nw = up64(want), gap = 0;
            for (size_t u = (m.off[v] + cur - base) / 64; u < m.units && !m.owner[u] && gap < nw;
                 u++)
                gap += 64;
            int expect = nw <= cur || nw - cur <= gap ? 0 : -1;
            struct shoal_heap_stats before = stats(h);
            CHECK(shoal_heap_resize(h, m.off[v], want) == expect);
            nresize++;
            if (expect == 0) {
                size_t off = m.off[v];
                model_remove(&m, v);
                model_add(&m, off, nw);
            } else {
                CHECK(stats_eq(before, stats(h)));
                nresize_fail++;
            }
        } else {
            size_t v = rnd(m.nlive);
            size_t bad = rnd(2) ? m.off[v] + 64 * (1 + rnd(4)) : base + 64 * rnd(m.units);
            int live = bad < base + total && m.owner[(bad - base) / 64] &&
                       m.off[m.owner[(bad - base) / 64] - 1] == bad;
            CHECK(shoal_heap_free(h, bad) == (live ? 0 : -1));
            if (live)
                model_remove(&m, m.owner[(bad - base) / 64] - 1);
        }
        if (op % 2000 == 0)
            model_compare(h, &m);
    }
    model_compare(h, &m);
    while (m.nlive) {
        size_t v = rnd(m.nlive);
        CHECK(shoal_heap_free(h, m.off[v]) == 0);
        model_remove(&m, v);
    }
    check_empty(h, total);
    printf("stress seed %" PRIu64 " (%zu ops: %zu alloc failures, %zu frees, %zu resizes, "
           "%zu refused): ok\n",
           seed, ops, nfail, nfree, nresize, nresize_fail);
    model_fini(&m);
    shoal_heap_destroy(h);
}

int main(void)
{
    test_basic();
    test_alignment();
    for (int o = FIFO; o <= RANDOM; o++) {
        test_coalesce((enum order)o, 0);
        test_coalesce((enum order)o, 1);
    }
    test_determinism();
    test_invalid_free();
    test_resize();
    test_oom();
    test_large_align();
    test_stress(1);
    test_stress(20240601);
    test_huge();
    puts("heap_alloc: all tests passed");
    return 0;
}
