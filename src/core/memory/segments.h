/* core/memory — the symmetric memory of this PE and of its node's peers.
 *
 * Owns: the segments (segments.c: this PE's memfd heap, whose first
 * 256 KiB are the control block of core/state.h, the exchange of segment
 * descriptors with the PEs of this node and the mapping of theirs), the
 * program's static data moved to shared memory before main
 * (data_segment.c), the user heap and its collective allocation (heap.c)
 * over the deterministic allocator (heap_alloc.c: offsets only, libc only).
 * May call: core's ground floor (state.h; config/: error.h, log.h),
 * teams/sync.h for the allocation's barriers, boot/ for the descriptor
 * exchange, libc.  Called by runtime.c (setup, teardown) and
 * api/memory.c; nothing in this room calls back into the rest of core.
 *
 * This header: the symmetric segments of the PEs of this node (segments.c). */
#ifndef SHOAL_CORE_SEGMENTS_H
#define SHOAL_CORE_SEGMENTS_H
#include <stddef.h>
struct shoal_boot;
struct pe_reach;
/* Collective: creates this PE's heap (user_heap bytes after the control
 * block), exchanges descriptors with the PEs of this node and maps theirs.
 * Fills the segment fields of shoal_g.  Returns 0 or -1 with a message. */
/* all_remote: map no peer, not even one on this node (SHOAL_TRANSPORTS=ucx).
 * split (SHOAL_SPLIT_NODES, >= 1): ranks in different of `split` contiguous
 * blocks count as on different nodes.  reach: where this PE's host answers
 * for it (core/waiting/peer_reach.h; NULL: nowhere), told to every PE. */
int shoal_segments_setup(struct shoal_boot *b, size_t user_heap, int all_remote, long split,
                         const struct pe_reach *reach, char *err, size_t errlen);
void shoal_segments_teardown(void);
/* 1 if world PE `pe` shares this PE's node (kernel, network and IPC
 * namespaces: pe_card.h), whether or not it is mapped here (pretend
 * nodes, SHOAL_TRANSPORTS=ucx). */
int shoal_segments_same_node(int pe);
/* 1 if world PE `pe` is on this node. */
int shoal_segments_pe_local(int pe);
/* Where world PE `pe`'s segments are mapped here (slot), or -1.  Unlike
 * shoal_slot() (the route of operations), this PE's own slot even under
 * SHOAL_TRANSPORTS=ucx. */
int shoal_segments_slot(int pe);
/* Where world PE `pe`'s host answers for it (its card's pe_reach), and
 * whether this PE's loopback reaches it (same kernel and network
 * namespace); NULL before the cards are in. */
const struct pe_reach *shoal_segments_reach(int pe, int *same_net);
#endif
