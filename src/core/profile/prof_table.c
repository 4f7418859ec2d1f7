/* PE 0's short report on stderr: the job's time in Shoal against its wall
 * time, the families that took most time (min / median / max over PEs and
 * the PE furthest from the median), and the busiest peer pairs. */
#include "core/profile/prof_internal.h"

#include <stdlib.h>
#include <string.h>

#define TOP_FAMILIES 8
#define TOP_PAIRS 5

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* min, median and max of v[0..n), and the index furthest from the median. */
struct spread {
    uint64_t min, med, max;
    int outlier;
};

static struct spread spread_of(const uint64_t *v, int n, uint64_t *scratch)
{
    memcpy(scratch, v, (size_t)n * sizeof *v);
    qsort(scratch, (size_t)n, sizeof *scratch, cmp_u64);
    struct spread s = {scratch[0], scratch[n / 2], scratch[n - 1], 0};
    if (n % 2 == 0)
        s.med = scratch[n / 2 - 1] / 2 + scratch[n / 2] / 2;
    uint64_t far = 0;
    for (int i = 0; i < n; i++) {
        uint64_t d = v[i] > s.med ? v[i] - s.med : s.med - v[i];
        if (d > far) {
            far = d;
            s.outlier = i;
        }
    }
    return s;
}

static const char *human(uint64_t b, char *buf, size_t len)
{
    if (b >= (1u << 30))
        snprintf(buf, len, "%.1f GiB", (double)b / (1u << 30));
    else if (b >= (1u << 20))
        snprintf(buf, len, "%.1f MiB", (double)b / (1u << 20));
    else if (b >= 1024)
        snprintf(buf, len, "%.1f KiB", (double)b / 1024);
    else
        snprintf(buf, len, "%llu B", (unsigned long long)b);
    return buf;
}

/* Times in the unit that suits the largest of them. */
struct unit {
    const char *name;
    double per_ns;
};

static struct unit unit_for(uint64_t largest_ns)
{
    if (largest_ns >= 1000000000u)
        return (struct unit){"s", 1e-9};
    if (largest_ns >= 1000000u)
        return (struct unit){"ms", 1e-6};
    return (struct unit){"us", 1e-3};
}

static void header(FILE *f, const struct shoal_prof_pe *pes, int npes, uint64_t *v, uint64_t *tmp)
{
    int nodes = 0;
    uint32_t tmin = pes[0].threads, tmax = pes[0].threads;
    uint64_t wall = 0;
    for (int p = 0; p < npes; p++) {
        nodes += pes[p].node == p;
        tmin = pes[p].threads < tmin ? pes[p].threads : tmin;
        tmax = pes[p].threads > tmax ? pes[p].threads : tmax;
        wall = pes[p].wall_ns > wall ? pes[p].wall_ns : wall;
        v[p] = pes[p].shoal_ns;
    }
    struct spread s = spread_of(v, npes, tmp);
    struct unit u = unit_for(wall > s.max ? wall : s.max);
    fprintf(f, "shoal: profile of %d PE%s (%d node%s, %u", npes, npes == 1 ? "" : "s", nodes,
            nodes == 1 ? "" : "s", tmin);
    if (tmax != tmin)
        fprintf(f, "-%u", tmax);
    fprintf(f, " thread%s per PE), wall %.3f %s\n", tmax == 1 ? "" : "s", (double)wall * u.per_ns,
            u.name);
    fprintf(f,
            "shoal: time in Shoal per PE: median %.3f %s (%.0f%% of wall), min %.3f, max %.3f "
            "(PE %d)\n",
            (double)s.med * u.per_ns, u.name, wall ? 100.0 * (double)s.med / (double)wall : 0.0,
            (double)s.min * u.per_ns, (double)s.max * u.per_ns, s.outlier);
}

/* The families in the order the table shows them: most time (summed
 * over PEs) first, then the untimed ones by calls. */
static int rank_families(const struct shoal_prof_pe *pes, int npes, int *order)
{
    uint64_t time[SHOAL_PROF_NFAM] = {0}, calls[SHOAL_PROF_NFAM] = {0};
    int n = 0;
    for (int f = 0; f < SHOAL_PROF_NFAM; f++) {
        for (int p = 0; p < npes; p++) {
            time[f] += pes[p].ns[f];
            calls[f] += pes[p].calls[f];
        }
        if (calls[f])
            order[n++] = f;
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            int a = order[j - 1], b = order[j];
            if (time[b] > time[a] || (time[b] == time[a] && calls[b] > calls[a])) {
                order[j - 1] = b;
                order[j] = a;
            }
        }
    return n;
}

