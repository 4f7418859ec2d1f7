/* Bootstrap selection.  SHOAL_BOOT=auto (the default) decides from the
 * environment:
 *   - oshrun leaves SHOAL_BOOT_FD in every PE's environment -> local (it
 *     wins even inside a PMIx job: oshrun started under mpirun or srun);
 *   - a PMIx launcher (Open MPI's mpirun, Slurm's srun --mpi=pmix, PRRTE)
 *     sets PMIX_NAMESPACE and PMIX_RANK -> pmix;
 *   - nothing -> a singleton job of one PE (started directly, `./prog`).
 * SHOAL_BOOT=local|pmix|singleton forces one.  Set-but-malformed variables
 * are errors (boot_local.c names the variable), and so is a PMIx launch of a
 * build without PMIx: never a silent fallback to N singletons. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"

/* The variables every PMIx server gives the processes it starts. */
static const char *pmix_launch_var(void)
{
    static const char *const vars[] = {"PMIX_NAMESPACE", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]))
            return vars[i];
    return NULL;
}

static int open_pmix(struct shoal_boot *b, const char *why, char *errbuf, size_t errlen)
{
#ifdef SHOAL_HAVE_PMIX
    (void)why;
    return shoal_boot_pmix_open(b, errbuf, errlen);
#else
    (void)b;
    snprintf(errbuf, errlen,
             "%s, but this Shoal was built without PMIx support: rebuild it with PMIx "
             "(Debian: libpmix-dev; CMake -DSHOAL_WITH_PMIX=ON), start the program with oshrun, "
             "or set %s=singleton to run every process as a job of its own",
             why, SHOAL_ENV_BOOT);
    return -1;
#endif
}

const char *shoal_boot_built(void)
{
#ifdef SHOAL_HAVE_PMIX
    return "local, pmix, singleton";
#else
    return "local, singleton";
#endif
}

static int open_one(struct shoal_boot *b, char *errbuf, size_t errlen)
{
    const char *mode = getenv(SHOAL_ENV_BOOT);
    if (!mode || !strcmp(mode, "auto")) {
        if (getenv(SHOAL_ENV_BOOT_FD))
            return shoal_boot_local_open(b, errbuf, errlen);
        const char *var = pmix_launch_var();
        if (var) {
            char why[160];
            snprintf(why, sizeof why,
                     "the program was started by a PMIx launcher (mpirun, srun --mpi=pmix: %s "
                     "is set)",
                     var);
            return open_pmix(b, why, errbuf, errlen);
        }
        return shoal_boot_singleton_open(b, errbuf, errlen);
    }
    if (!strcmp(mode, "local")) {
        if (!getenv(SHOAL_ENV_BOOT_FD)) {
            snprintf(errbuf, errlen,
                     "%s=local asks for oshrun's bootstrap, but %s is not set: start the program "
                     "with oshrun",
                     SHOAL_ENV_BOOT, SHOAL_ENV_BOOT_FD);
            return -1;
        }
        return shoal_boot_local_open(b, errbuf, errlen);
    }
    if (!strcmp(mode, "pmix"))
        return open_pmix(b, SHOAL_ENV_BOOT "=pmix asks for the PMIx bootstrap", errbuf, errlen);
    if (!strcmp(mode, "singleton"))
        return shoal_boot_singleton_open(b, errbuf, errlen);
    snprintf(errbuf, errlen,
             "environment variable %s='%.40s' is malformed: expected one of auto, local, pmix, "
             "singleton",
             SHOAL_ENV_BOOT, mode);
    return -1;
}

int shoal_boot_open(struct shoal_boot *b, char *errbuf, size_t errlen)
{
    int rc = open_one(b, errbuf, errlen);
    shoal_boot_set_report_fd(-1); /* handed on, or nobody to hand it to: closed */
    return rc;
}
