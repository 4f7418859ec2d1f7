#!/bin/sh
# Installs what building Shoal needs on Debian/Ubuntu, only if missing:
# a C/C++ compiler, CMake, make, Python 3 (runs the API generator and the
# tests) and pkg-config (the install test).
set -e
missing=""
command -v cc >/dev/null 2>&1 || missing="$missing gcc"
command -v c++ >/dev/null 2>&1 || missing="$missing g++"
command -v cmake >/dev/null 2>&1 || missing="$missing cmake"
command -v make >/dev/null 2>&1 || missing="$missing make"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
command -v nm >/dev/null 2>&1 || missing="$missing binutils"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
[ -z "$missing" ] && exit 0
echo "install-deps: installing:$missing"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
