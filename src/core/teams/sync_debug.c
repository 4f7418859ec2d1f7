/* SHMEM_DEBUG's handshake of collective signatures (sync.h:
 * shoal_group_debug_check): routine, collective number and sizes,
 * compared with the neighbouring member's before the collective runs. */
#include <stdio.h>
#include <string.h>

#include "core/teams/calls_read.h"
#include "core/teams/sync.h"
#include "core/waiting/wait.h"
#include "core/waiting/wait_record.h"

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

/* ---- Signatures: what a collective is, compared between neighbours. */

static void sig_fill(struct shoal_coll_sig *s, const struct shoal_group *g, const char *fn,
                     uint64_t a, uint64_t b)
{
    memset(s, 0, sizeof *s);
    snprintf(s->fn, sizeof s->fn, "%s", fn);
    s->seq = g->seq;
    s->a = a;
    s->b = b;
}

/* Member prev's signature in this PE's team block, into *theirs. */
static void sig_read(const struct shoal_group *g, int prev, struct shoal_coll_sig *theirs,
                     const char *fn)
{
    struct shoal_team_block *blk = &shoal_my_ctl()->teams[g->team_slot];
    const struct shoal_coll_sig *p =
        shoal_group_read(g, prev, &blk->dbg_sig, sizeof *theirs, theirs, fn);
    if (p != theirs)
        memcpy(theirs, p, sizeof *theirs);
    theirs->fn[sizeof theirs->fn - 1] = 0;
}

static int sig_differs(const struct shoal_coll_sig *x, const struct shoal_coll_sig *y)
{
    return strcmp(x->fn, y->fn) || x->seq != y->seq || x->a != y->a || x->b != y->b;
}

static _Noreturn void sig_mismatch(const struct shoal_group *g, int prev,
                                   const struct shoal_coll_sig *mine,
                                   const struct shoal_coll_sig *theirs, const char *fn)
{
    char t[48];
    shoal_fatal(fn,
                "SHMEM_DEBUG: collectives do not match on %s: this PE (PE %d) is in %s "
                "(collective #%llu, sizes %llu, %llu), PE %d is in %s (collective #%llu, sizes "
                "%llu, %llu)",
                shoal_call_team_label(g->team_slot, t, sizeof t), shoal_g.my_pe, mine->fn,
                (unsigned long long)mine->seq, (unsigned long long)mine->a,
                (unsigned long long)mine->b, shoal_group_pe(g, prev), theirs->fn,
                (unsigned long long)theirs->seq, (unsigned long long)theirs->a,
                (unsigned long long)theirs->b);
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
    struct shoal_coll_sig mine, theirs;
    sig_fill(&mine, g, fn, a, b);
    blk->dbg_sig = mine;
    const int n = g->size, next = (g->me + 1) % n, prev = (g->me - 1 + n) % n;
    signal_word(&blk->dbg_sync[0], shoal_group_pe(g, next), fn);
    wait_word(&blk->dbg_sync[0], g, prev, "its collective signature (SHMEM_DEBUG)", fn);
    sig_read(g, prev, &theirs, fn);
    if (sig_differs(&theirs, &mine))
        sig_mismatch(g, prev, &mine, &theirs, fn);
    signal_word(&blk->dbg_sync[1], shoal_group_pe(g, prev), fn);
    wait_word(&blk->dbg_sync[1], g, next,
              "its acknowledgement of this PE's collective "
              "signature (SHMEM_DEBUG)",
              fn);
}
