/* Symmetric-heap allocator: two-level segregated fit (TLSF) over offsets.
 *
 * Every block, free or allocated, is a node in a private, malloc'd pool and
 * sits in a doubly linked list in address order, so free() finds both
 * neighbours in O(1) and coalesces at once: two free blocks are never
 * adjacent.  Free blocks are also on one of FL_COUNT x SL_COUNT segregated
 * lists (size classes); two bitmaps say which lists are non-empty, so the
 * first non-empty class at or above a size is two find-first-set operations.
 * Allocated blocks are found by offset through a chained hash table.
 *
 * Nothing here reads or writes the managed range: a remote put that overruns
 * a buffer cannot corrupt the allocator.  Nothing depends on addresses,
 * timing or randomness, so equal call sequences give equal offsets in every
 * process.  Node indices are 32-bit to keep nodes small (40 bytes); that caps
 * a heap at ~4e9 blocks, far beyond what the private pool could hold anyway. */
#include "core/memory/heap_alloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define GRAN ((size_t)64) /* cache line: every offset and size */
#define GRAN_SH 6
#define SL_BITS 5
#define SL_COUNT (1u << SL_BITS)
#define FL_COUNT 64
#define NIL UINT32_MAX
/* Probes per size class before giving up on it in the fast path: enough to
 * reuse exact-size holes (the common "many equal buffers" pattern) while
 * keeping alloc O(1). */
#define PROBES 8

struct blk {
    size_t off, size;
    uint32_t prev_phys, next_phys; /* address order, all blocks */
    uint32_t prev_free, next_free; /* class list when free; next_free is the
                                        hash chain when allocated and the
                                        spare-node stack when unused */
    uint32_t is_free;
};

struct shoal_heap {
    size_t base, total, used, nblocks;
    struct blk *n;                    /* node pool */
    uint32_t cap, hwm, spare, nspare; /* hwm: nodes ever handed out */
    uint32_t *bucket;                 /* hash: allocated blocks by offset */
    size_t nbucket;                   /* power of two */
    unsigned hbits;
    uint64_t fl_map;
    uint32_t sl_map[FL_COUNT];
    uint32_t head[FL_COUNT][SL_COUNT];
};

static unsigned msb64(uint64_t x)
{
    return 63u - (unsigned)__builtin_clzll(x);
}

/* ---- size classes ---- */

/* Class holding a block of `size` bytes.  Classes below SL_COUNT granules
 * are exact; above, each power-of-two range is split into SL_COUNT lists. */
static void class_of(size_t size, unsigned *fl, unsigned *sl)
{
    uint64_t u = (uint64_t)(size >> GRAN_SH);
    if (u < SL_COUNT) {
        *fl = 0;
        *sl = (unsigned)u;
    } else {
        unsigned m = msb64(u);
        *fl = m - SL_BITS + 1;
        *sl = (unsigned)(u >> (m - SL_BITS)) - SL_COUNT;
    }
}

/* First class all of whose blocks are >= size, as fl*SL_COUNT+sl. */
static unsigned class_all_fit(size_t size)
{
    uint64_t u = (uint64_t)(size >> GRAN_SH);
    unsigned fl, sl;
    if (u >= SL_COUNT)
        u += ((uint64_t)1 << (msb64(u) - SL_BITS)) - 1;
    class_of((size_t)(u << GRAN_SH), &fl, &sl);
    return fl * SL_COUNT + sl;
}

/* First non-empty class with index >= ci, or FL_COUNT*SL_COUNT if none. */
static unsigned next_class(const struct shoal_heap *h, unsigned ci)
{
    unsigned fl = ci / SL_COUNT, sl = ci % SL_COUNT;
    if (fl >= FL_COUNT)
        return FL_COUNT * SL_COUNT;
    uint32_t m = h->sl_map[fl] & (~0u << sl);
    if (!m) {
        uint64_t fm = fl + 1 < FL_COUNT ? h->fl_map & (~0ull << (fl + 1)) : 0;
        if (!fm)
            return FL_COUNT * SL_COUNT;
        fl = (unsigned)__builtin_ctzll(fm);
        m = h->sl_map[fl];
    }
    return fl * SL_COUNT + (unsigned)__builtin_ctz(m);
}

