/* ext/am/am.h — active messages (shmemx_am_*): handlers registered per tag,
 * messages that run them at the target, and their completion.
 *
 * Owns: the tag table (am.c), the send paths and shmemx_am_quiet (am.c),
 * running handlers (am_run.c): from this PE's on-node ring
 * (transport/shm/shm_am.h) and from the inbox the network transport fills
 * through the am_arrived hook (transport/net.h), and from the network ring
 * (am_net.c).  Its room, ext/am/: am.c, am_run.c, am_overflow.c,
 * am_req.c (the _nbe completion records), am_net.c (the network ring);
 * calls among them are this room's business.
 * May call: core (operations, the wait engine), ext/requests (the requests
 * its _nbe sends complete), transport/shm, the network transport through
 * transport/net.h.  Core calls it only through the hooks ext/ext.c
 * registers (core/ext_hooks.h).
 *
 * Routes, per target PE (the same choice as RMA's: mapped peers on-node,
 * the others through the context's network state):
 *   on-node, len <= SHOAL_AM_INLINE     the payload is copied into a slot
 *            of the target's ring; the send returns at once;
 *   on-node, len <= SHOAL_AM_LANE_SIZE  copied into one of the sender's
 *            staging lanes (its heap segment, which the target has
 *            mapped); the slot names the lane, the handler reads the
 *            payload in place, and the lane is free again after it returned;
 *   on-node, larger                     streamed through a lane in chunks
 *            (two halves in turn) into a buffer the target allocates; the
 *            send returns once the last chunk is in the lane;
 *   network: into the target's network ring (ext/am/am_net.c) with the
 *            network's fetch-add, put, fence and put; payloads larger
 *            than a slot in parts of up to a lane, which the target
 *            fetches from the sender's lanes with a get; or, where the
 *            transport carries messages itself (UCP AM: SHOAL_UCX_AM), its
 *            send (ucp_am_send_nbx), returning at local completion.
 * Completion: every message names a counter of its sending context, or
 * (shmemx_am_send_nbe) a completion record of its own (am_req.c); the
 * target adds 1 to it (an AMO, so network and CPU atomics never mix) after
 * the handler returned (shoal_am_done).  shmemx_am_quiet waits until the
 * counter's handled count, plus the context's records that completed,
 * has caught up with the count sent on that counter; a request waits only
 * for its own records. */
#ifndef SHOAL_EXT_AM_H
#define SHOAL_EXT_AM_H
#include <stddef.h>
#include <stdint.h>

#include "core/state.h"
#include "transport/shm/shm_am.h"

_Static_assert(SHOAL_AM_RINGS == 4, "shoal_am_pending looks at 4 rings");

struct shmemx_request;

#define SHOAL_AM_TAGS 256 /* = SHMEMX_AM_TAG_MAX */
/* Handlers a waiting thread runs per turn of its wait, so that a stream of
 * messages cannot keep it from seeing what it waits for. */
#define SHOAL_AM_BATCH 32
/* Handlers running inside handlers (a handler that polls, or waits inside
 * Shoal, runs others); deeper calls run none.  Deep enough that PEs whose
 * handlers all send to each other's full rings keep draining them (each
 * level costs a few hundred bytes of stack). */
#define SHOAL_AM_MAX_DEPTH 64

typedef void (*shoal_am_handler)(int src_pe, const void *payload, size_t len, void *arg);

/* Set at init once the area is usable, cleared at the last finalize. */
extern int shoal_am_live;
/* Messages from the network waiting in the inbox, and a streamed on-node
 * message being received (am_run.c). */
extern int shoal_am_inbox_n;
extern int shoal_am_stream_busy;
/* Messages sent from handlers that wait for room (am_overflow.c). */
extern int shoal_am_ovf_n;
/* Completion records owned by _nbe messages in flight (am_req.c). */
extern int shoal_am_rec_n;
/* The network ring (am_net.c): the next position this PE's threads take,
 * and sends queued plus lanes lent to the network (work for pollers). */
extern uint64_t shoal_am_net_head;
extern int shoal_am_net_busy;

static inline struct shoal_am_area *shoal_am_area_of_slot(int slot)
{
    return (struct shoal_am_area *)((char *)shoal_ctl_of_slot(slot) + SHOAL_AM_AREA_OFFSET);
}

static inline struct shoal_am_area *shoal_am_my_area(void)
{
    return (struct shoal_am_area *)(shoal_g.heap_me + SHOAL_AM_AREA_OFFSET);
}

/* Is a message published at the head of the network ring? */
static inline int shoal_am_net_ready(void)
{
    uint64_t h = __atomic_load_n(&shoal_am_net_head, __ATOMIC_RELAXED);
    const struct shoal_am_slot *s = &shoal_am_my_area()->net.slots[h % SHOAL_AM_NET_SLOTS];
    return __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) == h + 1;
}

