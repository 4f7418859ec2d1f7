/* shoal_test.h — helpers shared by the multi-PE spec tests (tests/spec).
 *
 * Include this first (it selects the POSIX feature level).  Public API only:
 * everything here goes through <shmem.h>.
 *
 *   CHECK(cond)                    fails with the expression
 *   CHECK_EQ_I(actual, expected)   signed integers (printed in decimal)
 *   CHECK_EQ_U(actual, expected)   unsigned integers (decimal and hex)
 *   CHECK_EQ_D(actual, expected)   floating point, compared exactly
 *   CHECK_EQ_P / CHECK_NULL / CHECK_NOT_NULL   pointers
 *   CHECK_EQ_S(actual, expected)   C strings
 *   CHECK_MSG(cond, fmt, ...)      free-form message
 *   CHECK_PATTERN(buf, n, pe, seed)  bytes of st_fill()'s pattern
 *
 * A failed check prints one line
 *   FAIL: PE <pe>/<npes> <file>:<line> [<phase>] <what>: expected <e>, got <a>
 * on stderr and ends the process with _exit(1) (not exit(): an atexit
 * finalizer must not turn a failure into a hang in a collective).  The
 * launcher takes the other PEs down.
 *
 * ST_PHASE("name") labels what follows; a watchdog (st_begin) reports the
 * phase of a PE that hangs and exits 2 instead of waiting for ctest's
 * timeout.  SHOAL_TEST_TIMEOUT (seconds, default 90) sets it. */
#ifndef SHOAL_TEST_H
#define SHOAL_TEST_H

#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1
#endif

#include <shmem.h>

#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__GNUC__)
#define ST_UNUSED __attribute__((unused))
#define ST_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define ST_UNUSED
#define ST_PRINTF(a, b)
#endif

/* ------------------------------------------------------------ state */

static volatile int st_me ST_UNUSED = -1; /* cached PE number (-1: unknown) */
static volatile int st_npes ST_UNUSED = -1;
static const char *volatile st_phase ST_UNUSED = "start";

#define ST_PHASE(s) (st_phase = (s))

/* The PE number if the library is initialized, else the cached one. */
static ST_UNUSED int st_pe_now(void)
{
    return st_me;
}

static ST_UNUSED _Noreturn void st_die(int code)
{
    fflush(stdout);
    fflush(stderr);
    _exit(code);
}

static ST_UNUSED ST_PRINTF(4, 5) _Noreturn void st_fail(const char *file, int line,
                                                        const char *what, const char *fmt, ...)
{
    char msg[2048];
    int n = snprintf(msg, sizeof msg, "FAIL: PE %d/%d %s:%d [%s] %s", st_pe_now(), st_npes, file,
                     line, st_phase, what);
    if (n < 0 || (size_t)n >= sizeof msg)
        n = (int)strlen(msg);
    if (fmt && (size_t)n < sizeof msg - 4) {
        msg[n++] = ':';
        msg[n++] = ' ';
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
        va_end(ap);
    }
    fprintf(stderr, "%s\n", msg);
    st_die(1);
}