static void fi_insert(struct shoal_heap *h, uint32_t i)
{
    unsigned fl, sl;
    class_of(h->n[i].size, &fl, &sl);
    uint32_t old = h->head[fl][sl];
    /* LIFO: the most recently freed block of a class is reused first, which
     * keeps repeated alloc/free of one size on the same offsets. */
    h->n[i].is_free = 1;
    h->n[i].prev_free = NIL;
    h->n[i].next_free = old;
    if (old != NIL)
        h->n[old].prev_free = i;
    h->head[fl][sl] = i;
    h->sl_map[fl] |= 1u << sl;
    h->fl_map |= 1ull << fl;
}

static void fi_remove(struct shoal_heap *h, uint32_t i)
{
    unsigned fl, sl;
    struct blk *b = &h->n[i];
    class_of(b->size, &fl, &sl);
    if (b->prev_free != NIL)
        h->n[b->prev_free].next_free = b->next_free;
    else
        h->head[fl][sl] = b->next_free;
    if (b->next_free != NIL)
        h->n[b->next_free].prev_free = b->prev_free;
    if (h->head[fl][sl] == NIL) {
        h->sl_map[fl] &= ~(1u << sl);
        if (!h->sl_map[fl])
            h->fl_map &= ~(1ull << fl);
    }
    b->is_free = 0;
    b->prev_free = b->next_free = NIL;
}

/* ---- node pool ---- */

/* Reserves k nodes up front so that an operation either fails before it
 * changes anything or cannot fail at all. */
static int reserve(struct shoal_heap *h, uint32_t k)
{
    if (h->nspare + (h->cap - h->hwm) >= k)
        return 0;
    uint64_t want = (uint64_t)h->cap * 2;
    if (want < (uint64_t)h->hwm + k)
        want = (uint64_t)h->hwm + k;
    if (want > (uint64_t)NIL)
        want = NIL; /* NIL itself stays out of range */
    if (want < (uint64_t)h->hwm + k || want > SIZE_MAX / sizeof(struct blk))
        return -1;
    struct blk *n = realloc(h->n, (size_t)want * sizeof *n);
    if (!n)
        return -1;
    h->n = n;
    h->cap = (uint32_t)want;
    return 0;
}

static uint32_t node_get(struct shoal_heap *h)
{
    uint32_t i;
    if (h->spare != NIL) {
        i = h->spare;
        h->spare = h->n[i].next_free;
        h->nspare--;
    } else {
        i = h->hwm++; /* reserve() guaranteed room */
    }
    h->n[i] = (struct blk){0, 0, NIL, NIL, NIL, NIL, 0};
    return i;
}

static void node_put(struct shoal_heap *h, uint32_t i)
{
    h->n[i].next_free = h->spare;
    h->n[i].size = 0;
    h->spare = i;
    h->nspare++;
}

/* Puts node j right after i in address order. */
static void link_after(struct shoal_heap *h, uint32_t i, uint32_t j)
{
    uint32_t nx = h->n[i].next_phys;
    h->n[j].prev_phys = i;
    h->n[j].next_phys = nx;
    h->n[i].next_phys = j;
    if (nx != NIL)
        h->n[nx].prev_phys = j;
}

static void unlink_phys(struct shoal_heap *h, uint32_t i)
{
    uint32_t p = h->n[i].prev_phys, nx = h->n[i].next_phys;
    if (p != NIL)
        h->n[p].next_phys = nx;
    if (nx != NIL)
        h->n[nx].prev_phys = p;
}

/* ---- offset -> allocated block ---- */

static size_t hash_of(const struct shoal_heap *h, size_t off)
{
    /* Fibonacci hashing: offsets are multiples of 64 and often of large
     * powers of two, which a plain modulo would pile into few buckets. */
    return (size_t)(((uint64_t)(off >> GRAN_SH) * 0x9E3779B97F4A7C15ull) >> (64 - h->hbits));
}

