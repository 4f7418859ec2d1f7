/* shmem-info: version, build configuration, transports, and every
 * environment variable Shoal reads with its current value and meaning.
 * With --job it initializes (run it under oshrun) and prints the job view. */
#include <stdio.h>
#include <string.h>

#include <shmem.h>

#include "core/runtime.h"

int main(int argc, char **argv)
{
    int job = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--job")) {
            job = 1;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: shmem-info [--job]\n"
                   "  Prints Shoal's version, build configuration, transports and the\n"
                   "  environment variables it reads, with their current values.\n"
                   "  --job  initialize first (run as `oshrun -n N shmem-info --job`) and\n"
                   "         add what the running job sees (PEs, heap, static data).\n");
            return 0;
        } else {
            fprintf(stderr, "shmem-info: unknown option '%s' (try --help)\n", argv[i]);
            return 2;
        }
    }
    if (job) {
        shmem_init();
        if (shmem_my_pe() == 0)
            shoal_print_info(stdout);
        shmem_finalize();
        return 0;
    }
    shoal_print_info(stdout);
    return 0;
}
