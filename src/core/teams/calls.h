/* Part of core/teams (sync.h): what the members of one collective must
 * agree on, and the reports of members that do not.
 *
 * A call's signature is one word: its kind, the reduction's operator and
 * type, the root, and its size (in elements or bytes, as the routine
 * counts), folded to 32 bits.  It rides in what the members already
 * exchange, where the receiver compares it with its own for nothing
 * measurable: beside the counter of each barrier round (sync.c), in the
 * gather lines and broadcast lines on one node (coll/), and, folded
 * further, in the tags of the collectives' messages across nodes.
 *
 * Each PE also records its last SHOAL_CALL_RECS calls on every team in its
 * ctl block (number, signature, whole size, routine), written as the call
 * starts.  A member that has waited a while in a collective reads the
 * records of the PE it waits for (calls.c): that PE made another call
 * under the same number, or waits itself in a collective on another team
 * that this PE has not entered, and the report names both calls.
 * Mismatches that would return wrong values are found in the data's
 * path; those that would hang, by the waits. */
#ifndef SHOAL_CORE_CALLS_H
#define SHOAL_CORE_CALLS_H
#include <stdint.h>

#include "core/state.h"

struct shoal_group;
struct shoal_waiter;

/* The kinds of collective call.  The barriers, syncs and the barriers of
 * heap allocation are one kind: the same dissemination sync. */
enum shoal_call_kind {
    SHOAL_CALL_SYNC = 1,
    SHOAL_CALL_BCAST,
    SHOAL_CALL_REDUCE,
    SHOAL_CALL_INSCAN,
    SHOAL_CALL_EXSCAN,
    SHOAL_CALL_FCOLLECT,
    SHOAL_CALL_COLLECT,
    SHOAL_CALL_ALLTOALL,
    SHOAL_CALL_ALLTOALLS,
    SHOAL_CALL_SPLIT,
    SHOAL_CALL_DESTROY,
    SHOAL_CALL_MT = 16 /* or'd in: the multi-threaded form (shmemx_*_mt) */
};

/* kind: bits 0-4; op: 5-7; type: 8-12; root: 13-31 (modulo 2^19); size:
 * 32-63 (its two halves xor'ed).  Zero is no call. */
static inline uint64_t shoal_call_sig(int kind, int op, int type, uint64_t root, uint64_t size)
{
    const uint32_t fold = (uint32_t)size ^ (uint32_t)(size >> 32);
    return (uint64_t)(kind & 31) | (uint64_t)(op & 7) << 5 | (uint64_t)(type & 31) << 8 |
           (root & 0x7ffffu) << 13 | (uint64_t)fold << 32;
}
static inline int shoal_call_kind_of(uint64_t sig)
{
    return (int)(sig & 31);
}

/* The routine's name as a record holds it: its offset from a string of
 * this library (calls.c reads it back). */
extern const char shoal_call_anchor[];
static inline int64_t shoal_call_fn_off(const char *fn)
{
    return (int64_t)((uintptr_t)fn - (uintptr_t)shoal_call_anchor);
}
/* Publishes the call this PE enters as collective `seq` on the team in
 * `slot` (records it, last the number). */
static inline void shoal_call_publish(int slot, uint64_t seq, uint64_t sig, uint64_t size,
                                      const char *fn)
{
    struct shoal_call_rec *r = &shoal_my_ctl()->teams[slot].calls[seq % SHOAL_CALL_RECS];
    r->sig = sig;
    r->size = size;
    r->fn_off = shoal_call_fn_off(fn);
    __atomic_store_n(&r->seq, seq, __ATOMIC_RELEASE);
}

/* A member told this PE, in the data's path, that its call has signature
 * `theirs` where this PE's is g->sig: reports both calls and ends the job.
 * `i`: that member (-1: not known; the records say who). */
_Noreturn void shoal_call_mismatch(const struct shoal_group *g, int i, uint64_t theirs,
                                   const char *fn);
/* The same where the evidence does not say what the other call is (a
 * message of another collective under this one's number): the records of
 * the members name it where they can; `why` is said. */
_Noreturn void shoal_call_mismatch_unknown(const struct shoal_group *g, const char *why,
                                           const char *fn);
/* The same for collective `seq` on the team in `slot`. */
_Noreturn void shoal_call_mismatch_at(int slot, uint64_t seq, const char *why, const char *fn);
/* Whether a member's record of collective `seq` on the team in `slot`
 * names another call than this PE's: the evidence that a signal's or a
 * message's circumstantial hint is a mismatch, not a member ahead by one
 * collective while another is slow (members that cannot be read do not
 * count). */
int shoal_call_differs(int slot, uint64_t seq, const char *fn);

/* The wait engine's look, while a thread waits inside a collective (its
 * wait record names the team, the number and the peer): from a short
 * while into the wait, and now and then after, compares the calls of the
 * PE (or the members) it waits for with this PE's; fatal on a mismatch
 * (core/waiting/wait.c calls it through a hook). */
void shoal_call_wait_check(struct shoal_waiter *w, uint64_t now);
/* The wait ended: the published wait, if any, is withdrawn. */
void shoal_call_wait_end(void);
/* A collective's message to world PE `pe` still waits for its receiver
 * (team slot, number): the same look at that PE. */
void shoal_call_send_check(int slot, uint64_t seq, int pe, const char *fn);
#endif
