/* What a waiting thread learns where its PE's threads oversubscribe the
 * CPUs (core/waiting/wait_learn.c): the spin each wait gets from the
 * outcomes of earlier waits and yields, thread by thread. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/waiting/wait.h"
#include "core/waiting/wait_learn.h"
#include "core/waiting/wait_policy.h"

/* wait_record.c's answer: another thread of the PE that waits in Shoal
 * at times is outside a wait. */
static int others_working;
int shoal_wait_record_others_working(void)
{
    return others_working;
}

/* wait_policy.c's last look: threads of the PE that run outside Shoal's
 * waits (compute threads). */
struct shoal_wait_policy shoal_wait_p = {.computing = 1};

#define LONG_SPIN SHOAL_LEARN_LONG_SPIN_NS
#define SLOW 300000u /* a yield that kept the thread off its CPU this long */

static int failures;
#define CHECK(c, ...)                                       \
    do {                                                    \
        if (!(c)) {                                         \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                   \
            fprintf(stderr, "\n");                          \
            failures++;                                     \
        }                                                   \
    } while (0)

static struct shoal_wait_phase learning = {.spin_ns = 0,
                                           .yield_ns = 50000,
                                           .check_every = 1,
                                           .learn =
                                               SHOAL_LEARN_SHORT_SPIN | SHOAL_LEARN_SLOW_YIELDS};
static struct shoal_wait_phase yields_only = {
    .spin_ns = 0, .yield_ns = 50000, .check_every = 1, .learn = SHOAL_LEARN_SLOW_YIELDS};

/* This thread's waits so far (wait_learn.c counts them too, for its
 * probes: every 32nd wait). */
static __thread unsigned n_waits;

static void learn_choose(struct shoal_waiter *w)
{
    n_waits++;
    shoal_learn_choose(w);
}

/* Whether the last wait chosen sleeps after its spin, without yielding. */
static int last_sleeps_now;

/* One wait's choice in `ph`: its spin, and whether its outcome is learned. */
static uint64_t choose(struct shoal_wait_phase *ph, int *adapting)
{
    struct shoal_waiter w = {.phase = ph, .spin_ns = ph->spin_ns};
    learn_choose(&w);
    *adapting = w.adapting;
    last_sleeps_now = w.sleep_now;
    return w.spin_ns;
}

/* A wait that ends within its short spin (it was learning it). */
static void wait_ends_in_spin(struct shoal_wait_phase *ph)
{
    struct shoal_waiter w = {.phase = ph, .spin_ns = ph->spin_ns};
    learn_choose(&w);
    w.adapting = 1; /* as if the choice had been the short spin */
    shoal_learn_done(&w);
}

static void yield_took(uint64_t ns)
{
    shoal_learn_yielded(shoal_now_ns() - ns);
}

/* Waits up to a probe (every 32nd wait): the next wait is not one. */
static void pass_probe(struct shoal_wait_phase *ph)
{
    int a;
    while (n_waits % 32 != 0)
        choose(ph, &a);
}

static void *fresh_thread(void *arg)
{
    int *out = arg, a;
    /* Another thread's learning does not carry over: it starts afresh. */
    out[0] = (int)(choose(&learning, &a) / 1000);
    out[1] = a;
    return NULL;
}

