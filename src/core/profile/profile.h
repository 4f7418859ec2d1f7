/* core/profile — SHOAL_PROFILE: where a job's time goes, per PE, routine
 * family and peer (docs/profiling.md).
 *
 * Owns: the per-thread counters (a block per thread that calls Shoal,
 * registered in one list at its first call, written only by its thread:
 * no atomics, no sharing), the clock of the timed calls, the hooks below
 * that the routines call, the merge at shmem_finalize through the
 * bootstrap's allgather and PE 0's report (prof_merge.c: the table on
 * stderr, prof_json.c: the JSON and CSV files, prof_table.c: the table),
 * and the partial file each PE writes when the job goes down without a
 * finalize (profile.c: fatal errors, shmem_global_exit, SIGTERM).
 * May call: core's ground floor (state.h, config/), boot/boot.h (the
 * allgather), libc.  Called by: the generated wrappers and the routines
 * of api/ (the hooks, only while shoal_prof_on is set), runtime.c
 * (start, stop, finish, abandon).
 *
 * Cost when off: nothing.  A generated routine tests shoal_g.slow (set for
 * SHMEM_DEBUG too) and tail-calls its slow twin where it is set, which runs
 * the hooks while shoal_prof_on is set; the routine's own body is compiled
 * without SHMEM_DEBUG's tests (SHOAL_OPS_DEBUG, core/state.h), so that one
 * test replaces the debug test the body had
 * (tools/gen/templates/api_family.c.in).  A routine with a target PE
 * tail-calls its counted twin instead, which counts an on-node call itself
 * (below: no clock, no call, no frame) and leaves the rest to the slow
 * twin.  The hand-written routines of api/ test shoal_prof_on
 * (SHOAL_PROFILED). */
#ifndef SHOAL_CORE_PROFILE_H
#define SHOAL_CORE_PROFILE_H
#include <stddef.h>
#include <stdint.h>

#include "core/state.h"
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define SHOAL_PROF_HAVE_TSC 1
#else
#define SHOAL_PROF_HAVE_TSC 0
#endif

/* Set while SHOAL_PROFILE counts (shoal_g.slow too).  Hidden: a hand-written
 * routine's test is one compare with a PC-relative operand. */
extern int shoal_prof_on __attribute__((visibility("hidden")));

/* A family's class (prof_families.h says what each records). */
enum shoal_prof_class {
    SHOAL_PROF_C_RMA,
    SHOAL_PROF_C_AMO,
    SHOAL_PROF_C_AM,
    SHOAL_PROF_C_CALL,
    SHOAL_PROF_C_POLL
};

enum shoal_prof_family {
#define SHOAL_PROF_FAM(id, name, cls, group) SHOAL_PROF_##id,
#include "core/profile/prof_families.h"
#undef SHOAL_PROF_FAM
    SHOAL_PROF_NFAM
};

/* The targeted families (RMA, AMO, AM) come first in the table. */
enum {
    SHOAL_PROF_NTGT = 0
#define SHOAL_PROF_FAM(id, name, cls, group) +(SHOAL_PROF_C_##cls <= SHOAL_PROF_C_AM)
#include "core/profile/prof_families.h"
#undef SHOAL_PROF_FAM
};
_Static_assert((int)SHOAL_PROF_NTGT == (int)SHOAL_PROF_WAIT,
               "targeted families first (prof_families.h)");

static const unsigned char shoal_prof_class_of[SHOAL_PROF_NFAM] = {
#define SHOAL_PROF_FAM(id, name, cls, group) SHOAL_PROF_C_##cls,
#include "core/profile/prof_families.h"
#undef SHOAL_PROF_FAM
};

/* One thread's counters.  Calls and bytes of a targeted family live in
 * its cells only (summed at the report); its `fam` entry holds the time. */
struct shoal_prof_cell {
    uint64_t ops, bytes;
};
struct shoal_prof_count {
    uint64_t calls, bytes, ticks;
};
struct shoal_prof_block {
    struct shoal_prof_count fam[SHOAL_PROF_NFAM];
    /* Timed calls this thread is inside: an active-message handler that a
     * wait runs may call Shoal, whose time is the wait's already. */
    unsigned depth;
    struct shoal_prof_block *next; /* the registry (profile.c) */
    /* [world PE * SHOAL_PROF_NTGT + family]; no cell across two lines */
    _Alignas(SHOAL_CACHELINE) struct shoal_prof_cell cell[];
};

/* The calling thread's block, NULL before its first profiled call.
 * initial-exec: the general TLS model costs a call per access. */
extern __thread struct shoal_prof_block *shoal_prof_tl __attribute__((tls_model("initial-exec")));
/* Allocates and registers the calling thread's block. */
struct shoal_prof_block *shoal_prof_attach(void) __attribute__((noinline));

