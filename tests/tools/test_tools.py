#!/usr/bin/env python3
"""The user-facing tools, checked the way a user meets them.

Each case prints what it checked and exits non-zero on the first mismatch.
Usage: test_tools.py --bin DIR --build DIR --src DIR --work DIR CASE
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

A = None


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(cmd, env=None, check=True, timeout=120, cwd=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    p = subprocess.run(cmd, env=e, cwd=cwd, timeout=timeout,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print("$", " ".join(cmd), "->", p.returncode)
    if check and p.returncode != 0:
        print(p.stdout)
        fail("command failed: %s" % " ".join(cmd))
    return p


def work(name):
    d = os.path.join(A.work, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def tool(name):
    return os.path.join(A.bin, name)


HELLO_C = r'''
#include <shmem.h>
#include <stdio.h>
static long counter;           /* static data is symmetric */
int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *dst = shmem_malloc(sizeof(long) * (size_t)n);
    for (int pe = 0; pe < n; pe++)
        shmem_long_p(&dst[me], me * 10 + 1, pe);
    shmem_long_atomic_add(&counter, me + 1, 0);
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++)
        if (dst[pe] != pe * 10 + 1) { printf("BAD %d\n", pe); return 2; }
    if (me == 0) printf("SUM %ld\n", counter);
    printf("PE %d of %d ok\n", me, n);
    shmem_free(dst);
    shmem_finalize();
    return 0;
}
'''

# One broadcast, reduction and fcollect whose results are checked: the
# coll log lines name each routine and the algorithm it took.
COLL_C = r'''
#include <shmem.h>
#include <stdio.h>
int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *src = shmem_malloc(sizeof(long)), *dst = shmem_calloc((size_t)n, sizeof(long));
    *src = me + 1;
    shmem_barrier_all();
    shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, sizeof(long), 1);
    int ok = dst[0] == 2;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 1);
    ok &= dst[0] == (long)n * (n + 1) / 2;
    shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, sizeof(long));
    for (int j = 0; j < n; j++)
        ok &= dst[j] == j + 1;
    printf("PE %d %s\n", me, ok ? "OK" : "BAD");
    shmem_finalize();
    return !ok;
}
'''

HELLO_CXX = r'''
#include <shmem.h>
#include <cstdio>
#include <vector>
static int flag;
int main() {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    std::vector<int> v(4, me);
    int *buf = static_cast<int *>(shmem_malloc(4 * sizeof(int)));
    shmem_int_put(buf, v.data(), 4, (me + 1) % n);
    shmem_fence();
    shmem_int_atomic_set(&flag, 1, (me + 1) % n);
    shmem_int_wait_until(&flag, SHMEM_CMP_EQ, 1);
    int from = (me + n - 1) % n;
    for (int i = 0; i < 4; i++)
        if (buf[i] != from) { std::printf("BAD\n"); return 2; }
    std::printf("C++ PE %d got %d\n", me, from);
    shmem_barrier_all();
    shmem_free(buf);
    shmem_finalize();
    return 0;
}
'''


def check_hello_output(out, n):
    for pe in range(n):
        if "PE %d of %d ok" % (pe, n) not in out:
            fail("PE %d did not report success:\n%s" % (pe, out))
    want = n * (n + 1) // 2
    if "SUM %d" % want not in out:
        fail("atomic sum on a static variable: want %d in:\n%s" % (want, out))


def case_oshcc():
    d = work("oshcc")
    src = os.path.join(d, "hello.c")
    open(src, "w").write(HELLO_C)
    exe = os.path.join(d, "hello")
    run([tool("oshcc"), "-O2", "-Wall", "-Werror", src, "-o", exe])
    for n in (1, 3):
        p = run([tool("oshrun"), "-n", str(n), exe])
        check_hello_output(p.stdout, n)
    # Separate compile and link steps, as make does.
    obj = os.path.join(d, "hello.o")
    run([tool("oshcc"), "-c", src, "-o", obj])
    run([tool("oshcc"), obj, "-o", exe + "2"])
    check_hello_output(run([tool("oshrun"), "-n", "2", exe + "2"]).stdout, 2)


def case_oshcxx():
    d = work("oshcxx")
    src = os.path.join(d, "hello.cpp")
    open(src, "w").write(HELLO_CXX)
    exe = os.path.join(d, "hello")
    run([tool("oshc++"), "-std=c++17", "-Wall", "-Werror", src, "-o", exe])
    p = run([tool("oshrun"), "-n", "3", exe])
    for pe in range(3):
        if "C++ PE %d got %d" % (pe, (pe + 2) % 3) not in p.stdout:
            fail("C++ program output wrong:\n" + p.stdout)


def case_showme():
    # Open MPI's spellings (--showme, -showme) and MPICH's (-show), before
    # or after the other arguments; none reaches the compiler.
    for wrapper in ("oshcc", "oshc++"):
        for opt in ("--showme", "-showme", "-show"):
            for args in ([opt, "a b.c", "-o", "x"], ["a b.c", opt, "-o", "x"]):
                p = run([tool(wrapper), *args])
                line = p.stdout.strip()
                if "\n" in line or opt in line.split():
                    fail("%s %s: want one command without %s: %s" % (wrapper, opt, opt, line))
                for want in ("-I", "-lshoal", "-o x", "a b.c"):
                    if want not in line:
                        fail("%s %s output lacks %r: %s" % (wrapper, opt, want, line))
                # The include directory it names holds shmem.h.
                inc = re.search(r"-I(\S+)", line).group(1)
                if not os.path.exists(os.path.join(inc, "shmem.h")):
                    fail("%s -I%s has no shmem.h" % (opt, inc))
            p = run([tool(wrapper), opt, "-c", "x.c"])
            if "-lshoal" in p.stdout:
                fail("-c must not add link flags: " + p.stdout)


def cache_value(name):
    """A variable of the build's CMakeCache.txt, or None."""
    try:
        text = open(os.path.join(A.build, "CMakeCache.txt")).read()
    except OSError:
        return None
    m = re.search(r"^%s:\w+=(.*)$" % re.escape(name), text, re.M)
    return m.group(1) if m else None


