/* Groups, their signals, and the dissemination barrier every collective
 * is built on (protocol: group.h).  Round k of member i signals member
 * (i + 2^k) mod n and waits for the signal of member (i - 2^k) mod n:
 * ceil(log2 n) rounds for any n, and a signal per round per member. */
#include "coll/group.h"

#include <stdio.h>
#include <string.h>

#include "coll/coll.h"
#include "core/team.h"
#include "core/wait_record.h"

void shoal_group_of_team(struct shoal_group *g, struct shoal_team *t)
{
    struct shoal_team_block *b = &shoal_my_ctl()->teams[t->slot];
    g->start = t->start;
    g->stride = t->stride;
    g->size = t->size;
    g->me = t->my_pe;
    g->sync = b->sync;
    g->scratch = b->scratch;
    g->team_slot = t->slot;
    g->seq = ++t->coll_seq;
}

/* SHMEM_DEBUG: an outsider's call is legal but usually a mistake in newer
 * code, so say so, once per routine (routine names are string literals of
 * the wrappers: a small table of the ones already reported). */
static void warn_outsider_once(int start, int log_stride, int size, const char *fn)
{
    static const char *warned[256];
    for (size_t i = 0; i < sizeof warned / sizeof warned[0]; i++) {
        const char *seen = __atomic_load_n(&warned[i], __ATOMIC_ACQUIRE);
        if (seen && strcmp(seen, fn) == 0)
            return;
        if (!seen && __atomic_compare_exchange_n(&warned[i], &seen, fn, 0, __ATOMIC_ACQ_REL,
                                                 __ATOMIC_ACQUIRE))
            break;
        if (seen && strcmp(seen, fn) == 0) /* another thread took slot i for fn */
            return;
    }
    shoal_warn(fn,
               "this PE is not in the active set (PE_start %d, logPE_stride %d, PE_size %d); "
               "the call returns without doing anything",
               start, log_stride, size);
}

int shoal_group_of_aset(struct shoal_group *g, int start, int log_stride, int size, long *pSync,
                        const char *fn)
{
    if (SHOAL_UNLIKELY(shoal_g.init_count == 0 || shoal_g.finalized))
        shoal_err_not_init(fn);
    if (start < 0 || start >= shoal_g.n_pes)
        shoal_fatal(fn, "argument 'PE_start' = %d is not a PE (the job has PEs 0..%d)", start,
                    shoal_g.n_pes - 1);
    if (log_stride < 0 || log_stride > 30)
        shoal_fatal(fn, "argument 'logPE_stride' = %d is out of range", log_stride);
    long stride = 1L << log_stride;
    if (size < 1 || start + (long)(size - 1) * stride >= shoal_g.n_pes)
        shoal_fatal(fn,
                    "argument 'PE_size' = %d: the active set (PE_start %d, stride %ld) runs past "
                    "the last PE %d",
                    size, start, stride, shoal_g.n_pes - 1);
    if (!pSync)
        shoal_fatal(fn, "argument 'pSync' is a null pointer");
    /* Older programs call these from every PE with a smaller active set;
     * the others ignore such a call (as other implementations do). */
    long rel = shoal_g.my_pe - start;
    if (rel < 0 || rel % stride || rel / stride >= size) {
        if (shoal_g.debug)
            warn_outsider_once(start, log_stride, size, fn);
        return -1;
    }
    /* pSync must be symmetric: checked where a peer first signals it. */
    g->start = start;
    g->stride = (int)stride;
    g->size = size;
    g->me = (int)(rel / stride);
    g->sync = (uint64_t *)pSync;
    g->scratch = (uint64_t *)pSync + SHOAL_GROUP_SYNC_WORDS;
    g->team_slot = -2;
    g->seq = 0;
    return 0;
}

void shoal_group_signal(const struct shoal_group *g, int i, int w, const char *fn)
{
    shoal_amo(SHMEM_CTX_DEFAULT, SHOAL_AMO_ADD, &g->sync[w], 8, 1, 0, shoal_group_pe(g, i), fn);
}

void shoal_group_wait(const struct shoal_group *g, int w, const char *fn)
{
    static const uint64_t one = 1;
    shoal_wait_until(SHOAL_W_U64, &g->sync[w], SHMEM_CMP_GE, &one, fn);
    /* Consume with an AMO on this PE, not a CPU atomic: peers' signals may
     * be network atomics (shoal_g.amo_via_net). */
    shoal_amo(SHMEM_CTX_DEFAULT, SHOAL_AMO_ADD, &g->sync[w], 8, (uint64_t)-1, 0,
              shoal_g.my_pe, fn);
}

void shoal_group_wait_from(const struct shoal_group *g, int w, int from, const char *what,
                           const char *fn)
{
    shoal_wait_note_peer(g->team_slot, g->seq, shoal_group_pe(g, from), what);
    shoal_group_wait(g, w, fn);
    shoal_wait_note_clear();
}

void shoal_group_sync(const struct shoal_group *g, const char *fn)
{
    static const char *const round_what[] = {
        "its barrier signal (round 0)", "its barrier signal (round 1)",
        "its barrier signal (round 2)", "its barrier signal (round 3)",
        "its barrier signal (round 4)", "its barrier signal (round 5+)"};
    const int n = g->size;
    for (int k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        shoal_group_signal(g, (g->me + dist) % n, SHOAL_GROUP_BARRIER_WORD + k, fn);
        shoal_group_wait_from(g, SHOAL_GROUP_BARRIER_WORD + k, (g->me - dist + n) % n,
                              round_what[k < 5 ? k : 5], fn);
    }
}

