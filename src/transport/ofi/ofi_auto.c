/* SHOAL_TRANSPORTS=auto's look at this machine for libfabric (net.h's
 * fabric_fit), once the job needs a network: the user's FI_PROVIDER
 * decides for libfabric; else, where no fabric device is here (the
 * places SHOAL_OFI_AUTO_DEVICES lists), libfabric is not even loaded;
 * else the providers it offers with what Shoal needs (the hints of the
 * choice itself) go through the rule of ofi_auto_rule.c.  libfabric,
 * once loaded, stays for the job (a provider cannot be unloaded safely);
 * the signals' dispositions are put back as at init. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transport/ofi/ofi_auto.h"
#include "transport/ofi/ofi_env.h"
#include "transport/ofi/ofi_internal.h"

/* Is `path` a directory with an entry, or another file that exists? */
static int present(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return access(path, F_OK) == 0;
    int found = 0;
    for (struct dirent *e; !found && (e = readdir(d));)
        found = e->d_name[0] != '.';
    closedir(d);
    return found;
}

/* The first place of the ':'-separated list where a device is, into
 * `where`; 0 if none. */
static int device_here(const char *list, char *where, size_t len)
{
    for (const char *p = list; *p; p += strcspn(p, ":"), p += *p == ':') {
        /* memcpy, not "%.*s": GCC's AddressSanitizer build takes p for a
         * possible NULL there (-Werror=format-truncation). */
        size_t n = strcspn(p, ":");
        n = n < len ? n : len - 1;
        memcpy(where, p, n);
        where[n] = 0;
        if (where[0] && present(where))
            return 1;
    }
    return 0;
}

#define MAX_PROVS 64

/* The providers libfabric offers for Shoal's hints, through the rule. */
static int ask_libfabric(char *why, size_t len)
{
    static struct ofi_signals saved; /* 10 KB: off the stack */
    struct fi_info *list = NULL, *h = NULL;
    char err[200];
    int rc = -1;
    ofi_signals_save(&saved);
    if (ofi_lib_open(err, sizeof err) == 0 && (h = ofi_provider_hints(FI_PROGRESS_UNSPEC)) != NULL)
        rc = ofi_lib.getinfo(OFI_API_VERSION, NULL, NULL, 0, h, &list);
    ofi_signals_restore(&saved);
    if (h)
        ofi_lib.freeinfo(h);
    const char *provs[MAX_PROVS];
    size_t n = 0;
    for (struct fi_info *i = rc == 0 ? list : NULL; i && n < MAX_PROVS; i = i->next)
        provs[n++] = i->fabric_attr->prov_name;
    int fit = SHOAL_FIT_GENERIC;
    if (rc == 0 || rc == -FI_ENODATA)
        fit = ofi_auto_rule(provs, n, why, len);
    else
        snprintf(why, len, "%s", ofi_lib.handle ? ofi_strerror(-rc) : err);
    if (list)
        ofi_lib.freeinfo(list);
    return fit;
}

int ofi_net_fabric_fit(char *why, size_t len)
{
    const char *user = getenv("FI_PROVIDER"); /* even empty: libfabric then offers nothing */
    if (user) {
        snprintf(why, len, "FI_PROVIDER=%s is set", user);
        return SHOAL_FIT_USER;
    }
    char where[128];
    if (!device_here(ofi_cfg.auto_devices, where, sizeof where)) {
        snprintf(why, len, "no fabric device in %s", ofi_cfg.auto_devices);
        return SHOAL_FIT_GENERIC;
    }
    return ask_libfabric(why, len);
}
