/* oshrun's command line.  Options come before the program; the first word
 * that is not an option (or everything after "--") is the program and its
 * arguments.  Long options take "--opt value" or "--opt=value".  Every
 * mistake names the option and exits 2. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oshrun.h"

#ifndef SHOAL_VERSION_STRING
#define SHOAL_VERSION_STRING "unknown"
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "usage: oshrun [options] program [args...]\n"
            "Runs an OpenSHMEM program as N processing elements (PEs) on this machine.\n"
            "\n"
            "  -n N, -np N          number of PEs (default 1)\n"
            "  --tag-output         prefix every line a PE prints with \"[pe N] \"\n"
            "                       (stdout and stderr; lines are never mixed)\n"
            "  --bind-to core|none  core: pin PE i to the i-th CPU of oshrun's CPU set\n"
            "                       (modulo its size); none (default): no pinning\n"
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
            "stdin goes to PE 0; the other PEs read /dev/null.  When a PE fails (is\n"
            "killed by a signal, exits non-zero, exits before shmem_finalize, or calls\n"
            "abort), oshrun says which PE failed and how, terminates the others within a\n"
            "second and exits with the failed PE's status (128+N for signal N).\n"
            "shmem_global_exit(status) ends the job with status.  Ctrl-C ends the whole\n"
            "job (exit 130).  127: the program cannot be executed.  2: bad options.\n");
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

static int parse_np(const char *opt, const char *v, int *out)
{
    long n = 0;
    int ok = *v != 0 && strlen(v) <= 6;
    for (const char *p = v; ok && *p; p++) {
        if (!isdigit((unsigned char)*p))
            ok = 0;
        else
            n = n * 10 + (*p - '0');
    }
    if (!ok || n < 1 || n > OSHRUN_MAX_PES) {
        char lim[128];
        snprintf(lim, sizeof lim, "%d", OSHRUN_MAX_PES);
        fprintf(stderr,
                "oshrun: %s '%s': the number of PEs must be a whole number from 1 to %s\n", opt,
                v, lim);
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

int opts_parse(int argc, char **argv, struct oshrun_opts *o)
{
    memset(o, 0, sizeof *o);
    o->np = 1;
    o->xvars = xcalloc((size_t)argc + 1, sizeof *o->xvars);
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == 0)
            break; /* the program ("-" alone is a program name too) */
        if (!strcmp(a, "--")) {
            i++;
            break;
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
        int takes_value = !strcmp(name, "-n") || !strcmp(name, "-np") ||
                          !strcmp(name, "--np") || !strcmp(name, "--n") ||
                          !strcmp(name, "--bind-to") || !strcmp(name, "-x") ||
                          !strcmp(name, "--timeout") || !strcmp(name, "--dump-on-hang");
        const char *val = "";
        if (takes_value) {
            if (inl) {
                val = inl;
            } else if (i + 1 < argc) {
                val = argv[++i];
            } else {
                return bad("option '%s' needs a value%s", name,
                           !strcmp(name, "--bind-to") ? " (core or none)"
                           : !strcmp(name, "-x")      ? " (VAR or VAR=value)"
                           : !strcmp(name, "--timeout") || !strcmp(name, "--dump-on-hang")
                               ? " (seconds)"
                                                        : " (the number of PEs)");
            }
        } else if (inl) {
            return bad("option '%s' takes no value", name);
        }

        if (!strcmp(name, "-n") || !strcmp(name, "-np") || !strcmp(name, "--np") ||
            !strcmp(name, "--n")) {
            if (parse_np(name, val, &o->np))
                return 2;
        } else if (!strcmp(name, "--tag-output")) {
            o->tag_output = 1;
        } else if (!strcmp(name, "--bind-to")) {
            if (!strcmp(val, "core"))
                o->bind_core = 1;
            else if (!strcmp(val, "none"))
                o->bind_core = 0;
            else
                return bad("--bind-to '%s': expected 'core' or 'none'", val);
        } else if (!strcmp(name, "-x")) {
            const char *e = strchr(val, '=');
            size_t nl = e ? (size_t)(e - val) : strlen(val);
            if (!valid_var_name(val, nl))
                return bad("-x '%s': expected VAR or VAR=value, VAR made of letters, digits "
                           "and '_'",
                           val);
            o->xvars[o->nx++] = (char *)val;
        } else if (!strcmp(name, "--timeout") || !strcmp(name, "--dump-on-hang")) {
            char *end;
            double t = strtod(val, &end);
            if (end == val || *end || !isfinite(t) || t <= 0 || t > 1e8)
                return bad("%s '%s': expected a positive number of seconds", name, val);
            if (!strcmp(name, "--timeout"))
                o->timeout = t;
            else
                o->dump_after = t;
        } else if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(name, "-V") || !strcmp(name, "--version")) {
            printf("oshrun (Shoal) %s\n", SHOAL_VERSION_STRING);
            return 1;
        } else if (!strcmp(name, "--oversubscribe") || !strcmp(name, "--allow-run-as-root")) {
            /* one node, no slot accounting; root is fine */
        } else {
            return bad("unknown option '%s'", a);
        }
    }
    if (i >= argc)
        return bad("no program given (usage: oshrun [options] program [args...])");
    o->prog_argv = argv + i;
    return 0;
}
