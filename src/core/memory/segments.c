/* Symmetric segments: each PE's heap is a memfd; the PEs of one node send
 * each other their heap and static-data descriptors over abstract Unix
 * sockets (SCM_RIGHTS: no name in the file system, nothing to leak, works
 * under any launcher and with Yama), and every PE maps all of them into two
 * reserved ranges, slot s at base + s * stride.  Translating a symmetric
 * address for a local peer is then one subtraction and one multiply-add
 * (core/ops.h). */
#include "core/memory/segments.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "boot/boot.h"
#include "core/memory/data_segment.h"
#include "core/memory/pe_card.h"
#include "core/state.h"

#define HEAP_ALIGN ((size_t)2 << 20) /* lets the kernel use huge pages for the heap */

static int heap_fd = -1;
static int *slots;      /* world PE -> node slot or -1 */
static int *route;      /* shoal_g.slot_of_pe: slots, but -1 for this PE under
                             * SHOAL_TRANSPORTS=ucx (its own segments are mapped, yet
                             * every operation, to itself too, goes through UCX) */
static int *pe_of_slot; /* node slot -> world PE */
static int n_local;
static struct pe_card *cards;
static const char **hosts; /* shoal_g.peer_host */
static long *pids;         /* shoal_g.peer_pid */

static int fail(char *err, size_t len, const char *fmt, const char *what)
{
    snprintf(err, len, fmt, what, strerror(errno));
    return -1;
}

static void sock_name(struct sockaddr_un *a, socklen_t *len, const char *job, int rank)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    /* Abstract namespace: leading NUL. */
    int n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "shoal-%s-%d", job, rank);
    *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

static int send_fds(int sock, int rank, int hfd, int dfd)
{
    int fds[2] = {hfd, dfd};
    int nfd = dfd >= 0 ? 2 : 1;
    union {
        char buf[CMSG_SPACE(sizeof fds)];
        struct cmsghdr align;
    } u;
    memset(&u, 0, sizeof u);
    struct iovec iov = {&rank, sizeof rank};
    struct msghdr m = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = u.buf,
                       .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfd)};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfd);
    memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfd);
    ssize_t r;
    do
        r = sendmsg(sock, &m, MSG_NOSIGNAL);
    while (r < 0 && errno == EINTR);
    return r == (ssize_t)sizeof rank ? 0 : -1;
}

static int recv_fds(int sock, int *rank, int *hfd, int *dfd)
{
    union {
        char buf[CMSG_SPACE(sizeof(int) * 2)];
        struct cmsghdr align;
    } u;
    struct iovec iov = {rank, sizeof *rank};
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
    ssize_t r;
    do
        r = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
    while (r < 0 && errno == EINTR);
    if (r != (ssize_t)sizeof *rank)
        return -1;
    if (m.msg_flags & MSG_CTRUNC) { /* the kernel had no descriptor left for them */
        errno = EMFILE;
        return -1;
    }
    *hfd = *dfd = -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            int fds[2] = {-1, -1};
            size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            memcpy(fds, CMSG_DATA(c), n * sizeof(int));
            *hfd = fds[0];
            *dfd = n > 1 ? fds[1] : -1;
        }
    }
    return *hfd >= 0 ? 0 : -1;
}

/* The distance between two PEs' heaps, and the alignment of each heap's
 * base: the power of two at or above the heap's size (at least 2 MiB, which
 * lets the kernel use huge pages).  shmem_align aligns a block's offset, so
 * its address is aligned as asked for any alignment up to this, on every PE
 * and every node alike (docs/user-guide.md); it costs address space only
 * (at most twice the heap, reserved, never touched). */
static size_t heap_slot_size(size_t heap_size)
{
    size_t s = HEAP_ALIGN;
    while (s < heap_size && s <= SIZE_MAX / 2)
        s <<= 1;
    return s < heap_size ? (heap_size + HEAP_ALIGN - 1) & ~(HEAP_ALIGN - 1) : s;
}

