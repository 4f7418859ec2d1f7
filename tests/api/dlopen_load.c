/* A program that loads libshoal at run time, as Python's cffi (shmem4py),
 * Julia or R do, then uses it: each PE puts its number into the next PE's
 * symmetric word and checks what arrived from the previous one.  glibc
 * places a dlopen'ed library's initial-exec thread-locals in a small static
 * reserve; if libshoal's do not fit, dlopen fails ("cannot allocate memory
 * in static TLS block") and so does this test.  Not linked with libshoal:
 * argv[1] is its path. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*void_fn)(void);
typedef int (*int_fn)(void);
typedef void *(*malloc_fn)(size_t);
typedef void (*free_fn)(void *);
typedef void (*int_p_fn)(int *, int, int);

static void *must_sym(void *lib, const char *name)
{
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "dlopen_load: no symbol %s: %s\n", name, dlerror());
        exit(1);
    }
    return f;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: dlopen_load PATH_TO_LIBSHOAL\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen_load: dlopen(%s) failed: %s\n", argv[1], dlerror());
        return 1;
    }
    ((void_fn)must_sym(lib, "shmem_init"))();
    const int me = ((int_fn)must_sym(lib, "shmem_my_pe"))();
    const int npes = ((int_fn)must_sym(lib, "shmem_n_pes"))();
    int *word = ((malloc_fn)must_sym(lib, "shmem_malloc"))(sizeof *word);
    *word = -1;
    ((void_fn)must_sym(lib, "shmem_barrier_all"))();
    ((int_p_fn)must_sym(lib, "shmem_int_p"))(word, me, (me + 1) % npes);
    ((void_fn)must_sym(lib, "shmem_barrier_all"))();
    const int want = (me + npes - 1) % npes;
    int rc = 0;
    if (*word != want) {
        fprintf(stderr, "PE %d: got %d from the previous PE, expected %d\n", me, *word, want);
        rc = 1;
    }
    ((free_fn)must_sym(lib, "shmem_free"))(word);
    ((void_fn)must_sym(lib, "shmem_finalize"))();
    if (rc == 0 && me == 0)
        printf("dlopen_load: %d PEs loaded libshoal with dlopen and exchanged words\n", npes);
    return rc;
}
