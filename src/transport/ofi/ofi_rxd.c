/* What Shoal does around ofi_rxd (udp;ofi_rxd) of libfabric 1.17: its
 * fetching atomics (fetch-and-op, compare-and-swap, atomic read).
 *
 * rxd starts an operation either at once, from the post (the peer's
 * handshake done and its window of unacknowledged packets open), or later
 * from its list of waiting operations (rxd_progress_tx_list,
 * prov/rxd/src/rxd_cq.c:270-326 in 1.17.0): the first operations to a
 * peer wait there for the handshake's answer (CTS), later ones for room
 * in the window.  Started from that list, a fetching atomic is completed
 * at once (rxd_cq.c:296-303: its num_segs is 0, so start_seq + num_segs
 * - 1 lies before every acknowledged sequence number) and its entry
 * freed; the answer that carries the fetched value then finds the freed
 * entry (SIGSEGV, or in a debug build ofi_bufpool_get_ibuf's assertion in
 * rxd_get_data_x_entry).  libfabric fixed it in 2.5.0 (commit 1ab44bfad,
 * "prov/rxd: fix atomic fetch/compare path").  A read (RXD_READ_REQ)
 * started from that list is safe (the loop stops at it first).
 *
 * So over rxd a fetching atomic is posted only where rxd starts it at
 * once: after its endpoint's counted operations completed and one
 * blocking read of the peer came back, and it is waited for (a non-blocking one
 * too); quiet's flush reads are reads (ofi_rma.c), and a blocking
 * non-fetching AMO takes its fetching form (ofi_amo.c: rxd completes a
 * non-fetching one once sent, num_segs 0 again).  An endpoint that other
 * threads post on at the same time breaks the guard (their operations
 * fill the window): _nbe requests' fetching atomics go on the calling
 * thread's own endpoint (ofi_request.c). */
#include <string.h>

#include "transport/ofi/ofi_internal.h"

int ofi_rxd_fetch_guard(const struct fi_info *i)
{
    return !strcmp(i->fabric_attr->prov_name, "udp;ofi_rxd");
}

/* Everything e posted and counted complete, then one read of the peer,
 * every time: a read waits behind what e has queued for the peer (its
 * tagged messages too, which no counter counts), and its answer comes
 * after the acknowledgements of what e sent before it (the target
 * answers a peer's packets in sequence, an acknowledgement being
 * cumulative), which covers the non-fetching atomics that rxd completed
 * once sent; it also does the handshake.  A quiet with flush reads only
 * to the peers written since the last one, and a read only at the first
 * fetching atomic to a peer, crashed spec.signal, spec.p2p_sync,
 * spec.ordering and spec.amo over rxd. */
void ofi_rxd_before_fetch(struct ofi_ep *e, int pe, const char *fn)
{
    ofi_wait_quiet(e, fn, pe, "quiet (before a fetching atomic over ofi_rxd)");
    /* The peer's first heap word into e's flush sink (a read waits in
     * rxd's list without harm). */
    ofi_get_blocking(e, &e->flush_words[0], (const void *)ofi_g.seg_base[0],
                     sizeof e->flush_words[0], pe, fn);
}
