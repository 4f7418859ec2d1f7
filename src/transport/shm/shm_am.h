/* transport/shm/shm_am.h — the on-node side of active messages: the
 * layout of a PE's message area (in its heap segment, mapped by every PE
 * of the node) and the multi-producer, multi-consumer ring that other PEs'
 * senders append to and this PE's threads take from.
 *
 * Owns: the layout (rings, staging lanes, completion counters and records)
 * and the ring operations.  May call: libc.  The extension layer
 * (ext/am/) decides
 * what goes in a slot, runs the handlers and owns everything about tags,
 * contexts and requests.
 *
 * The ring is a bounded array of slots with a sequence word each (after
 * D. Vyukov's bounded MPMC queue).  A producer takes the position at
 * `tail` with one compare-and-swap once that position's slot is free (its
 * only atomic read-modify-write; it is retried only when another producer
 * took the position first), fills the slot and publishes it with a release
 * store of its sequence word.  A producer never holds a position it cannot
 * fill yet: one that waited for a free slot while holding a position would
 * stop the consumers at that position, and a consumer that sends from a
 * handler (into a full ring, possibly its own) could then never drain it.  A consumer takes the slot at `head`
 * with a compare-and-swap once it is published, and frees it when it is
 * done with it.  Sequence words start at zero (a fresh memfd needs no
 * initialization): for position p in slot i = p mod N, lap L = p - i,
 *   seq == L      the slot is free for position p,
 *   seq == L + 1  position p is published,
 *   seq == L + N  position p was consumed (the slot is free for p + N). */
#ifndef SHOAL_SHM_AM_H
#define SHOAL_SHM_AM_H
#include <stddef.h>
#include <stdint.h>

/* Rings per PE: a sender takes the ring of its context's counter (mod
 * RINGS), so threads with contexts of their own share no written line on
 * the send path (one tail per ring), and one context's messages keep one
 * ring, in order. */
#define SHOAL_AM_RINGS 4u
#define SHOAL_AM_SLOTS 256u     /* positions per ring (a power of two) */
#define SHOAL_AM_SLOT_SIZE 256u /* header + inline payload */
#define SHOAL_AM_INLINE 224u    /* = SHMEMX_AM_MAX_INLINE */
#define SHOAL_AM_LANES 8u       /* staging lanes per sender PE */
#define SHOAL_AM_LANE_SIZE ((size_t)128 * 1024)
#define SHOAL_AM_CHUNK (SHOAL_AM_LANE_SIZE / 2) /* large payloads: two halves in turn */
#define SHOAL_AM_COUNTERS 256u                  /* completion counters (contexts) */
#define SHOAL_AM_RECORDS 1024u /* completion records: _nbe messages in flight per PE */
/* A message names where its completion goes: counter c (0 .. COUNTERS - 1)
 * or, for an _nbe message, record SHOAL_AM_COUNTERS + i. */
_Static_assert(SHOAL_AM_COUNTERS + SHOAL_AM_RECORDS <= 65536u, "a slot's ctr is 16 bits");

/* Where a slot's payload is. */
enum shoal_am_kind {
    SHOAL_AM_K_INLINE,   /* in the slot */
    SHOAL_AM_K_LANE,     /* in the sender's lane `lane`, whole (<= SHOAL_AM_LANE_SIZE) */
    SHOAL_AM_K_STREAM,   /* streamed through the sender's lane in chunks */
    SHOAL_AM_K_NET_PART, /* network ring only: part of the payload in the sender's lane
                            `lane`, which the target fetches (struct shoal_am_net_part) */
};

/* The network ring's slots (ext/am/am_net.c): a payload larger than
 * SHOAL_AM_INLINE travels in parts of up to a lane each; the slot's `len`
 * is the whole payload's, its payload area holds this. */
struct shoal_am_net_part {
    uint64_t off, n; /* the part's bytes in the payload */
    uint64_t id;     /* the message, among its sender's (the parts' key) */
};

struct shoal_am_slot {
    uint64_t seq;
    uint64_t len;
    int32_t tag, src; /* src: world PE of the sender */
    uint16_t ctr;     /* the sender's completion counter or record */
    uint8_t kind;     /* enum shoal_am_kind */
    uint8_t lane;
    uint16_t ring; /* which of the target's rings it is in */
    uint16_t pad;
    unsigned char payload[SHOAL_AM_INLINE];
};
_Static_assert(sizeof(struct shoal_am_slot) == SHOAL_AM_SLOT_SIZE, "slot size");

struct shoal_am_ring {
    _Alignas(64) uint64_t tail; /* producers: next position */
    _Alignas(64) uint64_t head; /* consumers: next position */
    _Alignas(64) struct shoal_am_slot slots[SHOAL_AM_SLOTS];
};

/* A staging lane of the sender: a medium payload whole, or a large one
 * streamed chunk by chunk (chunk k in half k mod 2; `ready` counts the
 * chunks written by the sender, `taken` those copied out by the target). */
struct shoal_am_lane {
    _Alignas(64) uint64_t ready;
    _Alignas(64) uint64_t taken;
    _Alignas(64) unsigned char data[SHOAL_AM_LANE_SIZE];
};

/* A context's count of messages sent (written by the sender only) and
 * handled (added to by the targets), on separate lines.  `by_record`:
 * those of its _nbe messages that completed through their own record
 * (added to by the sender's threads only, as they notice). */
struct shoal_am_counter {
    _Alignas(64) uint64_t handled;
    _Alignas(64) uint64_t sent;
    uint64_t by_record;
};

