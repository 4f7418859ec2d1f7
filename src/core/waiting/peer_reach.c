/* Is a peer's host still there (peer_reach.h): a TCP connection to the
 * port each PE listens on, made the first time a wait for the peer lasts,
 * kept for the rest of the job, and read without blocking. */
/* (_GNU_SOURCE, for POLLRDHUP, comes from the build) */
#include "core/waiting/peer_reach.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/memory/pe_card.h"
#include "core/memory/segments.h"
#include "core/state.h"
#include "core/waiting/wait.h"
#include "transport/net.h"

/* Between attempts that failed at once (no route yet, refused). */
#define REACH_RETRY_NS 500000000ull

struct probe {
    int fd[PE_REACH_ADDRS];   /* connections being made, one per address (-1: none) */
    int up;                   /* the connection made (-1: none yet) */
    int busy;                 /* a thread is looking */
    enum shoal_reach verdict; /* GONE or LOST once known */
    uint64_t since;           /* the first attempt not yet answered (0: none) */
    uint64_t retry_at;
    int last_err;      /* errno of the last attempt that failed, or of the loss */
    uint64_t lost_for; /* LOST without a connection: for how long */
    int same_kernel;   /* reached through the loopback: a refusal is its own kernel's */
};

static int listen_fd = -1;
static struct pe_reach my_reach;
static struct probe *probes;
static int n_probes;
/* A connection to a peer's port was made once (any peer): the port is
 * reachable here.  Until then a host that cannot be connected to may only
 * sit behind a firewall that lets the transport through, and nothing is
 * taken for unreachable; the first is tried at start, to the next PE
 * through the network (first_pe), so that a link cut later is told from a
 * port that was never open. */
static int proven;
static int first_pe = -1;

static int open_listener(int family)
{
    int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t len;
    if (family == AF_INET6) {
        int off = 0; /* IPv4 peers too, where the host allows */
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
        ((struct sockaddr_in6 *)&ss)->sin6_family = AF_INET6;
        len = sizeof(struct sockaddr_in6);
    } else {
        ((struct sockaddr_in *)&ss)->sin_family = AF_INET;
        len = sizeof(struct sockaddr_in);
    }
    /* Never accepted: the queue holds the peers' connections, one per peer
     * that watches this PE, as long as net.core.somaxconn allows. */
    if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, SOMAXCONN) < 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
        close(fd);
        return -1;
    }
    my_reach.port = ntohs(family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                             : ((struct sockaddr_in *)&ss)->sin_port);
    return fd;
}

static void add_addr(struct pe_reach *r, int family, const void *a, size_t len)
{
    if (r->n_addr >= PE_REACH_ADDRS)
        return;
    r->family[r->n_addr] = (uint8_t)family;
    memcpy(r->addr[r->n_addr], a, len);
    r->n_addr++;
}

/* The host's addresses that another host may reach: up, not loopback, not
 * link-local (those need an interface to be named); IPv4 first. */
static void list_addrs(struct pe_reach *r, int v6_too)
{
    struct ifaddrs *all;
    if (getifaddrs(&all) < 0)
        return;
    for (int pass = 0; pass < 1 + v6_too; pass++)
        for (struct ifaddrs *i = all; i; i = i->ifa_next) {
            if (!i->ifa_addr || !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
                continue;
            if (pass == 0 && i->ifa_addr->sa_family == AF_INET) {
                add_addr(r, AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, 4);
            } else if (pass == 1 && i->ifa_addr->sa_family == AF_INET6) {
                const struct in6_addr *a = &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
                if (!IN6_IS_ADDR_LINKLOCAL(a) && !IN6_IS_ADDR_V4MAPPED(a))
                    add_addr(r, AF_INET6, a, 16);
            }
        }
    freeifaddrs(all);
}

void shoal_reach_listen(struct pe_reach *mine)
{
    memset(&my_reach, 0, sizeof my_reach);
    if (shoal_g.peer_timeout_ns) {
        int v6 = 1;
        listen_fd = open_listener(AF_INET6);
        if (listen_fd < 0) {
            v6 = 0;
            listen_fd = open_listener(AF_INET);
        }
        if (listen_fd >= 0)
            list_addrs(&my_reach, v6);
    }
    *mine = my_reach;
}

/* Keepalive from SHOAL_PEER_TIMEOUT T: a quarter of it idle, then probes
 * that together take the rest, so that a host gone silent is noticed
 * within T of its last answer (and data never sent: the keepalive always
 * runs). */
static void set_keepalive(int fd)
{
    const int t = (int)(shoal_g.peer_timeout_ns / 1000000000u) > 2
                      ? (int)(shoal_g.peer_timeout_ns / 1000000000u)
                      : 2;
    int on = 1, idle = t / 4 > 1 ? t / 4 : 1, intvl = t / 8 > 1 ? t / 8 : 1;
    int cnt = (t - idle) / intvl > 1 ? (t - idle) / intvl : 1;
    unsigned user_ms = (unsigned)t * 1000u;
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_ms, sizeof user_ms);
}