/* Is a handler ready to run here (a few loads)? */
static inline int shoal_am_pending(void)
{
    struct shoal_am_ring *r = shoal_am_my_area()->rings;
    return shoal_am_ring_pending(&r[0]) || shoal_am_ring_pending(&r[1]) ||
           shoal_am_ring_pending(&r[2]) || shoal_am_ring_pending(&r[3]) || shoal_am_net_ready() ||
           __atomic_load_n(&shoal_am_net_busy, __ATOMIC_RELAXED) != 0 ||
           __atomic_load_n(&shoal_am_inbox_n, __ATOMIC_RELAXED) != 0 ||
           __atomic_load_n(&shoal_am_stream_busy, __ATOMIC_RELAXED) != 0 ||
           __atomic_load_n(&shoal_am_ovf_n, __ATOMIC_RELAXED) != 0;
}

/* Runs up to `max` pending handlers on the calling thread (fewer when
 * nested too deep); returns how many ran.  `fn`: the routine inside which
 * they run, for errors. */
size_t shoal_am_run(size_t max, const char *fn);

/* What every waiting loop of Shoal calls on each turn.  While _nbe
 * messages are in flight it also looks for their completions (a request
 * waiting in this loop may own one). */
static inline void shoal_am_serve(const char *fn)
{
    if (SHOAL_UNLIKELY(__atomic_load_n(&shoal_am_live, __ATOMIC_RELAXED)) &&
        (shoal_am_pending() || __atomic_load_n(&shoal_am_rec_n, __ATOMIC_RELAXED) != 0))
        shoal_am_run(SHOAL_AM_BATCH, fn);
}

void shoal_am_init(void);
void shoal_am_fini(void);
/* 0, or 1 when the tag is already registered (register) / not registered
 * (unregister).  tag and handler are checked by the caller. */
int shoal_am_register(int tag, shoal_am_handler h, void *arg);
int shoal_am_unregister(int tag);
void shoal_am_send(shmem_ctx_t ctx, int pe, int tag, const void *payload, size_t len,
                   const char *fn);
void shoal_am_quiet(shmem_ctx_t ctx, const char *fn);
/* shoal_am_send whose message completes *req at its own pace. */
void shoal_am_send_nbe(shmem_ctx_t ctx, int pe, int tag, const void *payload, size_t len,
                       struct shmemx_request **req, const char *fn);

/* Handlers running on the calling thread now (am_run.c). */
int shoal_am_depth(void);
/* Puts a message (inline or staged kind) into the ring of the PE in node
 * slot `tslot` without waiting: 0 when the ring is full or no lane is free
 * (am.c). */
int shoal_am_try_post(int tslot, const struct shoal_am_slot *hdr, const void *payload);
/* A streamed message (payload larger than a lane) without waiting (am.c):
 * try_post takes a lane (once: *lane_held), writes the first two chunks
 * and puts the slot into the ring, 0 when no lane is free or the ring is
 * full; step writes the chunks the target made room for (from the count
 * written, the lane's `ready`), 1 once the last is in the lane (the
 * payload is then no longer read). */
int shoal_am_stream_try_post(int tslot, struct shoal_am_slot *hdr, const void *payload,
                             int *lane_held);
int shoal_am_stream_step(int lane, const void *payload, uint64_t len);
/* The overflow queues (am_overflow.c), which also write the chunks of the
 * streamed messages queued there once they are posted
 * (shoal_am_ovf_streams, at any depth: it runs no handler). */
void shoal_am_ovf_init(void);
void shoal_am_ovf_fini(void);
int shoal_am_ovf_busy(int tslot);
void shoal_am_ovf_add(int tslot, const struct shoal_am_slot *hdr, const void *payload,
                      const char *fn);
void shoal_am_ovf_flush(void);
void shoal_am_ovf_streams(void);

/* A message of the sender's counter or record `ctr` was handled (am_run.c
 * calls it for every message). */
void shoal_am_done(int src, unsigned ctr, const char *fn);
/* Completion records (am_req.c): one for an _nbe message of request `r`
 * on counter `ctr` (waits while all are in flight); returns what the
 * message names as its completion (SHOAL_AM_COUNTERS + record).  harvest
 * completes the requests' operations whose messages were handled, and
 * returns how many. */
void shoal_am_rec_init(void);
unsigned shoal_am_rec_take(struct shmemx_request *r, unsigned ctr, const char *fn);
int shoal_am_rec_harvest(void);
/* The tag's handler and argument, or a fatal error naming the sender. */
shoal_am_handler shoal_am_handler_of(int tag, int src, void **arg, const char *fn);

/* The network ring (am_net.c).  send: a message to world PE `pe`, which
 * the network reaches, on the context's network state `net`.  run_one:
 * takes the ring's next message: -1 none (or another thread takes one), 0
 * taken without a handler to run yet (a part), 1 its handler ran.
 * service: lanes the targets gave back, queued sends that can go on. */
struct shoal_net_ctx;
void shoal_am_net_init(void);
void shoal_am_net_fini(void);
void shoal_am_net_send(struct shoal_net_ctx *net, int pe, int tag, unsigned ctr,
                       const void *payload, size_t len, const char *fn);
int shoal_am_net_run_one(const char *fn);
void shoal_am_net_service(const char *fn);

/* Hooks of the network transport (ext/ext.c registers them with core,
 * whose net_link.c hands them over). */
struct shoal_net_am_msg;
void shoal_am_arrived(struct shoal_net_am_msg *m);
size_t shoal_am_progress_thread_run(void);
#endif