static uint32_t *hash_slot(const struct shoal_heap *h, size_t off)
{
    uint32_t *p = &h->bucket[hash_of(h, off)];
    while (*p != NIL && h->n[*p].off != off)
        p = &h->n[*p].next_free;
    return p;
}

static void hash_grow(struct shoal_heap *h)
{
    if (h->hbits >= 40)
        return;
    size_t nb = h->nbucket * 2;
    uint32_t *b = malloc(nb * sizeof *b);
    if (!b)
        return; /* chains just get longer; lookups stay correct */
    memset(b, 0xff, nb * sizeof *b);
    uint32_t *old = h->bucket;
    size_t oldn = h->nbucket;
    h->bucket = b;
    h->nbucket = nb;
    h->hbits++;
    for (size_t k = 0; k < oldn; k++) {
        for (uint32_t i = old[k], nx; i != NIL; i = nx) {
            nx = h->n[i].next_free;
            size_t s = hash_of(h, h->n[i].off);
            h->n[i].next_free = b[s];
            b[s] = i;
        }
    }
    free(old);
}

static void hash_insert(struct shoal_heap *h, uint32_t i)
{
    if (h->nblocks > h->nbucket)
        hash_grow(h);
    size_t s = hash_of(h, h->n[i].off);
    h->n[i].next_free = h->bucket[s];
    h->bucket[s] = i;
}

/* ---- public ---- */

struct shoal_heap *shoal_heap_create(size_t base, size_t size)
{
    struct shoal_heap *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    /* The contract says both are multiples of 64; trim rather than trust,
     * so that no offset handed out can ever leave the range. */
    size_t b = (base + GRAN - 1) & ~(GRAN - 1);
    if (b < base) {
        b = base;
        size = 0;
    }
    size = size > b - base ? size - (b - base) : 0;
    if (size > SIZE_MAX - b)
        size = SIZE_MAX - b;
    size &= ~(GRAN - 1);
    h->base = b;
    h->total = size;
    h->spare = NIL;
    h->hbits = 8;
    h->nbucket = (size_t)1 << h->hbits;
    h->bucket = malloc(h->nbucket * sizeof *h->bucket);
    memset(h->head, 0xff, sizeof h->head);
    if (!h->bucket || reserve(h, 64)) {
        shoal_heap_destroy(h);
        return NULL;
    }
    memset(h->bucket, 0xff, h->nbucket * sizeof *h->bucket);
    if (size) {
        uint32_t i = node_get(h);
        h->n[i].off = b;
        h->n[i].size = size;
        fi_insert(h, i);
    }
    return h;
}

void shoal_heap_destroy(struct shoal_heap *h)
{
    if (!h)
        return;
    free(h->n);
    free(h->bucket);
    free(h);
}

/* Does free block i hold `size` bytes starting at a multiple of align? */
static bool fits(const struct shoal_heap *h, uint32_t i, size_t size, size_t align)
{
    const struct blk *b = &h->n[i];
    size_t pad = (align - (b->off & (align - 1))) & (align - 1);
    return pad <= b->size && b->size - pad >= size;
}

/* Scans classes [lo, hi) in increasing order, `limit` blocks per class. */
static uint32_t scan(const struct shoal_heap *h, unsigned lo, unsigned hi, size_t size,
                     size_t align, size_t limit)
{
    for (unsigned c = next_class(h, lo); c < hi; c = next_class(h, c + 1)) {
        size_t k = 0;
        for (uint32_t i = h->head[c / SL_COUNT][c % SL_COUNT]; i != NIL && k < limit;
             i = h->n[i].next_free, k++)
            if (fits(h, i, size, align))
                return i;
    }
    return NIL;
}

