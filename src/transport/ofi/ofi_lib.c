/* libfabric, loaded when a job chooses this transport (dlopen), not linked:
 * Debian's libfabric pulls in libinfinipath (its psm provider), whose
 * constructor sets handlers for SIGINT, SIGILL, SIGABRT, SIGBUS, SIGSEGV
 * and SIGTERM in every process that loads it, and the handlers Shoal sets
 * only where the program left a signal alone (the profile's partial file
 * on SIGTERM) were lost in every program, over the network or not.  So
 * libfabric enters a process only at the init of a job over OFI, and the
 * signals' dispositions are put back as they were once it is loaded and
 * its provider opened (ofi_init.c).
 * libfabric's other calls go through the tables of the objects these
 * return (the headers' inline functions). */
#include <dlfcn.h>
#include <string.h>

#include "transport/ofi/ofi_internal.h"

struct ofi_lib ofi_lib;

/* The library's name as its ABI 1 is installed (1.x and 2.x). */
#define OFI_LIB_NAME "libfabric.so.1"

static int resolve(void *h, const char *name, void **fn, char *err, size_t errlen)
{
    *fn = dlsym(h, name);
    if (!*fn)
        snprintf(err, errlen, "%s has no %s: %s", OFI_LIB_NAME, name, dlerror());
    return *fn ? 0 : -1;
}

static int load(void *h, char *err, size_t errlen)
{
    struct ofi_lib l = {0};
    if (resolve(h, "fi_getinfo", (void **)&l.getinfo, err, errlen) ||
        resolve(h, "fi_freeinfo", (void **)&l.freeinfo, err, errlen) ||
        resolve(h, "fi_dupinfo", (void **)&l.dupinfo, err, errlen) ||
        resolve(h, "fi_fabric", (void **)&l.fabric, err, errlen) ||
        resolve(h, "fi_version", (void **)&l.version, err, errlen) ||
        resolve(h, "fi_strerror", (void **)&l.strerror, err, errlen))
        return -1;
    l.handle = h;
    ofi_lib = l;
    return 0;
}

void ofi_signals_save(struct ofi_signals *saved)
{
    for (int s = 1; s < NSIG; s++)
        if (sigaction(s, NULL, &saved->act[s]) != 0)
            saved->act[s].sa_handler = SIG_ERR; /* not a signal one may catch */
}

void ofi_signals_restore(const struct ofi_signals *saved)
{
    for (int s = 1; s < NSIG; s++)
        if (saved->act[s].sa_handler != SIG_ERR)
            (void)sigaction(s, &saved->act[s], NULL);
}

int ofi_lib_open(char *err, size_t errlen)
{
    if (ofi_lib.handle)
        return 0;
    void *before = dlopen(OFI_LIB_NAME, RTLD_NOW | RTLD_NOLOAD);
    if (before)
        dlclose(before);
    void *h = dlopen(OFI_LIB_NAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, errlen, "libfabric cannot be loaded (%s): %s", OFI_LIB_NAME, dlerror());
        return -1;
    }
    if (load(h, err, errlen) < 0) {
        dlclose(h);
        return -1;
    }
    ofi_lib.in_process_before = before != NULL;
    return 0;
}

const char *ofi_strerror(int errnum)
{
    return ofi_lib.strerror ? ofi_lib.strerror(errnum) : strerror(errnum);
}
