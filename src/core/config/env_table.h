/* Core's environment variables: one row each.  The same table drives
 * parsing, validation (a malformed value is a fatal error naming the
 * variable) and what shmem-info / SHMEM_INFO print.  The collectives' rows
 * are in coll/coll_env_table.h, the UCX transport's in
 * transport/ucx/config/ucx_env_table.h (core/config/env.h says how they join).
 *
 * SHOAL_ENV(id, name, deprecated alias or NULL, kind, default, meaning)
 * kinds: SIZE (bytes, K/M/G/T suffixes and fractions as the spec's
 * SHMEM_SYMMETRIC_SIZE), BOOL (Shoal's own switches: 1/yes/y/on/true or
 * 0/no/n/off/false in any case, empty = off; anything else is malformed: a
 * typo such as SHOAL_X=ture must not pass for a decision), FLAG (the spec's
 * variables whose value is "Any": set means on, unless the value is one of
 * BOOL's off spellings, so SHMEM_INFO=/path or SHMEM_VERSION=2 still mean
 * on, as in other implementations), UINT (decimal), STRING. */
SHOAL_ENV(SYMMETRIC_SIZE, "SHMEM_SYMMETRIC_SIZE", "SMA_SYMMETRIC_SIZE", SIZE, "512M",
          "Symmetric heap size per PE (K/M/G/T suffixes, fractions allowed: 1.5G)")
SHOAL_ENV(
    DEBUG, "SHMEM_DEBUG", "SMA_DEBUG", FLAG, "0",
    "Costly argument checks (overlap, alignment, symmetric allocation) and backtraces on error")
SHOAL_ENV(INFO, "SHMEM_INFO", "SMA_INFO", FLAG, "0", "PE 0 prints this configuration at start-up")
SHOAL_ENV(VERSION, "SHMEM_VERSION", "SMA_VERSION", FLAG, "0",
          "PE 0 prints the library version at start-up")
SHOAL_ENV(WAIT_POLICY, "SHOAL_WAIT_POLICY", NULL, STRING, "auto",
          "How waiting PEs wait: auto (spin while this node's PEs fit the CPUs of their affinity "
          "masks, else yield and sleep early), spin (never sleep), sleep (yield and sleep early)")
SHOAL_ENV(WAIT_SPIN_US, "SHOAL_WAIT_SPIN_US", NULL, UINT, "auto",
          "Microseconds a waiting PE spins before it yields and sleeps (auto: when the PEs fit the "
          "CPUs 10000, or 1000000 where the network serves this PE; where only running threads "
          "outnumber the CPUs, as each thread learns from its waits: 2 where partners answer "
          "within it, 1000 where yields lose the CPU to compute threads (and then it sleeps "
          "without yielding), else 0; 0 where PEs outnumber the CPUs)")
SHOAL_ENV(
    WAIT_SLEEP_MAX_US, "SHOAL_WAIT_SLEEP_MAX_US", NULL, UINT, "auto",
    "Longest single sleep before a waiter re-checks, in microseconds: a safety net, wake-ups end "
    "sleeps (auto: 100000 with exact wake-ups, 1000 without; 50 while UCX serves this PE)")
SHOAL_ENV(LOG, "SHOAL_LOG", NULL, STRING, "",
          "Log lines on stderr: category:level[,...], categories boot, heap, ctx, team, wait, "
          "coll, net or all, levels off, error, warn, info, debug, trace (trace needs a build with "
          "-DSHOAL_LOG_MAX_LEVEL=5)")
SHOAL_ENV(PROFILE, "SHOAL_PROFILE", NULL, STRING, "",
          "Profile the job (docs/profiling.md): each PE counts calls, bytes and time per routine "
          "family and operations per target PE; at shmem_finalize PE 0 prints a summary and writes "
          "the JSON and CSV files. 1/on/yes/true: shoal-profile.json in the working directory; "
          "a directory (or a name ending in /): shoal-profile.json in it; any other value but "
          "0/off/no/false/empty: that file name")
SHOAL_ENV(TRANSPORTS, "SHOAL_TRANSPORTS", NULL, STRING, "auto",
          "Which transport reaches which peer: shm (load/store, this node only), a network "
          "transport the build has (ucx, ofi: every peer through it, this PE included), shm,ucx "
          "or shm,ofi (load/store on this node, that network beyond), or auto (load/store on "
          "this node; beyond it libfabric where it offers a fabric's own provider, cxi, efa, "
          "opx, psm3, psm2, or verbs where UCX finds no device, or FI_PROVIDER is set, else UCX: "
          "docs/user-guide.md, Choosing the network)")
SHOAL_ENV(SPLIT_NODES, "SHOAL_SPLIT_NODES", NULL, UINT, "1",
          "Testing: treat this machine as N nodes (ranks in N contiguous blocks); PEs in different "
          "blocks reach each other through the network transport (UCX or OFI), as on a cluster")
SHOAL_ENV(PEER_TIMEOUT, "SHOAL_PEER_TIMEOUT", NULL, UINT, "20",
          "Seconds a peer's host (or the link to it) may stay unreachable at the TCP level before "
          "the peer is taken for dead; the job then ends, each PE naming the peer and its host. "
          "A peer that is slow, busy, computing or stopped in a debugger is never dead; one whose "
          "process ended is, at once; 0 waits forever")
/* Read by boot/boot_open.c itself (boot/ calls libc only); listed here for
 * shmem-info.  A malformed value makes shmem_init fail, naming it. */
SHOAL_ENV(BOOTSTRAP, "SHOAL_BOOT", NULL, STRING, "auto",
          "Bootstrap: auto (oshrun's when SHOAL_BOOT_FD is set, else PMIx when "
          "PMIX_NAMESPACE/PMIX_RANK say mpirun or srun --mpi=pmix started the program, else one PE "
          "alone), local, pmix or singleton")
SHOAL_ENV(PMIX_PE, "SHOAL_PMIX_PE", NULL, STRING, "unset",
          "Set by a PE under PMIx for the programs it starts (namespace/rank/pid): a Shoal "
          "program started from inside a PE, which inherits the PE's PMIx identity, is refused at "
          "once instead of joining the PE's job")
/* Set by oshrun for each PE and read by the bootstrap (boot/boot_local.c);
 * listed so shmem-info shows everything Shoal reads.  Without them a
 * program runs as a single PE. */
SHOAL_ENV(LAUNCH_RANK, "SHOAL_RANK", NULL, STRING, "unset",
          "Set by oshrun: this PE's number (0..SHOAL_SIZE-1)")
SHOAL_ENV(LAUNCH_SIZE, "SHOAL_SIZE", NULL, STRING, "unset",
          "Set by oshrun: number of PEs in the job")
SHOAL_ENV(LAUNCH_FD, "SHOAL_BOOT_FD", NULL, STRING, "unset",
          "Set by oshrun: inherited socket to the launcher (bootstrap exchange, barrier, abort)")
SHOAL_ENV(LAUNCH_JOBID, "SHOAL_JOBID", NULL, STRING, "unset",
          "Set by oshrun: job id, unique on this node; names the job's shared-memory objects")
