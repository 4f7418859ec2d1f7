/* Core's side of the bootstrap's collective calls (boot/boot.h): a thread
 * blocked in one is in the hang report as such, with the routine it is in
 * and what carries the call (oshrun's socket, PMIx), not as a network
 * request. */
#ifndef SHOAL_CORE_BOOT_WAIT_H
#define SHOAL_CORE_BOOT_WAIT_H

struct shoal_boot;

/* Puts recording wrappers in place of b's allgather and barrier, so that
 * every layer's bootstrap calls are recorded.  Once, after b is open. */
void shoal_boot_wait_wrap(struct shoal_boot *b);
/* The routine that makes bootstrap calls from now on (shmem_init,
 * shmem_finalize; NULL between them: SHMEM_DEBUG's checks). */
void shoal_boot_wait_routine(const char *fn);
#endif
