/* Part of core/waiting (wait.h): is a peer reached through the network
 * still there, asked of its host rather than of the peer (peer_reach.c).
 *
 * A peer is dead when its process is gone or its host (or the link to
 * it) does not answer; never because it is slow, busy, computing without
 * calling Shoal, progressing without a progress thread or stopped in a
 * debugger.  Only the peer's kernel answers for a process that does not
 * run, so every PE listens on a TCP port where it never accepts: the
 * kernel completes the handshake and answers keepalive probes for the
 * connections that wait in the queue, whatever the process does.  A PE
 * that waits long for a peer connects there once and keeps the
 * connection, whose keepalive Shoal sets from SHOAL_PEER_TIMEOUT:
 *  - the connection is reset or closed: the peer's process ended (its
 *    kernel closed the listening socket);
 *  - it cannot be made, or its keepalive goes unanswered, for
 *    SHOAL_PEER_TIMEOUT: the host or the link to it is down.
 * Nothing is sent on it, and a healthy job never makes one unless a wait
 * lasts a second, or a wait's look needs a transport endpoint to a peer
 * it has none to (shoal_reach_may_connect).  This holds for every network
 * transport alike. */
#ifndef SHOAL_CORE_PEER_REACH_H
#define SHOAL_CORE_PEER_REACH_H
#include <stddef.h>
#include <stdint.h>

struct pe_reach;

enum shoal_reach {
    SHOAL_REACH_UNKNOWN, /* no answer yet, or no way to ask */
    SHOAL_REACH_UP,      /* the host holds the connection */
    SHOAL_REACH_GONE,    /* the connection was reset or closed: the process ended */
    SHOAL_REACH_LOST     /* no connection, or no keepalive answer, for the timeout */
};

/* Before the PEs exchange their cards: opens this PE's listening socket
 * and says where it is (port 0 when it cannot: then nothing is ever taken
 * for unreachable, and only the launcher and the transport's errors tell
 * of a peer's death). */
void shoal_reach_listen(struct pe_reach *mine);
/* Once the cards are in (core/memory/segments.h), with the job's size. */
int shoal_reach_start(int n_pes);
/* How `pe`'s host answers now; starts the connection when there is none
 * and never blocks.  GONE and LOST stay so, with a reason in `why`. */
enum shoal_reach shoal_reach_look(int pe, uint64_t now, char *why, size_t len);
/* May a wait's look at `pe` through the transport connect to it now (the
 * `connect` of shoal_net_peek and shoal_net_look_start)?  Yes where the
 * transport has its endpoint already (shoal_net_wired: nothing to make),
 * where pe's host holds this PE's connection, or where nothing can tell
 * (no port, SHOAL_PEER_TIMEOUT=0); else no, and the connection to its host
 * is started.  A transport may
 * block in connect() for minutes on an unreachable host (UCX's tcp with
 * UCX_TCP_CONN_NB=n, its default), and no look may hold a wait that long. */
int shoal_reach_may_connect(int pe, uint64_t now);
/* At the end of the job: the connections and the listening socket. */
void shoal_reach_close(void);
#endif
