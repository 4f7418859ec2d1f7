# A Debian package of whatever `cmake --install` installs (library, headers,
# oshcc/oshc++/oshrun/shmem-info, shoal.pc, the CMake package), made by CPack:
#
#     cmake --build build && (cd build && cpack -G DEB)   # -> shoal_<version>_amd64.deb
#     cmake --build build --target package                 # the same
#
# Where it installs: /opt/shoal.  Debian's openmpi-bin (which Shoal's own
# multi-node runs use for mpirun) already owns /usr/bin/oshcc, /usr/bin/oshc++
# and /usr/bin/oshrun, so a package under /usr could not be installed next
# to it.  Shoal's installed tree is relocatable (oshcc, shoal.pc and
# ShoalConfig.cmake find the prefix from where they are), so nothing else
# depends on the prefix; `cpack -G DEB -D CPACK_PACKAGING_INSTALL_PREFIX=/usr`
# makes a /usr package for machines without Open MPI.  Users of /opt/shoal:
#
#     /opt/shoal/bin/oshcc prog.c -o prog && /opt/shoal/bin/oshrun -n 4 ./prog
#     PKG_CONFIG_PATH=/opt/shoal/lib/pkgconfig pkg-config --cflags --libs shoal
#     cmake -DCMAKE_PREFIX_PATH=/opt/shoal ...   (find_package(Shoal))
#
# (oshcc and CMake's imported targets give programs the library's run path;
# a program linked by hand with `pkg-config --libs` needs -Wl,-rpath too.)
#
# Dependencies: dpkg-shlibdeps (package dpkg-dev) computes the run-time ones
# from the ELF files (libc6, libucx0 for UCX, libpmix2 for PMIx); without it
# they are listed from what this build uses.  The development side needs, in
# a build with UCX or PMIx, pkg-config and libucx-dev / libpmix-dev:
# ShoalConfig.cmake finds them again for Shoal::shoal_static and
# find_package(Shoal) fails without them, so they are dependencies too.
# oshcc and oshc++ need a C / C++ compiler: recommended.

set(CPACK_PACKAGE_NAME shoal)
set(CPACK_PACKAGE_VENDOR "Shoal")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "OpenSHMEM 1.6 library built for multi-threaded PEs")
set(CPACK_PACKAGE_DESCRIPTION
  "Shoal is an OpenSHMEM 1.6 library for C and C++ programs in which every
communication context owns its own resources, so multi-threaded PEs
communicate as fast as single-threaded ones.  PEs on one node share memory
directly; across nodes it uses UCX, and jobs start with its own oshrun or
under PMIx launchers (Open MPI's mpirun, Slurm's srun --mpi=pmix).
This package holds the library (shared and static), the headers, the
compiler wrappers oshcc and oshc++, the launcher oshrun, shmem-info, the
profile's picture tool shoal-prof, a pkg-config file and a CMake package,
all under /opt/shoal.")
set(CPACK_PACKAGING_INSTALL_PREFIX /opt/shoal)
set(CPACK_STRIP_FILES TRUE)   # Debian ships stripped binaries

set(CPACK_DEBIAN_PACKAGE_MAINTAINER "Shoal developers <shoal@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)   # shoal_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)   # a shlibs file for libshoal.so.0

# Run-time dependencies: dpkg-shlibdeps where it is installed, else by name.
find_program(SHOAL_DPKG_SHLIBDEPS dpkg-shlibdeps)
mark_as_advanced(SHOAL_DPKG_SHLIBDEPS)
set(_shoal_deb_depends "")
set(_shoal_deb_dev_depends "")
if(SHOAL_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  list(APPEND _shoal_deb_depends "libc6")
  if(SHOAL_HAVE_UCX)
    list(APPEND _shoal_deb_depends "libucx0")
  endif()
  if(SHOAL_HAVE_PMIX)
    list(APPEND _shoal_deb_depends "libpmix2")
  endif()
endif()
if(SHOAL_HAVE_UCX OR SHOAL_HAVE_PMIX)
  list(APPEND _shoal_deb_dev_depends "pkgconf | pkg-config")
endif()
if(SHOAL_HAVE_UCX)
  list(APPEND _shoal_deb_dev_depends "libucx-dev")
endif()
if(SHOAL_HAVE_PMIX)
  list(APPEND _shoal_deb_dev_depends "libpmix-dev")
endif()
list(APPEND _shoal_deb_depends ${_shoal_deb_dev_depends})
list(JOIN _shoal_deb_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gcc | c-compiler")
# shoal-prof (SHOAL_PROFILE's pictures) runs on Python 3 with matplotlib.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "g++ | c++-compiler, cmake, python3-matplotlib")

# `cmake --build build --target package` makes the .deb where dpkg-deb exists.
find_program(SHOAL_DPKG_DEB dpkg-deb)
mark_as_advanced(SHOAL_DPKG_DEB)
if(SHOAL_DPKG_DEB)
  set(CPACK_GENERATOR DEB)
else()
  set(CPACK_GENERATOR TGZ)
endif()
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_IGNORE_FILES "/build[^/]*/" "/\\\\.git/" "__pycache__")
include(CPack)
