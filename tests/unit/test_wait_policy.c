/* The waiting policy's look at the placement (core/waiting/wait_policy.c),
 * on a made-up PE: PE 0 of 2 on a machine of 2 CPUs, whose other PE is a
 * pretend node of its own (not mapped, reached through the network).
 *   - The other PE's running threads count with this PE's: they share the
 *     CPUs.  The test makes that PE's pid its own, so what is counted there
 *     is this process's threads again.
 *   - A wait that has spun a while where the threads fitted looks again (a
 *     job's first look is often made before its threads exist), at most
 *     once per SHOAL_WAIT_RELOOK_NS; a wait that begins looks every 50 ms.
 *   - Once the threads oversubscribed the CPUs, looks that see them fit
 *     change nothing for half a second. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/config/env.h"
#include "core/config/log.h"
#include "core/state.h"
#include "core/waiting/wait.h"
#include "core/waiting/wait_policy.h"
#include "transport/net.h"

/* What wait_policy.c needs from the rest of Shoal. */
struct shoal_state shoal_g;
unsigned char shoal_log_levels[SHOAL_LOG_NCAT];
void shoal_log_write(int cat, int level, const char *fmt, ...)
{
    (void)cat;
    (void)level;
    (void)fmt;
}
/* net.h's calls go through the chosen transport's table: one whose only
 * call here says that no thread is the transport's. */
static int no_helper_thread(const char *name, size_t len)
{
    (void)name;
    (void)len;
    return 0;
}
static const struct shoal_net_ops stub_net = {.name = "stub", .helper_thread = no_helper_thread};
const struct shoal_net_ops *shoal_net_ops = &stub_net;
/* wait_record.c: no thread is in a wait here, so every running thread but
 * the looking one computes. */
int shoal_wait_record_tid_waiting(int tid)
{
    (void)tid;
    return 0;
}

int shoal_doorbell_exact(void)
{
    return 1;
}

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

#define MS 1000000ull

static volatile int spinning = 1;
static void *spin(void *arg)
{
    (void)arg;
    while (spinning)
        ;
    return NULL;
}

static const char *name_of(const struct shoal_wait_phase *ph)
{
    const struct shoal_wait_policy *p = &shoal_wait_p;
    return ph == &p->fit            ? "fits"
           : ph == &p->over_threads ? "over_threads"
           : ph == &p->over         ? "over (PEs)"
                                    : "?";
}

static void make_pe(struct shoal_ctl *ctl, int *slot_of_pe, long *pids)
{
    shoal_g.n_pes = 2;
    shoal_g.my_pe = 0;
    shoal_g.n_local = 1; /* PE 1 is a pretend node of its own: not mapped */
    shoal_g.n_host = 2;
    shoal_g.net_active = 1;
    shoal_g.init_count = 1;
    slot_of_pe[0] = 0;
    slot_of_pe[1] = -1;
    shoal_g.slot_of_pe = slot_of_pe;
    pids[0] = pids[1] = (long)getpid();
    shoal_g.peer_pid = pids;
    shoal_g.heap_region = shoal_g.heap_me = (char *)ctl;
    shoal_g.heap_stride = sizeof *ctl;
    shoal_wait_publish_placement();
    struct shoal_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.wait_spin_us = -1;
    cfg.wait_sleep_max_us = -1;
    shoal_wait_policy_init(&cfg);
    shoal_wait_p.node_cpus = 2; /* whatever this machine has */
}

int main(void)
{
    struct shoal_ctl *ctl = aligned_alloc(4096, (sizeof(struct shoal_ctl) + 4095) / 4096 * 4096);
    int slot_of_pe[2];
    long pids[2];
    memset(ctl, 0, sizeof *ctl);
    make_pe(ctl, slot_of_pe, pids);
    const struct shoal_wait_policy *p = &shoal_wait_p;

    /* This thread alone, counted here and as PE 1: 2 threads on 2 CPUs. */
    const uint64_t t0 = shoal_now_ns();
    const struct shoal_wait_phase *ph = shoal_wait_phase_now(t0);
    CHECK(ph == &p->fit && p->node_running == 2,
          "one thread per PE: phase %s, %d running threads (want fits, 2)", name_of(ph),
          p->node_running);

    /* A second thread starts: 2 here and 2 on PE 1, on 2 CPUs. */
    pthread_t t;
    if (pthread_create(&t, NULL, spin, NULL) != 0) {
        fprintf(stderr, "pthread_create failed\n");
        return 1;
    }
    ph = shoal_wait_phase_now(t0 + 10 * MS);
    CHECK(ph == &p->fit, "a wait 10 ms after the look: phase %s, want the last decision (fits)",
          name_of(ph));
    ph = shoal_wait_phase_relook(t0 + SHOAL_WAIT_RELOOK_NS / 2);
    CHECK(ph == &p->fit, "a fitting spin half a relook after the look: %s, want fits (no look)",
          name_of(ph));
    ph = shoal_wait_phase_relook(t0 + SHOAL_WAIT_RELOOK_NS);
    CHECK(ph == &p->over_threads && p->node_running == 4,
          "a fitting spin a relook after the look: phase %s, %d running threads (want "
          "over_threads, 4: PE 1's threads count)",
          name_of(ph), p->node_running);
    CHECK(p->computing == 1,
          "the spinning thread runs outside a wait: %d threads compute (want 1: not the looking "
          "one)",
          p->computing);

    /* PE 1's pid unknown here (another PID namespace): it counts one.  3
     * threads on 3 CPUs fit, but a PE that saw its threads oversubscribe
     * the CPUs keeps that for half a second of looks that see them fit
     * (threads that take turns may all be asleep at one look). */
    pids[1] = -1;
    shoal_wait_p.node_cpus = 3;
    ph = shoal_wait_phase_now(t0 + 100 * MS);
    CHECK(ph == &p->over_threads && p->node_running == 3,
          "PE 1's pid unknown, 0.1 s after the CPUs were oversubscribed: phase %s, %d running "
          "threads (want over_threads kept, 3)",
          name_of(ph), p->node_running);
    ph = shoal_wait_phase_now(t0 + 600 * MS);
    CHECK(ph == &p->fit && p->node_running == 3,
          "PE 1's pid unknown, 0.6 s after: phase %s, %d running threads (want fits, 3 on 3 "
          "CPUs)",
          name_of(ph), p->node_running);
    pids[1] = (long)getpid();
    ph = shoal_wait_phase_now(t0 + 700 * MS);
    CHECK(ph == &p->over_threads && p->node_running == 4,
          "PE 1's pid known again: phase %s, %d running threads (want over_threads, 4)",
          name_of(ph), p->node_running);

    spinning = 0;
    pthread_join(t, NULL);
    free(ctl);
    if (failures)
        fprintf(stderr, "test_wait_policy: %d failure(s)\n", failures);
    else
        printf("test_wait_policy: ok\n");
    return failures != 0;
}
