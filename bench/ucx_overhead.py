#!/usr/bin/env python3
"""What Shoal adds over raw UCP, on one machine, over the same UCX transport.

    bench/ucx_overhead.py [--build DIR] [--tls tcp,sm,self ...] [-i N] [-r R]
                          [--rate] [--rate-iters N] [--nbe] [--perftest PATH]

ucx_perftest is the one of the UCX the build uses (its prefix from the
build's CMake cache: <prefix>/bin/ucx_perftest, run with its lib/ on
LD_LIBRARY_PATH, which the PyPI wheel's programs need), else the one on
PATH (a warning says so); --perftest names another.

Latency (8 bytes), Shoal under SHOAL_TRANSPORTS=ucx against ucx_perftest
(server and client on localhost), with the same UCX_TLS:

  put   ucx_perftest -t ucp_put_lat     vs  bench/latency8 put (half round
        trip: put 8 bytes, the peer polls for them and answers)
  get   ucx_perftest -t ucp_get -O 1    vs  latency8 get (one blocking 8-byte
        get, a full round trip)
  fadd  ucx_perftest -t ucp_fadd -O 1   vs  latency8 fadd (one blocking 64-bit
        fetch-and-add)

and the 8-byte put rate, ucx_perftest -t ucp_put_bw -s 8 -O 64 (its overall
message rate) vs bench/mt_rate --config pes --threads 1 --ops put -w 64
(shmem_putmem_nbi, a quiet every 64; one sender PE, one passive PE).

Each of R rounds runs every pair back to back (perftest, then Shoal), so the
two sides of a ratio share the machine's state; the table gives, per side,
the median over rounds of the run's median operation (perftest's 50th
percentile; robust to a shared machine's preemptions) and of the run's mean,
and the ratios of those medians.
Shoal's waiting PE spins (SHOAL_WAIT_SPIN_US large), as perftest's responder
does.

Note: perftest's buffers are allocated by UCX (ucp_mem_map with ALLOCATE), so
UCX's shared-memory transports (sm: posix/sysv) reach them directly; Shoal's
heap is its own memfd mapping, which those transports cannot register, so
over sm Shoal's gets and AMOs are emulated with active messages.  Over tcp
both sides are emulated alike: that is the like-for-like comparison.

--nbe adds the fetch-add rate table of Shoal's _nbe requests: bench/nbe_rate
(one thread, blocking fetch-adds, then _nbe ones in windows of 64 per
request) against ucx_perftest -t ucp_fadd with 1 and with 64 operations
outstanding (rate = 1 / its overall mean time per operation).  The UCP ratio
of the two is what pipelining can give on this machine and transport; the
nbe_rate speedup is Shoal's.

--rate adds the message-rate table: bench/mt_rate with 2 sender threads on
SHMEM_CTX_DEFAULT (SHMEM_THREAD_MULTIPLE), 2 threads with a private context
each, and 2 single-threaded PEs, all under SHOAL_TRANSPORTS=ucx.
"""
import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import time


def run(cmd, env, timeout):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=timeout)
    out = p.stdout.decode("utf-8", "replace")
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d):\n%s" % (" ".join(cmd), p.returncode, out[-3000:]))
    return out


# The ucx_perftest to compare with and its environment (find_perftest).
PERFTEST = {"exe": "ucx_perftest", "env": {}}


def cmake_cache(build):
    vals = {}
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                m = re.match(r"(UCX_PREFIX|UCX_LIBDIR|UCX_VERSION):\w+=(.*)$", line.strip())
                if m:
                    vals[m.group(1)] = m.group(2)
    except OSError:
        pass
    return vals


def find_perftest(build, override):
    """ucx_perftest of the UCX that `build` links (or `override`)."""
    c = cmake_cache(build)
    exe = override
    prefix = c.get("UCX_PREFIX", "")
    if not exe and prefix and os.access(os.path.join(prefix, "bin", "ucx_perftest"), os.X_OK):
        exe = os.path.join(prefix, "bin", "ucx_perftest")
    env = {}
    if c.get("UCX_LIBDIR"):
        env["LD_LIBRARY_PATH"] = ":".join(
            x for x in (c["UCX_LIBDIR"], os.environ.get("LD_LIBRARY_PATH", "")) if x)
    if not exe:
        exe = "ucx_perftest"
        print("warning: no ucx_perftest under the build's UCX prefix %r; using the one on PATH, "
              "which may be another UCX" % prefix, file=sys.stderr)
    PERFTEST["exe"], PERFTEST["env"] = exe, env
    print("UCX %s (%s); ucx_perftest: %s" % (c.get("UCX_VERSION", "?"), prefix or "?", exe))


