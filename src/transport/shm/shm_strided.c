/* Strided copies of the on-node transport (shm.h). */
#include "transport/shm/shm.h"

void shoal_shm_strided(char *d, const char *s, ptrdiff_t dstep, ptrdiff_t sstep, size_t blen,
                       size_t nblocks)
{
    /* Small fixed-size elements: direct assignments beat memcpy calls. */
    if (blen == 8) {
        for (size_t b = 0; b < nblocks; b++, d += dstep, s += sstep)
            memcpy(d, s, 8);
    } else if (blen == 4) {
        for (size_t b = 0; b < nblocks; b++, d += dstep, s += sstep)
            memcpy(d, s, 4);
    } else {
        for (size_t b = 0; b < nblocks; b++, d += dstep, s += sstep)
            memcpy(d, s, blen);
    }
}