static void *reserve(size_t len, size_t align)
{
    /* Over-reserve, then trim to an aligned range. */
    char *p =
        mmap(NULL, len + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    char *a = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
    if (a > p)
        munmap(p, (size_t)(a - p));
    munmap(a + len, (size_t)(p + len + align - a - len));
    return a;
}

/* The exchange holds a descriptor or two per peer of this node (heap, and
 * static data) until they are mapped: past RLIMIT_NOFILE the kernel drops
 * those that arrive.  Say which limit to raise. */
static void fds_exhausted(char *err, size_t errlen, int arrived)
{
    struct rlimit rl;
    long limit = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? (long)rl.rlim_cur : -1;
    long need = limit + 2L * (n_local - 1 - arrived);
    snprintf(err, errlen,
             "too few file descriptors to map the memory of this node's %d other PEs: the soft "
             "limit RLIMIT_NOFILE is %ld, and this PE holds a descriptor or two per PE until "
             "all have arrived (%d of %d did); raise the limit before starting the job (`ulimit "
             "-n %ld` or more)",
             n_local - 1, limit, arrived, n_local - 1, need > 1024 ? need : 1024);
}

/* Exchanges descriptors with every other PE of this node: listen, barrier,
 * connect-and-send to each peer (queued in the listeners' backlogs), then
 * accept and receive from each. */
static int exchange_fds(struct shoal_boot *b, const char *job, int dfd, int *peer_heap,
                        int *peer_data, char *err, size_t errlen)
{
    int me = b->rank;
    int lsock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lsock < 0)
        return fail(err, errlen, "%s: %s", "socket");
    struct sockaddr_un a;
    socklen_t alen;
    sock_name(&a, &alen, job, me);
    if (bind(lsock, (struct sockaddr *)&a, alen) < 0 || listen(lsock, n_local + 8) < 0) {
        close(lsock);
        return fail(err, errlen, "cannot listen on the abstract socket %s: %s", a.sun_path + 1);
    }
    int rc = -1;
    if (b->barrier() < 0) {
        snprintf(err, errlen, "bootstrap barrier failed");
        goto out;
    }
    for (int s = 0; s < n_local; s++) {
        int pe = pe_of_slot[s];
        if (pe == me)
            continue;
        int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sock_name(&a, &alen, job, pe);
        if (c < 0 || connect(c, (struct sockaddr *)&a, alen) < 0 ||
            send_fds(c, me, heap_fd, dfd) < 0) {
            int e = errno;
            if (c >= 0)
                close(c);
            snprintf(err, errlen,
                     "cannot send the symmetric heap's descriptor to PE %d (host %s, pid %lld), "
                     "which looks like this node (same kernel, network and IPC namespaces): "
                     "%s on the abstract socket %s",
                     pe, cards[pe].host, (long long)cards[pe].pid, strerror(e), a.sun_path + 1);
            goto out;
        }
        close(c);
    }
    for (int k = 0; k < n_local - 1; k++) {
        int c;
        do
            c = accept4(lsock, NULL, NULL, SOCK_CLOEXEC);
        while (c < 0 && errno == EINTR);
        int rank = -1, hfd = -1, pdfd = -1; /* set by recv_fds */
        errno = 0;
        if (c < 0 || recv_fds(c, &rank, &hfd, &pdfd) < 0 || rank < 0 || rank >= b->size ||
            slots[rank] < 0) {
            int e = errno;
            if (c >= 0)
                close(c);
            if (e == EMFILE)
                fds_exhausted(err, errlen, k);
            else
                snprintf(err, errlen,
                         "cannot receive the symmetric heaps' descriptors of this node's PEs "
                         "(%d expected, %d arrived): %s",
                         n_local - 1, k, c < 0 ? strerror(e) : "a peer sent a malformed message");
            goto out;
        }
        close(c);
        peer_heap[slots[rank]] = hfd;
        peer_data[slots[rank]] = pdfd;
    }
    rc = 0;
out:
    close(lsock);
    return rc;
}

/* The PEs this PE maps: same host and boot, the same pretend node
 * (SHOAL_SPLIT_NODES), and only itself under SHOAL_TRANSPORTS=ucx. */
static void assign_slots(const struct pe_card *mine, int me, int n, int all_remote, long split)
{
    n_local = 0;
    shoal_g.n_host = 0;
    for (int pe = 0; pe < n; pe++) {
        hosts[pe] = cards[pe].host;
        pids[pe] = pe_card_same_node(&cards[pe], mine) && cards[pe].pid_ns == mine->pid_ns
                       ? (long)cards[pe].pid
                       : -1;
        shoal_g.n_host += pe_card_same_machine(&cards[pe], mine);
        int local = pe_card_same_node(&cards[pe], mine) && (!all_remote || pe == me) &&
                    (long)pe * split / n == (long)me * split / n;
        slots[pe] = local ? n_local : -1;
        if (local)
            pe_of_slot[n_local++] = pe;
    }
}

