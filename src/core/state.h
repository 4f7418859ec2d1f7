/* core/ — PE state, configuration, errors, symmetric memory (heap and
 * static data), contexts, teams, synchronization, the wait engine.  Above
 * it, api/ and coll/ reach memory and transports only through core/ops.h.
 * Its rooms (each says more in its main header): config/ (variables,
 * errors, logging: env.h), memory/ (segments.h), teams/ (teams and their
 * synchronization: sync.h), waiting/ (wait.h), profile/ (SHOAL_PROFILE:
 * profile.h); the top holds this state,
 * contexts, operations (ops.h), the runtime, the network link and the
 * extension hooks.
 * May call: transport/shm (inline, on mapped memory), the network
 * transport through the functions of transport/net.h, boot/ and libc. */
#ifndef SHOAL_CORE_STATE_H
#define SHOAL_CORE_STATE_H

#include <shmem.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/boot.h"
#include "core/config/error.h"

#define SHOAL_LIKELY(x) __builtin_expect(!!(x), 1)
#define SHOAL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SHOAL_CACHELINE 64

/* A team's signal counters (struct shoal_team_block; core/teams/sync.h
 * numbers them): the tree broadcast's two, a claim and a signature word
 * beside them, then one half cache line per barrier round (its counter and
 * the senders' call signatures, core/teams/calls.h). */
#define SHOAL_SYNC_ROUNDS 32
#define SHOAL_SYNC_ROUND_WORDS 4
#define SHOAL_SYNC_WORDS (8 + SHOAL_SYNC_ROUNDS * SHOAL_SYNC_ROUND_WORDS)
#define SHOAL_SYNC_SEEN 64 /* counters among them: the first 8 words, one per round */

/* A team is always a strided subset of the world (splits of strided teams
 * stay strided), so translating a team PE to a world PE is one multiply-add. */
struct shoal_team {
    uint32_t magic;
    int start;  /* world PE of team PE 0 */
    int stride; /* world-PE distance between consecutive team PEs (may be < 0) */
    int size;
    int my_pe;         /* my number in the team, -1 if not a member */
    int num_contexts;  /* from shmem_team_config_t */
    int slot;          /* its block in every member's ctl (struct shoal_team_block) */
    long config_mask;  /* as given at creation */
    uint64_t coll_seq; /* collectives this PE has entered on the team (hang reports) */
    /* Signals taken from each of this PE's sync counters of the team
     * (core/teams/sync.h: they only grow; shoal_group_seen maps a word to
     * its entry, the size of this object being the public header's). */
    uint64_t sync_seen[SHOAL_SYNC_SEEN];
    int on_node; /* every member is on this node (reachable by load/store) */
};
#define SHOAL_TEAM_LIVE 0x7ea11eafu

struct shoal_net_ctx; /* transport (UCX) state of a context, NULL on-node */

struct shoal_ctx {
    uint32_t magic;            /* SHOAL_CTX_LIVE while usable */
    uint32_t options;          /* SHMEM_CTX_* bits */
    struct shoal_team *team;   /* PE numbers of this context are relative to it */
    struct shoal_net_ctx *net; /* network resources (a UCP worker later) */
    struct shoal_ctx *next;    /* free list / registry link */
    uint32_t am_ctr;           /* active messages: completion counter + 1, 0 until the first send */
};
#define SHOAL_CTX_LIVE 0xc0117e87u

/* Symmetric words of one team: counters for its synchronization and a
 * little scratch for its collectives (both zero at rest). */
#define SHOAL_TEAM_SLOTS 128 /* world, shared and 126 user teams */
#define SHOAL_TEAM_SLOT_WORLD 0
#define SHOAL_TEAM_SLOT_SHARED 1
#define SHOAL_SCRATCH_WORDS 8
/* SHMEM_DEBUG: what a collective is, compared between neighbours before it
 * runs (core/teams/sync.c) so that mismatched calls are reported, not hung on. */
