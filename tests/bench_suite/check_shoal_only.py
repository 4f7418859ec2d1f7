#!/usr/bin/env python3
"""bench.suite.shoal_only: the benchmarks built on Shoal's extensions
(shmemx.h) are planned for Shoal alone.  A dry run of the driver with
another implementation (a stand-in: no benchmark is built or run) must
exit 0, plan each such benchmark for Shoal and none of them for the other
implementation, and still plan the portable ones for both."""
import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

GUARD = re.compile(r"^\s*#\s*if\s+__has_include\s*\(\s*<shmemx\.h>\s*\)")
INCLUDE = re.compile(r"^\s*#\s*include\s*<shmemx\.h>")


def extension_benches(bench_dir):
    """bench/*.c whose <shmemx.h> include has no __has_include guard."""
    out = []
    for src in sorted(Path(bench_dir).glob("*.c")):
        lines = src.read_text(errors="replace").splitlines()
        if any(INCLUDE.match(ln) and not (i and GUARD.match(lines[i - 1]))
               for i, ln in enumerate(lines)):
            out.append(src.stem)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--shoal-build", required=True)
    a = ap.parse_args()
    bench_dir = Path(a.driver).resolve().parent
    ext = extension_benches(bench_dir)
    if "nbe_rate" not in ext or "am_rate" not in ext:
        print(f"FAIL: the scan of {bench_dir} for shmemx.h users found only {ext}")
        return 1
    true = shutil.which("true")
    cmd = [sys.executable, a.driver, "--dry-run", "--smoke", "--shoal-build", a.shoal_build,
           "--impl", f"peer={true},{true}"]
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=60)
    print(p.stdout)
    errors = []
    if p.returncode != 0:
        errors.append(f"driver exited {p.returncode}")
    # Job lines: "   N r1 <bench> [config ...] (P PEs) <impl>: <command>"
    planned = {}
    for ln in p.stdout.splitlines():
        m = re.match(r"\s*\d+ r\d+ (\S+) .*\) (\S+): ", ln)
        if m:
            planned.setdefault(m.group(2), set()).add(m.group(1))
    for b in ext:
        if b not in planned.get("shoal", set()):
            errors.append(f"{b} (Shoal's extensions) is not planned for Shoal")
        if b in planned.get("peer", set()):
            errors.append(f"{b} uses Shoal's extensions but is planned for the other "
                          "implementation (mark it shoal_only in bench/run_suite.py's SUITE)")
    if "p2p" not in planned.get("peer", set()):
        errors.append("the portable p2p benchmark is not planned for the other implementation")
    for e in errors:
        print("FAIL:", e)
    if not errors:
        print(f"ok: {', '.join(ext)} planned for Shoal only")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
