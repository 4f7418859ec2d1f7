/* Micro-benchmark of the symmetric-heap allocator (src/core/memory/heap_alloc.c):
 * speed of alloc/free, and fragmentation measured as the smallest heap that
 * runs a workload without failure, relative to the workload's peak live bytes.
 * Standalone (no libshoal):
 *   cc -O2 -std=c11 -D_GNU_SOURCE -Isrc bench/internal/heap_alloc_bench.c \
 *      src/core/memory/heap_alloc.c
 */
#include "core/memory/heap_alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

static uint64_t rs;
static uint64_t rng(void)
{
    rs ^= rs >> 12;
    rs ^= rs << 25;
    rs ^= rs >> 27;
    return rs * 0x2545F4914F6CDD1Dull;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Workloads: a live set of up to `slots` blocks, each step frees a random
 * one and allocates a replacement. */
enum wl { SAME, SMALL_MIXED, HPC_MIXED, NWL };
static const char *wl_name[NWL] = {"same size 4 KiB", "mixed 64 B..4 KiB",
                                   "HPC mix (many small, some MiB arrays)"};

static size_t wl_size(enum wl w)
{
    switch (w) {
    case SAME: return 4 * KiB;
    case SMALL_MIXED: return 64 + rng() % (4 * KiB);
    default: {
        uint64_t r = rng() % 100;
        if (r < 70)
            return 8 + rng() % 1024;
        if (r < 95)
            return 16 * KiB + rng() % (64 * KiB);
        return 1 * MiB + rng() % (8 * MiB);
    }
    }
}

static size_t wl_align(enum wl w)
{
    return w == HPC_MIXED && rng() % 8 == 0 ? 4 * KiB : 64;
}

/* Runs the workload on a heap of `heap` bytes; returns 0 if no alloc failed
 * and reports peak live bytes and time per alloc+free pair. */
static int run(enum wl w, size_t heap, size_t slots, size_t steps, size_t *peak, double *ns)
{
    struct shoal_heap *h = shoal_heap_create(0, heap);
    size_t *off = calloc(slots, sizeof *off), *sz = calloc(slots, sizeof *sz), live = 0;
    int rc = 0;
    if (!h || !off || !sz)
        exit(1);
    rs = 42;
    *peak = 0;
    for (size_t k = 0; k < slots && !rc; k++) {
        sz[k] = wl_size(w);
        rc = shoal_heap_alloc(h, sz[k], wl_align(w), &off[k]);
        live += (sz[k] + 63) & ~(size_t)63;
    }
    double t0 = now();
    for (size_t s = 0; s < steps && !rc; s++) {
        size_t k = rng() % slots;
        shoal_heap_free(h, off[k]);
        live -= (sz[k] + 63) & ~(size_t)63;
        sz[k] = wl_size(w);
        rc = shoal_heap_alloc(h, sz[k], wl_align(w), &off[k]);
        live += (sz[k] + 63) & ~(size_t)63;
        if (live > *peak)
            *peak = live;
    }
    *ns = (now() - t0) * 1e9 / (double)steps;
    shoal_heap_destroy(h);
    free(off);
    free(sz);
    return rc;
}

int main(void)
{
    const size_t slots = 4096, steps = 200000;
    printf("%-40s %10s %12s %12s %8s\n", "workload", "ns/pair", "peak live", "min heap", "ratio");
    for (int w = 0; w < NWL; w++) {
        size_t peak, p2, lo, hi = (size_t)1 << 40;
        double ns, ns2;
        if (run((enum wl)w, hi, slots, steps, &peak, &ns))
            return 1;
        /* Smallest heap (to 1%) on which the same sequence never fails. */
        lo = peak;
        while (hi - lo > peak / 100) {
            size_t mid = ((lo + (hi - lo) / 2) + 63) & ~(size_t)63;
            if (run((enum wl)w, mid, slots, steps, &p2, &ns2))
                lo = mid;
            else
                hi = mid;
        }
        printf("%-40s %10.1f %10zu K %10zu K %8.3f\n", wl_name[w], ns, peak / KiB, hi / KiB,
               (double)hi / (double)peak);
    }
    return 0;
}
