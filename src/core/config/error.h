/* Error reporting.  Every fatal error names the routine, the argument and
 * the PE, then brings the job down (shmem_global_exit(1) semantics); under
 * SHMEM_DEBUG a backtrace is printed first. */
#ifndef SHOAL_CORE_ERROR_H
#define SHOAL_CORE_ERROR_H
#include <stddef.h>
#include <stdint.h>

struct shoal_ctx;

_Noreturn void shoal_fatal(const char *routine, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), cold));
void shoal_warn(const char *routine, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), cold));
/* Runs once, in the first shoal_fatal, after the message and before the
 * job goes down (NULL: nothing): how core/profile writes this PE's partial
 * profile without config/ calling up into it. */
void shoal_fatal_hook_set(void (*hook)(const char *routine));
/* The job is going down because of another PE (`why`: "PE 2 failed"):
 * the hook registered for that runs now, once (the profile writes this
 * PE's partial file before the launcher's signals end it). */
void shoal_ending_hook_set(void (*hook)(const char *why));
void shoal_job_ending(const char *why);

/* The fast-path checks of core/ops.h end up here. */
_Noreturn void shoal_err_ctx(const struct shoal_ctx *ctx, const char *routine)
    __attribute__((cold));
_Noreturn void shoal_err_pe(const struct shoal_ctx *ctx, int pe, const char *routine)
    __attribute__((cold));
/* [addr, addr+len) is not symmetric: blames `arg`, or `count` (NULL: none)
 * when only the length is wrong. */
_Noreturn void shoal_err_addr(const void *addr, size_t len, int pe, const char *routine,
                              const char *arg, const char *count) __attribute__((cold));
/* Argument `count` = n elements of `esize` bytes is more bytes than
 * size_t holds. */
_Noreturn void shoal_err_count(const char *count, size_t n, size_t esize, const char *routine)
    __attribute__((cold));
_Noreturn void shoal_err_not_init(const char *routine) __attribute__((cold));
_Noreturn void shoal_err_no_route(int pe, const char *routine) __attribute__((cold));

/* Some PE called shmem_global_exit(status) and wrote it in this PE's
 * control block: this PE ends quietly with that status (after a grace
 * that lets the launcher end it first); returns when no PE did. */
void shoal_global_exit_notice(void);
/* Two seconds in which the launcher, which saw a PE fail or call
 * shmem_global_exit, ends this PE with the job's own status (a launcher
 * cut off from this host never does: the caller then goes on). */
void shoal_launcher_grace(void);

/* Costlier checks, called only when SHMEM_DEBUG is set. */
void shoal_debug_check_overlap(const void *a, size_t alen, const void *b, size_t blen,
                               const char *routine, const char *aname, const char *bname);
void shoal_debug_check_align(const void *p, size_t align, const char *routine, const char *arg);

#endif