struct shoal_coll_sig {
    char fn[40];   /* routine */
    uint64_t seq;  /* collective number on the team */
    uint64_t a, b; /* sizes: element count, root, strides (0: unused) */
};
/* Each PE's last collective calls on a team, by number (seq % RECS), for
 * the members that wait for it to compare (core/teams/calls.h).  Written
 * at the call's entry, the number last. */
#define SHOAL_CALL_RECS 8
struct shoal_call_rec {
    uint64_t seq;   /* the collective's number on the team; 0: none yet */
    uint64_t sig;   /* its signature (calls.h) */
    uint64_t size;  /* its size argument, whole (the signature holds 32 bits of it) */
    int64_t fn_off; /* the routine's name, as an offset in the library (calls.c) */
};
/* The collective a thread of this PE has waited in for a while, for the
 * peers it waits for (calls_wait.c): a mismatch across teams shows as each
 * waiting for the other in a collective the other has not entered.  Not
 * under SHMEM_THREAD_MULTIPLE, where another thread may make the call. */
struct shoal_call_blocked {
    uint64_t slot1;             /* its team's slot + 1; 0: no such wait now (written last) */
    int64_t peer;               /* the world PE it waits for, -1: several */
    struct shoal_call_rec call; /* the collective */
};
/* Small broadcasts of a team whose members share a node (coll/broadcast.c):
 * a parent writes the data and its round number into one cache line of
 * its child's ring, so one line moves per hop, and it reuses a line only
 * after the child has published (`done`) that it consumed the round that
 * line last carried.  Lines are per round, not per parent, so the tree
 * may change with the root.  Zeroed (gather lines too) when the team is
 * destroyed. */
/* 16 lines: a root may run that many broadcasts ahead of a member.  Where
 * PEs outnumber CPUs each wait for a member costs a turn of the scheduler,
 * which the lines share: back-to-back 8-byte broadcasts, 4 PEs on 2 cores,
 * 1.0-1.3 us with 4 lines, 0.85 with 8, 0.5 with 12, 0.31 with 16 (and no
 * gain from 32); 8 PEs 2.0-2.6, 1.5, 0.9, 0.84-1.03. */
#define SHOAL_BCAST_RING_SLOTS 16
#define SHOAL_BCAST_INLINE 48 /* payload bytes of a line */
#define SHOAL_BCAST_SEEN 8    /* children whose `done` a parent remembers */
struct shoal_bcast_line {
    unsigned char data[SHOAL_BCAST_INLINE];
    uint64_t tag;   /* the writer's call signature mixed with the data (coll/bcast_ring.c) */
    uint64_t round; /* 1 + the team's small-broadcast count it carries */
};
/* Small reductions and (f)collects of such a team (coll/gather_ring.c):
 * every member writes its block and the round number into a line of its
 * own ring, and every member reads every member's line.  A member cannot
 * enter round R + 1 before it has read round R from everyone, so nobody
 * is two rounds ahead of anybody and two lines suffice, with no `done`. */
#define SHOAL_GATHER_SLOTS 2
struct shoal_gather_line {
    unsigned char data[SHOAL_BCAST_INLINE];
    uint64_t sig;  /* the member's call signature (core/teams/calls.h) */
    uint64_t word; /* round << 8 | bytes of data (255: more, their count in data) */
};
/* The same for SHMEM_TEAM_WORLD across nodes, up to SHOAL_NET_GATHER_PES
 * PEs: member j's block of round R travels, with a signal, into blk[slot][j]
 * of every other member (one message each where the transport carries the
 * data with the signal).  A member sends round R + 2 only after it has
 * every block of R + 1, each sent after its sender had read round R, so
 * two slots suffice here too. */
#define SHOAL_NET_GATHER_PES 64
#define SHOAL_NET_GATHER_BLOCK \
    (SHOAL_BCAST_INLINE + 8) /* a line's data, then the sender's signature */
