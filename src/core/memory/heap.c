/* The symmetric heap as the user sees it: collective allocation over the
 * deterministic allocator (heap_alloc.c), the barriers the spec asks for,
 * and the SHMEM_DEBUG symmetry check. */
#include "core/memory/heap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "core/config/log.h"
#include "core/teams/sync.h"
#include "core/config/error.h"
#include "core/memory/heap_alloc.h"
#include "core/state.h"

static struct shoal_heap *heap;

int shoal_heap_setup(void)
{
    heap = shoal_heap_create(SHOAL_CTL_SIZE, shoal_g.heap_size - SHOAL_CTL_SIZE);
    return heap ? 0 : -1;
}

void shoal_heap_teardown(void)
{
    shoal_heap_destroy(heap);
    heap = NULL;
}

void shoal_heap_usage(size_t *used, size_t *free_bytes, size_t *largest)
{
    struct shoal_heap_stats st = {0};
    if (heap)
        shoal_heap_stats(heap, &st);
    *used = st.used;
    *free_bytes = st.free;
    *largest = st.largest_free;
}

/* SHMEM_DEBUG: every PE must have made the same allocation. */
static void check_symmetric(const char *fn, size_t size, long long off)
{
    struct {
        long long size, off;
    } mine = {(long long)size, off}, *all;
    int n = shoal_g.n_pes;
    all = calloc((size_t)n, sizeof *all);
    if (!all || shoal_g.boot->allgather(&mine, all, sizeof mine) < 0)
        shoal_fatal(fn, "SHMEM_DEBUG symmetry check: bootstrap allgather failed");
    for (int pe = 0; pe < n; pe++) {
        if (all[pe].size == mine.size && all[pe].off == mine.off)
            continue;
        if (size == 0) /* a free: only the block identifies the call */
            shoal_fatal(fn,
                        "free is not symmetric: PE %d frees the block at heap offset %lld, "
                        "PE %d the block at offset %lld; every PE must free the same block",
                        pe, all[pe].off, shoal_g.my_pe, mine.off);
        shoal_fatal(fn,
                    "allocation is not symmetric: PE %d asked for %lld bytes (heap offset "
                    "%lld), PE %d for %lld bytes (offset %lld); every PE must make the same "
                    "allocation calls with the same arguments",
                    pe, all[pe].size, all[pe].off, shoal_g.my_pe, mine.size, mine.off);
    }
    free(all);
}

static void report_oom(const char *fn, size_t size)
{
    size_t used, fr, largest;
    shoal_heap_usage(&used, &fr, &largest);
    /* Suggest a heap that holds what is in use plus this request, with
     * room for fragmentation, rounded up to MiB. */
    size_t mib = (size_t)1 << 20, want = used + size;
    want = want > SIZE_MAX / 2 ? SIZE_MAX / mib : (want + want / 2 + mib - 1) / mib;
    if (shoal_g.my_pe == 0)
        shoal_warn(fn,
                   "out of symmetric memory: asked for %zu bytes; %zu bytes free (largest free "
                   "block %zu) of %zu; raise SHMEM_SYMMETRIC_SIZE (e.g. SHMEM_SYMMETRIC_SIZE=%zuM)",
                   size, fr, largest, shoal_g.user_heap_size, want);
}

static void *sym_alloc(size_t size, size_t align, int zero, const char *fn)
{
    shoal_check_init(fn);
    if (size == 0)
        return NULL;
    size_t off;
    int rc = shoal_heap_alloc(heap, size, align, &off);
    if (shoal_g.debug)
        check_symmetric(fn, size, rc == 0 ? (long long)off : -1);
    /* Zero before the barrier: once it is passed, a peer may already be
     * writing into this block. */
    if (zero && rc == 0)
        memset(shoal_g.heap_me + off, 0, size);
    shoal_barrier_all_internal(fn);
    if (rc < 0) {
        SHOAL_LOG(SHOAL_LOG_HEAP, SHOAL_LOG_WARN, "%s: %zu bytes: the heap is exhausted", fn, size);
        report_oom(fn, size);
        return NULL;
    }
    SHOAL_LOG(SHOAL_LOG_HEAP, SHOAL_LOG_DEBUG, "%s: %zu bytes at offset %zu (alignment %zu)", fn,
              size, off, align);
    return shoal_g.heap_me + off;
}

