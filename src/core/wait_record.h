/* Where each thread of this PE is blocked inside Shoal, kept so that a
 * job that hangs can say why: on SIGQUIT (oshrun sends it when --timeout
 * expires, when it gets SIGQUIT itself, and for --dump-on-hang) every PE
 * prints, per blocked thread, the routine, the collective's team and
 * sequence number, and the PE and word it waits for.
 *
 * The record is written only once a wait has failed its first check (the
 * slow path), with plain stores to the calling thread's own record, so it
 * costs nothing where the value is already there and a few stores where
 * the thread is about to spin anyway.
 *
 * The record also names the peer a collective waits for; the wait engine
 * uses it to notice a peer that has left the job (entered shmem_finalize
 * or exited) while this PE still waits for it in a collective: the
 * collectives do not match, and the wait would never end. */
#ifndef SHOAL_CORE_WAIT_RECORD_H
#define SHOAL_CORE_WAIT_RECORD_H
#include <stdint.h>

struct shoal_wait_record {
    const char *fn;    /* routine the program called; NULL when not blocked */
    const char *what;  /* what is awaited ("signal of round 2"), or NULL */
    const void *addr;  /* the word watched */
    int peer;          /* world PE expected to write it, or -1 */
    int team_slot;     /* a collective's team (its ctl slot), or -1 */
    uint64_t seq;      /* a collective's number on that team, from 1 */
    uint64_t since_ns; /* CLOCK_MONOTONIC when the wait began to block */
    int thread;        /* index of this record: thread 0 registered first */
    int used;          /* claimed by a live thread */
};

/* The calling thread's record (claimed on first use; a thread beyond the
 * table's capacity shares one spare record, which is then approximate). */
struct shoal_wait_record *shoal_wait_record_mine(void);

/* The collective the calling thread is in, and the peer and word its next
 * wait is for: set before the wait, cleared after it. */
void shoal_wait_note_peer(int team_slot, uint64_t seq, int peer, const char *what);
void shoal_wait_note_clear(void);

/* Called by the wait engine around a wait that blocks (now_ns 0: read
 * the clock). */
void shoal_wait_record_begin(const char *fn, const void *addr, uint64_t now_ns);
void shoal_wait_record_end(void);

/* Installs the SIGQUIT report at init, unless the program has its own
 * SIGQUIT handler.  It stays after finalize (and then says that nothing
 * is blocked). */
void shoal_wait_report_install(void);
/* Writes the report of every thread of this PE to fd. */
void shoal_wait_report(int fd);

/* What a PE says in its ctl block about leaving the job (shoal_ctl.leaving). */
enum shoal_leaving {
    SHOAL_IN_JOB = 0,
    SHOAL_LEFT_FINALIZE = 1, /* entered its last shmem_finalize */
    SHOAL_LEFT_EXIT = 2,     /* exited (returned from main, exit) without shmem_finalize */
};
/* Has world PE `pe` left the job?  A load for a PE on this node, a network
 * fetch otherwise (call it rarely). */
int shoal_peer_leaving(int pe, const char *fn);
#endif
