/* Where the PEs run: one CPU set per PE, computed once in oshrun before the
 * first fork and applied by each child before exec (placement_apply: one
 * system call), so a PE starts bound and first-touches its memory on its
 * own NUMA node.
 *
 * "CPU" means what the affinity mask counts: a hardware thread (hwloc's
 * PU), as in taskset, /proc/PID/status and Slurm's --cpus-per-task.
 * oshrun only ever divides its own affinity mask (taskset, a cgroup, a
 * batch system's allocation), never the whole machine.
 *
 * --bind-to core (the default), N PEs, C cores and P CPUs in the mask:
 *   N <= C        each PE gets C / N whole cores (every CPU of them in the
 *                 mask), cores of one NUMA node where that can be had;
 *   C < N <= P    each PE gets P / N CPUs (hardware threads), on cores
 *                 nobody uses yet first (all first threads before any
 *                 second one), within one NUMA node where possible;
 *   N > P         oversubscribed: no binding, every PE keeps the mask.
 * --cpus-per-pe S: S CPUs per PE as in the second case (whole cores
 *   first: a PE completes its cores before it takes another); S * N > P
 *   is oversubscribed.
 * --bind-to numa: PE i gets every CPU of the mask on the i-th NUMA node
 *   (round robin), whatever N is.
 *
 * The topology comes from hwloc.  Without hwloc at build time every CPU
 * counts as a core of one NUMA node: the shares are contiguous runs of the
 * mask (hyperthreads and NUMA nodes unknown), and --report-bindings says so.
 * With HWLOC_SYNTHETIC set (e.g. "package:2 core:4 pu:2"), hwloc describes
 * a made-up machine: oshrun then computes and reports the placement for it
 * (its mask being every CPU of that machine) but starts the PEs unbound. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oshrun.h"

#ifdef SHOAL_HAVE_HWLOC
#include <hwloc.h>
#endif

/* The part of the topology that covers oshrun's mask: CPUs grouped by core,
 * cores grouped by NUMA node, in topology order. */
struct tcore {
    int id;    /* hwloc's logical index of the core (lstopo's L#); -1: none */
    int numa;  /* rank of its NUMA node among those in the mask */
    int first; /* its CPUs: cpus[first .. first + ncpu) */
    int ncpu;
    int nfree; /* while allocating */
    int last;  /* the PE that took a CPU of it last, while allocating */
};
struct topo {
    int ncpu, ncores, nnuma;
    int *cpus; /* OS indexes */
    struct tcore *cores;
    int *numa_id; /* per NUMA rank: the node's OS index (numactl's), -1: unknown */
};

/* oshrun's affinity mask, however many CPUs the kernel supports. */
static cpu_set_t *read_mask(size_t *size)
{
    for (int ncpu = 1024;; ncpu *= 2) {
        cpu_set_t *s = CPU_ALLOC(ncpu);
        if (!s)
            return NULL;
        *size = CPU_ALLOC_SIZE(ncpu);
        if (sched_getaffinity(0, *size, s) == 0)
            return s;
        int e = errno;
        CPU_FREE(s);
        if (e != EINVAL || ncpu >= (1 << 22)) {
            errno = e;
            return NULL;
        }
    }
}

/* ---- building the topology ---- */

struct cpuinfo {
    int cpu;            /* OS index */
    int numa, core, pu; /* sort keys: NUMA rank, a unique key per core, PU order */
    int id;             /* the core's number for reports (-1: none) */
};

static int cmp_cpuinfo(const void *a, const void *b)
{
    const struct cpuinfo *x = a, *y = b;
    if (x->numa != y->numa)
        return x->numa < y->numa ? -1 : 1;
    if (x->core != y->core)
        return x->core < y->core ? -1 : 1;
    return x->pu < y->pu ? -1 : x->pu > y->pu;
}

