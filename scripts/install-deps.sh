#!/bin/sh
# Installs what building Shoal needs on Debian/Ubuntu, only if missing:
# a C/C++ compiler, CMake, make, Python 3 (runs the API generator and the
# tests) and pkg-config (the install test); PMIx (libpmix-dev: the bootstrap
# under mpirun / srun --mpi=pmix) and Open MPI's mpirun (openmpi-bin: the
# tests of that bootstrap); UCX (libucx-dev: the network transport;
# ucx-utils: ucx_info and ucx_perftest, which bench/ucx_overhead.py compares
# against); libfabric (libfabric-dev: the OFI transport, built where it is found;
# libfabric-bin: fi_info, which lists the providers); dpkg-dev (dpkg-shlibdeps: the Debian package's run-time
# dependencies, cmake/ShoalPackaging.cmake); Slurm and munge (slurmctld,
# slurmd, slurm-client with srun's pmix plugin, munge: tests/slurm starts a
# private one-node Slurm of its own; on a systemd machine the packages
# also enable the munge service, and slurmd/slurmctld services that stay
# down without /etc/slurm/slurm.conf); groff-base (groff: the docs tests
# format every man page and fail on warnings); iproute2 (ip: tests/cluster
# builds a cluster of network namespaces); hwloc (libhwloc-dev: the
# topology oshrun places PEs by); python3-venv (python3 -m venv, for
# the distribution's Python: scripts/ucx-wheel.sh, CI's UCX 1.22 leg, and
# the shmem4py test); and matplotlib for the
# python3 on PATH, which draws the benchmark suite's plots
# (bench/run_suite.py).
set -e
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
updated=no
apt_install() {
  if [ "$updated" = no ]; then
    $sudo apt-get update -qq
    updated=yes
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@"
}

missing=""
command -v cc >/dev/null 2>&1 || missing="$missing gcc"
command -v c++ >/dev/null 2>&1 || missing="$missing g++"
command -v cmake >/dev/null 2>&1 || missing="$missing cmake"
command -v make >/dev/null 2>&1 || missing="$missing make"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
command -v nm >/dev/null 2>&1 || missing="$missing binutils"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
pkg-config --exists pmix >/dev/null 2>&1 || missing="$missing libpmix-dev"
command -v mpirun >/dev/null 2>&1 || missing="$missing openmpi-bin"
pkg-config --exists ucx >/dev/null 2>&1 || missing="$missing libucx-dev"
command -v ucx_perftest >/dev/null 2>&1 || missing="$missing ucx-utils"
pkg-config --exists libfabric >/dev/null 2>&1 || missing="$missing libfabric-dev"
command -v fi_info >/dev/null 2>&1 || missing="$missing libfabric-bin"
command -v dpkg-shlibdeps >/dev/null 2>&1 || missing="$missing dpkg-dev"
command -v slurmctld >/dev/null 2>&1 || missing="$missing slurmctld"
command -v slurmd >/dev/null 2>&1 || missing="$missing slurmd"
command -v srun >/dev/null 2>&1 || missing="$missing slurm-client"
command -v munged >/dev/null 2>&1 || missing="$missing munge"
command -v groff >/dev/null 2>&1 || missing="$missing groff-base"
command -v ip >/dev/null 2>&1 || missing="$missing iproute2"
pkg-config --exists hwloc >/dev/null 2>&1 || missing="$missing libhwloc-dev"
case "$(readlink -f "$(command -v python3 || echo /usr/bin/python3)")" in
  /usr/bin/python3*)
    python3 -c 'import ensurepip' >/dev/null 2>&1 || missing="$missing python3-venv" ;;
esac
if [ -n "$missing" ]; then
  echo "install-deps: installing:$missing"
  # shellcheck disable=SC2086 # one package per word
  apt_install $missing
fi

if ! python3 -c 'import matplotlib' >/dev/null 2>&1; then
  py=$(command -v python3)
  case "$(readlink -f "$py")" in
    /usr/bin/python3*)
      # The distribution's Python: its package manager owns site-packages.
      echo "install-deps: installing: python3-matplotlib"
      apt_install --no-install-recommends python3-matplotlib
      ;;
    *)
      # Another Python (pyenv, a venv, /usr/local): its own pip.
      echo "install-deps: installing matplotlib with $py -m pip"
      user=""
      purelib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
      [ -w "$purelib" ] || user=--user
      python3 -m pip install -q $user matplotlib ||
        python3 -m pip install -q $user --break-system-packages matplotlib
      ;;
  esac
  python3 -c 'import matplotlib' || {
    echo "install-deps: matplotlib still cannot be imported by $py" >&2
    exit 1
  }
fi
