/* The directory where UCX's posix shared-memory transport maps its memory
 * (UCX_POSIX_DIR, /dev/shm by default; Shoal's own heaps are memfds, which
 * take no room there).  A UCX worker maps a few MiB there as it is made
 * (UCX 1.13.1's defaults: 4292720 bytes of receive descriptors and a FIFO
 * per worker), and when the directory is full UCX fails with no word of it
 * ("Out of memory", "No resources"): after a failed worker, this says so. */
#ifndef SHOAL_UCX_POSIX_DIR_H
#define SHOAL_UCX_POSIX_DIR_H

#include <stddef.h>

/* A failed ucp_worker_create: 1 with the message in msg when UCX may use
 * its posix transport (UCX_TLS) and its directory has less room than a
 * worker maps there; else 0. */
int ucx_posix_dir_short(char *msg, size_t len);

#endif