/* Groups ci[0..n) into t. */
static void build_topo(struct topo *t, struct cpuinfo *ci, int n)
{
    qsort(ci, (size_t)n, sizeof *ci, cmp_cpuinfo);
    t->ncpu = n;
    t->cpus = xcalloc((size_t)n + 1, sizeof *t->cpus);
    t->cores = xcalloc((size_t)n + 1, sizeof *t->cores);
    t->ncores = 0;
    for (int i = 0; i < n; i++) {
        t->cpus[i] = ci[i].cpu;
        if (i == 0 || ci[i].core != ci[i - 1].core || ci[i].numa != ci[i - 1].numa) {
            struct tcore *c = &t->cores[t->ncores++];
            c->id = ci[i].id;
            c->numa = ci[i].numa;
            c->first = i;
        }
        t->cores[t->ncores - 1].ncpu++;
    }
}

/* Without hwloc: every CPU its own core, one NUMA node of unknown number. */
static void topo_plain(struct topo *t, const cpu_set_t *mask, size_t size)
{
    int max = (int)(size * 8), n = 0;
    struct cpuinfo *ci = xcalloc((size_t)CPU_COUNT_S(size, mask) + 1, sizeof *ci);
    for (int c = 0; c < max; c++)
        if (CPU_ISSET_S((size_t)c, size, mask)) {
            ci[n].cpu = c;
            ci[n].core = c;
            ci[n].id = -1;
            n++;
        }
    build_topo(t, ci, n);
    t->nnuma = 1;
    t->numa_id = xcalloc(1, sizeof *t->numa_id);
    t->numa_id[0] = -1;
    free(ci);
}

#ifdef SHOAL_HAVE_HWLOC
/* hwloc's topology of this machine (or HWLOC_SYNTHETIC's), or -1.
 * oshrun needs only the CPUs' topology, which hwloc's built-in components
 * find; its plugins (PCI, OpenCL, OpenGL, libxml2) would load libraries
 * like libX11 and libOpenCL into oshrun for nothing (and take 3 ms).  The
 * variable is changed around the init only (plugins load there): the PEs
 * get the environment as it was. */
static int hwloc_open(hwloc_topology_t *h)
{
    const char *pp = getenv("HWLOC_PLUGINS_PATH");
    char *saved = pp ? strdup(pp) : NULL;
    setenv("HWLOC_PLUGINS_PATH", "/dev/null", 1);
    int rc = hwloc_topology_init(h);
    if (saved)
        setenv("HWLOC_PLUGINS_PATH", saved, 1);
    else
        unsetenv("HWLOC_PLUGINS_PATH");
    free(saved);
    if (rc < 0)
        return -1;
    if (hwloc_topology_load(*h) < 0) {
        hwloc_topology_destroy(*h);
        return -1;
    }
    return 0;
}

/* A synthetic (what-if) topology: *mask becomes all of its CPUs.  -1 on
 * failure. */
static int whatif_mask(hwloc_topology_t h, cpu_set_t **mask, size_t *size)
{
    hwloc_const_cpuset_t all = hwloc_topology_get_allowed_cpuset(h);
    int last = hwloc_bitmap_last(all);
    if (last < 0 || last >= (1 << 22))
        return -1;
    size_t sz = CPU_ALLOC_SIZE(last + 1);
    if (sz < *size)
        sz = *size;
    cpu_set_t *m = CPU_ALLOC(sz * 8);
    if (!m)
        return -1;
    CPU_ZERO_S(sz, m);
    for (int c = hwloc_bitmap_first(all); c >= 0; c = hwloc_bitmap_next(all, c))
        CPU_SET_S((size_t)c, sz, m);
    CPU_FREE(*mask);
    *mask = m;
    *size = sz;
    return 0;
}

/* CPU c's PU, core and NUMA node (logical index; nn: none). */
static void describe_cpu(hwloc_topology_t h, int c, int nn, int ncore_objs, struct cpuinfo *ci)
{
    hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(h, (unsigned)c);
    hwloc_obj_t core = pu ? hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_CORE, pu) : NULL;
    /* A CPU hwloc does not know, or one without a core: a core of its own. */
    ci->cpu = c;
    ci->pu = pu ? (int)pu->logical_index : c;
    ci->core = core ? (int)core->logical_index : ncore_objs + c;
    ci->id = core ? (int)core->logical_index : -1;
    /* Its NUMA node: the first whose CPUs include it (memory-only nodes,
     * e.g. HBM or CXL, share a CPU set with a node that has CPUs and comes
     * first). */
    ci->numa = nn;
    for (int i = 0; i < nn; i++) {
        hwloc_obj_t node = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)i);
        if (node && node->cpuset && hwloc_bitmap_isset(node->cpuset, (unsigned)c)) {
            ci->numa = i;
            return;
        }
    }
}