/* Is address k of the peer's card one of this host's own?  Then it is
 * not the peer's host (a docker0 bridge has the same address on every
 * machine) and would reach this one. */
static int is_mine(const struct pe_reach *r, int k)
{
    for (int i = 0; i < my_reach.n_addr; i++)
        if (my_reach.family[i] == r->family[k] &&
            !memcmp(my_reach.addr[i], r->addr[k], r->family[k] == AF_INET ? 4 : 16))
            return 1;
    return 0;
}

static int connect_to(int family, const void *addr, uint16_t port)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t len;
    if (family == AF_INET) {
        struct sockaddr_in *s = (struct sockaddr_in *)&ss;
        s->sin_family = AF_INET;
        s->sin_port = htons(port);
        memcpy(&s->sin_addr, addr, 4);
        len = sizeof *s;
    } else {
        struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;
        s->sin6_family = AF_INET6;
        s->sin6_port = htons(port);
        memcpy(&s->sin6_addr, addr, 16);
        len = sizeof *s;
    }
    int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    set_keepalive(fd);
    if (connect(fd, (struct sockaddr *)&ss, len) < 0 && errno != EINPROGRESS) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* One attempt per address of the peer's host (the loopback where it shares
 * this PE's network namespace); returns how many are on their way. */
static int start_attempts(struct probe *p, int pe)
{
    int same_net = 0, n = 0;
    const struct pe_reach *r = shoal_segments_reach(pe, &same_net);
    if (!r || !r->port)
        return 0;
    p->same_kernel = same_net;
    if (same_net) {
        const struct in_addr lo = {htonl(INADDR_LOOPBACK)};
        p->fd[0] = connect_to(AF_INET, &lo, r->port);
        if (p->fd[0] < 0)
            p->last_err = errno;
        return p->fd[0] >= 0;
    }
    for (int k = 0; k < r->n_addr; k++) {
        if (is_mine(r, k))
            continue;
        p->fd[k] = connect_to(r->family[k], r->addr[k], r->port);
        if (p->fd[k] < 0)
            p->last_err = errno;
        n += p->fd[k] >= 0;
    }
    return n;
}

int shoal_reach_start(int n_pes)
{
    if (listen_fd < 0)
        return 0;
    probes = calloc((size_t)n_pes, sizeof *probes);
    if (!probes)
        return -1;
    n_probes = n_pes;
    for (int pe = 0; pe < n_pes; pe++) {
        probes[pe].up = -1;
        for (int k = 0; k < PE_REACH_ADDRS; k++)
            probes[pe].fd[k] = -1;
    }
    for (int k = 1; k < n_pes && first_pe < 0; k++)
        if (shoal_slot((shoal_g.my_pe + k) % n_pes) < 0)
            first_pe = (shoal_g.my_pe + k) % n_pes;
    if (first_pe >= 0) {
        start_attempts(&probes[first_pe], first_pe);
        probes[first_pe].retry_at = shoal_now_ns() + REACH_RETRY_NS;
    }
    return 0;
}

static int sock_error(int fd)
{
    int e = 0;
    socklen_t len = sizeof e;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0)
        return errno;
    return e;
}

/* Did the peer's host ever answer on this socket (its SYN-ACK gave an RTT), though the
 * connection failed since?  The attempt made at start is looked at only
 * later, perhaps after a cut. */
static int answered_once(int fd)
{
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    memset(&ti, 0, sizeof ti);
    return getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0 && ti.tcpi_rtt > 0;
}

static void close_attempts(struct probe *p)
{
    for (int k = 0; k < PE_REACH_ADDRS; k++)
        if (p->fd[k] >= 0) {
            close(p->fd[k]);
            p->fd[k] = -1;
        }
}

/* The attempts that have an answer: the first made keeps the probe. */
static int attempts_in_flight(struct probe *p)
{
    int left = 0;
    for (int k = 0; k < PE_REACH_ADDRS && p->up < 0; k++) {
        if (p->fd[k] < 0)
            continue;
        struct pollfd q = {p->fd[k], POLLOUT, 0};
        if (poll(&q, 1, 0) <= 0) {
            left++;
            continue;
        }
        int e = sock_error(p->fd[k]);
        if (e == 0) {
            __atomic_store_n(&proven, 1, __ATOMIC_RELAXED);
            p->up = p->fd[k];
            p->fd[k] = -1;
            close_attempts(p);
            return 0;
        }
        p->last_err = e;
        if (answered_once(p->fd[k]))
            __atomic_store_n(&proven, 1, __ATOMIC_RELAXED);
        close(p->fd[k]);
        p->fd[k] = -1;
    }
    return left;
}

