/* Recording wrappers around the bootstrap's collective calls
 * (boot_wait.h).  A bootstrap call waits for every PE at once, on no word
 * of this PE's memory; without a record a PE in it looked idle, or (its
 * record's word empty) blocked in a network request. */
#include "core/boot_wait.h"

#include <stdio.h>

#include "boot/boot.h"
#include "core/waiting/wait_record.h"

static int (*real_allgather)(const void *in, void *out, size_t len);
static int (*real_barrier)(void);
/* The report's texts.  A record knows a text by its address (it copies a
 * text into the page the first time only), so each routine's text has a
 * buffer of its own: init's and finalize's, and two to spare. */
#define ROUTINES 4
static struct {
    const char *fn;
    char what[SHOAL_HANG_TEXT_MAX];
} routines[ROUTINES];
static int routine = -1; /* routines[routine] calls the bootstrap now; -1: none */
static char barrier_via[SHOAL_HANG_TEXT_MAX], allgather_via[SHOAL_HANG_TEXT_MAX];

void shoal_boot_wait_routine(const char *fn)
{
    routine = -1;
    if (!fn)
        return;
    int i = 0;
    while (i < ROUTINES - 1 && routines[i].fn && routines[i].fn != fn)
        i++;
    if (routines[i].fn != fn) { /* the last slot is overwritten past the table */
        routines[i].fn = fn;
        snprintf(routines[i].what, sizeof routines[i].what, "every PE to get this far in %s", fn);
    }
    routine = i;
}

static void wait_begin(const char *via)
{
    if (routine >= 0)
        shoal_wait_boot_begin(routines[routine].fn, routines[routine].what, via);
    else
        shoal_wait_boot_begin("a SHMEM_DEBUG check", "every PE to make the same call", via);
}

static int recorded_allgather(const void *in, void *out, size_t len)
{
    wait_begin(allgather_via);
    int rc = real_allgather(in, out, len);
    shoal_wait_boot_end();
    return rc;
}

static int recorded_barrier(void)
{
    wait_begin(barrier_via);
    int rc = real_barrier();
    shoal_wait_boot_end();
    return rc;
}

void shoal_boot_wait_wrap(struct shoal_boot *b)
{
    if (b->barrier == recorded_barrier)
        return;
    const char *channel = b->channel ? b->channel : "the launcher";
    snprintf(barrier_via, sizeof barrier_via, "the bootstrap barrier, through %s", channel);
    snprintf(allgather_via, sizeof allgather_via, "the bootstrap allgather, through %s", channel);
    real_allgather = b->allgather;
    real_barrier = b->barrier;
    b->allgather = recorded_allgather;
    b->barrier = recorded_barrier;
}
