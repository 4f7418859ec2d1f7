/* The extension layer's hooks, as core keeps them (ext_hooks.h). */
#include "core/ext_hooks.h"

struct shoal_ext_hooks shoal_ext;
int shoal_ext_live;
int shoal_ext_req_net_used;

void shoal_ext_set_hooks(const struct shoal_ext_hooks *h)
{
    shoal_ext = *h;
}

void shoal_ext_init(void)
{
    if (!shoal_ext.init)
        return;
    shoal_ext.init();
    if (shoal_ext.serve && shoal_ext.pending)
        __atomic_store_n(&shoal_ext_live, 1, __ATOMIC_RELEASE);
}

void shoal_ext_fini(void)
{
    __atomic_store_n(&shoal_ext_live, 0, __ATOMIC_RELEASE);
    if (shoal_ext.fini)
        shoal_ext.fini();
}

void shoal_ext_teardown(void)
{
    if (shoal_ext.teardown)
        shoal_ext.teardown();
}
