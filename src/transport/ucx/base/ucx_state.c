/* The transport's state (ucx_g) and its errors: one line naming the
 * routine, through core's hooks (ucx_g.hooks), then the job ends through
 * the bootstrap, or goes on after a warning. */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "boot/boot.h"
#include "transport/ucx/base/ucx_base.h"

struct ucx_state ucx_g;

/* One line of text from a printf format, for core's error hooks. */
#define FORMAT_MSG(msg, fmt)                 \
    do {                                     \
        va_list ap;                          \
        va_start(ap, fmt);                   \
        vsnprintf(msg, sizeof msg, fmt, ap); \
        va_end(ap);                          \
    } while (0)

_Noreturn void ucx_fatalf(const char *fn, const char *fmt, ...)
{
    char msg[512];
    FORMAT_MSG(msg, fmt);
    if (ucx_g.hooks && ucx_g.hooks->fatal)
        ucx_g.hooks->fatal(fn, msg);
    fprintf(stderr, "shoal: PE %d: %s: %s\n", ucx_g.me, fn, msg);
    if (ucx_g.boot)
        ucx_g.boot->abort(1, msg);
    _exit(1);
}

void ucx_warnf(const char *fn, const char *fmt, ...)
{
    char msg[512];
    FORMAT_MSG(msg, fmt);
    if (ucx_g.hooks && ucx_g.hooks->warn)
        ucx_g.hooks->warn(fn, msg);
    else
        fprintf(stderr, "shoal: PE %d: %s: %s\n", ucx_g.me, fn, msg);
}

_Noreturn void ucx_die(const char *fn, int pe, const char *what, ucs_status_t st)
{
    if (pe >= 0)
        ucx_fatalf(fn, "UCX %s to PE %d on host %s failed: %s", what, pe, ucx_host_of(pe),
                   ucs_status_string(st));
    ucx_fatalf(fn, "UCX %s failed: %s", what, ucs_status_string(st));
}

const char *ucx_host_of(int pe)
{
    const char *h = ucx_g.hooks && ucx_g.hooks->host_of ? ucx_g.hooks->host_of(pe) : NULL;
    return h && *h ? h : "?";
}

_Noreturn void ucx_forked_child(const char *fn)
{
    char msg[256];
    if (shoal_boot_check_owner(ucx_g.owner_pid, ucx_g.me,
                               "network state (UCX workers and "
                               "connections)",
                               msg, sizeof msg) == 0)
        snprintf(msg, sizeof msg, "UCX was used after fork");
    ucx_fatalf(fn, "%s: a forked child cannot communicate through it", msg);
}
