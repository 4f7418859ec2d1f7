/* oshrun's command line.  Options come before the program; the first word
 * that is not an option (or everything after "--") is the program and its
 * arguments, up to a ":" alone, after which another block (-n, -x, a
 * program and its arguments) may follow, as mpirun's MPMD form has it.
 * Long options take "--opt value" or "--opt=value".  Every mistake names
 * the option and exits 2. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oshrun.h"

/* --cpus-per-pe's bound: more than any machine has (a larger share is
 * "oversubscribed" on every machine, not a usage error). */
#define OSHRUN_MAX_CPUS_PER_PE 1048576

#ifndef SHOAL_VERSION_STRING
#define SHOAL_VERSION_STRING "unknown"
#endif

static void usage(FILE *f)
{
    char topo[512];
    const char *src = placement_topology_source();
    if (src)
        snprintf(topo, sizeof topo,
                 "oshrun learns cores, hardware threads and NUMA nodes from %s.\n"
                 "With HWLOC_SYNTHETIC set (e.g. \"package:2 core:4 pu:2\"), it computes the\n"
                 "placement for that made-up machine (--report-bindings shows it) and starts\n"
                 "the PEs unbound.\n",
                 src);
    else
        snprintf(topo, sizeof topo,
                 "This oshrun was built without hwloc: it does not know cores, hardware\n"
                 "threads or NUMA nodes, and splits its affinity mask into contiguous equal\n"
                 "shares (--bind-to numa: one node).\n");
    fprintf(f,
            "usage: oshrun [options] program [args...]\n"
            "       oshrun [options] program [args...] : [-n N] [-x VAR[=value]] program "
            "[args...] ...\n"
            "Runs an OpenSHMEM program as N processing elements (PEs) on this machine.\n"
            "\n"
            "  -n N, -np N          number of PEs (default 1)\n"
            "  --tag-output         prefix every line a PE prints with \"[pe N] \"\n"
            "                       (stdout and stderr; lines are never mixed)\n"
            "  --bind-to core|numa|none\n"
            "                       where each PE runs, within the CPUs oshrun may use\n"
            "                       (its affinity mask; CPU = hardware thread):\n"
            "                       core (default): an equal, disjoint share per PE:\n"
            "                       cores / PEs whole cores, of one NUMA node where\n"
            "                       possible; with more PEs than cores, CPUs / PEs\n"
            "                       hardware threads, distinct cores first; with more\n"
            "                       PEs than CPUs (oversubscribed) no binding;\n"
            "                       numa: PE i gets the i-th NUMA node (round robin);\n"
            "                       none: every PE keeps oshrun's affinity mask\n"
            "  --cpus-per-pe N      with --bind-to core: N CPUs (hardware threads) per\n"
            "                       PE, whole cores first; no binding if N x PEs is more\n"
            "                       than the CPUs oshrun may use\n"
            "  --report-bindings    one line per PE on stderr: its pid, its CPUs, and\n"
            "                       the cores and NUMA node(s) they belong to\n"
            "  -x VAR[=value]       set VAR in the PEs' environment (all of oshrun's\n"
            "                       environment is passed on anyway)\n"
            "  --timeout SECONDS    end the job after SECONDS; exit status 124 (every PE\n"
            "                       first prints where it waits inside Shoal)\n"
            "  --dump-on-hang SECONDS\n"
            "                       after SECONDS, every PE prints where it waits inside\n"
            "                       Shoal; the job goes on (SIGQUIT to oshrun does the same)\n"
            "  --oversubscribe, --allow-run-as-root\n"
            "                       accepted and ignored (for scripts written for mpirun)\n"
            "  -h, --help           this text\n"
            "  -V, --version        oshrun's version\n"
            "\n"
            "%s"
            "\n"
            "Blocks separated by \":\" (MPMD) start one after the other's PEs: PEs 0 to\n"
            "N1-1 run the first block's program and arguments, the next N2 the second's,\n"
            "and so on.  A later block takes -n and -x only (its -x for its own PEs; the\n"
            "first block's options are the whole job's).  Every PE must run the same\n"
            "program (shmem_init checks it); the blocks may give it different arguments.\n"
            "\n"
            "stdin goes to PE 0; the other PEs read /dev/null.  When a PE fails (is\n"
            "killed by a signal, exits non-zero, exits before shmem_finalize, or calls\n"
            "abort), oshrun says which PE failed and how, terminates the others within a\n"
            "second and exits with the failed PE's status (128+N for signal N).\n"
            "shmem_global_exit(status) ends the job with status.  Ctrl-C ends the whole\n"
            "job (exit 130).  127: the program cannot be executed.  2: bad options.\n",
            topo);
}

