/* Local bootstrap: the PE side of oshrun's protocol (boot/local_proto.h).
 *
 * oshrun hands every PE one end of a SOCK_SEQPACKET socketpair (number in
 * SHOAL_BOOT_FD) plus SHOAL_RANK / SHOAL_SIZE / SHOAL_JOBID.  Opening
 * validates all of them, marks the descriptor close-on-exec (so programs a
 * PE starts do not inherit the connection) and exchanges HELLO / HELLO_ACK,
 * which proves the descriptor really leads to oshrun and that oshrun agrees
 * on rank and size.
 *
 * All I/O is blocking with EINTR retried.  Sends are serialized by a tiny
 * lock (a C11 atomic flag, usable from a signal handler): the interface is
 * called from one thread at a time, except abort, which may come from any
 * thread while another waits in a collective.  abort waits for the lock at
 * most ~2 s; if it cannot send, it still exits and oshrun reports the exit.
 *
 * Errors: the interface returns -1 without a text, so the text is kept for
 * shoal_boot_local_error() and, for failed collectives, also printed as one
 * line on stderr ("shoal: PE r: bootstrap: ...") so it is never lost.
 * libc only. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot.h"
#include "boot/local_proto.h"

static struct {
    int fd;
    int rank, size;
    char jobid[65]; /* SHOAL_JOBID, validated */
    pid_t pid;      /* the process that opened the connection */
    int open;       /* HELLO acknowledged */
    int broken;     /* EOF, I/O or protocol error: every later call fails */
} L = {.fd = -1};

static char last_err[512];
static atomic_flag send_lock = ATOMIC_FLAG_INIT;

const char *shoal_boot_local_error(void)
{
    return last_err;
}

__attribute__((format(printf, 1, 2))) static void set_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_err, sizeof last_err, fmt, ap);
    va_end(ap);
}

/* One line, one write(): lines of different PEs do not interleave. */
static void print_err(void)
{
    char line[640];
    int n = snprintf(line, sizeof line, "shoal: PE %d: bootstrap: %s\n", L.rank, last_err);
    if (n > (int)sizeof line - 1)
        n = (int)sizeof line - 1;
    if (n > 0) {
        ssize_t w;
        do
            w = write(STDERR_FILENO, line, (size_t)n);
        while (w < 0 && errno == EINTR);
    }
}

static void broken(void)
{
    L.broken = 1;
}

/* ---- sending ------------------------------------------------------------ */

static void lock_send(void)
{
    while (atomic_flag_test_and_set_explicit(&send_lock, memory_order_acquire))
        sched_yield();
}

