#!/usr/bin/env python3
"""bench.suite.load: the suite driver's --load N.

1. A tiny run (p2p --smoke) with --load 2: the driver exits 0, the report
   records the load, load.pids lists 2 processes, and none of them is left
   once the driver has returned.
2. The driver is killed with SIGKILL while its load runs (no chance to stop
   it): every load process must be gone within a few seconds by itself.

Load processes are recognised by their pid (load.pids) and the marker in
their command line, so a reused pid is never taken for one."""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

MARKER = "run_suite-load"   # bench/run_suite.py LOAD_MARKER


def is_load(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            args = f.read().split(b"\0")
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return MARKER.encode() in args and state != "Z"


def read_pids(out):
    try:
        return [int(x) for x in (out / "load.pids").read_text().split()]
    except (OSError, ValueError):
        return []


def wait_gone(pids, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        alive = [p for p in pids if is_load(p)]
        if not alive:
            return []
        time.sleep(0.1)
    return [p for p in pids if is_load(p)]


def cleanup(pids, out):
    """Whatever the test leaves (load processes after a failure, the job the
    killed driver had in flight) is ended here."""
    for p in pids:
        if is_load(p):
            os.kill(p, signal.SIGKILL)
    tag = str(out).encode()
    end = time.monotonic() + 30
    while True:
        left = []
        for d in os.listdir("/proc"):
            if not d.isdigit() or int(d) == os.getpid():
                continue
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    if tag in f.read():
                        left.append(int(d))
            except OSError:
                pass
        if not left:
            return
        if time.monotonic() > end:
            for p in left:
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass
            return
        time.sleep(0.2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--shoal-build", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    out = Path(a.out).resolve()
    shutil.rmtree(out, ignore_errors=True)
    base = [sys.executable, a.driver, "--smoke", "--bench", "p2p", "--load", "2",
            "--shoal-build", a.shoal_build]
    errors = []

    # 1. A run that ends normally.
    run = out / "run"
    cmd = base + ["--out", str(run)]
    print("$ " + " ".join(cmd), flush=True)
    t0 = time.monotonic()
    rc = subprocess.run(cmd).returncode
    print(f"run with --load 2: {time.monotonic() - t0:.1f} s, exit {rc}")
    pids = read_pids(run)
    if rc != 0:
        errors.append(f"driver exited {rc}")
    if len(pids) != 2:
        errors.append(f"load.pids lists {len(pids)} processes, expected 2")
    left = [p for p in pids if is_load(p)]
    if left:
        errors.append(f"load processes still running after the driver returned: {left}")
    report = run / "report.md"
    if not report.exists() or "Added load (`--load 2`)" not in report.read_text():
        errors.append("report.md does not record the load (`--load 2`)")
    cleanup(pids, run)

    # 2. The driver killed with SIGKILL while its load runs.
    kill = out / "killed"
    cmd = base + ["--rounds", "100", "--out", str(kill)]
    print("$ " + " ".join(cmd) + "   # killed with SIGKILL once its load runs", flush=True)
    p = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
    pids = []
    try:
        end = time.monotonic() + 120
        while time.monotonic() < end and p.poll() is None:
            pids = read_pids(kill)
            if len(pids) == 2 and all(is_load(q) for q in pids):
                break
            time.sleep(0.05)
        if len(pids) != 2:
            errors.append(f"killed run: load never started (driver exit {p.poll()})")
        else:
            p.kill()
            p.wait()
            t0 = time.monotonic()
            # Gone within a second on an idle machine; 60 s catches one
            # that never goes (a loaded machine may be many times slower).
            left = wait_gone(pids, 60)
            if left:
                errors.append(f"load processes {left} survived the driver's SIGKILL by 60 s")
            else:
                print(f"killed run: load processes gone {time.monotonic() - t0:.2f} s after "
                      "the driver's SIGKILL")
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        cleanup(pids, kill)

    for e in errors:
        print(f"FAIL: {e}")
    if not errors:
        print("ok: load recorded, stopped by the driver, and gone when the driver is killed")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
