/* Completion records of shmemx_am_send_nbe (ext/am/am.h): an _nbe message
 * takes a record of its sending PE, the target adds 1 to that record's
 * word in the area (rec_done) after the handler returned (the same AMO
 * that a plain message adds to its context's counter), and whichever
 * thread of the sender notices the record moved completes the request's
 * pending operation.  So a request waits for its own messages only, never
 * for the other messages of the context.
 *
 * A record is owned by one message from take to completion.  Its word
 * only grows (network AMOs and CPU stores must never mix on it): the
 * message is handled once the word reaches `want`, the number of messages
 * that ever used the record. */
#include <string.h>

#include "ext/am/am.h"
#include "ext/requests/request.h"
#include "core/waiting/wait.h"

#define WORDS (SHOAL_AM_RECORDS / 64)

/* want and ctr are written by the owner before it publishes req, and read
 * (atomically: a look may race with a new owner) by any thread. */
struct record {
    struct shmemx_request *req; /* published last (release), taken by exchange */
    uint64_t want;
    unsigned ctr;  /* the context's counter (shmemx_am_quiet counts it) */
    uint64_t used; /* messages that used it so far: only its owner writes */
};

static struct record recs[SHOAL_AM_RECORDS];
static uint64_t busy[WORDS]; /* bit i: record i is owned */
int shoal_am_rec_n;          /* records owned (atomic) */

void shoal_am_rec_init(void)
{
    /* The area is fresh at every init (its words are zero again). */
    memset(recs, 0, sizeof recs);
    memset(busy, 0, sizeof busy);
    __atomic_store_n(&shoal_am_rec_n, 0, __ATOMIC_RELAXED);
}

static int try_take(void)
{
    for (unsigned w = 0; w < WORDS; w++) {
        uint64_t m = __atomic_load_n(&busy[w], __ATOMIC_RELAXED);
        while (~m) {
            int b = __builtin_ctzll(~m);
            if (__atomic_compare_exchange_n(&busy[w], &m, m | (1ull << b), 1, __ATOMIC_ACQUIRE,
                                            __ATOMIC_RELAXED))
                return (int)(w * 64 + (unsigned)b);
        }
    }
    return -1;
}

/* A record, harvesting finished ones when none is free; -1 if none. */
static int take_or_harvest(void)
{
    int i = try_take();
    if (i < 0 && shoal_am_rec_harvest() > 0)
        i = try_take();
    return i;
}

/* The wait engine's readiness test: it may be called more often than the
 * loop turns (before a sleep, by a wait that looks again after the
 * network moved), so it only looks, and takes nothing (a test that took
 * a record leaked it whenever the engine's call, not the loop's, took). */
static int record_free(void *p)
{
    (void)p;
    for (unsigned w = 0; w < WORDS; w++)
        if (~__atomic_load_n(&busy[w], __ATOMIC_RELAXED))
            return 1;
    return shoal_am_rec_harvest() > 0;
}

unsigned shoal_am_rec_take(struct shmemx_request *r, unsigned ctr, const char *fn)
{
    int i = try_take();
    if (SHOAL_UNLIKELY(i < 0)) {
        /* Every record is in flight: wait (running handlers, noticing
         * completions) until one comes back. */
        struct shoal_waiter w;
        shoal_waiter_init(&w, shoal_my_slot(), fn, busy);
        while ((i = take_or_harvest()) < 0)
            shoal_backoff(&w, record_free, NULL);
        shoal_waiter_done(&w);
    }
    struct record *x = &recs[i];
    __atomic_store_n(&x->ctr, ctr, __ATOMIC_RELAXED);
    __atomic_store_n(&x->want, ++x->used, __ATOMIC_RELAXED);
    shoal_request_add_pending(r);
    __atomic_add_fetch(&shoal_am_rec_n, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&x->req, r, __ATOMIC_RELEASE);
    return SHOAL_AM_COUNTERS + (unsigned)i;
}

static int handled(unsigned i, const struct record *x)
{
    const uint64_t *d = &shoal_am_my_area()->rec_done[i];
    return __atomic_load_n(d, __ATOMIC_ACQUIRE) >= __atomic_load_n(&x->want, __ATOMIC_RELAXED);
}

/* Record i, seen owned by r and handled: complete it unless another
 * thread got there first. */
static int finish(unsigned i, struct shmemx_request *r)
{
    struct record *x = &recs[i];
    struct shmemx_request *got = __atomic_exchange_n(&x->req, NULL, __ATOMIC_ACQ_REL);
    if (got == NULL)
        return 0;
    if (got != r || !handled(i, x)) {
        /* Between our look and the exchange it was completed, taken again
         * by a new message and not yet handled: not ours to finish. */
        __atomic_store_n(&x->req, got, __ATOMIC_RELEASE);
        return 0;
    }
    /* Counted for shmemx_am_quiet before the request can complete. */
    unsigned c = __atomic_load_n(&x->ctr, __ATOMIC_RELAXED);
    __atomic_add_fetch(&shoal_am_my_area()->ctr[c].by_record, 1, __ATOMIC_RELEASE);
    __atomic_sub_fetch(&shoal_am_rec_n, 1, __ATOMIC_RELAXED);
    __atomic_fetch_and(&busy[i / 64], ~(1ull << (i % 64)), __ATOMIC_RELEASE);
    shoal_request_op_done(got, 0);
    return 1;
}

int shoal_am_rec_harvest(void)
{
    int n = 0;
    for (unsigned w = 0; w < WORDS; w++) {
        uint64_t m = __atomic_load_n(&busy[w], __ATOMIC_ACQUIRE);
        while (m) {
            unsigned i = w * 64 + (unsigned)__builtin_ctzll(m);
            m &= m - 1;
            struct shmemx_request *r = __atomic_load_n(&recs[i].req, __ATOMIC_ACQUIRE);
            if (!r || !handled(i, &recs[i]))
                continue;
            n += finish(i, r);
        }
    }
    return n;
}
