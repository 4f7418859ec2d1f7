/* Fatal errors and warnings: one line naming the PE, the routine and the
 * argument, an optional backtrace (SHMEM_DEBUG), then the job goes down
 * through the bootstrap so the launcher reports it and kills the others. */
#include "core/config/error.h"

#include <execinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot.h"
#include "core/state.h"

static void vreport(const char *kind, const char *routine, const char *fmt, va_list ap)
{
    char msg[1024];
    int n = 0;
    if (shoal_g.init_count > 0 || shoal_g.boot) /* the bootstrap gave this PE its number */
        n = snprintf(msg, sizeof msg, "shoal: PE %d: %s%s%s", shoal_g.my_pe, kind,
                     routine ? routine : "", routine ? ": " : "");
    else
        n = snprintf(msg, sizeof msg, "shoal: %s%s%s", kind, routine ? routine : "",
                     routine ? ": " : "");
    if (n < 0 || (size_t)n >= sizeof msg)
        n = 0;
    vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    /* One write so lines of different PEs do not interleave. */
    fprintf(stderr, "%s\n", msg);
    fflush(stderr);
}

/* This PE's word to the peers that wait for it: it failed (only the
 * process that holds the PE: a forked child shares the heap). */
static void mark_failed(void)
{
    if (!shoal_g.heap_me || shoal_g.owner_pid != (long)getpid())
        return;
    uint32_t in_job = 0;
    __atomic_compare_exchange_n(&shoal_my_ctl()->leaving, &in_job, SHOAL_LEFT_FAILED, 0,
                                __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

void shoal_global_exit_notice(void)
{
    if (!shoal_g.heap_me || shoal_g.owner_pid != (long)getpid())
        return;
    uint32_t v = __atomic_load_n(&shoal_my_ctl()->global_exit, __ATOMIC_ACQUIRE);
    /* Once per process: the bootstrap's leave may wait, and serve the
     * network, in here (its own calls come back: they return); another
     * thread waits for the end the first one makes. */
    static int ending;
    static __thread int ending_here;
    if (!v || ending_here)
        return;
    if (__atomic_exchange_n(&ending, 1, __ATOMIC_ACQ_REL))
        for (;;)
            pause();
    ending_here = 1;
    fflush(stdout);
    fflush(stderr);
    /* The launcher, told by the PE that called it, ends this one with the
     * job's status within moments; only where it cannot (cut off from
     * this host), or leaves it to each PE (boot.h), does this PE end
     * itself, with the same status. */
    const int status = shoal_global_exit_status(v);
    if (!shoal_g.boot || !shoal_g.boot->leave ||
        shoal_g.boot->leave(status, shoal_global_exit_mark(v)))
        shoal_launcher_grace();
    _exit(status);
}

void shoal_launcher_grace(void)
{
    struct timespec ts = {0, 50 * 1000 * 1000};
    for (int i = 0; i < 40; i++)
        nanosleep(&ts, NULL);
}

static void (*ending_hook)(const char *why);

void shoal_ending_hook_set(void (*hook)(const char *why))
{
    __atomic_store_n(&ending_hook, hook, __ATOMIC_RELEASE);
}

void shoal_job_ending(const char *why)
{
    void (*hook)(const char *) = __atomic_exchange_n(&ending_hook, NULL, __ATOMIC_ACQ_REL);
    if (hook)
        hook(why);
}

static void (*fatal_hook)(const char *routine);

void shoal_fatal_hook_set(void (*hook)(const char *routine))
{
    __atomic_store_n(&fatal_hook, hook, __ATOMIC_RELEASE);
}

_Noreturn void shoal_fatal(const char *routine, const char *fmt, ...)
{
    /* What failed here may be a consequence of a peer's
     * shmem_global_exit (its connections are going): not worth a word. */
    shoal_global_exit_notice();
    mark_failed();
    va_list ap;
    va_start(ap, fmt);
    vreport("", routine, fmt, ap);
    va_end(ap);
    void (*hook)(const char *) = __atomic_exchange_n(&fatal_hook, NULL, __ATOMIC_ACQ_REL);
    if (hook)
        hook(routine);
    if (shoal_g.debug) {
        void *frames[64];
        int n = backtrace(frames, 64);
        fprintf(stderr, "shoal: PE %d: backtrace:\n", shoal_g.my_pe);
        fflush(stderr);
        backtrace_symbols_fd(frames, n, STDERR_FILENO);
    }
    if (shoal_g.boot && shoal_g.boot->abort)
        shoal_g.boot->abort(1, routine ? routine : "fatal error");
    _exit(1);
}

void shoal_warn(const char *routine, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("warning: ", routine, fmt, ap);
    va_end(ap);
}

_Noreturn void shoal_err_not_init(const char *routine)
{
    shoal_fatal(routine, "called before shmem_init (or after the last shmem_finalize)");
}

_Noreturn void shoal_err_count(const char *count, size_t n, size_t esize, const char *routine)
{
    if (shoal_g.init_count == 0 || shoal_g.finalized)
        shoal_err_not_init(routine);
    shoal_fatal(routine,
                "argument '%s' = %zu is too large: %zu elements of %zu bytes are more bytes than "
                "the address space holds",
                count, n, n, esize);
}

_Noreturn void shoal_err_ctx(const struct shoal_ctx *ctx, const char *routine)
{
    if (shoal_g.init_count == 0 || shoal_g.finalized)
        shoal_err_not_init(routine);
    if (ctx == NULL)
        shoal_fatal(routine, "argument 'ctx' is SHMEM_CTX_INVALID");
    shoal_fatal(routine, "argument 'ctx' (%p) is not a live context (destroyed or never created)",
                (const void *)ctx);
}

_Noreturn void shoal_err_pe(const struct shoal_ctx *ctx, int pe, const char *routine)
{
    const struct shoal_team *t = ctx->team;
    if (t == &shoal_team_world)
        shoal_fatal(routine, "argument 'pe' = %d is not a valid PE: the job has PEs 0..%d", pe,
                    t->size - 1);
    shoal_fatal(routine,
                "argument 'pe' = %d is not a valid PE of the context's team: it has PEs 0..%d", pe,
                t->size - 1);
}

/* The segment that holds addr (as core/ops.h's shoal_addr_n sees them):
 * its name, the bounds to show the user (the heap without its control
 * block) and where it ends.  0 if none does. */
static int segment_of(uintptr_t a, const char **name, uintptr_t *lo, uintptr_t *end)
{
    uintptr_t h = (uintptr_t)shoal_g.heap_me, d = (uintptr_t)shoal_g.data_me;
    if (a - h < shoal_g.heap_size) {
        *name = "symmetric heap";
        *lo = h + SHOAL_CTL_SIZE;
        *end = h + shoal_g.heap_size;
        return 1;
    }
    if (a - d < shoal_g.data_size) {
        *name = "static data";
        *lo = d;
        *end = d + shoal_g.data_size;
        return 1;
    }
    return 0;
}

_Noreturn void shoal_err_addr(const void *addr, size_t len, int pe, const char *routine,
                              const char *arg, const char *count)
{
    if (shoal_g.init_count == 0 || shoal_g.finalized)
        shoal_err_not_init(routine);
    const char *seg;
    uintptr_t lo, end, a = (uintptr_t)addr;
    /* The start is symmetric, the length is what is wrong (it may even
     * wrap around the address space). */
    if (segment_of(a, &seg, &lo, &end)) {
        if (count)
            shoal_fatal(routine,
                        "argument '%s' is too large: %zu bytes from '%s' = %p (target PE %d) "
                        "run past the end of the %s [%p, %p), which has %zu bytes from '%s' on",
                        count, len, arg, addr, pe, seg, (void *)lo, (void *)end, (size_t)(end - a),
                        arg);
        shoal_fatal(routine,
                    "argument '%s' = %p (%zu bytes, target PE %d) runs past the end of the %s "
                    "[%p, %p)",
                    arg, addr, len, pe, seg, (void *)lo, (void *)end);
    }
    char data[160];
    if (shoal_g.data_size)
        snprintf(data, sizeof data, "static data [%p, %p)", (void *)shoal_g.data_me,
                 (void *)(shoal_g.data_me + shoal_g.data_size));
    else
        snprintf(data, sizeof data, "static data: not symmetric (%s)",
                 shoal_g.data_note ? shoal_g.data_note : "unavailable");
    shoal_fatal(routine,
                "argument '%s' = %p (%zu bytes, target PE %d) is not in a symmetric segment: "
                "symmetric heap [%p, %p), %s",
                arg, addr, len, pe, (void *)(shoal_g.heap_me + SHOAL_CTL_SIZE),
                (void *)(shoal_g.heap_me + shoal_g.heap_size), data);
}

_Noreturn void shoal_err_no_route(int pe, const char *routine)
{
    shoal_fatal(routine,
                "PE %d is not on this node and this build has no network transport "
                "(SHOAL_TRANSPORTS=shm)",
                pe);
}

void shoal_debug_check_overlap(const void *a, size_t alen, const void *b, size_t blen,
                               const char *routine, const char *aname, const char *bname)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    if (!a || !b || !alen || !blen)
        return;
    if (x < y + blen && y < x + alen)
        shoal_fatal(routine, "arguments '%s' [%p, +%zu) and '%s' [%p, +%zu) overlap", aname, a,
                    alen, bname, b, blen);
}

void shoal_debug_check_align(const void *p, size_t align, const char *routine, const char *arg)
{
    if ((uintptr_t)p % align)
        shoal_fatal(routine, "argument '%s' = %p is not aligned to %zu bytes", arg, p, align);
}
