/* The profile's files: the JSON (docs/profiling.md describes it; the
 * partial file of a PE that goes down has the same form, with one PE) and
 * the CSV matrices.  The JSON writer makes system calls only: a signal
 * handler may write a partial file. */
#include "core/profile/prof_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const shoal_prof_name[SHOAL_PROF_NFAM] = {
#define SHOAL_PROF_FAM(id, name, cls, group) name,
#include "core/profile/prof_families.h"
#undef SHOAL_PROF_FAM
};

static const char *const group_of[SHOAL_PROF_NFAM] = {
#define SHOAL_PROF_FAM(id, name, cls, group) group,
#include "core/profile/prof_families.h"
#undef SHOAL_PROF_FAM
};

static const char *const class_name[] = {"rma", "amo", "am", "call", "poll"};

/* A buffered writer on a file descriptor; `err` keeps the first errno. */
struct out {
    int fd, err;
    size_t n;
    char buf[4096];
};

static void flush(struct out *o)
{
    for (size_t at = 0; at < o->n && !o->err;) {
        ssize_t w = write(o->fd, o->buf + at, o->n - at);
        if (w < 0 && errno != EINTR)
            o->err = errno;
        else if (w > 0)
            at += (size_t)w;
    }
    o->n = 0;
}

static void raw(struct out *o, const char *s, size_t n)
{
    while (n) {
        if (o->n == sizeof o->buf)
            flush(o);
        size_t k = sizeof o->buf - o->n < n ? sizeof o->buf - o->n : n;
        memcpy(o->buf + o->n, s, k);
        o->n += k;
        s += k;
        n -= k;
    }
}

static void str(struct out *o, const char *s)
{
    raw(o, s, strlen(s));
}

