#!/bin/sh
# Installs a current UCX without root: the libucx-cu12 wheel from PyPI
# (headers, libraries, ucx.pc, ucx_info, ucx_perftest) into a Python virtual
# environment, with pip and no other download.
#
#   scripts/ucx-wheel.sh DIR [VERSION]     (VERSION defaults to 1.22.0)
#
# makes the virtual environment DIR (if it is not one yet), installs
# libucx-cu12==VERSION into it and prints the UCX prefix on stdout, e.g.
# DIR/lib/python3.11/site-packages/libucx.  Build Shoal against it with
#
#   cmake -S . -B build-ucx -DUCX_ROOT="$(scripts/ucx-wheel.sh /tmp/ucx-venv)"
#
# or with PKG_CONFIG_PATH=<prefix>/lib/pkgconfig.  Shoal's libraries and
# programs then find UCX's libraries through their run path (the build
# records it, cmake --install keeps it); only UCX's own programs, whose run
# path names the wheel's build machine, need LD_LIBRARY_PATH=<prefix>/lib
# (bench/ucx_overhead.py sets it for ucx_perftest).
#
# The wheel's .pc files name the prefix it was built in
# (/__w/ucx-wheels/...): this script rewrites their prefix= line to where
# it was unpacked, every time it runs (idempotent).
set -e
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 VENV_DIR [UCX_VERSION]" >&2
  exit 2
fi
venv=$1
version=${2:-1.22.0}
py=${PYTHON:-python3}

if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv "$venv" >&2
fi
have=$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("libucx-cu12"))' \
  2>/dev/null || true)
if [ "$have" != "$version" ]; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "libucx-cu12==$version" >&2
fi
# Where the package is (the libucx module's directory), without importing
# it (its __init__ would load the libraries).
prefix=$("$venv/bin/python" -c '
import importlib.util, os
spec = importlib.util.find_spec("libucx")
print(os.path.dirname(spec.origin))')
[ -f "$prefix/include/ucp/api/ucp.h" ] || {
  echo "$0: no UCX headers under $prefix (libucx-cu12==$version)" >&2
  exit 1
}
for pc in "$prefix"/lib/pkgconfig/*.pc; do
  # Only the first prefix= line; the others derive from it.
  sed -i "s|^prefix *=.*|prefix = $prefix|" "$pc"
done
echo "$prefix"
