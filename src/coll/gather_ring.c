/* Gather lines: the exchange under the small reductions and collects of a
 * team whose members share this node (struct shoal_gather_line in
 * core/state.h).  Each member copies its block into a line of its own
 * ring, tagged with the round number, and reads every member's line from
 * the mapped ring; nothing is written into a peer, and nothing is
 * acknowledged, so a round costs each member one line out and one line in
 * per peer and the callers need neither an entry nor an exit sync: the
 * block is copied before anyone reads it, and dest is written only by its
 * owner.
 *
 * Reuse without acknowledgements: a member posts round R + 1 only after it
 * has read round R from every member, and each of those posted R only
 * after reading R - 1 from everyone (this member included).  So when a
 * member overwrites its line of round R - 1 with round R + 1, every reader
 * is done with R - 1: two lines per member are enough, and a fast member
 * waits for a slow one only where it needs that member's block anyway. */
#include <string.h>

#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "core/wait.h"
#include "core/wait_record.h"

#define BIG 255u /* length field of a block that does not fit the line */

static struct shoal_gather_line *line_of(const struct shoal_group *g, int i, uint64_t round)
{
    int slot = shoal_slot(shoal_group_pe(g, i));
    return &shoal_ctl_of_slot(slot)
                ->teams[g->team_slot]
                .bcast.gather[(round - 1) % SHOAL_GATHER_SLOTS];
}

uint64_t shoal_gather_post(const struct shoal_group *g, const void *block, size_t nbytes)
{
    const uint64_t round = ++g->ring->gather_rounds;
    struct shoal_gather_line *mine = &g->ring->gather[(round - 1) % SHOAL_GATHER_SLOTS];
    uint64_t len = nbytes;
    if (nbytes <= SHOAL_GATHER_INLINE) {
        if (nbytes)
            memcpy(mine->data, block, nbytes);
    } else {
        len = BIG;
        memcpy(mine->data, &(uint64_t){nbytes}, sizeof(uint64_t));
    }
    __atomic_store_n(&mine->word, round << 8 | len, __ATOMIC_RELEASE);
    /* Peers may sleep on this PE's bell waiting for the line. */
    shoal_bell_ring_if_armed(shoal_bell_of(shoal_g.my_pe));
    return round;
}

const void *shoal_gather_line(const struct shoal_group *g, int i, uint64_t round, size_t *nbytes,
                              const char *fn)
{
    const struct shoal_gather_line *in =
        i == g->me ? &g->ring->gather[(round - 1) % SHOAL_GATHER_SLOTS] : line_of(g, i, round);
    const uint64_t need = round << 8;
    uint64_t word = __atomic_load_n(&in->word, __ATOMIC_ACQUIRE);
    if (word < need) {
        const int wpe = shoal_group_pe(g, i);
        shoal_wait_note_peer(g->team_slot, g->seq, wpe, "its block of a small collective");
        shoal_wait_mapped(SHOAL_W_U64, &in->word, shoal_slot(wpe), SHMEM_CMP_GE, &need, fn);
        shoal_wait_note_clear();
        word = __atomic_load_n(&in->word, __ATOMIC_ACQUIRE);
    }
    uint64_t len = word & 0xff;
    if (len == BIG)
        memcpy(&len, in->data, sizeof len);
    *nbytes = (size_t)len;
    return in->data;
}
