#!/usr/bin/env python3
"""Issue 41 item 8: Shoal over libfabric (OFI) side by side with Sandia
OpenSHMEM (SOS, built --with-ofi) and with Shoal over UCX, on the same wire:
TCP through the loopback, each PE a node of its own.

    bench/ofi_compare.py --sos /work/sos/install --hydra /path/to/mpiexec.hydra
    bench/ofi_compare.py --sos PREFIX --hydra H --pes 2 --rounds 3 --out /tmp/cmp
    bench/ofi_compare.py --columns ofi,ofim --pes 2 --no-mt   # Shoal alone

Columns (each job's environment; nothing else differs):
  ofi  Shoal, SHOAL_TRANSPORTS=shm,ofi FI_PROVIDER=tcp SHOAL_SPLIT_NODES=N:
       every other PE through libfabric's tcp;ofi_rxm, this PE by load/store
  sos  SOS under mpiexec.hydra (setarch -R), FI_PROVIDER=tcp and
       SHMEM_CMA_PUT_MAX=0 SHMEM_CMA_GET_MAX=0 (its on-node CMA shortcut off:
       every put and get of any size through tcp;ofi_rxm)
  ucx  Shoal, SHOAL_TRANSPORTS=shm,ucx UCX_TLS=tcp SHOAL_SPLIT_NODES=N
  ofim (only with --columns) ofi with SHOAL_OFI_PROGRESS=manual
The programs are bench/latency8.c, p2p.c and coll_bench.c (standard
OpenSHMEM only), compiled once with each library's oshcc.  Rounds are
interleaved: round r runs every (program, PE count) with ofi, sos, ucx in
turn before round r+1.  A round's figure is the job's own median over its
inner rounds; the table gives the median over rounds and their min..max,
and the ratio of medians as a time ratio (ofi time / other time; for
bandwidth other GB/s / ofi GB/s), so <= 1.0 means Shoal-on-OFI is as fast.

The thread-rate row (bench/mt_rate.c, Shoal only, 8-byte putmem_nbi, add,
fetch_add): --config ctx --threads 2 at 2 PEs, each its own node
(SHOAL_SPLIT_NODES=2), against --config pes --threads 2 at 4 PEs, two per
node (SHOAL_SPLIT_NODES=2), both SHOAL_TRANSPORTS=shm,ofi FI_PROVIDER=tcp,
interleaved in the same rounds; ratio = ctx rate / pes rate.

Writes OUT/rows.csv (every job's rows, with round and column), OUT/table.md
and the logs of every job under OUT/logs.  Exit 1 if a job failed.
"""

import argparse
import csv
import datetime
import os
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
COLUMNS = ("ofi", "sos", "ucx")
OPTIONAL_COLUMNS = ("ofim",)  # --columns: Shoal over OFI with SHOAL_OFI_PROGRESS=manual
TITLES = {"ofi": "Shoal-on-OFI", "sos": "SOS", "ucx": "Shoal-on-UCX",
          "ofim": "Shoal-on-OFI, manual progress"}

# (program, arguments): small inner counts, the rounds come from outside.
PROGRAMS = {
    "latency8": ["-i", "2000", "-r", "3"],
    "p2p": ["--min", "64K", "--max", "1M", "-i", "2000", "-r", "3"],
    "coll_bench": ["-r", "3"],
}
MT_RATE_ARGS = ["-s", "8", "--ops", "put,add,fadd", "-i", "10000", "-r", "3"]

# Table rows: (label, program, metric, size, kind) where kind is "time" (us,
# lower is better) or "bw" (GB/s, higher is better).  latency8's plain rows
# are the mean of a round's operations (OSU's figure, tails included), its
# p50 rows the median single operation (robust to a shared machine's
# preemptions).
ROWS = [
    ("put latency 8 B", "latency8", "put_latency", 8, "time"),
    ("put latency 8 B, p50", "latency8", "put_latency_p50", 8, "time"),
    ("get latency 8 B", "latency8", "get_latency", 8, "time"),
    ("get latency 8 B, p50", "latency8", "get_latency_p50", 8, "time"),
    ("fetch-add latency", "latency8", "fadd_latency", 8, "time"),
    ("fetch-add latency, p50", "latency8", "fadd_latency_p50", 8, "time"),
    ("put bandwidth 64 KiB", "p2p", "put_bw", 65536, "bw"),
    ("put bandwidth 1 MiB", "p2p", "put_bw", 1 << 20, "bw"),
    ("get bandwidth 64 KiB", "p2p", "get_bw", 65536, "bw"),
    ("get bandwidth 1 MiB", "p2p", "get_bw", 1 << 20, "bw"),
    ("barrier_all", "coll_bench", "barrier_all", 0, "time"),
    ("broadcastmem 8 B", "coll_bench", "broadcastmem", 8, "time"),
    ("broadcastmem 64 KiB", "coll_bench", "broadcastmem", 65536, "time"),
    ("double_sum_reduce 8 B", "coll_bench", "double_sum_reduce", 8, "time"),
    ("double_sum_reduce 64 KiB", "coll_bench", "double_sum_reduce", 65536, "time"),
]
MT_METRICS = ("putmem_rate", "add_rate", "fadd_rate")


