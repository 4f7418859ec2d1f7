/* The request routines of shmemx.h (issue 14, docs/requests.md): thin
 * wrappers around ext/requests/request.c, each with its pshmemx_ twin.  The _nbe
 * operations themselves are generated from the table (api_x_req_*). */
#include <shmemx.h>

#include "api/export.h"
#include "core/profile/profile.h"
#include "ext/requests/request.h"

SHOAL_EXPORT int pshmemx_request_alloc(const shmemx_request_params_t *params, shmemx_request_h *req)
{
    shoal_check_init("shmemx_request_alloc");
    return shoal_request_alloc(params, req, "shmemx_request_alloc");
}
SHOAL_WEAK_ALIAS(shmemx_request_alloc, pshmemx_request_alloc)

SHOAL_EXPORT void pshmemx_request_free(shmemx_request_h *req)
{
    shoal_check_init("shmemx_request_free");
    shoal_request_free(req, "shmemx_request_free");
}
SHOAL_WEAK_ALIAS(shmemx_request_free, pshmemx_request_free)

SHOAL_EXPORT int pshmemx_request_test(shmemx_request_h *req, int *done)
{
    shoal_check_init("shmemx_request_test");
    int rc;
    SHOAL_PROFILED(SHOAL_PROF_REQUEST_TEST, 0,
                   rc = shoal_request_test(req, done, "shmemx_request_test"));
    return rc;
}
SHOAL_WEAK_ALIAS(shmemx_request_test, pshmemx_request_test)

static void request_wait(shmemx_request_h *req)
{
    if (SHOAL_LIKELY(shoal_request_wait_fast(req)))
        return;
    shoal_request_wait(req, "shmemx_request_wait");
}

SHOAL_EXPORT void pshmemx_request_wait(shmemx_request_h *req)
{
    shoal_check_init("shmemx_request_wait");
    SHOAL_PROFILED(SHOAL_PROF_REQUEST_WAIT, 0, request_wait(req));
}
SHOAL_WEAK_ALIAS(shmemx_request_wait, pshmemx_request_wait)

SHOAL_EXPORT void pshmemx_request_waitall(size_t n, shmemx_request_h *reqs)
{
    shoal_check_init("shmemx_request_waitall");
    SHOAL_PROFILED(SHOAL_PROF_REQUEST_WAIT, 0,
                   shoal_request_waitall(n, reqs, "shmemx_request_waitall"));
}
SHOAL_WEAK_ALIAS(shmemx_request_waitall, pshmemx_request_waitall)

SHOAL_EXPORT size_t pshmemx_request_waitany(size_t n, shmemx_request_h *reqs)
{
    shoal_check_init("shmemx_request_waitany");
    size_t i;
    SHOAL_PROFILED(SHOAL_PROF_REQUEST_WAIT, 0,
                   i = shoal_request_waitany(n, reqs, "shmemx_request_waitany"));
    return i;
}
SHOAL_WEAK_ALIAS(shmemx_request_waitany, pshmemx_request_waitany)

SHOAL_EXPORT int pshmemx_merge_request(size_t count, shmemx_request_h **requests,
                                       shmemx_request_h *merged)
{
    shoal_check_init("shmemx_merge_request");
    return shoal_request_merge(count, requests, merged, "shmemx_merge_request");
}
SHOAL_WEAK_ALIAS(shmemx_merge_request, pshmemx_merge_request)
