#!/usr/bin/env python3
"""bench.suite.ofi_preset: `--impl ofi` is Shoal itself over libfabric's
tcp;ofi_rxm, each PE a pretend node.  A dry run (nothing built or run) of
`--network --impl ofi` must exit 0 and plan every benchmark for both
columns, the Shoal-only ones included, with this build's oshrun: the ofi
jobs with SHOAL_TRANSPORTS=shm,ofi FI_PROVIDER=tcp SHOAL_SPLIT_NODES, the
shoal jobs over UCX tcp and without OFI."""
import argparse
import re
import subprocess
import sys
from pathlib import Path

OFI_ARGS = ["-x SHOAL_TRANSPORTS=shm,ofi", "-x FI_PROVIDER=tcp", "-x SHOAL_SPLIT_NODES="]
BENCHES = ("p2p", "nbe_rate")   # portable, Shoal-only


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--shoal-build", required=True)
    a = ap.parse_args()
    cmd = [sys.executable, a.driver, "--dry-run", "--smoke", "--network", "--shoal-build",
           a.shoal_build, "--impl", "ofi", "--bench", ",".join(BENCHES)]
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=60)
    print(p.stdout)
    errors = [] if p.returncode == 0 else [f"driver exited {p.returncode}"]
    oshrun = str(Path(a.shoal_build).resolve() / "bin" / "oshrun")
    planned = {}
    # Job lines: "   N r1 <bench> [config ...] (P PEs) <impl>: <command>"
    for ln in p.stdout.splitlines():
        m = re.match(r"\s*\d+ r\d+ (\S+) .*\) (\S+): (.*)", ln)
        if not m:
            continue
        bench, impl, command = m.groups()
        planned.setdefault(impl, set()).add(bench)
        if not command.startswith(oshrun + " "):
            errors.append(f"{impl} {bench}: not launched with {oshrun}: {command}")
        has_ofi = [x for x in OFI_ARGS if x in command]
        if impl == "ofi" and len(has_ofi) != len(OFI_ARGS):
            errors.append(f"ofi {bench}: lacks {set(OFI_ARGS) - set(has_ofi)}: {command}")
        if impl == "shoal" and ("FI_PROVIDER" in command or "SHOAL_TRANSPORTS" in command
                                or "UCX_TLS=tcp" not in command):
            errors.append(f"shoal {bench} with --network: not over UCX tcp alone: {command}")
    for impl in ("shoal", "ofi"):
        for b in BENCHES:
            if b not in planned.get(impl, set()):
                errors.append(f"{b} is not planned for {impl}")
    for e in errors:
        print("FAIL:", e)
    if not errors:
        print("ok: --impl ofi plans Shoal over tcp;ofi_rxm beside Shoal over UCX tcp")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
