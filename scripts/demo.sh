#!/bin/sh
# One command: install what is missing, build Shoal, run a 4-PE demo on the
# built-in launcher.  Usage: scripts/demo.sh [number of PEs]
set -e
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target oshrun ring_demo shmem-info
exec build/bin/oshrun -n "${1:-4}" build/examples/ring_demo
