/* api/export.h — the profiling interface (OpenSHMEM 1.5+, spec §"Profiling
 * Interface"): every routine exists twice, as a strong `pshmem_X` that does
 * the work and a weak `shmem_X` alias of it, so that a tool can define its
 * own `shmem_X` (which wins over the weak alias), do its measurement and
 * call `pshmem_X`.  This is the weak-alias method the spec gives as its
 * example.  (With glibc, the shmem_X of a generated routine with a target
 * PE is a weak indirect function instead, which binds to pshmem_X or to
 * the profile's counted twin: SHOAL_COUNTED_ALIAS,
 * tools/gen/templates/api_family.c.in.  A tool's shmem_X wins the same.)
 *
 * Usage, in every api/ source file and in the generated wrappers:
 *
 *     SHOAL_EXPORT void pshmem_quiet(void) { ... }
 *     SHOAL_WEAK_ALIAS(shmem_quiet, pshmem_quiet)
 *
 * Twins of the deprecated routines without the `shmem_` prefix prepend a
 * bare `p`, as Open MPI does: pstart_pes, p_my_pe, p_num_pes, pshmalloc,
 * pshfree, pshrealloc, pshmemalign.  In short: the twin of X is always pX.
 *
 * The library is compiled with -fvisibility=hidden; both names must be
 * exported explicitly.  (The generated shmem.h/pshmem.h also wrap their
 * prototypes in `#pragma GCC visibility push(default)`, so a definition that
 * forgets SHOAL_EXPORT is still exported; tests/api/check_symbols.py
 * verifies the exported set.) */
#ifndef SHOAL_API_EXPORT_H
#define SHOAL_API_EXPORT_H

#include <pshmem.h>

#define SHOAL_EXPORT __attribute__((visibility("default")))

/* On a routine that is a thin wrapper around core/ops.h's static inline
 * fast paths: inline them all into it.  Without it GCC's unit-growth
 * heuristics out-of-line shoal_put/shoal_amo in translation units with many
 * call sites, and constant arguments (AMO op and size, element size) no
 * longer fold.  The generated wrappers use it on every routine. */
#define SHOAL_FLATTEN __attribute__((flatten))

/* `name` becomes a weak, exported alias of the already defined `pname`,
 * with exactly its type (so a prototype mismatch with shmem.h is a compile
 * error in the file that defines the routine). */
#define SHOAL_WEAK_ALIAS(name, pname) \
    extern __typeof__(pname) name __attribute__((weak, alias(#pname), visibility("default")));

#endif
