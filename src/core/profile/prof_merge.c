/* The merge at shmem_finalize: every PE's totals, then every PE's pairs,
 * through the bootstrap's allgather (two exchanges: a fixed-size record,
 * then the pairs padded to the longest list); PE 0 writes the files and
 * prints the table. */
#include "core/profile/prof_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "core/config/error.h"

struct pair_cursor {
    const struct shoal_prof_pair *pairs;
    size_t n, at;
};

static int next_merged(void *arg, struct shoal_prof_pair *out)
{
    struct pair_cursor *c = arg;
    if (c->at == c->n)
        return 0;
    *out = c->pairs[c->at++];
    return 1;
}

/* Every PE's pairs, allgathered into `all` (npes blocks of `max`), moved
 * together in source order; returns how many. */
static size_t compact(struct shoal_prof_pair *all, const struct shoal_prof_pe *pes, int npes,
                      size_t max)
{
    size_t k = 0;
    for (int s = 0; s < npes; s++)
        for (size_t i = 0; i < pes[s].npairs; i++)
            all[k++] = all[(size_t)s * max + i];
    return k;
}

/* Writes `<stem>.<what>.csv`; 0, or -1 after a warning that names the
 * file and the reason. */
static int csv(int npes, const struct shoal_prof_pair *pairs, size_t n, const char *what)
{
    char file[SHOAL_PROF_PATH_MAX + sizeof ".bytes.csv"];
    snprintf(file, sizeof file, "%s.%s.csv", shoal_prof_stem(), what);
    if (shoal_prof_write_csv(file, npes, pairs, n, !strcmp(what, "bytes")) == 0)
        return 0;
    shoal_warn("SHOAL_PROFILE", "cannot write %s: %s", file, strerror(errno));
    return -1;
}

/* The report's last line names the files that were written, and only
 * those (the warnings above say why the others are not). */
static void closing_line(int json_ok, int ops_ok, int bytes_ok)
{
    const char *path = shoal_prof_path(), *stem = shoal_prof_stem();
    if (!json_ok && !ops_ok && !bytes_ok) {
        fprintf(stderr, "shoal: profile: no file written (SHOAL_PROFILE: see the warnings)\n");
        return;
    }
    fprintf(stderr, "shoal: profile: %s%s", json_ok ? path : "",
            json_ok && (ops_ok || bytes_ok) ? ", " : "");
    if (ops_ok && bytes_ok)
        fprintf(stderr, "matrices %s.ops.csv and %s.bytes.csv", stem, stem);
    else if (ops_ok || bytes_ok)
        fprintf(stderr, "matrix %s.%s.csv", stem, ops_ok ? "ops" : "bytes");
    if (json_ok)
        fprintf(stderr, "; pictures: shoal-prof %s", path);
    fprintf(stderr, "\n");
}

/* PE 0: the files, then the table and the line that names them. */
static void report(const struct shoal_prof_pe *pes, int npes, const struct shoal_prof_pair *pairs,
                   size_t n)
{
    for (int p = 0; p < npes; p++)
        if (pes[p].magic != SHOAL_PROF_MAGIC || pes[p].nfam != SHOAL_PROF_NFAM) {
            shoal_warn("SHOAL_PROFILE", "PE %d runs another build of Shoal: no profile", p);
            return;
        }
    struct pair_cursor c = {pairs, n, 0};
    int json_ok =
        shoal_prof_write_json(shoal_prof_path(), npes, pes, npes, next_merged, &c, NULL) == 0;
    if (!json_ok)
        shoal_warn("SHOAL_PROFILE", "cannot write %s: %s", shoal_prof_path(), strerror(errno));
    int ops_ok = csv(npes, pairs, n, "ops") == 0;
    int bytes_ok = csv(npes, pairs, n, "bytes") == 0;
    shoal_prof_print_table(stderr, pes, npes, pairs, n);
    closing_line(json_ok, ops_ok, bytes_ok);
    fflush(stderr);
}

/* The pairs exchange: every PE's list padded to the longest. */
static struct shoal_prof_pair *gather_pairs(struct shoal_boot *boot,
                                            const struct shoal_prof_pe *pes, int npes, size_t *n)
{
    size_t max = 0;
    for (int p = 0; p < npes; p++)
        max = pes[p].npairs > max ? pes[p].npairs : max;
    struct shoal_prof_pair *mine = calloc(max ? max : 1, sizeof *mine);
    struct shoal_prof_pair *all = calloc(max ? max * (size_t)npes : 1, sizeof *all);
    if (!mine || !all)
        shoal_fatal("shmem_finalize", "SHOAL_PROFILE: out of memory for %zu peer pairs",
                    max * (size_t)npes);
    size_t cursor = 0, k = 0;
    while (k < max && shoal_prof_next_pair(&cursor, &mine[k]))
        k++;
    if (max && boot->allgather(mine, all, max * sizeof *mine) < 0) {
        shoal_warn(
            "shmem_finalize",
            "SHOAL_PROFILE: the bootstrap's allgather failed (is SHOAL_PROFILE set for every PE?)");
        free(all);
        all = NULL;
    }
    free(mine);
    *n = all ? compact(all, pes, npes, max) : 0;
    return all;
}

void shoal_prof_finish(struct shoal_boot *boot)
{
    if (!shoal_prof_finishing())
        return;
    int npes = shoal_g.n_pes;
    struct shoal_prof_pe me, *pes = calloc((size_t)npes, sizeof *pes);
    if (!pes)
        shoal_fatal("shmem_finalize", "SHOAL_PROFILE: out of memory for %d PEs' profiles", npes);
    shoal_prof_sum_pe(&me);
    if (boot->allgather(&me, pes, sizeof me) < 0) {
        shoal_warn(
            "shmem_finalize",
            "SHOAL_PROFILE: the bootstrap's allgather failed (is SHOAL_PROFILE set for every PE?)");
    } else {
        size_t n = 0;
        struct shoal_prof_pair *pairs = gather_pairs(boot, pes, npes, &n);
        if (shoal_g.my_pe == 0 && pairs)
            report(pes, npes, pairs, n);
        free(pairs);
    }
    free(pes);
    shoal_prof_release();
}
