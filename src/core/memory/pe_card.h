/* What each PE tells every other at start-up (pe_card.c): where it runs
 * and what it runs.  Part of core/memory (segments.h): the cards decide
 * which PEs share a node and whether the PEs' symmetric layouts agree.
 *
 * A node is the set of PEs that can really share memory: the same kernel
 * (its boot id) and the same network and IPC namespaces.  The network
 * namespace scopes the abstract Unix sockets the heaps' descriptors travel
 * through, the IPC namespace the System V and POSIX objects UCX may use;
 * two containers on one machine are separate nodes unless they share both,
 * whatever their host names say.  The host name only labels messages.
 *
 * A program is known by its content, never by its file: the ELF build id
 * of the main executable (a digest of its read-only loaded segments where
 * it has none), so identical copies on separate hosts, container images
 * or NFS clients are one program, and a different program is refused. */
#ifndef SHOAL_CORE_PE_CARD_H
#define SHOAL_CORE_PE_CARD_H
#include <stddef.h>
#include <stdint.h>

/* Where a PE's host answers for it at the TCP level (core/waiting/
 * peer_reach.c): a listening socket's port and up to PE_REACH_ADDRS of the
 * host's addresses (port 0: none). */
#define PE_REACH_ADDRS 4
struct pe_reach {
    uint16_t port;
    uint8_t n_addr;
    uint8_t family[PE_REACH_ADDRS]; /* AF_INET or AF_INET6 */
    uint8_t pad;
    uint8_t addr[PE_REACH_ADDRS][16];
};

struct pe_card {
    char host[64];    /* host name (UTS namespace), for messages */
    char boot_id[40]; /* the kernel's boot */
    uint64_t net_ns;  /* inode of /proc/self/ns/net (0: unknown) */
    uint64_t ipc_ns;  /* ... ns/ipc */
    uint64_t pid_ns;  /* ... ns/pid: pids are comparable only inside one */
    int64_t pid;
    uint64_t heap_size;
    uint64_t data_size;
    uint64_t image;      /* digest of the program (build id or segments) */
    uint32_t image_kind; /* PE_IMAGE_BUILD_ID or PE_IMAGE_SEGMENTS */
    uint32_t pad;
    struct pe_reach reach;
};
enum { PE_IMAGE_BUILD_ID = 1, PE_IMAGE_SEGMENTS = 2 };

void pe_card_fill(struct pe_card *c, size_t heap_size, size_t data_size,
                  const struct pe_reach *reach);
/* Same kernel, network and IPC namespaces: memory can be shared. */
int pe_card_same_node(const struct pe_card *a, const struct pe_card *b);
/* Same kernel and network namespace: the loopback reaches it. */
int pe_card_same_net(const struct pe_card *a, const struct pe_card *b);
/* Same machine (kernel boot): the PEs share its CPUs, if not memory. */
int pe_card_same_machine(const struct pe_card *a, const struct pe_card *b);
/* Every PE runs the same program with the same heap size: 0, or -1 with
 * a message naming both PEs and their hosts. */
int pe_cards_check(const struct pe_card *cards, int me, int n, char *err, size_t errlen);
#endif
