/* Library life cycle.  Init and finalize nest (OpenSHMEM 1.6): each init
 * needs a matching finalize; inner finalizes act as shmem_barrier_all and
 * only the last one tears down.  A program that returns from main without
 * finalizing (or calls exit(0)) is finalized implicitly (deprecated, still
 * required); a program that exits non-zero is not, and the launcher takes
 * the job down.
 *
 * The last finalize synchronizes through the bootstrap, never through the
 * counters of shmem_barrier_all: a PE that leaves early (exit(0) before
 * the others' barrier) must not be able to complete a user's collective on
 * their behalf.  It completes its operations, says in its ctl block that
 * it left (peers still waiting for it in a collective then report the
 * mismatch instead of hanging, core/waiting/wait.c), and waits in the bootstrap
 * barrier, which keeps its network transport serving the others. */
#include "core/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot.h"
#include "core/teams/sync.h"
#include "core/ctx.h"
#include "core/config/env.h"
#include "core/config/error.h"
#include "core/ext_hooks.h"
#include "core/memory/heap.h"
#include "transport/net.h"
#include "core/ops.h"
#include "core/memory/segments.h"
#include "core/teams/team.h"
#include "core/config/log.h"
#include "core/boot_wait.h"
#include "core/net_link.h"
#include "core/profile/profile.h"
#include "core/waiting/wait.h"
#include "core/waiting/wait_policy.h"
#include "core/memory/pe_card.h"
#include "core/waiting/peer_check.h"
#include "core/waiting/peer_reach.h"
#include "core/waiting/wait_record.h"

static struct shoal_boot boot;
static struct shoal_config cfg;
static int exiting_globally;
static int on_exit_registered;
static int finalizing_at_exit;

static void implicit_finalize(int status, void *arg)
{
    (void)arg;
    if (shoal_g.init_count == 0 || shoal_g.finalized || exiting_globally)
        return;
    if (status != 0)
        return; /* the launcher sees the failure and ends the job */
    shoal_g.init_count = 1;
    finalizing_at_exit = 1;
    shoal_runtime_finalize("shmem_finalize (implicit, at exit)");
}

/* Runs while a bootstrap call waits (boot.h): what this PE owes its peers
 * over the network keeps moving, and a peer's shmem_global_exit ends this
 * PE there too (a launcher that leaves each PE to end itself would
 * otherwise wait for one in a bootstrap barrier forever). */
static uint64_t boot_wait_since; /* the bootstrap wait under way began */

static void boot_progress(void)
{
    if (shoal_g.net_active)
        shoal_net_progress();
    shoal_global_exit_notice();
    if (boot_wait_since)
        shoal_peer_check_all(boot_wait_since);
}

static int fail_init(const char *fn, const char *msg)
{
    fprintf(stderr, "shoal: %s: %s\n", fn, msg);
    fflush(stderr);
    return -1;
}

/* A nested init: on-node nothing depends on the level but the context
 * pool lock, so a higher level can be granted at any time. */
static void init_again(int requested, int *provided)
{
    shoal_g.init_count++;
    if (requested > shoal_g.thread_level) {
        __atomic_store_n(&shoal_g.thread_level, requested, __ATOMIC_SEQ_CST);
        if (shoal_g.net_active)
            shoal_net_set_thread_level(requested);
    }
    if (provided)
        *provided = shoal_g.thread_level;
}

/* The bootstrap and the environment; -1 (reported) when either fails. */
static int init_boot_env(const char *fn)
{
    char err[512];
    /* Before the launcher knows us: it may then ask where we wait. */
    shoal_wait_report_install();
    if (shoal_boot_open(&boot, err, sizeof err) < 0)
        return fail_init(fn, err);
    shoal_boot_wait_wrap(&boot);
    shoal_boot_wait_routine(fn);
    /* The layers may log while their variables load: with this PE's number
     * and the clock of this init. */
    shoal_g.my_pe = boot.rank;
    shoal_log_start();
    if (shoal_env_load(&cfg, err, sizeof err) < 0) {
        /* Every PE sees the same environment: say it once, and let nobody
         * leave (and be reported by the launcher) before it is said. */
        if (boot.rank == 0)
            fail_init(fn, err);
        boot.barrier();
        return -1;
    }
    return 0;
}