static inline struct shoal_prof_block *shoal_prof_me(void)
{
    struct shoal_prof_block *b = shoal_prof_tl;
    return SHOAL_LIKELY(b != NULL) ? b : shoal_prof_attach();
}

/* The clock of timed calls: the CPU's time-stamp counter where it is
 * invariant (a few ns to read, no system call whatever the kernel's clock
 * source; calibrated against CLOCK_MONOTONIC over the run), else
 * clock_gettime in ns. */
extern int shoal_prof_use_tsc;
uint64_t shoal_prof_clock_ns(void);

static inline uint64_t shoal_prof_now(void)
{
#if SHOAL_PROF_HAVE_TSC
    if (SHOAL_LIKELY(shoal_prof_use_tsc))
        return __rdtsc();
#endif
    return shoal_prof_clock_ns();
}

/* The start of a timed call (never 0: 0 means "not timed"). */
static inline uint64_t shoal_prof_clock_in(void)
{
    shoal_prof_me()->depth++;
    uint64_t t = shoal_prof_now();
    return t ? t : 1;
}

static inline void shoal_prof_add_time(struct shoal_prof_block *b, int fam, uint64_t t0)
{
    uint64_t t = shoal_prof_now();
    if (--b->depth == 0)
        b->fam[fam].ticks += t - t0;
}

/* ------------------------------------------------ families without a target */

static inline uint64_t shoal_prof_call_begin(int fam)
{
    if (shoal_prof_class_of[fam] == SHOAL_PROF_C_POLL && !shoal_g.net_active)
        return 0;
    return shoal_prof_clock_in();
}

static inline void shoal_prof_call_end(int fam, uint64_t t0, size_t nbytes)
{
    struct shoal_prof_block *b = shoal_prof_me();
    b->fam[fam].calls++;
    b->fam[fam].bytes += nbytes;
    if (t0)
        shoal_prof_add_time(b, fam, t0);
}

/* ------------------------------------------- families with a target PE */

/* Is `pe` of ctx's team reached through the network?  Called before the
 * routine checked its arguments: an invalid one is "no" (the routine then
 * reports it). */
static inline int shoal_prof_remote(int cls, shmem_ctx_t ctx, int pe)
{
    if (!shoal_g.net_active || ctx == NULL || ctx->magic != SHOAL_CTX_LIVE)
        return 0;
    const struct shoal_team *t = ctx->team;
    if ((unsigned)pe >= (unsigned)t->size)
        return 0;
    if (cls == SHOAL_PROF_C_AMO && shoal_g.amo_via_net)
        return 1;
    return shoal_slot(t->start + pe * t->stride) < 0;
}

static inline uint64_t shoal_prof_to_begin(int fam, shmem_ctx_t ctx, int pe)
{
    int cls = shoal_prof_class_of[fam];
    if (cls != SHOAL_PROF_C_AM && !shoal_prof_remote(cls, ctx, pe))
        return 0;
    return shoal_prof_clock_in();
}

/* After the routine returned: ctx and pe were valid.  The default
 * context's team is the world (a constant in the routines without ctx). */
static inline void shoal_prof_to_end(int fam, uint64_t t0, shmem_ctx_t ctx, int pe, size_t nbytes)
{
    struct shoal_prof_block *b = shoal_prof_me();
    const struct shoal_team *t = ctx->team;
    size_t wpe = ctx == SHMEM_CTX_DEFAULT ? (size_t)pe : (size_t)(t->start + pe * t->stride);
    struct shoal_prof_cell *c = &b->cell[wpe * SHOAL_PROF_NTGT + (size_t)fam];
    c->ops++;
    c->bytes += nbytes;
    if (t0)
        shoal_prof_add_time(b, fam, t0);
}

/* The generated routines with a target PE have a counted twin
 * (shoal_counted_X, in the routines' own files: their body without
 * SHMEM_DEBUG's tests, inlined), which the routine runs while shoal_g.slow
 * is set, and which shmem_X is bound to where the program's first call of
 * it comes while the profile counts (SHOAL_COUNTED_ALIAS,
 * tools/gen/templates/api_family.c.in).  Where shoal_prof_counter gives a block, the twin counts the call
 * in it, then runs the body; otherwise it runs the slow twin (the hooks
 * above, SHMEM_DEBUG's body).  The count comes first, so that nothing
 * lives across the body and nothing is called around it: no frame, no
 * register saved, and the body's checks share the twin's loads. */

/* The calling thread's block where its counted twins may count without
 * asking where a target is: set at its first profiled call where neither
 * SHMEM_DEBUG nor a network transport is active, NULL otherwise (then
 * shoal_prof_net_counter decides, for this thread's block shoal_prof_tl). */
extern __thread struct shoal_prof_block *shoal_prof_quick
    __attribute__((tls_model("initial-exec")));

/* With a network transport: the thread's block where the target is on
 * this node (and the call is no atomic that every PE sends through the
 * network), else NULL (the slow twin times the call). */