static uint32_t find_fit(const struct shoal_heap *h, size_t size, size_t align)
{
    unsigned fl, sl, lo, hi, c;
    class_of(size, &fl, &sl);
    lo = fl * SL_COUNT + sl;
    /* Worst-case padding for alignment: a block of size+align-64 bytes
     * always has an aligned start with `size` bytes after it. */
    size_t need = size + (align - GRAN);
    hi = need >= size && (need >> GRAN_SH) < ((uint64_t)1 << 58) ? class_all_fit(need)
                                                                 : FL_COUNT * SL_COUNT;
    /* Fast path: a bounded look into the classes that may or may not fit
     * (exact-size holes live there), then the head of the first class that
     * surely fits, the classic TLSF good-fit step. */
    uint32_t i = scan(h, lo, hi, size, align, PROBES);
    if (i != NIL)
        return i;
    c = next_class(h, hi);
    if (c < FL_COUNT * SL_COUNT)
        return h->head[c / SL_COUNT][c % SL_COUNT];
    /* Nothing surely fits: search the maybe-classes exhaustively, so that
     * the heap reports exhaustion only when no free block can hold the
     * request.  Only reached when the heap is nearly full or fragmented. */
    return scan(h, lo, hi, size, align, SIZE_MAX);
}

int shoal_heap_alloc(struct shoal_heap *h, size_t size, size_t align, size_t *off)
{
    if (!h || !off || size == 0 || (align & (align - 1)))
        return -1;
    if (align < GRAN)
        align = GRAN;
    if (size > h->total)
        return -1;
    size = (size + GRAN - 1) & ~(GRAN - 1);
    if (size > h->total - h->used || reserve(h, 2))
        return -1;
    uint32_t i = find_fit(h, size, align);
    if (i == NIL)
        return -1;
    fi_remove(h, i);
    struct blk *b = &h->n[i];
    size_t pad = (align - (b->off & (align - 1))) & (align - 1);
    /* The fragments split off need no coalescing: the neighbours of a free
     * block are never free. */
    if (pad) {
        uint32_t j = node_get(h);
        b = &h->n[i];
        h->n[j].off = b->off;
        h->n[j].size = pad;
        b->off += pad;
        b->size -= pad;
        if (b->prev_phys != NIL) {
            link_after(h, b->prev_phys, j);
        } else {
            b->prev_phys = j;
            h->n[j].next_phys = i;
        }
        fi_insert(h, j);
    }
    if (b->size > size) {
        uint32_t j = node_get(h);
        b = &h->n[i];
        h->n[j].off = b->off + size;
        h->n[j].size = b->size - size;
        b->size = size;
        link_after(h, i, j);
        fi_insert(h, j);
    }
    h->used += size;
    h->nblocks++;
    hash_insert(h, i);
    *off = h->n[i].off;
    return 0;
}

int shoal_heap_free(struct shoal_heap *h, size_t off)
{
    if (!h)
        return -1;
    uint32_t *slot = hash_slot(h, off);
    uint32_t i = *slot;
    if (i == NIL)
        return -1;
    *slot = h->n[i].next_free;
    h->used -= h->n[i].size;
    h->nblocks--;
    uint32_t p = h->n[i].prev_phys, nx = h->n[i].next_phys;
    if (p != NIL && h->n[p].is_free) {
        fi_remove(h, p);
        h->n[p].size += h->n[i].size;
        unlink_phys(h, i);
        node_put(h, i);
        i = p;
    }
    if (nx != NIL && h->n[nx].is_free) {
        fi_remove(h, nx);
        h->n[i].size += h->n[nx].size;
        unlink_phys(h, nx);
        node_put(h, nx);
    }
    fi_insert(h, i);
    return 0;
}

size_t shoal_heap_block_size(const struct shoal_heap *h, size_t off)
{
    if (!h)
        return 0;
    uint32_t i = *hash_slot(h, off);
    return i == NIL ? 0 : h->n[i].size;
}

