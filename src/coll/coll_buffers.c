/* Checks that a collective's symmetric buffers hold what its counts say,
 * made on every member before the first sync: a count too large for the
 * objects (or for the address space) is the caller's mistake and is named
 * as such, instead of a copy that runs off the segment on one member and a
 * crash in memcpy. */
#include "coll/coll_internal.h"

#include <stdlib.h>

void *shoal_coll_alloc(size_t n, const char *what, const char *fn)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        shoal_fatal(fn, "out of private memory for a %zu-byte %s buffer", n, what);
    return p;
}

void shoal_coll_check_buf(const void *p, size_t nblocks, size_t block, const char *arg,
                          const char *count, const char *fn)
{
    size_t n;
    if (SHOAL_UNLIKELY(__builtin_mul_overflow(nblocks, block, &n)))
        shoal_fatal(fn,
                    "argument '%s' is too large: '%s' would hold %zu blocks of %zu bytes, more "
                    "bytes than the address space holds",
                    count, arg, nblocks, block);
    if (n)
        (void)shoal_addr_n(p, n, shoal_g.my_pe, fn, arg, count);
}

void shoal_coll_check_strided(const void *p, size_t nblocks, size_t nelems, ptrdiff_t stride,
                              size_t esize, const char *arg, const char *count, const char *fn)
{
    /* Element k lies at p + k * stride * esize, k < nblocks * nelems
     * (stride >= 1). */
    size_t n, span;
    if (nblocks == 0 || nelems == 0)
        return;
    if (__builtin_mul_overflow(nblocks, nelems, &n) ||
        __builtin_mul_overflow(n - 1, (size_t)stride, &span) ||
        __builtin_add_overflow(span, 1, &span))
        shoal_fatal(fn,
                    "argument '%s' = %zu is too large: %zu blocks of it with stride %td in '%s' "
                    "span more bytes than the address space holds",
                    count, nelems, nblocks, stride, arg);
    shoal_coll_check_buf(p, span, esize, arg, count, fn);
}