struct shoal_net_gather {
    _Alignas(SHOAL_CACHELINE) uint64_t arrived[SHOAL_GATHER_SLOTS]; /* blocks, all rounds */
    /* Private to the owner: arrivals accounted for, and the round they were
     * last accounted for. */
    _Alignas(SHOAL_CACHELINE) uint64_t taken[SHOAL_GATHER_SLOTS];
    uint64_t ready_round;
    _Alignas(SHOAL_CACHELINE) unsigned char blk[SHOAL_GATHER_SLOTS][SHOAL_NET_GATHER_PES]
                                               [SHOAL_NET_GATHER_BLOCK];
};
struct shoal_bcast_ring {
    _Alignas(SHOAL_CACHELINE) uint64_t done; /* rounds consumed; read by parents */
    /* Private to the owner: its round count, and lower bounds of some
     * children's `done` (values only grow, so a stale one is still safe). */
    _Alignas(SHOAL_CACHELINE) uint64_t rounds;
    int last_root; /* root of the previous tree broadcast + 1; 0: none yet */
    int seen_pe[SHOAL_BCAST_SEEN];
    uint64_t seen_done[SHOAL_BCAST_SEEN];
    uint64_t gather_rounds; /* the team's small reductions and collects so far */
    uint64_t syncs;         /* the team's dissemination syncs so far (core/teams/sync.c) */
    /* Tree broadcasts on a team across nodes: acknowledgements this PE's
     * children owe it, all rounds together (coll/broadcast.c); team destroy
     * waits for them before the slot's counters go back to 0. */
    uint64_t tree_acks_owed;
    /* Collectives' messages from peers the network serves
     * (shoal_group_recv): received (bumped by the transport, maybe on its
     * progress thread), and taken by this PE's collectives. */
    _Alignas(SHOAL_CACHELINE) uint64_t msgs_in;
    uint64_t msgs_taken;
    /* Gather rounds whose peers' sources this PE no longer reads
     * (coll/gather_ring.c, shoal_gather_done); read by the peers. */
    _Alignas(SHOAL_CACHELINE) uint64_t gather_done;
    _Alignas(SHOAL_CACHELINE) struct shoal_bcast_line line[SHOAL_BCAST_RING_SLOTS];
    _Alignas(SHOAL_CACHELINE) struct shoal_gather_line gather[SHOAL_GATHER_SLOTS];
};
struct shoal_team_block {
    uint64_t sync[SHOAL_SYNC_WORDS];
    uint64_t scratch[SHOAL_SCRATCH_WORDS];
    uint64_t dbg_sync[2]; /* SHMEM_DEBUG: "my signature is written" / "read yours" */
    struct shoal_coll_sig dbg_sig;
    struct shoal_call_rec calls[SHOAL_CALL_RECS];
    struct shoal_bcast_ring bcast;
};

/* The control block that starts every PE's heap segment.  It is symmetric
 * (same offset in every heap) so coll/ and locks can address it like any
 * symmetric object.  Layout changes must keep SHOAL_CTL_SIZE. */
#define SHOAL_CPU_MASK_WORDS 16 /* affinity masks of up to 1024 CPUs */
/* The global_exit word: bit 8 says a PE called shmem_global_exit, bits
 * 0-7 hold its status, the bits above its bootstrap's exit_mark (boot.h). */
static inline uint32_t shoal_global_exit_word(int status, uint32_t mark)
{
    const uint32_t mark_mask = (1u << SHOAL_BOOT_MARK_BITS) - 1;
    return 0x100u | ((uint32_t)status & 0xffu) | ((mark & mark_mask) << 9);
}
static inline int shoal_global_exit_status(uint32_t word)
{
    return (int)(word & 0xffu);
}
static inline uint32_t shoal_global_exit_mark(uint32_t word)
{
    return word >> 9;
}

