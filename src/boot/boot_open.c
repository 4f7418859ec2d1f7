/* Bootstrap selection: oshrun leaves SHOAL_BOOT_FD in every PE's
 * environment; without it the program runs as a singleton job of one PE
 * (started directly, `./prog`).  Set-but-malformed variables are errors
 * (boot_local.c names the variable), never a silent fallback to singleton. */
#include <stdlib.h>

#include "boot/boot.h"

int shoal_boot_open(struct shoal_boot *b, char *errbuf, size_t errlen)
{
    if (getenv(SHOAL_ENV_BOOT_FD))
        return shoal_boot_local_open(b, errbuf, errlen);
    return shoal_boot_singleton_open(b, errbuf, errlen);
}
