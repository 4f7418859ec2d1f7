/* The bootstrap protocol, oshrun's side (framing: src/boot/local_proto.h).
 *
 * Every PE socket is non-blocking.  Receiving is a small state machine per
 * PE (header record, then payload records straight into place); sending is
 * a queue per PE of refcounted replies, so one allgather result of N*len
 * bytes is stored once and streamed to every PE as its socket drains.
 *
 * Allgather rounds.  Collectives are in call order and each PE has at most
 * one outstanding, so one round is open at a time: the first contribution
 * fixes the length and allocates N*len bytes; every contribution lands at
 * rank*len; when all N are in, each PE gets the whole buffer.  A round fails
 * (ERROR to every contributor) when lengths differ or when a PE that has not
 * contributed is gone (exited or hung up) — it can never complete, and
 * failing it beats a hang.  A barrier is a round of length 0. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oshrun.h"

/* ---- replies and the send queue ----------------------------------------- */

static struct reply *reply_new(uint32_t type, int32_t a, int32_t b, char *data, uint64_t len)
{
    struct reply *r = xcalloc(1, sizeof *r);
    r->refs = 1;
    r->h.magic = SHOAL_PROTO_MAGIC;
    r->h.type = type;
    r->h.a = a;
    r->h.b = b;
    r->h.len = len;
    r->data = data;
    return r;
}

static struct reply *reply_text(const char *text)
{
    size_t n = strlen(text);
    char *d = xcalloc(1, n + 1);
    memcpy(d, text, n);
    return reply_new(SHOAL_MSG_ERROR, 0, 0, d, n);
}

static void reply_unref(struct reply *r)
{
    if (--r->refs == 0) {
        free(r->data);
        free(r);
    }
}

static void enqueue(struct job *j, struct pe *p, struct reply *r)
{
    if (p->sock < 0)
        return;
    struct txitem *t = xcalloc(1, sizeof *t);
    t->r = r;
    r->refs++;
    if (p->tx_tail)
        p->tx_tail->next = t;
    else
        p->tx_head = t;
    p->tx_tail = t;
    /* Sent from the event loop when poll() reports room (never from here:
     * a send error would re-enter the round logic). */
    (void)j;
}

static void drop_rx_fd(struct pe *p)
{
    if (p->rx_fd >= 0) {
        close(p->rx_fd);
        p->rx_fd = -1;
    }
}

/* HELLO came with the PE's hang page: map it, if it is one. */
static void map_hang_page(struct pe *p)
{
    struct stat st;
    const size_t sz = sizeof(struct shoal_hang_page);
    if (p->rx_fd >= 0 && !p->hang && fstat(p->rx_fd, &st) == 0 && S_ISREG(st.st_mode) &&
        (size_t)st.st_size >= sz) {
        void *m = mmap(NULL, sz, PROT_READ, MAP_SHARED, p->rx_fd, 0);
        if (m != MAP_FAILED) {
            const struct shoal_hang_page *pg = m;
            if (pg->magic == SHOAL_HANG_MAGIC && pg->version == SHOAL_HANG_VERSION &&
                pg->size == sz)
                p->hang = pg;
            else
                munmap(m, sz);
        }
    }
    drop_rx_fd(p);
}

void srv_unmap(struct pe *p)
{
    if (p->hang) {
        munmap((void *)p->hang, sizeof *p->hang);
        p->hang = NULL;
    }
}

void srv_close(struct job *j, struct pe *p)
{
    (void)j;
    drop_rx_fd(p);
    if (p->sock >= 0) {
        close(p->sock);
        p->sock = -1;
        p->hup_at = now_mono();
    }
    while (p->tx_head) {
        struct txitem *t = p->tx_head;
        p->tx_head = t->next;
        reply_unref(t->r);
        free(t);
    }
    p->tx_tail = NULL;
    p->tx_hdr_done = 0;
    p->rx_payload = 0;
}

static void hangup(struct job *j, struct pe *p)
{
    srv_close(j, p);
    srv_check_round(j);
}

