/* mt_rate: multi-threaded message rate, the figure Shoal exists for: T
 * threads of one PE should move as many messages as T single-threaded PEs.
 *
 * Traffic (identical in every configuration): sender s (s = 0..T-1) owns
 * segment s of the symmetric buffers and is the only one to touch it, on
 * one receiving PE that stays passive in shmem_barrier_all meanwhile.
 *
 *   config default  PE 0 runs T threads on SHMEM_CTX_DEFAULT
 *                   (SHMEM_THREAD_MULTIPLE); sender s = thread s; receiver PE 1
 *   config ctx      the same, each thread on its own SHMEM_CTX_PRIVATE context
 *                   (ctx forms of every call)
 *   config pes      2T single-threaded PEs: sender s = PE s, its receiver is
 *                   PE T+s (the receiving PE split the same way)
 *
 * Operations: putmem and getmem (shmem_putmem_nbi / shmem_getmem_nbi) of
 * each size, atomic post (shmem_atomic_add, shmem_atomic_inc) in windows of
 * W calls followed by a quiet of the sender's context; blocking fetching
 * atomics (fetch_add, fetch_inc, compare_swap, swap, fetch).  The AMO type
 * is long or unsigned long long (--type): not uint64_t, whose standard AMOs
 * (add, inc, fetch_add, ...) Open MPI 4.1 does not provide.
 *
 * Timing: the senders start together (pthread barrier for threads,
 * shmem_barrier_all for PEs), each times its own run of N operations, and
 * rate = T x N / (time of the slowest sender).  Rows are measured in R
 * rounds, interleaved, and reported as median and min..max of the rates.
 *
 * Checks, outside the timed region: after every run the sender reads back
 * its target (put: the pattern just written, cleared beforehand; get: the
 * receiver's pattern landed, the local buffer cleared beforehand; add and
 * inc: the exact count; fetching atomics: every returned value is the one
 * expected, since each sender alone updates its word).
 *
 *   config req      (Shoal's shmemx _nbe extension, built where <shmemx.h>
 *                   declares it) the threads of config default, each with
 *                   its own request on SHMEM_CTX_DEFAULT: the windowed
 *                   operations are _nbe into one request per window, then
 *                   shmemx_request_wait instead of quiet; the fetching
 *                   atomics are _nbe too, F per request (--fetch-window,
 *                   default W), which is how a program gets their values
 *                   without a round trip each; blocking ones have no
 *                   other way in the other configurations
 *
 * Uses only standard OpenSHMEM 1.4 routines and pthreads, except config req. */
#include "bench_stats.h"
#include "bench_args.h"
#include <pthread.h>
#include <shmem.h>
#if defined(__has_include)
#if __has_include(<shmemx.h>)
#include <shmemx.h>
#endif
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    printf("usage: oshrun -n 2 mt_rate [--config default|ctx|req] [--threads T] [options]\n"
           "       oshrun -n 2T mt_rate --config pes [--threads T] [options]\n"
           "Multi-threaded message rate (millions of messages per second, Mmsg/s).\n"
           "T senders each drive their own segment of a passive receiving PE:\n"
           "  default  T threads of PE 0 on SHMEM_CTX_DEFAULT (SHMEM_THREAD_MULTIPLE) -> PE 1\n"
           "  ctx      T threads of PE 0, one SHMEM_CTX_PRIVATE context each -> PE 1\n"
           "  pes      PEs 0..T-1, single-threaded, PE s -> PE T+s (job of 2T PEs)\n"
           "Operations: putmem, getmem (nbi, windows of W then quiet), add, inc (windows of\n"
           "W then quiet), fetch_add, fetch_inc, compare_swap, swap, fetch (blocking).\n"
           "Senders start together; rate = all senders' operations / time of the slowest\n"
           "sender.  Median and min..max over R interleaved rounds.  Every run's data is\n"
           "checked (put/get payloads, exact AMO counts and return values); exit 1 if wrong.\n"
           "Options:\n"
           "  --config C   default (default), ctx, pes or req (Shoal: _nbe requests on\n"
           "               SHMEM_CTX_DEFAULT, one per thread); one configuration per process\n"
           "  --threads T  senders (default 1; pes: number of PEs / 2)\n"
           "  -s SIZES     RMA sizes: list 8,64,4K or range MIN:MAX[:FACTOR]\n"
           "               (default 8:64K:2, i.e. powers of 2 from 8 B to 64 KiB)\n"
           "  -w W         window of non-blocking calls per quiet (default 64)\n"
           "  --fetch-window F  config req: fetching AMOs per request (default W; 1: a\n"
           "               request per operation, waited for at once)\n"
           "  -i N         operations per sender per run for AMOs and sizes <= 256 B\n"
           "               (default 200000; larger sizes scale down to N x 256 / size,\n"
           "               at least 2 windows)\n"
           "  -r R         rounds (default 11)\n"
           "  --ops LIST   subset of put,get,add,inc,fadd,finc,cswap,swap,fetch,bput\n"
           "               (bput: blocking shmem_putmem, one quiet at the end)\n"
           "  --type T     AMO type: long (default) or ulonglong (unsigned long long,\n"
           "               the unsigned 64-bit type every implementation has AMOs for)\n"
           "  --csv FILE   PE 0 appends one row per figure (metrics putmem_rate,\n"
           "               getmem_rate, add_rate, inc_rate, fadd_rate, finc_rate,\n"
           "               cswap_rate, swap_rate, fetch_rate; unit Mmsg/s)\n"
           "  --smoke      tiny run: 3 sizes, 2000 operations, 3 rounds, 2 threads, and\n"
           "               without --config both default and ctx in the same process\n");
}

