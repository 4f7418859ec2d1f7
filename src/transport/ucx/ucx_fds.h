/* File descriptors for new workers.  A context over UCX costs descriptors:
 * its worker's (epoll, event fds, a listening socket per tcp interface)
 * and, over tcp, one socket per lane to each peer it reaches plus one per
 * lane that the peer's context opens back.  UCX does not survive running
 * out of them half-way (it aborts the process: a worker half made, a
 * connection refused by accept), so a new worker is made only while the
 * descriptors left under RLIMIT_NOFILE cover one more context and what the
 * contexts made before it may still open; otherwise the context fails and
 * says so (once per PE), or, for the PE's first worker (without which it
 * cannot communicate), the job ends naming the limit to raise. */
#ifndef SHOAL_UCX_FDS_H
#define SHOAL_UCX_FDS_H

#include <ucp/api/ucp.h>

/* ucp_worker_create, or UCS_ERR_EXCEEDS_LIMIT (after the warning) when
 * the descriptors left do not cover another context (fatal for the
 * first).  Called with the
 * worker pool's lock held, or while single-threaded. */
ucs_status_t ucx_fds_worker_create(const ucp_worker_params_t *wp, ucp_worker_h *h, const char *fn);

/* Before the target worker (init): 0, or -1 with the message naming the
 * limit to raise when the descriptors left do not cover one worker. */
int ucx_fds_check_start(char *err, size_t errlen);

#endif
