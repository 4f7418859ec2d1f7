/* Which routine a program's shmem_X is bound to (docs/profiling.md, Cost):
 * while SHOAL_PROFILE counts, a routine with a target PE that the program
 * binds after shmem_init is the profile's counted twin, not pshmem_X (an
 * indirect function, tools/gen/templates/api_family.c.in), so that an
 * on-node put pays the count only; with the profile off, and for a routine
 * without a target, it is pshmem_X.  dlsym resolves the names as a first
 * call would.  A put, a p and an atomic through the bound routines land.
 *
 *     oshrun -n 1 prof_bind on|off      exit 0 when every binding is right
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <shmem.h>
#include <stdio.h>
#include <string.h>

static int failures;

/* shmem_`name` against pshmem_`name`: the same routine, or not. */
static void *bound(const char *name, int want_twin)
{
    char plain[64], profiled[64];
    snprintf(plain, sizeof plain, "shmem_%s", name);
    snprintf(profiled, sizeof profiled, "pshmem_%s", name);
    void *f = dlsym(RTLD_DEFAULT, plain), *pf = dlsym(RTLD_DEFAULT, profiled);
    if (!f || !pf) {
        printf("FAIL: %s or %s not found\n", plain, profiled);
        failures++;
        return NULL;
    }
    if ((f != pf) != want_twin) {
        printf("FAIL: %s is bound to %s\n", plain, f == pf ? profiled : "another routine");
        failures++;
    }
    return f;
}

int main(int argc, char **argv)
{
    int on = argc > 1 && !strcmp(argv[1], "on");
    shmem_init();
    static long words[2], sum;
    long one = 1;
    void (*put)(void *, const void *, size_t, int) = bound("putmem", on);
    void (*p)(long *, long, int) = bound("long_p", on);
    void (*add)(long *, long, int) = bound("long_atomic_add", on);
    bound("quiet", 0);
    bound("barrier_all", 0);
    if (put && p && add) {
        int me = shmem_my_pe();
        put(&words[0], &one, sizeof one, me);
        p(&words[1], 2, me);
        add(&sum, 3, me);
        add(&sum, 4, me);
        shmem_quiet();
        if (words[0] != 1 || words[1] != 2 || sum != 7) {
            printf("FAIL: put %ld (1), p %ld (2), adds %ld (7)\n", words[0], words[1], sum);
            failures++;
        }
    }
    shmem_finalize();
    printf("bind %s: %s\n", on ? "on" : "off", failures ? "FAILED" : "ok");
    return failures != 0;
}
