/* Output forwarding: every PE's stdout and stderr come to oshrun through a
 * pipe (a pseudo-terminal when oshrun's own stream is a terminal, see
 * spawn.c) and leave oshrun as whole lines.  oshrun is the only writer of
 * its stdout/stderr, and each write holds only complete lines, so lines of
 * different PEs never mix, whatever size the PEs' write()s have (a program
 * that printf()s into a pipe writes 4 KiB blocks that end mid-line).
 *
 * Without --tag-output the bytes are forwarded unchanged; every complete
 * line of a read leaves in one write.  With --tag-output each line leaves
 * as "[pe N] " + line + "\n".
 *
 * A partial line waits in a per-stream buffer until its newline arrives,
 * or until its stream is idle (a prompt waiting for its answer), the PE
 * ends, or it grows past OSHRUN_LINE_MAX; it is then forwarded as it is
 * (under --tag-output as a tagged line of its own).  A PE printing through
 * stdio ends most write()s mid-line, and on a loaded machine the write that
 * completes the line can come a few hundred milliseconds after the first,
 * so idle means (oshrun.h): no byte arrived on that stream for
 * OSHRUN_PARTIAL_DELAY, and then, for as long again, the PE was not kept
 * waiting for a CPU most of the time (its threads' run-queue delay,
 * /proc/PID/task/TID/schedstat); after OSHRUN_PARTIAL_MAX without a byte it
 * goes anyway.  Measured beside 8 busy-looping processes on 2 CPUs,
 * 4 PEs x 20,000 stdio lines each: with the delay counted from when the
 * partial line began waiting (as before), 20 of 20 runs spliced lines; from
 * the last byte, 4 of 20; with the run-queue check, 0 of 20.
 *
 * If oshrun's own output is gone (EPIPE), output is dropped and the job goes
 * on: the pipes are still read, so no PE blocks on a full one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "oshrun.h"

/* Writes all of iov[0..n) to oshrun's stream `which`, unless it is gone. */
static void out_writev(struct job *j, int which, struct iovec *iov, int n)
{
    if (j->out_dead[which])
        return;
    int fd = which ? STDERR_FILENO : STDOUT_FILENO;
    ssize_t total = 0;
    for (int i = 0; i < n; i++)
        total += (ssize_t)iov[i].iov_len;
    ssize_t w;
    do
        w = writev(fd, iov, n);
    while (w < 0 && errno == EINTR);
    if (w == total)
        return;
    if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
        j->out_dead[which] = 1;
        return;
    }
    /* A short write (a full pipe, a non-blocking descriptor): finish it. */
    size_t done = w > 0 ? (size_t)w : 0;
    for (int i = 0; i < n; i++) {
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

/* --tag-output: one line, "[pe N] " + head + tail + "\n". */
static void emit_tagged(struct job *j, int which, int rank, const char *head, size_t hl,
                        const char *tail, size_t tl)
{
    char tag[32];
    int n = snprintf(tag, sizeof tag, "[pe %d] ", rank);
    struct iovec iov[4] = {{tag, (size_t)n}, {(void *)head, hl}, {(void *)tail, tl}, {"\n", 1}};
    out_writev(j, which, iov, 4);
}

static void lb_append(struct linebuf *b, const char *d, size_t n)
{
    if (n == 0)
        return; /* b->buf may still be NULL: memcpy must not see it */
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

void io_report(struct job *j, struct pe *p, const char *line, size_t n)
{
    if (n && line[n - 1] == '\n')
        n--;
    if (j->o->tag_output) {
        emit_tagged(j, 1, p->rank, line, n, "", 0);
    } else {
        struct iovec iov[2] = {{(void *)line, n}, {"\n", 1}};
        out_writev(j, 1, iov, 2);
    }
}

/* Forwards the partial line of PE p's stream `which` as it is. */
static void flush_partial(struct job *j, struct pe *p, int which)
{
    struct linebuf *b = &p->lb[which];
    if (!b->len)
        return;
    if (j->o->tag_output) {
        emit_tagged(j, which, p->rank, b->buf, b->len, "", 0);
    } else {
        struct iovec iov = {b->buf, b->len};
        out_writev(j, which, &iov, 1);
    }
    b->len = 0;
}

static void feed_tagged(struct job *j, struct pe *p, int which, const char *d, size_t n)
{
    struct linebuf *b = &p->lb[which];
    const char *nl;
    while ((nl = memchr(d, '\n', n))) {
        size_t ll = (size_t)(nl - d);
        emit_tagged(j, which, p->rank, b->buf, b->len, d, ll);
        b->len = 0;
        d = nl + 1;
        n -= ll + 1;
    }
    lb_append(b, d, n);
}

static void feed_plain(struct job *j, struct pe *p, int which, const char *d, size_t n)
{
    struct linebuf *b = &p->lb[which];
    const char *last = memrchr(d, '\n', n);
    if (last) {
        size_t upto = (size_t)(last - d) + 1;
        struct iovec iov[2] = {{b->buf, b->len}, {(void *)d, upto}};
        out_writev(j, which, iov, 2);
        b->len = 0;
        d += upto;
        n -= upto;
    }
    lb_append(b, d, n);
}

/* New bytes from PE p's stream `which`: forward the complete lines, keep
 * the rest (and note that the stream was active now). */
static void feed(struct job *j, struct pe *p, int which, const char *d, size_t n)
{
    struct linebuf *b = &p->lb[which];
    if (j->o->tag_output)
        feed_tagged(j, p, which, d, n);
    else
        feed_plain(j, p, which, d, n);
    if (b->len >= OSHRUN_LINE_MAX)
        flush_partial(j, p, which);
    b->last = b->len ? now_mono() : 0;
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
    /* EOF, or EIO (a pseudo-terminal whose writers are gone): nothing can
     * complete a partial line any more. */
    flush_partial(j, p, which);
    p->lb[which].last = 0;
    io_close(p, which);
    return 0;
}

void io_readable(struct job *j, struct pe *p, int which)
{
    /* A few reads per wake-up, so one chatty PE cannot starve the rest. */
    for (int i = 0; i < 4 && p->io[which] >= 0; i++)
        if (!read_once(j, p, which))
            break;
}

/* Is the partial line in b, of PE p, due to be forwarded at `now`?  If
 * not, *again is when to ask again. */
static int partial_due(const struct pe *p, struct linebuf *b, double now, double *again)
{
    if (now < b->last + OSHRUN_PARTIAL_DELAY) {
        *again = b->last + OSHRUN_PARTIAL_DELAY;
        return 0;
    }
    if (now >= b->last + OSHRUN_PARTIAL_MAX)
        return 1;
    double delay = p->alive ? proc_run_delay(p->pid) : -1;
    if (delay < 0)
        return 1;               /* cannot tell (an exited PE's orphan writes): idle is idle */
    if (b->mark_at > b->last) { /* a stretch since the stream went quiet */
        double span = now - b->mark_at;
        if (span < OSHRUN_PARTIAL_DELAY) {
            *again = b->mark_at + OSHRUN_PARTIAL_DELAY;
            return 0;
        }
        if (delay - b->mark_delay < span / 2)
            return 1; /* it had the CPUs it wanted and wrote nothing */
    }
    b->mark_at = now; /* (again) kept off the CPUs: watch another stretch */
    b->mark_delay = delay;
    *again = now + OSHRUN_PARTIAL_DELAY;
    return 0;
}

double io_flush_partial(struct job *j, double now)
{
    double next = 0;
    for (int i = 0; i < j->nspawned; i++)
        for (int w = 0; w < 2; w++) {
            struct pe *p = &j->pes[i];
            struct linebuf *b = &p->lb[w];
            if (!b->len)
                continue;
            if (now >= b->last + OSHRUN_PARTIAL_DELAY && p->io[w] >= 0) {
                /* Idle as far as the last poll() knew; the rest of the
                 * line may have come since. */
                io_readable(j, p, w);
                if (!b->len)
                    continue;
            }
            double again = 0;
            if (partial_due(p, b, now, &again)) {
                flush_partial(j, p, w);
                b->last = 0;
            } else if (next == 0 || again < next) {
                next = again;
            }
        }
    return next;
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
        flush_partial(j, p, w);
        free(p->lb[w].buf);
        p->lb[w] = (struct linebuf){0};
        io_close(p, w);
    }
}
