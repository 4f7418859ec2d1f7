/* core/ext_hooks.h — how core reaches the extension layer (src/ext/: the
 * active messages, the request handles), which sits above it: only
 * through the hooks the layer registers before shoal_runtime_init
 * (api/setup.c calls ext/ext.h's shoal_ext_install), never by a call of
 * its own.  A build or a test that registers none runs core alone.
 *
 * The wait engine's fast path stays a flag test: shoal_ext_live is
 * core's word, set once the layer's init hook has run and cleared before
 * its fini hook, so that a wait, quiet or fence of a PE that is not
 * initialized (or has no extension) makes no indirect call at all.
 * May call: nothing (core/state.h for SHOAL_UNLIKELY). */
#ifndef SHOAL_CORE_EXT_HOOKS_H
#define SHOAL_CORE_EXT_HOOKS_H
#include <stddef.h>

#include "core/state.h"

struct shoal_net_am_msg;

struct shoal_ext_hooks {
    /* Runtime init, once the default context exists and before its
     * network state is opened; finalize, after the last bootstrap barrier
     * and before the network closes (fini), and after it closed
     * (teardown). */
    void (*init)(void);
    void (*fini)(void);
    void (*teardown)(void);
    /* Is work ready for this PE's threads (a few loads)?  A waiter does
     * not go to sleep while it is. */
    int (*pending)(void);
    /* Runs what is ready: what every waiting loop of Shoal calls, every
     * few turns, and quiet.  `fn`: the routine inside which it runs. */
    void (*serve)(const char *fn);
    /* The network transport's upcalls for active messages
     * (transport/net.h: am_arrived, am_run), handed over at its init. */
    void (*net_am_arrived)(struct shoal_net_am_msg *m);
    size_t (*net_am_run)(void);
};

/* The registered hooks (all NULL until shoal_ext_set_hooks). */
extern struct shoal_ext_hooks shoal_ext;
void shoal_ext_set_hooks(const struct shoal_ext_hooks *h);

/* Set (release) after shoal_ext.init ran, cleared before shoal_ext.fini
 * runs: while it is set, pending and serve may be called. */
extern int shoal_ext_live;

/* Set by the request extension at the first _nbe operation that goes
 * through the network, cleared by its teardown: from then on quiet and
 * fence also complete the request workers' operations (ops.c). */
extern int shoal_ext_req_net_used;

/* What every waiting loop of core calls on its serving turns. */
static inline void shoal_ext_serve(const char *fn)
{
    if (SHOAL_UNLIKELY(__atomic_load_n(&shoal_ext_live, __ATOMIC_RELAXED)))
        shoal_ext.serve(fn);
}

/* Work is ready for the extensions (a sleeping waiter would delay it). */
static inline int shoal_ext_pending(void)
{
    return __atomic_load_n(&shoal_ext_live, __ATOMIC_RELAXED) && shoal_ext.pending();
}

/* Runtime init and finalize (runtime.c): the hooks and the flag. */
void shoal_ext_init(void);
void shoal_ext_fini(void);
void shoal_ext_teardown(void);
#endif
