/* What a thread learns from its own waits where its PE's threads, not the
 * PEs, oversubscribe the CPUs (wait_policy.h's over_threads phase, whose
 * `learn` names what it allows; where PEs oversubscribe, nothing is
 * learned: the awaited PE mostly waits for this CPU, so a spin delays it):
 *   slow yields  a yield that keeps the thread off its CPU for 200 us or
 *                more (a time slice is 0.75 ms or more) went to a thread
 *                that does not wait, such as the program's compute
 *                threads; yielding
 *                pays only where the threads that share the CPU wait too
 *                (they give it back at once, and the one waited for may
 *                run), so where yields are slow the thread spins instead,
 *                unless another thread of its PE that waits in Shoal at
 *                times is busy outside a wait (it may be computing what
 *                this wait is for, on this CPU); and when it gives the
 *                CPU away beside threads that compute outside Shoal, it
 *                sleeps without yielding (a yield would lose
 *                the CPU until the compute thread's slice ends, a sleep
 *                ends at the write that wakes it: wait_slice.h);
 *   short spin   where only threads oversubscribe (the PEs fit), a
 *                thread's partner is often a thread of another PE running
 *                on another CPU, whose answer a short spin catches.
 * Each thread keeps a score for each (wait_learn.c) and picks each wait's
 * spin from them.  Called by wait.c only. */
#ifndef SHOAL_CORE_WAIT_LEARN_H
#define SHOAL_CORE_WAIT_LEARN_H
#include <stdint.h>

struct shoal_waiter;

/* The learned spins: the short one catches a partner running on another
 * CPU; the long one lasts about a time slice, the wait a partner behind
 * a compute thread may need (past it, the thread yields and sleeps as
 * usual: a spinning waiter takes its CPU share from the threads that
 * work). */
#define SHOAL_LEARN_SHORT_SPIN_NS 2000u
#define SHOAL_LEARN_LONG_SPIN_NS 1000000u

/* The spin of a wait that begins to block in a learning phase: sets
 * w->spin_ns, w->sleep_now and what the wait's outcome teaches. */
void shoal_learn_choose(struct shoal_waiter *w);
/* The wait ran out of its short spin: it gives the CPU away after all. */
void shoal_learn_spin_failed(struct shoal_waiter *w);
/* The wait ended within its learned short spin (w->adapting still set;
 * called only then). */
void shoal_learn_done(struct shoal_waiter *w);
/* A sched_yield of this thread, begun at `before_ns`, has returned. */
void shoal_learn_yielded(uint64_t before_ns);
#endif
