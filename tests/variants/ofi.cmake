# The libfabric (OFI) network path on one machine: SHOAL_TRANSPORTS=ofi
# sends every operation (to this PE too) through libfabric's tcp;ofi_rxm
# provider over the machine's own addresses, as ucx_tcp does through UCX.
# FI_PROVIDER=tcp selects tcp;ofi_rxm (the tcp provider alone has no
# atomics); "tcp;ofi_rxm" itself cannot pass through ctest's ENVIRONMENT,
# a ';'-separated list.  Only in a build with the OFI transport (one that
# found libfabric, SHOAL_WITH_OFI).  Over rxm every get and AMO is a round
# trip emulated by the target's CPU: the tests' own watchdog gets 400 s
# instead of 90, ctest four times the test's timeout (spec.amo's 4-thread
# contention, 26 s at 2 PEs beside other work, ran past the 180 s of the
# UCX variants' watchdog on this 2-core machine at a load of 19).
#
# Every spec and coll test runs on both variants at the PE counts of their
# UCX counterparts (ucx_tcp: 2 and 3), and tests/exit's on both, but the
# default run keeps only the DEFAULT sets below; the rest carry the label
# `extended` (SHOAL_TEST_ALL=1 scripts/test.sh runs them).  The default
# set: each spec program once over tcp;ofi_rxm at 2 PEs, the collectives
# at 2 and 3 (an odd count), requests, active messages and the error exits
# of tests/exit, and on the mixed job the paths that differ there (locks
# and point-to-point waits through network AMOs beside load/store,
# collectives between pretend nodes).  The extended ones, with the other
# OFI tests so labelled, took 655 s of test time (328 s at -j2 on 2 shared
# cores) without tests/exit's five (27-81 s each: the clean exits run each
# way to end a job 10 times), where CI's whole run has 3 minutes to spare.
if(SHOAL_HAVE_OFI)
  set(_spec "setup|rma|amo|p2p_sync|signal|ordering|lock|barrier|ctx")
  set(_at2 "spec\\.(${_spec})|requests\\.(typed|complete)|am\\.fifo|exit\\.errors")
  set(_at23 "coll\\.(typed|sync|stress\\.sizes)")
  shoal_add_test_variant(NAME ofi_tcp LAUNCH ${SHOAL_OSHRUN} -n @N@
    ENV SHOAL_TRANSPORTS=ofi FI_PROVIDER=tcp SHOAL_TEST_TIMEOUT=400 NPES 2 3 LABELS ofi SLOWER 4
    DEFAULT "^(${_at2})\\.ofi_tcp\\.np2$|^(${_at23})\\.ofi_tcp\\.np[23]$")
endif()
# A mixed job over OFI, as on a cluster: SHOAL_SPLIT_NODES=2 makes PEs 0,1
# one pretend node and PE 2 another; load/store inside a node, libfabric
# between them (SHOAL_TRANSPORTS=shm,ofi), and every AMO through libfabric
# (its atomics are not the CPU's).
if(SHOAL_HAVE_OFI)
  shoal_add_test_variant(NAME ofi_mixed LAUNCH ${SHOAL_OSHRUN} -n @N@
    ENV SHOAL_SPLIT_NODES=2 SHOAL_TRANSPORTS=shm,ofi FI_PROVIDER=tcp SHOAL_TEST_TIMEOUT=400
    NPES 3 LABELS ofi SLOWER 4 DEFAULT "^(spec\\.(lock|p2p_sync)|coll\\.typed)\\.ofi_mixed\\.np3$")
endif()
# The sockets provider (FI_PROVIDER=sockets), as Shoal opens it: manual
# progress with the progress thread, non-blocking atomics waited for
# (ofi_provider.c), offset addressing.  A representative set by default
# (2 PEs: the barrier and the typed collectives, 2.7 s and 4.2 s alone,
# 31 s and 29 s under ctest -j2 at a load of 15-20); the rest, extended
# (alone: spec.rma 13 s, spec.amo 106 s, spec.ctx 89 s, spec.ordering 53 s).
# tests/ofi runs sockets' basic operations and the progress thread on it.
if(SHOAL_HAVE_OFI)
  shoal_add_test_variant(NAME ofi_sockets LAUNCH ${SHOAL_OSHRUN} -n @N@
    ENV SHOAL_TRANSPORTS=ofi FI_PROVIDER=sockets SHOAL_TEST_TIMEOUT=400 NPES 2 LABELS ofi SLOWER 4
    DEFAULT "^(spec\\.barrier|coll\\.typed)\\.ofi_sockets\\.np2$")
endif()
# udp;ofi_rxd (FI_PROVIDER=udp): reliable datagrams over UDP, manual
# progress with the progress thread, every endpoint that posts progressed
# by the waits, fetching atomics posted as ofi_rxd.c says (libfabric 1.17's
# rxd frees one it starts from its queue), flushes by reads.  Each PE its
# own pretend node (SHOAL_SPLIT_NODES=4 blocks for up to 4 PEs, with
# shm,ofi: every peer, and this PE itself for AMOs, through libfabric).
# By default the barrier and the
# typed collectives at 2 PEs; the rest extended.  tests/ofi runs rxd's
# basic operations at 1-4 PEs and the progress thread on it.
if(SHOAL_HAVE_OFI)
  shoal_add_test_variant(NAME ofi_rxd LAUNCH ${SHOAL_OSHRUN} -n @N@
    ENV SHOAL_SPLIT_NODES=4 SHOAL_TRANSPORTS=shm,ofi FI_PROVIDER=udp SHOAL_TEST_TIMEOUT=400
    NPES 2 3 4 LABELS ofi SLOWER 4
    DEFAULT "^(spec\\.barrier|coll\\.typed)\\.ofi_rxd\\.np2$")
endif()
# The modes some providers ask for (FI_MR_LOCAL, FI_CONTEXT2: efa-direct,
# opx, verbs), which none of Debian's requires: SHOAL_OFI_ASSUME_MODES
# makes Shoal register every local buffer it hands to libfabric (checked
# at each call) and give every operation a context of its own, over
# tcp;ofi_rxm (ofi_modes.c; tests/ofi runs ofi.modes_* at 1-4 PEs).  By
# default the RMA, AMO, signal, context and typed-request programs and
# the active messages' order at 2 PEs, the typed collectives at 2 and 3;
# the rest extended.
if(SHOAL_HAVE_OFI)
  set(_modes2 "spec\\.(rma|amo|signal|ctx)|requests\\.typed|am\\.fifo")
  shoal_add_test_variant(NAME ofi_modes LAUNCH ${SHOAL_OSHRUN} -n @N@
    ENV SHOAL_TRANSPORTS=ofi FI_PROVIDER=tcp SHOAL_OFI_ASSUME_MODES=mr_local,context2
        SHOAL_TEST_TIMEOUT=400 NPES 2 3 LABELS ofi SLOWER 4
    DEFAULT "^(${_modes2})\\.ofi_modes\\.np2$|^coll\\.typed\\.ofi_modes\\.np[23]$")
endif()