enum config { CFG_DEFAULT, CFG_CTX, CFG_PES, CFG_REQ, NCFG };
static const char *const cfg_name[] = {"default", "ctx", "pes", "req"};
#ifdef SHMEMX_REQUEST_NULL
#define HAVE_REQ 1
#else
#define HAVE_REQ 0
#endif

enum op {
    OP_PUT,
    OP_GET,
    OP_ADD,
    OP_INC,
    OP_FADD,
    OP_FINC,
    OP_CSWAP,
    OP_SWAP,
    OP_FETCH,
    OP_BPUT,
    NOPS
};
static const char *const op_key[NOPS] = {"put",  "get",   "add",  "inc",   "fadd",
                                         "finc", "cswap", "swap", "fetch", "bput"};
static const char *const op_label[NOPS] = {"putmem",    "getmem",    "atomic_add",   "atomic_inc",
                                           "fetch_add", "fetch_inc", "compare_swap", "swap",
                                           "fetch",     "putmem_blk"};
static const char *const op_metric[NOPS] = {"putmem_rate", "getmem_rate", "add_rate",   "inc_rate",
                                            "fadd_rate",   "finc_rate",   "cswap_rate", "swap_rate",
                                            "fetch_rate",  "bput_rate"};

/* Puts (nbi or blocking) and gets move `size` bytes; the others are AMOs. */
static int is_put(enum op op)
{
    return op == OP_PUT || op == OP_BPUT;
}

static int is_rma(enum op op)
{
    return is_put(op) || op == OP_GET;
}

#define MAX_SIZES 64
#define AMO_STRIDE 256 /* bytes of AMO words per sender: no false sharing */
#define ADD_VAL 3      /* not 1, so add and inc cannot pass for each other */
#define FETCH_BASE 0x5eed0000L

/* Options. */
static long window = 64, fetch_window = 0 /* 0: window */, iters = 200000, rounds = 11;
static int amo_ulonglong;
static size_t sizes[MAX_SIZES];
static int nsizes;

/* Job-wide state. */
static int me, npes, nthreads;               /* nthreads: senders in the job (T) */
static char *put_base, *get_base, *amo_base; /* symmetric, T segments each */
static size_t seg_stride;
static double *slots; /* symmetric [2][npes] for the over-PEs exchange */
static long slot_parity;

/* The run every sender thread performs next (written by thread 0 before
 * the "go" barrier). */
static struct {
    int stop;
    enum op op;
    size_t size;
    long n;
} job;
static pthread_barrier_t bar_go, bar_start, bar_done;

struct thr {
    int seg, peer, use_ctx, ctx_failed, use_req;
    shmem_ctx_t ctx;
    unsigned char *src, *dst, *chk; /* private, seg_stride bytes each */
    uint64_t expect[NOPS];          /* value of this sender's AMO word */
    void *fbuf;                     /* config req: a window's fetched values */
    uint64_t *seen;                 /* config req: bitmap for their check */
    double elapsed;
    long bad;
    pthread_t tid;
};

/* A value of each PE combined over all PEs (max or sum), exchanged with
 * puts and one barrier outside any timed region.  The two slot arrays
 * alternate so a fast PE's next exchange cannot overwrite values a slow PE
 * is still reading (the barrier in between orders them). */
static double over_pes(double v, int sum)
{
    double *s = slots + (slot_parity++ & 1) * npes;
    for (int pe = 0; pe < npes; pe++)
        shmem_double_p(&s[me], v, pe);
    shmem_barrier_all();
    double r = s[0];
    for (int pe = 1; pe < npes; pe++)
        r = sum ? r + s[pe] : (s[pe] > r ? s[pe] : r);
    return r;
}

static unsigned char pat(long seed, int seg, size_t i)
{
    return (unsigned char)((unsigned long)seed * 131u + (unsigned)seg * 29u + i * 7u +
                           (i >> 8) * 3u + 1u);
}
#define GET_SEED 77L

/* Operations per sender per run for a row. */
static long row_ops(enum op op, size_t size)
{
    long n = iters;
    if (is_rma(op) && size > 256)
        n = (long)((double)iters * 256.0 / (double)size);
    if ((is_rma(op) || op == OP_ADD || op == OP_INC) && n < 2 * window)
        n = 2 * window;
    return (n + window - 1) / window * window;
}

