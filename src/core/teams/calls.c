/* Calls and their reports (calls.h): what a signature says, the records of
 * a PE's calls read from another PE, and the one message that names both
 * calls of a mismatch. */
#include "core/teams/calls.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "core/ops.h"
#include "core/teams/calls_read.h"
#include "core/teams/sync.h"
#include "core/teams/team.h"
#include "core/waiting/wait.h"
#include "shoal_types.h"

/* A routine's name is a string constant of this library, at the same
 * offset from this one in every PE (one build runs the job): a record
 * holds the offset, and a reader takes the name at its own copy, where
 * that is one (fn_at). */
const char shoal_call_anchor[] = "shoal: collective calls";

/* The word a routine of each kind has in its name (NULL: any). */
static const char *kind_word(int kind)
{
    static const char *const words[] = {
        [SHOAL_CALL_BCAST] = "broadcast",   [SHOAL_CALL_REDUCE] = "_",
        [SHOAL_CALL_INSCAN] = "inscan",     [SHOAL_CALL_EXSCAN] = "exscan",
        [SHOAL_CALL_FCOLLECT] = "collect",  [SHOAL_CALL_COLLECT] = "collect",
        [SHOAL_CALL_ALLTOALL] = "alltoall", [SHOAL_CALL_ALLTOALLS] = "alltoalls",
        [SHOAL_CALL_SPLIT] = "split",       [SHOAL_CALL_DESTROY] = "destroy"};
    kind &= SHOAL_CALL_MT - 1;
    return kind < (int)(sizeof words / sizeof *words) ? words[kind] : NULL;
}

/* The routine named at `off` of this library, if it is a routine's name
 * that fits a call of `kind`; else NULL (another build, or garbage). */
static const char *fn_at(int64_t off, int kind)
{
    const char *p = (const char *)((uintptr_t)shoal_call_anchor + (uintptr_t)off);
    Dl_info a, b;
    if (!off || !dladdr(shoal_call_anchor, &a) || !dladdr(p, &b) || a.dli_fbase != b.dli_fbase)
        return NULL;
    for (int i = 0; i < 64; i++) {
        const unsigned char c = (unsigned char)p[i];
        if (!c) {
            const char *w = kind_word(kind);
            return i > 5 && !strncmp(p, "shmem", 5) && (!w || strstr(p, w)) ? p : NULL;
        }
        if (!islower(c) && !isdigit(c) && c != '_')
            return NULL;
    }
    return NULL;
}

static const char *const op_names[] = {
    "and", "or", "xor", "max", "min", "sum", "prod"}; /* enum shoal_red_op's order (coll/coll.h) */

static const char *type_name(int type, char *buf, size_t len)
{
    static const char *const names[] = {
#define SHOAL_X(DT, T, U, K) #DT,
        SHOAL_FOREACH_REDUCE_TYPE(SHOAL_X)
#undef SHOAL_X
    };
    if (type < 0 || type >= (int)(sizeof names / sizeof *names))
        return "?";
    size_t i = 0;
    for (; names[type][i] && i + 1 < len; i++)
        buf[i] = (char)tolower((unsigned char)names[type][i]);
    buf[i] = 0;
    return buf;
}

/* What a call of signature `sig` and size `size` moves, for a report. */
static void detail(char *buf, size_t len, uint64_t sig, uint64_t size)
{
    const int kind = shoal_call_kind_of(sig) & (SHOAL_CALL_MT - 1);
    const int op = (int)(sig >> 5 & 7), root = (int)(sig >> 13 & 0x7ffff);
    const unsigned long long n = size;
    char t[24];
    switch (kind) {
    case SHOAL_CALL_BCAST: snprintf(buf, len, ", %llu bytes from root %d", n, root); break;
    case SHOAL_CALL_REDUCE:
        snprintf(buf, len, ", %s of %llu %s", op_names[op < 7 ? op : 0], n,
                 type_name((int)(sig >> 8 & 31), t, sizeof t));
        break;
    case SHOAL_CALL_INSCAN:
    case SHOAL_CALL_EXSCAN:
        snprintf(buf, len, ", %llu %s", n, type_name((int)(sig >> 8 & 31), t, sizeof t));
        break;
    case SHOAL_CALL_FCOLLECT: snprintf(buf, len, ", %llu bytes from each PE", n); break;
    case SHOAL_CALL_ALLTOALL: snprintf(buf, len, ", %llu bytes to each PE", n); break;
    case SHOAL_CALL_ALLTOALLS: snprintf(buf, len, ", %llu elements to each PE", n); break;
    default: buf[0] = 0;
    }
    if (shoal_call_kind_of(sig) & SHOAL_CALL_MT)
        snprintf(buf + strlen(buf), len - strlen(buf), ", multi-threaded form");
}

