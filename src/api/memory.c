/* Memory management: the symmetric heap routines (collective). */
#include "api/export.h"
#include "core/memory/heap.h"
#include "core/ops.h"
#include "core/profile/profile.h"

/* The heap's natural alignment: what shmem_malloc gives every block. */
#define NATURAL_ALIGN 64

SHOAL_EXPORT void *pshmem_malloc(size_t size)
{
    void *p;
    SHOAL_PROFILED(SHOAL_PROF_ALLOC, size,
                   p = shoal_sym_alloc(size, NATURAL_ALIGN, "shmem_malloc"));
    return p;
}
SHOAL_WEAK_ALIAS(shmem_malloc, pshmem_malloc)

SHOAL_EXPORT void *pshmem_malloc_with_hints(size_t size, long hints)
{
    /* Every hint is satisfiable on-node: all memory takes CPU atomics and
     * signals equally well, so the hints only have to be valid. */
    if (hints & ~(long)(SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE))
        shoal_warn("shmem_malloc_with_hints", "argument 'hints' = %#lx has unknown bits; ignored",
                   hints);
    void *p;
    SHOAL_PROFILED(SHOAL_PROF_ALLOC, size,
                   p = shoal_sym_alloc(size, NATURAL_ALIGN, "shmem_malloc_with_hints"));
    return p;
}
SHOAL_WEAK_ALIAS(shmem_malloc_with_hints, pshmem_malloc_with_hints)

SHOAL_EXPORT void *pshmem_calloc(size_t count, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(count, size, &total)) {
        /* Every PE sees the same overflow, so every PE returns NULL. */
        shoal_warn("shmem_calloc", "count %zu x size %zu overflows size_t", count, size);
        return NULL;
    }
    void *p;
    SHOAL_PROFILED(SHOAL_PROF_ALLOC, total, p = shoal_sym_calloc(total, "shmem_calloc"));
    return p;
}
SHOAL_WEAK_ALIAS(shmem_calloc, pshmem_calloc)

/* The spec calls an alignment that is not a power-of-two multiple of
 * sizeof(void *) undefined, but every other implementation accepts any
 * power of two and programs pass 1, 2 and 4: a block aligned to 64 is
 * aligned to those too.  Anything else is the spec's "otherwise, it returns
 * a null pointer": every PE passes the same argument, so every PE returns
 * NULL here without allocating and the heaps stay in step. */
static void *aligned(size_t alignment, size_t size, const char *fn)
{
    if (alignment == 0 || (alignment & (alignment - 1))) {
        shoal_check_init(fn);
        if (shoal_g.my_pe == 0) /* one line per call, as for an exhausted heap */
            shoal_warn(fn, "argument 'alignment' = %zu is not a power of two; returning NULL",
                       alignment);
        return NULL;
    }
    return shoal_sym_alloc(size, alignment > NATURAL_ALIGN ? alignment : NATURAL_ALIGN, fn);
}

SHOAL_EXPORT void *pshmem_align(size_t alignment, size_t size)
{
    void *p;
    SHOAL_PROFILED(SHOAL_PROF_ALLOC, size, p = aligned(alignment, size, "shmem_align"));
    return p;
}
SHOAL_WEAK_ALIAS(shmem_align, pshmem_align)

SHOAL_EXPORT void *pshmem_realloc(void *ptr, size_t size)
{
    void *p;
    SHOAL_PROFILED(SHOAL_PROF_ALLOC, size, p = shoal_sym_realloc(ptr, size, "shmem_realloc"));
    return p;
}
SHOAL_WEAK_ALIAS(shmem_realloc, pshmem_realloc)

SHOAL_EXPORT void pshmem_free(void *ptr)
{
    SHOAL_PROFILED(SHOAL_PROF_ALLOC, 0, shoal_sym_free(ptr, "shmem_free"));
}
SHOAL_WEAK_ALIAS(shmem_free, pshmem_free)

/* Deprecated names (1.0). */
SHOAL_EXPORT void *pshmalloc(size_t size)
{
    void *p;
    SHOAL_PROFILED(SHOAL_PROF_ALLOC, size, p = shoal_sym_alloc(size, NATURAL_ALIGN, "shmalloc"));
    return p;
}
SHOAL_WEAK_ALIAS(shmalloc, pshmalloc)
SHOAL_EXPORT void pshfree(void *ptr)
{
    SHOAL_PROFILED(SHOAL_PROF_ALLOC, 0, shoal_sym_free(ptr, "shfree"));
}
SHOAL_WEAK_ALIAS(shfree, pshfree)
SHOAL_EXPORT void *pshrealloc(void *ptr, size_t size)
{
    void *p;
    SHOAL_PROFILED(SHOAL_PROF_ALLOC, size, p = shoal_sym_realloc(ptr, size, "shrealloc"));
    return p;
}
SHOAL_WEAK_ALIAS(shrealloc, pshrealloc)
SHOAL_EXPORT void *pshmemalign(size_t alignment, size_t size)
{
    void *p;
    SHOAL_PROFILED(SHOAL_PROF_ALLOC, size, p = aligned(alignment, size, "shmemalign"));
    return p;
}
SHOAL_WEAK_ALIAS(shmemalign, pshmemalign)