static void rma_loop(struct thr *th, enum op op, size_t size, long n)
{
    long W = window;
    int pe = th->peer;
    if (op == OP_BPUT) {
        /* Blocking puts, one quiet at the end (what a program that simply
         * calls shmem_putmem in a loop pays). */
        char *dst = put_base + (size_t)th->seg * seg_stride;
        if (th->use_ctx) {
            for (long i = 0; i < n; i++)
                shmem_ctx_putmem(th->ctx, dst, th->src, size, pe);
            shmem_ctx_quiet(th->ctx);
        } else {
            for (long i = 0; i < n; i++)
                shmem_putmem(dst, th->src, size, pe);
            shmem_quiet();
        }
    } else if (op == OP_PUT) {
        char *dst = put_base + (size_t)th->seg * seg_stride;
#if HAVE_REQ
        if (th->use_req) {
            for (long i = 0; i < n; i += W) {
                shmemx_request_h rq = SHMEMX_REQUEST_NULL;
                for (long j = 0; j < W; j++)
                    shmemx_putmem_nbe(dst, th->src, size, pe, &rq);
                shmemx_request_wait(&rq);
            }
            return;
        }
#endif
        if (th->use_ctx)
            for (long i = 0; i < n; i += W) {
                for (long j = 0; j < W; j++)
                    shmem_ctx_putmem_nbi(th->ctx, dst, th->src, size, pe);
                shmem_ctx_quiet(th->ctx);
            }
        else
            for (long i = 0; i < n; i += W) {
                for (long j = 0; j < W; j++)
                    shmem_putmem_nbi(dst, th->src, size, pe);
                shmem_quiet();
            }
    } else {
        const char *src = get_base + (size_t)th->seg * seg_stride;
#if HAVE_REQ
        if (th->use_req) {
            for (long i = 0; i < n; i += W) {
                shmemx_request_h rq = SHMEMX_REQUEST_NULL;
                for (long j = 0; j < W; j++)
                    shmemx_getmem_nbe(th->dst, src, size, pe, &rq);
                shmemx_request_wait(&rq);
            }
            return;
        }
#endif
        if (th->use_ctx)
            for (long i = 0; i < n; i += W) {
                for (long j = 0; j < W; j++)
                    shmem_ctx_getmem_nbi(th->ctx, th->dst, src, size, pe);
                shmem_ctx_quiet(th->ctx);
            }
        else
            for (long i = 0; i < n; i += W) {
                for (long j = 0; j < W; j++)
                    shmem_getmem_nbi(th->dst, src, size, pe);
                shmem_quiet();
            }
    }
}

/* The AMO loops for one type (TN: the name in shmem_TN_atomic_*).  Word k
 * of a sender's AMO block serves operation k.  Returns the number of
 * fetched values that were not the expected ones; th->expect follows the
 * word's value. */
#define CX(call_ctx, call_plain) \
    do {                         \
        if (x)                   \
            call_ctx;            \
        else                     \
            call_plain;          \
    } while (0)