/* A layer that could not be set up ends the job: its peers are setting up
 * with it, and only the bootstrap can tell them. */
static void init_failed(const char *fn, const char *err, const char *what)
{
    if (err) {
        fprintf(stderr, "shoal: PE %d: %s: %s\n", boot.rank, fn, err);
        fflush(stderr);
    }
    boot.abort(1, what);
}

/* Memory, network, teams and contexts, from the lowest layer up. */
static void init_layers(const char *fn)
{
    char err[512];
    shoal_g.owner_pid = (long)getpid();
    shoal_g.peer_timeout_ns = (uint64_t)cfg.peer_timeout_s * 1000000000u;
    /* Where this PE's host answers for it, told to the peers with its card
     * (core/waiting/peer_reach.h): only where a network may serve them. */
    struct pe_reach reach = {0};
    if (cfg.net_mode != SHOAL_NET_OFF)
        shoal_reach_listen(&reach);
    if (shoal_segments_setup(&boot, cfg.symmetric_size, cfg.net_mode == SHOAL_NET_ALL,
                             cfg.split_nodes, &reach, err, sizeof err) < 0)
        init_failed(fn, err, "symmetric memory setup failed");
    if (shoal_g.n_local == shoal_g.n_pes && cfg.net_mode != SHOAL_NET_ALL)
        shoal_reach_close(); /* nobody to watch through the network */
    else if (shoal_reach_start(shoal_g.n_pes) < 0)
        init_failed(fn, "out of memory", "out of memory");
    if (shoal_heap_setup() < 0)
        init_failed(fn, NULL, "out of memory");
    /* Collective: every PE calls it, whether or not it has remote peers. */
    if (shoal_net_link(&boot, &cfg, err, sizeof err) < 0)
        init_failed(fn, err, "network transport setup failed");
    shoal_teams_init();
    /* Writers must be registered for the waiters' fence before anyone can
     * write to a peer (after the bootstrap barrier). */
    shoal_doorbell_init();
    shoal_wait_publish_placement();
    shoal_ctx_init_default();
    shoal_ext_init(); /* the extensions' hooks (core/ext_hooks.h) */
    if (shoal_g.net_active && shoal_net_ctx_open(&shoal_ctx_default.net, 1, 0, 0, fn) < 0)
        init_failed(fn, NULL, "network transport: no resources for the default context");
    if (shoal_g.net_active || boot.leave != shoal_boot_leave_ended)
        shoal_boot_set_progress(boot_progress);
}

/* SHMEM_VERSION / SHMEM_INFO, printed once (PE 0). */
static void init_announce(void)
{
    if (shoal_g.my_pe != 0 || !(cfg.version || cfg.info))
        return;
    if (cfg.info)
        shoal_print_info(stdout);
    else
        printf("%s\n", SHMEM_VENDOR_STRING);
    fflush(stdout);
}