def column_env(col, npes, split=None):
    env = dict(os.environ)
    for k in ("SHOAL_TRANSPORTS", "SHOAL_SPLIT_NODES", "FI_PROVIDER", "UCX_TLS"):
        env.pop(k, None)
    split = str(split or npes)
    if col in ("ofi", "ofim"):
        env.update(SHOAL_TRANSPORTS="shm,ofi", FI_PROVIDER="tcp", SHOAL_SPLIT_NODES=split)
        if col == "ofim":
            env.update(SHOAL_OFI_PROGRESS="manual")
    elif col == "ucx":
        env.update(SHOAL_TRANSPORTS="shm,ucx", UCX_TLS="tcp", SHOAL_SPLIT_NODES=split)
    else:
        env.update(FI_PROVIDER="tcp", SHMEM_CMA_PUT_MAX="0", SHMEM_CMA_GET_MAX="0")
    return env


def launch(args, col, npes, exe, prog_args):
    if col == "sos":
        return ["setarch", "-R", args.hydra, "-n", str(npes), str(exe), *prog_args]
    return [str(Path(args.shoal_build) / "bin" / "oshrun"), "-n", str(npes), str(exe),
            *prog_args]


def build(args, out, with_sos):
    exes = {}
    compilers = {"shoal": Path(args.shoal_build) / "bin" / "oshcc"}
    if with_sos:
        compilers["sos"] = Path(args.sos) / "bin" / "oshcc"
    for lib, cc in compilers.items():
        d = out / "build" / lib
        d.mkdir(parents=True, exist_ok=True)
        progs = list(PROGRAMS) + (["mt_rate"] if lib == "shoal" else [])
        for p in progs:
            exe = d / p
            cmd = [str(cc), "-std=c11", "-O2", "-pthread", str(BENCH / f"{p}.c"), "-o", str(exe),
                   "-lm"]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"ofi_compare: {shlex.join(cmd)} failed:\n{r.stdout}{r.stderr}")
            exes[(lib, p)] = exe
    return exes


def run_job(args, out, tag, cmd, env, rnd, col, rows_out):
    csv_path = out / "jobs" / f"{tag}.csv"
    csv_path.unlink(missing_ok=True)
    cmd = cmd + ["--csv", str(csv_path)]
    log = out / "logs" / f"{tag}.log"
    with open(log, "w") as f:
        f.write("$ " + " ".join(f"{k}={env[k]}" for k in sorted(env)
                                if k.startswith(("SHOAL_", "FI_", "UCX_", "SHMEM_"))))
        f.write(" " + shlex.join(cmd) + "\n")
        f.flush()
        try:
            rc = subprocess.run(cmd, env=env, stdout=f, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, timeout=args.timeout,
                                start_new_session=True).returncode
        except subprocess.TimeoutExpired:
            rc = 124
    rows = []
    if csv_path.exists():
        with open(csv_path, newline="") as f:
            rows = list(csv.DictReader(f))
    for r in rows:
        r.update(round=rnd, column=col)
        rows_out.append(r)
    return rc, len(rows)


def summary(vals):
    if not vals:
        return None
    return statistics.median(vals), min(vals), max(vals)


def fmt(s, kind):
    if s is None:
        return "n/a"
    unit = " GB/s" if kind == "bw" else " us"
    return f"{s[0]:.3g}{unit} ({s[1]:.3g}-{s[2]:.3g})"


def ratio(ofi, other, kind):
    if ofi is None or other is None:
        return None
    return other[0] / ofi[0] if kind == "bw" else ofi[0] / other[0]


def pick(rows, col, npes, prog, metric, size):
    return [float(r["median"]) for r in rows
            if r["column"] == col and r["benchmark"] == prog and r["metric"] == metric
            and int(r["pes"]) == npes and int(r["size_bytes"]) == size
            and r.get("config", "-") in ("-", "")]