void srv_writable(struct job *j, struct pe *p)
{
    while (p->tx_head && p->sock >= 0) {
        struct reply *r = p->tx_head->r;
        ssize_t w;
        if (!p->tx_hdr_done) {
            w = send(p->sock, &r->h, sizeof r->h, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (w < 0)
                goto err;
            p->tx_hdr_done = 1;
            p->tx_off = 0;
            if (!p->tx_frag)
                p->tx_frag = (size_t)SHOAL_PROTO_FRAG;
        }
        while (p->tx_off < r->h.len) {
            uint64_t left = r->h.len - p->tx_off;
            size_t n = left < p->tx_frag ? (size_t)left : p->tx_frag;
            w = send(p->sock, r->data + p->tx_off, n, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (w < 0) {
                if (errno == EMSGSIZE && p->tx_frag > 512) {
                    p->tx_frag /= 2;
                    continue;
                }
                goto err;
            }
            p->tx_off += (uint64_t)w;
        }
        struct txitem *t = p->tx_head;
        p->tx_head = t->next;
        if (!p->tx_head)
            p->tx_tail = NULL;
        reply_unref(t->r);
        free(t);
        p->tx_hdr_done = 0;
        continue;
    err:
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return;   /* poll() says when there is room */
        hangup(j, p); /* EPIPE, ECONNRESET: the PE is gone */
        return;
    }
}

/* ---- allgather rounds ---------------------------------------------------- */

static const char *round_kind(struct job *j)
{
    return j->round_len ? "allgather" : "barrier";
}

/* Ends the open round with an ERROR to every contributor (and to `also`). */
static void round_fail(struct job *j, const char *text, struct pe *also)
{
    free(j->round_buf);
    j->round_buf = NULL;
    j->round_active = 0;
    j->round_count = 0;
    j->round_seq++;
    struct reply *r = reply_text(text);
    for (int i = 0; i < j->n; i++) {
        struct pe *q = &j->pes[i];
        if (q->contributed || q == also)
            enqueue(j, q, r);
        q->contributed = 0;
        /* A PE in the middle of sending its contribution must not write
         * into the freed buffer: its bytes are dropped, and it gets the
         * same error when its message is complete. */
        if (q->rx_payload && q->rx.type == SHOAL_MSG_ALLGATHER && q != also) {
            q->rx_dst = NULL;
            q->rx_keep = 0;
            q->rx_mismatch = 3;
        }
    }
    reply_unref(r);
}

static void round_complete(struct job *j)
{
    uint64_t total = j->round_len * (uint64_t)j->n;
    struct reply *r = reply_new(SHOAL_MSG_ALLGATHER_DONE, 0, 0, j->round_buf, total);
    j->round_buf = NULL;
    j->round_active = 0;
    j->round_count = 0;
    j->round_seq++;
    for (int i = 0; i < j->n; i++) {
        struct pe *q = &j->pes[i];
        if (q->contributed)
            enqueue(j, q, r);
        q->contributed = 0;
    }
    reply_unref(r);
}

static void describe_gone(struct pe *q, char *buf, size_t len)
{
    if (q->pid == 0)
        snprintf(buf, len, "was never started");
    else if (q->alive)
        snprintf(buf, len, "closed its connection to oshrun");
    else if (WIFSIGNALED(q->status))
        snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(q->status),
                 sig_name(WTERMSIG(q->status)));
    else
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(q->status));
}

double srv_check_round(struct job *j)
{
    if (!j->round_active)
        return 0;
    double now = now_mono(), again = 0;
    for (int i = 0; i < j->n; i++) {
        struct pe *q = &j->pes[i];
        if (q->contributed || q->sock >= 0)
            continue;
        if (q->alive && now < q->hup_at + OSHRUN_HUP_GRACE) {
            /* Probably exiting: wait for its status. */
            if (!again || q->hup_at + OSHRUN_HUP_GRACE < again)
                again = q->hup_at + OSHRUN_HUP_GRACE;
            continue;
        }
        char how[128], text[512];
        describe_gone(q, how, sizeof how);
        snprintf(text, sizeof text,
                 "%s #%lu cannot complete: PE %d (pid %ld) %s without joining it", round_kind(j),
                 j->round_seq, q->rank, (long)q->pid, how);
        round_fail(j, text, NULL);
        return 0;
    }
    return again;
}

/* ---- receiving ------------------------------------------------------------ */

