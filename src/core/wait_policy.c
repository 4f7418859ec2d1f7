/* The waiting policy from the placement (wait_policy.h). */
#include "core/wait_policy.h"

#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "core/doorbell.h"
#include "core/env.h"
#include "core/state.h"

struct shoal_wait_policy shoal_wait_p = {
    .spin_ns = 50000, .yield_ns = 50000, .sleep_ns = 1000000, .check_every = 64};

void shoal_wait_publish_placement(void)
{
    cpu_set_t set;
    struct shoal_ctl *c = shoal_my_ctl();
    memset(c->cpu_mask, 0, sizeof c->cpu_mask);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return; /* cpu_mask_cpus stays 0: unknown, counted as every CPU */
    int n = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && cpu < 64 * SHOAL_CPU_MASK_WORDS; cpu++)
        if (CPU_ISSET(cpu, &set)) {
            c->cpu_mask[cpu / 64] |= 1ull << (cpu % 64);
            n++;
        }
    __atomic_store_n(&c->cpu_mask_cpus, n, __ATOMIC_RELEASE);
}

/* CPUs in the union of the masks of the PEs this PE maps (the others on
 * this node, under SHOAL_TRANSPORTS=ucx, count as having this PE's). */
static int node_cpus(int *mine)
{
    uint64_t u[SHOAL_CPU_MASK_WORDS] = {0};
    const struct shoal_ctl *me = shoal_my_ctl();
    *mine = me->cpu_mask_cpus;
    if (*mine == 0)
        return (int)sysconf(_SC_NPROCESSORS_ONLN);
    for (int pe = 0; pe < shoal_g.n_pes; pe++) {
        int slot = shoal_slot(pe);
        const struct shoal_ctl *c = slot >= 0 ? shoal_ctl_of_slot(slot) : me;
        if (pe != shoal_g.my_pe && slot < 0)
            continue;
        if (__atomic_load_n(&c->cpu_mask_cpus, __ATOMIC_ACQUIRE) == 0)
            return (int)sysconf(_SC_NPROCESSORS_ONLN);
        for (int w = 0; w < SHOAL_CPU_MASK_WORDS; w++)
            u[w] |= c->cpu_mask[w];
    }
    int n = 0;
    for (int w = 0; w < SHOAL_CPU_MASK_WORDS; w++)
        n += __builtin_popcountll(u[w]);
    return n;
}

void shoal_wait_policy_init(const struct shoal_config *cfg)
{
    struct shoal_wait_policy *p = &shoal_wait_p;
    p->node_pes = shoal_g.n_local;
    p->node_cpus = node_cpus(&p->my_cpus);
    p->forced = cfg->wait_policy;
    p->oversubscribed = cfg->wait_policy == 2 ||
                        (cfg->wait_policy == 0 && p->node_pes > p->node_cpus);
    p->never_sleep = cfg->wait_policy == 1;
    long spin_us = cfg->wait_spin_us >= 0 ? cfg->wait_spin_us : p->oversubscribed ? 2 : 10000;
    p->spin_ns = (uint64_t)spin_us * 1000u;
    /* Oversubscribed: give the CPU away for a while before sleeping (a
     * yield is cheaper than a futex round trip when the peer runs soon). */
    p->yield_ns = p->oversubscribed ? 50000 : 0;
    p->check_every = p->oversubscribed ? 1 : 64;
    long sleep_us = cfg->wait_sleep_max_us > 0 ? cfg->wait_sleep_max_us
                    : shoal_doorbell_exact()   ? 100000
                                               : 1000;
    p->sleep_ns = sleep_us * 1000;
}

void shoal_wait_describe(FILE *f, const char *prefix)
{
    const struct shoal_wait_policy *p = &shoal_wait_p;
    if (shoal_g.init_count == 0) {
        fprintf(f, "%sWaiting: decided at init from the PEs' CPU affinity (SHOAL_WAIT_POLICY)\n",
                prefix);
        return;
    }
    const char *why = p->forced == 1   ? "SHOAL_WAIT_POLICY=spin"
                      : p->forced == 2 ? "SHOAL_WAIT_POLICY=sleep"
                      : p->oversubscribed
                          ? "oversubscribed: more PEs on this node than CPUs in their masks"
                          : "the PEs fit the CPUs of their masks";
    if (p->never_sleep)
        fprintf(f, "%sWaiting: spin with pause, never sleep (%s)\n", prefix, why);
    else
        fprintf(f,
                "%sWaiting: spin %llu us,%s then sleep on the doorbell (%s)\n", prefix,
                (unsigned long long)(p->spin_ns / 1000),
                p->yield_ns ? " yield 50 us," : "", why);
    fprintf(f,
            "%sPlacement: %d PEs on this node, %d CPUs in the union of their affinity masks, "
            "%d in this PE's\n",
            prefix, p->node_pes, p->node_cpus, p->my_cpus);
    fprintf(f, "%sWake-ups: %s; a sleep re-checks after %ld us at most\n", prefix,
            shoal_doorbell_exact() ? "exact (membarrier: a write wakes a sleeper at most once "
                                     "per sleep, none is lost)"
                                   : "best effort (no membarrier: short sleeps bound a missed "
                                     "wake-up)",
            p->sleep_ns / 1000);
}
