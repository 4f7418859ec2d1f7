/* heap_alloc — the symmetric-heap allocator.  Pure bookkeeping over offsets:
 * it never touches the heap memory itself, so remote puts that overrun a
 * buffer cannot corrupt it, and it knows nothing about PEs.  Deterministic:
 * the same sequence of calls gives the same offsets in every process, which
 * is what makes shmem_malloc symmetric without communication.
 * Cost: alloc and free are O(1) on the fast path (two-level segregated fit
 * with bitmaps); only when that finds nothing (a nearly full or fragmented
 * heap, large alignments) does alloc search the candidate lists in full, so
 * that it fails only when no free block fits.  Coalescing is immediate.
 * Private metadata running out is reported as failure in this process only,
 * which breaks symmetry: callers treat it as fatal.  May call: libc only. */
#ifndef SHOAL_HEAP_ALLOC_H
#define SHOAL_HEAP_ALLOC_H
#include <stddef.h>
#include <stdint.h>

struct shoal_heap; /* opaque */

/* Manages [base, base+size).  base and size are multiples of 64.
 * Returns NULL only when out of (private) memory. */
struct shoal_heap *shoal_heap_create(size_t base, size_t size);
void shoal_heap_destroy(struct shoal_heap *h);

/* Smallest block of `size` bytes (size > 0) whose offset is a multiple of
 * `align` (a power of two; at least 64 is always honoured).  Returns 0 and
 * the offset in *off, or -1 when no free block fits. */
int shoal_heap_alloc(struct shoal_heap *h, size_t size, size_t align, size_t *off);

/* Frees the block starting at `off`.  Returns -1 (and changes nothing) if
 * `off` is not the start of an allocated block. */
int shoal_heap_free(struct shoal_heap *h, size_t off);

/* Usable size of the allocated block at `off`, 0 if there is none. */
size_t shoal_heap_block_size(const struct shoal_heap *h, size_t off);

/* Grows or shrinks the allocated block at `off` in place to `size` bytes.
 * Returns 0 on success, -1 if it cannot be done in place (nothing changed). */
int shoal_heap_resize(struct shoal_heap *h, size_t off, size_t size);

struct shoal_heap_stats {
    size_t total;        /* bytes managed */
    size_t used;         /* bytes in allocated blocks */
    size_t free;         /* total - used */
    size_t largest_free; /* largest single free block */
    size_t nblocks;      /* allocated blocks */
};
void shoal_heap_stats(const struct shoal_heap *h, struct shoal_heap_stats *st);

#endif
