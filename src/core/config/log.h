/* Logging: SHOAL_LOG=category:level[,category:level...] turns on lines on
 * stderr, each with the PE, the thread and the time since init:
 *     shoal[PE 3 t2 0.001234 s] heap: shmem_malloc 4096 bytes at offset 131072
 * Categories: boot, heap, ctx, team, wait, coll, net, and `all`; levels:
 * error, warn, info, debug, trace (or off).  Levels above
 * SHOAL_LOG_MAX_LEVEL (a build option, default debug) are compiled out, and
 * a disabled category costs one load of a byte and a not-taken branch, so
 * the fast path pays nothing. */
#ifndef SHOAL_CORE_LOG_H
#define SHOAL_CORE_LOG_H
#include <stddef.h>

enum shoal_log_cat {
    SHOAL_LOG_BOOT,
    SHOAL_LOG_HEAP,
    SHOAL_LOG_CTX,
    SHOAL_LOG_TEAM,
    SHOAL_LOG_WAIT,
    SHOAL_LOG_COLL,
    SHOAL_LOG_NET,
    SHOAL_LOG_NCAT
};
enum shoal_log_level {
    SHOAL_LOG_OFF,
    SHOAL_LOG_ERROR,
    SHOAL_LOG_WARN,
    SHOAL_LOG_INFO,
    SHOAL_LOG_DEBUG,
    SHOAL_LOG_TRACE
};
#ifndef SHOAL_LOG_MAX_LEVEL
#define SHOAL_LOG_MAX_LEVEL SHOAL_LOG_DEBUG
#endif

extern unsigned char shoal_log_levels[SHOAL_LOG_NCAT];

void shoal_log_write(int cat, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold));

#define SHOAL_LOG(cat, level, ...)                                 \
    do {                                                           \
        if ((level) <= SHOAL_LOG_MAX_LEVEL &&                      \
            __builtin_expect(shoal_log_levels[cat] >= (level), 0)) \
            shoal_log_write((cat), (level), __VA_ARGS__);          \
    } while (0)

/* Parses a SHOAL_LOG value into the levels: 0, or -1 with what was
 * expected in err. */
int shoal_log_configure(const char *spec, char *err, size_t errlen);
/* The clock's origin of the log lines (init). */
void shoal_log_start(void);
#endif
