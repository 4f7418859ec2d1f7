/* Broadcast, three algorithms:
 *  - ring (teams on one node, up to SHOAL_BCAST_INLINE bytes,
 *    bcast_ring.c): the tree below, but the data and its round number
 *    travel in one cache line of the child's ring, and nobody waits for
 *    acknowledgements: the root returns once its children have their lines.
 *  - tree: binomial tree rooted at the root; a parent puts the data into
 *    its child's dest and then signals it; the child forwards to its own
 *    subtree.  ceil(log2 N) hops, no entry sync: best for small data (on
 *    a team of up to four members across nodes small data takes one hop,
 *    from the root to everyone).  A
 *    back-to-back broadcast into the same dest must not overwrite data a
 *    member still has to forward: a parent that writes into its child (on
 *    one node) checks that the child has published the end of its
 *    previous round (bcast_ring.c); on a team across nodes, a hop the
 *    network serves carries the data as one tagged message
 *    (shoal_group_send) that the child receives into dest only once it is
 *    in the round, so nobody waits for it (data of any size takes this
 *    tree then).  Where the network carries no messages (SHOAL_UCX_SIGNALS
 *    =amo, UCX before 1.13), each member of a team across nodes
 *    acknowledges to its parent once it no longer reads its dest, and a
 *    parent counts those before its next round's writes, not before it
 *    returns (the root returns once its data is out: a round trip less),
 *    and a change of root, which changes the tree, starts with a sync; on
 *    an active set, which keeps nothing between calls, each member waits
 *    for its children's acknowledgements before acknowledging to its
 *    parent.
 *  - get: sync; every member pulls the root's source; on one node these
 *    are concurrent loads from the root's mapped memory, best for large
 *    data (the tree would copy it log2 N times in sequence); then a sync,
 *    so that no member's pull of this broadcast meets the next one. */
#include <stdio.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "core/config/log.h"
#include "core/waiting/wait_record.h"

enum { BCAST_AUTO, BCAST_GET, BCAST_TREE };
static int algo = BCAST_AUTO;
static size_t tree_max = 16384;

void shoal_coll_bcast_config(int which, size_t crossover)
{
    algo = which;
    tree_max = crossover;
}

/* Before a tree broadcast that counts acknowledgements (a team across
 * nodes without messages): a new root makes a new tree, whose parents may
 * write into members still forwarding the previous broadcast, so everyone
 * must be done. */
static void sync_on_new_root(const struct shoal_group *g, int root, const char *fn)
{
    if (g->ring->last_root && g->ring->last_root != root + 1)
        shoal_group_sync(g, fn);
    g->ring->last_root = root + 1;
}

/* A team of a few members across nodes sends small data from the root to
 * every member at once: one hop, where the binomial tree's second costs a
 * network latency, and on a node whose PEs outnumber its CPUs the wait for
 * a forwarding parent to run (OSU's broadcast of 8 B over tcp at 3 and 4
 * PEs on 2 cores, 6 rounds: medians 13.8 -> 11.7 and 31.9 -> 23.8 us). */
#define FLAT_MAX_PES 4
#define FLAT_MAX_BYTES 4096
static int flat_tree(const struct shoal_group *g, size_t nbytes)
{
    return shoal_group_msgs(g) && g->size <= FLAT_MAX_PES && nbytes <= FLAT_MAX_BYTES;
}

/* A parent on this node writes member child's dest for `round`, its call
 * signature beside the child's words, and the round, by an exchange (a
 * locked operation, as the counter's add it replaces): an old value of
 * this round or later means that another parent wrote the child's dest
 * first, for members that name different roots, which is reported.  The
 * child compares the signature. */
static void tree_write(const struct shoal_group *g, int child, uint64_t round, void *dest,
                       const void *from, size_t nbytes, const char *fn)
{
    const int wpe = shoal_group_pe(g, child);
    uint64_t *sync = shoal_ctl_of_slot(shoal_slot(wpe))->teams[g->team_slot].sync;
    shoal_put(SHMEM_CTX_DEFAULT, dest, from, nbytes, wpe, fn);
    __atomic_store_n(&sync[SHOAL_GROUP_TREE_SIG_WORD], g->sig, __ATOMIC_RELAXED);
    const uint64_t old =
        __atomic_exchange_n(&sync[SHOAL_GROUP_TREE_ROUND_WORD], round, __ATOMIC_RELEASE);
    shoal_bell_ring_if_armed(shoal_bell_of(wpe));
    if (SHOAL_UNLIKELY(old >= round)) {
        char why[160];
        snprintf(why, sizeof why,
                 "another member wrote PE %d's data of this broadcast too: the members name "
                 "different roots",
                 wpe);
        shoal_call_mismatch_unknown(g, why, fn);
    }
}