/* For abort: gives up after ~2 s (the holder may be blocked for good). */
static int lock_send_bounded(void)
{
    for (int i = 0; i < 2000; i++) {
        if (!atomic_flag_test_and_set_explicit(&send_lock, memory_order_acquire))
            return 0;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

static void unlock_send(void)
{
    atomic_flag_clear_explicit(&send_lock, memory_order_release);
}

static void wait_fd(short ev)
{
    struct pollfd p = {.fd = L.fd, .events = ev};
    poll(&p, 1, -1);
}

/* Before a blocking read: while the caller registered a progress hook,
 * wait for oshrun's reply in short polls and run the hook between them
 * (first back to back, then every millisecond), so that this PE's network
 * transport keeps serving its peers, which may need that to reach the same
 * bootstrap call. */
static void await_readable(void)
{
    void (*progress)(void) = shoal_boot_progress_hook();
    if (!progress)
        return;
    struct pollfd p = {.fd = L.fd, .events = POLLIN};
    for (unsigned spins = 0;; spins++) {
        int r = poll(&p, 1, spins < 256 ? 0 : 1);
        if (r > 0 || (r < 0 && errno != EINTR))
            return; /* readable, closed or failed: recv tells which */
        progress();
    }
}

/* Sends one record, with descriptor `pass` attached unless it is -1.  On
 * SEQPACKET a send is all or nothing.  Returns 0, -1 with errno (EMSGSIZE:
 * the record is larger than the send buffer). */
static int send_record_fd(const void *p, size_t n, int pass)
{
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    struct iovec iov = {(void *)p, n};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (pass >= 0) {
        memset(&ctl, 0, sizeof ctl);
        m.msg_control = ctl.buf;
        m.msg_controllen = sizeof ctl.buf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &pass, sizeof pass);
    }
    for (;;) {
        ssize_t r = sendmsg(L.fd, &m, MSG_NOSIGNAL);
        if (r == (ssize_t)n)
            return 0;
        if (r >= 0) {
            errno = EPROTO;
            return -1;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            wait_fd(POLLOUT);
            continue;
        }
        return -1;
    }
}

static int send_record(const void *p, size_t n)
{
    return send_record_fd(p, n, -1);
}

/* Caller holds the send lock.  Returns 0 or -1 with the text set.  HELLO
 * carries the hang page's descriptor, if there is one (local_proto.h). */
static int send_msg(uint32_t type, int32_t a, int32_t b, const void *data, uint64_t len)
{
    struct shoal_msg_hdr h = {.magic = SHOAL_PROTO_MAGIC, .type = type, .a = a, .b = b, .len = len};
    int pass = type == SHOAL_MSG_HELLO ? shoal_boot_report_fd() : -1;
    if (send_record_fd(&h, sizeof h, pass) < 0)
        goto fail;
    const char *p = data;
    size_t frag = (size_t)SHOAL_PROTO_FRAG;
    while (len > 0) {
        size_t n = len < frag ? (size_t)len : frag;
        if (send_record(p, n) < 0) {
            if (errno == EMSGSIZE && frag > 512) {
                frag /= 2;
                continue;
            }
            goto fail;
        }
        p += n;
        len -= n;
    }
    return 0;
fail:
    if (errno == EPIPE || errno == ECONNRESET)
        set_err("the connection to oshrun is closed (oshrun exited or was killed)");
    else
        set_err("cannot send %s to oshrun (fd %d): %s", shoal_msg_name(type), L.fd,
                strerror(errno));
    broken();
    return -1;
}

static int send_locked(uint32_t type, int32_t a, int32_t b, const void *data, uint64_t len)
{
    lock_send();
    int rc = send_msg(type, a, b, data, len);
    unlock_send();
    return rc;
}

/* ---- receiving ---------------------------------------------------------- */

/* Reads one record of at most cap bytes into buf (NULL: discard).  Returns
 * its length, or -1 with the text set and the connection marked broken. */
static ssize_t recv_record(void *buf, size_t cap)
{
    char scratch[512];
    for (;;) {
        void *dst = buf;
        size_t room = cap;
        if (!dst) { /* discard: MSG_TRUNC still tells the real length */
            dst = scratch;
            room = cap < sizeof scratch ? cap : sizeof scratch;
        }
        await_readable();
        ssize_t r = recv(L.fd, dst, room, MSG_TRUNC);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                wait_fd(POLLIN);
                continue;
            }
            set_err("cannot read from the connection to oshrun (fd %d): %s", L.fd, strerror(errno));
            broken();
            return -1;
        }
        if (r == 0) {
            set_err("the connection to oshrun is closed (oshrun exited or was killed)");
            broken();
            return -1;
        }
        if ((size_t)r > cap) {
            set_err("protocol error: oshrun sent a %zd-byte record where at most %zu bytes were "
                    "expected (is oshrun from the same Shoal version?)",
                    r, cap);
            broken();
            return -1;
        }
        return r;
    }
}

/* Reads len payload bytes into dst (NULL: discard). */
static int recv_payload(void *dst, uint64_t len)
{
    char *p = dst;
    while (len > 0) {
        size_t cap = len < SHOAL_PROTO_FRAG ? (size_t)len : (size_t)SHOAL_PROTO_FRAG;
        ssize_t r = recv_record(p, cap);
        if (r < 0)
            return -1;
        if (p)
            p += r;
        len -= (uint64_t)r;
    }
    return 0;
}

static int recv_hdr(struct shoal_msg_hdr *h)
{
    ssize_t r = recv_record(h, sizeof *h);
    if (r < 0)
        return -1;
    if (r != (ssize_t)sizeof *h || h->magic != SHOAL_PROTO_MAGIC || h->len > SHOAL_PROTO_MAX_LEN) {
        set_err("protocol error: malformed message header from oshrun (is oshrun from the "
                "same Shoal version?)");
        broken();
        return -1;
    }
    return 0;
}

/* Waits for the reply of type `want` with exactly `len` payload bytes,
 * stored at dst.  An ERROR reply sets its text and returns -1 (the
 * connection stays usable); anything else is a protocol error. */