static void families(FILE *f, const struct shoal_prof_pe *pes, int npes, uint64_t *v, uint64_t *tmp)
{
    int order[SHOAL_PROF_NFAM];
    int n = rank_families(pes, npes, order);
    uint64_t largest = 0;
    for (int p = 0; p < npes; p++)
        for (int fam = 0; fam < SHOAL_PROF_NFAM; fam++)
            largest = pes[p].ns[fam] > largest ? pes[p].ns[fam] : largest;
    struct unit u = unit_for(largest);
    char hmin[16], hmed[16], hmax[16];
    snprintf(hmin, sizeof hmin, "min %s", u.name);
    snprintf(hmed, sizeof hmed, "median %s", u.name);
    snprintf(hmax, sizeof hmax, "max %s", u.name);
    fprintf(f, "shoal:   %-15s %12s %12s   %9s %9s %9s  %s\n", "family", "calls", "bytes", hmin,
            hmed, hmax, "furthest from median");
    for (int i = 0; i < n && i < TOP_FAMILIES; i++) {
        int fam = order[i];
        uint64_t calls = 0, bytes = 0;
        for (int p = 0; p < npes; p++) {
            calls += pes[p].calls[fam];
            bytes += pes[p].bytes[fam];
            v[p] = pes[p].ns[fam];
        }
        struct spread s = spread_of(v, npes, tmp);
        char b[32];
        fprintf(f, "shoal:   %-15s %12llu %12s", shoal_prof_name[fam], (unsigned long long)calls,
                human(bytes, b, sizeof b));
        if (s.max == 0) {
            fprintf(f, "   %9s %9s %9s  (not timed)\n", "-", "-", "-");
            continue;
        }
        fprintf(f, "   %9.3f %9.3f %9.3f  PE %d", (double)s.min * u.per_ns,
                (double)s.med * u.per_ns, (double)s.max * u.per_ns, s.outlier);
        if (s.med)
            fprintf(f, " (%.2fx median)", (double)v[s.outlier] / (double)s.med);
        fprintf(f, "\n");
    }
    if (n > TOP_FAMILIES)
        fprintf(f, "shoal:   (%d more famil%s in the JSON)\n", n - TOP_FAMILIES,
                n - TOP_FAMILIES == 1 ? "y" : "ies");
}

struct pair_sum {
    uint32_t src, dst;
    uint64_t ops, bytes;
    unsigned routes; /* bit SHOAL_PROF_ON_NODE, bit SHOAL_PROF_NETWORK */
};

static int heavier(const struct pair_sum *a, const struct pair_sum *b)
{
    return a->bytes > b->bytes || (a->bytes == b->bytes && a->ops > b->ops);
}

/* Keeps the TOP_PAIRS heaviest in top[], heaviest first. */
static void keep(struct pair_sum *top, int *n, const struct pair_sum *s)
{
    int i = *n < TOP_PAIRS ? (*n)++ : TOP_PAIRS;
    if (i == TOP_PAIRS && !heavier(s, &top[TOP_PAIRS - 1]))
        return;
    if (i == TOP_PAIRS)
        i = TOP_PAIRS - 1;
    for (; i > 0 && heavier(s, &top[i - 1]); i--)
        top[i] = top[i - 1];
    top[i] = *s;
}

static void busiest(FILE *f, const struct shoal_prof_pair *pairs, size_t n)
{
    struct pair_sum top[TOP_PAIRS], cur = {0};
    int ntop = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || pairs[i].src != cur.src || pairs[i].dst != cur.dst) {
            if (cur.ops)
                keep(top, &ntop, &cur);
            if (i == n)
                break;
            cur = (struct pair_sum){pairs[i].src, pairs[i].dst, 0, 0, 0};
        }
        cur.ops += pairs[i].ops;
        cur.bytes += pairs[i].bytes;
        cur.routes |= 1u << pairs[i].route;
    }
    if (!ntop) {
        fprintf(f, "shoal: busiest pairs: none (no put, get, atomic or message to a PE)\n");
        return;
    }
    fprintf(f, "shoal: busiest pairs:");
    for (int i = 0; i < ntop; i++) {
        char b[32];
        const char *route = top[i].routes == 3                          ? "on-node+network"
                            : top[i].routes == 1u << SHOAL_PROF_ON_NODE ? "on-node"
                                                                        : "network";
        fprintf(f, "%s %u->%u %s in %llu ops (%s)", i ? "," : "", top[i].src, top[i].dst,
                human(top[i].bytes, b, sizeof b), (unsigned long long)top[i].ops, route);
    }
    fprintf(f, "\n");
}

void shoal_prof_print_table(FILE *f, const struct shoal_prof_pe *pes, int npes,
                            const struct shoal_prof_pair *pairs, size_t npairs)
{
    uint64_t *v = calloc(2 * (size_t)npes, sizeof *v);
    if (!v)
        return;
    header(f, pes, npes, v, v + npes);
    families(f, pes, npes, v, v + npes);
    busiest(f, pairs, npairs);
    free(v);
}