#define AMO_LOOP(TN, T)                                                               \
    static long amo_loop_##TN(struct thr *th, enum op op, long n)                     \
    {                                                                                 \
        T *w = (T *)(void *)(amo_base + (size_t)th->seg * AMO_STRIDE) + op;           \
        shmem_ctx_t c = th->ctx;                                                      \
        int pe = th->peer, x = th->use_ctx;                                           \
        long W = window, bad = 0;                                                     \
        T e = (T)th->expect[op], r;                                                   \
        switch (op) {                                                                 \
        case OP_ADD:                                                                  \
            for (long i = 0; i < n; i += W) {                                         \
                if (x) {                                                              \
                    for (long j = 0; j < W; j++)                                      \
                        shmem_ctx_##TN##_atomic_add(c, w, (T)ADD_VAL, pe);            \
                    shmem_ctx_quiet(c);                                               \
                } else {                                                              \
                    for (long j = 0; j < W; j++)                                      \
                        shmem_##TN##_atomic_add(w, (T)ADD_VAL, pe);                   \
                    shmem_quiet();                                                    \
                }                                                                     \
            }                                                                         \
            e += (T)(ADD_VAL * n);                                                    \
            break;                                                                    \
        case OP_INC:                                                                  \
            for (long i = 0; i < n; i += W) {                                         \
                if (x) {                                                              \
                    for (long j = 0; j < W; j++)                                      \
                        shmem_ctx_##TN##_atomic_inc(c, w, pe);                        \
                    shmem_ctx_quiet(c);                                               \
                } else {                                                              \
                    for (long j = 0; j < W; j++)                                      \
                        shmem_##TN##_atomic_inc(w, pe);                               \
                    shmem_quiet();                                                    \
                }                                                                     \
            }                                                                         \
            e += (T)n;                                                                \
            break;                                                                    \
        case OP_FADD:                                                                 \
            for (long i = 0; i < n; i++) {                                            \
                CX(r = shmem_ctx_##TN##_atomic_fetch_add(c, w, (T)ADD_VAL, pe),       \
                   r = shmem_##TN##_atomic_fetch_add(w, (T)ADD_VAL, pe));             \
                bad += r != e;                                                        \
                e += (T)ADD_VAL;                                                      \
            }                                                                         \
            break;                                                                    \
        case OP_FINC:                                                                 \
            for (long i = 0; i < n; i++) {                                            \
                CX(r = shmem_ctx_##TN##_atomic_fetch_inc(c, w, pe),                   \
                   r = shmem_##TN##_atomic_fetch_inc(w, pe));                         \
                bad += r != e;                                                        \
                e++;                                                                  \
            }                                                                         \
            break;                                                                    \
        case OP_CSWAP:                                                                \
            for (long i = 0; i < n; i++) {                                            \
                CX(r = shmem_ctx_##TN##_atomic_compare_swap(c, w, e, (T)(e + 1), pe), \
                   r = shmem_##TN##_atomic_compare_swap(w, e, (T)(e + 1), pe));       \
                bad += r != e;                                                        \
                e++;                                                                  \
            }                                                                         \
            break;                                                                    \
        case OP_SWAP:                                                                 \
            for (long i = 0; i < n; i++) {                                            \
                CX(r = shmem_ctx_##TN##_atomic_swap(c, w, (T)(e + 1), pe),            \
                   r = shmem_##TN##_atomic_swap(w, (T)(e + 1), pe));                  \
                bad += r != e;                                                        \
                e++;                                                                  \
            }                                                                         \
            break;                                                                    \
        case OP_FETCH:                                                                \
            for (long i = 0; i < n; i++) {                                            \
                CX(r = shmem_ctx_##TN##_atomic_fetch(c, w, pe),                       \
                   r = shmem_##TN##_atomic_fetch(w, pe));                             \
                bad += r != e;                                                        \
            }                                                                         \
            break;                                                                    \
        default: break;                                                               \
        }                                                                             \
        th->expect[op] = (uint64_t)e;                                                 \
        return bad;                                                                   \
    }
AMO_LOOP(long, long)
AMO_LOOP(ulonglong, unsigned long long)

#if HAVE_REQ
/* Config req: the same traffic through _nbe operations on this thread's
 * own requests (SHMEM_CTX_DEFAULT), in windows: the W posted AMOs of a
 * window join one request, waited for instead of quiet; the fetching ones
 * join one request per window of F (--fetch-window, default W), each
 * fetching into its own slot, and are checked after the wait.  The checks
 * do not assume that the window's operations ran in the order issued (over
 * a network they need not):
 *   fetch         every value is the word's value
 *   fetch_add/inc the values are e, e+s, ..., e+(F-1)s, each once
 *   swap          operation k stores e+1+k; the values are e..e+F, each
 *                 once, but for the one left in the word
 *   compare_swap  every operation compares with e (operation k stores
 *                 e+1+k): one gets e, the others the value it stored
 * With F = 1 a request per operation, waited for at once. */

/* Sets bit k of seen; 1 if it was set already. */
static int seen_test_set(uint64_t *seen, uint64_t k)
{
    uint64_t m = (uint64_t)1 << (k & 63), was = seen[k >> 6] & m;
    seen[k >> 6] |= m;
    return was != 0;
}

/* Fetched value j of a window: long or unsigned long long, 8 bytes, read
 * as uint64_t. */
static uint64_t fetched(const void *f, long j)
{
    uint64_t v;
    memcpy(&v, (const char *)f + (size_t)j * sizeof v, sizeof v);
    return v;
}

/* The checks above for one window of m fetched values at f, starting from
 * word value *e, which they advance.  The number wrong. */
static long window_check(enum op op, const void *f, long m, uint64_t *e, uint64_t *seen)
{
    long bad = 0;
    uint64_t s = op == OP_FADD ? ADD_VAL : 1, x = *e;
    memset(seen, 0, (size_t)(m / 64 + 1) * sizeof *seen);
    switch (op) {
    case OP_FETCH:
        for (long j = 0; j < m; j++)
            bad += fetched(f, j) != x;
        return bad;
    case OP_FADD:
    case OP_FINC:
        for (long j = 0; j < m; j++) {
            uint64_t d = fetched(f, j) - x;
            bad += d % s != 0 || d / s >= (uint64_t)m || seen_test_set(seen, d / s);
        }
        *e = x + (uint64_t)m * s;
        return bad;
    case OP_SWAP:
        for (long j = 0; j < m; j++) {
            uint64_t d = fetched(f, j) - x;
            bad += d > (uint64_t)m || seen_test_set(seen, d);
        }
        for (long k = 0; k <= m; k++) /* the value left in the word */
            if (!seen_test_set(seen, (uint64_t)k))
                *e = x + (uint64_t)k;
        return bad;
    default: { /* OP_CSWAP */
        long won = -1;
        for (long j = 0; j < m; j++)
            if (fetched(f, j) == x)
                won = won < 0 ? j : m; /* m: more than one */
        if (won < 0 || won == m)
            return m;
        for (long j = 0; j < m; j++)
            bad += j != won && fetched(f, j) != x + 1 + (uint64_t)won;
        *e = x + 1 + (uint64_t)won;
        return bad;
    }
    }
}

/* The word's value after a window of m fetching operations from e that
 * ran in the order issued. */
static uint64_t in_order_next(enum op op, uint64_t e, long m)
{
    switch (op) {
    case OP_FADD: return e + (uint64_t)m * ADD_VAL;
    case OP_FINC:
    case OP_SWAP: return e + (uint64_t)m;
    case OP_CSWAP: return e + 1;
    default: return e;
    }
}

#define AMO_REQ_LOOP(TN, T)                                                                     \
    static long amo_req_loop_##TN(struct thr *th, enum op op, long n)                           \
    {                                                                                           \
        T *w = (T *)(void *)(amo_base + (size_t)th->seg * AMO_STRIDE) + op;                     \
        T *f = th->fbuf;                                                                        \
        int pe = th->peer;                                                                      \
        long W = window, F = fetch_window, bad = 0;                                             \
        uint64_t e = th->expect[op];                                                            \
        shmemx_request_h q = SHMEMX_REQUEST_NULL;                                               \
        if (op == OP_ADD || op == OP_INC) {                                                     \
            for (long i = 0; i < n; i += W) {                                                   \
                for (long j = 0; j < W; j++)                                                    \
                    if (op == OP_ADD)                                                           \
                        shmemx_##TN##_atomic_add_nbe(w, (T)ADD_VAL, pe, &q);                    \
                    else                                                                        \
                        shmemx_##TN##_atomic_inc_nbe(w, pe, &q);                                \
                shmemx_request_wait(&q);                                                        \
            }                                                                                   \
            th->expect[op] = e + (uint64_t)((op == OP_ADD ? ADD_VAL : 1) * n);                  \
            return 0;                                                                           \
        }                                                                                       \
        for (long i = 0; i < n; i += F) {                                                       \
            long m = F < n - i ? F : n - i;                                                     \
            T x = (T)e;                                                                         \
            for (long j = 0; j < m; j++)                                                        \
                switch (op) {                                                                   \
                case OP_FADD:                                                                   \
                    shmemx_##TN##_atomic_fetch_add_nbe(&f[j], w, (T)ADD_VAL, pe, &q);           \
                    break;                                                                      \
                case OP_FINC: shmemx_##TN##_atomic_fetch_inc_nbe(&f[j], w, pe, &q); break;      \
                case OP_CSWAP:                                                                  \
                    shmemx_##TN##_atomic_compare_swap_nbe(&f[j], w, x, (T)(x + 1 + j), pe, &q); \
                    break;                                                                      \
                case OP_SWAP:                                                                   \
                    shmemx_##TN##_atomic_swap_nbe(&f[j], w, (T)(x + 1 + j), pe, &q);            \
                    break;                                                                      \
                default: shmemx_##TN##_atomic_fetch_nbe(&f[j], w, pe, &q); break;               \
                }                                                                               \
            shmemx_request_wait(&q);                                                            \
            /* In the order issued (always on this node) the values are \
             * known: compared as cheaply as the other configurations do. */                       \
            long off = 0;                                                                       \
            T s = op == OP_FADD ? (T)ADD_VAL : op == OP_FETCH ? (T)0 : (T)1;                    \
            if (op == OP_CSWAP) {                                                               \
                off = f[0] != x;                                                                \
                for (long j = 1; j < m; j++)                                                    \
                    off += f[j] != (T)(x + 1);                                                  \
            } else                                                                              \
                for (long j = 0; j < m; j++)                                                    \
                    off += f[j] != (T)(x + s * (T)j);                                           \
            if (off)                                                                            \
                bad += window_check(op, f, m, &e, th->seen);                                    \
            else                                                                                \
                e = in_order_next(op, e, m);                                                    \
        }                                                                                       \
        th->expect[op] = e;                                                                     \
        return bad;                                                                             \
    }
AMO_REQ_LOOP(long, long)
AMO_REQ_LOOP(ulonglong, unsigned long long)
#endif

/* Untimed: clear what the run is to fill, so the check cannot pass on data
 * left by an earlier run. */
static void prepare(struct thr *th, long seed)
{
    size_t n = job.size;
    if (is_put(job.op)) {
        for (size_t i = 0; i < n; i++) {
            th->src[i] = pat(seed, th->seg, i);
            th->chk[i] = (unsigned char)~th->src[i];
        }
        shmem_putmem(put_base + (size_t)th->seg * seg_stride, th->chk, n, th->peer);
        shmem_quiet();
    } else if (job.op == OP_GET) {
        for (size_t i = 0; i < n; i++)
            th->dst[i] = (unsigned char)~pat(GET_SEED, th->seg, i);
    }
}

/* Untimed: the target holds what the run should have left there. */
static long verify(struct thr *th, long seed)
{
    size_t n = job.size;
    long bad = 0;
    if (is_put(job.op)) {
        shmem_getmem(th->chk, put_base + (size_t)th->seg * seg_stride, n, th->peer);
        for (size_t i = 0; i < n; i++)
            bad += th->chk[i] != pat(seed, th->seg, i);
    } else if (job.op == OP_GET) {
        for (size_t i = 0; i < n; i++)
            bad += th->dst[i] != pat(GET_SEED, th->seg, i);
    } else {
        uint64_t v;
        shmem_getmem(&v, amo_base + (size_t)th->seg * AMO_STRIDE + job.op * sizeof v, sizeof v,
                     th->peer);
        bad += v != th->expect[job.op];
    }
    return bad;
}

static long seed_of_run; /* a new put pattern for every run */

static void run_job(struct thr *th)
{
    long seed = seed_of_run;
    prepare(th, seed);
    pthread_barrier_wait(&bar_start);
    double t0 = now();
    long bad;
    if (is_rma(job.op)) {
        rma_loop(th, job.op, job.size, job.n);
        bad = 0;
    } else {
#if HAVE_REQ
        if (th->use_req)
            bad = amo_ulonglong ? amo_req_loop_ulonglong(th, job.op, job.n)
                                : amo_req_loop_long(th, job.op, job.n);
        else
#endif
            bad = amo_ulonglong ? amo_loop_ulonglong(th, job.op, job.n)
                                : amo_loop_long(th, job.op, job.n);
    }
    th->elapsed = now() - t0;
    bad += verify(th, seed);
    if (bad && th->bad == 0)
        fprintf(stderr, "mt_rate: PE %d sender %d: %s size %zu: %ld wrong value(s)\n", me, th->seg,
                op_label[job.op], job.size, bad);
    th->bad += bad;
    pthread_barrier_wait(&bar_done);
}

static void thread_setup(struct thr *th, enum config cfg)
{
    th->ctx = SHMEM_CTX_DEFAULT;
    th->use_ctx = 0;
    th->use_req = cfg == CFG_REQ;
    if (cfg == CFG_CTX) {
        if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &th->ctx) == 0) {
            th->use_ctx = 1;
        } else {
            th->ctx = SHMEM_CTX_DEFAULT;
            th->ctx_failed = 1;
        }
    }
}

static void thread_teardown(struct thr *th)
{
    if (th->use_ctx)
        shmem_ctx_destroy(th->ctx);
}

static enum config worker_cfg;

static void *worker(void *arg)
{
    struct thr *th = arg;
    thread_setup(th, worker_cfg);
    for (;;) {
        pthread_barrier_wait(&bar_go);
        if (job.stop)
            break;
        run_job(th);
    }
    thread_teardown(th);
    return NULL;
}

static void size_label(char *buf, size_t len, size_t n)
{
    if (n >= (1u << 20) && n % (1u << 20) == 0)
        snprintf(buf, len, "%zu MiB", n >> 20);
    else if (n >= 1024 && n % 1024 == 0)
        snprintf(buf, len, "%zu KiB", n >> 10);
    else
        snprintf(buf, len, "%zu B", n);
}

struct row {
    enum op op;
    size_t size;
    long n;
    double *rate; /* Mmsg/s per round */
};

/* One run of a row (N operations) by every sender of the job, LOCAL of them
 * threads of this PE; returns the time of the slowest sender. */
static double run_row(struct thr *th, int local, const struct row *r, long n)
{
    shmem_barrier_all();
    seed_of_run++;
    double el = 0.0;
    if (local > 0) {
        job.op = r->op;
        job.size = r->size;
        job.n = n;
        pthread_barrier_wait(&bar_go);
        run_job(&th[0]);
        for (int t = 0; t < local; t++)
            el = th[t].elapsed > el ? th[t].elapsed : el;
    }
    return over_pes(el, 0);
}

/* One configuration: returns the number of wrong values over all PEs. */
static long run_config(enum config cfg, int ops_mask, const char *csv)
{
    int pes_mode = cfg == CFG_PES;
    int sender = pes_mode ? me < nthreads : me == 0;
    int local = sender ? (pes_mode ? 1 : nthreads) : 0; /* sender threads here */

    struct row rows[2 * MAX_SIZES + NOPS];
    int nrows = 0;
    for (int o = 0; o < NOPS; o++) {
        if (!(ops_mask & (1 << o)))
            continue;
        int nsz = is_rma((enum op)o) ? nsizes : 1;
        for (int k = 0; k < nsz; k++) {
            struct row *r = &rows[nrows++];
            r->op = (enum op)o;
            r->size = is_rma((enum op)o) ? sizes[k] : 8;
            r->n = row_ops(r->op, r->size);
            r->rate = calloc((size_t)rounds, sizeof(double));
            if (!r->rate) {
                fprintf(stderr, "mt_rate: out of memory\n");
                shmem_global_exit(1);
            }
        }
    }

    /* Every PE holds T segments and initialises what senders will read. */
    for (int s = 0; s < nthreads; s++) {
        if (get_base)
            for (size_t i = 0; i < seg_stride; i++)
                get_base[(size_t)s * seg_stride + i] = (char)pat(GET_SEED, s, i);
        uint64_t w[NOPS] = {0};
        w[OP_FETCH] = (uint64_t)(FETCH_BASE + s);
        memcpy(amo_base + (size_t)s * AMO_STRIDE, w, sizeof w); /* read as long or ull */
    }
    shmem_barrier_all();

    struct thr *th = calloc((size_t)(local > 0 ? local : 1), sizeof *th);
    if (!th) {
        fprintf(stderr, "mt_rate: out of memory\n");
        shmem_global_exit(1);
    }
    for (int t = 0; t < local; t++) {
        th[t].seg = pes_mode ? me : t;
        th[t].peer = pes_mode ? nthreads + me : 1;
        th[t].expect[OP_FETCH] = (uint64_t)(FETCH_BASE + th[t].seg);
        th[t].src = aligned_alloc(4096, seg_stride);
        th[t].dst = aligned_alloc(4096, seg_stride);
        th[t].chk = aligned_alloc(4096, seg_stride);
        th[t].fbuf = calloc((size_t)fetch_window, sizeof(uint64_t));
        th[t].seen = calloc((size_t)fetch_window / 64 + 1, sizeof(uint64_t));
        if (!th[t].src || !th[t].dst || !th[t].chk || !th[t].fbuf || !th[t].seen) {
            fprintf(stderr, "mt_rate: out of memory\n");
            shmem_global_exit(1);
        }
        memset(th[t].src, 0, seg_stride); /* first touch outside timing */
        memset(th[t].dst, 0, seg_stride);
        memset(th[t].chk, 0, seg_stride);
    }
    if (local > 0) {
        pthread_barrier_init(&bar_go, NULL, (unsigned)local);
        pthread_barrier_init(&bar_start, NULL, (unsigned)local);
        pthread_barrier_init(&bar_done, NULL, (unsigned)local);
        job.stop = 0;
        worker_cfg = cfg;
        thread_setup(&th[0], cfg);
        for (int t = 1; t < local; t++)
            if (pthread_create(&th[t].tid, NULL, worker, &th[t]) != 0) {
                fprintf(stderr, "mt_rate: pthread_create failed\n");
                shmem_global_exit(1);
            }
    }

    for (int k = 0; k < nrows; k++) /* warm-up: page faults, caches, contexts */
        run_row(th, local, &rows[k],
                rows[k].n / 4 > window ? rows[k].n / 4 / window * window : window);
    for (long r = 0; r < rounds; r++)
        for (int k = 0; k < nrows; k++) {
            double el = run_row(th, local, &rows[k], rows[k].n);
            rows[k].rate[r] = (double)nthreads * (double)rows[k].n / el * 1e-6;
        }

    int ctx_failed = 0;
    long bad = 0;
    if (local > 0) {
        job.stop = 1;
        pthread_barrier_wait(&bar_go);
        for (int t = 1; t < local; t++)
            pthread_join(th[t].tid, NULL);
        thread_teardown(&th[0]);
        pthread_barrier_destroy(&bar_go);
        pthread_barrier_destroy(&bar_start);
        pthread_barrier_destroy(&bar_done);
    }
    for (int t = 0; t < local; t++) {
        ctx_failed += th[t].ctx_failed;
        bad += th[t].bad;
        free(th[t].src);
        free(th[t].dst);
        free(th[t].chk);
        free(th[t].fbuf);
        free(th[t].seen);
    }
    free(th);
    bad = (long)over_pes((double)bad, 1);
    ctx_failed = (int)over_pes((double)ctx_failed, 1);

    if (me == 0) {
        printf("# mt_rate: config %s, %d PEs, %d sender%s (%s), window %ld, %ld rounds, AMO "
               "type %s\n",
               cfg_name[cfg], npes, nthreads, nthreads == 1 ? "" : "s",
               pes_mode ? "one per PE, PE s -> PE T+s" : "threads of PE 0 -> PE 1", window, rounds,
               amo_ulonglong ? "unsigned long long" : "long");
        if (cfg == CFG_REQ)
            printf("# req: fetching AMOs %ld per request\n", fetch_window);
        if (ctx_failed)
            printf("# ctx: shmem_ctx_create(SHMEM_CTX_PRIVATE) failed on %d of %d threads; "
                   "those used SHMEM_CTX_DEFAULT\n",
                   ctx_failed, nthreads);
        printf("# rate = operations of all senders / time of the slowest sender\n");
        printf("%-13s %8s %9s %10s %10s %10s %9s\n", "operation", "size", "ops/send", "Mmsg/s",
               "min", "max", "GB/s");
        for (int k = 0; k < nrows; k++) {
            struct row *r = &rows[k];
            struct stat3 s = summarize(r->rate, (int)rounds);
            char sz[32], gb[32];
            size_label(sz, sizeof sz, r->size);
            if (is_rma(r->op))
                snprintf(gb, sizeof gb, "%9.2f", s.med * 1e6 * (double)r->size * 1e-9);
            else
                snprintf(gb, sizeof gb, "%9s", "-");
            printf("%-13s %8s %9ld %10.4g %10.4g %10.4g %s\n", op_label[r->op], sz, r->n, s.med,
                   s.min, s.max, gb);
            bench_csv_row(csv, "mt_rate", cfg_name[cfg], npes, nthreads, r->size, op_metric[r->op],
                          "Mmsg/s", s, r->n);
        }
        if (bad)
            fprintf(stderr, "mt_rate: config %s: %ld WRONG value(s) (see above)\n", cfg_name[cfg],
                    bad);
        else
            printf("# data checked after every run: correct\n");
        fflush(stdout);
    }
    for (int k = 0; k < nrows; k++)
        free(rows[k].rate);
    shmem_barrier_all();
    return bad;
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        return -1;
    if (*end == 'k' || *end == 'K')
        v <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        v <<= 20, end++;
    if (*end != '\0' && *end != ',' && *end != ':')
        return -1;
    *out = (size_t)v;
    return (int)(end - s);
}

/* "8,64,4K" or "MIN:MAX[:FACTOR]". */
static int parse_sizes(const char *arg)
{
    nsizes = 0;
    if (strchr(arg, ':')) {
        size_t lo, hi, f = 2;
        int a = parse_size(arg, &lo);
        if (a < 0 || arg[a] != ':')
            return -1;
        int b = parse_size(arg + a + 1, &hi);
        if (b < 0)
            return -1;
        const char *rest = arg + a + 1 + b;
        if (*rest == ':' && (parse_size(rest + 1, &f) < 0 || f < 2))
            return -1;
        if (lo < 1 || hi < lo)
            return -1;
        for (size_t v = lo; v <= hi && nsizes < MAX_SIZES; v *= f)
            sizes[nsizes++] = v;
        return 0;
    }
    const char *p = arg;
    while (*p && nsizes < MAX_SIZES) {
        size_t v;
        int a = parse_size(p, &v);
        if (a < 0 || v < 1)
            return -1;
        sizes[nsizes++] = v;
        p += a;
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return nsizes > 0 ? 0 : -1;
}

static int parse_ops(const char *arg)
{
    int mask = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", arg);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int o;
        for (o = 0; o < NOPS; o++)
            if (!strcmp(tok, op_key[o]))
                break;
        if (o == NOPS)
            return -1;
        mask |= 1 << o;
    }
    return mask;
}

int main(int argc, char **argv)
{
    const char *csv = NULL;
    int cfg = -1, threads = 0, smoke = 0, ops_mask = (1 << NOPS) - 1;
    int sizes_set = 0, iters_set = 0, rounds_set = 0;
    const struct bench_opt opts[] = {BENCH_LONG("-w", NULL, window), BENCH_STR("--csv", NULL, csv),
                                     BENCH_END};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            return 0;
        } else if (!strcmp(a, "--smoke")) {
            smoke = 1;
        } else if (!strcmp(a, "--config") && more) {
            a = argv[++i];
            for (cfg = 0; cfg < NCFG && strcmp(a, cfg_name[cfg]); cfg++)
                ;
            if (cfg == NCFG) {
                fprintf(stderr, "mt_rate: unknown config '%s'\n", a);
                return 2;
            }
            if (cfg == CFG_REQ && !HAVE_REQ) {
                fprintf(stderr, "mt_rate: config req needs Shoal's shmemx.h (_nbe requests)\n");
                return 2;
            }
        } else if ((!strcmp(a, "--threads") || !strcmp(a, "-t")) && more) {
            threads = atoi(argv[++i]);
            if (threads < 1) {
                fprintf(stderr, "mt_rate: --threads must be >= 1\n");
                return 2;
            }
        } else if (!strcmp(a, "-s") && more) {
            if (parse_sizes(argv[++i]) < 0) {
                fprintf(stderr, "mt_rate: bad size list '%s'\n", argv[i]);
                return 2;
            }
            sizes_set = 1;
        } else if (!strcmp(a, "--fetch-window") && more) {
            fetch_window = atol(argv[++i]);
            if (fetch_window < 1) {
                fprintf(stderr, "mt_rate: --fetch-window must be >= 1\n");
                return 2;
            }
        } else if (!strcmp(a, "-i") && more) {
            iters = atol(argv[++i]);
            iters_set = 1;
        } else if (!strcmp(a, "-r") && more) {
            rounds = atol(argv[++i]);
            rounds_set = 1;
        } else if (!strcmp(a, "--ops") && more) {
            ops_mask = parse_ops(argv[++i]);
            if (ops_mask <= 0) {
                fprintf(stderr, "mt_rate: bad --ops list '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--type") && more) {
            a = argv[++i];
            if (!strcmp(a, "ulonglong"))
                amo_ulonglong = 1;
            else if (strcmp(a, "long")) {
                fprintf(stderr, "mt_rate: --type is long or ulonglong\n");
                return 2;
            }
        } else if (!bench_take(argc, argv, &i, opts)) {
            fprintf(stderr, "mt_rate: bad argument '%s' (see --help)\n", a);
            return 2;
        }
    }
    if (!sizes_set)
        parse_sizes(smoke ? "8,4K,64K" : "8:64K:2");
    if (smoke && !iters_set)
        iters = 2000;
    if (smoke && !rounds_set)
        rounds = 3;
    if (window < 1 || iters < 1 || rounds < 1) {
        fprintf(stderr, "mt_rate: -w, -i and -r must be >= 1\n");
        return 2;
    }
    if (!fetch_window)
        fetch_window = window;
    /* Without --config, --smoke covers both threaded configurations. */
    int cfgs[2], ncfg = 0;
    if (cfg >= 0)
        cfgs[ncfg++] = cfg;
    else if (smoke) {
        cfgs[ncfg++] = CFG_DEFAULT;
        cfgs[ncfg++] = CFG_CTX;
    } else
        cfgs[ncfg++] = CFG_DEFAULT;
    if (!threads && smoke && cfgs[0] != CFG_PES)
        threads = 2;

    int provided = SHMEM_THREAD_SINGLE;
    if (cfgs[0] == CFG_PES)
        shmem_init();
    else
        shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (cfgs[0] == CFG_PES) {
        nthreads = threads ? threads : npes / 2;
        if (npes != 2 * nthreads) {
            if (me == 0)
                fprintf(stderr,
                        "mt_rate: config pes with T = %d senders needs 2T = %d PEs "
                        "(got %d)\n",
                        nthreads, 2 * nthreads, npes);
            shmem_finalize();
            return 2;
        }
    } else {
        nthreads = threads ? threads : 1;
        if (npes != 2) {
            if (me == 0)
                fprintf(stderr, "mt_rate: configs default, ctx and req run on exactly 2 PEs "
                                "(oshrun -n 2)\n");
            shmem_finalize();
            return 2;
        }
        if (nthreads > 1 && provided != SHMEM_THREAD_MULTIPLE) {
            if (me == 0)
                fprintf(stderr,
                        "mt_rate: %d threads need SHMEM_THREAD_MULTIPLE, which this "
                        "library does not provide (provided %d)\n",
                        nthreads, provided);
            shmem_finalize();
            return 2;
        }
    }

    size_t maxsize = 8;
    for (int k = 0; k < nsizes; k++)
        maxsize = sizes[k] > maxsize ? sizes[k] : maxsize;
    seg_stride = (maxsize + 4095) / 4096 * 4096;
    size_t T = (size_t)nthreads;
    slots = shmem_calloc(2 * (size_t)npes, sizeof(double));
    amo_base = shmem_calloc(T, AMO_STRIDE);
    if (ops_mask & (1 << OP_PUT | 1 << OP_BPUT))
        put_base = shmem_calloc(T, seg_stride);
    if (ops_mask & (1 << OP_GET))
        get_base = shmem_calloc(T, seg_stride);
    if (!slots || !amo_base || ((ops_mask & (1 << OP_PUT | 1 << OP_BPUT)) && !put_base) ||
        ((ops_mask & (1 << OP_GET)) && !get_base)) {
        fprintf(stderr, "mt_rate: PE %d: symmetric allocation of %zu bytes failed\n", me,
                2 * T * seg_stride);
        shmem_global_exit(1);
    }

    long bad = 0;
    for (int c = 0; c < ncfg; c++)
        bad += run_config((enum config)cfgs[c], ops_mask, csv);

    shmem_barrier_all();
    shmem_free(get_base);
    shmem_free(put_base);
    shmem_free(amo_base);
    shmem_free(slots);
    shmem_finalize();
    return bad ? 1 : 0;
}