void *shoal_sym_alloc(size_t size, size_t align, const char *fn)
{
    return sym_alloc(size, align, 0, fn);
}

void *shoal_sym_calloc(size_t size, const char *fn)
{
    return sym_alloc(size, 64, 1, fn);
}

/* Is ptr a live block of the heap?  Its offset in *off. */
static int live_block(void *ptr, size_t *off)
{
    *off = (size_t)((char *)ptr - shoal_g.heap_me);
    return (char *)ptr >= shoal_g.heap_me + SHOAL_CTL_SIZE && *off < shoal_g.heap_size &&
           shoal_heap_block_size(heap, *off) != 0;
}

#define NOT_A_BLOCK                                                                              \
    "argument 'ptr' = %p is not a block allocated by shmem_malloc and not yet freed (symmetric " \
    "heap [%p, %p))"

/* The heap offset of a pointer the user passes back, checked. */
static size_t block_of(void *ptr, const char *fn)
{
    size_t off;
    if (!live_block(ptr, &off))
        shoal_fatal(fn, NOT_A_BLOCK, ptr, (void *)(shoal_g.heap_me + SHOAL_CTL_SIZE),
                    (void *)(shoal_g.heap_me + shoal_g.heap_size));
    return off;
}

void shoal_sym_free(void *ptr, const char *fn)
{
    shoal_check_init(fn);
    if (!ptr)
        return;
    size_t off = block_of(ptr, fn);
    if (shoal_g.debug)
        check_symmetric(fn, 0, (long long)off);
    shoal_barrier_all_internal(fn);
    shoal_heap_free(heap, off);
}

/* The new block (or ptr itself, resized), NULL when the heap has no room:
 * what every PE computes alike between realloc's two barriers. */
static void *move_block(void *ptr, size_t off, size_t size, int *rc, size_t *noff)
{
    size_t old = shoal_heap_block_size(heap, off);
    *noff = off;
    if (shoal_heap_resize(heap, off, size) == 0)
        return ptr;
    if ((*rc = shoal_heap_alloc(heap, size, 64, noff)) != 0)
        return NULL;
    void *result = shoal_g.heap_me + *noff;
    memcpy(result, ptr, old < size ? old : size);
    shoal_heap_free(heap, off);
    return result;
}

void *shoal_sym_realloc(void *ptr, size_t size, const char *fn)
{
    shoal_check_init(fn);
    if (!ptr)
        return shoal_sym_alloc(size, 64, fn);
    if (size == 0) {
        shoal_sym_free(ptr, fn);
        return NULL;
    }
    /* A pointer that is no longer a block (freed, say) gives NULL on
     * every PE, as Open MPI documents, with a line from PE 0; under
     * SHMEM_DEBUG it is the error it is.  The barriers still run: every PE
     * takes the same number of them whatever its pointer. */
    size_t off, noff = 0;
    int valid = live_block(ptr, &off), rc = 0;
    if (!valid && shoal_g.debug)
        (void)block_of(ptr, fn);
    if (!valid && shoal_g.my_pe == 0)
        shoal_warn(fn, NOT_A_BLOCK "; returning NULL", ptr,
                   (void *)(shoal_g.heap_me + SHOAL_CTL_SIZE),
                   (void *)(shoal_g.heap_me + shoal_g.heap_size));
    /* Entry barrier: nobody may still be writing the old block when it
     * moves. */
    shoal_barrier_all_internal(fn);
    void *result = valid ? move_block(ptr, off, size, &rc, &noff) : NULL;
    if (shoal_g.debug)
        check_symmetric(fn, size, rc == 0 ? (long long)noff : -1);
    shoal_barrier_all_internal(fn);
    if (!result && valid)
        report_oom(fn, size);
    return result;
}
