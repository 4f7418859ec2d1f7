/* The profiling interface beside the profile's binding (docs/profiling.md,
 * Cost): a tool that defines its own shmem_putmem and shmem_long_atomic_add
 * and calls pshmem_X is the one the program reaches, whether SHOAL_PROFILE
 * counts (each shmem_X of a routine with a target is then an indirect
 * function in libshoal) or not; the calls land.
 *
 *     oshrun -n 1 prof_interpose      exit 0 when the tool saw every call
 */
#include <pshmem.h>
#include <shmem.h>
#include <stdio.h>

static int tool_calls;

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    tool_calls++;
    pshmem_putmem(dest, source, nelems, pe);
}

void shmem_long_atomic_add(long *dest, long value, int pe)
{
    tool_calls++;
    pshmem_long_atomic_add(dest, value, pe);
}

int main(void)
{
    shmem_init();
    static long word, sum;
    long five = 5;
    int me = shmem_my_pe();
    shmem_putmem(&word, &five, sizeof five, me);
    shmem_long_atomic_add(&sum, 2, me);
    shmem_long_atomic_add(&sum, 3, me);
    shmem_quiet();
    int ok = tool_calls == 3 && word == 5 && sum == 5;
    if (!ok)
        printf("FAIL: the tool saw %d calls (3), put %ld (5), adds %ld (5)\n", tool_calls, word,
               sum);
    shmem_finalize();
    printf("interpose: %s\n", ok ? "ok" : "FAILED");
    return !ok;
}