/* Is the port reachable here (`proven`)?  Moves the first attempt on. */
static int proven_here(uint64_t now)
{
    if (__atomic_load_n(&proven, __ATOMIC_RELAXED) || first_pe < 0)
        return __atomic_load_n(&proven, __ATOMIC_RELAXED);
    struct probe *p = &probes[first_pe];
    if (__atomic_exchange_n(&p->busy, 1, __ATOMIC_ACQUIRE))
        return 0; /* (the caller's own probe: it just looked) */
    if (p->up < 0 && p->verdict == SHOAL_REACH_UNKNOWN && !attempts_in_flight(p) && p->up < 0 &&
        now >= p->retry_at) {
        start_attempts(p, first_pe);
        p->retry_at = now + REACH_RETRY_NS;
    }
    __atomic_store_n(&p->busy, 0, __ATOMIC_RELEASE);
    return __atomic_load_n(&proven, __ATOMIC_RELAXED);
}

static enum shoal_reach connecting(struct probe *p, int pe, uint64_t now)
{
    int left = attempts_in_flight(p);
    if (p->up >= 0) {
        p->since = 0;
        return SHOAL_REACH_UP;
    }
    if (!left && now >= p->retry_at) {
        if (!p->since)
            p->since = now;
        left = start_attempts(p, pe);
        p->retry_at = now + REACH_RETRY_NS;
        if (!left && !p->last_err)
            return SHOAL_REACH_UNKNOWN; /* nowhere to ask */
    }
    /* The peer's own kernel says that nobody listens on its port any more
     * (elsewhere a refusal may come from another host with that address). */
    if (!left && p->same_kernel && p->last_err == ECONNREFUSED)
        return SHOAL_REACH_GONE;
    if (!p->since || now - p->since <= shoal_g.peer_timeout_ns || !proven_here(now))
        return SHOAL_REACH_UNKNOWN;
    close_attempts(p);
    p->lost_for = now - p->since;
    return SHOAL_REACH_LOST;
}

static enum shoal_reach watch_up(struct probe *p)
{
    struct pollfd q = {p->up, POLLIN | POLLRDHUP, 0};
    if (poll(&q, 1, 0) <= 0)
        return SHOAL_REACH_UP;
    int e = sock_error(p->up);
    char c;
    if (e == 0 && recv(p->up, &c, 1, MSG_PEEK | MSG_DONTWAIT) > 0)
        return SHOAL_REACH_UP; /* (nothing is sent on it; tolerated) */
    p->last_err = e;
    return e == 0 || e == ECONNRESET || e == EPIPE ? SHOAL_REACH_GONE : SHOAL_REACH_LOST;
}

static void describe(const struct probe *p, char *why, size_t len)
{
    const char *e = p->last_err ? strerror(p->last_err) : "";
    const char *sep = p->last_err ? ": " : "";
    if (p->verdict == SHOAL_REACH_GONE && p->up < 0)
        snprintf(why, len, "its kernel refuses connections to its port%s%s", sep, e);
    else if (p->verdict == SHOAL_REACH_GONE)
        snprintf(why, len, "its host closed the connection to its process%s%s", sep, e);
    else if (p->lost_for)
        snprintf(why, len, "no connection to its host for %.0f s%s%s", (double)p->lost_for / 1e9,
                 sep, e);
    else
        snprintf(why, len, "its host stopped answering%s%s", sep, e);
}

enum shoal_reach shoal_reach_look(int pe, uint64_t now, char *why, size_t len)
{
    if (!probes || pe < 0 || pe >= n_probes || !shoal_g.peer_timeout_ns)
        return SHOAL_REACH_UNKNOWN;
    struct probe *p = &probes[pe];
    if (__atomic_exchange_n(&p->busy, 1, __ATOMIC_ACQUIRE))
        return SHOAL_REACH_UNKNOWN; /* another thread looks at this peer */
    if (p->verdict == SHOAL_REACH_UNKNOWN) {
        enum shoal_reach st = p->up >= 0 ? watch_up(p) : connecting(p, pe, now);
        if (st == SHOAL_REACH_GONE || st == SHOAL_REACH_LOST)
            p->verdict = st;
        else {
            __atomic_store_n(&p->busy, 0, __ATOMIC_RELEASE);
            return st;
        }
    }
    describe(p, why, len);
    enum shoal_reach st = p->verdict;
    __atomic_store_n(&p->busy, 0, __ATOMIC_RELEASE);
    return st;
}

int shoal_reach_may_connect(int pe, uint64_t now)
{
    if (shoal_net_wired(pe))
        return 1;
    if (!probes || pe < 0 || pe >= n_probes || !shoal_g.peer_timeout_ns)
        return 1;
    int same_net = 0;
    const struct pe_reach *r = shoal_segments_reach(pe, &same_net);
    if (!r || !r->port)
        return 1;
    return shoal_reach_look(pe, now, NULL, 0) == SHOAL_REACH_UP;
}

void shoal_reach_close(void)
{
    for (int pe = 0; probes && pe < n_probes; pe++) {
        close_attempts(&probes[pe]);
        if (probes[pe].up >= 0)
            close(probes[pe].up);
    }
    free(probes);
    probes = NULL;
    n_probes = 0;
    if (listen_fd >= 0)
        close(listen_fd);
    listen_fd = -1;
}
