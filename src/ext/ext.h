/* ext/ — the seed extensions, a layer between coll and core:
 *   ext/requests/  request handles (shmemx _nbe, merge; docs/requests.md)
 *   ext/am/        active messages (shmemx_am_*; docs/active-messages.md),
 *                  whose _nbe sends complete requests (ext/am may call
 *                  ext/requests, never the other way round).
 * They are built on core's operations, wait engine and transports; core
 * reaches them only through the hooks this layer registers
 * (core/ext_hooks.h): serve pending work while waiting, init, finalize's
 * fini and teardown, and the network transport's active-message upcalls.
 * coll/ does not use them.
 * May call: core, transport/shm, the transport contract (transport/net.h).
 *
 * This header: the layer's entry, which api/setup.c calls before
 * shoal_runtime_init. */
#ifndef SHOAL_EXT_H
#define SHOAL_EXT_H
/* Registers the extensions' hooks with core (once; later calls do nothing). */
void shoal_ext_install(void);
#endif
