/* The extension layer's hooks into core (ext.h, core/ext_hooks.h). */
#include "ext/ext.h"

#include "core/ext_hooks.h"
#include "ext/am/am.h"
#include "ext/requests/request.h"

/* Core tested shoal_ext_live before the call; shoal_am_serve looks at the
 * active messages' own flag again (one load) and then at their rings. */
static void serve(const char *fn)
{
    shoal_am_serve(fn);
}

static int pending(void)
{
    return shoal_am_pending();
}

void shoal_ext_install(void)
{
    static int installed; /* before any thread of Shoal exists */
    if (installed)
        return;
    static const struct shoal_ext_hooks hooks = {
        .init = shoal_am_init,
        .fini = shoal_am_fini,
        .teardown = shoal_request_teardown,
        .pending = pending,
        .serve = serve,
        .net_am_arrived = shoal_am_arrived,
        .net_am_run = shoal_am_progress_thread_run,
    };
    shoal_ext_set_hooks(&hooks);
    installed = 1;
}
