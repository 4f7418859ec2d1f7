/* Where each thread of this PE is blocked inside Shoal, kept so that a
 * job that hangs can say why: per blocked thread, the routine, the
 * collective's team and sequence number, and the PE (or the thread of this
 * PE) and word it waits for.
 *
 * Each thread's record is published in the hang page (boot/hang_page.h), a
 * memfd mapping whose descriptor the bootstrap hands to the launcher at
 * init: oshrun reads it for its --timeout, --dump-on-hang and SIGQUIT
 * reports without signalling the PE, so a report never changes what the
 * program does (no sleep() or read() cut short).  A PE that receives
 * SIGQUIT itself (kill -QUIT <pid>; under mpirun or srun) prints the same
 * report from the page.
 *
 * The record is written only once a wait has failed its first check (the
 * slow path), with plain stores to the calling thread's own record, so it
 * costs nothing where the value is already there and a few stores where
 * the thread is about to spin anyway (the routine's name and what is
 * awaited are copied into the page only the first times a thread waits in
 * that routine; then a few integers).
 *
 * The record also names the peer a collective waits for; the wait engine
 * uses it to notice a peer that has left the job (entered shmem_finalize
 * or exited) while this PE still waits for it in a collective: the
 * collectives do not match, and the wait would never end. */
#ifndef SHOAL_CORE_WAIT_RECORD_H
#define SHOAL_CORE_WAIT_RECORD_H
#include <stdint.h>

#include "boot/hang_page.h"

struct shoal_wait_record {
    const char *fn;    /* routine the program called; NULL when not blocked */
    const char *what;  /* what is awaited ("signal of round 2"), or NULL */
    const char *via;   /* the bootstrap call a wait on no word is in, or NULL */
    const void *addr;  /* the word watched */
    int peer;          /* world PE expected to write it, or -1 */
    int peer_thread;   /* thread (thread_id) of this PE expected, or -1 */
    int team_slot;     /* a collective's team (its ctl slot), or -1 */
    uint64_t seq;      /* a collective's number on that team, from 1 */
    uint64_t since_ns; /* CLOCK_MONOTONIC when the wait began to block */
    int thread;        /* index of this record: thread 0 registered first */
    int tid;           /* the kernel's id of the thread that holds it */
    int used;          /* claimed by a live thread */
    /* its copy in the hang page, and which texts that copy holds */
    struct shoal_hang_rec *pub;
    const char *texts[SHOAL_HANG_TEXTS];
    int next_text;
};

/* The calling thread's record (claimed on first use; a thread beyond the
 * table's capacity shares one spare record, which is then approximate). */
struct shoal_wait_record *shoal_wait_record_mine(void);
/* Whether another live thread of this PE that has waited in Shoal before
 * is outside a wait now (computing, or issuing operations). */
int shoal_wait_record_others_working(void);
/* Whether thread `tid` of this process is blocked in a wait of Shoal now
 * (a thread that runs and is not is computing, for the waiting policy). */
int shoal_wait_record_tid_waiting(int tid);

/* The collective the calling thread is in, and the peer and word its next
 * wait is for: set before the wait, cleared after it. */
void shoal_wait_note_peer(int team_slot, uint64_t seq, int peer, const char *what);
/* The same for a wait for another thread of this PE (a multi-threaded
 * collective's rendezvous): the thread that passes thread_id `thread`. */
void shoal_wait_note_thread(int thread, const char *what);
void shoal_wait_note_clear(void);

/* Called by the wait engine around a wait that blocks (now_ns 0: read
 * the clock). */
void shoal_wait_record_begin(const char *fn, const void *addr, uint64_t now_ns);
void shoal_wait_record_end(void);

/* At init, before the bootstrap opens: makes the hang page and gives its
 * descriptor to the bootstrap (which passes it to oshrun), and installs the
 * SIGQUIT report, unless the program has its own SIGQUIT handler.  Both
 * stay after finalize (and then say that nothing is blocked). */
void shoal_wait_report_install(void);
/* Writes the report of every thread of this PE to fd. */
void shoal_wait_report(int fd);

/* A thread blocked in the network transport on a request to `pe` (-1:
 * several): the hang report names it; the calls nest inside a wait's own
 * record, which the end restores (core/net_link.c's hooks). */
void shoal_wait_net_begin(const char *fn, int pe, const char *what);
void shoal_wait_net_end(void);

/* A thread blocked in a bootstrap call (core/boot_wait.c): `via` names the
 * call and what carries it ("the bootstrap barrier, through oshrun's
 * socket"), so that the report does not take it for a network request. */
void shoal_wait_boot_begin(const char *fn, const char *what, const char *via);
void shoal_wait_boot_end(void);
#endif