/* The child's side: until its parent wrote round `round`, which must come
 * from a member in the same call. */
static void tree_wait(const struct shoal_group *g, int parent, uint64_t round, const char *fn)
{
    shoal_wait_note_peer(g->team_slot, g->seq, shoal_group_pe(g, parent), "its broadcast data");
    shoal_wait_until(SHOAL_W_U64, &g->sync[SHOAL_GROUP_TREE_ROUND_WORD], SHMEM_CMP_GE, &round, fn);
    shoal_wait_note_clear();
    const uint64_t theirs = __atomic_load_n(&g->sync[SHOAL_GROUP_TREE_SIG_WORD], __ATOMIC_ACQUIRE);
    if (SHOAL_UNLIKELY(theirs != g->sig))
        shoal_call_mismatch(g, -1, theirs, fn);
}

static void bcast_tree(const struct shoal_group *g, void *dest, const void *source, size_t nbytes,
                       int root, int update_root, const char *fn)
{
    const int n = g->size, r = (g->me - root + n) % n; /* rank relative to the root */
    /* Who may write a member's dest again, and when: a parent reads its
     * child's published round (bcast_ring.c) on one node, and across nodes
     * where the network carries messages (rounded: a child it writes into
     * is on its node; one it sends messages to takes them into dest only
     * once it is in the round, so nothing waits for it, and a new root
     * needs no sync); across nodes without messages a parent counts the
     * acknowledgements that earlier rounds left behind (lazy); an active
     * set keeps no state between calls, so its root waits for every
     * member's acknowledgement (acks). */
    const int on_node = g->ring && g->on_node;
    const int rounded = g->ring && (g->on_node || shoal_group_msgs(g));
    const int lazy = g->ring && !rounded, acks = !g->ring;
    const uint64_t round = rounded ? shoal_bcast_round_begin(g) : 0;
    if (lazy) {
        sync_on_new_root(g, root, fn);
        shoal_group_wait_acks_owed(g, fn);
    }
    const void *from = source;
    int mask = 1;
    if (r == 0) {
        if (update_root && dest != source) {
            memmove(dest, source, nbytes);
            from = dest;
        }
        while (mask < n)
            mask <<= 1;
    } else {
        while (!(r & mask))
            mask <<= 1;
    }
    const int flat = flat_tree(g, nbytes);
    const int parent = r == 0 ? -1 : flat ? root : (r - mask + root) % n;
    const int parent_msgs = parent >= 0 && shoal_group_msg_edge(g, parent);
    /* The root's next bits beside the tag's (core/teams/sync.h), so that
     * members that name different roots take none of each other's data. */
    const unsigned msg_k = SHOAL_MSG_BCAST + ((unsigned)root >> 8 & 63);
    if (parent_msgs) {
        shoal_group_recv(g, parent, msg_k, dest, nbytes, "its broadcast data", fn);
        from = dest;
    } else if (parent >= 0 && rounded) {
        tree_wait(g, parent, round, fn);
        from = dest;
    } else if (parent >= 0) {
        shoal_group_wait_from(g, SHOAL_GROUP_TREE_WORD, parent, "its broadcast data", fn);
        from = dest;
    }
    /* Children r + m for m = mask/2, mask/4, ..., 1 (the root: every
     * power of two below n, largest first so big subtrees start early);
     * flat: the root's are everyone. */
    int kids[32], nk = 0;
    if (flat && r == 0)
        for (int c = 1; c < n; c++)
            kids[nk++] = c;
    else if (!flat)
        for (int m = mask >> 1; m >= 1; m >>= 1)
            if (r + m < n)
                kids[nk++] = r + m;
    int signalled = 0;
    for (int k = 0; k < nk; k++) {
        int child = (kids[k] + root) % n;
        if (shoal_group_msg_edge(g, child)) {
            shoal_group_send(g, child, msg_k, from, nbytes, 0, fn);
            continue;
        }
        if (rounded) {
            shoal_bcast_wait_child(g, child, round - 1, fn);
            tree_write(g, child, round, dest, from, nbytes, fn);
            continue;
        }
        shoal_group_signal_data(g, child, SHOAL_GROUP_TREE_WORD, dest, from, nbytes, fn);
        signalled++;
    }
    if (rounded) {
        if (on_node)
            shoal_quiet(SHMEM_CTX_DEFAULT, fn);
        shoal_bcast_round_end(g, round);
        return;
    }
    /* No quiet: a child acknowledges once it saw its signal, which comes
     * after its data (fenced, or in the same message; a quiet here was a
     * round trip more), and once it no longer reads its dest (its puts are
     * complete locally). */
    if (acks)
        for (int k = 0; k < signalled; k++)
            shoal_group_wait(g, SHOAL_GROUP_TREE_ACK_WORD, fn); /* that subtree has its data */
    else
        g->ring->tree_acks_owed += (uint64_t)signalled;
    if (parent >= 0 && !parent_msgs)
        shoal_group_signal(g, parent, SHOAL_GROUP_TREE_ACK_WORD, fn);
}