def table(rows, mt_rows, pes, columns):
    others = [c for c in columns if c != "ofi"]
    lines = ["| row | PEs | " + " | ".join(TITLES[c] for c in columns) + " | "
             + " | ".join(f"OFI/{c.upper()}" for c in others) + " |",
             "|---|---|" + "---|" * (len(columns) + len(others))]
    for npes in pes:
        for label, prog, metric, size, kind in ROWS:
            s = {c: summary(pick(rows, c, npes, prog, metric, size)) for c in columns}
            rs = [ratio(s.get("ofi"), s[c], kind) for c in others]
            mark = " (*)" if npes > os.cpu_count() else ""
            lines.append(f"| {label} | {npes}{mark} | "
                         + " | ".join(fmt(s[c], kind) for c in columns) + " | "
                         + " | ".join("n/a" if r is None else f"{r:.2f}" for r in rs) + " |")
    lines += ["", "| thread rate (mt_rate, 8 B) | ctx T=2, 2 PEs | pes T=2, 4 PEs (2 per node) "
              "| ctx/pes |", "|---|---|---|---|"]
    for m in MT_METRICS:
        ctx = summary([float(r["median"]) for r in mt_rows
                       if r["config"] == "ctx" and r["metric"] == m])
        pes_ = summary([float(r["median"]) for r in mt_rows
                        if r["config"] == "pes" and r["metric"] == m])
        q = f"{ctx[0] / pes_[0]:.2f}" if ctx and pes_ else "n/a"

        def f(s):
            return "n/a" if s is None else f"{s[0]:.3g} Mmsg/s ({s[1]:.3g}-{s[2]:.3g})"
        lines.append(f"| {m} | {f(ctx)} | {f(pes_)} | {q} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sos", default="", help="SOS install prefix (bin/oshcc)")
    ap.add_argument("--hydra", default="", help="mpiexec.hydra to launch SOS (PMI-1)")
    ap.add_argument("--shoal-build", default=str(ROOT / "build"))
    ap.add_argument("--pes", default="2,4")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--timeout", type=int, default=300, help="per job (s)")
    ap.add_argument("--no-mt", action="store_true", help="leave out the thread-rate row")
    ap.add_argument("--programs", default=",".join(PROGRAMS),
                    help="programs of the table (default %(default)s)")
    ap.add_argument("--columns", default=",".join(COLUMNS),
                    help="columns in run order (default %(default)s; also ofim: Shoal over OFI "
                         "with SHOAL_OFI_PROGRESS=manual)")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    pes = [int(x) for x in args.pes.split(",")]
    columns = [c for c in args.columns.split(",") if c]
    programs = [p for p in args.programs.split(",") if p]
    if not programs or any(p not in PROGRAMS for p in programs):
        sys.exit(f"ofi_compare: --programs: one or more of {', '.join(PROGRAMS)}")
    if not columns or any(c not in COLUMNS + OPTIONAL_COLUMNS for c in columns):
        sys.exit(f"ofi_compare: --columns: one or more of {', '.join(COLUMNS + OPTIONAL_COLUMNS)}")
    if "sos" in columns and not (args.sos and args.hydra):
        sys.exit("ofi_compare: the sos column needs --sos PREFIX and --hydra MPIEXEC_HYDRA")
    out = Path(args.out or Path(args.shoal_build) / "ofi_compare" /
               datetime.datetime.now().strftime("%Y%m%d-%H%M%S")).resolve()
    for d in ("logs", "jobs"):
        (out / d).mkdir(parents=True, exist_ok=True)
    exes = build(args, out, "sos" in columns)
    rows, mt_rows, failed = [], [], []
    for rnd in range(1, args.rounds + 1):
        for npes in pes:
            for prog, pargs in [(p, PROGRAMS[p]) for p in programs]:
                for col in columns:
                    lib = "sos" if col == "sos" else "shoal"
                    tag = f"r{rnd}.{prog}.p{npes}.{col}"
                    cmd = launch(args, col, npes, exes[(lib, prog)], pargs)
                    rc, n = run_job(args, out, tag, cmd, column_env(col, npes), rnd, col, rows)
                    print(f"ofi_compare: {tag}: exit {rc}, {n} rows", file=sys.stderr, flush=True)
                    if rc != 0 or n == 0:
                        failed.append(tag)
        if args.no_mt:
            continue
        for config, npes in (("ctx", 2), ("pes", 4)):
            tag = f"r{rnd}.mt_rate.{config}"
            cmd = launch(args, "ofi", npes, exes[("shoal", "mt_rate")],
                         MT_RATE_ARGS + ["--config", config, "--threads", "2"])
            rc, n = run_job(args, out, tag, cmd, column_env("ofi", npes, split=2), rnd, "ofi",
                            mt_rows)
            print(f"ofi_compare: {tag}: exit {rc}, {n} rows", file=sys.stderr, flush=True)
            if rc != 0 or n == 0:
                failed.append(tag)
    with open(out / "rows.csv", "w", newline="") as f:
        keys = ["round", "column"] + [k for k in (rows + mt_rows or [{}])[0] if k not in
                                      ("round", "column")]
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows + mt_rows)
    text = table(rows, mt_rows, pes, columns)
    (out / "table.md").write_text(text)
    print(text)
    if failed:
        print(f"ofi_compare: FAILED jobs (see {out}/logs): {', '.join(failed)}", file=sys.stderr)
    print(f"ofi_compare: {out}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