/* Renumbers ci[].numa (logical index, nn: none) to ranks among the nodes
 * that have CPUs in the mask, and records their OS numbers in t. */
static void rank_numa(hwloc_topology_t h, struct topo *t, struct cpuinfo *ci, int n, int nn)
{
    int *present = xcalloc((size_t)nn + 2, sizeof *present);
    int *rank = xcalloc((size_t)nn + 2, sizeof *rank);
    for (int i = 0; i < n; i++)
        present[ci[i].numa] = 1;
    t->numa_id = xcalloc((size_t)nn + 2, sizeof *t->numa_id);
    t->nnuma = 0;
    for (int i = 0; i <= nn; i++)
        if (present[i]) {
            hwloc_obj_t node =
                i < nn ? hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)i) : NULL;
            t->numa_id[t->nnuma] = node ? (int)node->os_index : -1;
            rank[i] = t->nnuma++;
        }
    for (int i = 0; i < n; i++)
        ci[i].numa = rank[ci[i].numa];
    free(rank);
    free(present);
}

/* The topology of the CPUs in `mask` (or, for a synthetic topology, of all
 * its CPUs: *mask is then replaced).  Returns -1 if hwloc fails (the caller
 * falls back to topo_plain), 1 for a synthetic (what-if) topology, else 0. */
static int topo_hwloc(struct topo *t, cpu_set_t **mask, size_t *size)
{
    hwloc_topology_t h;
    if (hwloc_open(&h) < 0)
        return -1;
    const char *syn = getenv("HWLOC_SYNTHETIC");
    int whatif = syn && *syn && !hwloc_topology_is_thissystem(h);
    if (whatif && whatif_mask(h, mask, size) < 0) {
        hwloc_topology_destroy(h);
        return -1;
    }
    int max = (int)(*size * 8), n = 0;
    int nn = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE);
    int total = CPU_COUNT_S(*size, *mask);
    int ncore_objs = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE);
    struct cpuinfo *ci = xcalloc((size_t)total + 1, sizeof *ci);
    for (int c = 0; c < max && n < total; c++)
        if (CPU_ISSET_S((size_t)c, *size, *mask))
            describe_cpu(h, c, nn, ncore_objs, &ci[n++]);
    rank_numa(h, t, ci, n, nn);
    build_topo(t, ci, n);
    free(ci);
    hwloc_topology_destroy(h);
    return whatif;
}
#endif

/* ---- dividing it ---- */

static cpu_set_t *set_of(struct placement *pl, int pe)
{
    return (cpu_set_t *)(void *)(pl->sets + (size_t)pe * pl->setsize);
}

static void give_core(struct placement *pl, const struct topo *t, int pe, const struct tcore *c)
{
    for (int i = 0; i < c->ncpu; i++)
        CPU_SET_S((size_t)t->cpus[c->first + i], pl->setsize, set_of(pl, pe));
}

/* N <= C: k whole cores per PE, those of one NUMA node where possible. */
static void split_cores(struct placement *pl, struct topo *t, int k)
{
    int *freec = xcalloc((size_t)t->nnuma, sizeof *freec);
    for (int c = 0; c < t->ncores; c++) {
        t->cores[c].last = -1;
        freec[t->cores[c].numa]++;
    }
    for (int pe = 0; pe < pl->n; pe++) {
        int node = -1;
        for (int m = 0; m < t->nnuma && node < 0; m++)
            if (freec[m] >= k)
                node = m;
        int got = 0;
        for (int c = 0; c < t->ncores && got < k; c++) {
            struct tcore *co = &t->cores[c];
            if (co->last >= 0 || (node >= 0 && co->numa != node))
                continue;
            co->last = pe;
            freec[co->numa]--;
            give_core(pl, t, pe, co);
            got++;
        }
    }
    free(freec);
}