/* ------------------------------------------- SHMEM_DEBUG signature check */

static void signal_word(uint64_t *word, int wpe, const char *fn)
{
    shoal_amo(SHMEM_CTX_DEFAULT, SHOAL_AMO_ADD, word, 8, 1, 0, wpe, fn);
}

static void wait_word(uint64_t *word, const struct shoal_group *g, int from, const char *what,
                      const char *fn)
{
    static const uint64_t one = 1;
    shoal_wait_note_peer(g->team_slot, g->seq, shoal_group_pe(g, from), what);
    shoal_wait_until(SHOAL_W_U64, word, SHMEM_CMP_GE, &one, fn);
    shoal_amo(SHMEM_CTX_DEFAULT, SHOAL_AMO_ADD, word, 8, (uint64_t)-1, 0, shoal_g.my_pe, fn);
    shoal_wait_note_clear();
}

static const char *team_label(int slot, char *buf, size_t len)
{
    if (slot == SHOAL_TEAM_SLOT_WORLD)
        return "SHMEM_TEAM_WORLD";
    if (slot == SHOAL_TEAM_SLOT_SHARED)
        return "SHMEM_TEAM_SHARED";
    snprintf(buf, len, "the team in slot %d", slot);
    return buf;
}

/* Each member writes its signature, signals its successor, reads its
 * predecessor's (a ring of pairwise comparisons covers every member), and
 * acknowledges it; nobody starts the collective, or writes its next
 * signature, before its successor has read this one. */
void shoal_group_debug_check_slow(const struct shoal_group *g, const char *fn, uint64_t a,
                                  uint64_t b)
{
    if (g->team_slot < 0 || g->size < 2)
        return;
    struct shoal_team_block *blk = &shoal_my_ctl()->teams[g->team_slot];
    struct shoal_coll_sig mine;
    memset(&mine, 0, sizeof mine);
    snprintf(mine.fn, sizeof mine.fn, "%s", fn);
    mine.seq = g->seq;
    mine.a = a;
    mine.b = b;
    blk->dbg_sig = mine;
    const int n = g->size, next = (g->me + 1) % n, prev = (g->me - 1 + n) % n;
    signal_word(&blk->dbg_sync[0], shoal_group_pe(g, next), fn);
    wait_word(&blk->dbg_sync[0], g, prev, "its collective signature (SHMEM_DEBUG)", fn);
    struct shoal_coll_sig theirs;
    const struct shoal_coll_sig *p =
        shoal_group_read(g, prev, &blk->dbg_sig, sizeof theirs, &theirs, fn);
    if (p != &theirs)
        memcpy(&theirs, p, sizeof theirs);
    theirs.fn[sizeof theirs.fn - 1] = 0;
    if (strcmp(theirs.fn, mine.fn) || theirs.seq != mine.seq || theirs.a != mine.a ||
        theirs.b != mine.b) {
        char t[48];
        shoal_fatal(fn,
                    "SHMEM_DEBUG: collectives do not match on %s: this PE (PE %d) is in %s "
                    "(collective #%llu, sizes %llu, %llu), PE %d is in %s (collective #%llu, "
                    "sizes %llu, %llu)",
                    team_label(g->team_slot, t, sizeof t), shoal_g.my_pe, mine.fn,
                    (unsigned long long)mine.seq, (unsigned long long)mine.a,
                    (unsigned long long)mine.b, shoal_group_pe(g, prev), theirs.fn,
                    (unsigned long long)theirs.seq, (unsigned long long)theirs.a,
                    (unsigned long long)theirs.b);
    }
    signal_word(&blk->dbg_sync[1], shoal_group_pe(g, prev), fn);
    wait_word(&blk->dbg_sync[1], g, next, "its acknowledgement of this PE's collective "
                                          "signature (SHMEM_DEBUG)", fn);
}

int shoal_team_usable(shmem_team_t team, const char *fn)
{
    if (SHOAL_UNLIKELY(shoal_g.init_count == 0 || shoal_g.finalized))
        shoal_err_not_init(fn);
    if (team == SHMEM_TEAM_INVALID)
        return -1;
    if (team->magic != SHOAL_TEAM_LIVE)
        shoal_fatal(fn, "argument 'team' (%p) is not a live team (destroyed or never created)",
                    (void *)team);
    return team->my_pe < 0 ? -1 : 0;
}

/* ------------------------------------------------- world synchronization */

void shoal_sync_all_internal(const char *fn)
{
    struct shoal_group g;
    shoal_group_of_team(&g, &shoal_team_world);
    shoal_group_debug_check(&g, fn, 0, 0);
    shoal_group_sync(&g, fn);
}

void shoal_barrier_all_internal(const char *fn)
{
    shoal_quiet(SHMEM_CTX_DEFAULT, fn);
    shoal_sync_all_internal(fn);
}

int shoal_coll_team_sync(shmem_team_t team, const char *fn)
{
    if (shoal_team_usable(team, fn))
        return -1;
    struct shoal_group g;
    shoal_group_of_team(&g, team);
    shoal_group_debug_check(&g, fn, 0, 0);
    shoal_group_sync(&g, fn);
    return 0;
}

void shoal_coll_aset_barrier(int start, int log_stride, int size, long *pSync, int quiet,
                             const char *fn)
{
    struct shoal_group g;
    if (shoal_group_of_aset(&g, start, log_stride, size, pSync, fn))
        return;
    if (quiet)
        shoal_quiet(SHMEM_CTX_DEFAULT, fn);
    shoal_group_sync(&g, fn);
}