int main(void)
{
    int a, probes = 0;

    /* A new thread starts with the short spin on; the first wait that
     * outlasts it turns it off. */
    {
        struct shoal_waiter w = {.phase = &learning};
        learn_choose(&w);
        CHECK(w.spin_ns == SHOAL_LEARN_SHORT_SPIN_NS && w.adapting,
              "a new thread's first wait: spin %llu, adapting %d", (unsigned long long)w.spin_ns,
              w.adapting);
        shoal_learn_spin_failed(&w);
    }
    pass_probe(&learning);

    /* Nothing learned: every wait yields at once, but every 32nd probes
     * the short spin. */
    for (int i = 0; i < 64; i++) {
        uint64_t s = choose(&learning, &a);
        CHECK(s == (a ? SHOAL_LEARN_SHORT_SPIN_NS : 0), "wait %d: spin %llu, adapting %d", i,
              (unsigned long long)s, a);
        probes += a;
    }
    CHECK(probes == 2, "64 waits probed the short spin %d times, want 2", probes);

    /* Waits that end within the short spin: from the 4th on, every wait
     * spins it. */
    for (int i = 0; i < 4; i++)
        wait_ends_in_spin(&learning);
    CHECK(choose(&learning, &a) == SHOAL_LEARN_SHORT_SPIN_NS && a,
          "after 4 waits that ended in the spin, a wait should spin %u ns",
          SHOAL_LEARN_SHORT_SPIN_NS);
    /* One that had to give the CPU away after the spin: back to yielding. */
    {
        struct shoal_waiter w = {.phase = &learning};
        learn_choose(&w);
        CHECK(w.adapting, "the learned spin should be on");
        shoal_learn_spin_failed(&w);
        CHECK(!w.adapting, "a failed spin is no longer learning");
    }
    pass_probe(&learning);
    CHECK(choose(&learning, &a) == 0 && !a, "after a failed spin a wait should yield at once");

    CHECK(!last_sleeps_now, "without slow yields a wait yields before it sleeps");

    /* Yields that are slow again and again while a sibling that waits in
     * Shoal at times is busy outside a wait: it may be computing what this
     * wait is for, so no long spin; the wait gives the CPU away by
     * sleeping, not yielding (a yield would hand it to a thread that
     * keeps it), except every 32nd, which yields to look. */
    others_working = 1;
    yield_took(SLOW);
    yield_took(SLOW);
    int sleeps_now = 0;
    for (int i = 0; i < 64; i++) {
        CHECK(choose(&learning, &a) != LONG_SPIN, "a sibling works, wait %d: long spin", i);
        sleeps_now += last_sleeps_now;
    }
    CHECK(sleeps_now == 62, "slow yields, a sibling works: %d of 64 waits sleep at once, want 62",
          sleeps_now);
    for (int i = 0; i < 8; i++)
        yield_took(1000);
    others_working = 0;
    pass_probe(&learning);
    choose(&learning, &a);
    CHECK(!last_sleeps_now, "after quick yields a wait yields again before it sleeps");

    /* A yield that kept the thread off its CPU for a time slice: the
     * waits spin a time slice before they yield, without learning the
     * short spin; every 32nd yields again to look.  One slow yield is not
     * enough to stop yielding after the spin. */
    yield_took(SLOW);
    int long_spins = 0, looks = 0;
    sleeps_now = 0;
    for (int i = 0; i < 64; i++) {
        uint64_t s = choose(&learning, &a);
        long_spins += s == LONG_SPIN && !a;
        looks += s != LONG_SPIN;
        sleeps_now += last_sleeps_now;
    }
    CHECK(long_spins == 62 && looks == 2 && sleeps_now == 0,
          "after a slow yield: %d long spins, %d looks, %d waits that sleep at once (want 62, 2, "
          "0)",
          long_spins, looks, sleeps_now);
    /* Quick yields take it back: one is enough after a single slow one. */
    yield_took(1000);
    pass_probe(&learning);
    CHECK(choose(&learning, &a) != LONG_SPIN, "after a quick yield the long spin should be off");
    /* Several slow yields need as many quick ones (x4) to undo. */
    yield_took(SLOW);
    yield_took(SLOW);
    for (int i = 0; i < 4; i++)
        yield_took(1000);
    pass_probe(&learning);
    CHECK(choose(&learning, &a) == LONG_SPIN, "2 slow yields, 4 quick: still spinning");
    for (int i = 0; i < 4; i++)
        yield_took(1000);
    pass_probe(&learning);
    CHECK(choose(&learning, &a) != LONG_SPIN, "2 slow yields, 8 quick: the long spin is off");

    /* Two slow yields without the quick ones between: a wait whose long
     * spin runs out sleeps without yielding; the looks yield. */
    yield_took(SLOW);
    yield_took(SLOW);
    sleeps_now = 0;
    for (int i = 0; i < 64; i++) {
        uint64_t s = choose(&learning, &a);
        sleeps_now += last_sleeps_now;
        CHECK(last_sleeps_now == (s == LONG_SPIN),
              "after 2 slow yields, wait %d: spin %llu, sleeps at once %d (a long spin that runs "
              "out sleeps; a look yields)",
              i, (unsigned long long)s, last_sleeps_now);
    }
    CHECK(sleeps_now == 62, "after 2 slow yields: %d of 64 waits sleep at once, want 62",
          sleeps_now);

    /* The same where no thread of the PE computes outside Shoal (the slow
     * yields went to other waiters): the long spin, then a yield, never a
     * sleep at once. */
    shoal_wait_p.computing = 0;
    sleeps_now = 0;
    for (int i = 0; i < 64; i++) {
        choose(&learning, &a);
        sleeps_now += last_sleeps_now;
    }
    CHECK(sleeps_now == 0, "slow yields, no compute thread: %d of 64 waits sleep at once, want 0",
          sleeps_now);
    shoal_wait_p.computing = 1;

    /* While yields are slow only the looks (every 32nd wait) yield: a
     * look's quick yield weighs as much as a slow one. */
    pass_probe(&learning); /* the last wait chosen is a look */
    yield_took(1000);
    uint64_t spin = choose(&learning, &a);
    CHECK(spin == LONG_SPIN && !last_sleeps_now,
          "2 slow yields, a look with a quick yield: spin %llu, sleeps at once %d (want the "
          "long spin, then a yield)",
          (unsigned long long)spin, last_sleeps_now);
    pass_probe(&learning);
    yield_took(1000);
    CHECK(choose(&learning, &a) != LONG_SPIN && !last_sleeps_now,
          "2 slow yields, 2 looks with a quick yield: the rule should be off");

    /* A phase that allows only the slow-yield rule never spins briefly. */
    for (int i = 0; i < 4; i++)
        wait_ends_in_spin(&learning);
    for (int i = 0; i < 64; i++) {
        uint64_t s = choose(&yields_only, &a);
        CHECK(s == 0 && !a, "yields_only phase, wait %d: spin %llu adapting %d", i,
              (unsigned long long)s, a);
    }

    /* A phase that learns only the short spin never skips its yields,
     * however slow they were. */
    static struct shoal_wait_phase spins_only = {
        .spin_ns = 0, .yield_ns = 50000, .check_every = 1, .learn = SHOAL_LEARN_SHORT_SPIN};
    yield_took(SLOW);
    for (int i = 0; i < 64; i++) {
        choose(&spins_only, &a);
        CHECK(!last_sleeps_now, "spins_only phase, wait %d: sleeps without yielding", i);
    }
    for (int i = 0; i < 4; i++)
        yield_took(1000);

    /* Scores are per thread. */
    yield_took(SLOW);
    int got[2] = {-1, -1};
    pthread_t t;
    if (pthread_create(&t, NULL, fresh_thread, got) != 0 || pthread_join(t, NULL) != 0) {
        fprintf(stderr, "pthread_create failed\n");
        return 1;
    }
    CHECK(got[0] == (int)(SHOAL_LEARN_SHORT_SPIN_NS / 1000) && got[1] == 1,
          "a new thread's first wait: spin %d us, adapting %d (its own scores: the short "
          "spin on, no slow yields)",
          got[0], got[1]);
    pass_probe(&learning);
    CHECK(choose(&learning, &a) == LONG_SPIN, "this thread's slow yield still counts");

    if (failures)
        fprintf(stderr, "test_wait_learn: %d failure(s)\n", failures);
    else
        printf("test_wait_learn: ok\n");
    return failures != 0;
}