/* s CPUs per PE (s * N <= P).  A PE takes its CPUs from one NUMA node if
 * one has s CPUs on cores nobody uses yet, else from one that has s free
 * CPUs, else from anywhere; it completes a core it has started before it
 * takes another, and takes the core with the most free CPUs otherwise. */
static void split_cpus(struct placement *pl, struct topo *t, int s)
{
    int *clean = xcalloc((size_t)t->nnuma, sizeof *clean);
    int *freen = xcalloc((size_t)t->nnuma, sizeof *freen);
    for (int c = 0; c < t->ncores; c++) {
        t->cores[c].nfree = t->cores[c].ncpu;
        t->cores[c].last = -1;
    }
    for (int pe = 0; pe < pl->n; pe++) {
        memset(clean, 0, (size_t)t->nnuma * sizeof *clean);
        memset(freen, 0, (size_t)t->nnuma * sizeof *freen);
        for (int c = 0; c < t->ncores; c++) {
            const struct tcore *co = &t->cores[c];
            freen[co->numa] += co->nfree;
            if (co->nfree == co->ncpu)
                clean[co->numa] += co->ncpu;
        }
        int node = -1;
        for (int m = 0; m < t->nnuma && node < 0; m++)
            if (clean[m] >= s)
                node = m;
        for (int m = 0; m < t->nnuma && node < 0; m++)
            if (freen[m] >= s)
                node = m;
        for (int got = 0; got < s; got++) {
            struct tcore *best = NULL;
            for (int c = 0; c < t->ncores; c++) {
                struct tcore *co = &t->cores[c];
                if (co->nfree == 0 || (node >= 0 && co->numa != node))
                    continue;
                if (!best || (co->last == pe && best->last != pe) ||
                    (co->last != pe && best->last != pe && co->nfree > best->nfree))
                    best = co;
            }
            if (!best)
                break; /* cannot happen: s * N <= P */
            int cpu = t->cpus[best->first + best->ncpu - best->nfree];
            best->nfree--;
            best->last = pe;
            CPU_SET_S((size_t)cpu, pl->setsize, set_of(pl, pe));
        }
    }
    free(clean);
    free(freen);
}

/* --bind-to numa: PE i gets the (i mod nodes)-th NUMA node. */
static void split_numa(struct placement *pl, const struct topo *t)
{
    for (int pe = 0; pe < pl->n; pe++)
        for (int c = 0; c < t->ncores; c++)
            if (t->cores[c].numa == pe % t->nnuma)
                give_core(pl, t, pe, &t->cores[c]);
}

