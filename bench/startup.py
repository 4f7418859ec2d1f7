#!/usr/bin/env python3
"""Start-up time of a whole job, per UCX build: oshrun -n N of a hello.

    bench/startup.py [--build DIR ...] [-n N] [-r ROUNDS] [--program PATH]
                     [--tls TLS] [--no-ucx-path] [--variants LIST]

Times `oshrun -n N <hello>` from fork to the last PE's exit (wall clock,
the whole processes: loading, UCX's constructors, shmem_init, finalize),
for each build directory given (default: build/, Debian's UCX, and
build-ucx122/, the UCX 1.22 wheel, where they exist), each on two paths:

  node  every PE on this node (the default route: UCX loaded, not started)
  ucx   SHOAL_TRANSPORTS=ucx with UCX_TLS=--tls (ucp_init, workers, wire-up)

and in these variants (--variants, comma-separated):

  oshrun      what a user gets: oshrun's own choices (with UCX 1.21 and
              later it sets UCX_MEM_BISTRO_GRACE_DURATION=0 for a program
              that links Shoal: tools/oshrun/ucx_start.c)
  ucx_grace   UCX_MEM_BISTRO_GRACE_DURATION=50ms set by hand: UCX's own
              default, i.e. start-up as it was before oshrun chose
  no_events   UCX_MEM_EVENTS=no: no memory hooks at all (for reference)

The program is each build's examples/hello unless --program names one (it
must link the build's libshoal through its run path).  Rounds are
interleaved: each round runs every build x path x variant once, in a new
random order, so all of them share the machine's state; the table gives the
median over rounds and the min-max, and each row's ratio to the first
build's row of the same path and variant.  The goal line checks, per path:
first-build-is-reference, every other build's `oshrun` median <= 2 x the
reference's + 0.1 s.
"""
import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = {
    "oshrun": {},
    "ucx_grace": {"UCX_MEM_BISTRO_GRACE_DURATION": "50ms"},
    "no_events": {"UCX_MEM_EVENTS": "no"},
}
# Variables that would change what is measured, cleared from every run.
CLEARED = ("UCX_MEM_BISTRO_GRACE_DURATION", "UCX_MEM_EVENTS", "SHOAL_OSHRUN_UCX_GRACE",
           "SHOAL_TRANSPORTS", "UCX_TLS", "LD_LIBRARY_PATH")


def ucx_version(build):
    try:
        out = subprocess.run([str(build / "bin" / "shmem-info")], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=60).stdout
    except OSError as e:
        return f"? ({e})"
    m = re.search(r"Network: UCX (\S+)", out)
    return m.group(1) if m else "none"


def one_run(build, program, n, path, variant, tls, timeout):
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env.update(VARIANTS[variant])
    if path == "ucx":
        env.update({"SHOAL_TRANSPORTS": "ucx", "UCX_TLS": tls})
    cmd = [str(build / "bin" / "oshrun"), "-n", str(n), program]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=timeout)
    took = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"startup: {' '.join(cmd)} ({path}, {variant}) exited {p.returncode}:\n"
                 f"{p.stdout}")
    return took


def fmt(v):
    return f"{v:.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", action="append", default=[],
                    help="build directory (repeatable; the first is the reference)")
    ap.add_argument("-n", type=int, default=8, help="PEs (default 8)")
    ap.add_argument("-r", "--rounds", type=int, default=11, help="rounds (default 11)")
    ap.add_argument("--program", default="", help="program to run (default: <build>/examples/hello)")
    ap.add_argument("--tls", default="tcp", help="UCX_TLS of the ucx path (default tcp)")
    ap.add_argument("--no-ucx-path", action="store_true", help="time the node path only")
    ap.add_argument("--variants", default="oshrun,ucx_grace,no_events",
                    help="comma-separated: " + ", ".join(VARIANTS))
    ap.add_argument("--timeout", type=float, default=120, help="per run, seconds")
    a = ap.parse_args()
    builds = [Path(b).resolve() for b in a.build] or \
        [d for d in (ROOT / "build", ROOT / "build-ucx122") if (d / "bin" / "oshrun").exists()]
    if not builds:
        sys.exit("startup: no build directory (give --build DIR)")
    variants = [v for v in a.variants.split(",") if v]
    for v in variants:
        if v not in VARIANTS:
            sys.exit(f"startup: unknown variant {v} ({', '.join(VARIANTS)})")
    paths = ["node"] + ([] if a.no_ucx_path else ["ucx"])
    progs = {}
    for b in builds:
        prog = a.program or str(b / "examples" / "hello")
        if not os.access(prog, os.X_OK):
            sys.exit(f"startup: {prog} is not an executable (build the examples)")
        progs[b] = prog
    names = {b: f"{os.path.relpath(b, ROOT) if b.is_relative_to(ROOT) else b} "
                f"(UCX {ucx_version(b)})" for b in builds}
    combos = [(b, p, v) for b in builds for p in paths for v in variants]
    times = {c: [] for c in combos}
    load = os.getloadavg()[0]
    for c in combos:   # one unmeasured run each: page cache, first-run effects
        one_run(c[0], progs[c[0]], a.n, c[1], c[2], a.tls, a.timeout)
    for r in range(a.rounds):
        order = list(combos)
        random.shuffle(order)
        for c in order:
            times[c].append(one_run(c[0], progs[c[0]], a.n, c[1], c[2], a.tls, a.timeout))
        print(f"round {r + 1}/{a.rounds} done", file=sys.stderr)
    print(f"# oshrun -n {a.n} hello: whole-job wall time, s; {a.rounds} interleaved rounds; "
          f"load average {load:.2f} at start, {os.getloadavg()[0]:.2f} at end, "
          f"{os.cpu_count()} CPUs")
    print()
    print("| build | path | variant | median | min-max | / reference |")
    print("|---|---|---|---|---|---|")
    med = {c: statistics.median(t) for c, t in times.items()}
    for c in combos:
        ref = med[(builds[0], c[1], c[2])]
        print(f"| {names[c[0]]} | {c[1]} | {c[2]} | {fmt(med[c])} | "
              f"{fmt(min(times[c]))}-{fmt(max(times[c]))} | {med[c] / ref:.2f} |")
    if "oshrun" in variants and len(builds) > 1:
        print()
        ok = True
        for p in paths:
            ref = med[(builds[0], p, "oshrun")]
            for b in builds[1:]:
                m = med[(b, p, "oshrun")]
                good = m <= 2 * ref + 0.1
                ok &= good
                print(f"goal, {p}: {names[b]} {fmt(m)} s <= 2 x {fmt(ref)} + 0.1 = "
                      f"{fmt(2 * ref + 0.1)} s: {'yes' if good else 'NO'}")
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