static inline struct shoal_prof_block *shoal_prof_net_counter(int cls, const struct shoal_team *t,
                                                              int pe)
{
    struct shoal_prof_block *b = shoal_prof_tl;
    if (b == NULL || shoal_g.debug || !shoal_g.net_active ||
        (cls == SHOAL_PROF_C_AMO && shoal_g.amo_via_net))
        return NULL;
    return shoal_slot(t->start + pe * t->stride) >= 0 ? b : NULL;
}

/* Where a counted twin counts this call of targeted family `fam` to `pe`
 * of ctx's team: the thread's block when the call is untimed (on this
 * node: the CPU's loads, stores and atomics) and its context and PE are
 * valid (else the routine reports them); NULL otherwise.  On one node,
 * one TLS load and its test beside the routine's own checks.  No test of
 * shoal_prof_on (it costs an 8-byte put 0.4 ns of its 3.3 here): a twin
 * bound to shmem_X still runs after the profile stopped, and counts in a
 * block that is no longer read, which stays allocated (profile.c). */
static inline struct shoal_prof_block *shoal_prof_counter(int fam, shmem_ctx_t ctx, int pe)
{
    struct shoal_prof_block *b = shoal_prof_quick;
    int cls = shoal_prof_class_of[fam];
    if (cls == SHOAL_PROF_C_AM || ctx == NULL || ctx->magic != SHOAL_CTX_LIVE)
        return NULL;
    const struct shoal_team *t = ctx->team;
    if ((unsigned)pe >= (unsigned)t->size)
        return NULL;
    return SHOAL_LIKELY(b != NULL) ? b : shoal_prof_net_counter(cls, t, pe);
}

/* nelems * esize, wrapping: the routine itself reports an overflow. */
static inline size_t shoal_prof_nbytes(size_t nelems, size_t esize, const char *fn)
{
    (void)fn;
    return nelems * esize;
}

/* Counts a call in the block shoal_prof_counter gave. */
static inline void shoal_prof_count(struct shoal_prof_block *b, int fam, shmem_ctx_t ctx, int pe,
                                    size_t nbytes)
{
    const struct shoal_team *t = ctx->team;
    size_t wpe = ctx == SHMEM_CTX_DEFAULT ? (size_t)pe : (size_t)(t->start + pe * t->stride);
    struct shoal_prof_cell *c = &b->cell[wpe * SHOAL_PROF_NTGT + (size_t)fam];
    c->ops++;
    /* Two adds, not one vector add: the vector's operand takes more to
     * build than the adds take. */
    __asm__("");
    c->bytes += nbytes;
}

/* ------------------------------------ the hand-written routines of api/ */

/* `stmt`, the routine's work, counted in family `fam` with `nbytes`
 * (evaluated after it) while the profile is on; `stmt` alone otherwise. */
#define SHOAL_PROFILED(fam, nbytes, stmt)                         \
    do {                                                          \
        if (SHOAL_UNLIKELY(shoal_prof_on)) {                      \
            uint64_t shoal_prof_t0_ = shoal_prof_call_begin(fam); \
            stmt;                                                 \
            shoal_prof_call_end(fam, shoal_prof_t0_, nbytes);     \
        } else {                                                  \
            stmt;                                                 \
        }                                                         \
    } while (0)

/* The same for a family with a target: `pe` of `ctx`'s team. */
#define SHOAL_PROFILED_TO(fam, ctx, pe, nbytes, stmt)                    \
    do {                                                                 \
        if (SHOAL_UNLIKELY(shoal_prof_on)) {                             \
            uint64_t shoal_prof_t0_ = shoal_prof_to_begin(fam, ctx, pe); \
            stmt;                                                        \
            shoal_prof_to_end(fam, shoal_prof_t0_, ctx, pe, nbytes);     \
        } else {                                                         \
            stmt;                                                        \
        }                                                                \
    } while (0)

/* ------------------------------------------------------------ runtime.c */

struct shoal_boot;

/* At the end of the first shmem_init, where SHOAL_PROFILE names `file`
 * (core/config/env.c): counting starts.  Never fails: a profile that
 * cannot be written is reported at finalize. */
void shoal_prof_start(const char *file);
/* First thing of the last finalize: counting stops, the wall time ends. */
void shoal_prof_stop(void);
/* After finalize's bootstrap barrier (every PE's operations complete):
 * merges the PEs' profiles through the bootstrap; PE 0 prints the table
 * and writes the files.  Collective over all PEs. */
void shoal_prof_finish(struct shoal_boot *boot);
/* The job goes down without a finalize (shmem_global_exit; fatal errors
 * and SIGTERM reach it through their hooks): this PE writes what it has
 * to FILE's stem + ".pe<N>.json".  Async-signal-safe; once per process. */
void shoal_prof_abandon(const char *why);

#endif
