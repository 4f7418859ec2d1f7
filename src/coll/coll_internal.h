/* Declarations shared by the files of coll/ (not used outside it). */
#ifndef SHOAL_COLL_INTERNAL_H
#define SHOAL_COLL_INTERNAL_H
#include "core/teams/calls.h"
#include "core/teams/sync.h"

/* The group of an active set, checked (fatal on bad arguments), for a
 * call of signature `sig` and size `size` (calls.h: compared where the set
 * is every PE's, which runs on the world team).  Returns 0 for a member;
 * -1 when this PE is not in the set, which then returns from the
 * collective without touching anything (g is not filled in). */
int shoal_group_of_aset(struct shoal_group *g, int start, int log_stride, int size, long *pSync,
                        uint64_t sig, uint64_t nsize, const char *fn)
    __attribute__((warn_unused_result));

/* Fatal unless `nblocks` blocks of `block` bytes from `p` lie in one
 * symmetric segment of this PE (coll_buffers.c); the message names the
 * argument `arg` and the count `count` it comes from.  The strided form:
 * nblocks * nelems elements of esize bytes, `stride` elements apart. */
void shoal_coll_check_buf(const void *p, size_t nblocks, size_t block, const char *arg,
                          const char *count, const char *fn);
void shoal_coll_check_strided(const void *p, size_t nblocks, size_t nelems, ptrdiff_t stride,
                              size_t esize, const char *arg, const char *count, const char *fn);

/* A private buffer of n bytes (malloc; free it), fatal when there is no
 * memory: "out of private memory for a <n>-byte <what> buffer". */
void *shoal_coll_alloc(size_t n, const char *what, const char *fn);

/* Checks a team handle for a team collective: 0 when usable; nonzero for
 * SHMEM_TEAM_INVALID or a team this PE is not in; fatal for a handle
 * that is not a team (destroyed or garbage). */
int shoal_team_usable(shmem_team_t team, const char *fn);

/* Broadcast rounds of a team on one node, or across nodes where the
 * network carries messages (bcast_ring.c): count this round (returns its
 * number), wait until member `child`, on this node, has finished round
 * `need` (0: nothing to wait for), publish that this PE has finished. */
uint64_t shoal_bcast_round_begin(const struct shoal_group *g);
void shoal_bcast_wait_child(const struct shoal_group *g, int child, uint64_t need, const char *fn);
void shoal_bcast_round_end(const struct shoal_group *g, uint64_t round);
/* The small-data broadcast of such a team (nbytes <= SHOAL_BCAST_INLINE). */
void shoal_bcast_ring(const struct shoal_group *g, void *dest, const void *source, size_t nbytes,
                      int root, int update_root, const char *fn);

/* Gather lines of a team on one node (gather_ring.c), under the small
 * reductions (reduce.c) and collects (collect.c).  Every member takes the
 * path for the same calls, or the rounds would not match. */
#define SHOAL_GATHER_INLINE SHOAL_BCAST_INLINE /* block bytes a line holds */
/* Member i's broadcast ring and gather lines (a team on this node: mapped). */
static inline struct shoal_bcast_ring *shoal_ring_of(const struct shoal_group *g, int i)
{
    return &shoal_ctl_of_slot(shoal_slot(shoal_group_pe(g, i)))->teams[g->team_slot].bcast;
}
static inline int shoal_gather_usable(const struct shoal_group *g)
{
    return g->ring && g->on_node && g->size > 1;
}
/* The same lines for SHMEM_TEAM_WORLD across nodes (struct
 * shoal_net_gather in core/state.h), for blocks of at most
 * SHOAL_GATHER_INLINE bytes (fcollect and reductions; not collect). */
static inline int shoal_gather_net_usable(const struct shoal_group *g)
{
    return g->ring && !g->on_node && g->team_slot == SHOAL_TEAM_SLOT_WORLD && g->size > 1 &&
           g->size <= SHOAL_NET_GATHER_PES;
}
/* Starts this member's round: its block (only its size when bigger than
 * SHOAL_GATHER_INLINE) into its line; returns the round. */
uint64_t shoal_gather_post(const struct shoal_group *g, const void *block, size_t nbytes,
                           const char *fn);
/* Member i's line of `round`, once posted: its block, readable until this
 * member posts its next round, and the block's size in *nbytes (when that
 * is more than SHOAL_GATHER_INLINE, the block is not in the line). */
const void *shoal_gather_line(const struct shoal_group *g, int i, uint64_t round, size_t *nbytes,
                              const char *fn);
/* On this node, where members read blocks bigger than a line in place from
 * each other's sources: says this member has read them for `round`, and
 * returns once every member has said so (its own source may change then). */
void shoal_gather_done(const struct shoal_group *g, uint64_t round, const char *fn);

/* The message numbers of the collectives across nodes (SHOAL_MSG_*) are
 * in core/teams/sync.h, whose reports read them. */

/* Collectives of a team across nodes as messages (coll_msgs.c): usable
 * (the same answer on every member), fcollect, and a reduction (scatter:
 * reduce-scatter + allgather, for large arrays; else every source to
 * every member). */
int shoal_coll_msgs_usable(const struct shoal_group *g);
void shoal_fcollect_msgs(const struct shoal_group *g, void *dest, const void *source, size_t nbytes,
                         const char *fn);
void shoal_reduce_msgs(const struct shoal_group *g, void *dest, const void *source, size_t n,
                       int op, int type, int scatter, const char *fn);

/* Reductions (reduce.c), shared with the multi-threaded form (mt/mt_reduce.c).
 * The bytes of n elements of `type` in dest and source, checked: a count
 * that overflows or runs past the symmetric objects is fatal, naming
 * argument `count`. */
size_t shoal_red_checked_bytes(void *dest, const void *source, size_t n, int type,
                               const char *count, const char *fn);
/* acc = OP over members [first, last] of elements [lo, lo+n) of source, in
 * member order; `bounce` (n elements) receives what cannot be read in
 * place. */
void shoal_red_range(const struct shoal_group *g, int first, int last, void *acc,
                     const void *source, size_t lo, size_t n, int op, int type, void *bounce,
                     const char *fn);

#endif
