# The network path on one machine: SHOAL_TRANSPORTS=ucx sends every
# operation (to this PE too) through UCX, over tcp (loopback) and over
# UCX's shared-memory transports; and a job split into two pretend nodes.
# Only in a build with the UCX transport.
# Over tcp every get and AMO is a round trip through the kernel, emulated by
# the target's CPU: the tests' own watchdog gets 180 s instead of 90.
if(SHOAL_HAVE_UCX)
  # What a UCX test needs under a sanitizer beyond what every test gets.
  # Nothing now: under ThreadSanitizer every test runs with UCX's memory
  # hooks off and tests/tsan.supp (tests/CMakeLists.txt), since libshoal
  # loads libucm in on-node jobs too.
  set(SHOAL_UCX_SAN_ENV "")
  shoal_add_test_variant(NAME ucx_tcp LAUNCH ${SHOAL_OSHRUN} -n @N@
    ENV SHOAL_TRANSPORTS=ucx UCX_TLS=tcp SHOAL_TEST_TIMEOUT=180 ${SHOAL_UCX_SAN_ENV} NPES 2 3 LABELS ucx)
  shoal_add_test_variant(NAME ucx_sm LAUNCH ${SHOAL_OSHRUN} -n @N@
    ENV SHOAL_TRANSPORTS=ucx UCX_TLS=sm,self SHOAL_TEST_TIMEOUT=180 ${SHOAL_UCX_SAN_ENV} NPES 2 4 LABELS ucx)
  # A mixed job, as on a cluster: SHOAL_SPLIT_NODES=2 makes PEs 0,1 one
  # pretend node and PE 2 another; load/store inside a node, UCX between
  # them (UCX over shared memory here), and every AMO through UCX
  # (SHOAL_UCX_ATOMICS=all: one atomicity domain, as where a device does
  # atomics; without it UCX's atomics here are CPU atomics and on-node
  # AMOs use the CPU, as in the ucx_tcp and ucx_sm variants).
  shoal_add_test_variant(NAME ucx_mixed LAUNCH ${SHOAL_OSHRUN} -n @N@
    ENV SHOAL_SPLIT_NODES=2 UCX_TLS=sm,self SHOAL_UCX_ATOMICS=all SHOAL_TEST_TIMEOUT=180 ${SHOAL_UCX_SAN_ENV} NPES 3 LABELS ucx)
endif()