def case_static():
    # oshcc -static either links a program that runs, or (where a library
    # Shoal uses has no static archive, as Debian's PMIx) fails at once with
    # one line that says why and what to do, not pages of linker errors.
    d = work("static")
    src = os.path.join(d, "hello.c")
    open(src, "w").write(HELLO_C)
    exe = os.path.join(d, "hello")
    run([tool("oshcc"), "-static", "-c", src, "-o", exe + ".o"])  # compiling is fine
    p = run([tool("oshcc"), "-static", src, "-o", exe], check=False)
    probed = cache_value("SHOAL_STATIC_OK")
    print(p.stdout)
    if p.returncode == 0:
        if probed == "no":
            fail("configure found -static impossible, but the link succeeded")
        # A dynamically linked program has a PT_INTERP header (a static one
        # may still hold the string "ld-linux", for glibc's dlopen).
        hdrs = run(["readelf", "-lW", exe]).stdout
        if "INTERP" in hdrs:
            fail("oshcc -static made a dynamically linked program")
        check_hello_output(run([tool("oshrun"), "-n", "2", exe]).stdout, 2)
        return
    if probed == "yes":
        fail("configure found -static possible, but the link failed")
    lines = p.stdout.strip().splitlines()
    if len(lines) != 1 or not lines[0].startswith("oshcc: -static: "):
        fail("a failed -static link must print one oshcc line, got %d lines" % len(lines))
    for want in ("cannot be linked statically", "Link without -static", "-DSHOAL_WITH_"):
        if want not in lines[0]:
            fail("the -static message lacks %r: %s" % (want, lines[0]))
    if os.path.exists(exe):
        fail("a failed -static link left %s behind" % exe)


