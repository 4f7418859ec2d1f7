/* oshrun starts a program that links Shoal without UCX's wait after each
 * start-up patch (UCX_MEM_BISTRO_GRACE_DURATION=0, UCX 1.21 and later:
 * tools/oshrun/ucx_start.c), unless the user set the variable, and Shoal
 * gives UCX its grace back when it starts UCX (ucp_init), for later patches.
 *
 *   ucx_start oshrun        oshrun chose: 0 at start, UCX's 50 ms after init
 *                           (older UCX: neither variable is set)
 *   ucx_start user SECONDS  the user set it: kept, at start and after init
 *
 * Run with SHOAL_TRANSPORTS=ucx so that shmem_init starts UCX.  Prints what
 * it saw; exits 1 on the first mismatch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>
#include <ucp/api/ucp.h>
#if UCP_API_VERSION >= UCP_VERSION(1, 21)
#include <ucm/api/ucm.h>
#define HAVE_GRACE 1
#define GRACE() ucm_global_opts.bistro_grace_duration
#else
#define HAVE_GRACE 0
#define GRACE() -1.0
#endif

static int bad(const char *what, const char *saw, const char *want)
{
    printf("FAIL: %s is '%s', want '%s'\n", what, saw ? saw : "(unset)", want ? want : "(unset)");
    return 1;
}

static int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static int check_grace(const char *when, double want)
{
    if (!HAVE_GRACE) {
        printf("UCX grace %s: not a setting of this UCX\n", when);
        return 0;
    }
    printf("UCX grace %s: %g s (want %g)\n", when, GRACE(), want);
    if (GRACE() < want - 1e-9 || GRACE() > want + 1e-9) {
        printf("FAIL: UCX's bistro grace %s is %g s, want %g\n", when, GRACE(), want);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    const char *grace = getenv("UCX_MEM_BISTRO_GRACE_DURATION");
    const char *mark = getenv("SHOAL_OSHRUN_UCX_GRACE");
    int by_oshrun = !strcmp(mode, "oshrun");
    if (!by_oshrun && (strcmp(mode, "user") || argc < 3)) {
        fprintf(stderr, "usage: ucx_start oshrun | user SECONDS\n");
        return 2;
    }
    const char *want_grace = by_oshrun ? (HAVE_GRACE ? "0" : NULL) : getenv("TEST_USER_GRACE");
    const char *want_mark = by_oshrun && HAVE_GRACE ? "1" : NULL;
    printf("UCX %s: UCX_MEM_BISTRO_GRACE_DURATION=%s SHOAL_OSHRUN_UCX_GRACE=%s\n",
           ucp_get_version_string(), grace ? grace : "(unset)", mark ? mark : "(unset)");
    if (!same(grace, want_grace))
        return bad("UCX_MEM_BISTRO_GRACE_DURATION", grace, want_grace);
    if (!same(mark, want_mark))
        return bad("SHOAL_OSHRUN_UCX_GRACE", mark, want_mark);
    double user = by_oshrun ? 0 : atof(argv[2]);
    if (check_grace("at start", user))
        return 1;
    shmem_init();
    int rc = check_grace("after shmem_init", by_oshrun ? 0.05 : user);
    shmem_finalize();
    return rc;
}
