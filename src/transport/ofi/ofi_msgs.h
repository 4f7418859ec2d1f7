/* transport/ofi's messages: collectives' signals (ofi_signal.c),
 * collectives' data (ofi_coll_msg.c) and active messages (ofi_am.c) as
 * libfabric tagged messages
 * (FI_TAGGED) to the peer's target endpoint, where the job takes them
 * (ofi_msgs.c decides, job-wide, at init).  Owns: the receives posted on
 * the target endpoint, whose completions the target's progress hands to
 * each receive's own function (ofi_wait.c).  May call what
 * ofi_internal.h declares. */
#ifndef SHOAL_OFI_MSGS_H
#define SHOAL_OFI_MSGS_H

#include <rdma/fi_tagged.h>

#include "transport/ofi/ofi_internal.h"

/* Tags: the top bit marks a collective's data (its low 63 bits are the
 * core's tag); signals have one tag of their own ("SHOALSIG", top bit
 * clear), so neither can meet the other's receives. */
#define OFI_COLL_TAG_MARK ((uint64_t)1 << 63)
#define OFI_COLL_TAG_BITS (OFI_COLL_TAG_MARK - 1)
#define OFI_SIG_TAG 0x53484f414c534947ull
/* Active messages' headers ("SHOALAM"), and their large payloads: bit 61
 * (the bits above clear, unlike the tags above), the sender's PE and a
 * number. */
#define OFI_AM_TAG 0x53484f414c414d00ull
#define OFI_AM_DATA_MARK ((uint64_t)1 << 61)

/* Data bytes a signal may carry (shoal_net_signal_data): copied before
 * the add at the receiver, so no fence orders them. */
#define OFI_SIGNAL_DATA_MAX 224

/* A receive posted on the target endpoint: the context of its completion,
 * which the target's progress hands to `done` (err: 0, or the entry's
 * FI_E* error; olen: the bytes that did not fit, with FI_ETRUNC). */
struct ofi_rx {
    struct fi_context2 fi_ctx; /* first: the provider's, where it asks for FI_CONTEXT(2) */
    void (*done)(struct ofi_rx *rx, size_t len, uint64_t tag, int err, size_t olen);
};
/* A receive's error that is no failure: cancelled when its endpoint
 * closed, or failed once this PE is leaving (peers close connections). */
static inline int ofi_rx_error_expected(int err)
{
    return err == FI_ECANCELED || __atomic_load_n(&ofi_g.leaving, __ATOMIC_RELAXED);
}

/* What the job takes as messages (SHOAL_OFI_MSGS, and every PE's provider
 * offering FI_TAGGED). */
struct ofi_msgs {
    int signals; /* collectives' signals (with their data) */
    int coll;    /* collectives' data */
    int am;      /* active messages (ofi_am.c) */
    /* [pe]: a signal from pe arrived, so its host answers (its target
     * endpoint's records may be read over a new connection: ofi_peek.c). */
    unsigned char *heard;
};
extern struct ofi_msgs ofi_msgs;
/* Whether a signal from pe arrived (ofi_msgs.heard). */
int ofi_msgs_heard(int pe);

/* ofi_msgs.c: at init, after the exchange of addresses (collective):
 * decides, posts the signals' receives, fills out's coll_msgs and
 * signal_data; 0 or -1 with a message.  fini: before the endpoints go. */
int ofi_msgs_setup(struct shoal_net_init_result *out, char *err, size_t errlen);
void ofi_msgs_fini(void);

/* ofi_am.c: 0, or -1 (out of memory); fini after the endpoints closed. */
int ofi_am_post_receives(void);
void ofi_am_fini(void);

/* ofi_signal.c */
void ofi_signal_post_receives(void);
/* A signal as a message to pe's target endpoint: the add of `value` to
 * `word` after the n <= OFI_SIGNAL_DATA_MAX bytes of src land at dest;
 * locally complete at return. */
void ofi_signal_send(struct ofi_ep *e, uint64_t *word, uint64_t value, void *dest, const void *src,
                     size_t n, int pe, const char *fn);

/* Sends `len` bytes tagged `tag` from e to pe's target endpoint and
 * returns once src may be reused (waits, with `waits` called every few ms
 * when not NULL, for a send that needs the receiver). */
void ofi_msg_send(struct ofi_ep *e, uint64_t tag, const void *src, size_t len, int pe,
                  void (*waits)(void *arg), void *arg, const char *fn, const char *what);
/* Posts a receive on the target endpoint (again while -FI_EAGAIN). */
void ofi_msg_recv(void *buf, size_t len, uint64_t tag, uint64_t ignore, struct ofi_rx *rx,
                  const char *fn);

#endif
