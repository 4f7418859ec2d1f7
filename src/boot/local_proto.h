/* local_proto.h — the wire protocol between oshrun (tools/oshrun/) and the
 * "local" bootstrap (boot_local.c).  Shared by both sides; plain C11 + libc.
 *
 * Transport.  oshrun creates one AF_UNIX SOCK_SEQPACKET socketpair per PE and
 * leaves the PE's end open across exec; its number is in SHOAL_BOOT_FD.
 * SEQPACKET keeps record boundaries, but one record must fit in the socket's
 * send buffer (about 200 KiB by default), while an allgather reply can be
 * megabytes (a few KiB per rank times hundreds of ranks).  So:
 *
 * Framing.  A message is one header record (exactly sizeof(struct
 * shoal_msg_hdr) bytes) followed by payload records that together carry
 * hdr.len bytes.  A payload record holds 1..SHOAL_PROTO_FRAG bytes; the sender
 * may use smaller records (it halves the size when the kernel answers
 * EMSGSIZE), the receiver reads each record into place with at most
 * min(SHOAL_PROTO_FRAG, bytes still expected) room and treats a longer record
 * (MSG_TRUNC) as a protocol error.  No zero-length record is ever sent, so a
 * recv() of 0 always means the other side has gone (EOF).
 *
 * Each side has at most one message in flight per direction at a time
 * except ABORT, which a PE may send while another of its threads waits for a
 * reply; the PE serializes its sends so records of two messages never mix.
 *
 * Messages (PE -> oshrun):
 *   HELLO        a = rank, b = size.  "This PE has started shmem_init."
 *                oshrun answers HELLO_ACK (a = rank, b = size) or ERROR.
 *                Its header record may carry one descriptor (SCM_RIGHTS):
 *                the PE's hang page (hang_page.h), which oshrun maps
 *                read-only to report where the PE waits without signalling
 *                it.  A PE without one gets no report from oshrun; any
 *                descriptor on another message is closed unread.
 *   ALLGATHER    payload = this rank's contribution (len may be 0: that is
 *                the barrier).  Collective over all ranks, in call order;
 *                every rank must contribute the same length.  oshrun answers
 *                each rank with ALLGATHER_DONE, payload = size * len bytes,
 *                rank r's contribution at r * len; or with ERROR (lengths
 *                differ, or a rank exited without contributing).
 *   FINALIZE     this PE finalizes cleanly; its exit is then normal.
 *   ABORT        a = exit status, payload = reason text (no NUL, may be
 *                empty).  oshrun reports it and ends the job with a & 0xff
 *                (1 if that is 0: an abort is a failure).  The PE _exits
 *                right after sending it.
 *   GLOBAL_EXIT  a = exit status.  shmem_global_exit: oshrun ends the job
 *                with status a without calling it a failure.
 * Messages (oshrun -> PE):
 *   HELLO_ACK, ALLGATHER_DONE as above; ERROR: payload = text (no NUL).
 *
 * All integers are in host byte order: both ends run on the same node. */
#ifndef SHOAL_BOOT_LOCAL_PROTO_H
#define SHOAL_BOOT_LOCAL_PROTO_H

#include <stdint.h>

/* "SHL" + protocol version: a PE and an oshrun of different versions reject
 * each other's first header instead of misreading it. */
#define SHOAL_PROTO_MAGIC 0x53484c01u

/* Largest payload record. */
#define SHOAL_PROTO_FRAG ((uint64_t)64 * 1024)

/* Sanity bound on one message's payload (an allgather reply). */
#define SHOAL_PROTO_MAX_LEN ((uint64_t)1 << 34)

/* Longest ABORT reason and ERROR text either side keeps (longer ones are
 * cut, not refused). */
#define SHOAL_PROTO_TEXT_MAX 1024

enum shoal_msg_type {
    SHOAL_MSG_HELLO = 1,
    SHOAL_MSG_ALLGATHER = 2,
    SHOAL_MSG_FINALIZE = 3,
    SHOAL_MSG_ABORT = 4,
    SHOAL_MSG_GLOBAL_EXIT = 5,
    SHOAL_MSG_HELLO_ACK = 16,
    SHOAL_MSG_ALLGATHER_DONE = 17,
    SHOAL_MSG_ERROR = 18,
};

struct shoal_msg_hdr {
    uint32_t magic; /* SHOAL_PROTO_MAGIC */
    uint32_t type;  /* enum shoal_msg_type */
    int32_t a, b;   /* per-type arguments (see above); 0 when unused */
    uint64_t len;   /* payload bytes following in payload records */
};

_Static_assert(sizeof(struct shoal_msg_hdr) == 24, "shoal_msg_hdr is a wire format");

static inline const char *shoal_msg_name(uint32_t type)
{
    switch (type) {
    case SHOAL_MSG_HELLO: return "HELLO";
    case SHOAL_MSG_ALLGATHER: return "ALLGATHER";
    case SHOAL_MSG_FINALIZE: return "FINALIZE";
    case SHOAL_MSG_ABORT: return "ABORT";
    case SHOAL_MSG_GLOBAL_EXIT: return "GLOBAL_EXIT";
    case SHOAL_MSG_HELLO_ACK: return "HELLO_ACK";
    case SHOAL_MSG_ALLGATHER_DONE: return "ALLGATHER_DONE";
    case SHOAL_MSG_ERROR: return "ERROR";
    default: return "unknown";
    }
}

/* The last error text of the local bootstrap in this process ("" if none).
 * boot.h's interface returns -1 without a text; the caller can fetch it
 * here.  (Defined in boot_local.c.) */
const char *shoal_boot_local_error(void);

#endif