def case_test_script():
    # scripts/test.sh picks the build directory its comment promises, run in
    # a copy whose install-deps.sh, cmake, ctest and nproc only log.
    d = work("test_script")
    os.makedirs(os.path.join(d, "tree", "scripts"))
    os.makedirs(os.path.join(d, "fakebin"))
    shutil.copy(os.path.join(A.src, "scripts", "test.sh"), os.path.join(d, "tree", "scripts"))
    log = os.path.join(d, "log")
    fakes = {"tree/scripts/install-deps.sh": "",
             "fakebin/cmake": 'echo "cmake $*" >> "%s"' % log,
             "fakebin/ctest": 'echo "ctest $*" >> "%s"' % log,
             "fakebin/nproc": "echo 2"}
    for path, body in fakes.items():
        with open(os.path.join(d, path), "w") as f:
            f.write("#!/bin/sh\n%s\n" % body)
        os.chmod(os.path.join(d, path), 0o755)
    base = {k: v for k, v in os.environ.items() if k != "BUILD_DIR"}
    base["PATH"] = os.path.join(d, "fakebin") + ":" + os.environ["PATH"]
    for args, build_dir, want_dir in (
            ([], None, "build"),
            (["-DSHOAL_ASAN=ON"], None, "build-asan"),
            (["-DSHOAL_TSAN=on", "-DSHOAL_BUILD_BENCH=OFF"], None, "build-tsan"),
            (["-DSHOAL_ASAN:BOOL=TRUE"], None, "build-asan"),
            (["-DSHOAL_ASAN=ON", "-DSHOAL_ASAN=OFF"], None, "build"),
            (["-DSHOAL_ASAN=ON"], "mine", "mine")):
        if os.path.exists(log):
            os.remove(log)
        env = dict(base)
        if build_dir:
            env["BUILD_DIR"] = build_dir
        cmd = ["sh", os.path.join(d, "tree", "scripts", "test.sh")] + args
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        print("$", "BUILD_DIR=%s" % build_dir if build_dir else "", " ".join(cmd), "->",
              p.returncode)
        if p.returncode != 0:
            fail("test.sh failed:\n" + p.stdout)
        lines = open(log).read().splitlines()
        configure = [l for l in lines if l.startswith("cmake -S")]
        if len(configure) != 1 or "-B %s " % want_dir not in configure[0] + " ":
            fail("test.sh %s: want the build in %s, got:\n%s" % (args, want_dir, "\n".join(lines)))
        if "ctest --test-dir %s " % want_dir not in "\n".join(lines) + " ":
            fail("test.sh %s: ctest not run in %s:\n%s" % (args, want_dir, "\n".join(lines)))
        # The user's own settings reach cmake, after the script's.
        if args and not configure[0].endswith(" ".join(args)):
            fail("test.sh %s: arguments not passed on last: %s" % (args, configure[0]))


def env_table_names():
    """Every variable the library reads, from its one table."""
    text = open(os.path.join(A.src, "src/core/config/env_table.h")).read()
    names = re.findall(r'SHOAL_ENV\(\w+,\s*"(\w+)",\s*(?:"(\w+)"|NULL)', text)
    if len(names) < 5:
        fail("could not read env_table.h")
    return names


def case_shmem_info():
    p = run([tool("shmem-info")])
    out = p.stdout
    for want in ("OpenSHMEM 1.6", "Shoal", "Transports:", "shm"):
        if want not in out:
            fail("shmem-info lacks %r:\n%s" % (want, out))
    for name, alias in env_table_names():
        if not re.search(r"^\s*%s\s+=" % name, out, re.M):
            fail("shmem-info does not list %s:\n%s" % (name, out))
        if alias and alias not in out:
            fail("shmem-info does not name alias %s" % alias)


