/* The families SHOAL_PROFILE counts: one row each, in the order the
 * report lists them.  The generated wrappers name them through the API
 * table (tools/gen/api_table.py, `prof=`), the hand-written routines of
 * api/ directly; the report, the JSON and tools/prof/shoal-prof read their
 * names from here (through the JSON's "families" list).
 *
 * SHOAL_PROF_FAM(id, name, class, group)
 *   class  what a call records and when it reads the clock:
 *     RMA  a target PE: operations and bytes per target; timed when the
 *          target is reached through the network (an on-node put or get
 *          is a copy that takes less than reading the clock twice)
 *     AMO  the same, with an atomic's route: the network also where every
 *          AMO goes through it (shoal_g.amo_via_net)
 *     AM   a target PE, always timed (a send may wait for ring space)
 *     CALL no target; always timed (it may wait for other PEs)
 *     POLL no target; timed while a network transport is active (then
 *          the call progresses it), otherwise a load or a fence
 *   group  the colour of the family in the pictures: rma, amo, am, sync,
 *          coll, mgmt
 * The targeted classes come first (SHOAL_PROF_NTGT of them): their
 * per-target cells are indexed by the family's id. */
/* Targeted families. */
SHOAL_PROF_FAM(PUT, "put", RMA, "rma")               /* put, p, putmem, putSIZE */
SHOAL_PROF_FAM(PUT_NBI, "put_nbi", RMA, "rma")       /* put_nbi */
SHOAL_PROF_FAM(IPUT, "iput", RMA, "rma")             /* iput, ibput */
SHOAL_PROF_FAM(GET, "get", RMA, "rma")               /* get, g */
SHOAL_PROF_FAM(GET_NBI, "get_nbi", RMA, "rma")       /* get_nbi */
SHOAL_PROF_FAM(IGET, "iget", RMA, "rma")             /* iget, ibget */
SHOAL_PROF_FAM(PUT_SIGNAL, "put_signal", RMA, "rma") /* put_signal */
SHOAL_PROF_FAM(PUT_SIGNAL_NBI, "put_signal_nbi", RMA, "rma")
SHOAL_PROF_FAM(PUT_NBE, "put_nbe", RMA, "rma") /* shmemx _nbe requests */
SHOAL_PROF_FAM(GET_NBE, "get_nbe", RMA, "rma")
SHOAL_PROF_FAM(PUT_SIGNAL_NBE, "put_signal_nbe", RMA, "rma")
SHOAL_PROF_FAM(AMO_FETCH, "amo_fetch", AMO, "amo") /* blocking AMOs that return a value */
SHOAL_PROF_FAM(AMO, "amo", AMO, "amo")             /* set, inc, add, and, or, xor */
SHOAL_PROF_FAM(AMO_NBI, "amo_nbi", AMO, "amo")
SHOAL_PROF_FAM(AMO_NBE, "amo_nbe", AMO, "amo")
SHOAL_PROF_FAM(SIGNAL, "signal", AMO, "amo") /* signal_add, signal_set */
SHOAL_PROF_FAM(AM_SEND, "am_send", AM, "am") /* shmemx_am_send */
SHOAL_PROF_FAM(AM_SEND_NBE, "am_send_nbe", AM, "am")
/* Families without a target. */
SHOAL_PROF_FAM(WAIT, "wait", CALL, "sync")   /* wait_until*, wait, signal_wait_until */
SHOAL_PROF_FAM(TEST, "test", POLL, "sync")   /* test*, signal_fetch */
SHOAL_PROF_FAM(QUIET, "quiet", POLL, "sync") /* quiet, pe_quiet */
SHOAL_PROF_FAM(FENCE, "fence", POLL, "sync")
SHOAL_PROF_FAM(BARRIER, "barrier", CALL, "sync") /* barrier_all, barrier */
SHOAL_PROF_FAM(SYNC, "sync", CALL, "sync")       /* sync_all, team_sync, sync */
SHOAL_PROF_FAM(LOCK, "lock", CALL, "sync")       /* set_lock, clear_lock, test_lock */
SHOAL_PROF_FAM(BROADCAST, "broadcast", CALL, "coll")
SHOAL_PROF_FAM(COLLECT, "collect", CALL, "coll")
SHOAL_PROF_FAM(FCOLLECT, "fcollect", CALL, "coll")
SHOAL_PROF_FAM(ALLTOALL, "alltoall", CALL, "coll")
SHOAL_PROF_FAM(ALLTOALLS, "alltoalls", CALL, "coll")
SHOAL_PROF_FAM(REDUCE, "reduce", CALL, "coll")             /* *_reduce, *_to_all */
SHOAL_PROF_FAM(SCAN, "scan", CALL, "coll")                 /* sum_inscan, sum_exscan */
SHOAL_PROF_FAM(BROADCAST_MT, "broadcast_mt", CALL, "coll") /* shmemx _mt collectives */
SHOAL_PROF_FAM(FCOLLECT_MT, "fcollect_mt", CALL, "coll")
SHOAL_PROF_FAM(ALLTOALL_MT, "alltoall_mt", CALL, "coll")
SHOAL_PROF_FAM(REDUCE_MT, "reduce_mt", CALL, "coll")
SHOAL_PROF_FAM(AM_POLL, "am_poll", CALL, "am")
SHOAL_PROF_FAM(AM_QUIET, "am_quiet", CALL, "am")
SHOAL_PROF_FAM(REQUEST_WAIT, "request_wait", CALL, "sync") /* request_wait, waitall, waitany */
SHOAL_PROF_FAM(REQUEST_TEST, "request_test", POLL, "sync")
SHOAL_PROF_FAM(ALLOC, "alloc", CALL, "mgmt") /* malloc, calloc, align, realloc, free, ... */
SHOAL_PROF_FAM(TEAM, "team", CALL, "mgmt")   /* team_split_strided, team_split_2d, team_destroy */
SHOAL_PROF_FAM(CTX, "ctx", CALL, "mgmt")     /* ctx_create, team_create_ctx, ctx_destroy */
