/* Per-thread learning of the over_threads phase (wait_learn.h).
 *
 * Short spin: a score of the waits that ended within a
 * SHOAL_LEARN_SHORT_SPIN_NS spin (+1) or gave the CPU away after it
 * (-SPIN_FAIL).  From SPIN_SCORE_ON a wait spins that long first; below,
 * every PROBE_EVERY-th wait does, to notice a change.
 *
 * Slow yields: a yield that kept this thread off the CPU for SLOW_YIELD_NS
 * or more went to a thread that does not wait (a waiter gives the CPU back
 * within its short spin) and adds SLOW_ADD; a quick one takes 1 off, or
 * SLOW_ADD in a probe (below).  At SLEEP_SCORE_ON (yields slow again and
 * again), where the PE's last look at the placement found threads running
 * outside Shoal's waits (compute threads; wait_policy.h), a wait that gives
 * its CPU away sleeps without yielding (where the slow yields went to other
 * waiters, as in mt_latency's 4 threads per PE on 2 cores, a sleep at once
 * cost 2-4x the latency of a yield): beside
 * compute threads a yield costs up to a time slice, to the next tick
 * (bench/hybrid_pingpong, 4 communication threads per PE ping-pong beside
 * 2 compute threads, 2 PEs on 2 cores: 22.7 ms per round trip yielding,
 * then sleeping; 0.79 ms sleeping at once, with a short slice,
 * wait_slice.h).  From SLOW_SCORE_ON already, one slow yield, it cost the
 * same threads 20 us per round trip, against 1.8-2.0, with the compute
 * threads parked: a yield that another job's thread made slow had them
 * sleep where yielding pays.  Every PROBE_EVERY-th wait yields again
 * to look, and as only the probes yield while the rule holds, a probe's
 * quick yield weighs as much as a slow one.  From SLOW_SCORE_ON a wait
 * spins SHOAL_LEARN_LONG_SPIN_NS before it gives the CPU away:
 * with 2 PEs on 2 cores and one busy compute thread per PE
 * (bench/busy_threads), a ping-pong took 1336 us yielding (a time slice
 * each time) and 0.3-0.4 us spinning; threads of 2 PEs in pairs
 * (mt_latency) 1.5 us and 0.15-0.6.  Every PROBE_EVERY-th wait yields
 * again, to notice the compute threads leave.  Not while another thread
 * of this PE that waits in Shoal at times is outside a wait (wait
 * records): that one may be computing what this wait is for, on this
 * CPU, and giving the CPU away lets it run.  That does not cover a
 * producer thread of the same PE that is itself in a wait when its
 * consumer needs the CPU: a consumer/producer pair per PE, 500 us per
 * item, took 1.6-3.4 ms per item always yielding and 2.7-6.0 with this
 * learning. */
#include "core/waiting/wait_learn.h"

#include "core/waiting/wait.h"
#include "core/waiting/wait_policy.h"
#include "core/waiting/wait_record.h"

#define SCORE_MAX 8
#define SPIN_SCORE_ON 4
#define SPIN_FAIL 4
#define SLOW_YIELD_NS 200000u
#define SLOW_SCORE_ON 4
#define SLOW_ADD 4
#define SLEEP_SCORE_ON SCORE_MAX
#define PROBE_EVERY 32u

/* A new thread starts with the short spin on (a short job would otherwise
 * measure mostly the learning: 4 successful probes, one per PROBE_EVERY
 * waits); the first wait that outlasts it turns it off. */
static __thread int spin_score = SPIN_SCORE_ON, slow_score;
static __thread unsigned waits;
/* This wait is a probe of yields that were slow: it alone yields. */
static __thread int probing;

void shoal_learn_choose(struct shoal_waiter *w)
{
    const unsigned learn = w->phase->learn;
    const int probe = ++waits % PROBE_EVERY == 0;
    const int slow_known = (learn & SHOAL_LEARN_SLOW_YIELDS) && slow_score >= SLOW_SCORE_ON;
    const int slow = slow_known && !probe;
    probing = slow_known && probe;
    /* Only beside threads that compute outside Shoal: where the slow yields
     * went to other waiters (mt_latency, 4 threads per PE ping-pong on 2
     * cores), sleeping costs a wake-up per wait. */
    w->sleep_now = slow && slow_score >= SLEEP_SCORE_ON &&
                   __atomic_load_n(&shoal_wait_p.computing, __ATOMIC_RELAXED) > 0;
    if (slow && !shoal_wait_record_others_working()) {
        w->spin_ns = SHOAL_LEARN_LONG_SPIN_NS;
        return;
    }
    if ((learn & SHOAL_LEARN_SHORT_SPIN) && (spin_score >= SPIN_SCORE_ON || probe)) {
        w->spin_ns = SHOAL_LEARN_SHORT_SPIN_NS;
        w->adapting = 1;
    }
}

void shoal_learn_spin_failed(struct shoal_waiter *w)
{
    w->adapting = 0;
    spin_score = spin_score > SPIN_FAIL ? spin_score - SPIN_FAIL : 0;
}

void shoal_learn_done(struct shoal_waiter *w)
{
    (void)w;
    spin_score += spin_score < SCORE_MAX;
}

void shoal_learn_yielded(uint64_t before_ns)
{
    if (shoal_now_ns() - before_ns >= SLOW_YIELD_NS)
        slow_score = slow_score + SLOW_ADD < SCORE_MAX ? slow_score + SLOW_ADD : SCORE_MAX;
    else if (slow_score > 0)
        slow_score = probing && slow_score > SLOW_ADD ? slow_score - SLOW_ADD
                     : probing                        ? 0
                                                      : slow_score - 1;
}
