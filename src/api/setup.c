/* Library setup, exit and query; thread support; profiling control.
 * api/ — one file per spec chapter: argument checks, then one call into
 * core.  May call: core/, ext/ and coll/ (never a transport or boot
 * directly; the transport contract's constants, transport/net.h). */
#include <stdarg.h>
#include <string.h>

#include "api/export.h"
#include "coll/coll.h"
#include "core/ops.h"
#include "core/runtime.h"
#include "core/memory/segments.h"
#include "ext/ext.h"

static void init_or_die(int requested, const char *fn)
{
    int provided;
    shoal_coll_env_register();
    shoal_ext_install(); /* the extensions' hooks, before init */
    if (shoal_runtime_init(requested, &provided, fn) != 0)
        shoal_runtime_global_exit(1);
}

SHOAL_EXPORT void pshmem_init(void)
{
    init_or_die(SHMEM_THREAD_SINGLE, "shmem_init");
}
SHOAL_WEAK_ALIAS(shmem_init, pshmem_init)

SHOAL_EXPORT int pshmem_init_thread(int requested, int *provided)
{
    int p = SHMEM_THREAD_SINGLE;
    shoal_coll_env_register();
    shoal_ext_install(); /* the extensions' hooks, before init */
    int rc = shoal_runtime_init(requested, &p, "shmem_init_thread");
    if (provided)
        *provided = p;
    return rc;
}
SHOAL_WEAK_ALIAS(shmem_init_thread, pshmem_init_thread)

SHOAL_EXPORT void pshmem_query_thread(int *provided)
{
    if (SHOAL_UNLIKELY(shoal_g.init_count == 0))
        shoal_err_not_init("shmem_query_thread");
    *provided = __atomic_load_n(&shoal_g.thread_level, __ATOMIC_RELAXED);
}
SHOAL_WEAK_ALIAS(shmem_query_thread, pshmem_query_thread)

SHOAL_EXPORT void pshmem_finalize(void)
{
    shoal_runtime_finalize("shmem_finalize");
}
SHOAL_WEAK_ALIAS(shmem_finalize, pshmem_finalize)

SHOAL_EXPORT void pshmem_query_initialized(int *initialized)
{
    *initialized = shoal_g.init_count > 0 && !shoal_g.finalized;
}
SHOAL_WEAK_ALIAS(shmem_query_initialized, pshmem_query_initialized)

SHOAL_EXPORT int pshmem_my_pe(void)
{
    if (SHOAL_UNLIKELY(shoal_g.init_count == 0))
        shoal_err_not_init("shmem_my_pe");
    return shoal_g.my_pe;
}
SHOAL_WEAK_ALIAS(shmem_my_pe, pshmem_my_pe)

SHOAL_EXPORT int pshmem_n_pes(void)
{
    if (SHOAL_UNLIKELY(shoal_g.init_count == 0))
        shoal_err_not_init("shmem_n_pes");
    return shoal_g.n_pes;
}
SHOAL_WEAK_ALIAS(shmem_n_pes, pshmem_n_pes)

SHOAL_EXPORT _Noreturn void pshmem_global_exit(int status)
{
    shoal_runtime_global_exit(status);
}
SHOAL_WEAK_ALIAS(shmem_global_exit, pshmem_global_exit)

SHOAL_EXPORT int pshmem_pe_accessible(int pe)
{
    if (SHOAL_UNLIKELY(shoal_g.init_count == 0))
        shoal_err_not_init("shmem_pe_accessible");
    /* Reachable by load/store, or through the network transport. */
    return pe >= 0 && pe < shoal_g.n_pes && (shoal_g.net_active || shoal_segments_pe_local(pe));
}
SHOAL_WEAK_ALIAS(shmem_pe_accessible, pshmem_pe_accessible)

/* Where `addr` of world PE `pe` is mapped here, or NULL: never an error
 * (these are queries). */