/* Maps every local PE's heap (and static data, where it is shared) at
 * its slot of the reserved ranges, closing the peers' descriptors. */
static int map_peers(char *hr, size_t heap_stride, size_t heap_size, char *dr, size_t data_stride,
                     const int *peer_heap, const int *peer_data, int my_slot, char *err,
                     size_t errlen)
{
    int rc = 0;
    for (int s = 0; s < n_local; s++) {
        if (mmap(hr + (size_t)s * heap_stride, heap_size, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_FIXED, peer_heap[s], 0) == MAP_FAILED)
            rc = fail(err, errlen, "cannot map the symmetric heap of PE %s: %s", "peer");
        /* Large pages where the kernel offers them for shared memory
         * (/sys/kernel/mm/transparent_hugepage/shmem_enabled = advise):
         * fewer TLB misses on large transfers; a no-op elsewhere. */
        madvise(hr + (size_t)s * heap_stride, heap_size, MADV_HUGEPAGE);
        if (dr && peer_data[s] >= 0 &&
            mmap(dr + (size_t)s * data_stride, data_stride, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_FIXED, peer_data[s], 0) == MAP_FAILED)
            rc = fail(err, errlen, "cannot map the static data of PE %s: %s", "peer");
        if (s != my_slot) {
            close(peer_heap[s]);
            if (peer_data[s] >= 0)
                close(peer_data[s]);
        }
    }
    return rc;
}

/* What the rest of core reads: the regions, this PE's segments, routes. */
static int publish(char *hr, size_t heap_stride, size_t heap_size, char *dr, size_t data_stride,
                   const struct shoal_data_segment *ds, int me, int n, int all_remote, char *err,
                   size_t errlen)
{
    shoal_g.heap_region = hr;
    shoal_g.heap_stride = heap_stride;
    shoal_g.heap_size = heap_size;
    shoal_g.heap_me = hr + (size_t)slots[me] * heap_stride;
    shoal_g.user_heap_size = heap_size - SHOAL_CTL_SIZE;
    if (dr) {
        shoal_g.data_region = dr;
        shoal_g.data_stride = data_stride;
        shoal_g.data_me = ds->start;
        shoal_g.data_size = ds->size;
        shoal_g.data_shared = 1;
    } else {
        shoal_g.data_note = ds->note ? ds->note : "no static data segment";
    }
    shoal_g.n_local = n_local;
    shoal_g.slot_of_pe = n_local == n ? NULL : slots;
    if (!all_remote)
        return 0;
    route = malloc((size_t)n * sizeof *route);
    if (!route) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(route, slots, (size_t)n * sizeof *route);
    route[me] = -1;
    shoal_g.slot_of_pe = route;
    return 0;
}

/* This PE's heap memfd, and everybody's descriptors on this node. */
static int share_fds(struct shoal_boot *b, const struct shoal_data_segment *ds, size_t heap_size,
                     int *peer_heap, int *peer_data, char *err, size_t errlen)
{
    heap_fd = memfd_create("shoal-heap", MFD_CLOEXEC);
    if (heap_fd < 0)
        return fail(err, errlen, "%s failed: %s", "memfd_create");
    if (ftruncate(heap_fd, (off_t)heap_size) < 0)
        return fail(err, errlen, "cannot size the symmetric heap (%s): %s", "ftruncate");
    int my_slot = slots[b->rank];
    peer_heap[my_slot] = heap_fd;
    peer_data[my_slot] = ds->fd;
    /* exchange_fds holds a job-wide barrier (the bootstrap's job id keeps
     * concurrent jobs' socket names apart): a PE alone on its node (a node
     * of one PE in a mixed job) must enter it too. */
    if (n_local > 1)
        return exchange_fds(b, b->jobid, ds->fd, peer_heap, peer_data, err, errlen);
    if (b->barrier() < 0) {
        snprintf(err, errlen, "bootstrap barrier failed");
        return -1;
    }
    return 0;
}