/* A call's name where its record gave none. */
static const char *name_of_kind(uint64_t sig, char *buf, size_t len)
{
    static const char *const names[] = {
        [SHOAL_CALL_SYNC] = "a barrier or sync", [SHOAL_CALL_BCAST] = "a broadcast",
        [SHOAL_CALL_FCOLLECT] = "an fcollect",   [SHOAL_CALL_COLLECT] = "a collect",
        [SHOAL_CALL_ALLTOALL] = "an alltoall",   [SHOAL_CALL_ALLTOALLS] = "an alltoalls",
        [SHOAL_CALL_SPLIT] = "a team split",     [SHOAL_CALL_DESTROY] = "shmem_team_destroy"};
    const int kind = shoal_call_kind_of(sig) & (SHOAL_CALL_MT - 1);
    char t[24];
    if (kind == SHOAL_CALL_REDUCE || kind == SHOAL_CALL_INSCAN || kind == SHOAL_CALL_EXSCAN) {
        const int op = (int)(sig >> 5 & 7);
        snprintf(buf, len, "shmem_%s_%s_%s", type_name((int)(sig >> 8 & 31), t, sizeof t),
                 kind == SHOAL_CALL_REDUCE ? op_names[op < 7 ? op : 0] : "sum",
                 kind == SHOAL_CALL_REDUCE   ? "reduce"
                 : kind == SHOAL_CALL_INSCAN ? "inscan"
                                             : "exscan");
        return buf;
    }
    return kind > 0 && kind < (int)(sizeof names / sizeof *names) && names[kind] ? names[kind]
                                                                                 : "a collective";
}

void shoal_call_describe(char *buf, size_t len, const struct shoal_call_rec *r)
{
    char d[96], k[48], n[40] = "";
    const char *name = fn_at(r->fn_off, shoal_call_kind_of(r->sig));
    detail(d, sizeof d, r->sig, r->size);
    if (r->seq)
        snprintf(n, sizeof n, "collective #%llu", (unsigned long long)r->seq);
    const char *dd = r->seq || !d[0] ? d : d + 2; /* no ", " first */
    snprintf(buf, len, "%s%s%s%s%s", name ? name : name_of_kind(r->sig, k, sizeof k),
             n[0] || dd[0] ? " (" : "", n, dd, n[0] || dd[0] ? ")" : "");
}

const char *shoal_call_team_label(int slot, char *buf, size_t len)
{
    if (slot == SHOAL_TEAM_SLOT_WORLD)
        return "SHMEM_TEAM_WORLD";
    if (slot == SHOAL_TEAM_SLOT_SHARED)
        return "SHMEM_TEAM_SHARED";
    snprintf(buf, len, "the team in slot %d", slot);
    return buf;
}

const struct shoal_call_rec *shoal_call_rec_of(const struct shoal_call_rec *recs, uint64_t seq)
{
    const struct shoal_call_rec *r = &recs[seq % SHOAL_CALL_RECS];
    return seq && r->seq == seq ? r : NULL;
}

_Noreturn void shoal_call_report(int slot, uint64_t now_seq, const struct shoal_call_rec *mine,
                                 int pe, const struct shoal_call_rec *theirs, const char *seen,
                                 const char *fn)
{
    char t[48], a[200], b[200], who[24] = "another member";
    shoal_call_describe(a, sizeof a, mine);
    shoal_call_describe(b, sizeof b, theirs);
    if (pe >= 0)
        snprintf(who, sizeof who, "PE %d", pe);
    const int now = mine->seq == now_seq;
    shoal_fatal(fn, "collectives do not match on %s: this PE (PE %d) %s %s, %s %s %s%s%s%s",
                shoal_call_team_label(slot, t, sizeof t), shoal_g.my_pe, now ? "is in" : "called",
                a, who, now ? "is in" : "called", b, seen ? " (" : "", seen ? seen : "",
                seen ? ")" : "");
}

/* This PE's record of collective `seq` on the team in `slot`. */
static struct shoal_call_rec my_rec(int slot, uint64_t seq, uint64_t sig)
{
    const struct shoal_call_rec *r = shoal_call_rec_of(shoal_my_ctl()->teams[slot].calls, seq);
    return r ? *r : (struct shoal_call_rec){seq, sig, sig >> 32, 0};
}

