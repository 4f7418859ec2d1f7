/* Core's side of the network contract (transport/net.h): the arguments and
 * hooks it hands the transport at init, and the decisions it keeps. */
#ifndef SHOAL_CORE_NET_LINK_H
#define SHOAL_CORE_NET_LINK_H
#include <stddef.h>

struct shoal_boot;
struct shoal_config;

/* shoal_net_init with this PE's segments, thread level and hooks; sets
 * shoal_g.net_active and shoal_g.amo_via_net from the transport's
 * answer.  0, or -1 with a message. */
int shoal_net_link(struct shoal_boot *b, const struct shoal_config *cfg, char *err, size_t errlen);
/* The transport's worker counters (shmemx_net_worker_counts). */
void shoal_net_counts(long *created, long *in_use, long *reused);
#endif
