/* Negative compile test: a team handle is not a context handle (and vice
 * versa).  Compiled as C with -pedantic-errors (passing an incompatible
 * pointer violates a constraint of ISO C) and as C++ (where it is always an
 * error), with -DCASE=N; CASE 0 is the control that must compile, every
 * other case must fail. */
#include <shmem.h>

void neg(shmem_ctx_t ctx, shmem_team_t team, int *ip, float *fp);
void neg(shmem_ctx_t ctx, shmem_team_t team, int *ip, float *fp)
{
    (void)ctx;
    (void)team;
    (void)ip;
    (void)fp;
#if CASE == 0 /* control: the same calls with the right handles */
    shmem_ctx_int_put(ctx, ip, ip, 1, 0);
    shmem_put(ctx, ip, ip, 1, 0);
    shmem_ctx_quiet(ctx);
    (void)shmem_team_sync(team);
    (void)shmem_team_my_pe(team);
    shmem_atomic_add(ctx, ip, 1, 0);
#elif CASE == 1 /* a team where a C routine takes a context */
    shmem_ctx_int_put(team, ip, ip, 1, 0);
#elif CASE == 2 /* a team as the context of a type-generic call */
    shmem_put(team, ip, ip, 1, 0);
#elif CASE == 3 /* a team to shmem_ctx_quiet */
    shmem_ctx_quiet(team);
#elif CASE == 4 /* a context where a team is expected */
    (void)shmem_team_my_pe(ctx);
#elif CASE == 5 /* a type outside the generic's table */
    shmem_atomic_add(fp, 1.0f, 0);
#elif CASE == 6 /* the same with a context */
    shmem_atomic_add(ctx, fp, 1.0f, 0);
#else
#error "unknown CASE"
#endif
}