static void sanitize(char *s)
{
    for (char *c = s; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
    size_t n = strlen(s);
    while (n && s[n - 1] == ' ')
        s[--n] = 0;
}

/* A header arrived: check it and decide where the payload goes.  Returns 0
 * or -1 (protocol error handled). */
static int start_msg(struct job *j, struct pe *p)
{
    const struct shoal_msg_hdr *h = &p->rx;
    p->rx_dst = NULL;
    p->rx_keep = 0;
    p->rx_mismatch = 0;
    switch (h->type) {
    case SHOAL_MSG_HELLO:
    case SHOAL_MSG_FINALIZE:
    case SHOAL_MSG_GLOBAL_EXIT:
        if (h->len != 0) {
            job_protocol_error(j, p, "a message that takes no data came with data");
            return -1;
        }
        return 0;
    case SHOAL_MSG_ABORT:
        p->rx_dst = p->text;
        p->rx_keep = h->len < SHOAL_PROTO_TEXT_MAX ? h->len : SHOAL_PROTO_TEXT_MAX;
        return 0;
    case SHOAL_MSG_ALLGATHER:
        if (p->contributed) {
            job_protocol_error(j, p, "a second allgather contribution before the first completed");
            return -1;
        }
        p->rounds_entered++;
        if (h->len > SHOAL_PROTO_MAX_LEN / (uint64_t)j->n) {
            p->rx_mismatch = 2;
            return 0;
        }
        if (!j->round_active) {
            /* Numbered as the PEs count it: a PE that arrives after a
             * round failed without it (a peer exited) starts the same
             * round again, not the next one. */
            j->round_seq = p->rounds_entered;
            size_t total = (size_t)(h->len * (uint64_t)j->n);
            j->round_buf = malloc(total ? total : 1);
            if (!j->round_buf) {
                p->rx_mismatch = 2;
                return 0;
            }
            j->round_active = 1;
            j->round_len = h->len;
            j->round_count = 0;
        }
        if (h->len != j->round_len) {
            p->rx_mismatch = 1;
            return 0;
        }
        p->rx_dst = j->round_buf + (size_t)p->rank * (size_t)h->len;
        p->rx_keep = h->len;
        return 0;
    default: job_protocol_error(j, p, "unknown message type"); return -1;
    }
}

static void finish_msg(struct job *j, struct pe *p)
{
    const struct shoal_msg_hdr *h = &p->rx;
    char text[512];
    switch (h->type) {
    case SHOAL_MSG_HELLO:
        if (p->hello) {
            snprintf(text, sizeof text,
                     "PE %d already started shmem_init on this connection (a second process "
                     "using PE %d's SHOAL_BOOT_FD?)",
                     p->rank, p->rank);
        } else if (h->a != p->rank || h->b != j->n) {
            snprintf(text, sizeof text,
                     "this connection belongs to PE %d of %d, but the process says it is PE %d "
                     "of %d (SHOAL_RANK/SHOAL_SIZE changed?)",
                     p->rank, j->n, h->a, h->b);
        } else {
            p->hello = 1;
            map_hang_page(p);
            struct reply *r = reply_new(SHOAL_MSG_HELLO_ACK, p->rank, j->n, NULL, 0);
            enqueue(j, p, r);
            reply_unref(r);
            return;
        }
        drop_rx_fd(p);
        struct reply *e = reply_text(text);
        enqueue(j, p, e);
        reply_unref(e);
        return;
    case SHOAL_MSG_ALLGATHER:
        if (p->rx_mismatch == 1) {
            snprintf(text, sizeof text,
                     "allgather #%lu: PE %d contributes %llu bytes, but the round started with "
                     "%llu bytes per PE: every PE must contribute the same length",
                     j->round_seq, p->rank, (unsigned long long)h->len,
                     (unsigned long long)j->round_len);
            round_fail(j, text, p);
        } else if (p->rx_mismatch == 2) {
            snprintf(text, sizeof text,
                     "allgather #%lu: %llu bytes from each of %d PEs is more than oshrun can "
                     "hold",
                     p->rounds_entered, (unsigned long long)h->len, j->n);
            if (j->round_active)
                round_fail(j, text, p);
            else {
                struct reply *r = reply_text(text);
                enqueue(j, p, r);
                reply_unref(r);
            }
        } else if (p->rx_mismatch == 3) {
            snprintf(text, sizeof text,
                     "the collective this PE joined failed before its contribution arrived (a "
                     "PE exited or contributed a different length)");
            struct reply *r = reply_text(text);
            enqueue(j, p, r);
            reply_unref(r);
        } else {
            p->contributed = 1;
            if (++j->round_count == j->n)
                round_complete(j);
            else
                srv_check_round(j);
        }
        return;
    case SHOAL_MSG_FINALIZE: p->finalized = 1; return;
    case SHOAL_MSG_ABORT:
        p->text[p->rx_keep] = 0;
        sanitize(p->text);
        p->aborted = 1;
        job_abort(j, p, h->a, p->text);
        return;
    case SHOAL_MSG_GLOBAL_EXIT: job_global_exit(j, p, h->a); return;
    }
}

/* Receives a header record into h; a descriptor that came with it (only
 * HELLO's is kept: the hang page) goes to p->rx_fd, any other is closed. */
static ssize_t recv_hdr(struct pe *p, struct shoal_msg_hdr *h)
{
    union {
        struct cmsghdr c;
        char buf[CMSG_SPACE(4 * sizeof(int))];
    } ctl;
    struct iovec iov = {h, sizeof *h};
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
    ssize_t r = recvmsg(p->sock, &m, MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_CLOEXEC);
    if (r < 0)
        return r;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < k; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof fd, sizeof fd);
            if (p->rx_fd < 0 && r == (ssize_t)sizeof *h && h->type == SHOAL_MSG_HELLO)
                p->rx_fd = fd;
            else
                close(fd);
        }
    }
    return r;
}

