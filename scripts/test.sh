#!/bin/sh
# One command: install what is missing, build Shoal and run the whole test
# suite.  Extra arguments go to cmake's configure step, e.g.
#   scripts/test.sh -DSHOAL_ASAN=ON        (AddressSanitizer build in build-asan)
# BUILD_DIR overrides the build directory.
set -e
cd "$(dirname "$0")/.."
scripts/install-deps.sh
dir="${BUILD_DIR:-build}"
cmake -S . -B "$dir" "$@"
cmake --build "$dir" -j"$(nproc)"
ctest --test-dir "$dir" --output-on-failure -j"$(nproc)" --timeout 300
