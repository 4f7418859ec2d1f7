/* UCX's grace period for code patches, given back (ucx_startup.h). */
#include <stdlib.h>

#include <ucp/api/ucp.h>
#if UCP_API_VERSION >= UCP_VERSION(1, 21)
#include <ucm/api/ucm.h>
#endif

#include "boot/boot.h"
#include "transport/ucx/ucx_startup.h"

/* UCX's own default since 1.21 (UCX_MEM_BISTRO_GRACE_DURATION=50ms). */
#define UCX_GRACE_DEFAULT_S 0.05

void ucx_startup_grace_back(void)
{
#if UCP_API_VERSION >= UCP_VERSION(1, 21)
    if (getenv(SHOAL_ENV_UCX_GRACE) && ucm_global_opts.bistro_grace_duration == 0)
        ucm_global_opts.bistro_grace_duration = UCX_GRACE_DEFAULT_S;
#endif
}