/* Reads one record.  Returns 1 (more may follow), 0 (nothing queued now) or
 * -1 (connection closed). */
static int recv_one(struct job *j, struct pe *p)
{
    static char scratch[SHOAL_PROTO_FRAG];
    ssize_t r;
    if (!p->rx_payload) {
        struct shoal_msg_hdr h;
        r = recv_hdr(p, &h);
        if (r < 0)
            goto err;
        if (r == 0) {
            hangup(j, p);
            return -1;
        }
        if (r != (ssize_t)sizeof h || h.magic != SHOAL_PROTO_MAGIC || h.len > SHOAL_PROTO_MAX_LEN) {
            job_protocol_error(j, p,
                               h.magic != SHOAL_PROTO_MAGIC && r == (ssize_t)sizeof h
                                   ? "wrong protocol version (the program uses another Shoal)"
                                   : "malformed message header");
            return -1;
        }
        p->rx = h;
        p->rx_got = 0;
        if (start_msg(j, p) < 0)
            return -1;
        if (h.len == 0)
            finish_msg(j, p);
        else
            p->rx_payload = 1;
        return 1;
    }
    uint64_t left = p->rx.len - p->rx_got;
    size_t cap = left < SHOAL_PROTO_FRAG ? (size_t)left : (size_t)SHOAL_PROTO_FRAG;
    int direct = p->rx_dst && p->rx_got + cap <= p->rx_keep;
    char *dst = direct ? p->rx_dst + p->rx_got : scratch;
    r = recv(p->sock, dst, cap, MSG_DONTWAIT | MSG_TRUNC);
    if (r < 0)
        goto err;
    if (r == 0) {
        hangup(j, p);
        return -1;
    }
    if ((size_t)r > cap) {
        job_protocol_error(j, p, "a data record longer than announced");
        return -1;
    }
    if (!direct && p->rx_dst && p->rx_got < p->rx_keep) {
        uint64_t room = p->rx_keep - p->rx_got;
        memcpy(p->rx_dst + p->rx_got, scratch, (size_t)r < room ? (size_t)r : (size_t)room);
    }
    p->rx_got += (uint64_t)r;
    if (p->rx_got == p->rx.len) {
        p->rx_payload = 0;
        finish_msg(j, p);
    }
    return 1;
err:
    if (errno == EINTR)
        return 1;
    if (errno == EAGAIN || errno == EWOULDBLOCK)
        return 0;
    hangup(j, p); /* ECONNRESET and the like */
    return -1;
}

void srv_readable(struct job *j, struct pe *p)
{
    /* Bounded, so one PE streaming a large contribution cannot starve the
     * others; poll() reports the rest. */
    for (int i = 0; i < 64 && p->sock >= 0; i++)
        if (recv_one(j, p) <= 0)
            break;
}

void srv_drain(struct job *j, struct pe *p)
{
    while (p->sock >= 0 && recv_one(j, p) > 0)
        ;
}
