/* Memory management: the symmetric heap routines (collective). */
#include "api/prof.h"
#include "core/heap.h"
#include "core/ops.h"

SHOAL_EXPORT void *pshmem_malloc(size_t size) { return shoal_sym_alloc(size, 64, "shmem_malloc"); }
SHOAL_WEAK_ALIAS(shmem_malloc, pshmem_malloc)

SHOAL_EXPORT void *pshmem_malloc_with_hints(size_t size, long hints)
{
    /* Every hint is satisfiable on-node: all memory takes CPU atomics and
     * signals equally well, so the hints only have to be valid. */
    if (hints & ~(long)(SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE))
        shoal_warn("shmem_malloc_with_hints", "argument 'hints' = %#lx has unknown bits; ignored",
                   hints);
    return shoal_sym_alloc(size, 64, "shmem_malloc_with_hints");
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
    return shoal_sym_calloc(total, "shmem_calloc");
}
SHOAL_WEAK_ALIAS(shmem_calloc, pshmem_calloc)

static void *aligned(size_t alignment, size_t size, const char *fn)
{
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)))
        shoal_fatal(fn,
                    "argument 'alignment' = %zu is not a power of two multiple of "
                    "sizeof(void *) = %zu",
                    alignment, sizeof(void *));
    return shoal_sym_alloc(size, alignment, fn);
}

SHOAL_EXPORT void *pshmem_align(size_t alignment, size_t size)
{
    return aligned(alignment, size, "shmem_align");
}
SHOAL_WEAK_ALIAS(shmem_align, pshmem_align)

SHOAL_EXPORT void *pshmem_realloc(void *ptr, size_t size)
{
    return shoal_sym_realloc(ptr, size, "shmem_realloc");
}
SHOAL_WEAK_ALIAS(shmem_realloc, pshmem_realloc)

SHOAL_EXPORT void pshmem_free(void *ptr) { shoal_sym_free(ptr, "shmem_free"); }
SHOAL_WEAK_ALIAS(shmem_free, pshmem_free)

/* Deprecated names (1.0). */
SHOAL_EXPORT void *pshmalloc(size_t size) { return shoal_sym_alloc(size, 64, "shmalloc"); }
SHOAL_WEAK_ALIAS(shmalloc, pshmalloc)
SHOAL_EXPORT void pshfree(void *ptr) { shoal_sym_free(ptr, "shfree"); }
SHOAL_WEAK_ALIAS(shfree, pshfree)
SHOAL_EXPORT void *pshrealloc(void *ptr, size_t size)
{
    return shoal_sym_realloc(ptr, size, "shrealloc");
}
SHOAL_WEAK_ALIAS(shrealloc, pshrealloc)
SHOAL_EXPORT void *pshmemalign(size_t alignment, size_t size)
{
    return aligned(alignment, size, "shmemalign");
}
SHOAL_WEAK_ALIAS(shmemalign, pshmemalign)
