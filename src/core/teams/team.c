/* Team creation and destruction (design: team.h). */
#include "core/teams/team.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/teams/calls.h"
#include "core/teams/sync.h"
#include "core/waiting/wait.h"
#include "core/config/error.h"
#include "core/config/log.h"

/* Slots in use by teams this PE belongs to.  Only the thread calling a
 * team routine touches it, but two threads may split different teams at
 * once under SHMEM_THREAD_MULTIPLE, hence the lock. */
#define MASK_WORDS (SHOAL_TEAM_SLOTS / 64)
static uint64_t used[MASK_WORDS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Destroyed team objects are kept for reuse, never freed: a stale handle
 * then points at a dead team (magic cleared) and is reported, not read
 * after free. */
static struct shoal_team *graveyard[SHOAL_TEAM_SLOTS * 4];
static int ngraves;
/* This PE's live team in each slot (it is a member), for the checks of
 * mismatched calls, which start from a slot (core/teams/calls.c). */
static struct shoal_team *in_slot[SHOAL_TEAM_SLOTS];

struct shoal_team *shoal_team_at_slot(int slot)
{
    if (slot < 0 || slot >= SHOAL_TEAM_SLOTS)
        return NULL;
    struct shoal_team *t = __atomic_load_n(&in_slot[slot], __ATOMIC_ACQUIRE);
    return t && t->magic == SHOAL_TEAM_LIVE && t->my_pe >= 0 ? t : NULL;
}

static void setup(struct shoal_team *t, int start, int stride, int size, int my_pe, int slot)
{
    t->start = start;
    t->stride = stride;
    t->size = size;
    t->my_pe = my_pe;
    t->num_contexts = 0;
    t->slot = slot;
    t->config_mask = 0;
    t->coll_seq = 0; /* a recycled object starts counting again, like its peers */
    memset(t->sync_seen, 0, sizeof t->sync_seen); /* the slot's counters are 0 (destroy) */
    t->on_node = 1;
    for (int i = 0; i < size && t->on_node; i++)
        t->on_node = shoal_slot(start + i * stride) >= 0;
    t->magic = SHOAL_TEAM_LIVE;
    if (my_pe >= 0)
        __atomic_store_n(&in_slot[slot], t, __ATOMIC_RELEASE);
}

void shoal_teams_init(void)
{
    shoal_wait_calls_check = shoal_call_wait_check;
    shoal_wait_calls_end = shoal_call_wait_end;
    memset(used, 0, sizeof used);
    used[0] = 1u << SHOAL_TEAM_SLOT_WORLD | 1u << SHOAL_TEAM_SLOT_SHARED;
    setup(&shoal_team_world, 0, 1, shoal_g.n_pes, shoal_g.my_pe, SHOAL_TEAM_SLOT_WORLD);
    /* SHMEM_TEAM_SHARED: the PEs whose memory this PE maps (shmem_ptr works
     * for them): this node's, or this PE alone under SHOAL_TRANSPORTS=ucx.
     * Every PE of a node computes the same set.  Teams are strided; a node
     * whose PEs are not (an irregular placement) gets single-PE teams. */
    const int me = shoal_g.my_pe;
    int first = -1, last = -1, count = 0;
    for (int pe = 0; pe < shoal_g.n_pes; pe++)
        if (pe == me || shoal_slot(pe) >= 0) {
            if (first < 0)
                first = pe;
            last = pe;
            count++;
        }
    int stride = count > 1 ? (last - first) / (count - 1) : 1;
    for (int k = 0, pe = first; k < count && stride > 0; k++, pe += stride)
        if (pe != me && shoal_slot(pe) < 0)
            stride = 0;
    if (stride <= 0 || (count > 1 && first + (count - 1) * stride != last)) {
        first = me;
        count = 1;
        stride = 1;
    }
    setup(&shoal_team_shared, first, stride, count, (me - first) / stride, SHOAL_TEAM_SLOT_SHARED);
}

void shoal_teams_fini(void)
{
    shoal_team_world.magic = 0;
    shoal_team_shared.magic = 0;
}

static struct shoal_team *team_new(void)
{
    pthread_mutex_lock(&lock);
    struct shoal_team *t = ngraves ? graveyard[--ngraves] : NULL;
    pthread_mutex_unlock(&lock);
    if (!t)
        t = calloc(1, sizeof *t);
    if (!t)
        shoal_fatal("shmem_team_split", "out of memory for a team object");
    return t;
}

/* The slots free on every member of `parent`, as a mask (collective over
 * parent): each member publishes its used mask in the team's scratch, and
 * every member ORs all of them.  `wanted`: the split's new slots (1, or 2
 * for split_2d: its signature tells the two splits apart). */
static void free_slots(struct shoal_team *parent, uint64_t *freemask, int wanted, const char *fn)
{
    _Static_assert(MASK_WORDS <= SHOAL_SCRATCH_WORDS, "team scratch too small for the mask");
    struct shoal_group g;
    shoal_group_of_team(&g, parent, shoal_call_sig(SHOAL_CALL_SPLIT, 0, 0, (uint64_t)wanted, 0), 0,
                        fn);
    shoal_group_debug_check(&g, fn, 0, 0);
    pthread_mutex_lock(&lock);
    memcpy(g.scratch, used, sizeof used);
    pthread_mutex_unlock(&lock);
    shoal_group_sync(&g, fn);
    uint64_t all[MASK_WORDS] = {0}, theirs[MASK_WORDS];
    for (int i = 0; i < g.size; i++) {
        shoal_get(SHMEM_CTX_DEFAULT, theirs, g.scratch, sizeof theirs, shoal_group_pe(&g, i), fn);
        for (int w = 0; w < MASK_WORDS; w++)
            all[w] |= theirs[w];
    }
    /* Nobody clears its scratch before everybody has read it. */
    shoal_group_sync(&g, fn);
    memset(g.scratch, 0, sizeof used);
    for (int w = 0; w < MASK_WORDS; w++)
        freemask[w] = ~all[w];
}

static int take_slot(uint64_t *freemask)
{
    for (int w = 0; w < MASK_WORDS; w++)
        if (freemask[w]) {
            int b = __builtin_ctzll(freemask[w]);
            freemask[w] &= ~(1ull << b);
            return w * 64 + b;
        }
    return -1;
}

static void mark(int slot, int in_use)
{
    pthread_mutex_lock(&lock);
    if (in_use)
        used[slot / 64] |= 1ull << (slot % 64);
    else
        used[slot / 64] &= ~(1ull << (slot % 64));
    pthread_mutex_unlock(&lock);
}

/* A split that gives SHMEM_TEAM_INVALID: the spec makes that a return
 * value, not an error, so the reason is only printed under SHMEM_DEBUG
 * (one line per PE: each says what it was given).  Returns 1. */
__attribute__((format(printf, 2, 3))) static int split_fails(const char *fn, const char *fmt, ...)
{
    if (!shoal_g.debug)
        return 1;
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    shoal_warn(fn, "%s; the new team is SHMEM_TEAM_INVALID", why);
    return 1;
}

/* No slot free on every member for `wanted` new teams: not an error of
 * the program's arguments, but a limit it cannot see, so it is said
 * without SHMEM_DEBUG too, by the parent team's PE 0 only (every member
 * fails alike), as an exhausted heap is.  Returns 1. */
static int out_of_slots(const struct shoal_team *parent, int wanted, const char *fn)
{
    if (!shoal_g.debug && parent->my_pe != 0)
        return 1;
    shoal_warn(fn,
               "%s free on every member of the parent team: a PE is in at most %d teams at once "
               "(SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED and %d made by splits and not destroyed); "
               "destroy the teams no longer used (shmem_team_destroy); the new %s",
               wanted == 1 ? "no team slot is" : "no two team slots are", SHOAL_TEAM_SLOTS,
               SHOAL_TEAM_SLOTS - 2,
               wanted == 1 ? "team is SHMEM_TEAM_INVALID" : "teams are SHMEM_TEAM_INVALID");
    return 1;
}

static int parent_ok(struct shoal_team *parent, const char *fn)
{
    if (SHOAL_UNLIKELY(shoal_g.init_count == 0 || shoal_g.finalized))
        shoal_err_not_init(fn);
    if (parent == SHMEM_TEAM_INVALID)
        return !split_fails(fn, "argument 'parent_team' is SHMEM_TEAM_INVALID");
    if (parent->magic != SHOAL_TEAM_LIVE)
        shoal_fatal(fn,
                    "argument 'parent_team' (%p) is not a live team (destroyed or never "
                    "created)",
                    (void *)parent);
    if (parent->my_pe < 0)
        shoal_fatal(fn, "this PE is not a member of 'parent_team' but called the split");
    return 1;
}

/* A member's team: `idx` is its index in the new team, parent PEs
 * pstart + i*pstride for i < size. */
static struct shoal_team *make_team(struct shoal_team *parent, int pstart, int pstride, int size,
                                    int idx, int slot, const shmem_team_config_t *config, long mask)
{
    struct shoal_team *t = team_new();
    int wstart = shoal_team_world_pe(parent, pstart);
    int wstride = size > 1 ? parent->stride * pstride : 1;
    setup(t, wstart, wstride, size, idx, slot);
    t->config_mask = mask;
    if ((mask & SHMEM_TEAM_NUM_CONTEXTS) && config)
        t->num_contexts = config->num_contexts;
    mark(slot, 1);
    return t;
}

int shoal_team_split_strided(struct shoal_team *parent, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team, const char *fn)
{
    if (!new_team)
        shoal_fatal(fn, "argument 'new_team' is a null pointer");
    *new_team = SHMEM_TEAM_INVALID;
    if (!parent_ok(parent, fn))
        return 1;
    if ((config_mask & SHMEM_TEAM_NUM_CONTEXTS) && !config)
        shoal_fatal(fn, "argument 'config' is a null pointer but 'config_mask' selects fields");
    /* Every member sees the same triplet, so an invalid one fails on all
     * of them without talking. */
    const int n = parent->size;
    long last = (long)start + (long)(size - 1) * stride;
    if (size < 1)
        return split_fails(fn, "argument 'size' = %d is not positive", size);
    if (start < 0 || start >= n)
        return split_fails(fn, "argument 'start' = %d is not a PE of the parent team (0..%d)",
                           start, n - 1);
    if (stride == 0 && size > 1)
        return split_fails(fn, "argument 'stride' = 0 with 'size' = %d > 1", size);
    if (last < 0 || last >= n)
        return split_fails(fn,
                           "the last PE, start + (size - 1) * stride = %d + %d * %d = %ld, is "
                           "not a PE of the parent team (0..%d)",
                           start, size - 1, stride, last, n - 1);
    uint64_t freemask[MASK_WORDS];
    free_slots(parent, freemask, 1, fn);
    int slot = take_slot(freemask);
    if (slot < 0) /* no slot free on every member: all of them fail */
        return out_of_slots(parent, 1, fn);
    long rel = (long)parent->my_pe - start;
    int idx = -1;
    if (size == 1)
        idx = rel == 0 ? 0 : -1;
    else if (rel % stride == 0 && rel / stride >= 0 && rel / stride < size)
        idx = (int)(rel / stride);
    if (idx >= 0)
        *new_team = make_team(parent, start, stride, size, idx, slot, config, config_mask);
    SHOAL_LOG(SHOAL_LOG_TEAM, SHOAL_LOG_INFO,
              "%s: team of %d PEs from parent PE %d, stride %d, slot %d; this PE %s", fn, size,
              start, stride, slot, idx >= 0 ? "is a member" : "is not a member");
    return 0;
}

int shoal_team_split_2d(struct shoal_team *parent, int xrange, const shmem_team_config_t *xconfig,
                        long xmask, shmem_team_t *xteam, const shmem_team_config_t *yconfig,
                        long ymask, shmem_team_t *yteam, const char *fn)
{
    if (!xteam || !yteam)
        shoal_fatal(fn, "argument '%s' is a null pointer", !xteam ? "xaxis_team" : "yaxis_team");
    *xteam = *yteam = SHMEM_TEAM_INVALID;
    if (!parent_ok(parent, fn))
        return 1;
    if (((xmask & SHMEM_TEAM_NUM_CONTEXTS) && !xconfig) ||
        ((ymask & SHMEM_TEAM_NUM_CONTEXTS) && !yconfig))
        shoal_fatal(fn, "a config argument is a null pointer but its mask selects fields");
    const int n = parent->size;
    if (xrange <= 0)
        return split_fails(fn, "argument 'xrange' = %d is not positive", xrange);
    if (xrange > n)
        xrange = n;
    /* All x-teams share one slot and all y-teams another: teams of one
     * axis are disjoint, so their blocks never meet. */
    uint64_t freemask[MASK_WORDS];
    free_slots(parent, freemask, 2, fn);
    int xslot = take_slot(freemask), yslot = take_slot(freemask);
    if (xslot < 0 || yslot < 0)
        return out_of_slots(parent, 2, fn);
    const int me = parent->my_pe, x = me % xrange, y = me / xrange;
    int xsize = n - y * xrange < xrange ? n - y * xrange : xrange;
    int ysize = (n - x + xrange - 1) / xrange;
    *xteam = make_team(parent, y * xrange, 1, xsize, x, xslot, xconfig, xmask);
    *yteam = make_team(parent, x, xrange, ysize, y, yslot, yconfig, ymask);
    return 0;
}

void shoal_team_destroy(struct shoal_team *team, const char *fn)
{
    if (SHOAL_UNLIKELY(shoal_g.init_count == 0 || shoal_g.finalized))
        shoal_err_not_init(fn);
    if (team == SHMEM_TEAM_INVALID)
        return;
    if (team == &shoal_team_world || team == &shoal_team_shared)
        shoal_fatal(fn,
                    "argument 'team' is a predefined team (SHMEM_TEAM_%s), which cannot be "
                    "destroyed",
                    team == &shoal_team_world ? "WORLD" : "SHARED");
    if (team->magic != SHOAL_TEAM_LIVE)
        shoal_fatal(fn, "argument 'team' (%p) is not a live team (destroyed twice?)", (void *)team);
    /* Collective: the slot is reused only after every member is done
     * with it. */
    struct shoal_group g;
    shoal_group_of_team(&g, team, shoal_call_sig(SHOAL_CALL_DESTROY, 0, 0, 0, 0), 0, fn);
    shoal_group_debug_check(&g, fn, 0, 0);
    shoal_quiet(SHMEM_CTX_DEFAULT, fn);
    /* The acknowledgements of tree broadcasts that nobody waited for: sent
     * before their senders returned, but not ordered with the sync's
     * signals (other peers, other endpoints). */
    shoal_group_wait_acks_owed(&g, fn);
    shoal_group_sync(&g, fn);
    shoal_group_msgs_left(team->slot, fn);
    /* Every member has returned from its last collective on the team, and
     * every signal meant for this PE has arrived (it took them all in that
     * sync, and the acknowledgements before it), so nobody writes into its
     * broadcast ring or its counters any more: back to 0 for the slot's
     * next team. */
    struct shoal_team_block *blk = &shoal_my_ctl()->teams[team->slot];
    memset(&blk->bcast, 0, sizeof blk->bcast);
    memset(blk->sync, 0, sizeof blk->sync);
    memset(blk->calls, 0, sizeof blk->calls); /* the next team numbers its calls from 1 again */
    __atomic_store_n(&in_slot[team->slot], NULL, __ATOMIC_RELEASE);
    team->magic = 0;
    mark(team->slot, 0);
    pthread_mutex_lock(&lock);
    if (ngraves < (int)(sizeof graveyard / sizeof *graveyard))
        graveyard[ngraves++] = team;
    pthread_mutex_unlock(&lock);
}
