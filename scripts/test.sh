#!/bin/sh
# One command: install what is missing, build Shoal and run the whole test
# suite.  Extra arguments go to cmake's configure step, e.g.
#   scripts/test.sh -DSHOAL_ASAN=ON        (AddressSanitizer build in build-asan)
#   scripts/test.sh -DSHOAL_TSAN=ON        (ThreadSanitizer build in build-tsan)
# Without a sanitizer the build directory is build, always a plain build (a
# sanitizer left in its cache by hand is switched off).  BUILD_DIR overrides
# the build directory, and then the arguments alone decide its settings.
# SHOAL_CTEST_ARGS adds words to the ctest command (e.g. `-E regex` to leave
# tests out: CI's sanitizer leg skips the variants it covers elsewhere).
# Tests labelled `extended` (tests/ShoalTesting.cmake: most runs of the
# spec and collectives over libfabric, which repeat the default run's on a
# slow path) are left out unless SHOAL_TEST_ALL=1; an `-LE` of
# SHOAL_CTEST_ARGS replaces that exclusion (CMake before 3.29 keeps the
# last -LE).
set -e
cd "$(dirname "$0")/.."

# Is the CMake boolean `$1` true?  (CMake's spellings, any case.)
truthy() {
  case "$(printf '%s' "$1" | tr '[:upper:]' '[:lower:]')" in
    on|1|yes|true|y) return 0 ;;
    *) return 1 ;;
  esac
}

# The sanitizer the arguments ask for (the last setting of each wins, as in
# cmake): asan, tsan or nothing.
sanitizer() {
  asan=no tsan=no
  for a do
    case "$a" in
      -DSHOAL_ASAN=*|-DSHOAL_ASAN:*=*|SHOAL_ASAN=*|SHOAL_ASAN:*=*)
        if truthy "${a#*=}"; then asan=yes; else asan=no; fi ;;
      -DSHOAL_TSAN=*|-DSHOAL_TSAN:*=*|SHOAL_TSAN=*|SHOAL_TSAN:*=*)
        if truthy "${a#*=}"; then tsan=yes; else tsan=no; fi ;;
    esac
  done
  if [ "$asan" = yes ]; then echo asan; elif [ "$tsan" = yes ]; then echo tsan; fi
}

if [ -n "$BUILD_DIR" ]; then
  dir="$BUILD_DIR"
else
  san=$(sanitizer "$@")
  dir="build${san:+-$san}"
  # The directory's name says what it is: its cache must agree.
  set -- -DSHOAL_ASAN=OFF -DSHOAL_TSAN=OFF "$@"
fi
scripts/install-deps.sh
cmake -S . -B "$dir" "$@"
cmake --build "$dir" -j"$(nproc)"
extended="-LE ^extended$"
[ "${SHOAL_TEST_ALL:-0}" = 1 ] && extended=""
set -f # the words of SHOAL_CTEST_ARGS are regexes, not file patterns
# shellcheck disable=SC2086 # one ctest argument per word
ctest --test-dir "$dir" --output-on-failure -j"$(nproc)" --timeout 300 $extended ${SHOAL_CTEST_ARGS:-}
