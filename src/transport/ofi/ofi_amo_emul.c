/* Atomics the provider lacks (ofi_amo_check found them invalid, or
 * SHOAL_OFI_AMO_DISABLE, a testing knob, names them), carried by the
 * provider's compare-and-swap on the same word: guess the old value,
 * swap in what the operation makes of it if the word still holds the
 * guess, else guess what it held.  The swap that succeeds is the
 * operation, at one moment, on the word the provider serialises every
 * atomic on; every AMO of the job goes through the provider (amo_via_net),
 * so it stays atomic against each of them, native or emulated, and plain
 * loads see the old or the new value.  A fetch is one compare-and-swap
 * that writes back what it compared with.  Each guess costs a round trip;
 * the first guess is 0 (a counter's or a lock's usual start). */
#include <string.h>

#include "transport/ofi/ofi_internal.h"

static uint64_t apply(int op, uint64_t old, uint64_t value)
{
    switch (op) {
    case SHOAL_AMO_SET:
    case SHOAL_AMO_SWAP: return value;
    case SHOAL_AMO_FADD:
    case SHOAL_AMO_ADD: return old + value;
    case SHOAL_AMO_FAND:
    case SHOAL_AMO_AND: return old & value;
    case SHOAL_AMO_FOR:
    case SHOAL_AMO_OR: return old | value;
    case SHOAL_AMO_FXOR:
    case SHOAL_AMO_XOR: return old ^ value;
    default: /* SHOAL_AMO_FETCH */ return old;
    }
}

uint64_t ofi_amo_emulate(struct ofi_ep *e, int op, const void *dest, unsigned size, uint64_t value,
                         int pe, const char *fn)
{
    const uint64_t mask = size == 8 ? UINT64_MAX : UINT32_MAX;
    uint64_t guess = 0;
    for (;;) {
        const uint64_t want = apply(op, guess, value) & mask;
        const uint64_t old = ofi_amo_blocking(e, SHOAL_AMO_CSWAP, dest, size, want, guess, pe, fn);
        if (old == guess || op == SHOAL_AMO_FETCH)
            return old;
        guess = old;
    }
}

void ofi_amo_describe(FILE *f, const char *prefix)
{
    char list[256] = "";
    size_t n = 0;
    for (int op = 0; ofi_amo_name(op); op++)
        for (int wide = 0; wide < 2; wide++)
            if (!ofi_amo_native[op][wide] && n < sizeof list)
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%s/%d", n ? ", " : "",
                                      ofi_amo_name(op), wide ? 64 : 32);
    fprintf(f, "%sOFI atomics emulated by compare-and-swap over the network: %s\n", prefix,
            n ? list : "none (the provider does every one)");
}