def case_shmem_info_env():
    # The value shown is the one in the environment, marked as set.
    p = run([tool("shmem-info")], env={"SHMEM_SYMMETRIC_SIZE": "3G"})
    if not re.search(r"SHMEM_SYMMETRIC_SIZE\s+=\s+3G\s+\(set\)", p.stdout):
        fail("shmem-info does not show SHMEM_SYMMETRIC_SIZE=3G as set:\n" + p.stdout)
    p = run([tool("shmem-info"), "--help"], check=False)
    if p.returncode != 0 or "usage" not in p.stdout.lower():
        fail("shmem-info --help: rc %d\n%s" % (p.returncode, p.stdout))


def hello_exe():
    return os.path.join(A.build, "examples", "hello")


def case_info_at_start():
    p = run([tool("oshrun"), "-n", "3", hello_exe()], env={"SHMEM_INFO": "1"})
    # Printed once (by PE 0), before the program's own output.
    if p.stdout.count("SHMEM_SYMMETRIC_SIZE") != 1:
        fail("SHMEM_INFO=1 must make PE 0 alone print the configuration:\n" + p.stdout)
    if "OpenSHMEM 1.6" not in p.stdout or p.stdout.count("Hello from PE") != 3:
        fail("SHMEM_INFO output incomplete:\n" + p.stdout)
    p = run([tool("oshrun"), "-n", "2", hello_exe()], env={"SMA_INFO": "1"})
    if p.stdout.count("SHMEM_SYMMETRIC_SIZE") != 1:
        fail("deprecated SMA_INFO alias is not honoured:\n" + p.stdout)
    p = run([tool("oshrun"), "-n", "2", hello_exe()])
    if "SHMEM_SYMMETRIC_SIZE" in p.stdout:
        fail("configuration printed without SHMEM_INFO:\n" + p.stdout)


def case_version_at_start():
    p = run([tool("oshrun"), "-n", "2", hello_exe()], env={"SHMEM_VERSION": "1"})
    lines = [l for l in p.stdout.splitlines() if "Shoal" in l]
    if len(lines) != 1:
        fail("SHMEM_VERSION=1: want one version line from PE 0:\n" + p.stdout)


def case_log():
    # SHOAL_LOG: lines on stderr (run() merges it) with PE, thread and time,
    # only for the categories asked; a malformed value is an error naming it.
    d = work("log")
    src = os.path.join(d, "hello.c")
    open(src, "w").write(HELLO_C)  # allocates: a heap line
    exe = os.path.join(d, "hello")
    run([tool("oshcc"), src, "-o", exe])
    p = run([tool("oshrun"), "-n", "2", exe], env={"SHOAL_LOG": "boot:info,heap:debug"})
    for pe in (0, 1):
        pat = r"shoal\[PE %d t\d+ [0-9.]+ s\] boot: shmem_init: PE %d of 2 " % (pe, pe)
        if not re.search(pat, p.stdout):
            fail("SHOAL_LOG=boot:info: no init line of PE %d:\n%s" % (pe, p.stdout))
    if not re.search(r"\] heap: shmem_malloc: \d+ bytes at offset \d+", p.stdout):
        fail("SHOAL_LOG=heap:debug: no allocation line:\n" + p.stdout)
    if "] boot: shmem_finalize" not in p.stdout:
        fail("SHOAL_LOG=boot:info: no finalize line:\n" + p.stdout)
    coll_src = os.path.join(d, "coll.c")
    open(coll_src, "w").write(COLL_C)
    coll_exe = os.path.join(d, "coll")
    run([tool("oshcc"), coll_src, "-o", coll_exe])
    c = run([tool("oshrun"), "-n", "2", coll_exe], env={"SHOAL_LOG": "coll:debug"})
    for pat in (r"shoal\[PE 1 t\d+ 0\.[0-9]+ s\] coll: reduce \w+ \(crossover \d+ bytes\), broadcast \w+",
                r"\] coll: shmem_broadcastmem: 8 bytes from root 1: \w+",
                r"\] coll: shmem_long_sum_reduce: 8 bytes: ",
                r"\] coll: shmem_fcollectmem: 8 bytes: "):
        if not re.search(pat, c.stdout):
            fail("SHOAL_LOG=coll:debug: no line matching %r:\n%s" % (pat, c.stdout))
    if "] heap:" in c.stdout or "OK" not in c.stdout:
        fail("SHOAL_LOG=coll:debug: wrong lines or wrong result:\n" + c.stdout)
    quiet = run([tool("oshrun"), "-n", "2", hello_exe()], env={"SHOAL_LOG": "ctx:error"})
    if "shoal[" in quiet.stdout:
        fail("SHOAL_LOG=ctx:error printed boot or heap lines:\n" + quiet.stdout)
    bad = run([tool("oshrun"), "-n", "2", hello_exe()], env={"SHOAL_LOG": "heap:loud"},
              check=False)
    if bad.returncode == 0 or "SHOAL_LOG='heap:loud' is malformed" not in bad.stdout:
        fail("a malformed SHOAL_LOG must fail naming the variable:\n" + bad.stdout)


