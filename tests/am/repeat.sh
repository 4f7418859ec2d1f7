#!/bin/sh
# Runs one active-message test program N times and counts how its runs end:
# the measurement behind SHOAL_UCX_AM's default (docs/active-messages.md).
#
#   tests/am/repeat.sh BUILD_DIR N NPES PROGRAM MODE [VAR=value ...]
#
# e.g. tests/am/repeat.sh build 200 3 am_nbe_test merge \
#        SHOAL_TRANSPORTS=ucx UCX_TLS=tcp SHOAL_UCX_AM=1 SHOAL_PROGRESS_THREAD=0
# Each run has 60 s (oshrun --timeout; a hang counts as such).  Prints one
# line: runs, passed, segfaults, hangs, other failures, seconds per run
# (median); keeps the output of the first 3 failures in
# ${TMPDIR:-/tmp}/am-repeat-<pid>-<run>.log.
set -e
if [ $# -lt 5 ]; then
  echo "usage: $0 BUILD_DIR N NPES PROGRAM MODE [VAR=value ...]" >&2
  exit 2
fi
build=$1 n=$2 npes=$3 prog=$4 mode=$5
shift 5
pass=0 segv=0 hang=0 other=0 kept=0
times=""
i=0
while [ "$i" -lt "$n" ]; do
  i=$((i + 1))
  log=${TMPDIR:-/tmp}/am-repeat-$$-$i.log
  t0=$(date +%s.%N)
  rc=0
  env "$@" "$build/bin/oshrun" --timeout 60 -n "$npes" "$build/tests/$prog" "$mode" \
    >"$log" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  times="$times $(echo "$t1 - $t0" | bc)"
  if [ "$rc" -eq 0 ]; then
    pass=$((pass + 1))
  elif grep -q "Segmentation fault\|signal 11" "$log"; then
    segv=$((segv + 1))
  elif [ "$rc" -eq 124 ]; then
    hang=$((hang + 1))
  else
    other=$((other + 1))
  fi
  if [ "$rc" -ne 0 ] && [ "$kept" -lt 3 ]; then
    kept=$((kept + 1))
    echo "repeat: run $i failed (status $rc): $log" >&2
  else
    rm -f "$log"
  fi
done
med=$(printf '%s\n' $times | sort -n | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]}')
echo "runs=$n passed=$pass segfaults=$segv hangs=$hang other=$other median_s=$med"
