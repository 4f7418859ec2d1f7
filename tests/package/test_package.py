#!/usr/bin/env python3
"""package.deb: the Debian package, checked the way a user meets it.

1. CPack makes shoal_<version>_<arch>.deb from this build
   (cmake/ShoalPackaging.cmake).
2. Its control fields: the run-time dependencies of this build (libc6, and
   libucx0 / libpmix2 when built with UCX / PMIx) and the dev files.
3. dpkg -x unpacks it into a scratch root (no dpkg database, no root
   privileges needed): the tree must work where it lands, so its oshcc,
   shoal.pc and CMake package are used from there to build a 2-PE program
   that runs under the unpacked oshrun and loads the unpacked libshoal.

The programs and their checks are those of the install tests
(tests/tools/test_tools.py: HELLO_C, check_hello_output).
Exit 77 (skipped) where dpkg-deb is missing."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

A = None
SKIP = 77


def main():
    global A
    ap = argparse.ArgumentParser()
    for o in ("cpack", "build", "src", "work", "version", "with-ucx", "with-pmix"):
        ap.add_argument("--" + o, required=True)
    A = ap.parse_args()
    sys.path.insert(0, os.path.join(A.src, "tests", "tools"))
    import test_tools as tt   # run(), fail(), HELLO_C, check_hello_output()

    for t in ("dpkg-deb", "dpkg"):
        if shutil.which(t) is None:
            print(f"SKIP: {t} not found (not a Debian system): no .deb to make or unpack")
            return SKIP
    if shutil.which("pkg-config") is None:
        tt.fail("pkg-config is not installed (scripts/install-deps.sh installs it)")
    # Nothing from the environment may point at the build tree or elsewhere.
    for v in ("LD_LIBRARY_PATH", "PKG_CONFIG_PATH", "CMAKE_PREFIX_PATH", "Shoal_DIR",
              "SHOAL_CC", "SHOAL_CXX"):
        os.environ.pop(v, None)
    t_start = time.monotonic()
    work = os.path.abspath(A.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    # 1. The package.  CPack installs the build tree into its staging
    # directory as `cmake --install` would.  CPACK_CMAKE_GENERATOR=Ninja
    # only keeps CPack from first running the Makefile generator's
    # "preinstall" target (a build of everything): a test must not rebuild
    # the tree that other tests are running from (ctest runs after the build).
    out = os.path.join(work, "out")
    t0 = time.monotonic()
    tt.run([A.cpack, "-G", "DEB", "--config", os.path.join(A.build, "CPackConfig.cmake"),
            "-B", out, "-D", "CPACK_CMAKE_GENERATOR=Ninja"], cwd=A.build, timeout=150)
    arch = tt.run(["dpkg", "--print-architecture"]).stdout.strip()
    deb = os.path.join(out, f"shoal_{A.version}_{arch}.deb")
    if not os.path.exists(deb):
        tt.fail(f"no {os.path.basename(deb)} in {out}: {sorted(os.listdir(out))}")
    print(f"package: {os.path.basename(deb)}, {os.path.getsize(deb) >> 10} KiB, made in "
          f"{time.monotonic() - t0:.1f} s")

    # 2. Control fields and contents.
    fields = {}
    for f in ("Package", "Version", "Architecture", "Depends"):
        fields[f] = tt.run(["dpkg-deb", "-f", deb, f]).stdout.strip()
    print("Depends:", fields["Depends"])
    if fields["Package"] != "shoal" or fields["Version"] != A.version:
        tt.fail(f"package {fields['Package']} {fields['Version']}, want shoal {A.version}")
    deps = {d.strip().split()[0] for alt in fields["Depends"].split(",")
            for d in alt.split("|") if d.strip()}
    want = ["libc6"]
    if A.with_ucx.upper() in ("TRUE", "ON", "1"):
        want += ["libucx0", "libucx-dev"]
    if A.with_pmix.upper() in ("TRUE", "ON", "1"):
        want += ["libpmix2", "libpmix-dev"]
    missing = [d for d in want if d not in deps]
    if missing:
        tt.fail(f"Depends lacks {missing}: {fields['Depends']}")
    listing = tt.run(["dpkg-deb", "-c", deb]).stdout
    files = [ln.split()[5].lstrip(".") for ln in listing.splitlines() if len(ln.split()) > 5]
    pcs = [f for f in files if f.endswith("/pkgconfig/shoal.pc")]
    if len(pcs) != 1:
        tt.fail("no (or several) pkgconfig/shoal.pc in the package:\n" + listing)
    prefix_in_pkg = pcs[0].rsplit("/", 3)[0]      # <prefix>/<libdir>/pkgconfig/shoal.pc
    libdir_in_pkg = pcs[0].rsplit("/", 2)[0]
    for f in ("bin/oshcc", "bin/oshc++", "bin/oshrun", "bin/shmem-info", "bin/shoal-prof",
              "include/shmem.h", "include/shmemx.h", "include/pshmem.h", "include/mpp/shmem.h",
              "include/mpp/shmemx.h"):
        if f"{prefix_in_pkg}/{f}" not in files:
            tt.fail(f"the package lacks {prefix_in_pkg}/{f}")
    for f in ("libshoal.so.0", "libshoal.a", "cmake/Shoal/ShoalConfig.cmake",
              "cmake/Shoal/ShoalTargets.cmake"):
        if f"{libdir_in_pkg}/{f}" not in files:
            tt.fail(f"the package lacks {libdir_in_pkg}/{f}")
    print(f"contents: {len(files)} entries under {prefix_in_pkg}")

    # 3. Unpacked into a scratch root, used from there.
    root = os.path.join(work, "root")
    tt.run(["dpkg", "-x", deb, root])
    prefix = root + prefix_in_pkg
    libdir = root + libdir_in_pkg

    def inside(path):
        return os.path.realpath(path).startswith(os.path.realpath(root) + os.sep)

    def check_libshoal(exe):
        # The program must load the unpacked libshoal (nothing else has one,
        # but say so if it ever did).
        out = tt.run(["ldd", exe]).stdout
        m = re.search(r"libshoal\.so\.0 => (\S+)", out)
        if m and not inside(m.group(1)):
            tt.fail(f"{exe} loads {m.group(1)}, outside the unpacked root")
        if not m and "libshoal" in out:
            tt.fail(f"{exe}: libshoal not found:\n{out}")

    oshrun = os.path.join(prefix, "bin", "oshrun")
    src = os.path.join(work, "hello.c")
    open(src, "w").write(tt.HELLO_C)
    tt.run([os.path.join(prefix, "bin", "shmem-info")])

    # oshcc from the unpacked root.
    shown = tt.run([os.path.join(prefix, "bin", "oshcc"), "--showme", "x.c"]).stdout
    inc = re.search(r"-I(\S+)", shown).group(1)
    if not inside(inc):
        tt.fail("the unpacked oshcc's include directory is outside the root: " + shown)
    exe = os.path.join(work, "hello_oshcc")
    tt.run([os.path.join(prefix, "bin", "oshcc"), src, "-o", exe])
    check_libshoal(exe)
    tt.check_hello_output(tt.run([oshrun, "-n", "2", exe], timeout=60).stdout, 2)

    # pkg-config.
    env = {"PKG_CONFIG_PATH": os.path.join(libdir, "pkgconfig")}
    flags = tt.run(["pkg-config", "--cflags", "--libs", "shoal"], env=env).stdout.split()
    # Shoal's own -I and -L lie in the root (other -I come from its
    # dependencies' .pc files: Requires.private).
    own_inc = [f for f in flags if f.startswith("-I") and inside(f[2:])]
    bad = [f for f in flags if f.startswith("-L") and not inside(f[2:])]
    if not own_inc or bad:
        tt.fail(f"pkg-config flags do not point into the unpacked root: {flags}")
    exe = os.path.join(work, "hello_pc")
    tt.run(["cc", src, "-o", exe] + flags + ["-Wl,-rpath," + libdir])
    check_libshoal(exe)
    tt.check_hello_output(tt.run([oshrun, "-n", "2", exe], timeout=60).stdout, 2)

    # find_package(Shoal): shared and static targets.
    proj = os.path.join(work, "proj")
    os.makedirs(proj)
    shutil.copy(src, proj)
    open(os.path.join(proj, "CMakeLists.txt"), "w").write(
        "cmake_minimum_required(VERSION 3.16)\n"
        "project(user C)\n"
        f"find_package(Shoal {A.version} REQUIRED)\n"
        "add_executable(hello hello.c)\n"
        "target_link_libraries(hello PRIVATE Shoal::shoal)\n"
        "add_executable(hello_static hello.c)\n"
        "target_link_libraries(hello_static PRIVATE Shoal::shoal_static)\n"
        "file(WRITE ${CMAKE_BINARY_DIR}/found.txt \"${Shoal_DIR}\\n${SHOAL_OSHRUN}\\n\")\n")
    b = os.path.join(work, "proj-build")
    tt.run(["cmake", "-S", proj, "-B", b, "-DCMAKE_PREFIX_PATH=" + prefix,
            "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF"], timeout=120)
    tt.run(["cmake", "--build", b], timeout=120)
    shoal_dir, cm_oshrun = open(os.path.join(b, "found.txt")).read().split("\n")[:2]
    if not inside(shoal_dir) or not inside(cm_oshrun) or not os.path.exists(cm_oshrun):
        tt.fail(f"find_package(Shoal) found {shoal_dir} (SHOAL_OSHRUN {cm_oshrun}), not the "
                f"unpacked root {root}")
    for name in ("hello", "hello_static"):
        exe = os.path.join(b, name)
        check_libshoal(exe)
        tt.check_hello_output(tt.run([cm_oshrun, "-n", "2", exe], timeout=60).stdout, 2)

    print(f"ok: {os.path.basename(deb)} unpacked and used through oshcc, pkg-config and "
          f"find_package(Shoal) in {time.monotonic() - t_start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