def case_different_exe():
    # Two different programs in one job: init must say so, and the job fails.
    d = work("different_exe")
    src = os.path.join(d, "hello.c")
    open(src, "w").write(HELLO_C)
    other = os.path.join(d, "other")
    run([tool("oshcc"), src, "-o", other])
    script = 'if [ "$SHOAL_RANK" = 0 ]; then exec "$1"; else exec "$2"; fi'
    p = run([tool("oshrun"), "-n", "2", "/bin/sh", "-c", script, "sh", hello_exe(), other],
            check=False, timeout=60)
    if p.returncode == 0:
        fail("a job running two executables succeeded:\n" + p.stdout)
    if not re.search(r"PE \d on host \S+ \(pid \d+\) runs another program than PE \d on host "
                     r"\S+ \(pid \d+\): its ELF build id differs", p.stdout):
        fail("no message about different executables:\n" + p.stdout)
    # A copy of the same program (another file, the same content) is the same
    # program: as on hosts that each run their own copy.
    copy = os.path.join(d, "copy")
    shutil.copy2(hello_exe(), copy)
    p = run([tool("oshrun"), "-n", "2", "/bin/sh", "-c", script, "sh", hello_exe(), copy],
            check=False, timeout=60)
    if p.returncode != 0:
        fail("a job running two copies of one program failed:\n" + p.stdout)


def install_tree(name):
    d = work(name)
    prefix = os.path.join(d, "prefix")
    run(["cmake", "--install", A.build, "--prefix", prefix])
    for f in ("include/shmem.h", "include/shmemx.h", "include/pshmem.h",
              "include/mpp/shmem.h", "include/mpp/shmemx.h", "bin/oshcc", "bin/oshc++",
              "bin/oshrun", "bin/shmem-info", "bin/shoal-prof"):
        if not os.path.exists(os.path.join(prefix, f)):
            fail("install lacks %s" % f)
    return d, prefix


def find_pc_dir(prefix):
    for root, _, files in os.walk(prefix):
        if "shoal.pc" in files:
            return root
    fail("install has no shoal.pc")


def clean_env():
    """The environment without LD_LIBRARY_PATH: what the run path alone finds."""
    return {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}


def loaded_libs(path):
    """{soname: the file the dynamic linker loads for it} for an ELF file,
    as ldd says without LD_LIBRARY_PATH ("not found" when it finds none)."""
    p = subprocess.run(["ldd", path], env=clean_env(), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=60)
    libs = {}
    for line in p.stdout.splitlines():
        m = re.match(r"\s*(\S+) => (not found|\S+)", line)
        if m:
            libs[m.group(1)] = m.group(2) if m.group(2) == "not found" \
                else os.path.realpath(m.group(2))
    return libs