int shoal_runtime_init(int requested, int *provided, const char *fn)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
        char m[128];
        snprintf(m, sizeof m, "argument 'requested' = %d is not a SHMEM_THREAD_* level", requested);
        return fail_init(fn, m);
    }
    if (shoal_g.init_count > 0) {
        init_again(requested, provided);
        return 0;
    }
    if (shoal_g.finalized)
        return fail_init(fn, "the library cannot be initialized again after its last "
                             "shmem_finalize");
    if (init_boot_env(fn) < 0)
        return -1;
    shoal_g.debug = cfg.debug;
    shoal_g.slow = cfg.debug;
    shoal_g.boot = &boot;
    shoal_g.n_pes = boot.size;
    shoal_g.thread_level = requested;
    init_layers(fn);
    shoal_g.init_count = 1;

    /* Nobody writes to a peer before every peer has mapped everything. */
    if (boot.barrier() < 0)
        init_failed(fn, NULL, "bootstrap barrier failed");
    SHOAL_LOG(SHOAL_LOG_BOOT, SHOAL_LOG_INFO,
              "%s: PE %d of %d (%d on this node), bootstrap %s, thread level %d, heap %zu bytes",
              fn, boot.rank, boot.size, shoal_g.n_local, boot.name, shoal_g.thread_level,
              shoal_g.user_heap_size);
    shoal_wait_policy_init(&cfg); /* every local PE's placement is published */
    if (!on_exit_registered) {
        on_exit(implicit_finalize, NULL);
        on_exit_registered = 1;
    }
    init_announce();
    if (cfg.profile[0])
        shoal_prof_start(cfg.profile);
    shoal_boot_wait_routine(NULL);
    if (provided)
        *provided = shoal_g.thread_level;
    return 0;
}

void shoal_runtime_finalize(const char *fn)
{
    if (shoal_g.init_count == 0 || shoal_g.finalized)
        return; /* finalize without init: nothing to release */
    if (shoal_g.init_count > 1) {
        shoal_g.init_count--;
        shoal_barrier_all_internal(fn);
        return;
    }
    SHOAL_LOG(SHOAL_LOG_BOOT, SHOAL_LOG_INFO, "%s%s", fn,
              finalizing_at_exit ? " (no shmem_finalize was called: at exit)" : "");
    shoal_boot_wait_routine(fn);
    shoal_prof_stop();
    shoal_quiet(SHMEM_CTX_DEFAULT, fn);
    shoal_ctx_quiet_all(fn);
    if (shoal_ctx_default.net)
        shoal_net_flush_signals(shoal_ctx_default.net, fn);
    __atomic_store_n(&shoal_my_ctl()->leaving,
                     finalizing_at_exit ? SHOAL_LEFT_EXIT : SHOAL_LEFT_FINALIZE, __ATOMIC_SEQ_CST);
    if (shoal_g.net_active)
        shoal_net_leaving();
    shoal_g.boot->finalize();
    /* Every PE's operations are complete once all are past this barrier,
     * and no PE unmaps its memory while another may still use it. */
    boot_wait_since = shoal_now_ns();
    if (shoal_g.boot->barrier() < 0)
        shoal_g.boot->abort(1, "shmem_finalize: bootstrap barrier failed");
    boot_wait_since = 0;
    shoal_group_msgs_left(-1, fn);
    shoal_prof_finish(shoal_g.boot);
    shoal_ext_fini();
    if (shoal_g.net_active) {
        shoal_net_ctx_close(shoal_ctx_default.net);
        shoal_ctx_default.net = NULL;
        shoal_ctx_release_net();
        shoal_net_fini();
    }
    shoal_reach_close();
    shoal_boot_set_progress(NULL);
    shoal_ext_teardown();
    shoal_ctx_teardown();
    shoal_heap_teardown();
    shoal_segments_teardown();
    shoal_teams_fini();
    shoal_g.init_count = 0;
    shoal_g.finalized = 1;
}

/* shmem_global_exit(status): every PE's word says so (with the
 * bootstrap's mark), best effort, so that PEs whose launcher does not end
 * them (a launcher cut off by a dead link) end with the status at their
 * next wait, and the errors a peer meets as this PE goes are not reported
 * as failures. */
