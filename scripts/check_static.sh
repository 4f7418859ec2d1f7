#!/bin/sh
# Static checks of the C sources (CI runs both; each needs its Debian
# package):
#   formatting  clang-format (clang-format): every tracked C/C++ file is as
#               .clang-format says; run `clang-format -i FILE` to fix one
#   analysis    cppcheck (cppcheck) on src/ with warnings, performance and
#               portability checks: zero findings; a suppression is written
#               in place with its reason (// cppcheck-suppress ID)
# usage: scripts/check_static.sh BUILD_DIR   (a configured build: the
#        generated headers are read from it)
set -e
cd "$(dirname "$0")/.."
build="${1:-build}"
files=$(git ls-files '*.c' '*.h' '*.cpp')
echo "check_static: clang-format on $(echo "$files" | wc -l) files"
# shellcheck disable=SC2086 # one file per word
clang-format --dry-run --Werror $files
echo "check_static: cppcheck on src/"
cppcheck --quiet --enable=warning,performance,portability --std=c11 \
  -I src -I "$build/include" -I "$build/tools/gen/src" \
  -D__GNUC__ -D_GNU_SOURCE '-D_Noreturn=__attribute__((noreturn))' \
  --inline-suppr --error-exitcode=1 \
  --template='{file}:{line}: {severity}: {id}: {message}' src
echo "check_static: clean"