def build_ucx():
    """(UCX's library directory, version) this build used, or None without UCX."""
    libdir, version = cache_value("UCX_LIBDIR"), cache_value("UCX_VERSION")
    if (cache_value("SHOAL_WITH_UCX") == "OFF" or cache_value("UCX_FOUND") != "1" or
            not libdir or not version):
        return None
    return os.path.realpath(libdir), version


def check_loads_build_ucx(path, what):
    """path (an installed program or library, or one built against the
    installed tree) loads every UCX library from the UCX the build used."""
    ucx = build_ucx()
    if ucx is None:
        return
    libs = loaded_libs(path)
    ucx_libs = {k: v for k, v in libs.items() if re.match(r"libuc[pstm]\.so", k)}
    if not ucx_libs:
        fail("%s (%s) loads no UCX library: %s" % (what, path, libs))
    for soname, where in ucx_libs.items():
        if os.path.dirname(where) != ucx[0]:
            fail("%s (%s) loads %s from %s, not from the UCX %s it was built with (%s): "
                 "its run path lacks that directory" % (what, path, soname, where, ucx[1], ucx[0]))


def elf_files(root):
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            path = os.path.join(dirpath, f)
            if os.path.islink(path):
                continue
            with open(path, "rb") as fh:
                if fh.read(4) == b"\x7fELF":
                    yield path


def case_install_runpath():
    # Built on a UCX outside the system's directories (-DUCX_ROOT: a site's
    # install, the PyPI wheel), the installed tree must load that UCX as the
    # build tree does, through run paths alone: every installed program and
    # library, and the programs the installed oshcc builds.  Elsewhere (the
    # system's UCX) the same checks hold trivially.
    d, prefix = install_tree("install_runpath")
    elves = list(elf_files(prefix))
    if not any(os.path.basename(e).startswith("libshoal.so") for e in elves):
        fail("install has no libshoal.so: %s" % elves)
    for e in elves:
        rel = os.path.relpath(e, prefix)
        libs = loaded_libs(e)
        missing = [k for k, v in libs.items() if v == "not found"]
        if missing:
            fail("installed %s finds no %s (readelf -d: its run path)" % (rel, missing))
        # The build tree's copy: the same file for every library but Shoal's own.
        twin = os.path.join(A.build, "bin" if rel.startswith("bin") else "lib",
                            os.path.basename(e))
        if os.path.exists(twin):
            for soname, where in loaded_libs(twin).items():
                if not soname.startswith("libshoal") and libs.get(soname) != where:
                    fail("installed %s loads %s from %s, the build tree's copy from %s"
                         % (rel, soname, libs.get(soname), where))
        if any(re.match(r"libuc[pstm]\.so", k) for k in libs):
            check_loads_build_ucx(e, "installed " + rel)
        print("ok:", rel, "->", ", ".join(sorted({os.path.dirname(v) for k, v in libs.items()
                                                   if k.startswith("libuc")})) or "no UCX")
    ucx = build_ucx()
    info = run([os.path.join(prefix, "bin/shmem-info")], env=clean_env()).stdout
    if ucx and "UCX %s" % ucx[1] not in info:
        fail("installed shmem-info does not report UCX %s (the build's):\n%s" % (ucx[1], info))
    src = os.path.join(d, "hello.c")
    open(src, "w").write(HELLO_C)
    exe = os.path.join(d, "hello")
    run([os.path.join(prefix, "bin/oshcc"), src, "-o", exe])
    check_loads_build_ucx(exe, "a program built by the installed oshcc")
    p = run([os.path.join(prefix, "bin/oshrun"), "-n", "2", exe],
            env=dict(clean_env(), SHMEM_INFO="1"))
    check_hello_output(p.stdout, 2)
    if ucx and "UCX %s" % ucx[1] not in p.stdout:
        fail("a program built by the installed oshcc does not run on UCX %s:\n%s"
             % (ucx[1], p.stdout))