static void u64(struct out *o, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do
        tmp[sizeof tmp - 1 - n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    raw(o, tmp + sizeof tmp - n, (size_t)n);
}

static void i64(struct out *o, int64_t v)
{
    if (v < 0) {
        str(o, "-");
        u64(o, (uint64_t)0 - (uint64_t)v);
    } else {
        u64(o, (uint64_t)v);
    }
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void jstr(struct out *o, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    str(o, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            raw(o, e, 2);
        } else if (c < 0x20) {
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            raw(o, e, 6);
        } else {
            raw(o, (const char *)&c, 1);
        }
    }
    str(o, "\"");
}

/* "key": value pairs; `first` says whether a comma goes before. */
static void key(struct out *o, const char *k, int first)
{
    str(o, first ? "\"" : ", \"");
    str(o, k);
    str(o, "\": ");
}

static void families(struct out *o)
{
    str(o, "  \"families\": [\n");
    for (int f = 0; f < SHOAL_PROF_NFAM; f++) {
        str(o, "    {\"name\": ");
        jstr(o, shoal_prof_name[f]);
        str(o, ", \"class\": ");
        jstr(o, class_name[shoal_prof_class_of[f]]);
        str(o, ", \"group\": ");
        jstr(o, group_of[f]);
        str(o, f + 1 < SHOAL_PROF_NFAM ? "},\n" : "}\n");
    }
    str(o, "  ],\n");
}

static void pe_record(struct out *o, const struct shoal_prof_pe *p)
{
    str(o, "    {");
    key(o, "pe", 1);
    i64(o, p->pe);
    key(o, "node", 0);
    i64(o, p->node);
    key(o, "host", 0);
    char host[SHOAL_PROF_HOST_MAX + 1];
    memcpy(host, p->host, SHOAL_PROF_HOST_MAX);
    host[SHOAL_PROF_HOST_MAX] = '\0';
    jstr(o, host);
    key(o, "threads", 0);
    u64(o, p->threads);
    key(o, "atomics", 0);
    jstr(o, p->amo_via_net ? "network" : "cpu");
    key(o, "wall_ns", 0);
    u64(o, p->wall_ns);
    key(o, "shoal_ns", 0);
    u64(o, p->shoal_ns);
    key(o, "families", 0);
    str(o, "{");
    int first = 1;
    for (int f = 0; f < SHOAL_PROF_NFAM; f++) {
        if (!p->calls[f])
            continue;
        str(o, first ? "\n      " : ",\n      ");
        first = 0;
        jstr(o, shoal_prof_name[f]);
        str(o, ": {");
        key(o, "calls", 1);
        u64(o, p->calls[f]);
        key(o, "bytes", 0);
        u64(o, p->bytes[f]);
        key(o, "time_ns", 0);
        u64(o, p->ns[f]);
        str(o, "}");
    }
    str(o, "}}");
}

static void pair_record(struct out *o, const struct shoal_prof_pair *p)
{
    str(o, "    {");
    key(o, "src", 1);
    u64(o, p->src);
    key(o, "dst", 0);
    u64(o, p->dst);
    key(o, "family", 0);
    jstr(o, p->fam < SHOAL_PROF_NFAM ? shoal_prof_name[p->fam] : "?");
    key(o, "route", 0);
    jstr(o, p->route == SHOAL_PROF_ON_NODE ? "on-node" : "network");
    key(o, "ops", 0);
    u64(o, p->ops);
    key(o, "bytes", 0);
    u64(o, p->bytes);
    str(o, "}");
}

static void header(struct out *o, int npes, const char *why)
{
    str(o, "{\n  \"format\": \"shoal-profile\",\n  \"version\": 1,\n  \"library\": ");
    jstr(o, SHMEM_VENDOR_STRING);
    str(o, ",\n  \"job\": ");
    jstr(o, shoal_prof_job());
    str(o, ",\n  \"complete\": ");
    str(o, why ? "false" : "true");
    if (why) {
        str(o, ",\n  \"reason\": ");
        jstr(o, why);
    }
    str(o, ",\n  \"npes\": ");
    i64(o, npes);
    str(o, ",\n  \"clock\": ");
    jstr(o, shoal_prof_use_tsc ? "tsc" : "clock_gettime");
    str(o, ",\n");
}

int shoal_prof_write_json(const char *path, int npes, const struct shoal_prof_pe *pes, int n,
                          shoal_prof_pairs_fn next, void *arg, const char *why)
{
    struct out o = {.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
    if (o.fd < 0)
        return -1;
    header(&o, npes, why);
    families(&o);
    str(&o, "  \"pes\": [\n");
    for (int i = 0; i < n; i++) {
        pe_record(&o, &pes[i]);
        str(&o, i + 1 < n ? ",\n" : "\n");
    }
    str(&o, "  ],\n  \"pairs\": [");
    struct shoal_prof_pair p;
    for (int first = 1; next(arg, &p); first = 0) {
        str(&o, first ? "\n" : ",\n");
        pair_record(&o, &p);
    }
    str(&o, "\n  ]\n}\n");
    flush(&o);
    int err = o.err;
    if (close(o.fd) != 0 && !err)
        err = errno;
    errno = err;
    return err ? -1 : 0;
}

int shoal_prof_write_csv(const char *path, int npes, const struct shoal_prof_pair *pairs,
                         size_t npairs, int bytes)
{
    uint64_t *row = calloc((size_t)npes, sizeof *row);
    struct out o = {.fd = row ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1};
    if (o.fd < 0) {
        free(row);
        return -1;
    }
    str(&o, bytes ? "bytes from\\to" : "ops from\\to");
    for (int d = 0; d < npes; d++) {
        str(&o, ",");
        i64(&o, d);
    }
    size_t k = 0;
    for (int s = 0; s < npes; s++) {
        memset(row, 0, (size_t)npes * sizeof *row);
        for (; k < npairs && pairs[k].src == (uint32_t)s; k++)
            row[pairs[k].dst] += bytes ? pairs[k].bytes : pairs[k].ops;
        str(&o, "\n");
        i64(&o, s);
        for (int d = 0; d < npes; d++) {
            str(&o, ",");
            u64(&o, row[d]);
        }
    }
    str(&o, "\n");
    flush(&o);
    free(row);
    int err = o.err;
    if (close(o.fd) != 0 && !err)
        err = errno;
    errno = err;
    return err ? -1 : 0;
}
