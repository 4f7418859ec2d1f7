#!/usr/bin/env python3
"""What Shoal adds over raw UCP, on one machine, over the same UCX transport.

    bench/ucx_overhead.py [--build DIR] [--tls tcp,sm,self ...] [-i N] [-r R]
                          [--rate] [--rate-iters N] [--nbe]

Latency (8 bytes), Shoal under SHOAL_TRANSPORTS=ucx against ucx_perftest
(server and client on localhost), with the same UCX_TLS:

  put   ucx_perftest -t ucp_put_lat     vs  bench/latency8 put (half round
        trip: put 8 bytes, the peer polls for them and answers)
  get   ucx_perftest -t ucp_get -O 1    vs  latency8 get (one blocking 8-byte
        get, a full round trip)
  fadd  ucx_perftest -t ucp_fadd -O 1   vs  latency8 fadd (one blocking 64-bit
        fetch-and-add)

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


def perftest(test, extra, tls, iters):
    """(mean, median) latency in us of one ucx_perftest client run against a
    fresh server."""
    env = dict(os.environ, UCX_TLS=tls)
    for attempt in range(5):
        port = str(random.randint(20000, 60000))
        srv = subprocess.Popen(["ucx_perftest", "-p", port], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        time.sleep(0.4)
        try:
            out = run(["ucx_perftest", "localhost", "-p", port, "-t", test, "-n", str(iters),
                       "-f"] + extra, env, 300)
        except RuntimeError:
            srv.kill()
            srv.wait()
            continue
        srv.wait(timeout=30)
        # Last numeric line: iterations, 50th percentile, average, overall average, ...
        for line in reversed(out.splitlines()):
            f = line.split()
            if len(f) >= 4 and f[0].isdigit():
                return float(f[3]), float(f[1])
        raise RuntimeError("cannot parse ucx_perftest output:\n" + out)
    raise RuntimeError("ucx_perftest %s could not connect" % test)


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
    a = ap.parse_args()
    tls_list = a.tls or ["tcp", "sm,self"]
    for tls in tls_list:
        latency_table(a.build, tls, a.i, a.r)
        if a.rate:
            rate_table(a.build, tls, a.rate_iters, a.r)
        if a.nbe:
            nbe_table(a.build, tls, a.i, a.r)


if __name__ == "__main__":
    main()
