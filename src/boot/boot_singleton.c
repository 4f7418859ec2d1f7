/* Singleton bootstrap: a program started without a launcher is PE 0 of a
 * job of one.  Collectives are local copies; the job id is "single-<pid>". */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot.h"

static int single_allgather(const void *in, void *out, size_t len)
{
    if (len && in != out)
        memmove(out, in, len);
    return 0;
}

static int single_barrier(void)
{
    return 0;
}

static void single_finalize(void) {}

/* The caller has printed its message already; there is nobody to tell. */
static _Noreturn void single_abort(int status, const char *reason)
{
    (void)reason;
    _exit(status);
}

/* The caller runs exit(status) next. */
static void single_global_exit(int status)
{
    (void)status;
}

int shoal_boot_singleton_open(struct shoal_boot *b, char *errbuf, size_t errlen)
{
    (void)errbuf;
    (void)errlen;
    /* Unique on this node while the process lives (a singleton maps no
     * peer, but the name must not collide with anything else). */
    static char jobid[32];
    snprintf(jobid, sizeof jobid, "single-%ld", (long)getpid());
    b->name = "singleton";
    b->channel = "no launcher";
    b->jobid = jobid;
    b->rank = 0;
    b->size = 1;
    b->allgather = single_allgather;
    b->barrier = single_barrier;
    b->finalize = single_finalize;
    b->abort = single_abort;
    b->global_exit = single_global_exit;
    b->leave = shoal_boot_leave_ended;
    return 0;
}