/* World PE pe's record of the call whose signature is `sig` (its latest),
 * or one made of the signature alone. */
static struct shoal_call_rec their_rec(int pe, int slot, uint64_t sig, const char *fn)
{
    struct shoal_call_rec recs[SHOAL_CALL_RECS], best = {0, sig, sig >> 32, 0};
    if (shoal_call_read_now(pe, slot, recs, NULL, fn) == 0)
        for (int k = 0; k < SHOAL_CALL_RECS; k++)
            if (recs[k].seq > best.seq && recs[k].sig == sig)
                best = recs[k];
    return best;
}

void shoal_call_mismatch(const struct shoal_group *g, int i, uint64_t theirs, const char *fn)
{
    const struct shoal_call_rec mine = my_rec(g->team_slot, g->seq, g->sig);
    if (i >= 0) {
        const int pe = shoal_group_pe(g, i);
        const struct shoal_call_rec other = their_rec(pe, g->team_slot, theirs, fn);
        shoal_call_report(g->team_slot, g->seq, &mine, pe, &other, NULL, fn);
    }
    /* Who wrote it is not known: the member whose record has that call. */
    for (int k = 1; k < g->size; k++) {
        const int pe = shoal_group_pe(g, (g->me + k) % g->size);
        const struct shoal_call_rec other = their_rec(pe, g->team_slot, theirs, fn);
        if (other.seq)
            shoal_call_report(g->team_slot, g->seq, &mine, pe, &other, NULL, fn);
    }
    const struct shoal_call_rec other = {0, theirs, theirs >> 32, 0};
    shoal_call_report(g->team_slot, g->seq, &mine, -1, &other, NULL, fn);
}

/* pe's record of `seq` where it names another call than `mine`, in *theirs. */
static int rec_differs(int pe, int slot, uint64_t seq, const struct shoal_call_rec *mine,
                       struct shoal_call_rec *theirs, const char *fn)
{
    struct shoal_call_rec recs[SHOAL_CALL_RECS];
    if (shoal_call_read_now(pe, slot, recs, NULL, fn) < 0)
        return 0;
    const struct shoal_call_rec *r = shoal_call_rec_of(recs, seq);
    if (!r || r->sig == mine->sig)
        return 0;
    *theirs = *r;
    return 1;
}

/* The first member (after this PE) whose record of `seq` names another
 * call than `mine`: its world PE, with *theirs; -1 if none can be read to
 * differ.  Through the network a second read confirms: a get may find a
 * record's new number beside its old signature (calls_read.c). */
static int first_differing(int slot, uint64_t seq, const struct shoal_call_rec *mine,
                           struct shoal_call_rec *theirs, const char *fn)
{
    const struct shoal_team *t = shoal_team_at_slot(slot);
    for (int k = 1; t && k < t->size; k++) {
        const int pe = shoal_team_world_pe(t, (t->my_pe + k) % t->size);
        struct shoal_call_rec again;
        if (rec_differs(pe, slot, seq, mine, theirs, fn) &&
            (shoal_slot(pe) >= 0 ||
             (rec_differs(pe, slot, seq, mine, &again, fn) && again.sig == theirs->sig)))
            return pe;
    }
    return -1;
}

int shoal_call_differs(int slot, uint64_t seq, const char *fn)
{
    const struct shoal_call_rec mine = my_rec(slot, seq, 0);
    struct shoal_call_rec theirs;
    return first_differing(slot, seq, &mine, &theirs, fn) >= 0;
}

void shoal_call_mismatch_at(int slot, uint64_t seq, const char *why, const char *fn)
{
    const struct shoal_call_rec mine = my_rec(slot, seq, 0);
    struct shoal_call_rec theirs;
    const int pe = first_differing(slot, seq, &mine, &theirs, fn);
    if (pe >= 0)
        shoal_call_report(slot, seq, &mine, pe, &theirs, why, fn);
    char tl[48], a[200];
    shoal_call_describe(a, sizeof a, &mine);
    shoal_fatal(fn, "collectives do not match on %s: this PE (PE %d) is in %s, and %s",
                shoal_call_team_label(slot, tl, sizeof tl), shoal_g.my_pe, a, why);
}

void shoal_call_mismatch_unknown(const struct shoal_group *g, const char *why, const char *fn)
{
    shoal_call_mismatch_at(g->team_slot, g->seq, why, fn);
}
