#!/usr/bin/env python3
"""bench.suite.smoke: runs the suite driver in --smoke mode into a fresh
directory and checks what it must leave there: report.md, at least one
plot referenced from it, per-benchmark CSV, and no failed job."""
import argparse
import csv
import shutil
import subprocess
import sys
import time
from pathlib import Path

BUDGET_S = 60  # the smoke suite is meant to stay well under this


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--shoal-build", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(f"FAIL: matplotlib is not installed for {sys.executable}; the suite's plots "
              "need it.  Run scripts/install-deps.sh (or: python3 -m pip install matplotlib).")
        return 1
    out = Path(a.out)
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, a.driver, "--smoke", "--require-plots",
           "--shoal-build", a.shoal_build, "--out", str(out)]
    print("$ " + " ".join(cmd), flush=True)
    t0 = time.monotonic()
    rc = subprocess.run(cmd).returncode
    took = time.monotonic() - t0
    print(f"suite smoke run: {took:.1f} s, exit {rc}")
    errors = []
    if rc != 0:
        errors.append(f"driver exited {rc}")
    report = out / "report.md"
    if not report.exists():
        errors.append("no report.md")
    else:
        text = report.read_text()
        plots = sorted(p.name for p in (out / "plots").glob("*.png"))
        if not plots:
            errors.append("no plots/*.png")
        elif not any(f"plots/{p}" in text for p in plots):
            errors.append("report.md references none of the plots")
        if "## Headline" not in text:
            errors.append("report.md has no headline table")
    jobs = out / "jobs.csv"
    if not jobs.exists():
        errors.append("no jobs.csv")
    else:
        with open(jobs, newline="") as f:
            rows = list(csv.DictReader(f))
        if not rows:
            errors.append("jobs.csv lists no job")
        for r in rows:
            if r["status"] != "ok":
                errors.append(f"job {r['job']} {r['benchmark']} {r['config']} T={r['threads']}"
                              f" {r['impl']}: {r['status']}: {r['why']} ({out / r['command_log']})")
    if not list((out / "csv").glob("*.csv")):
        errors.append("no csv/*.csv")
    if took > BUDGET_S:
        # A loaded machine can get here; worth a look, not a failure.
        print(f"WARNING: took {took:.0f} s, over the {BUDGET_S} s a smoke run should need")
    for e in errors:
        print(f"FAIL: {e}")
    if not errors:
        print(f"ok: report, {len(plots)} plots, {len(rows)} jobs, all ok")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
