/* Logging (log.h). */
#include "core/config/log.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/state.h"

unsigned char shoal_log_levels[SHOAL_LOG_NCAT];

static const char *const cat_names[SHOAL_LOG_NCAT] = {"boot", "heap", "ctx", "team",
                                                      "wait", "coll", "net"};
static const char *const level_names[] = {"off", "error", "warn", "info", "debug", "trace", NULL};
static struct timespec t0;

void shoal_log_start(void)
{
    clock_gettime(CLOCK_MONOTONIC, &t0);
}

void shoal_log_write(int cat, int level, const char *fmt, ...)
{
    (void)level;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double t = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) * 1e-9;
    char line[1024];
    int n = snprintf(line, sizeof line, "shoal[PE %d t%ld %.6f s] %s: ", shoal_g.my_pe,
                     (long)syscall(SYS_gettid), t, cat_names[cat]);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && n < (int)sizeof line)
        n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof line - 1)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    /* One write per line: lines of threads and PEs do not interleave. */
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
}

static int lookup(const char *s, size_t len, const char *const *names, int n)
{
    for (int i = 0; i < n && names[i]; i++)
        if (strlen(names[i]) == len && !strncmp(s, names[i], len))
            return i;
    return -1;
}

int shoal_log_configure(const char *spec, char *err, size_t errlen)
{
    unsigned char levels[SHOAL_LOG_NCAT] = {0};
    for (const char *p = spec; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        int lvl = colon ? lookup(colon + 1, len - (size_t)(colon + 1 - p), level_names, 6) : -1;
        size_t clen = colon ? (size_t)(colon - p) : len;
        int cat = lookup(p, clen, cat_names, SHOAL_LOG_NCAT);
        int all = clen == 3 && !strncmp(p, "all", 3);
        if (lvl < 0 || (cat < 0 && !all)) {
            snprintf(err, errlen,
                     "category:level[,...] with categories boot, heap, ctx, team, wait, coll, "
                     "net or all and levels off, error, warn, info, debug, trace");
            return -1;
        }
        for (int c = 0; c < SHOAL_LOG_NCAT; c++)
            if (all || c == cat)
                levels[c] = (unsigned char)lvl;
        p += len + (end ? 1 : 0);
    }
    memcpy(shoal_log_levels, levels, sizeof levels);
    return 0;
}
