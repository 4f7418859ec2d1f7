/* What every bootstrap shares (boot.h): the progress hook the caller
 * registers, the hang page's descriptor to hand on, the check that the
 * process calling is the one that holds the launcher connection.  Apart
 * from boot_open.c (which picks a bootstrap and so calls them all), so
 * that the bootstraps' calls here make no circle with it. */
#include <stdio.h>
#include <unistd.h>

#include "boot/boot.h"

static shoal_boot_progress_fn progress_hook;

void shoal_boot_set_progress(shoal_boot_progress_fn progress)
{
    __atomic_store_n(&progress_hook, progress, __ATOMIC_RELEASE);
}

shoal_boot_progress_fn shoal_boot_progress_hook(void)
{
    return __atomic_load_n(&progress_hook, __ATOMIC_ACQUIRE);
}

static int report_fd = -1;

void shoal_boot_set_report_fd(int fd)
{
    if (report_fd >= 0 && report_fd != fd)
        close(report_fd);
    report_fd = fd;
}

int shoal_boot_report_fd(void)
{
    return report_fd;
}

int shoal_boot_check_owner(long owner, int rank, const char *conn, char *errbuf, size_t errlen)
{
    if ((long)getpid() == owner)
        return 0;
    snprintf(errbuf, errlen,
             "this process (pid %ld) is a forked child of PE %d (pid %ld); the %s belongs to "
             "that PE",
             (long)getpid(), rank, owner, conn);
    return -1;
}

int shoal_boot_leave_ended(int status, uint32_t mark)
{
    (void)status;
    (void)mark;
    return 1;
}