static void *lookup(const void *addr, int pe)
{
    if (pe < 0 || pe >= shoal_g.n_pes || !shoal_segments_pe_local(pe))
        return NULL;
    const uintptr_t a = (uintptr_t)addr;
    size_t off = a - (uintptr_t)(shoal_g.heap_me + SHOAL_CTL_SIZE);
    int slot = shoal_segments_slot(pe);
    if (off < shoal_g.heap_size - SHOAL_CTL_SIZE)
        return shoal_g.heap_region + (size_t)slot * shoal_g.heap_stride + SHOAL_CTL_SIZE + off;
    off = a - (uintptr_t)shoal_g.data_me;
    if (off < shoal_g.data_size)
        return shoal_g.data_region + (size_t)slot * shoal_g.data_stride + off;
    return NULL;
}

SHOAL_EXPORT int pshmem_addr_accessible(const void *addr, int pe)
{
    if (SHOAL_UNLIKELY(shoal_g.init_count == 0))
        shoal_err_not_init("shmem_addr_accessible");
    if (lookup(addr, pe) != NULL)
        return 1;
    if (!shoal_g.net_active || pe < 0 || pe >= shoal_g.n_pes)
        return 0;
    /* A peer reached through the network: any symmetric address. */
    const uintptr_t a = (uintptr_t)addr;
    return a - (uintptr_t)(shoal_g.heap_me + SHOAL_CTL_SIZE) < shoal_g.heap_size - SHOAL_CTL_SIZE ||
           a - (uintptr_t)shoal_g.data_me < shoal_g.data_size;
}
SHOAL_WEAK_ALIAS(shmem_addr_accessible, pshmem_addr_accessible)

SHOAL_EXPORT void *pshmem_ptr(const void *dest, int pe)
{
    if (SHOAL_UNLIKELY(shoal_g.init_count == 0))
        shoal_err_not_init("shmem_ptr");
    if (pe == shoal_g.my_pe)
        return lookup(dest, pe) ? (void *)dest : NULL;
    return lookup(dest, pe);
}
SHOAL_WEAK_ALIAS(shmem_ptr, pshmem_ptr)

SHOAL_EXPORT void *pshmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    if (SHOAL_UNLIKELY(shoal_g.init_count == 0))
        shoal_err_not_init("shmem_team_ptr");
    if (team == SHMEM_TEAM_INVALID || team->magic != SHOAL_TEAM_LIVE || pe < 0 || pe >= team->size)
        return NULL;
    return pshmem_ptr(dest, team->start + pe * team->stride);
}
SHOAL_WEAK_ALIAS(shmem_team_ptr, pshmem_team_ptr)

SHOAL_EXPORT void pshmem_info_get_version(int *major, int *minor)
{
    *major = SHMEM_MAJOR_VERSION;
    *minor = SHMEM_MINOR_VERSION;
}
SHOAL_WEAK_ALIAS(shmem_info_get_version, pshmem_info_get_version)

SHOAL_EXPORT void pshmem_info_get_name(char *name)
{
    /* The vendor string is shorter than SHMEM_MAX_NAME_LEN by construction. */
    memcpy(name, SHMEM_VENDOR_STRING, sizeof SHMEM_VENDOR_STRING);
}
SHOAL_WEAK_ALIAS(shmem_info_get_name, pshmem_info_get_name)

SHOAL_EXPORT void pshmem_pcontrol(int level, ...)
{
    (void)level;
}
SHOAL_WEAK_ALIAS(shmem_pcontrol, pshmem_pcontrol)

/* Deprecated 1.0 names.  start_pes: later calls are no-ops (spec). */
SHOAL_EXPORT void pstart_pes(int npes)
{
    (void)npes;
    if (shoal_g.init_count == 0)
        init_or_die(SHMEM_THREAD_SINGLE, "start_pes");
}
SHOAL_WEAK_ALIAS(start_pes, pstart_pes)

SHOAL_EXPORT int p_my_pe(void)
{
    return pshmem_my_pe();
}
SHOAL_WEAK_ALIAS(_my_pe, p_my_pe)
SHOAL_EXPORT int p_num_pes(void)
{
    return pshmem_n_pes();
}
SHOAL_WEAK_ALIAS(_num_pes, p_num_pes)