struct shoal_ctl {
    /* Waiting (transport/shm/shm_doorbell.h): waiters asleep on memory owned by this PE
     * count themselves in `sleepers` (read by the UCX progress thread) and
     * sleep on `bell`; writers read `bell`, a line only sleepers write. */
    _Alignas(SHOAL_CACHELINE) uint32_t sleepers;
    uint32_t pad0;
    _Alignas(SHOAL_CACHELINE) uint32_t bell;
    /* This PE's CPU affinity at init, for the waiting policy of every PE of
     * the node (core/waiting/wait_policy.h); cpu_mask_cpus 0: unknown. */
    _Alignas(SHOAL_CACHELINE) uint64_t cpu_mask[SHOAL_CPU_MASK_WORDS];
    int cpu_mask_cpus;
    /* Its threads in state R at its waiters' last look (wait_policy.c). */
    int running_threads;
    /* enum shoal_leaving (below): set once this PE has left
     * the job, after its last operations are complete; read by peers that
     * still wait for it in a collective. */
    _Alignas(SHOAL_CACHELINE) uint32_t leaving;
    /* 0, or shoal_global_exit_word(status, mark) once some PE called
     * shmem_global_exit(status): it writes every PE's word, and a PE that
     * finds its own set ends quietly with that status, its bootstrap told
     * the caller's mark (core/runtime.c, waiting/wait.c, config/error.c). */
    uint32_t global_exit;
    struct shoal_call_blocked blocked;
    /* One block per live team, at the same offset on every member, for the
     * team's collectives (coll/group.h).  A team's slot is agreed on by
     * its parent team at creation (core/teams/team.c). */
    _Alignas(SHOAL_CACHELINE) struct shoal_team_block teams[SHOAL_TEAM_SLOTS];
    struct shoal_net_gather world_gather;
};
/* 512 KiB (392 KiB used), so that with the AM area the user's heap starts
 * 2 MiB into the segment. */
#define SHOAL_CTL_BLOCK_SIZE ((size_t)512 * 1024)
_Static_assert(sizeof(struct shoal_ctl) <= SHOAL_CTL_BLOCK_SIZE, "ctl block too large");
/* After the ctl block, still before the user's heap: the PE's active
 * message area (struct shoal_am_area, transport/shm/shm_am.h; ext/am/am.h). */
#define SHOAL_AM_AREA_OFFSET SHOAL_CTL_BLOCK_SIZE
#define SHOAL_AM_AREA_SIZE ((size_t)1536 * 1024)
/* The reserved start of every heap segment: ctl block and AM area. */
#define SHOAL_CTL_SIZE (SHOAL_CTL_BLOCK_SIZE + SHOAL_AM_AREA_SIZE)

/* What a PE says in its ctl block about leaving the job (shoal_ctl.leaving). */
enum shoal_leaving {
    SHOAL_IN_JOB = 0,
    SHOAL_LEFT_FINALIZE = 1,    /* entered its last shmem_finalize */
    SHOAL_LEFT_EXIT = 2,        /* exited (returned from main, exit) without shmem_finalize */
    SHOAL_LEFT_FAILED = 3,      /* ended by an error (a fatal one of Shoal's, an abort) */
    SHOAL_LEFT_GLOBAL_EXIT = 4, /* called shmem_global_exit */
};

struct shoal_state {
    /* Hot: read by every RMA/AMO call. */
    _Alignas(SHOAL_CACHELINE) char *heap_me; /* my heap segment (inside heap_region) */
    size_t heap_size;                        /* bytes of each PE's heap segment, ctl included */
    char *heap_region;                       /* slot s's heap at heap_region + s*heap_stride */
    size_t heap_stride;
    char *data_me; /* my static data (.data/.bss), at its link address */
    size_t data_size;
    char *data_region; /* slot s's static data at data_region + s*data_stride */
    size_t data_stride;
    const int *slot_of_pe; /* NULL when every PE is on this node (slot == pe) */
    int debug;             /* SHMEM_DEBUG */
    /* SHMEM_DEBUG or SHOAL_PROFILE (core/profile/profile.h): the one word
     * every generated routine tests first, taking its slow twin where it
     * is set (tools/gen/templates/api_family.c.in). */
    int slow;
    /* Every AMO goes through the network transport, mapped peers and self
     * included: set when some peer is reached by UCX atomics, which need
     * not be coherent with CPU atomics on the same word (transport/net.h). */
    int amo_via_net;