static void broadcast_group(const struct shoal_group *g, void *dest, const void *source,
                            size_t nbytes, int root, int update_root, const char *fn)
{
    if (root < 0 || root >= g->size)
        shoal_fatal(fn, "argument 'PE_root' = %d is not a member (0..%d)", root, g->size - 1);
    shoal_coll_check_buf(source, 1, nbytes, "source", "nelems", fn);
    shoal_coll_check_buf(dest, 1, nbytes, "dest", "nelems", fn);
    if (g->size == 1 || nbytes == 0) {
        if (update_root && nbytes && dest != source)
            memmove(dest, source, nbytes);
        return;
    }
    /* Across nodes where the network carries collectives' messages, the
     * tree takes data of any size (one message per hop, received into
     * dest); the get path's two syncs and the network's RMA (over tcp
     * several times slower than its messages) cost more. */
    int use = algo;
    if (use == BCAST_AUTO)
        use = nbytes <= tree_max || shoal_group_msgs(g) ? BCAST_TREE : BCAST_GET;
    if (use == BCAST_TREE && g->ring && g->on_node && nbytes <= SHOAL_BCAST_INLINE &&
        algo == BCAST_AUTO) {
        SHOAL_LOG(SHOAL_LOG_COLL, SHOAL_LOG_DEBUG, "%s: %zu bytes from root %d: ring", fn, nbytes,
                  root);
        shoal_bcast_ring(g, dest, source, nbytes, root, update_root, fn);
        return;
    }
    SHOAL_LOG(SHOAL_LOG_COLL, SHOAL_LOG_DEBUG, "%s: %zu bytes from root %d: %s", fn, nbytes, root,
              use == BCAST_TREE ? "tree" : "get");
    if (use == BCAST_TREE) {
        bcast_tree(g, dest, source, nbytes, root, update_root, fn);
        return;
    }
    shoal_group_sync(g, fn);
    if (g->me != root)
        shoal_get(SHMEM_CTX_DEFAULT, dest, source, nbytes, shoal_group_pe(g, root), fn);
    else if (update_root && dest != source)
        memmove(dest, source, nbytes);
    shoal_group_sync(g, fn);
}

int shoal_coll_broadcast(shmem_team_t team, void *dest, const void *source, size_t nbytes, int root,
                         const char *fn)
{
    if (shoal_team_usable(team, fn))
        return -1;
    struct shoal_group g;
    shoal_group_of_team(&g, team, shoal_call_sig(SHOAL_CALL_BCAST, 0, 0, (uint64_t)root, nbytes),
                        nbytes, fn);
    shoal_group_debug_check(&g, fn, nbytes, (uint64_t)root);
    broadcast_group(&g, dest, source, nbytes, root, 1, fn);
    return 0;
}

void shoal_coll_aset_broadcast(void *dest, const void *source, size_t nbytes, int root, int start,
                               int log_stride, int size, long *pSync, const char *fn)
{
    struct shoal_group g;
    if (shoal_group_of_aset(&g, start, log_stride, size, pSync,
                            shoal_call_sig(SHOAL_CALL_BCAST, 0, 0, (uint64_t)root, nbytes), nbytes,
                            fn))
        return;
    /* The active-set form leaves the root's dest alone (spec). */
    broadcast_group(&g, dest, source, nbytes, root, 0, fn);
}
