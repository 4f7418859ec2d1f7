/* Part of core/teams (calls.h): reading another PE's call records and the
 * collective it waits in (struct shoal_call_rec, shoal_call_blocked in
 * core/state.h), by loads where it is mapped, else by gets through the
 * network's looks (shoal_net_look_start), which never block the waits that
 * issue them and never make an endpoint to a host that does not answer. */
#ifndef SHOAL_CORE_CALLS_READ_H
#define SHOAL_CORE_CALLS_READ_H
#include <stddef.h>

#include "core/state.h"

/* World PE pe's records on the team in `slot` (and, blocked not NULL,
 * what it waits in), now: through the network waited for, up to 2 s.
 * Returns 0, or -1 where they did not come in time. */
int shoal_call_read_now(int pe, int slot, struct shoal_call_rec *recs,
                        struct shoal_call_blocked *blocked, const char *fn);

/* The same for up to SHOAL_CALL_LOOK_MAX PEs at once, without waiting: the
 * calling thread's look starts (NULL while its last is still on its way),
 * then shoal_call_look_done gives it once every answer is in
 * (look->recs[k], look->blocked[k] for look->pe[k]), NULL before. */
#define SHOAL_CALL_LOOK_MAX 8
struct shoal_call_look {
    int n, slot;
    int pe[SHOAL_CALL_LOOK_MAX];
    struct shoal_call_rec recs[SHOAL_CALL_LOOK_MAX][SHOAL_CALL_RECS];
    struct shoal_call_blocked blocked[SHOAL_CALL_LOOK_MAX];
};
struct shoal_call_look *shoal_call_look_start(const int *pes, int n, int slot, const char *fn);
const struct shoal_call_look *shoal_call_look_done(const char *fn);

/* A report's names and texts (calls.c). */
const struct shoal_call_rec *shoal_call_rec_of(const struct shoal_call_rec *recs, uint64_t seq);
void shoal_call_describe(char *buf, size_t len, const struct shoal_call_rec *r);
const char *shoal_call_team_label(int slot, char *buf, size_t len);
/* Both calls of a mismatch on the team in `slot`, this PE's first
 * (`now_seq`: the collective it is in), `seen`: the evidence, or NULL. */
_Noreturn void shoal_call_report(int slot, uint64_t now_seq, const struct shoal_call_rec *mine,
                                 int pe, const struct shoal_call_rec *theirs, const char *seen,
                                 const char *fn);
#endif