    /* Cold. */
    int my_pe, n_pes;
    int n_local; /* PEs on this node */
    int n_host;  /* PEs on this machine (more than n_local where some are reached through
                    the network: SHOAL_TRANSPORTS=ucx, SHOAL_SPLIT_NODES) */
    int thread_level;
    int init_count; /* nested init/finalize pairs */
    int finalized;  /* the last finalize has run */
    struct shoal_boot *boot;
    size_t user_heap_size; /* SHMEM_SYMMETRIC_SIZE */
    int data_shared;       /* static data is remotely accessible */
    int net_active;        /* a network transport serves some peer */
    int net_coll_msgs;     /* ... and carries collectives' data as messages (coll/) */
    int net_signal_data;   /* ... and a collective's signal carries data (shoal_net_signal_data) */
    const char *data_note; /* why not, when it is not */
    /* Where the peers are (core/memory/pe_card.h), for messages and
     * liveness checks: each world PE's host name, and its pid where pids
     * compare (same node and PID namespace; else -1). */
    const char *const *peer_host;
    const long *peer_pid;
    long owner_pid;           /* the process that called shmem_init */
    uint64_t peer_timeout_ns; /* SHOAL_PEER_TIMEOUT (0: never) */
};
extern struct shoal_state shoal_g;

/* SHMEM_DEBUG as the inline operations see it (core/ops.h, the _nbe ones of
 * ext/requests).  The generated routines' files define it as 0: a routine
 * tests shoal_g.slow once on entry and runs its slow twin, compiled with
 * this default, where SHMEM_DEBUG (or SHOAL_PROFILE) is on. */
#ifndef SHOAL_OPS_DEBUG
#define SHOAL_OPS_DEBUG (shoal_g.debug)
#endif

/* The predefined handles (the public header takes their addresses). */
extern struct shoal_ctx shoal_ctx_default;
extern struct shoal_team shoal_team_world;
extern struct shoal_team shoal_team_shared;

/* World PE `pe`'s host name, for messages ("?" before the cards are in). */
static inline const char *shoal_peer_host(int pe)
{
    return shoal_g.peer_host && shoal_g.peer_host[pe] ? shoal_g.peer_host[pe] : "?";
}

/* Every routine but the setup queries: fatal ("called before shmem_init
 * (or after the last shmem_finalize)") outside an initialized library. */
static inline void shoal_check_init(const char *fn)
{
    if (SHOAL_UNLIKELY(shoal_g.init_count == 0 || shoal_g.finalized))
        shoal_err_not_init(fn);
}

static inline int shoal_slot(int world_pe)
{
    return shoal_g.slot_of_pe ? shoal_g.slot_of_pe[world_pe] : world_pe;
}

static inline struct shoal_ctl *shoal_ctl_of_slot(int slot)
{
    return (struct shoal_ctl *)(shoal_g.heap_region + (size_t)slot * shoal_g.heap_stride);
}

/* The slot of this PE's own mapping (its ctl block), which shoal_slot(my_pe)
 * is not under SHOAL_TRANSPORTS=ucx (no PE is reached by load/store). */
static inline int shoal_my_slot(void)
{
    return (int)((size_t)(shoal_g.heap_me - shoal_g.heap_region) / shoal_g.heap_stride);
}

static inline struct shoal_ctl *shoal_my_ctl(void)
{
    return (struct shoal_ctl *)shoal_g.heap_me;
}

#endif