int placement_compute(struct placement *pl, const struct oshrun_opts *o, int n)
{
    memset(pl, 0, sizeof *pl);
    pl->n = n;
    if (o->bind == OSHRUN_BIND_NONE && !o->report_bindings)
        return 0; /* nothing to compute, nothing to say */
    pl->mask = read_mask(&pl->setsize);
    if (!pl->mask) {
        if (o->bind == OSHRUN_BIND_NONE) {
            snprintf(pl->why, sizeof pl->why, "--bind-to none");
            return 0;
        }
        msg("cannot read oshrun's CPU affinity mask: %s", strerror(errno));
        return -1;
    }
    struct topo t;
    memset(&t, 0, sizeof t);
    int r = -1;
#ifdef SHOAL_HAVE_HWLOC
    r = topo_hwloc(&t, &pl->mask, &pl->setsize);
    if (r < 0)
        msg("hwloc cannot read this machine's topology; dividing the CPUs as if each were "
            "a core of one NUMA node");
    else
        pl->topo_known = 1;
#endif
    if (r < 0)
        topo_plain(&t, pl->mask, pl->setsize);
    pl->whatif = r == 1;
    int P = t.ncpu, C = t.ncores;
    if (P == 0) {
        msg("oshrun's CPU affinity mask is empty");
        free(t.cpus);
        free(t.cores);
        free(t.numa_id);
        return -1;
    }

    /* For the reports: which core and NUMA node each CPU is on. */
    int max = (int)(pl->setsize * 8);
    pl->cpu_core = xcalloc((size_t)max, sizeof *pl->cpu_core);
    pl->cpu_numa = xcalloc((size_t)max, sizeof *pl->cpu_numa);
    pl->core_ncpu = xcalloc((size_t)C + 1, sizeof *pl->core_ncpu);
    pl->core_id = xcalloc((size_t)C + 1, sizeof *pl->core_id);
    pl->ncores = C;
    for (int i = 0; i < max; i++)
        pl->cpu_core[i] = pl->cpu_numa[i] = -1;
    for (int c = 0; c < C; c++) {
        const struct tcore *co = &t.cores[c];
        pl->core_ncpu[c] = co->ncpu;
        pl->core_id[c] = co->id;
        for (int i = 0; i < co->ncpu; i++) {
            pl->cpu_core[t.cpus[co->first + i]] = c;
            pl->cpu_numa[t.cpus[co->first + i]] = t.numa_id[co->numa];
        }
    }

    if (o->bind != OSHRUN_BIND_NONE)
        pl->sets = xcalloc((size_t)n, pl->setsize);
    if (o->bind == OSHRUN_BIND_NONE) {
        snprintf(pl->why, sizeof pl->why, "--bind-to none");
    } else if (o->bind == OSHRUN_BIND_NUMA) {
        split_numa(pl, &t);
        pl->bound = 1;
    } else if (o->cpus_per_pe > 0) {
        if ((long)o->cpus_per_pe * n > P) {
            snprintf(pl->why, sizeof pl->why,
                     "oversubscribed: %d PE%s x %d CPUs (--cpus-per-pe) > %d CPU%s", n,
                     n == 1 ? "" : "s", o->cpus_per_pe, P, P == 1 ? "" : "s");
        } else {
            split_cpus(pl, &t, o->cpus_per_pe);
            pl->bound = 1;
        }
    } else if (n <= C) {
        split_cores(pl, &t, C / n);
        pl->bound = 1;
    } else if (n <= P) {
        split_cpus(pl, &t, P / n);
        pl->bound = 1;
    } else {
        snprintf(pl->why, sizeof pl->why, "oversubscribed: %d PEs > %d CPU%s", n, P,
                 P == 1 ? "" : "s");
    }
    free(t.cpus);
    free(t.cores);
    free(t.numa_id);
    return 0;
}

int placement_apply(const struct placement *pl, int pe)
{
    if (!pl->bound || pl->whatif)
        return 0;
    return sched_setaffinity(
        0, pl->setsize, (const cpu_set_t *)(const void *)(pl->sets + (size_t)pe * pl->setsize));
}

/* ---- reporting ---- */