int shoal_segments_setup(struct shoal_boot *b, size_t user_heap, int all_remote, long split,
                         const struct pe_reach *reach, char *err, size_t errlen)
{
    const struct shoal_data_segment *ds = shoal_data_segment();
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (user_heap > SIZE_MAX / 4) {
        snprintf(err, errlen, "SHMEM_SYMMETRIC_SIZE=%zu is too large", user_heap);
        return -1;
    }
    size_t heap_size = (SHOAL_CTL_SIZE + user_heap + page - 1) & ~(page - 1);
    int me = b->rank, n = b->size, rc = -1;
    int *peer_heap = NULL, *peer_data = NULL;

    cards = calloc((size_t)n, sizeof *cards);
    slots = malloc((size_t)n * sizeof *slots);
    pe_of_slot = malloc((size_t)n * sizeof *pe_of_slot);
    hosts = calloc((size_t)n, sizeof *hosts);
    pids = calloc((size_t)n, sizeof *pids);
    if (!cards || !slots || !pe_of_slot || !hosts || !pids) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    struct pe_card mine;
    pe_card_fill(&mine, heap_size, ds->size, reach);
    if (b->allgather(&mine, cards, sizeof mine) < 0) {
        snprintf(err, errlen, "bootstrap allgather failed");
        return -1;
    }
    if (pe_cards_check(cards, me, n, err, errlen) < 0)
        return -1;
    assign_slots(&mine, me, n, all_remote, split);
    shoal_g.peer_host = hosts;
    shoal_g.peer_pid = pids;

    peer_heap = malloc(sizeof(int) * (size_t)n_local);
    peer_data = malloc(sizeof(int) * (size_t)n_local);
    if (!peer_heap || !peer_data) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (share_fds(b, ds, heap_size, peer_heap, peer_data, err, errlen) < 0)
        goto out;

    size_t heap_stride = heap_slot_size(heap_size);
    char *hr = reserve(heap_stride * (size_t)n_local, heap_stride);
    size_t data_stride = ds->size;
    char *dr = NULL;
    if (ds->size && ds->fd >= 0)
        dr = reserve(data_stride * (size_t)n_local, page);
    if (!hr || (ds->size && ds->fd >= 0 && !dr)) {
        snprintf(err, errlen,
                 "cannot reserve %zu bytes of address space for the symmetric heaps of %d PEs "
                 "(lower SHMEM_SYMMETRIC_SIZE)",
                 heap_stride * (size_t)n_local, n_local);
        goto out;
    }
    if (map_peers(hr, heap_stride, heap_size, dr, data_stride, peer_heap, peer_data, slots[me], err,
                  errlen) < 0)
        goto out;
    rc = publish(hr, heap_stride, heap_size, dr, data_stride, ds, me, n, all_remote, err, errlen);
out:
    free(peer_heap);
    free(peer_data);
    return rc;
}

int shoal_segments_same_node(int pe)
{
    return cards && pe_card_same_node(&cards[pe], &cards[shoal_g.my_pe]);
}

const struct pe_reach *shoal_segments_reach(int pe, int *same_net)
{
    if (!cards)
        return NULL;
    *same_net = pe_card_same_net(&cards[pe], &cards[shoal_g.my_pe]);
    return &cards[pe].reach;
}

int shoal_segments_pe_local(int pe)
{
    return slots && slots[pe] >= 0;
}

int shoal_segments_slot(int pe)
{
    return slots ? slots[pe] : -1;
}

void shoal_segments_teardown(void)
{
    if (shoal_g.heap_region)
        munmap(shoal_g.heap_region, shoal_g.heap_stride * (size_t)n_local);
    if (shoal_g.data_region)
        munmap(shoal_g.data_region, shoal_g.data_stride * (size_t)n_local);
    if (heap_fd >= 0)
        close(heap_fd);
    heap_fd = -1;
    shoal_g.heap_region = shoal_g.heap_me = shoal_g.data_region = NULL;
    shoal_g.data_me = NULL;
    shoal_g.heap_size = shoal_g.data_size = 0;
    shoal_g.slot_of_pe = NULL;
    shoal_g.peer_host = NULL;
    shoal_g.peer_pid = NULL;
    free(hosts);
    free(pids);
    hosts = NULL;
    pids = NULL;
    free(cards);
    free(slots);
    free(pe_of_slot);
    free(route);
    route = NULL;
    cards = NULL;
    slots = pe_of_slot = NULL;
}