static int recv_reply(uint32_t want, void *dst, uint64_t len, struct shoal_msg_hdr *out)
{
    struct shoal_msg_hdr h;
    if (recv_hdr(&h) < 0)
        return -1;
    if (h.type == SHOAL_MSG_ERROR) {
        char text[SHOAL_PROTO_TEXT_MAX + 1];
        uint64_t keep = h.len < SHOAL_PROTO_TEXT_MAX ? h.len : SHOAL_PROTO_TEXT_MAX;
        if (recv_payload(text, keep) < 0 || recv_payload(NULL, h.len - keep) < 0)
            return -1;
        text[keep] = 0;
        set_err("%s", text);
        return -1;
    }
    if (h.type != want || h.len != len) {
        set_err("protocol error: expected %s with %llu bytes from oshrun, got %s with %llu",
                shoal_msg_name(want), (unsigned long long)len, shoal_msg_name(h.type),
                (unsigned long long)h.len);
        broken();
        return -1;
    }
    if (recv_payload(dst, len) < 0)
        return -1;
    if (out)
        *out = h;
    return 0;
}

/* ---- the interface ------------------------------------------------------ */

static int usable(void)
{
    if (!L.open) {
        set_err("the local bootstrap is not open");
        return 0;
    }
    if (getpid() != L.pid) {
        set_err("called in process %ld, a forked child of PE %d (pid %ld): the connection to "
                "oshrun belongs to the PE",
                (long)getpid(), L.rank, (long)L.pid);
        return 0;
    }
    return !L.broken; /* the text of the first failure stays */
}

static int local_allgather(const void *in, void *out, size_t len)
{
    if (!usable())
        goto fail;
    if ((uint64_t)len > SHOAL_PROTO_MAX_LEN / (uint64_t)L.size) {
        set_err("allgather of %zu bytes per PE over %d PEs is too large", len, L.size);
        goto fail;
    }
    if (send_locked(SHOAL_MSG_ALLGATHER, 0, 0, in, len) < 0 ||
        recv_reply(SHOAL_MSG_ALLGATHER_DONE, out, (uint64_t)len * (uint64_t)L.size, NULL) < 0)
        goto fail;
    return 0;
fail:
    print_err();
    return -1;
}

static int local_barrier(void)
{
    return local_allgather(NULL, NULL, 0);
}

static void local_finalize(void)
{
    if (usable())
        send_locked(SHOAL_MSG_FINALIZE, 0, 0, NULL, 0);
}

static _Noreturn void local_abort(int status, const char *reason)
{
    if (usable() && lock_send_bounded() == 0) {
        size_t n = reason ? strlen(reason) : 0;
        if (n > SHOAL_PROTO_TEXT_MAX)
            n = SHOAL_PROTO_TEXT_MAX;
        send_msg(SHOAL_MSG_ABORT, status, 0, reason, n);
        unlock_send();
    }
    _exit(status);
}

static void local_global_exit(int status)
{
    if (usable())
        send_locked(SHOAL_MSG_GLOBAL_EXIT, status, 0, NULL, 0);
}

static void fill(struct shoal_boot *b)
{
    b->name = "local";
    b->channel = "oshrun's socket";
    b->jobid = L.jobid;
    b->rank = L.rank;
    b->size = L.size;
    b->allgather = local_allgather;
    b->barrier = local_barrier;
    b->finalize = local_finalize;
    b->abort = local_abort;
    b->global_exit = local_global_exit;
    b->leave = shoal_boot_leave_ended;
}

