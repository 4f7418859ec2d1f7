/* Header compile test: every public header, the constants as integer
 * constant expressions, the handles, the config structs, the profiling
 * twins and the noreturn attribute of shmem_global_exit.  Compiled (never
 * run) as C99, C11, C17 and, through header_all.cpp, C++17, all with
 * -Wall -Wextra -Werror -pedantic. */
#include <shmem.h>
#include <shmemx.h>
#include <pshmem.h>
#include <mpp/shmem.h>
#include <mpp/shmemx.h>

#include <stdint.h>

#if defined(__cplusplus)
#define SA(c, m) static_assert(c, m)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define SA(c, m) _Static_assert(c, m)
#else
#define SA_CAT_(a, b) a##b
#define SA_CAT(a, b) SA_CAT_(a, b)
#define SA(c, m) typedef char SA_CAT(shoal_sa_, __LINE__)[(c) ? 1 : -1]
#endif

SA(SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION == 6, "implements OpenSHMEM 1.6");
SA(_SHMEM_MAJOR_VERSION == SHMEM_MAJOR_VERSION && _SHMEM_MINOR_VERSION == SHMEM_MINOR_VERSION,
   "deprecated version aliases");
SA(SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED && SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED &&
       SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE,
   "thread levels are increasing");
SA(sizeof(SHMEM_VENDOR_STRING) <= SHMEM_MAX_NAME_LEN, "vendor string fits");
SA(sizeof(_SHMEM_VENDOR_STRING) == sizeof(SHMEM_VENDOR_STRING), "deprecated vendor alias");
SA(_SHMEM_MAX_NAME_LEN == SHMEM_MAX_NAME_LEN, "deprecated alias");
SA(SHMEM_SIGNAL_SET != SHMEM_SIGNAL_ADD, "signal operators differ");
SA((SHMEM_CTX_SERIALIZED & SHMEM_CTX_PRIVATE) == 0 &&
       (SHMEM_CTX_PRIVATE & SHMEM_CTX_NOSTORE) == 0 &&
       (SHMEM_CTX_SERIALIZED & SHMEM_CTX_NOSTORE) == 0,
   "context options are distinct bits");
SA((SHMEM_MALLOC_ATOMICS_REMOTE & SHMEM_MALLOC_SIGNAL_REMOTE) == 0, "hints are distinct bits");
SA(SHMEM_TEAM_NUM_CONTEXTS != 0 && SHMEM_CTX_SESSION_BATCH != 0 && SHMEM_CTX_SESSION_TOTAL_OPS != 0,
   "mask bits");
SA(_SHMEM_SYNC_VALUE == SHMEM_SYNC_VALUE && _SHMEM_BCAST_SYNC_SIZE == SHMEM_BCAST_SYNC_SIZE &&
       _SHMEM_REDUCE_SYNC_SIZE == SHMEM_REDUCE_SYNC_SIZE &&
       _SHMEM_BARRIER_SYNC_SIZE == SHMEM_BARRIER_SYNC_SIZE &&
       _SHMEM_COLLECT_SYNC_SIZE == SHMEM_COLLECT_SYNC_SIZE &&
       _SHMEM_REDUCE_MIN_WRKDATA_SIZE == SHMEM_REDUCE_MIN_WRKDATA_SIZE,
   "deprecated pSync aliases");
SA(SHOAL_VERSION_MAJOR >= 0 && SHOAL_VERSION_MINOR >= 0 && SHOAL_VERSION_PATCH >= 0,
   "implementation version");

/* pSync/pWrk arrays sized by the constants. */
long header_psync[SHMEM_SYNC_SIZE + SHMEM_BCAST_SYNC_SIZE + SHMEM_REDUCE_SYNC_SIZE +
                  SHMEM_BARRIER_SYNC_SIZE + SHMEM_COLLECT_SYNC_SIZE + SHMEM_ALLTOALL_SYNC_SIZE +
                  SHMEM_ALLTOALLS_SYNC_SIZE];
int header_pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];

/* Comparison operators are integer constant expressions (case labels). */
int header_cmp_name(int cmp);
int header_cmp_name(int cmp)
{
    switch (cmp) {
    case SHMEM_CMP_EQ: return 1;
    case SHMEM_CMP_NE: return 2;
    case SHMEM_CMP_GT: return 3;
    case SHMEM_CMP_GE: return 4;
    case SHMEM_CMP_LT: return 5;
    case _SHMEM_CMP_LE: return 6;
    default: return 0;
    }
}

/* Handles, their comparisons and the configuration structs. */
int header_handles(shmem_ctx_t c, shmem_team_t t);
int header_handles(shmem_ctx_t c, shmem_team_t t)
{
    shmem_ctx_t d = SHMEM_CTX_DEFAULT;
    shmem_team_t w = SHMEM_TEAM_WORLD, s = SHMEM_TEAM_SHARED;
    shmem_team_config_t cfg;
    shmem_ctx_session_config_t sc;
    cfg.num_contexts = 2;
    sc.total_ops = SIZE_MAX;
    shmem_ctx_session_start(c, SHMEM_CTX_SESSION_BATCH, &sc, SHMEM_CTX_SESSION_TOTAL_OPS);
    return (c == SHMEM_CTX_INVALID) + (c == d) + (t == SHMEM_TEAM_INVALID) + (t == w) + (t == s) +
           shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &cfg);
}

/* The profiling twins, including those of the names without shmem_. */
void (*header_twin_init)(void) = pshmem_init;
int (*header_twin_my_pe)(void) = p_my_pe;
int (*header_twin_num_pes)(void) = p_num_pes;
void (*header_twin_start_pes)(int) = pstart_pes;
void *(*header_twin_shmalloc)(size_t) = pshmalloc;
void (*header_twin_shfree)(void *) = pshfree;
void *(*header_twin_shrealloc)(void *, size_t) = pshrealloc;
void *(*header_twin_shmemalign)(size_t, size_t) = pshmemalign;
void (*header_twin_pcontrol)(int, ...) = pshmem_pcontrol;
void (*header_twin_wait_until)(long *, int, long) = pshmem_wait_until;

/* shmem_global_exit does not return: no return statement is needed. */
int header_exit(int status);
int header_exit(int status)
{
    if (status)
        pshmem_global_exit(status);
    shmem_global_exit(status);
}
