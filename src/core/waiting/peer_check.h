/* Part of core/waiting (wait.h): whether the peer a wait depends on is
 * still there (peer_check.c), and whether the job is ending under the
 * waiter (another PE called shmem_global_exit). */
#ifndef SHOAL_CORE_PEER_CHECK_H
#define SHOAL_CORE_PEER_CHECK_H
#include <stdint.h>

struct shoal_waiter;

/* Called by the wait engine now and then: the peer the thread's wait
 * record names (a collective's) left the job, died, or (through the
 * network) has not answered for SHOAL_PEER_TIMEOUT: fatal, naming it and
 * its host, unless `ready` says that what was awaited came after all. */
void shoal_peer_check(struct shoal_waiter *w, uint64_t now, int (*ready)(void *), void *arg);
/* While a bootstrap call waits for every PE (since `since_ns`): after a
 * second, looks at the PEs reached through the network, a few at a time,
 * and ends the job on one that has not answered for SHOAL_PEER_TIMEOUT. */
void shoal_peer_check_all(uint64_t since_ns);
#endif
