/* World barrier: dissemination over counters in every PE's control block.
 * Round k of PE i adds 1 to the round-k counter of PE (i + 2^k) mod n and
 * waits for its own round-k counter to reach the barrier's epoch.  Counters
 * only grow (a counter equals the number of barriers that passed through
 * its round), so nothing is ever reset and back-to-back barriers cannot
 * mix up their signals.  ceil(log2 n) rounds, any n. */
#include "coll/coll.h"

#include "core/ops.h"

static uint64_t epoch;

void shoal_coll_init(void) { epoch = 0; }

void shoal_sync_all_internal(void)
{
    const int n = shoal_g.n_pes, me = shoal_g.my_pe;
    uint64_t *words = shoal_my_ctl()->coll_words;
    epoch++;
    for (int k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        int peer = (me + dist) % n;
        shoal_amo(SHMEM_CTX_DEFAULT, SHOAL_AMO_ADD, &words[k], 8, 1, 0, peer, "shmem_sync_all");
        shoal_wait_until(SHOAL_W_U64, &words[k], SHMEM_CMP_GE, &epoch, "shmem_sync_all");
    }
}

void shoal_barrier_all_internal(void)
{
    shoal_quiet(SHMEM_CTX_DEFAULT, "shmem_barrier_all");
    shoal_sync_all_internal();
}
