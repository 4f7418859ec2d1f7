/* The benchmarks' option loops: the options that take one value (a
 * number or a string) are rows of a table, taken one argv word at a time
 * by bench_take; flags and options with their own parsing stay branches
 * of the loop.  Header-only like bench_stats.h.
 *
 *   const struct bench_opt opts[] = {BENCH_LONG("-r", NULL, rounds),
 *                                    BENCH_STR("--csv", NULL, csv), BENCH_END};
 *   ... } else if (!bench_take(argc, argv, &i, opts)) { bad argument } */
#ifndef SHOAL_BENCH_ARGS_H
#define SHOAL_BENCH_ARGS_H
#include <stdlib.h>
#include <string.h>

struct bench_opt {
    const char *name, *alias; /* "-t", "--threads" (or NULL) */
    char kind;                /* 'i' int, 'l' long, 'd' double, 's' string */
    void *value;
};
/* The variable's type is checked: a pointer of another type makes the
 * conditional's operands mismatch (a warning, an error under -Werror). */
#define BENCH_INT(n, alias, v)                       \
    {                                                \
        n, alias, 'i', (void *)(1 ? &(v) : (int *)0) \
    }
#define BENCH_LONG(n, alias, v)                       \
    {                                                 \
        n, alias, 'l', (void *)(1 ? &(v) : (long *)0) \
    }
#define BENCH_DOUBLE(n, alias, v)                       \
    {                                                   \
        n, alias, 'd', (void *)(1 ? &(v) : (double *)0) \
    }
#define BENCH_STR(n, alias, v)                               \
    {                                                        \
        n, alias, 's', (void *)(1 ? &(v) : (const char **)0) \
    }
#define BENCH_END           \
    {                       \
        NULL, NULL, 0, NULL \
    }

/* If argv[*i] names an option of `opts` and a value follows, stores the
 * value (atoi, atol, atof, or the word itself), moves *i onto it and
 * returns 1; otherwise 0 (an unknown word, or an option without value). */
static inline int bench_take(int argc, char **argv, int *i, const struct bench_opt *opts)
{
    const char *a = argv[*i];
    if (*i + 1 >= argc)
        return 0;
    for (const struct bench_opt *o = opts; o->name; o++) {
        if (strcmp(a, o->name) && !(o->alias && !strcmp(a, o->alias)))
            continue;
        const char *v = argv[++*i];
        switch (o->kind) {
        case 'i': *(int *)o->value = atoi(v); break;
        case 'l': *(long *)o->value = atol(v); break;
        case 'd': *(double *)o->value = atof(v); break;
        default: *(const char **)o->value = v; break;
        }
        return 1;
    }
    return 0;
}
#endif
