/* Element-wise reduction kernels over the spec's reduction types. */
#ifndef SHOAL_COLL_REDUCE_OPS_H
#define SHOAL_COLL_REDUCE_OPS_H
#include <stddef.h>

/* acc[i] = acc[i] OP in[i] for i < n (acc is the left operand, so a
 * left-to-right pass over PEs 0..N-1 gives the same result everywhere). */
void shoal_red_combine(int op, int type, void *acc, const void *in, size_t n);
/* Bytes of one element of `type`. */
size_t shoal_red_size(int type);
/* Whether the spec's tables define OP for TYPE (the wrappers only generate
 * valid pairs; the check guards the internal callers). */
int shoal_red_valid(int op, int type);
#endif