def perftest_run(test, extra, tls, iters):
    """The last result line of one ucx_perftest client run against a fresh
    server, split into fields."""
    env = dict(os.environ, UCX_TLS=tls, **PERFTEST["env"])
    exe = PERFTEST["exe"]
    for attempt in range(5):
        port = str(random.randint(20000, 60000))
        srv = subprocess.Popen([exe, "-p", port], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        time.sleep(0.4)
        try:
            out = run([exe, "localhost", "-p", port, "-t", test, "-n", str(iters),
                       "-f"] + extra, env, 300)
        except RuntimeError:
            srv.kill()
            srv.wait()
            continue
        srv.wait(timeout=30)
        # Last numeric line: iterations, 50th percentile, average latency,
        # overall latency, average and overall bandwidth, average and
        # overall message rate.
        for line in reversed(out.splitlines()):
            f = line.split()
            if len(f) >= 8 and f[0].isdigit():
                return f
        raise RuntimeError("cannot parse ucx_perftest output:\n" + out)
    raise RuntimeError("ucx_perftest %s could not connect" % test)


def perftest(test, extra, tls, iters):
    """(mean, median) latency in us of one ucx_perftest run."""
    f = perftest_run(test, extra, tls, iters)
    return float(f[3]), float(f[1])


def perftest_rate(test, extra, tls, iters):
    """Overall message rate of one ucx_perftest run, Mmsg/s."""
    return float(perftest_run(test, extra, tls, iters)[7]) / 1e6


def shoal_put_rate(build, tls, iters):
    """8-byte putmem_nbi rate of one mt_rate run (one sender PE), Mmsg/s."""
    out = shoal(build, "mt_rate", ["--config", "pes", "--threads", "1", "--ops", "put", "-s", "8",
                                   "-i", str(iters), "-r", "1", "-w", "64"], tls)
    m = re.search(r"^putmem\s+8 B\s+\d+\s+([\d.]+)", out, re.M)
    if not m:
        raise RuntimeError("cannot parse mt_rate output:\n" + out)
    return float(m.group(1))


def shoal(build, prog, args, tls, npes=2, timeout=600):
    env = dict(os.environ, SHOAL_TRANSPORTS="ucx", UCX_TLS=tls, SHOAL_WAIT_SPIN_US="100000000")
    cmd = [os.path.join(build, "bin", "oshrun"), "-n", str(npes),
           os.path.join(build, "bench", prog)] + args
    return run(cmd, env, timeout)


def shoal_lat(build, tls, iters, op):
    """(mean, median) latency in us of `op` in one latency8 run."""
    out = shoal(build, "latency8", ["-i", str(iters), "-r", "1"], tls)
    m = re.search(r"^%s\s+([\d.]+) \[[^\]]*\]\s+([\d.]+)" % op, out, re.M)
    if not m:
        raise RuntimeError("cannot parse latency8 output:\n" + out)
    return float(m.group(1)), float(m.group(2))


def latency_table(build, tls, iters, rounds):
    pairs = [
        ("put 8 B (half RTT)", lambda: perftest("ucp_put_lat", [], tls, iters),
         lambda: shoal_lat(build, tls, iters, "put")),
        ("get 8 B (blocking)", lambda: perftest("ucp_get", ["-O", "1"], tls, iters),
         lambda: shoal_lat(build, tls, iters, "get")),
        ("fetch-add 8 B", lambda: perftest("ucp_fadd", ["-O", "1"], tls, iters),
         lambda: shoal_lat(build, tls, iters, "fadd")),
    ]
    res = {name: ([], []) for name, _, _ in pairs}
    for r in range(rounds):
        for name, raw, ours in pairs:
            res[name][0].append(raw())
            res[name][1].append(ours())
        print("  round %d/%d done" % (r + 1, rounds), file=sys.stderr)
    print("\nUCX_TLS=%s: latency in us, %d rounds of %d operations; per side the median over "
          "rounds of\n  p50 = the run's median operation (ucx_perftest: its 50th percentile)"
          " and mean = the run's mean" % (tls, rounds, iters))
    print("%-20s %10s %10s %8s   %10s %10s %8s" % ("operation", "UCP p50", "Shoal p50", "ratio",
                                                 "UCP mean", "Shoal mean", "ratio"))
    for name, _, _ in pairs:
        a, b = res[name]
        pa = statistics.median(x[1] for x in a)
        pb = statistics.median(x[1] for x in b)
        ma = statistics.median(x[0] for x in a)
        mb = statistics.median(x[0] for x in b)
        print("%-20s %10.2f %10.2f %8.2f   %10.2f %10.2f %8.2f" %
              (name, pa, pb, pb / pa, ma, mb, mb / ma))


def put_rate_table(build, tls, iters, rounds):
    rows = []
    for r in range(rounds):
        rows.append((perftest_rate("ucp_put_bw", ["-s", "8", "-O", "64"], tls, iters),
                     shoal_put_rate(build, tls, iters)))
        print("  round %d/%d done" % (r + 1, rounds), file=sys.stderr)
    print("\nUCX_TLS=%s: 8-byte put rate, Mmsg/s, median [min..max] of %d rounds of %d puts "
          "(UCP: ucp_put_bw -O 64; Shoal: putmem_nbi, quiet every 64)" % (tls, rounds, iters))
    for i, name in enumerate(("UCP", "Shoal")):
        v = [x[i] for x in rows]
        print("  %-8s %8.4f [%.4f..%.4f]" % (name, statistics.median(v), min(v), max(v)))
    print("  UCP / Shoal (slowdown): %.2f (per-round medians)" %
          statistics.median(x[0] / x[1] for x in rows))


def rate_table(build, tls, iters, rounds):
    print("\nUCX_TLS=%s: message rate, 2 senders, Mmsg/s (bench/mt_rate, %d rounds)" % (tls,
                                                                                   rounds))
    common = ["--threads", "2", "-s", "8", "-i", str(iters), "-r", str(rounds),
              "--ops", "put,add,fadd"]
    outs = {}
    for cfg, npes in (("default", 2), ("ctx", 2), ("pes", 4)):
        print("--- config %s (%d PEs) ---" % (cfg, npes))
        try:
            outs[cfg] = shoal(build, "mt_rate", ["--config", cfg] + common, tls, npes,
                              timeout=300)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            # 2T spinning PEs on fewer cores can take a time slice per step.
            print("  no figure: %s" % str(e).splitlines()[0])
            continue
        for line in outs[cfg].splitlines():
            if line.strip() and not line.startswith("#"):
                print(line)


def shoal_nbe(build, tls, iters):
    """(blocking, nbe) fetch-add rates in Mops/s of one nbe_rate run."""
    out = shoal(build, "nbe_rate", ["-n", str(iters), "-r", "1"], tls)
    got = {}
    for mode in ("blocking", "nbe"):
        m = re.search(r"^%s\s+([\d.]+)" % mode, out, re.M)
        if not m:
            raise RuntimeError("cannot parse nbe_rate output:\n" + out)
        got[mode] = float(m.group(1))
    return got["blocking"], got["nbe"]


def nbe_table(build, tls, iters, rounds):
    rows = []
    for r in range(rounds):
        one = 1.0 / perftest("ucp_fadd", ["-O", "1"], tls, iters)[0]
        many = 1.0 / perftest("ucp_fadd", ["-O", "64"], tls, iters)[0]
        rows.append((one, many) + shoal_nbe(build, tls, iters))
        print("  round %d/%d done" % (r + 1, rounds), file=sys.stderr)
    med = [statistics.median(x[i] for x in rows) for i in range(4)]
    lo = [min(x[i] for x in rows) for i in range(4)]
    hi = [max(x[i] for x in rows) for i in range(4)]
    print("\nUCX_TLS=%s: 8-byte fetch-add rate, Mops/s, median [min..max] of %d rounds of %d "
          "operations" % (tls, rounds, iters))
    names = ("UCP, 1 outstanding", "UCP, 64 outstanding", "Shoal blocking", "Shoal _nbe (64)")
    for i, name in enumerate(names):
        print("  %-22s %8.3f [%.3f..%.3f]" % (name, med[i], lo[i], hi[i]))
    sp = [x[1] / x[0] for x in rows]
    ours = [x[3] / x[2] for x in rows]
    print("  pipelining gains: UCP %.2fx [%.2f..%.2f], Shoal %.2fx [%.2f..%.2f]" %
          (statistics.median(sp), min(sp), max(sp), statistics.median(ours), min(ours),
           max(ours)))
    print("  Shoal / UCP: blocking %.2f, _nbe %.2f (per-round medians)" %
          (statistics.median(x[2] / x[0] for x in rows),
           statistics.median(x[3] / x[1] for x in rows)))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="Shoal build directory (default: build)")
    ap.add_argument("--tls", action="append", help="UCX_TLS value(s) (default: tcp and sm,self)")
    ap.add_argument("-i", type=int, default=20000, help="iterations per run (default 20000)")
    ap.add_argument("-r", type=int, default=5, help="rounds (default 5)")
    ap.add_argument("--rate", action="store_true", help="also the message-rate table")
    ap.add_argument("--rate-iters", type=int, default=20000)
    ap.add_argument("--nbe", action="store_true", help="also the _nbe fetch-add rate table")
    ap.add_argument("--perftest", help="ucx_perftest to run (default: the build's UCX's)")
    ap.add_argument("--no-put-rate", action="store_true", help="leave out the put-rate table")
    a = ap.parse_args()
    find_perftest(a.build, a.perftest)
    tls_list = a.tls or ["tcp", "sm,self"]
    for tls in tls_list:
        latency_table(a.build, tls, a.i, a.r)
        if not a.no_put_rate:
            put_rate_table(a.build, tls, a.i, a.r)
        if a.rate:
            rate_table(a.build, tls, a.rate_iters, a.r)
        if a.nbe:
            nbe_table(a.build, tls, a.i, a.r)


if __name__ == "__main__":
    main()