__attribute__((format(printf, 1, 2))) static int bad(const char *fmt, ...)
{
    char m[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    fprintf(stderr, "oshrun: %s (try 'oshrun --help')\n", m);
    return 2;
}

/* v as a whole number of 1 to max_digits decimal digits, or -1. */
static long whole_number(const char *v, size_t max_digits)
{
    long n = 0;
    if (*v == 0 || strlen(v) > max_digits)
        return -1;
    for (const char *p = v; *p; p++) {
        if (!isdigit((unsigned char)*p))
            return -1;
        n = n * 10 + (*p - '0');
    }
    return n;
}

static int parse_np(const char *opt, const char *v, int *out)
{
    long n = whole_number(v, 6);
    if (n < 1 || n > OSHRUN_MAX_PES) {
        char lim[128];
        snprintf(lim, sizeof lim, "%d", OSHRUN_MAX_PES);
        fprintf(stderr, "oshrun: %s '%s': the number of PEs must be a whole number from 1 to %s\n",
                opt, v, lim);
        return 2;
    }
    *out = (int)n;
    return 0;
}

static int valid_var_name(const char *s, size_t len)
{
    if (len == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < len; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return 0;
    return 1;
}

static int is_np(const char *name)
{
    return !strcmp(name, "-n") || !strcmp(name, "-np") || !strcmp(name, "--np") ||
           !strcmp(name, "--n");
}

static int is_time(const char *name)
{
    return !strcmp(name, "--timeout") || !strcmp(name, "--dump-on-hang");
}

static int takes_value(const char *name)
{
    return is_np(name) || is_time(name) || !strcmp(name, "--bind-to") || !strcmp(name, "-x") ||
           !strcmp(name, "--cpus-per-pe");
}

/* What a missing value should have been. */
static const char *value_hint(const char *name)
{
    return !strcmp(name, "--bind-to")       ? " (core, numa or none)"
           : !strcmp(name, "--cpus-per-pe") ? " (a number of CPUs)"
           : !strcmp(name, "-x")            ? " (VAR or VAR=value)"
           : is_time(name)                  ? " (seconds)"
                                            : " (the number of PEs)";
}

static int parse_bind(const char *val, struct oshrun_opts *o)
{
    if (!strcmp(val, "core"))
        o->bind = OSHRUN_BIND_CORE;
    else if (!strcmp(val, "numa"))
        o->bind = OSHRUN_BIND_NUMA;
    else if (!strcmp(val, "none"))
        o->bind = OSHRUN_BIND_NONE;
    else
        return bad("--bind-to '%s': expected 'core', 'numa' or 'none'", val);
    return 0;
}

static int parse_cpus(const char *val, struct oshrun_opts *o)
{
    long n = whole_number(val, 7);
    if (n < 1 || n > OSHRUN_MAX_CPUS_PER_PE)
        return bad("--cpus-per-pe '%s': expected a whole number of CPUs from 1 to %d", val,
                   OSHRUN_MAX_CPUS_PER_PE);
    o->cpus_per_pe = (int)n;
    return 0;
}

static int parse_xvar(const char *val, struct oshrun_opts *o)
{
    const char *e = strchr(val, '=');
    size_t nl = e ? (size_t)(e - val) : strlen(val);
    if (!valid_var_name(val, nl))
        return bad("-x '%s': expected VAR or VAR=value, VAR made of letters, digits and '_'", val);
    o->xvars[o->nx++] = (char *)val;
    return 0;
}

static int parse_seconds(const char *name, const char *val, struct oshrun_opts *o)
{
    char *end;
    double t = strtod(val, &end);
    if (end == val || *end || !isfinite(t) || t <= 0 || t > 1e8)
        return bad("%s '%s': expected a positive number of seconds", name, val);
    if (!strcmp(name, "--timeout"))
        o->timeout = t;
    else
        o->dump_after = t;
    return 0;
}

/* One option (arg as given, name without "=value", its value or "").
 * 0, or what opts_parse returns: 1 (done: help, version), 2 (bad). */
static int apply_option(struct oshrun_opts *o, const char *arg, const char *name, const char *val)
{
    if (is_time(name))
        return parse_seconds(name, val, o);
    if (!strcmp(name, "--bind-to"))
        return parse_bind(val, o);
    if (!strcmp(name, "--cpus-per-pe"))
        return parse_cpus(val, o);
    if (!strcmp(name, "-x"))
        return parse_xvar(val, o);
    if (!strcmp(name, "--tag-output")) {
        o->tag_output = 1;
    } else if (!strcmp(name, "--report-bindings")) {
        o->report_bindings = 1;
    } else if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
        usage(stdout);
        return 1;
    } else if (!strcmp(name, "-V") || !strcmp(name, "--version")) {
        printf("oshrun (Shoal) %s\n", SHOAL_VERSION_STRING);
        return 1;
    } else if (strcmp(name, "--oversubscribe") && strcmp(name, "--allow-run-as-root")) {
        /* (those two: one node, no slot accounting; root is fine) */
        return bad("unknown option '%s'", arg);
    }
    return 0;
}

/* Options a later block (after ":") takes: its PE count and variables. */
static int block_option(const char *name)
{
    return is_np(name) || !strcmp(name, "-x");
}

/* The options of block b from argv[*i], up to its program.  0, or what
 * opts_parse returns. */
static int parse_options(int argc, char **argv, int *i, struct oshrun_opts *o, int b)
{
    for (; *i < argc; (*i)++) {
        const char *a = argv[*i];
        if (a[0] != '-' || a[1] == 0)
            return 0; /* the program ("-" alone is a program name too) */
        if (!strcmp(a, "--")) {
            (*i)++;
            return 0;
        }
        /* "--opt=value" */
        char name[64];
        const char *inl = NULL;
        const char *eq = strchr(a, '=');
        if (a[1] == '-' && eq && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = 0;
            inl = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", a);
        }
        if (b > 0 && !block_option(name))
            return bad("'%s' after ':' (program %d): a later program takes -n and -x only; "
                       "options of the whole job go before the first program",
                       a, b + 1);
        const char *val = "";
        if (takes_value(name)) {
            if (inl)
                val = inl;
            else if (*i + 1 < argc && strcmp(argv[*i + 1], ":"))
                val = argv[++(*i)];
            else
                return bad("option '%s' needs a value%s", name, value_hint(name));
        } else if (inl) {
            return bad("option '%s' takes no value", name);
        }
        int r = is_np(name) ? parse_np(name, val, &o->blocks[b].np) : apply_option(o, a, name, val);
        if (r)
            return r;
    }
    return 0;
}

/* Block b: its options, then its program and arguments up to ":" (NULL
 * written over it) or the end.  0, or what opts_parse returns. */
static int parse_block(int argc, char **argv, int *i, struct oshrun_opts *o, int b)
{
    struct oshrun_block *bl = &o->blocks[b];
    bl->np = 1;
    bl->x0 = o->nx;
    int r = parse_options(argc, argv, i, o, b);
    if (r)
        return r;
    bl->nx = o->nx - bl->x0;
    if (*i >= argc || !strcmp(argv[*i], ":"))
        return b == 0 ? bad("no program given (usage: oshrun [options] program [args...])")
                      : bad("no program given after ':' (program %d)", b + 1);
    bl->argv = argv + *i;
    while (*i < argc && strcmp(argv[*i], ":"))
        (*i)++;
    if (*i < argc)
        argv[(*i)++] = NULL;
    return 0;
}

int opts_parse(int argc, char **argv, struct oshrun_opts *o)
{
    memset(o, 0, sizeof *o);
    o->xvars = xcalloc((size_t)argc + 1, sizeof *o->xvars);
    o->blocks = xcalloc((size_t)argc, sizeof *o->blocks);
    int i = 1;
    long total = 0;
    do {
        int r = parse_block(argc, argv, &i, o, o->nblocks);
        if (r)
            return r;
        total += o->blocks[o->nblocks++].np;
    } while (i < argc);
    if (argv[argc - 1] == NULL) /* a ":" with nothing after it */
        return bad("no program given after the last ':'");
    if (total > OSHRUN_MAX_PES)
        return bad("%ld PEs in all: at most %d", total, OSHRUN_MAX_PES);
    o->np = (int)total;
    if (o->cpus_per_pe && o->bind != OSHRUN_BIND_CORE)
        return bad("--cpus-per-pe %d: only with --bind-to core (here: --bind-to %s)",
                   o->cpus_per_pe, o->bind == OSHRUN_BIND_NUMA ? "numa" : "none");
    return 0;
}

void opts_free(struct oshrun_opts *o)
{
    free(o->xvars);
    free(o->blocks);
}
