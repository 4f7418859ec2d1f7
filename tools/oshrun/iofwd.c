/* --tag-output: every PE's stdout and stderr come through pipes and leave
 * oshrun as whole lines, "[pe N] " + line + "\n", each with one writev().
 * oshrun is the only writer of its stdout/stderr apart from the PEs it does
 * not tag (none), so lines of different PEs never mix.  A partial line waits
 * in a per-pipe buffer until its newline arrives, the PE ends, or it grows
 * past OSHRUN_LINE_MAX (then it is forwarded in pieces).  If oshrun's own
 * output is gone (EPIPE), output is dropped and the job goes on. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "oshrun.h"

static void emit(struct job *j, int which, int rank, const char *line, size_t len)
{
    if (j->out_dead[which])
        return;
    char tag[32];
    int tl = snprintf(tag, sizeof tag, "[pe %d] ", rank);
    struct iovec iov[3] = {{tag, (size_t)tl}, {(void *)line, len}, {"\n", 1}};
    int fd = which ? STDERR_FILENO : STDOUT_FILENO;
    ssize_t total = tl + (ssize_t)len + 1;
    ssize_t w;
    do
        w = writev(fd, iov, 3);
    while (w < 0 && errno == EINTR);
    if (w == total)
        return;
    if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
        j->out_dead[which] = 1;
        return;
    }
    /* A short write (a full pipe, a non-blocking descriptor): finish it. */
    size_t done = w > 0 ? (size_t)w : 0;
    for (int i = 0; i < 3; i++) {
        if (done >= iov[i].iov_len) {
            done -= iov[i].iov_len;
            continue;
        }
        if (write_all(fd, (char *)iov[i].iov_base + done, iov[i].iov_len - done) < 0) {
            j->out_dead[which] = 1;
            return;
        }
        done = 0;
    }
}

static void lb_append(struct linebuf *b, const char *d, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        char *nb = realloc(b->buf, cap);
        if (!nb) {
            msg("out of memory");
            exit(1);
        }
        b->buf = nb;
        b->cap = cap;
    }
    memcpy(b->buf + b->len, d, n);
    b->len += n;
}

/* New bytes from PE p's stream `which`: forward the complete lines. */
static void feed(struct job *j, struct pe *p, int which, const char *d, size_t n)
{
    struct linebuf *b = &p->lb[which];
    while (n > 0) {
        const char *nl = memchr(d, '\n', n);
        if (!nl) {
            lb_append(b, d, n);
            if (b->len >= OSHRUN_LINE_MAX) {
                emit(j, which, p->rank, b->buf, b->len);
                b->len = 0;
            }
            return;
        }
        size_t ll = (size_t)(nl - d);
        if (b->len) {
            lb_append(b, d, ll);
            emit(j, which, p->rank, b->buf, b->len);
            b->len = 0;
        } else {
            emit(j, which, p->rank, d, ll);
        }
        d = nl + 1;
        n -= ll + 1;
    }
}

static void io_close(struct pe *p, int which)
{
    if (p->io[which] >= 0) {
        close(p->io[which]);
        p->io[which] = -1;
    }
}

/* Reads once; returns 1 if more may be there, 0 on EOF/EAGAIN. */
static int read_once(struct job *j, struct pe *p, int which)
{
    static char buf[65536];
    ssize_t r = read(p->io[which], buf, sizeof buf);
    if (r > 0) {
        feed(j, p, which, buf, (size_t)r);
        return 1;
    }
    if (r < 0 && errno == EINTR)
        return 1;
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    io_close(p, which); /* EOF or error */
    return 0;
}

void io_readable(struct job *j, struct pe *p, int which)
{
    /* A few reads per wake-up, so one chatty PE cannot starve the rest. */
    for (int i = 0; i < 4 && p->io[which] >= 0; i++)
        if (!read_once(j, p, which))
            break;
}

/* Bounded: a PE's orphan that keeps writing cannot hold oshrun here. */
void io_drain(struct job *j, struct pe *p)
{
    for (int w = 0; w < 2; w++)
        for (int i = 0; i < 256 && p->io[w] >= 0 && read_once(j, p, w); i++)
            ;
}

void io_finish(struct job *j, struct pe *p)
{
    io_drain(j, p);
    for (int w = 0; w < 2; w++) {
        if (p->lb[w].len) {
            emit(j, w, p->rank, p->lb[w].buf, p->lb[w].len);
            p->lb[w].len = 0;
        }
        free(p->lb[w].buf);
        p->lb[w].buf = NULL;
        p->lb[w].cap = 0;
        io_close(p, w);
    }
}