/* "0-3,8,10-11" of the ascending v[0..k) into b. */
static void fmt_list(char *b, size_t size, const int *v, int k)
{
    size_t off = 0;
    b[0] = 0;
    for (int i = 0; i < k && off + 1 < size;) {
        int j = i;
        while (j + 1 < k && v[j + 1] == v[j] + 1)
            j++;
        int w = j > i ? snprintf(b + off, size - off, "%s%d-%d", off ? "," : "", v[i], v[j])
                      : snprintf(b + off, size - off, "%s%d", off ? "," : "", v[i]);
        if (w < 0 || (size_t)w >= size - off) {
            b[off] = 0;
            break;
        }
        off += (size_t)w;
        i = j + 1;
    }
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* Sorts v[0..k) and drops repeats; returns the new k. */
static int uniq(int *v, int k)
{
    qsort(v, (size_t)k, sizeof *v, cmp_int);
    int m = 0;
    for (int i = 0; i < k; i++)
        if (m == 0 || v[i] != v[m - 1])
            v[m++] = v[i];
    return m;
}

/* "CPUs 0-3: cores 0-1 and part of core 2, NUMA node 0" for set s. */
static void describe(const struct placement *pl, const cpu_set_t *s, char *b, size_t size)
{
    int max = (int)(pl->setsize * 8), k = 0;
    int cnt = CPU_COUNT_S(pl->setsize, s);
    int *cpus = xcalloc((size_t)cnt + 1, sizeof *cpus);
    int *whole = xcalloc((size_t)cnt + 1, sizeof *whole);
    int *part = xcalloc((size_t)cnt + 1, sizeof *part);
    int *numa = xcalloc((size_t)cnt + 1, sizeof *numa);
    int *in = xcalloc((size_t)pl->ncores + 1, sizeof *in); /* CPUs of s per core */
    int nw = 0, np = 0, nn = 0;
    for (int c = 0; c < max && k < cnt; c++)
        if (CPU_ISSET_S((size_t)c, pl->setsize, s)) {
            cpus[k++] = c;
            if (pl->cpu_core[c] >= 0)
                in[pl->cpu_core[c]]++;
        }
    for (int i = 0; i < k; i++) {
        int co = pl->cpu_core[cpus[i]];
        if (pl->cpu_numa[cpus[i]] >= 0)
            numa[nn++] = pl->cpu_numa[cpus[i]];
        if (co < 0 || pl->core_id[co] < 0)
            continue;
        /* whole: every CPU of the core in oshrun's mask is in s */
        if (in[co] == pl->core_ncpu[co])
            whole[nw++] = pl->core_id[co];
        else
            part[np++] = pl->core_id[co];
    }
    free(in);
    nw = uniq(whole, nw);
    np = uniq(part, np);
    nn = uniq(numa, nn);
    char lc[512], lw[256], lp[256], ln[128];
    fmt_list(lc, sizeof lc, cpus, k);
    fmt_list(lw, sizeof lw, whole, nw);
    fmt_list(lp, sizeof lp, part, np);
    fmt_list(ln, sizeof ln, numa, nn);
    if (!pl->topo_known) {
        snprintf(b, size,
                 "CPU%s %s (cores and NUMA nodes unknown: oshrun was built without "
                 "hwloc)",
                 k == 1 ? "" : "s", lc);
    } else {
        char cores[600];
        if (nw && np)
            snprintf(cores, sizeof cores, "core%s %s and part of core%s %s", nw == 1 ? "" : "s", lw,
                     np == 1 ? "" : "s", lp);
        else if (nw)
            snprintf(cores, sizeof cores, "core%s %s", nw == 1 ? "" : "s", lw);
        else if (np)
            snprintf(cores, sizeof cores, "part of core%s %s", np == 1 ? "" : "s", lp);
        else
            snprintf(cores, sizeof cores, "cores unknown");
        /* (long lists are cut short: a report line is at most 2 KiB) */
        int w =
            nn ? snprintf(b, size, "CPU%s %s: %s, NUMA node%s %s", k == 1 ? "" : "s", lc, cores,
                          nn > 1 ? "s" : "", ln)
               : snprintf(b, size, "CPU%s %s: %s, NUMA node unknown", k == 1 ? "" : "s", lc, cores);
        if (w < 0)
            b[0] = 0;
    }
    free(cpus);
    free(whole);
    free(part);
    free(numa);
}

void placement_report(const struct placement *pl, int pe, long pid)
{
    char d[1024];
    if (!pl->mask) { /* --bind-to none, and the mask cannot be read */
        msg("PE %d (pid %ld) not bound (%s)", pe, pid, pl->why);
        return;
    }
    if (pl->bound) {
        describe(pl, (const cpu_set_t *)(const void *)(pl->sets + (size_t)pe * pl->setsize), d,
                 sizeof d);
        if (pl->whatif)
            msg("PE %d (pid %ld) not bound (HWLOC_SYNTHETIC describes another machine); "
                "would be bound to %s",
                pe, pid, d);
        else
            msg("PE %d (pid %ld) bound to %s", pe, pid, d);
    } else {
        describe(pl, pl->mask, d, sizeof d);
        msg("PE %d (pid %ld) not bound (%s): keeps oshrun's affinity mask, %s", pe, pid, pl->why,
            d);
    }
}

const char *placement_topology_source(void)
{
#ifdef SHOAL_HAVE_HWLOC
#ifdef HWLOC_VERSION
    return "hwloc " HWLOC_VERSION;
#else
    return "hwloc";
#endif
#else
    return NULL;
#endif
}

void placement_free(struct placement *pl)
{
    free(pl->sets);
    if (pl->mask)
        CPU_FREE(pl->mask);
    free(pl->cpu_core);
    free(pl->cpu_numa);
    free(pl->core_ncpu);
    free(pl->core_id);
    memset(pl, 0, sizeof *pl);
}
