/* Room for UCX's posix shared-memory transport (ucx_posix_dir.h). */
#include "transport/ucx/ucx_posix_dir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

/* Less room than this after a failed worker: the directory is what failed
 * it (a worker maps about 4.3 MiB there with UCX 1.13.1's defaults). */
#define POSIX_WORKER_ROOM ((unsigned long long)8 << 20)

/* Whether UCX_TLS lets UCX use posix: unset, "all", a list naming posix,
 * sm or shm, or an exclusion (^...) that does not name posix. */
static int posix_allowed(void)
{
    const char *tls = getenv("UCX_TLS");
    if (!tls || !tls[0])
        return 1;
    int excluding = tls[0] == '^';
    char list[256];
    snprintf(list, sizeof list, "%s", tls + excluding);
    int named = 0;
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
        named |= !strcmp(t, "posix") ||
                 (!excluding && (!strcmp(t, "sm") || !strcmp(t, "shm") || !strcmp(t, "all")));
    return excluding ? !named : named;
}

int ucx_posix_dir_short(char *msg, size_t len)
{
    const char *dir = getenv("UCX_POSIX_DIR");
    if (!dir || !dir[0])
        dir = "/dev/shm";
    struct statvfs st;
    if (!posix_allowed() || statvfs(dir, &st) != 0)
        return 0;
    unsigned long long room = (unsigned long long)st.f_bavail * st.f_frsize;
    unsigned long long size = (unsigned long long)st.f_blocks * st.f_frsize;
    if (room >= POSIX_WORKER_ROOM)
        return 0;
    snprintf(msg, len,
             "%s (UCX_POSIX_DIR), where UCX's shared-memory transport maps its buffers, has "
             "too little room: %llu KiB free of %llu KiB, and a UCX worker maps about 4.3 MiB "
             "there (two "
             "per PE at start, one more per context): free room there (files of crashed jobs: "
             "ls -l %s), enlarge it (mount -o remount,size=1G %s; a container's --shm-size), "
             "or let UCX use SysV shared memory (UCX_TLS=^posix)",
             dir, room >> 10, size >> 10, dir, dir);
    return 1;
}