/* A decimal integer in [min, max], nothing else (no sign, no spaces). */
static int parse_int(const char *name, long min, long max, int *out, char *err, size_t errlen)
{
    const char *s = getenv(name);
    if (!s) {
        snprintf(err, errlen,
                 "%s is not set (SHOAL_BOOT_FD is: the program seems to be started by oshrun, "
                 "which sets both)",
                 name);
        return -1;
    }
    int ok = *s != 0 && strlen(s) <= 10;
    long v = 0;
    for (const char *p = s; ok && *p; p++) {
        if (*p < '0' || *p > '9')
            ok = 0;
        else
            v = v * 10 + (*p - '0');
    }
    if (!ok) {
        snprintf(err, errlen, "%s='%.40s' is not a non-negative decimal integer", name, s);
        return -1;
    }
    if (v < min || v > max) {
        snprintf(err, errlen, "%s=%ld is out of range [%ld, %ld]", name, v, min, max);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* SHOAL_BOOT_FD, SHOAL_SIZE and SHOAL_RANK, each checked. */
static int read_ids(int *fd, int *size, int *rank, char *errbuf, size_t errlen)
{
    if (parse_int(SHOAL_ENV_BOOT_FD, 0, INT_MAX, fd, errbuf, errlen) < 0 ||
        parse_int(SHOAL_ENV_SIZE, 1, INT_MAX, size, errbuf, errlen) < 0 ||
        parse_int(SHOAL_ENV_RANK, 0, INT_MAX, rank, errbuf, errlen) < 0)
        return -1;
    if (*rank >= *size) {
        snprintf(errbuf, errlen, "%s=%d is out of range for %s=%d (ranks are 0..%d)",
                 SHOAL_ENV_RANK, *rank, SHOAL_ENV_SIZE, *size, *size - 1);
        return -1;
    }
    return 0;
}

/* SHOAL_JOBID: it names files of the job, so only a short, plain name. */
static const char *read_jobid(char *errbuf, size_t errlen)
{
    const char *job = getenv(SHOAL_ENV_JOBID);
    if (!job || !*job) {
        snprintf(errbuf, errlen, "%s is %s (oshrun sets it with %s)", SHOAL_ENV_JOBID,
                 job ? "empty" : "not set", SHOAL_ENV_BOOT_FD);
        return NULL;
    }
    size_t jl = strlen(job);
    int job_ok = jl <= 64;
    for (size_t i = 0; job_ok && i < jl; i++) {
        char c = job[i];
        job_ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 c == '-' || c == '_' || c == '.';
    }
    if (!job_ok) {
        snprintf(errbuf, errlen,
                 "%s='%.40s' is malformed (at most 64 characters of A-Z a-z 0-9 . _ -)",
                 SHOAL_ENV_JOBID, job);
        return NULL;
    }
    return job;
}

/* fd is the connection oshrun made for this PE (not a stale inherited
 * number); it is then kept from the programs this PE starts. */
static int check_socket(int fd, char *errbuf, size_t errlen)
{
    struct stat st;
    if (fstat(fd, &st) < 0) {
        snprintf(errbuf, errlen,
                 "%s=%d: %s (was this program started by oshrun?  A program started by a PE "
                 "inherits the variables but not the connection: unset %s to run it alone)",
                 SHOAL_ENV_BOOT_FD, fd,
                 errno == EBADF ? "no such open file descriptor" : strerror(errno),
                 SHOAL_ENV_BOOT_FD);
        return -1;
    }
    int type = 0;
    socklen_t tl = sizeof type;
    if (!S_ISSOCK(st.st_mode) || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0 ||
        type != SOCK_SEQPACKET) {
        snprintf(errbuf, errlen,
                 "%s=%d is not the SOCK_SEQPACKET socket that oshrun creates (is it a stale "
                 "variable inherited from a PE? unset %s to run alone)",
                 SHOAL_ENV_BOOT_FD, fd, SHOAL_ENV_BOOT_FD);
        return -1;
    }
    int fl = fcntl(fd, F_GETFD);
    if (fl >= 0)
        fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
    return 0;
}

/* HELLO and its acknowledgement: oshrun confirms who this PE is. */
static int handshake(int rank, int size, char *errbuf, size_t errlen)
{
    struct shoal_msg_hdr ack;
    L.open = 1; /* lets usable() pass during the handshake */
    if (send_locked(SHOAL_MSG_HELLO, rank, size, NULL, 0) < 0 ||
        recv_reply(SHOAL_MSG_HELLO_ACK, NULL, 0, &ack) < 0) {
        L.open = 0;
        snprintf(errbuf, errlen, "bootstrap handshake with oshrun failed: %s", last_err);
        return -1;
    }
    if (ack.a != rank || ack.b != size) {
        L.open = 0;
        snprintf(errbuf, errlen, "oshrun says this is rank %d of %d, but %s=%d and %s=%d", ack.a,
                 ack.b, SHOAL_ENV_RANK, rank, SHOAL_ENV_SIZE, size);
        return -1;
    }
    return 0;
}

int shoal_boot_local_open(struct shoal_boot *b, char *errbuf, size_t errlen)
{
    if (L.open) {
        if (shoal_boot_check_owner((long)L.pid, L.rank, "connection to oshrun", errbuf, errlen))
            return -1;
        fill(b); /* opened before in this process: same job, no second HELLO */
        return 0;
    }
    int fd, size, rank;
    const char *job;
    if (read_ids(&fd, &size, &rank, errbuf, errlen) < 0 || !(job = read_jobid(errbuf, errlen)) ||
        check_socket(fd, errbuf, errlen) < 0)
        return -1;
    L.fd = fd;
    L.rank = rank;
    L.size = size;
    memcpy(L.jobid, job, strlen(job) + 1); /* at most 64 characters, checked */
    L.pid = getpid();
    L.broken = 0;
    if (handshake(rank, size, errbuf, errlen) < 0)
        return -1;
    fill(b);
    return 0;
}
