/* A sleeping waiter's short time slice (wait_slice.c).  Where compute
 * threads hold the CPUs (a thread's yields are slow, wait_learn.h), the
 * thread that a write wakes must preempt the compute thread on its CPU at
 * once: with the scheduler's default slice, Linux's EEVDF lets the running
 * thread finish its protected slice first, and a compute thread is only
 * stopped at a tick (every 4 ms at HZ=250).  A thread whose slice is
 * shorter than the running thread's preempts it when it wakes (Linux 6.12
 * and later: sched_attr.sched_runtime of a SCHED_OTHER thread, no
 * privilege needed; its share of the CPU does not change).  In
 * bench/hybrid_pingpong (4 communication threads per PE beside 2 compute
 * threads, 2 PEs on 2 cores) a round trip took 0.89 ms with it, 2.2 ms
 * without.  The wait asks for it before it sleeps and gives the thread's
 * own slice back when it ends, so the program's thread keeps its own
 * outside Shoal.  A kernel without custom slices, a thread of another
 * policy (SCHED_FIFO, SCHED_BATCH...) or one that cannot be changed is
 * left as it is.  Called by wait.c only. */
#ifndef SHOAL_CORE_WAIT_SLICE_H
#define SHOAL_CORE_WAIT_SLICE_H

struct shoal_waiter;

/* The slice a sleeping waiter asks for: the kernel's shortest. */
#define SHOAL_WAIT_SHORT_SLICE_NS 100000u

/* Before a sleep: the calling thread's slice made short (sets
 * w->short_slice when it changed it). */
void shoal_slice_shorten(struct shoal_waiter *w);
/* At the wait's end (w->short_slice set): the thread's own slice back. */
void shoal_slice_restore(struct shoal_waiter *w);
#endif
