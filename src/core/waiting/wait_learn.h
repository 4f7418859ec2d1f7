/* What a thread learns from its own waits in the phase where threads, not
 * PEs, oversubscribe the CPUs (wait_policy.h, over_threads): the PEs fit,
 * so a thread's partner is often a thread of another PE that runs on
 * another CPU (a yield then costs both a switch per message), or the CPUs
 * are shared with the program's compute threads (a yield then hands the
 * CPU to one of them for its whole time slice, 0.75 ms or more).  Yielding
 * pays only where the threads that share this CPU wait too: they give it
 * back at once, and the one waited for may run.  Each thread keeps two
 * scores (wait_learn.c) and picks each wait's spin from them.  Called by
 * wait.c only. */
#ifndef SHOAL_CORE_WAIT_LEARN_H
#define SHOAL_CORE_WAIT_LEARN_H
#include <stdint.h>

struct shoal_waiter;

/* The spin of a wait that begins to block in a learning phase: sets
 * w->spin_ns and what the wait's outcome teaches. */
void shoal_learn_choose(struct shoal_waiter *w);
/* The wait ran out of its short spin: it gives the CPU away after all. */
void shoal_learn_spin_failed(struct shoal_waiter *w);
/* The wait ended (within its short spin, if it was still learning that). */
void shoal_learn_done(struct shoal_waiter *w);
/* A sched_yield of this thread, begun at `before_ns`, has returned. */
void shoal_learn_yielded(uint64_t before_ns);
#endif
