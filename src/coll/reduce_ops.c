/* Reduction kernels.  Integer SUM and PROD run in the unsigned type of the
 * same width, so overflow wraps (two's complement) instead of being
 * undefined behaviour; MAX and MIN compare in the element's own type. */
#include "coll/reduce_ops.h"

#include <stdint.h>

#include "coll/coll.h"

#define LOOP(T, EXPR)                  \
    do {                               \
        T *a = acc;                    \
        const T *b = in;               \
        for (size_t i = 0; i < n; i++) \
            EXPR;                      \
    } while (0)

#define INT_KERNELS(DT, T, U)                                                 \
    static void red_##DT(int op, void *acc, const void *in, size_t n)         \
    {                                                                         \
        switch (op) {                                                         \
        case SHOAL_RED_AND: LOOP(T, a[i] = (T)(a[i] & b[i])); break;          \
        case SHOAL_RED_OR: LOOP(T, a[i] = (T)(a[i] | b[i])); break;           \
        case SHOAL_RED_XOR: LOOP(T, a[i] = (T)(a[i] ^ b[i])); break;          \
        case SHOAL_RED_MAX: LOOP(T, a[i] = b[i] > a[i] ? b[i] : a[i]); break; \
        case SHOAL_RED_MIN: LOOP(T, a[i] = b[i] < a[i] ? b[i] : a[i]); break; \
        case SHOAL_RED_SUM: LOOP(T, a[i] = (T)((U)a[i] + (U)b[i])); break;    \
        default: LOOP(T, a[i] = (T)((U)a[i] * (U)b[i])); break;               \
        }                                                                     \
    }
/* Unsigned char and short promote to int before multiplying: go through
 * unsigned int so the product cannot overflow a signed int. */
#define SMALL_KERNELS(DT, T, U)                                                                   \
    static void red_##DT(int op, void *acc, const void *in, size_t n)                             \
    {                                                                                             \
        switch (op) {                                                                             \
        case SHOAL_RED_AND: LOOP(T, a[i] = (T)(a[i] & b[i])); break;                              \
        case SHOAL_RED_OR: LOOP(T, a[i] = (T)(a[i] | b[i])); break;                               \
        case SHOAL_RED_XOR: LOOP(T, a[i] = (T)(a[i] ^ b[i])); break;                              \
        case SHOAL_RED_MAX: LOOP(T, a[i] = b[i] > a[i] ? b[i] : a[i]); break;                     \
        case SHOAL_RED_MIN: LOOP(T, a[i] = b[i] < a[i] ? b[i] : a[i]); break;                     \
        case SHOAL_RED_SUM: LOOP(T, a[i] = (T)(U)((unsigned)(U)a[i] + (unsigned)(U)b[i])); break; \
        default: LOOP(T, a[i] = (T)(U)((unsigned)(U)a[i] * (unsigned)(U)b[i])); break;            \
        }                                                                                         \
    }
#define FLT_KERNELS(DT, T, U)                                                 \
    static void red_##DT(int op, void *acc, const void *in, size_t n)         \
    {                                                                         \
        switch (op) {                                                         \
        case SHOAL_RED_MAX: LOOP(T, a[i] = b[i] > a[i] ? b[i] : a[i]); break; \
        case SHOAL_RED_MIN: LOOP(T, a[i] = b[i] < a[i] ? b[i] : a[i]); break; \
        case SHOAL_RED_SUM: LOOP(T, a[i] = a[i] + b[i]); break;               \
        default: LOOP(T, a[i] = a[i] * b[i]); break;                          \
        }                                                                     \
    }
#define CPX_KERNELS(DT, T, U)                                         \
    static void red_##DT(int op, void *acc, const void *in, size_t n) \
    {                                                                 \
        if (op == SHOAL_RED_SUM)                                      \
            LOOP(T, a[i] = a[i] + b[i]);                              \
        else                                                          \
            LOOP(T, a[i] = a[i] * b[i]);                              \
    }

/* One kernel per type of SHOAL_FOREACH_REDUCE_TYPE (generated shoal_types.h),
 * by its kind: SMALL (promoted to int), INT, FLT or CPX. */
#define KERNEL_SMALL SMALL_KERNELS
#define KERNEL_INT INT_KERNELS
#define KERNEL_FLT FLT_KERNELS
#define KERNEL_CPX CPX_KERNELS
#define PICK(DT, T, U, K) KERNEL_##K(DT, T, U)
/* cppcheck sees through one level of token pasting only: the kernels
 * defined here are checked by the compiler's warnings and the suite. */
// cppcheck-suppress unknownMacro
SHOAL_FOREACH_REDUCE_TYPE(PICK)
#undef PICK

typedef void (*kernel_fn)(int, void *, const void *, size_t);
static const struct {
    kernel_fn fn;
    size_t size;
    int kind; /* 0 integer, 1 floating, 2 complex */
} kernels[SHOAL_DT_COUNT] = {
#define KIND_SMALL 0
#define KIND_INT 0
#define KIND_FLT 1
#define KIND_CPX 2
#define ROW(DT, T, U, K) [SHOAL_DT_##DT] = {red_##DT, sizeof(T), KIND_##K},
    SHOAL_FOREACH_REDUCE_TYPE(ROW)
#undef ROW
};

void shoal_red_combine(int op, int type, void *acc, const void *in, size_t n)
{
    kernels[type].fn(op, acc, in, n);
}

size_t shoal_red_size(int type)
{
    return kernels[type].size;
}

int shoal_red_valid(int op, int type)
{
    if (type < 0 || type >= SHOAL_DT_COUNT || op < SHOAL_RED_AND || op > SHOAL_RED_PROD)
        return 0;
    switch (kernels[type].kind) {
    case KIND_FLT: return op >= SHOAL_RED_MAX;
    case KIND_CPX: return op == SHOAL_RED_SUM || op == SHOAL_RED_PROD;
    default: return 1;
    }
}
