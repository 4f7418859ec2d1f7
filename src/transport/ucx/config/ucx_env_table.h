/* The UCX transport's environment variables, in core's form (core/config/env_table.h says
 * what the kinds mean; core/config/env.h how a layer's rows join the one table).
 * SHOAL_ENV(id, name, deprecated alias or NULL, kind, default, meaning) */
SHOAL_ENV(
    PROGRESS_THREAD, "SHOAL_PROGRESS_THREAD", NULL, STRING, "auto",
    "UCX: a thread that progresses this PE's target side so one-sided operations complete while it "
    "computes: 1, 0 or auto (on when UCX emulates RMA or atomics in software, e.g. over tcp or sm)")
SHOAL_ENV(PROGRESS_INTERVAL_US, "SHOAL_PROGRESS_INTERVAL_US", NULL, UINT, "100",
          "UCX: microseconds the progress thread sleeps when there was nothing to progress; "
          "while the application progresses by itself, up to 16 times that")
SHOAL_ENV(DEFAULT_CTX_WORKERS, "SHOAL_DEFAULT_CTX_WORKERS", NULL, STRING, "thread",
          "UCX, SHMEM_THREAD_MULTIPLE only: workers behind SHMEM_CTX_DEFAULT: shared (one for all "
          "threads), thread (one per thread) or a number N (threads share N round-robin)")
SHOAL_ENV(
    REQUEST_WORKERS, "SHOAL_REQUEST_WORKERS", NULL, UINT, "8",
    "UCX: workers of the explicit non-blocking requests (shmemx _nbe): each request takes one "
    "of its own while there are free ones, then requests share them round-robin (1 to 1024)")
SHOAL_ENV(AM, "SHOAL_UCX_AM", NULL, STRING, "auto",
          "UCX: how active messages (shmemx_am_*) travel to PEs reached through UCX: 1 by UCP's "
          "active messages, 0 by RMA and atomics into a ring in the target's heap, auto: 1 with "
          "a UCX known good for it (1.13 and later; before 1.22 Shoal sets one rendezvous lane "
          "unless UCX_MAX_RNDV_LANES is set, docs/active-messages.md), 0 otherwise; UCP's only "
          "when every PE chose it")
SHOAL_ENV(ATOMICS, "SHOAL_UCX_ATOMICS", NULL, STRING, "auto",
          "UCX: which AMOs go through UCX: auto (every AMO, this PE's own and its node's "
          "included, where some PE's lanes do atomics in a device such as InfiniBand; only "
          "other nodes' where UCX's atomics are CPU atomics: tcp, shared memory, "
          "UCX_ATOMIC_MODE=cpu) or all (every AMO, as with a device)")
SHOAL_ENV(SIGNALS, "SHOAL_UCX_SIGNALS", NULL, STRING, "auto",
          "UCX: how collectives' signals (barrier, broadcast, reductions) travel to PEs reached "
          "through UCX: auto (one tagged message each where no PE's lanes do atomics in a "
          "device, as over tcp, where UCX would emulate an atomic add with two messages; an "
          "atomic add otherwise) or amo (an atomic add always); messages only when every PE can "
          "take them")
/* Set by oshrun (tools/oshrun/ucx_start.c), read by ucx_startup.c. */
SHOAL_ENV(OSHRUN_UCX_GRACE, "SHOAL_OSHRUN_UCX_GRACE", NULL, STRING, "unset",
          "Set by oshrun (UCX 1.21 and later): it started this program, whose executable links "
          "Shoal, with UCX_MEM_BISTRO_GRACE_DURATION=0 (UCX patches libc as it loads, before any "
          "other thread exists; its 50 ms wait after each of 8 patches cost 0.4 s per process), "
          "as the user had not set it; Shoal gives UCX that wait back before ucp_init, for later "
          "patches")
