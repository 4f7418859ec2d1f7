/* Part of core/waiting (wait.h): whether the peer a wait depends on is
 * still there (peer_check.c), and whether the job is ending under the
 * waiter (another PE called shmem_global_exit). */
#ifndef SHOAL_CORE_PEER_CHECK_H
#define SHOAL_CORE_PEER_CHECK_H
#include <stdint.h>

struct shoal_waiter;

/* Called by the wait engine now and then: the peer the thread's wait
 * record names (a collective's) left the job, died, or (through the
 * network) its host does not answer: fatal, naming it and its host,
 * unless `ready` says that what was awaited came after all. */
void shoal_peer_check(struct shoal_waiter *w, uint64_t now, int (*ready)(void *), void *arg);
/* While a bootstrap call waits for every PE (since `since_ns`): after a
 * second, asks the hosts of the PEs reached through the network, a few at
 * a time, and ends the job on one that does not answer. */
void shoal_peer_check_all(uint64_t since_ns);
/* The transport's hook (net.h's peer_watch): a request to `pe` (-1:
 * several peers) is blocked; every 200 ms at most, asks the peer's host
 * (peer_reach.h) and ends the job when its process is gone or the host
 * does not answer. */
void shoal_peer_watch(int pe, const char *fn, const char *what);
/* Has `pe` answered a look through the network (shoal_net_peek) within
 * the last second?  Starts the next look; always 1 for a mapped peer. */
int shoal_peer_answers(int pe);
#endif