#define CHECK(cond)                                                         \
    do {                                                                    \
        if (!(cond))                                                        \
            st_fail(__FILE__, __LINE__, #cond, "expected true, got false"); \
    } while (0)

#define CHECK_MSG(cond, ...)                                 \
    do {                                                     \
        if (!(cond))                                         \
            st_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
    } while (0)

#define CHECK_EQ_I(actual, expected)                                                             \
    do {                                                                                         \
        intmax_t st_a_ = (intmax_t)(actual), st_e_ = (intmax_t)(expected);                       \
        if (st_a_ != st_e_)                                                                      \
            st_fail(__FILE__, __LINE__, #actual, "expected %jd (%s), got %jd", st_e_, #expected, \
                    st_a_);                                                                      \
    } while (0)

#define CHECK_EQ_U(actual, expected)                                                         \
    do {                                                                                     \
        uintmax_t st_a_ = (uintmax_t)(actual), st_e_ = (uintmax_t)(expected);                \
        if (st_a_ != st_e_)                                                                  \
            st_fail(__FILE__, __LINE__, #actual, "expected %ju = %#jx (%s), got %ju = %#jx", \
                    st_e_, st_e_, #expected, st_a_, st_a_);                                  \
    } while (0)

#define CHECK_EQ_D(actual, expected)                                                        \
    do {                                                                                    \
        long double st_a_ = (long double)(actual), st_e_ = (long double)(expected);         \
        if (!(st_a_ == st_e_))                                                              \
            st_fail(__FILE__, __LINE__, #actual, "expected %.21Lg (%s), got %.21Lg", st_e_, \
                    #expected, st_a_);                                                      \
    } while (0)

#define CHECK_EQ_P(actual, expected)                                                           \
    do {                                                                                       \
        const void *st_a_ = (const void *)(actual), *st_e_ = (const void *)(expected);         \
        if (st_a_ != st_e_)                                                                    \
            st_fail(__FILE__, __LINE__, #actual, "expected %p (%s), got %p", st_e_, #expected, \
                    st_a_);                                                                    \
    } while (0)

#define CHECK_NULL(actual) CHECK_EQ_P(actual, NULL)

#define CHECK_NOT_NULL(actual)                                                             \
    do {                                                                                   \
        if ((const void *)(actual) == NULL)                                                \
            st_fail(__FILE__, __LINE__, #actual, "expected a non-NULL pointer, got NULL"); \
    } while (0)

#define CHECK_EQ_S(actual, expected)                                            \
    do {                                                                        \
        const char *st_a_ = (actual), *st_e_ = (expected);                      \
        if (!st_a_ || !st_e_ || strcmp(st_a_, st_e_) != 0)                      \
            st_fail(__FILE__, __LINE__, #actual, "expected \"%s\", got \"%s\"", \
                    st_e_ ? st_e_ : "(null)", st_a_ ? st_a_ : "(null)");        \
    } while (0)

/* ---------------------------------------------------- value patterns */

/* Byte i of the pattern written by `pe` with `seed`.  Not periodic at any
 * power of two below 2^24, so a block that lands shifted by a page, or a
 * block written by the wrong PE, is caught. */
static inline unsigned char st_byte(int pe, size_t i, unsigned seed)
{
    uint32_t x =
        (uint32_t)i * 2654435761u ^ ((uint32_t)pe + 1u) * 0x9e3779b9u ^ (seed + 1u) * 0x85ebca6bu;
    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    x ^= x >> 12;
    return (unsigned char)x;
}

static inline void st_fill(void *buf, size_t n, int pe, unsigned seed)
{
    unsigned char *b = (unsigned char *)buf;
    for (size_t i = 0; i < n; i++)
        b[i] = st_byte(pe, i, seed);
}

/* Index of the first byte that differs from the pattern, or SIZE_MAX. */
static inline size_t st_verify(const void *buf, size_t n, int pe, unsigned seed)
{
    const unsigned char *b = (const unsigned char *)buf;
    for (size_t i = 0; i < n; i++)
        if (b[i] != st_byte(pe, i, seed))
            return i;
    return SIZE_MAX;
}

/* The same for bytes [start, start+n) of the pattern, found at buf. */
static inline size_t st_verify_at(const void *buf, size_t n, int pe, unsigned seed, size_t start)
{
    const unsigned char *b = (const unsigned char *)buf;
    for (size_t i = 0; i < n; i++)
        if (b[i] != st_byte(pe, start + i, seed))
            return i;
    return SIZE_MAX;
}

/* Index of the first byte that is not `v`, or SIZE_MAX. */
static inline size_t st_verify_byte(const void *buf, size_t n, unsigned char v)
{
    const unsigned char *b = (const unsigned char *)buf;
    for (size_t i = 0; i < n; i++)
        if (b[i] != v)
            return i;
    return SIZE_MAX;
}

#define CHECK_PATTERN(buf, n, pe, seed)                                                        \
    do {                                                                                       \
        size_t st_n_ = (n);                                                                    \
        size_t st_i_ = st_verify((buf), st_n_, (pe), (seed));                                  \
        if (st_i_ != SIZE_MAX)                                                                 \
            st_fail(__FILE__, __LINE__, #buf,                                                  \
                    "pattern of PE %d seed %u over %zu bytes: byte %zu expected %#x, got %#x", \
                    (int)(pe), (unsigned)(seed), st_n_, st_i_, st_byte((pe), st_i_, (seed)),   \
                    ((const unsigned char *)(buf))[st_i_]);                                    \
    } while (0)

/* buf holds bytes [start, start+n) of the pattern. */
#define CHECK_PATTERN_AT(buf, n, pe, seed, start)                                                 \
    do {                                                                                          \
        size_t st_n_ = (n), st_s_ = (start);                                                      \
        size_t st_i_ = st_verify_at((buf), st_n_, (pe), (seed), st_s_);                           \
        if (st_i_ != SIZE_MAX)                                                                    \
            st_fail(__FILE__, __LINE__, #buf,                                                     \
                    "pattern of PE %d seed %u, bytes [%zu, %zu): byte %zu expected %#x, "         \
                    "got %#x",                                                                    \
                    (int)(pe), (unsigned)(seed), st_s_, st_s_ + st_n_, st_s_ + st_i_,             \
                    st_byte((pe), st_s_ + st_i_, (seed)), ((const unsigned char *)(buf))[st_i_]); \
    } while (0)

#define CHECK_BYTES(buf, n, v)                                                                    \
    do {                                                                                          \
        size_t st_n_ = (n);                                                                       \
        size_t st_i_ = st_verify_byte((buf), st_n_, (unsigned char)(v));                          \
        if (st_i_ != SIZE_MAX)                                                                    \
            st_fail(__FILE__, __LINE__, #buf, "%zu bytes of %#x: byte %zu expected %#x, got %#x", \
                    st_n_, (unsigned)(unsigned char)(v), st_i_, (unsigned)(unsigned char)(v),     \
                    ((const unsigned char *)(buf))[st_i_]);                                       \
    } while (0)

/* A 64-bit value that depends on (pe, i, seed); never 0. */
static inline uint64_t st_u64(int pe, uint64_t i, unsigned seed)
{
    uint64_t z = (uint64_t)(pe + 1) * 0x9e3779b97f4a7c15ull + i * 0xbf58476d1ce4e5b9ull +
                 (uint64_t)seed * 0x94d049bb133111ebull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return z ? z : 1;
}

/* A small deterministic generator (same seed => same sequence on every PE). */
typedef struct {
    uint64_t s;
} st_rng_t;

static inline uint64_t st_rng_next(st_rng_t *r)
{
    uint64_t x = r->s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return r->s = x;
}

static inline uint64_t st_rng_below(st_rng_t *r, uint64_t n)
{
    return n ? st_rng_next(r) % n : 0;
}

/* ------------------------------------------------------------- time */

static inline double st_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void st_sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* Whether PE `pe` of `n` should be reachable by load/store from PE `me` in
 * an oshrun job on this one machine: every PE, except under
 * SHOAL_TRANSPORTS=ucx or ofi (none but `me`) or SHOAL_SPLIT_NODES=K (the PEs of
 * `me`'s pretend node: ranks in K contiguous blocks).  On a real cluster
 * (tests/cluster) the test sets SHOAL_TEST_NODES=K: the job's hosts hold the
 * ranks in K contiguous blocks. */
static inline int st_mapped(int me, int pe, int n)
{
    const char *tr = getenv("SHOAL_TRANSPORTS");
    if (pe == me)
        return 1;
    if (tr && (!strcmp(tr, "ucx") || !strcmp(tr, "ofi")))
        return 0;
    const char *sp = getenv("SHOAL_TEST_NODES");
    if (!sp)
        sp = getenv("SHOAL_SPLIT_NODES");
    long k = sp ? strtol(sp, NULL, 10) : 1;
    if (k < 1)
        k = 1;
    return (long)pe * k / n == (long)me * k / n;
}

/* ---------------------------------------------------------- watchdog */

static ST_UNUSED void st_watchdog_handler(int sig)
{
    (void)sig;
    char buf[256];
    const char *ph = st_phase;
    int n =
        snprintf(buf, sizeof buf, "FAIL: PE %d/%d: watchdog: no progress, stuck in phase [%s]\n",
                 st_me, st_npes, ph ? ph : "?");
    if (n > 0)
        (void)!write(STDERR_FILENO, buf, (size_t)n);
    _exit(2);
}

static ST_UNUSED void st_watchdog(unsigned seconds)
{
    const char *e = getenv("SHOAL_TEST_TIMEOUT");
    if (e && *e)
        seconds = (unsigned)strtoul(e, NULL, 10);
    signal(SIGALRM, st_watchdog_handler);
    alarm(seconds);
}

/* Call right after shmem_init*: caches the PE number for messages and arms
 * the watchdog. */
static ST_UNUSED void st_begin(void)
{
    st_me = shmem_my_pe();
    st_npes = shmem_n_pes();
    setvbuf(stdout, NULL, _IOLBF, 0);
    st_watchdog(90);
}

/* Say that a part passed (PE 0 only, to keep logs short). */
static ST_UNUSED void st_note(const char *what)
{
    if (st_me == 0)
        printf("ok: %s\n", what);
}

#endif /* SHOAL_TEST_H */
