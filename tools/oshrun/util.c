/* Small helpers: clock, oshrun's own messages, signal names, /proc scans. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "oshrun.h"

double now_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "oshrun: ..." as one write, so it never splits a forwarded line. */
void msg(const char *fmt, ...)
{
    char line[2048];
    int n = snprintf(line, sizeof line, "oshrun: ");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0)
        m = 0;
    n += m;
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    write_all(STDERR_FILENO, line, (size_t)n);
}

const char *sig_name(int sig)
{
    const char *s = strsignal(sig);
    return s ? s : "unknown signal";
}

void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p) {
        msg("out of memory");
        exit(1);
    }
    return p;
}

int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                struct pollfd pf = {.fd = fd, .events = POLLOUT};
                poll(&pf, 1, 100);
                continue;
            }
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static int is_pe(const struct job *j, pid_t pid)
{
    for (int i = 0; i < j->nspawned; i++)
        if (j->pes[i].pid == pid && j->pes[i].alive)
            return 1;
    return 0;
}

int signal_orphans(struct job *j, int sig)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    pid_t self = getpid();
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0 || pid == self)
            continue;
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        /* pid (comm) state ppid ...; comm may contain spaces and ')' */
        char *rp = strrchr(buf, ')');
        char state;
        long ppid;
        if (!rp || sscanf(rp + 1, " %c %ld", &state, &ppid) != 2)
            continue;
        if (ppid != self || state == 'Z' || is_pe(j, (pid_t)pid))
            continue;
        if (kill((pid_t)pid, sig) == 0)
            count++;
    }
    closedir(d);
    return count;
}

double proc_run_delay(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    double total = 0;
    int seen = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char file[96], buf[128];
        snprintf(file, sizeof file, "/proc/%ld/task/%.20s/schedstat", (long)pid, e->d_name);
        int fd = open(file, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue; /* the thread ended meanwhile */
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        unsigned long long run, wait;
        if (n <= 0)
            continue;
        buf[n] = 0;
        if (sscanf(buf, "%llu %llu", &run, &wait) != 2)
            continue;
        total += (double)wait * 1e-9;
        seen++;
    }
    closedir(d);
    return seen ? total : -1;
}