def case_install_pkgconfig():
    d, prefix = install_tree("install_pkgconfig")
    if shutil.which("pkg-config") is None:
        fail("pkg-config is not installed (scripts/install-deps.sh installs it)")
    env = {"PKG_CONFIG_PATH": find_pc_dir(prefix)}
    flags = run(["pkg-config", "--cflags", "--libs", "shoal"], env=env).stdout.split()
    src = os.path.join(d, "hello.c")
    open(src, "w").write(HELLO_C)
    exe = os.path.join(d, "hello")
    libdir = [f[2:] for f in flags if f.startswith("-L")]
    run(["cc", src, "-o", exe] + flags + ["-Wl,-rpath," + libdir[0]])
    check_loads_build_ucx(exe, "a program linked with pkg-config's flags")
    # A static link takes UCX's flags from shoal.pc: the build's UCX.
    ucx = build_ucx()
    if ucx:
        static = run(["pkg-config", "--static", "--libs", "shoal"], env=env).stdout.split()
        dirs = [os.path.realpath(f[2:]) for f in static if f.startswith("-L")]
        if "-lucp" not in static:
            fail("pkg-config --static --libs shoal lacks -lucp: %s" % static)
        system = ucx[0].startswith(("/usr/lib", "/lib"))
        if not system and ucx[0] not in dirs:
            fail("pkg-config --static --libs shoal does not name the build's UCX (%s): %s"
                 % (ucx[0], static))
    check_hello_output(run([os.path.join(prefix, "bin/oshrun"), "-n", "2", exe]).stdout, 2)
    # The installed oshcc works from the install tree too.
    exe2 = os.path.join(d, "hello2")
    run([os.path.join(prefix, "bin/oshcc"), src, "-o", exe2])
    check_hello_output(run([os.path.join(prefix, "bin/oshrun"), "-n", "3", exe2]).stdout, 3)
    shown = run([os.path.join(prefix, "bin/oshcc"), "--showme", "x.c"]).stdout
    inc = re.search(r"-I(\S+)", shown).group(1)
    if not os.path.realpath(inc).startswith(os.path.realpath(prefix)):
        fail("installed oshcc's include directory is outside the install tree: " + shown)


def case_install_find_package():
    d, prefix = install_tree("install_find_package")
    proj = os.path.join(d, "proj")
    os.makedirs(proj)
    open(os.path.join(proj, "hello.c"), "w").write(HELLO_C)
    open(os.path.join(proj, "CMakeLists.txt"), "w").write(
        "cmake_minimum_required(VERSION 3.16)\n"
        "project(user C)\n"
        "find_package(Shoal 0.1 REQUIRED)\n"
        "add_executable(hello hello.c)\n"
        "target_link_libraries(hello PRIVATE Shoal::shoal)\n"
        "add_executable(hello_static hello.c)\n"
        "target_link_libraries(hello_static PRIVATE Shoal::shoal_static)\n"
        "file(WRITE ${CMAKE_BINARY_DIR}/oshrun.txt ${SHOAL_OSHRUN})\n")
    b = os.path.join(d, "build")
    run(["cmake", "-S", proj, "-B", b, "-DCMAKE_PREFIX_PATH=" + prefix], timeout=120)
    run(["cmake", "--build", b], timeout=120)
    oshrun = open(os.path.join(b, "oshrun.txt")).read().strip()
    if not os.path.exists(oshrun):
        fail("SHOAL_OSHRUN from find_package does not exist: " + oshrun)
    for exe in ("hello", "hello_static"):
        check_loads_build_ucx(os.path.join(b, exe), "find_package(Shoal)'s " + exe)
        check_hello_output(run([oshrun, "-n", "3", os.path.join(b, exe)]).stdout, 3)


def main():
    global A
    ap = argparse.ArgumentParser()
    for o in ("bin", "build", "src", "work"):
        ap.add_argument("--" + o, required=True)
    ap.add_argument("case")
    A = ap.parse_args()
    globals()["case_" + A.case]()
    print("PASS", A.case)


if __name__ == "__main__":
    main()