static void tell_peers_global_exit(int status)
{
    const uint32_t mark = shoal_g.boot && shoal_g.boot->exit_mark ? shoal_g.boot->exit_mark() : 0;
    const uint32_t word = shoal_global_exit_word(status, mark);
    __atomic_store_n(&shoal_my_ctl()->leaving, SHOAL_LEFT_GLOBAL_EXIT, __ATOMIC_SEQ_CST);
    for (int pe = 0; pe < shoal_g.n_pes; pe++) {
        if (pe == shoal_g.my_pe)
            continue;
        int slot = shoal_slot(pe);
        if (slot >= 0) {
            __atomic_store_n(&shoal_ctl_of_slot(slot)->global_exit, word, __ATOMIC_SEQ_CST);
            /* A waiter asleep there looks at its word when it wakes. */
            shoal_bell_ring_if_armed(&shoal_ctl_of_slot(slot)->bell);
        } else if (shoal_g.net_active && shoal_ctx_default.net)
            shoal_net_amo_nbi(shoal_ctx_default.net, SHOAL_AMO_SET, NULL,
                              &shoal_my_ctl()->global_exit, 4, word, 0, pe, "shmem_global_exit");
    }
    if (shoal_g.net_active && shoal_ctx_default.net)
        shoal_net_quiet(shoal_ctx_default.net);
}

_Noreturn void shoal_runtime_global_exit(int status)
{
    exiting_globally = 1;
    shoal_prof_abandon("shmem_global_exit");
    fflush(stdout);
    fflush(stderr);
    if (shoal_g.init_count > 0 && !shoal_g.finalized && shoal_g.heap_me &&
        shoal_g.owner_pid == (long)getpid())
        tell_peers_global_exit(status);
    if (shoal_g.boot && shoal_g.init_count > 0 && !shoal_g.finalized)
        shoal_g.boot->global_exit(status);
    exit(status);
}

void shoal_print_info(FILE *f)
{
    size_t used = 0, fr = 0, largest = 0;
    shoal_heap_usage(&used, &fr, &largest);
    fprintf(f, "%s (OpenSHMEM %d.%d)\n", SHMEM_VENDOR_STRING, SHMEM_MAJOR_VERSION,
            SHMEM_MINOR_VERSION);
    fprintf(f, "Build: %s, compiler %s, sanitizer %s\n", SHOAL_BUILD_TYPE, SHOAL_C_COMPILER,
            SHOAL_SANITIZER);
    fprintf(f, "Transports: %s (shm: on-node load/store through memfd mappings)\n",
            shoal_net_built());
    shoal_net_describe(f, "", shoal_g.init_count > 0);
    shoal_wait_describe(f, "");
    fprintf(f, "AMOs: %s\n",
            shoal_g.init_count == 0 ? "(decided at init)"
            : shoal_g.amo_via_net   ? "all through the network transport (coherent with remote "
                                      "PEs' network atomics), this PE's own included"
                                    : "CPU atomics on mapped memory");
    if (shoal_g.boot)
        fprintf(f, "Bootstrap: %s (job id %s)\n", shoal_g.boot->name, shoal_g.boot->jobid);
    else
        fprintf(f, "Bootstrap: (not initialized; built: %s)\n", shoal_boot_built());
    if (shoal_g.init_count > 0) {
        fprintf(f, "Job: %d PEs, %d on this node; thread level %d\n", shoal_g.n_pes,
                shoal_g.n_local, shoal_g.thread_level);
        fprintf(f, "Symmetric heap: %zu bytes per PE (%zu used, %zu free)\n",
                shoal_g.user_heap_size, used, fr);
        if (shoal_g.data_shared)
            fprintf(f, "Static data: symmetric, %zu bytes at %p (shared-memory mapping)\n",
                    shoal_g.data_size, (void *)shoal_g.data_me);
        else
            fprintf(f, "Static data: NOT remotely accessible (%s)\n",
                    shoal_g.data_note ? shoal_g.data_note : "unknown reason");
        long live, pooled;
        shoal_ctx_counts(&live, &pooled);
        fprintf(f, "Contexts: %ld live, %ld pooled\n", live, pooled);
    } else {
        fprintf(f, "Static data: moved to shared memory at program start; symmetric once "
                   "shmem_init runs\n");
    }
    fprintf(f, "Environment variables:\n");
    shoal_env_print(f, "  ");
}
