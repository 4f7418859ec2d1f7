/* Active messages (shmemx.h; docs/active-messages.md): argument checks,
 * then ext/am/am.h.  Bad tags and handlers are fatal errors naming the
 * routine and the argument; registering a tag that is taken (or
 * unregistering one that is free) returns 1 and changes nothing. */
#include <shmemx.h>

#include "api/export.h"
#include "ext/am/am.h"
#include "core/config/error.h"
#include "core/ops.h"
#include "core/profile/profile.h"

_Static_assert(SHMEMX_AM_TAG_MAX == SHOAL_AM_TAGS, "tag count");
_Static_assert(SHMEMX_AM_MAX_INLINE == SHOAL_AM_INLINE, "inline size");

static void check_live(const char *fn)
{
    if (SHOAL_UNLIKELY(!__atomic_load_n(&shoal_am_live, __ATOMIC_ACQUIRE)))
        shoal_err_not_init(fn);
}

static void check_tag(int tag, const char *fn)
{
    if (SHOAL_UNLIKELY((unsigned)tag >= SHMEMX_AM_TAG_MAX))
        shoal_fatal(fn, "argument 'tag' = %d is not in 0 .. SHMEMX_AM_TAG_MAX - 1 = %d", tag,
                    SHMEMX_AM_TAG_MAX - 1);
}

SHOAL_EXPORT int pshmemx_am_register(int tag, shmemx_am_handler_t handler, void *arg)
{
    const char *fn = "shmemx_am_register";
    check_live(fn);
    check_tag(tag, fn);
    if (SHOAL_UNLIKELY(handler == NULL))
        shoal_fatal(fn, "argument 'handler' is a null pointer (tag %d)", tag);
    return shoal_am_register(tag, handler, arg);
}
SHOAL_WEAK_ALIAS(shmemx_am_register, pshmemx_am_register)

SHOAL_EXPORT int pshmemx_am_unregister(int tag)
{
    const char *fn = "shmemx_am_unregister";
    check_live(fn);
    check_tag(tag, fn);
    return shoal_am_unregister(tag);
}
SHOAL_WEAK_ALIAS(shmemx_am_unregister, pshmemx_am_unregister)

SHOAL_EXPORT void pshmemx_am_send(shmem_ctx_t ctx, int pe, int tag, const void *payload, size_t len)
{
    const char *fn = "shmemx_am_send";
    check_tag(tag, fn);
    if (SHOAL_UNLIKELY(shoal_g.debug) && len && !payload)
        shoal_fatal(fn, "argument 'payload' is a null pointer with 'len' = %zu", len);
    SHOAL_PROFILED_TO(SHOAL_PROF_AM_SEND, ctx, pe, len,
                      shoal_am_send(ctx, pe, tag, payload, len, fn));
}
SHOAL_WEAK_ALIAS(shmemx_am_send, pshmemx_am_send)

SHOAL_EXPORT void pshmemx_am_send_nbe(shmem_ctx_t ctx, int pe, int tag, const void *payload,
                                      size_t len, shmemx_request_h *req)
{
    const char *fn = "shmemx_am_send_nbe";
    check_tag(tag, fn);
    if (SHOAL_UNLIKELY(shoal_g.debug) && len && !payload)
        shoal_fatal(fn, "argument 'payload' is a null pointer with 'len' = %zu", len);
    SHOAL_PROFILED_TO(SHOAL_PROF_AM_SEND_NBE, ctx, pe, len,
                      shoal_am_send_nbe(ctx, pe, tag, payload, len, req, fn));
}
SHOAL_WEAK_ALIAS(shmemx_am_send_nbe, pshmemx_am_send_nbe)

static size_t am_poll(const char *fn)
{
    shoal_poll_network();
    return shoal_am_run(SHOAL_AM_SLOTS, fn);
}

SHOAL_EXPORT size_t pshmemx_am_poll(void)
{
    const char *fn = "shmemx_am_poll";
    check_live(fn);
    size_t ran;
    SHOAL_PROFILED(SHOAL_PROF_AM_POLL, 0, ran = am_poll(fn));
    return ran;
}
SHOAL_WEAK_ALIAS(shmemx_am_poll, pshmemx_am_poll)

SHOAL_EXPORT void pshmemx_am_quiet(shmem_ctx_t ctx)
{
    SHOAL_PROFILED(SHOAL_PROF_AM_QUIET, 0, shoal_am_quiet(ctx, "shmemx_am_quiet"));
}
SHOAL_WEAK_ALIAS(shmemx_am_quiet, pshmemx_am_quiet)
