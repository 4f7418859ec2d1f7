/* The user-visible symmetric heap (heap.c). */
#ifndef SHOAL_CORE_HEAP_H
#define SHOAL_CORE_HEAP_H
#include <stddef.h>
int shoal_heap_setup(void);
void shoal_heap_teardown(void);
void shoal_heap_usage(size_t *used, size_t *free_bytes, size_t *largest);
/* Collective over the world team, with the spec's barriers. */
void *shoal_sym_alloc(size_t size, size_t align, const char *fn);
/* shmem_calloc: zeroed on every PE before anyone returns. */
void *shoal_sym_calloc(size_t size, const char *fn);
void shoal_sym_free(void *ptr, const char *fn);
void *shoal_sym_realloc(void *ptr, size_t size, const char *fn);
#endif
