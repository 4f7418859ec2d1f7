/* coll_test.h — helpers shared by the team and collective tests (tests/coll).
 *
 * Include this first; it includes shoal_test.h (CHECK macros, ST_PHASE,
 * watchdog).  Public API only.
 *
 *   PHASE(fmt, ...)        a formatted ST_PHASE label
 *   ct_team_t              what the test expects of a team: the world PE
 *                          number of every member, in team order, and the
 *                          calling PE's index (-1 if not a member)
 *   ct_strided(...)        the expected team of a strided split of a parent
 *   ct_check_team(...)     my_pe / n_pes / translate_pe against the model
 *   ct_tdesc_t, ct_make_team(...)
 *                          a team handle with its name and model, made by a
 *                          strided split and checked
 */
#ifndef COLL_TEST_H
#define COLL_TEST_H

#include "shoal_test.h"

#define CT_MAXPE 64

static char ct_ph[256];
#define PHASE(...) (snprintf(ct_ph, sizeof ct_ph, __VA_ARGS__), ST_PHASE(ct_ph))

typedef struct {
    int n;               /* members */
    int world[CT_MAXPE]; /* world PE number of team PE k */
    int me;              /* the calling PE's team PE number, or -1 */
} ct_team_t;

static ST_UNUSED void ct_world_model(ct_team_t *m)
{
    m->n = shmem_n_pes();
    for (int k = 0; k < m->n; k++)
        m->world[k] = k;
    m->me = shmem_my_pe();
}

/* The model of a team whose numbering the spec leaves to the library
 * (SHMEM_TEAM_SHARED), read back through translate_pe; checks that it is
 * a set of distinct world PEs containing the caller. */
static ST_UNUSED void ct_model_of(shmem_team_t team, ct_team_t *m, const char *what)
{
    int npes = shmem_n_pes(), seen[CT_MAXPE] = {0};
    m->n = shmem_team_n_pes(team);
    m->me = shmem_team_my_pe(team);
    CHECK_MSG(m->n >= 1 && m->n <= npes, "%s: n_pes = %d", what, m->n);
    CHECK_MSG(m->me >= 0 && m->me < m->n, "%s: my_pe = %d of %d", what, m->me, m->n);
    for (int k = 0; k < m->n; k++) {
        int w = shmem_team_translate_pe(team, k, SHMEM_TEAM_WORLD);
        CHECK_MSG(w >= 0 && w < npes && !seen[w],
                  "%s: translate_pe(team, %d, WORLD) = %d (out of range or repeated)", what, k, w);
        seen[w] = 1;
        m->world[k] = w;
    }
    CHECK_MSG(m->world[m->me] == shmem_my_pe(), "%s: team PE %d (me) translates to world PE %d",
              what, m->me, m->world[m->me]);
}

/* Index of world PE `pe` in the model, or -1. */
static ST_UNUSED int ct_index_of(const ct_team_t *m, int pe)
{
    for (int k = 0; k < m->n; k++)
        if (m->world[k] == pe)
            return k;
    return -1;
}

/* The team that split_strided(parent, start, stride, size) makes, from the
 * model of the parent (spec: member i is parent PE start + i*stride). */
static ST_UNUSED void ct_strided(ct_team_t *out, const ct_team_t *parent, int start, int stride,
                                 int size)
{
    out->n = size;
    for (int i = 0; i < size; i++)
        out->world[i] = parent->world[start + i * stride];
    out->me = ct_index_of(out, shmem_my_pe());
}

/* Whether (start, stride, size) is a valid triplet for a parent of n PEs. */
static ST_UNUSED int ct_triplet_ok(int n, int start, int stride, int size)
{
    if (size < 1 || start < 0 || start >= n)
        return 0;
    if (stride == 0)
        return size == 1;
    long last = (long)start + (long)stride * (size - 1);
    return last >= 0 && last < n;
}

/* my_pe, n_pes and translate_pe of `team` (a handle this PE holds: a member
 * or SHMEM_TEAM_INVALID) against the model. */
static ST_UNUSED void ct_check_team(shmem_team_t team, const ct_team_t *m, const char *what)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (m->me < 0) {
        CHECK_MSG(team == SHMEM_TEAM_INVALID,
                  "%s: PE %d is not a member, but its handle is not SHMEM_TEAM_INVALID", what, me);
        CHECK_MSG(shmem_team_my_pe(team) == -1, "%s: my_pe of a non-member's handle is %d", what,
                  shmem_team_my_pe(team));
        CHECK_MSG(shmem_team_n_pes(team) == -1, "%s: n_pes of a non-member's handle is %d", what,
                  shmem_team_n_pes(team));
        return;
    }
    CHECK_MSG(team != SHMEM_TEAM_INVALID, "%s: member PE %d got SHMEM_TEAM_INVALID", what, me);
    CHECK_MSG(shmem_team_my_pe(team) == m->me, "%s: shmem_team_my_pe = %d, expected %d", what,
              shmem_team_my_pe(team), m->me);
    CHECK_MSG(shmem_team_n_pes(team) == m->n, "%s: shmem_team_n_pes = %d, expected %d", what,
              shmem_team_n_pes(team), m->n);
    for (int k = 0; k < m->n; k++) {
        int w = shmem_team_translate_pe(team, k, SHMEM_TEAM_WORLD);
        CHECK_MSG(w == m->world[k], "%s: translate_pe(team, %d, WORLD) = %d, expected %d", what, k,
                  w, m->world[k]);
        int s = shmem_team_translate_pe(team, k, team);
        CHECK_MSG(s == k, "%s: translate_pe(team, %d, team) = %d", what, k, s);
    }
    for (int pe = 0; pe < npes; pe++) {
        int t = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, team);
        int e = ct_index_of(m, pe);
        CHECK_MSG(t == e, "%s: translate_pe(WORLD, %d, team) = %d, expected %d%s", what, pe, t, e,
                  e < 0 ? " (not a member)" : "");
    }
}

/* A team the tests use: its handle, a name for messages, and the model. */
typedef struct {
    const char *name;
    shmem_team_t t;
    ct_team_t m;
} ct_tdesc_t;

/* d: the strided split (start, stride, size) of `parent` (model `pm`),
 * checked against its model; size <= 0: no team (an empty model). */
static ST_UNUSED void ct_make_team(ct_tdesc_t *d, const char *name, shmem_team_t parent,
                                   const ct_team_t *pm, int start, int stride, int size)
{
    d->name = name;
    d->t = SHMEM_TEAM_INVALID;
    if (size <= 0) {
        d->m.n = 0;
        d->m.me = -1;
        return;
    }
    CHECK_EQ_I(shmem_team_split_strided(parent, start, stride, size, NULL, 0, &d->t), 0);
    ct_strided(&d->m, pm, start, stride, size);
    ct_check_team(d->t, &d->m, name);
}

#endif /* COLL_TEST_H */
