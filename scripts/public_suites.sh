#!/bin/sh
# Runs a public OpenSHMEM suite (openshmem-org/tests-sos, the test suite of
# Sandia OpenSHMEM) against an installed Shoal, one network mode at a time,
# and tabulates pass/fail/timeout per test.  Not part of ctest or CI: it
# needs a checkout of tests-sos from outside this repository.
#
#   scripts/public_suites.sh build TESTS_SOS_SRC BUILD_DIR SHOAL_PREFIX
#       copies the checkout to BUILD_DIR, configures it with the prefix's
#       oshcc/oshc++ and builds every test that compiles (Sandia
#       OpenSHMEM's own extensions in test/shmemx do not; they are listed
#       as "not built").
#   scripts/public_suites.sh run BUILD_DIR SHOAL_PREFIX MODE NPES [DIRS...]
#       runs `make check` in DIRS (default: unit spec-example shmemx apps),
#       one test at a time, and writes BUILD_DIR/results/MODE.npNPES.txt
#       (one line per test: dir/test RESULT SECONDS) and a summary (counts,
#       total seconds, every line that is not PASS) on stdout.
#
# MODE sets the network:
#   ucx      SHOAL_TRANSPORTS=shm,ucx UCX_TLS=tcp,self, each PE its own node
#   ofi      SHOAL_TRANSPORTS=shm,ofi FI_PROVIDER=tcp, each PE its own node
#   ofi-shm  SHOAL_TRANSPORTS=shm,ofi FI_PROVIDER=tcp, one node: every PE
#            by load/store, libfabric not even opened (a contrast only)
#   cluster-ofi, cluster-ucx
#            across the hosts of a namespace cluster (tests/cluster/cluster.py
#            up; its directory in CLUSTER_DIR), started by its mpirun; make
#            the cluster with NPES slots in all, e.g. 2 hosts x NPES/2 slots
# SUITE_TIMEOUT (default 120) bounds each test: a hang is a TIMEOUT line.
set -eu

usage() {
  sed -n '2,/^set -eu/p' "$0" | sed '$d' >&2
  exit 2
}

build_suite() {
  src=$1 dir=$2 prefix=$3
  mkdir -p "$dir"
  cp -a "$src/." "$dir/"
  cd "$dir"
  find . -name Makefile -delete
  ./autogen.sh >autogen.log 2>&1
  sos_names "$prefix" >sos_shmemx_names.h
  PATH="$prefix/bin:$PATH" ./configure CC=oshcc CXX=oshc++ --enable-shmemx \
    CPPFLAGS="-include $PWD/sos_shmemx_names.h" >configure.log 2>&1
  PATH="$prefix/bin:$PATH" make -k -j2 check TESTS= >build.log 2>&1 || true
  for d in unit spec-example shmemx apps; do
    for t in $(suite_tests "$d"); do
      [ -x "test/$d/$t" ] || echo "not built: $d/$t"
    done
  done
}

# test/shmemx calls routines of OpenSHMEM 1.6 by the shmemx_ names Sandia
# OpenSHMEM gave them before 1.6 (blocked strided RMA, scans, signal_add and
# signal_set): a header that maps those names to the prefix's shmem_ ones.
sos_names() {
  grep -o 'shmem_[a-z0-9_]*\(ibget\|ibput\|inscan\|exscan\|signal_add\|signal_set\)\b' \
    "$1/include/shmem.h" | sort -u |
    sed 's/^shmem_\(.*\)/#define shmemx_\1 shmem_\1/'
}

# The tests `make check` runs in test/$1.
suite_tests() {
  printf 'print_tests:\n\t@echo $(TESTS)\n' >.print_tests.mk
  make -s -C "test/$1" -f Makefile -f ../../.print_tests.mk print_tests
}

set_mode_env() {
  case "$1" in
    ucx)
      export SHOAL_TRANSPORTS=shm,ucx UCX_TLS=tcp,self
      export SHOAL_SPLIT_NODES="$2" ;;
    ofi)
      export SHOAL_TRANSPORTS=shm,ofi FI_PROVIDER=tcp
      export SHOAL_SPLIT_NODES="$2" ;;
    ofi-shm)
      export SHOAL_TRANSPORTS=shm,ofi FI_PROVIDER=tcp
      unset SHOAL_SPLIT_NODES || true ;;
    cluster-ofi)
      export SHOAL_TRANSPORTS=shm,ofi FI_PROVIDER=tcp ;;
    cluster-ucx)
      export SHOAL_TRANSPORTS=shm,ucx UCX_TLS=tcp,self ;;
    *) usage ;;
  esac
}

# One line per test of test/$1 from the harness's .trs files: its result
# (a test that oshrun ended after SUITE_TIMEOUT, exit status 124, reads
# TIMEOUT) and its seconds (the tests ran one after the other from $2, the
# time make started, each .trs written at its test's end).
collect() {
  prev=$2
  for t in $(suite_tests "$1"); do
    trs="test/$1/$t.trs"
    if [ ! -f "$trs" ]; then
      echo "$1/$t NOTBUILT"
      continue
    fi
    if grep -q '^:test-result: PASS' "$trs"; then
      result=PASS
    elif grep -q '^:test-result: SKIP' "$trs"; then
      result=SKIP
    elif grep -q 'exit status: 124' "test/$1/$t.log"; then
      result=TIMEOUT
    else
      result=FAIL
    fi
    end=$(stat -c %Y "$trs")
    echo "$1/$t $result $((end - prev))"
    prev=$end
  done
}

run_suite() {
  dir=$1 prefix=$2 mode=$3 npes=$4
  shift 4
  [ $# -gt 0 ] || set -- unit spec-example shmemx apps
  cd "$dir"
  set_mode_env "$mode" "$npes"
  limit=${SUITE_TIMEOUT:-120}
  case "$mode" in
    cluster-*)
      here=$(cd "$(dirname "$0")/.." && pwd)
      runner="python3 $here/tests/cluster/cluster.py run $CLUSTER_DIR"
      runner="$runner --timeout $limit -n $npes --" ;;
    *) runner="$prefix/bin/oshrun --timeout $limit -np $npes" ;;
  esac
  # The outer timeout catches a launcher that itself does not end.
  runner="timeout -k 10 $((limit + 30)) $runner"
  mkdir -p results
  out="results/$mode.np$npes.txt"
  : >"$out"
  for d in "$@"; do
    # Only the tests that were built: `make check` runs none of a directory
    # where one does not build.
    built=$(for t in $(suite_tests "$d"); do
      [ ! -x "test/$d/$t" ] || printf '%s ' "$t"
    done)
    rm -f test/"$d"/*.trs
    start=$(date +%s)
    PATH="$prefix/bin:$PATH" make -k -C "test/$d" check-TESTS \
      check_PROGRAMS="$built" TESTS="$built" TEST_RUNNER="$runner" \
      >"results/$mode.np$npes.$d.log" 2>&1 || true
    collect "$d" "$start" >>"$out"
  done
  echo "$mode np=$npes: $(awk '{print $2}' "$out" | sort | uniq -c |
    awk '{printf "%s %s  ", $2, $1}')$(awk '{s += $3} END {print s}' "$out") s"
  grep -v ' PASS [0-9]*$' "$out" || true
}

[ $# -ge 1 ] || usage
case "$1" in
  build) [ $# -eq 4 ] || usage; shift; build_suite "$@" ;;
  run) [ $# -ge 5 ] || usage; shift; run_suite "$@" ;;
  *) usage ;;
esac
