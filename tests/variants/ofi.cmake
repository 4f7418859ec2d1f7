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
# UCX variants' watchdog on this 2-core machine at a load of 19).  At 2
# PEs only (ofi_mixed runs 3): at 2 and 3 the two variants took 825 s of
# test time at -j2, 312 s of it the 3-PE ofi_tcp runs, where CI's whole
# suite has about 9 minutes.
if(SHOAL_HAVE_OFI)
  shoal_add_test_variant(NAME ofi_tcp LAUNCH ${SHOAL_OSHRUN} -n @N@
    ENV SHOAL_TRANSPORTS=ofi FI_PROVIDER=tcp SHOAL_TEST_TIMEOUT=400 NPES 2 LABELS ofi SLOWER 4)
endif()
# A mixed job over OFI, as on a cluster: SHOAL_SPLIT_NODES=2 makes PEs 0,1
# one pretend node and PE 2 another; load/store inside a node, libfabric
# between them (SHOAL_TRANSPORTS=shm,ofi), and every AMO through libfabric
# (its atomics are not the CPU's).
if(SHOAL_HAVE_OFI)
  shoal_add_test_variant(NAME ofi_mixed LAUNCH ${SHOAL_OSHRUN} -n @N@
    ENV SHOAL_SPLIT_NODES=2 SHOAL_TRANSPORTS=shm,ofi FI_PROVIDER=tcp SHOAL_TEST_TIMEOUT=400
    NPES 3 LABELS ofi SLOWER 4)
endif()