int shoal_heap_resize(struct shoal_heap *h, size_t off, size_t size)
{
    if (!h || size == 0 || size > SIZE_MAX - (GRAN - 1))
        return -1;
    uint32_t i = *hash_slot(h, off);
    if (i == NIL)
        return -1;
    size = (size + GRAN - 1) & ~(GRAN - 1);
    size_t cur = h->n[i].size;
    uint32_t nx = h->n[i].next_phys;
    bool nfree = nx != NIL && h->n[nx].is_free;
    if (size < cur) {
        size_t tail = cur - size;
        if (nfree) {
            /* Moving the neighbour's start down keeps the heap coalesced
             * without a new node. */
            fi_remove(h, nx);
            h->n[nx].off -= tail;
            h->n[nx].size += tail;
            fi_insert(h, nx);
        } else {
            if (reserve(h, 1))
                return -1;
            uint32_t j = node_get(h);
            h->n[j].off = off + size;
            h->n[j].size = tail;
            link_after(h, i, j);
            fi_insert(h, j);
        }
        h->n[i].size = size;
        h->used -= tail;
    } else if (size > cur) {
        size_t extra = size - cur;
        if (!nfree || h->n[nx].size < extra)
            return -1;
        fi_remove(h, nx);
        if (h->n[nx].size == extra) {
            unlink_phys(h, nx);
            node_put(h, nx);
        } else {
            h->n[nx].off += extra;
            h->n[nx].size -= extra;
            fi_insert(h, nx);
        }
        h->n[i].size = size;
        h->used += extra;
    }
    return 0;
}

void shoal_heap_stats(const struct shoal_heap *h, struct shoal_heap_stats *st)
{
    if (!st)
        return;
    memset(st, 0, sizeof *st);
    if (!h)
        return;
    st->total = h->total;
    st->used = h->used;
    st->free = h->total - h->used;
    st->nblocks = h->nblocks;
    /* The largest block is in the highest non-empty class; only that one
     * list is walked (blocks within a class differ by < 1/32 of its size,
     * so the list order says nothing about which is largest). */
    if (h->fl_map) {
        unsigned fl = msb64(h->fl_map);
        unsigned sl = 31u - (unsigned)__builtin_clz(h->sl_map[fl]);
        for (uint32_t i = h->head[fl][sl]; i != NIL; i = h->n[i].next_free)
            if (h->n[i].size > st->largest_free)
                st->largest_free = h->n[i].size;
    }
}

#ifdef SHOAL_HEAP_SELFTEST
/* Full consistency check for the unit tests: O(n), never built into the
 * library.  Returns 0 when every invariant holds. */
int shoal_heap_check(const struct shoal_heap *h);
int shoal_heap_check(const struct shoal_heap *h)
{
    size_t used = 0, freeb = 0, nalloc = 0, nfree = 0, nlisted = 0, pos = h->base;
    uint32_t first = NIL;
    for (uint32_t k = 0; k < h->hwm; k++)
        if (h->n[k].size && h->n[k].prev_phys == NIL) {
            if (first != NIL)
                return 1; /* two list heads */
            first = k;
        }
    uint32_t prev = NIL;
    for (uint32_t i = first; i != NIL; prev = i, i = h->n[i].next_phys) {
        const struct blk *b = &h->n[i];
        if (b->prev_phys != prev || b->off != pos || !b->size || (b->size | b->off) % GRAN)
            return 2;
        if (b->is_free) {
            if (prev != NIL && h->n[prev].is_free)
                return 3; /* missed coalescing */
            freeb += b->size, nfree++;
        } else {
            if (*hash_slot(h, b->off) != i)
                return 4;
            used += b->size, nalloc++;
        }
        pos += b->size;
    }
    if (pos != h->base + h->total || used != h->used || nalloc != h->nblocks ||
        used + freeb != h->total)
        return 5;
    for (unsigned fl = 0; fl < FL_COUNT; fl++)
        for (unsigned sl = 0; sl < SL_COUNT; sl++) {
            uint32_t i = h->head[fl][sl], p = NIL;
            if ((i != NIL) != !!(h->sl_map[fl] & (1u << sl)))
                return 6;
            if (!!h->sl_map[fl] != !!(h->fl_map & (1ull << fl)))
                return 6;
            for (; i != NIL; p = i, i = h->n[i].next_free, nlisted++) {
                unsigned f, s;
                class_of(h->n[i].size, &f, &s);
                if (!h->n[i].is_free || h->n[i].prev_free != p || f != fl || s != sl)
                    return 7;
            }
        }
    return nlisted == nfree ? 0 : 8;
}
#endif
