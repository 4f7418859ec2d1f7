/* Library life cycle (runtime.c): init, finalize, global exit. */
#ifndef SHOAL_CORE_RUNTIME_H
#define SHOAL_CORE_RUNTIME_H
#include <stdio.h>
/* Returns 0, or nonzero after printing why (init_thread's error channel). */
int shoal_runtime_init(int requested, int *provided, const char *fn);
void shoal_runtime_finalize(const char *fn);
_Noreturn void shoal_runtime_global_exit(int status);
/* What shmem-info and SHMEM_INFO print. */
void shoal_print_info(FILE *f);
#endif