/* Messages from PEs that reach this one through the network
 * (ext/am/am_net.c), apart from the on-node rings: its words are written by
 * network operations only, never by CPU atomics.  Senders take a position
 * with a network fetch-add on `tail`, write the slot (all but `seq`) with a
 * put, fence, and put `seq` = position + 1; this PE's threads take
 * position p once slot p mod N shows seq == p + 1 (acquire load), and
 * publish how many they took in `head` (a network set, every N/4
 * positions), which senders read with a network fetch when the ring looks
 * full. */
#define SHOAL_AM_NET_SLOTS 256u
struct shoal_am_net_ring {
    _Alignas(64) uint64_t tail;
    _Alignas(64) uint64_t head;
    _Alignas(64) struct shoal_am_slot slots[SHOAL_AM_NET_SLOTS];
};

struct shoal_am_area {
    struct shoal_am_ring rings[SHOAL_AM_RINGS]; /* messages to this PE */
    _Alignas(64) uint32_t lanes_busy;           /* bit i: lane i holds a payload */
    struct shoal_am_counter ctr[SHOAL_AM_COUNTERS];
    /* Record i: how many of the _nbe messages that used it were handled
     * (added to by the targets, one message at a time per record). */
    _Alignas(64) uint64_t rec_done[SHOAL_AM_RECORDS];
    struct shoal_am_lane lanes[SHOAL_AM_LANES];
    struct shoal_am_net_ring net; /* messages to this PE through the network */
    /* Lane i lent to the network: how many of its parts were fetched by
     * their targets (network adds only; this PE reads them). */
    _Alignas(64) uint64_t net_lane_done[SHOAL_AM_LANES];
};

/* ------------------------------------------------------------- producer */

static inline struct shoal_am_slot *shoal_am_ring_slot(struct shoal_am_ring *r, uint64_t pos)
{
    return &r->slots[pos & (SHOAL_AM_SLOTS - 1)];
}

/* Takes the next position of `r` (the target's ring, mapped) into *pos,
 * or returns 0 when the ring is full. */
static inline int shoal_am_ring_claim(struct shoal_am_ring *r, uint64_t *pos_out)
{
    uint64_t pos = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
    for (;;) {
        uint64_t lap = pos & ~(uint64_t)(SHOAL_AM_SLOTS - 1);
        int64_t d =
            (int64_t)(__atomic_load_n(&shoal_am_ring_slot(r, pos)->seq, __ATOMIC_ACQUIRE) - lap);
        if (d < 0)
            return 0; /* the slot still holds the previous lap's message */
        if (d == 0 && __atomic_compare_exchange_n(&r->tail, &pos, pos + 1, 1, __ATOMIC_RELAXED,
                                                  __ATOMIC_RELAXED)) {
            *pos_out = pos;
            return 1;
        }
        if (d > 0) /* another producer took it: look again */
            pos = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
    }
}

/* The slot is filled: consumers may take it. */
static inline void shoal_am_ring_publish(struct shoal_am_ring *r, uint64_t pos)
{
    uint64_t lap = pos & ~(uint64_t)(SHOAL_AM_SLOTS - 1);
    __atomic_store_n(&shoal_am_ring_slot(r, pos)->seq, lap + 1, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------- consumer */

/* Is a message published at the head (cheap: two loads)? */
static inline int shoal_am_ring_pending(struct shoal_am_ring *r)
{
    uint64_t pos = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
    uint64_t lap = pos & ~(uint64_t)(SHOAL_AM_SLOTS - 1);
    return __atomic_load_n(&shoal_am_ring_slot(r, pos)->seq, __ATOMIC_ACQUIRE) == lap + 1;
}

/* Takes the message at the head, or returns NULL when none is published
 * there (also when its producer is still filling it). */
static inline struct shoal_am_slot *shoal_am_ring_take(struct shoal_am_ring *r, uint64_t *pos_out)
{
    uint64_t pos = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
    for (;;) {
        uint64_t lap = pos & ~(uint64_t)(SHOAL_AM_SLOTS - 1);
        struct shoal_am_slot *s = shoal_am_ring_slot(r, pos);
        int64_t d = (int64_t)(__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) - (lap + 1));
        if (d < 0)
            return NULL;
        if (d == 0 && __atomic_compare_exchange_n(&r->head, &pos, pos + 1, 1, __ATOMIC_RELAXED,
                                                  __ATOMIC_RELAXED)) {
            *pos_out = pos;
            return s;
        }
        if (d > 0) /* taken by another consumer: look again */
            pos = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
    }
}

/* The consumer is done with the slot: a producer may reuse it. */
static inline void shoal_am_ring_release(struct shoal_am_ring *r, uint64_t pos)
{
    uint64_t lap = pos & ~(uint64_t)(SHOAL_AM_SLOTS - 1);
    __atomic_store_n(&shoal_am_ring_slot(r, pos)->seq, lap + SHOAL_AM_SLOTS, __ATOMIC_RELEASE);
}

/* ---------------------------------------------------------------- lanes */

/* Takes a free lane of this PE's area, or returns -1 when all are busy. */
static inline int shoal_am_lane_take(struct shoal_am_area *a)
{
    uint32_t m = __atomic_load_n(&a->lanes_busy, __ATOMIC_RELAXED);
    const uint32_t all = (1u << SHOAL_AM_LANES) - 1;
    while ((m & all) != all) {
        int i = __builtin_ctz(~m);
        if (__atomic_compare_exchange_n(&a->lanes_busy, &m, m | (1u << i), 1, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED))
            return i;
    }
    return -1;
}

/* The target is done with lane i of the sender's area `a` (mapped). */
static inline void shoal_am_lane_give_back(struct shoal_am_area *a, int i)
{
    __atomic_fetch_and(&a->lanes_busy, ~(1u << i), __ATOMIC_RELEASE);
}
#endif
