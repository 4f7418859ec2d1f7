#!/usr/bin/env python3
"""Runs a job whose peers are alive but silent (tests/exit/live_peers.c)
beside a CPU load, and checks that it ends with status 0 and every PE's
"values right" line: a live peer is never taken for dead, however long it
does not answer and however loaded the machine.

  run_live.py --launch "oshrun -n @N@" --np N --exe live_peers [--load K]
              [--limit SECONDS] -- MODE ARG

--load K: K busy processes beside the job (default: two per CPU), started
before it and ended after it; they die with this script (pdeathsig).
--limit: the job's wall-time limit, a hang catcher only (default 240 s).
"""
import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from marked_procs import clean_up_on_signals, pdeathsig  # noqa: E402

BUSY = "while :; do :; done"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--launch", required=True, help="launcher command; @N@ = PE count")
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--exe", required=True)
    ap.add_argument("--load", type=int, default=2 * (os.cpu_count() or 1))
    ap.add_argument("--limit", type=float, default=240.0)
    ap.add_argument("args", nargs="+")
    a = ap.parse_args()
    clean_up_on_signals()
    argv = [w.replace("@N@", str(a.np)) for w in a.launch.split()] + [a.exe] + a.args
    load = [subprocess.Popen(["sh", "-c", BUSY], preexec_fn=pdeathsig) for _ in range(a.load)]
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=a.limit,
                           preexec_fn=pdeathsig)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc = None
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
    finally:
        for q in load:
            q.kill()
            q.wait()
    dt = time.monotonic() - t0
    right = [ln for ln in out.splitlines() if ln.startswith("live_peers:") and "values right" in ln]
    print("command: %s (beside %d busy processes)" % (" ".join(argv), a.load))
    print(out, end="")
    problems = []
    if rc is None:
        problems.append("hung: killed after %.0f s" % a.limit)
    elif rc != 0:
        problems.append("status %d, expected 0" % rc)
    if len(right) != a.np:
        problems.append("%d of %d PEs said 'values right'" % (len(right), a.np))
    if problems:
        print("FAIL after %.1f s: %s\nstderr:\n%s" % (dt, "; ".join(problems), err))
        sys.exit(1)
    print("ok after %.1f s" % dt)


if __name__ == "__main__":
    main()
