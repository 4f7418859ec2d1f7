#!/usr/bin/env python3
"""Shoal's benchmark suite driver: builds every bench/*.c with each
OpenSHMEM implementation's oshcc, runs the suite interleaved across
implementations (A, B, A, B, ... so that ratios come from one run), and
writes per-benchmark CSV, a Markdown report with the project's targets
(met / NOT met) and PNG plots.

    bench/run_suite.py --smoke                       # Shoal only, seconds
    bench/run_suite.py --impl openmpi --rounds 3     # Shoal vs Open MPI
    bench/run_suite.py --impl openmpi --network --pes 2,4   # over UCX tcp
    bench/run_suite.py --impl openmpi --pes 4,8 --threads 1 # PEs > cores
    bench/run_suite.py --network --impl ofi --pes 2,4       # Shoal: UCX vs OFI

--impl NAME=OSHCC,OSHRUN[,extra oshrun args...] adds an implementation;
--impl openmpi is short for Debian's Open MPI (packages openmpi-bin and
libopenmpi-dev) run the way its users must run it: /usr/bin/oshcc, and
/usr/bin/oshrun --oversubscribe --mca osc ^rdma (Open MPI 4.1.4's OSHMEM
segfaults in shmem_finalize without it), plus --allow-run-as-root as root
and -x UCX_TLS=^sysv when System V shared memory is short (see
openmpi_preset).  --impl ofi is Shoal itself (--shoal-build) over
libfabric's tcp;ofi_rxm, each PE a pretend node (see ofi_preset).  The
report says what was passed and why.
Shoal is always included (impl "shoal", from --shoal-build).

--load N runs N busy-looping processes beside the jobs (started after the
builds, stopped after the last job; each also ends by itself when the
driver is gone or at a deadline), to measure on a loaded machine; the
report records it.

Job outcomes: "ok"; "crashed at finalize" (non-zero exit after every
result row was written and no data error was printed: the figures are kept
and the report lists the job); "FAILED" (build failure, timeout, data error,
missing or partial results: no figures kept, listed first in the report,
and the driver exits 1).  A Shoal job that crashes at finalize also makes
the driver exit 1.
"""

import argparse
import csv
import datetime
import math
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH_DIR = ROOT / "bench"
CONFIGS = ("default", "ctx", "pes")
REQ = "req"  # Shoal's _nbe requests (shmemx.h): a configuration only Shoal runs
CSV_FIELDS = ["benchmark", "config", "pes", "threads", "size_bytes", "metric", "unit",
              "median", "min", "max", "iterations"]

# Targets of the project (see README "Benchmark suite").
TARGET_CTX = 0.95      # ctx / pes message rate, per thread count and size
TARGET_DEFAULT = 0.80  # default / pes message rate
TARGET_FLOOR = 1.30    # 8-byte latency / machine floor measured in the same run
TARGET_MT_BCAST = 0.70  # mt_bcast: 2-thread / 1-thread broadcast time at >= 1 MiB
MT_BCAST_FROM = 1 << 20


@dataclass
class Bench:
    """How the driver runs one bench/*.c.  Options a benchmark does not
    accept are never passed to it."""
    csv: bool = False             # accepts --csv FILE (else: pass/fail only)
    configs: tuple = ()           # accepted --config values (empty: no --config)
    threads: bool = False         # accepts --threads T
    args: list = field(default_factory=list)        # full run
    smoke_args: list = field(default_factory=lambda: ["--smoke"])
    fixed_pes: int = 0            # PEs it must run with (0: --pes)
    headline: list = field(default_factory=list)    # [(metric, size)] for the top table
    floors: dict = field(default_factory=dict)      # metric -> its floor metric (same job)
    floor_targets: tuple = ()     # latencies whose 8-byte figure has the floor target
    about: str = ""
    shoal_only: bool = False      # uses shmemx.h: built and run with Shoal only
    shoal_configs: tuple = ()     # configurations only Shoal runs (they use shmemx.h)
    shoal_run_args: list = field(default_factory=list)  # oshrun args of Shoal's jobs only


# The suite.  Full runs use each benchmark's own defaults (its sizes,
# iterations and inner rounds); the driver's --rounds repeat whole jobs.
SUITE = {
    "p2p": Bench(
        csv=True,
        headline=[("put_latency", 8), ("get_latency", 8), ("put_rate", 8), ("put_bw", 1 << 20)],
        floors={"put_latency": "floor_latency", "get_latency": "floor_latency",
                "put_bw": "floor_bw", "get_bw": "floor_bw"},
        floor_targets=("put_latency",),
        about="Point-to-point latency, bandwidth and rate between PEs 0 and 1, next to the "
              "machine's floor (cache-line ping-pong, memcpy) measured in the same run."),
    "mt_rate": Bench(
        csv=True, configs=CONFIGS + (REQ,), threads=True, shoal_configs=(REQ,),
        headline=[("putmem_rate", 8), ("add_rate", 8), ("fadd_rate", 8)],
        about="Multi-threaded message rate: T senders (threads or PEs) each driving their "
              "own segment of a passive PE."),
    "mt_latency": Bench(
        csv=True, configs=CONFIGS, threads=True,
        headline=[("putmem_latency", 8), ("fadd_latency", 8)],
        about="Multi-threaded ping-pong latency: thread t of PE 0 with thread t of PE 1, "
              "all pairs at once (putmem + fence + flag, fetch_add, compare_swap)."),
    "gups": Bench(
        csv=True, configs=CONFIGS, threads=True,
        headline=[("gups_atomic", None)],
        about="RandomAccess (GUPS): random updates to a table spread over all PEs (get+put, "
              "atomic xor, atomic add); size = table bytes per multi-threaded PE."),
    "overlap": Bench(
        csv=True, configs=("default", "ctx", REQ),   # single-threaded: its pes is default
        shoal_configs=(REQ,),
        headline=[("overlap", 6 << 20), ("t_post", 6 << 20)],
        about="Overlap of shmem_putmem_nbi with computation, PE 0 -> PE 1 (1 = fully in the "
              "background; a library that copies with loads and stores completes the put "
              "inside putmem_nbi, so ~0 by construction: compare t_post with t_comm)."),
    # Shoal's explicit non-blocking requests (shmemx.h, issue 14): Shoal only.
    "nbe_rate": Bench(
        csv=True, threads=True, fixed_pes=2, shoal_only=True,
        headline=[("nbe_speedup", 8), ("fadd_rate", 8)],
        about="8-byte fetch-add rate of T threads, blocking against shmemx _nbe with one "
              "request per window of 64 (same process; nbe_speedup = nbe / blocking)."),
    "halo3d": Bench(
        csv=True, configs=CONFIGS, threads=True,
        headline=[("halo_iter", None)],
        about="3-D halo exchange on a periodic PE grid: time per iteration (pack, "
              "putmem_nbi to six neighbours, signal, unpack); size = block bytes per "
              "multi-threaded PE."),
    "isx": Bench(
        csv=True, configs=CONFIGS, threads=True,
        headline=[("isx_total", None)],
        about="ISx-style bucket sort: all-to-all exchange of uneven buckets (fetch-add for "
              "the offset, putmem_nbi) and a local sort, per iteration; size = key bytes per "
              "multi-threaded PE."),
    "mandelbrot": Bench(
        csv=True, configs=CONFIGS, threads=True,
        headline=[("mandel_rate", None)],
        about="Mandelbrot set with work stealing (remote fetch-add on the owner's counter), "
              "rows put to PE 0's image; pixels per second."),
    "pingpong": Bench(
        fixed_pes=2, args=["-r", "11"],
        about="8-byte put latency and put bandwidth next to the floor (no CSV: pass/fail, "
              "output kept)."),
    "coll_bench": Bench(
        csv=True,
        headline=[("barrier_all", 0), ("team_sync", 0), ("broadcastmem", 8),
                  ("double_sum_reduce", 8), ("fcollectmem", 8)],
        about="Collectives latency on SHMEM_TEAM_WORLD (barrier, team sync, broadcast, "
              "sum reduction, alltoall, fcollect) next to the 8-byte put latency measured "
              "in the same run."),
    "busy_threads": Bench(
        csv=True, fixed_pes=2,
        headline=[("barrier_time", 8), ("pingpong_latency", 8)],
        about="Barrier and 8-byte put ping-pong of each PE's main thread while one compute "
              "thread per PE keeps the CPUs busy (busy) and without it (idle), interleaved: "
              "what a library's waiting costs where the program's threads outnumber the "
              "cores (a waiter that yields or sleeps hands its CPU to a busy thread)."),
    "hybrid_pingpong": Bench(
        csv=True, fixed_pes=2,
        headline=[("round_trip", 8), ("compute_rate", 8)],
        about="Communication threads beside compute threads: 4 threads per PE ping-pong with "
              "the same thread of the other PE (shmem_long_p + shmem_long_wait_until) while 2 "
              "compute threads per PE never call the library (busy), interleaved with the same "
              "while they are parked (idle); us per round trip of all pairs at once, and the "
              "compute threads' arithmetic rate."),
    "thread_handoff": Bench(
        csv=True, fixed_pes=2,
        shoal_run_args=["-x", "SHOAL_SPLIT_NODES=4096"],
        headline=[("handoff_time", 64)],
        about="Two threads of each PE hand items to each other through the PE's own memory "
              "(producer: putmem to itself, quiet, sequence word, wait for the acknowledgement; "
              "consumer: wait for the word, check the item, acknowledge), us per item.  Shoal "
              "runs each PE as a pretend node of its own (SHOAL_SPLIT_NODES), the issue's "
              "setting: its PEs share the machine's cores but not memory."),
    "mt_bcast": Bench(
        csv=True, shoal_only=True,
        headline=[("broadcastmem_mt", 1 << 20), ("broadcastmem", 1 << 20)],
        about="Shoal's multi-threaded broadcast (shmemx_team_broadcastmem_mt) with 1, 2 and 4 "
              "threads per PE next to shmem_broadcastmem in the same job, 8 B .. 8 MiB; "
              "target: 2 threads <= 0.7x 1 thread from 1 MiB (needs a free core per thread: "
              "PEs x 2 threads must fit the machine)."),
    # Active messages (shmemx_am_*, Shoal only): the baselines are measured in
    # the same job (a mutex around the send path; put-with-signal ping-pong).
    "am_rate": Bench(
        csv=True, threads=True, fixed_pes=2, shoal_only=True,
        headline=[("am_rate", 8), ("am_rate_serialized", 8)],
        about="Active-message injection rate of T threads of PE 0 (one private context "
              "each) to PE 1, next to the same traffic with every send inside one mutex."),
    "am_fairness": Bench(
        csv=True, threads=True, fixed_pes=2, shoal_only=True,
        headline=[("am_share_min", 16), ("am_share_max", 16)],
        about="Share of the active-message handlers that each of T threads of PE 1, all "
              "waiting in shmem_wait_until, ran (min and max, %)."),
    "am_latency": Bench(
        csv=True, fixed_pes=2, shoal_only=True,
        headline=[("am_latency", 8), ("put_signal_latency", 8)],
        about="Ping-pong through active-message handlers (the answer sent from inside the "
              "handler) next to put-with-signal + signal_wait_until ping-pong."),
}
# A bench/*.c missing from SUITE still runs (with --smoke, pass/fail only).
UNLISTED = Bench(args=["--smoke"], about="Not in the suite table: run with --smoke, "
                 "pass/fail only.")
SHOAL_ONLY = "Shoal only"
SHMEMX_INCLUDE = re.compile(r"^\s*#\s*include\s*<shmemx\.h>")
SHMEMX_GUARD = re.compile(r"^\s*#\s*if\s+__has_include\s*\(\s*<shmemx\.h>\s*\)")


def impl_run_args(impl, spec):
    """The benchmark's own oshrun arguments for this implementation."""
    return spec.shoal_run_args if impl.is_shoal else []


def shoal_only_for(spec, config):
    """Whether only Shoal builds and runs this benchmark in this configuration."""
    return spec.shoal_only or config in spec.shoal_configs


def needs_shmemx(src):
    """Whether bench source src includes <shmemx.h> without the
    `#if __has_include(<shmemx.h>)` guard that lets other implementations
    build it (their shmemx.h, if any, lacks Shoal's extensions)."""
    lines = Path(src).read_text(errors="replace").splitlines()
    return any(SHMEMX_INCLUDE.match(ln) and not (i and SHMEMX_GUARD.match(lines[i - 1]))
               for i, ln in enumerate(lines))


def check_shoal_only(benches):
    """A benchmark built on Shoal's extensions must be marked shoal_only in
    SUITE, or every other implementation's build of it fails and the run
    exits 1: say so before building anything."""
    for b in benches:
        if needs_shmemx(BENCH_DIR / f"{b}.c") and not SUITE.get(b, UNLISTED).shoal_only:
            fail(f"bench/{b}.c includes <shmemx.h> (Shoal's extensions) but SUITE does not "
                 "mark it shoal_only=True (or guard the include with "
                 "#if __has_include(<shmemx.h>))")

# UCX's own words when its System V shared-memory transport (sysv) cannot
# get a segment: "shmget(size=... ) for mm_recv_fifo failed: No space left on
# device" and the like.
UCX_SYSV_ERROR = re.compile(r"shmget\(.*(No space left|Cannot allocate|Invalid argument)|"
                            r"md sysv|mm_sysv", re.IGNORECASE)


def sysv_shortage(max_pes):
    """Why System V shared memory is too short for a job of max_pes UCX
    processes, or "" when it is not.  UCX's sysv transport takes a few
    segments per process (receive FIFO, bounce buffers); the limits are
    those of this IPC namespace."""
    try:
        shmmni = int(open("/proc/sys/kernel/shmmni").read())
        shmall = int(open("/proc/sys/kernel/shmall").read())   # pages
        used, used_bytes = 0, 0
        with open("/proc/sysvipc/shm") as f:
            next(f)
            for ln in f:
                parts = ln.split()
                if len(parts) > 3:
                    used += 1
                    used_bytes += int(parts[3])
    except (OSError, ValueError, StopIteration):
        return ""
    need = 8 * max_pes
    if shmmni - used < need:
        return (f"{used} of kernel.shmmni={shmmni} System V segments in use, "
                f"fewer than {need} free")
    page = os.sysconf("SC_PAGE_SIZE")
    if shmall * page - used_bytes < need * (1 << 20):
        return (f"{used_bytes >> 20} MiB of kernel.shmall={shmall} pages of System V memory "
                "in use")
    return ""


# --network: every implementation forced onto its network path over UCX's
# tcp transport on this one machine (issue 25's comparison).  Shoal: each
# PE a pretend node of its own (SHOAL_SPLIT_NODES at least the PE count), so
# every other PE is reached through UCX and this PE by load/store, as on a
# cluster with a PE per node (SHOAL_TRANSPORTS=ucx would also send a PE's
# operations on itself through the tcp loopback: a test mode); Open MPI:
# its ucx pml and spml with the transports and devices it otherwise refuses
# (without the pml options its collectives stay in shared memory), and
# UCX's `self` transport for a PE's operations on itself.
SHOAL_NETWORK_ARGS = ["-x", "UCX_TLS=tcp", "-x", "SHOAL_SPLIT_NODES=4096"]
OPENMPI_NETWORK_ARGS = ["--mca", "pml", "ucx", "--mca", "spml", "ucx",
                        "--mca", "pml_ucx_tls", "any", "--mca", "pml_ucx_devices", "any",
                        "-x", "UCX_TLS=tcp,self"]


def openmpi_preset(max_pes, network=False):
    """What a user of Debian's Open MPI 4.1.4 (openmpi-bin, libopenmpi-dev)
    passes to its oshrun, each with the reason: (oshcc, oshrun, args,
    [(args, why)], fallbacks).  A fallback is (pattern, args, why): when the
    init+finalize probe fails with a log that matches the pattern, the args
    are added and the probe is run again."""
    args, why = [], []

    def add(a, reason):
        args.extend(a)
        why.append((a, reason))

    add(["--oversubscribe"], "more PEs than cores must be allowed to run")
    if os.geteuid() == 0:
        add(["--allow-run-as-root"], "Open MPI refuses to run as root without it")
    add(["--mca", "osc", "^rdma"],
        "leaves out Open MPI's osc rdma component (MPI one-sided): without it "
        "Debian's Open MPI 4.1.4 OSHMEM segfaults in shmem_finalize")
    sysv_fix = ["-x", "UCX_TLS=^sysv"]
    short = sysv_shortage(max_pes)
    if short:
        add(sysv_fix, f"System V shared memory is short ({short}): UCX's sysv transport "
            "would fail to start (it uses posix shared memory instead)")
    fallbacks = [] if short else [
        (UCX_SYSV_ERROR, sysv_fix, "the init+finalize probe failed with UCX unable to get "
         "System V shared memory: UCX's sysv transport is left out")]
    if network:
        add(OPENMPI_NETWORK_ARGS, "--network: OSHMEM and its collectives over UCX's tcp "
            "transport, as between nodes")
        fallbacks = []
    return "/usr/bin/oshcc", "/usr/bin/oshrun", args, why, fallbacks


# --impl ofi: Shoal itself (the --shoal-build it is given) over libfabric's
# tcp;ofi_rxm, laid out as --network lays out Shoal over UCX: each PE a
# pretend node of its own, every other PE through the network, this PE by
# load/store (SHOAL_TRANSPORTS=shm,ofi; with plain `ofi` a PE's operations on
# itself would also go through the tcp loopback).  FI_PROVIDER=tcp picks
# tcp;ofi_rxm (the tcp provider alone has no atomics).  With --network the
# "shoal" column is the same jobs over UCX's tcp: the issue's "within 1.1x
# Shoal-on-UCX on the same wire".  It builds and runs the Shoal-only
# benchmarks too (Impl.is_shoal).
OFI_NETWORK_ARGS = ["-x", "SHOAL_TRANSPORTS=shm,ofi", "-x", "FI_PROVIDER=tcp",
                    "-x", "SHOAL_SPLIT_NODES=4096"]


def ofi_preset(max_pes, network=False, shoal_build=None):
    """Shoal over OFI: (oshcc, oshrun, args, [(args, why)], fallbacks)."""
    build = Path(shoal_build or ROOT / "build")
    why = [(OFI_NETWORK_ARGS, "Shoal over libfabric's tcp;ofi_rxm, each PE a pretend node "
            "(every other PE through OFI, this PE by load/store)")]
    return (str(build / "bin" / "oshcc"), str(build / "bin" / "oshrun"),
            list(OFI_NETWORK_ARGS), why, [])


PRESETS = {
    "openmpi": openmpi_preset,
    "ofi": ofi_preset,
}

FINALIZE_PROBE = r"""#include <shmem.h>
#include <stdio.h>
int main(void)
{
    shmem_init();
    if (shmem_my_pe() == 0)
        printf("probe: %d PEs\n", shmem_n_pes());
    shmem_finalize();
    return 0;
}
"""

# One --load process: spins until its deadline, or until the driver that
# started it is gone (its parent changes; and the kernel kills it when the
# driver dies, PR_SET_PDEATHSIG), so none outlives the driver even if the
# driver is killed with SIGKILL.  argv: marker, deadline (time.time()),
# driver pid.
LOAD_MARKER = "run_suite-load"
LOAD_CODE = r"""
import ctypes, os, signal, sys, time
deadline, driver = float(sys.argv[2]), int(sys.argv[3])
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
try:
    ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
except Exception:
    pass
x = 0
while os.getppid() == driver and time.time() < deadline:
    for i in range(20000):
        x = (x * 1103515245 + 12345) & 0xffffffff
"""


class Load:
    """N busy-looping processes beside the jobs (--load N)."""

    def __init__(self, n, seconds, outdir):
        self.n, self.procs, self.pidfile = n, [], outdir / "load.pids"
        self.deadline = time.time() + seconds
        self.seconds = seconds

    def start(self):
        for _ in range(self.n):
            self.procs.append(subprocess.Popen(
                [sys.executable, "-c", LOAD_CODE, LOAD_MARKER, f"{self.deadline:.0f}",
                 str(os.getpid())], stdin=subprocess.DEVNULL))
        self.pidfile.write_text("".join(f"{q.pid}\n" for q in self.procs))
        print(f"run_suite: load: {self.n} busy-looping process(es) started (pids "
              f"{', '.join(str(q.pid) for q in self.procs)}; deadline in {self.seconds:.0f} s)",
              file=sys.stderr)

    def stop(self):
        for q in self.procs:
            if q.poll() is None:
                q.terminate()
        for q in self.procs:
            try:
                q.wait(timeout=5)
            except subprocess.TimeoutExpired:
                q.kill()
                q.wait()
        if self.procs:
            early = [q.pid for q in self.procs if q.returncode not in (-signal.SIGTERM,)]
            print(f"run_suite: load: {len(self.procs)} process(es) stopped"
                  + (f" ({len(early)} had already ended: deadline reached?)" if early else ""),
                  file=sys.stderr)
        self.procs = []


# A benchmark that finds wrong data says so in words like these.
DATA_ERROR = re.compile(r"\bFAIL(ED|URE|S)?\b|\bwrong\b|\bmismatch", re.IGNORECASE)


@dataclass
class Impl:
    name: str
    oshcc: str
    oshrun: str
    run_args: list
    version: str = ""
    probe: str = ""       # finalize probe outcome, in words
    probe_ok: bool = True
    why: list = field(default_factory=list)        # [(args, reason)] the preset passed
    fallbacks: list = field(default_factory=list)  # [(log pattern, args, reason)]
    is_shoal: bool = False  # Shoal itself (impl "shoal", preset "ofi"): runs Shoal-only benches


@dataclass
class Job:
    index: int
    rnd: int
    bench: str
    impl: Impl
    config: str           # "" when the benchmark takes no --config
    threads: int          # 0 when the benchmark takes no --threads
    base_pes: int         # PEs of the multi-threaded layout
    npes: int             # PEs launched
    args: list
    stem: str = ""
    rc: int = None
    seconds: float = 0.0
    timed_out: bool = False
    rows: list = field(default_factory=list)
    status: str = "pending"   # ok | crashed at finalize | FAILED
    why: str = ""
    log: str = ""             # relative to the output directory
    out_lines: int = 0        # non-empty stdout lines (results of a benchmark without CSV)
    outdir: Path = None

    def key(self):
        return (self.bench, self.config, self.threads, self.npes)

    def label(self):
        s = self.bench
        if self.config:
            s += f" {self.config}"
        if self.threads:
            s += f" T={self.threads}"
        return f"{s} ({self.npes} PEs) {self.impl.name}"


def fail(msg):
    print(f"run_suite: {msg}", file=sys.stderr)
    sys.exit(2)


def csv_ints(text, what):
    try:
        vals = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        fail(f"{what}: expected a comma-separated list of integers, got '{text}'")
    if not vals or min(vals) < 1:
        fail(f"{what}: values must be >= 1")
    return vals


def parse_impl(spec, max_pes, network=False, shoal_build=None):
    if "=" not in spec:
        if spec not in PRESETS:
            fail(f"--impl {spec}: expected NAME=OSHCC,OSHRUN[,args] or one of "
                 f"{', '.join(PRESETS)}")
        preset = PRESETS[spec]
        if preset is ofi_preset:
            oshcc, oshrun, extra, why, fallbacks = preset(max_pes, network, shoal_build)
        else:
            oshcc, oshrun, extra, why, fallbacks = preset(max_pes, network)
        return Impl(spec, oshcc, oshrun, list(extra), why=why, fallbacks=fallbacks,
                    is_shoal=preset is ofi_preset)
    name, rest = spec.split("=", 1)
    parts = rest.split(",")
    if not name or len(parts) < 2 or not parts[0] or not parts[1]:
        fail(f"--impl {spec}: expected NAME=OSHCC,OSHRUN[,extra oshrun args]")
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name) or name == "shoal":
        fail(f"--impl {spec}: NAME must be a plain word other than 'shoal'")
    extra = [a for p in parts[2:] for a in shlex.split(p)]
    return Impl(name, parts[0], parts[1], extra)


def run_quiet(cmd, log, timeout=None, cwd=None):
    with open(log, "w") as f:
        f.write("$ " + shlex.join(str(c) for c in cmd) + "\n")
        f.flush()
        try:
            return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=cwd,
                                  timeout=timeout, stdin=subprocess.DEVNULL).returncode
        except subprocess.TimeoutExpired:
            f.write("\nrun_suite: timed out\n")
            return 124
        except OSError as e:
            f.write(f"\nrun_suite: {e}\n")
            return 127


def ensure_shoal(build):
    oshcc = build / "bin" / "oshcc"
    if oshcc.exists():
        return
    print(f"run_suite: {oshcc} missing: building Shoal in {build}", file=sys.stderr)
    build.mkdir(parents=True, exist_ok=True)
    cfg = ["cmake", "-S", str(ROOT), "-B", str(build)]
    if not (build / "CMakeCache.txt").exists():
        cfg += ["-DCMAKE_BUILD_TYPE=Release", "-DSHOAL_BUILD_TESTS=OFF",
                "-DSHOAL_BUILD_BENCH=OFF", "-DSHOAL_BUILD_EXAMPLES=OFF"]
    for cmd in (cfg, ["cmake", "--build", str(build), "-j", str(os.cpu_count() or 1)]):
        if subprocess.run(cmd).returncode != 0:
            fail(f"building Shoal failed: {shlex.join(cmd)}")
    if not oshcc.exists():
        fail(f"{oshcc} still missing after the build")


def impl_version(impl):
    for cmd in ([impl.oshrun, "--version"], [impl.oshrun, "-V"]):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=20,
                               stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired):
            continue
        lines = [ln.strip() for ln in (p.stdout + p.stderr).splitlines() if ln.strip()]
        if p.returncode == 0 and lines:
            return lines[0]
    return "version unknown"


def build_all(impls, benches, outdir, jobs):
    """Compiles every benchmark (and the finalize probe) with every
    implementation, in parallel.  Returns {(impl, bench): exe or None}."""
    probe_src = outdir / "build" / "finalize_probe.c"
    probe_src.parent.mkdir(parents=True, exist_ok=True)
    probe_src.write_text(FINALIZE_PROBE)
    tasks = []
    for impl in impls:
        d = outdir / "build" / impl.name
        d.mkdir(parents=True, exist_ok=True)
        for b in benches + ["finalize_probe"]:
            if not impl.is_shoal and SUITE.get(b, UNLISTED).shoal_only:
                continue
            src = probe_src if b == "finalize_probe" else BENCH_DIR / f"{b}.c"
            tasks.append((impl, b, src, d / b, d / f"{b}.log"))

    def one(t):
        impl, b, src, exe, log = t
        cmd = [impl.oshcc, "-std=c11", "-O2", "-pthread", str(src), "-o", str(exe), "-lm"]
        return t, run_quiet(cmd, log, timeout=300)

    built = {}
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for (impl, b, _src, exe, log), rc in pool.map(one, tasks):
            built[(impl.name, b)] = exe if rc == 0 and exe.exists() else None
            if built[(impl.name, b)] is None and b != "finalize_probe":
                print(f"run_suite: BUILD FAILED: {b} with {impl.name} (see {log})",
                      file=sys.stderr)
    return built


def probe_finalize(impl, exe, outdir, timeout):
    """Runs init + finalize alone on 2 PEs: tells a library that crashes at
    finalize whatever the program does from a benchmark that fails."""
    if exe is None:
        impl.probe, impl.probe_ok = "probe did not build", False
        return
    log = outdir / "logs" / f"finalize_probe.{impl.name}.log"
    rc = run_quiet([impl.oshrun, *impl.run_args, "-np", "2", str(exe)], log, timeout=timeout)
    for pattern, args, why in impl.fallbacks:
        if rc == 0:
            break
        if pattern.search(log.read_text(errors="replace")):
            print(f"run_suite: note: {impl.name}: {why}: adding {shlex.join(args)}",
                  file=sys.stderr)
            impl.run_args += args
            impl.why.append((args, why))
            log = outdir / "logs" / f"finalize_probe.{impl.name}.{len(impl.why)}.log"
            rc = run_quiet([impl.oshrun, *impl.run_args, "-np", "2", str(exe)], log,
                           timeout=timeout)
    impl.probe_ok = rc == 0
    impl.probe = ("exits 0" if rc == 0 else
                  f"exits with status {rc}{signal_words(rc)} (see {log.relative_to(outdir)})")


def signal_words(rc):
    if rc is None:
        return ""
    n = -rc if rc < 0 else rc - 128 if 128 < rc < 160 else 0
    if n <= 0 or rc == 124:
        return ""
    try:
        return f", signal {n} ({signal.Signals(n).name})"
    except ValueError:
        return f", signal {n}"


def build_error(outdir, impl, bench):
    log = outdir / "build" / impl.name / f"{bench}.log"
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return "no build log"
    for ln in lines:
        if "error" in ln or "undefined reference" in ln:
            return ln.split(": ", 1)[-1].strip()[:160]
    return lines[-1][:160] if lines else "empty build log"


def plan_jobs(args, impls, benches, built, outdir):
    """Interleaved order: round, then benchmark/config/thread count, then
    implementation, so each ratio compares neighbours in time."""
    combos = []
    for b in benches:
        spec = SUITE.get(b, UNLISTED)
        extra = list(spec.smoke_args if args.smoke else spec.args)
        thread_list = [1]
        if spec.threads:
            thread_list = [1, 2] if args.smoke else args.threads
        for base in ([spec.fixed_pes] if spec.fixed_pes else args.pes):
            for t in thread_list:
                configs = list(spec.configs) or [""]
                if args.smoke and spec.configs and t == 1:
                    configs = configs[:1]   # T=1 configurations differ little: smoke runs one
                for c in configs:
                    if args.config and c and c not in args.config:
                        continue
                    a = list(extra)
                    if c:
                        a += ["--config", c]
                    if spec.threads:
                        a += ["--threads", str(t)]
                    npes = base * t if c == "pes" else base
                    combos.append((b, c, t if spec.threads else 0, base, npes, a))
    jobs = []
    for r in range(1, args.rounds + 1):
        for b, c, t, base, npes, a in combos:
            for impl in impls:
                spec = SUITE.get(b, UNLISTED)
                if not impl.is_shoal and shoal_only_for(spec, c):
                    continue
                j = Job(len(jobs) + 1, r, b, impl, c, t, base, npes, a)
                j.stem = f"r{r}.{b}.{c or 'none'}.T{t or 1}.p{npes}.{impl.name}"
                j.log = f"logs/{j.stem}.err"
                if built.get((impl.name, b)) is None:
                    j.status, j.why = "FAILED", "build failed: " + build_error(outdir, impl, b)
                    j.log = f"build/{impl.name}/{b}.log"
                jobs.append(j)
    return jobs


def read_rows(path):
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return [row for row in csv.DictReader(f) if row.get("metric")]


def run_job(job, exe, outdir, timeout):
    out = outdir / "logs" / f"{job.stem}.out"
    err = outdir / "logs" / f"{job.stem}.err"
    jcsv = outdir / "jobs" / f"{job.stem}.csv"
    jcsv.unlink(missing_ok=True)
    spec = SUITE.get(job.bench, UNLISTED)
    cmd = [job.impl.oshrun, *job.impl.run_args, *impl_run_args(job.impl, spec), "-np",
           str(job.npes), str(exe), *job.args]
    if spec.csv:
        cmd += ["--csv", str(jcsv)]
    t0 = time.monotonic()
    with open(out, "w") as fo, open(err, "w") as fe:
        fe.write("$ " + shlex.join(cmd) + "\n")
        fe.flush()
        try:
            # A session of its own, so a timeout can end the launcher and its PEs.
            p = subprocess.Popen(cmd, stdout=fo, stderr=fe, stdin=subprocess.DEVNULL,
                                 start_new_session=True)
        except OSError as e:
            fe.write(f"run_suite: {e}\n")
            job.rc, job.why = 127, str(e)
            return
        try:
            job.rc = p.wait(timeout=timeout)
        except (KeyboardInterrupt, SystemExit):
            # The driver is being stopped: its job goes with it.
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
            raise
        except subprocess.TimeoutExpired:
            job.timed_out = True
            for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    p.wait(timeout=grace)
                    break
                except subprocess.TimeoutExpired:
                    pass
            job.rc = p.returncode
    job.seconds = time.monotonic() - t0
    job.rows = read_rows(jcsv)
    job.out_lines = sum(1 for ln in open(out, errors="replace") if ln.strip())


def classify(jobs):
    """Decides each job's outcome once every job has run: a job that exited
    non-zero counts as having written all its rows when it wrote as many as
    a clean run of the same benchmark/config/threads/PEs (any implementation,
    any round)."""
    def results(j):
        return len(j.rows) if SUITE.get(j.bench, UNLISTED).csv else j.out_lines

    clean = {}
    for j in jobs:
        if j.rc == 0 and not j.timed_out and results(j):
            clean[j.key()] = max(clean.get(j.key(), 0), results(j))
    for j in jobs:
        if j.status != "pending":
            continue
        spec = SUITE.get(j.bench, UNLISTED)
        text = ""
        for ext in (".out", ".err"):
            p = j.outdir / "logs" / f"{j.stem}{ext}"
            if p.exists():
                text += p.read_text(errors="replace")
        data_error = DATA_ERROR.search(text)
        if j.timed_out:
            j.status, j.why = "FAILED", "timed out"
        elif j.rc == 0:
            if spec.csv and not j.rows:
                j.status, j.why = "FAILED", "exit 0 but no CSV rows"
            else:
                j.status = "ok"
        elif not results(j):
            j.status, j.why = "FAILED", f"exit status {j.rc}{signal_words(j.rc)} before any result"
        elif data_error:
            j.status = "FAILED"
            j.why = f"exit status {j.rc}; data error reported: \"{data_error.group(0)}\""
        else:
            # Without CSV, the output lines of a clean run stand for its rows.
            what = "rows" if spec.csv else "output lines"
            want, have = clean.get(j.key()), results(j)
            if want is None and not spec.csv:
                j.status = "FAILED"
                j.why = (f"exit status {j.rc}{signal_words(j.rc)} (no clean run to tell a crash "
                         "at finalize from a failure)")
            elif want is not None and have < want:
                j.status = "FAILED"
                j.why = f"exit status {j.rc}{signal_words(j.rc)} after {have} of {want} {what}"
            else:
                j.status = "crashed at finalize"
                j.why = f"exit status {j.rc}{signal_words(j.rc)} after all {have} {what}"
                if want is None:
                    j.why += " (no clean run to compare the row count with)"


# ---------------------------------------------------------------- report

def fnum(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    a = abs(v)
    if a != 0 and (a >= 1e6 or a < 1e-3):
        return f"{v:.3e}"
    return f"{v:.4g}"


def fsize(n):
    if n <= 0:
        return "-"
    for unit, k in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= k and n % k == 0:
            return f"{n // k} {unit}"
    return f"{n} B"


def lower_is_better(unit):
    return unit in ("ns", "us", "ms", "s", "cycles")


def mt_bcast_target(d, L, tally):
    """mt_bcast: 2-thread / 1-thread time of the multi-threaded broadcast
    from MT_BCAST_FROM bytes, measured in the same job."""
    rows = []
    for k in sorted(d):
        metric, unit, base, threads, config, size, impl = k
        if metric != "broadcastmem_mt" or threads != 2 or size < MT_BCAST_FROM:
            continue
        one = d.get((metric, unit, base, 1, config, size, impl))
        if not one or not one["med"]:
            continue
        r = d[k]["med"] / one["med"]
        rows.append([impl, base, fsize(size), fnum(one["med"]), fnum(d[k]["med"]),
                     f"{r:.2f} {verdict(r <= TARGET_MT_BCAST)}"])
        tk = (impl, f"mt_bcast 2 threads / 1 thread <= {TARGET_MT_BCAST} from 1 MiB")
        tally.setdefault(tk, [0, 0])[0 if r <= TARGET_MT_BCAST else 1] += 1
    if rows:
        L.append(f"mt_bcast, 2 threads against 1 (target <= {TARGET_MT_BCAST}x from 1 MiB; "
                 "needs a free core per thread)\n")
        L.append(md_table(["impl", "PEs", "size", "T=1 us", "T=2 us", "ratio"], rows))
        L.append("")


def aggregate(jobs):
    """{bench: {(metric, unit, base_pes, threads, config, size, impl): stats}}
    with the median over rounds of each round's median, and the min and max
    over all rounds."""
    acc = {}
    for j in jobs:
        if j.status not in ("ok", "crashed at finalize"):
            continue
        for r in j.rows:
            try:
                med, lo, hi = float(r["median"]), float(r["min"]), float(r["max"])
                size = int(r["size_bytes"])
                threads = int(r["threads"])
            except (KeyError, ValueError):
                continue
            config = r.get("config") or "-"
            if config == "-" and j.config:
                config = j.config
            k = (r["metric"], r["unit"], j.base_pes, threads, config, size, j.impl.name)
            a = acc.setdefault(j.bench, {}).setdefault(k, {"med": [], "min": [], "max": [],
                                                          "crashed": False})
            a["med"].append(med)
            a["min"].append(lo)
            a["max"].append(hi)
            a["crashed"] |= j.status != "ok"
    out = {}
    for b, d in acc.items():
        out[b] = {k: {"med": statistics.median(v["med"]), "min": min(v["min"]),
                      "max": max(v["max"]), "n": len(v["med"]), "crashed": v["crashed"]}
                  for k, v in d.items()}
    return out


def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def verdict(ok):
    return "met" if ok else "**NOT met**"


def metric_list(bench, d):
    """(metric, unit, base_pes) in the order the benchmark writes them,
    floors last."""
    floors = set(SUITE.get(bench, UNLISTED).floors.values())
    ms = list(dict.fromkeys(k[:3] for k in d))
    return sorted(ms, key=lambda m: m[0] in floors)


def floor_of(d, bench, metric, unit, base, t, c, size, impl):
    """The floor figure that goes with one figure: same PEs, implementation
    and size; the same threads/config where the floor has them."""
    fm = SUITE.get(bench, UNLISTED).floors.get(metric)
    if not fm:
        return None
    cands = [(k, v) for k, v in d.items() if k[0] == fm and k[1] == unit and k[2] == base
             and k[6] == impl]
    if not cands:
        return None
    cands = [(k, v) for k, v in cands if k[5] == size]
    for k, v in cands:
        if (k[3], k[4]) == (t, c):
            return v
    return cands[0][1] if cands else None


def make_plots(agg, impls, outdir, smoke):
    """One PNG per benchmark metric: the figure against message size, a
    panel per thread count, one line per configuration and implementation
    (plus the machine's floor where the benchmark measures one)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None, "matplotlib is not installed (scripts/install-deps.sh installs it)"
    pdir = outdir / "plots"
    pdir.mkdir(exist_ok=True)
    made = {}
    order = [i.name for i in impls]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    styles = {"default": ("-", "o"), "ctx": ("--", "s"), "pes": (":", "^"), "-": ("-", "o")}

    def color(impl):
        return colors[(order.index(impl) if impl in order else len(order)) % len(colors)]

    for b, d in agg.items():
        floors = SUITE.get(b, UNLISTED).floors
        for metric, unit, base in metric_list(b, d):
            if metric in floors.values():
                continue   # drawn with the figures it is the floor of
            ks = [k for k in d if k[:3] == (metric, unit, base)]
            threads = sorted({k[3] for k in ks})
            sizes = sorted({k[5] for k in ks})
            lines = sorted({(k[6], k[4]) for k in ks},
                           key=lambda x: (order.index(x[0]) if x[0] in order else 99,
                                          CONFIGS.index(x[1]) if x[1] in CONFIGS else -1))
            by_size = len(sizes) > 1
            panels = threads if by_size else [None]
            fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.2),
                                     squeeze=False, sharey=True)
            allv = []
            for ax, t in zip(axes[0], panels):
                for impl, cfg in lines:
                    if by_size:
                        xs = [s for s in sizes if (metric, unit, base, t, cfg, s, impl) in d]
                        pts = [d[(metric, unit, base, t, cfg, s, impl)] for s in xs]
                    else:
                        xs = [tt for tt in threads
                              if (metric, unit, base, tt, cfg, sizes[0], impl) in d]
                        pts = [d[(metric, unit, base, tt, cfg, sizes[0], impl)] for tt in xs]
                    if not xs:
                        continue
                    ys = [p["med"] for p in pts]
                    allv += ys
                    err = [[max(0.0, p["med"] - p["min"]) for p in pts],
                           [max(0.0, p["max"] - p["med"]) for p in pts]]
                    ls, mk = styles.get(cfg, ("-", "o"))
                    ax.errorbar(xs, ys, yerr=err, linestyle=ls, marker=mk, color=color(impl),
                                capsize=2, label=impl if cfg == "-" else f"{impl} {cfg}")
                if metric in floors and by_size:
                    fsizes = sorted({k[5] for k in d if k[0] == floors[metric]})
                    for impl in dict.fromkeys(k[6] for k in ks):
                        fx, fy = [], []
                        for sz in fsizes:
                            f = floor_of(d, b, metric, unit, base, t, "-", sz, impl)
                            if f:
                                fx.append(sz)
                                fy.append(f["med"])
                        if len(fx) == 1:
                            # A floor of one size (p2p's 8-byte ping-pong): a level.
                            ax.axhline(fy[0], color=color(impl), linestyle="-.", linewidth=1,
                                       label=f"{impl} {floors[metric]} ({fsize(fx[0])})")
                        elif fx:
                            ax.plot(fx, fy, color=color(impl), linestyle="-.", linewidth=1,
                                    label=f"{impl} floor ({floors[metric]})")
                        allv += fy
                if by_size:
                    ax.set_xscale("log", base=2)
                    ax.set_xlabel("message size (bytes)")
                    ax.set_title(f"T = {t}")
                else:
                    ax.set_xlabel("threads per PE (T)")
                    ax.set_xticks(threads)
                    if sizes[0] > 0:
                        ax.set_title(fsize(sizes[0]))
                ax.set_ylabel(f"{metric} ({unit})")
                ax.grid(True, alpha=0.3)
                ax.legend(fontsize="small")
            pos = [v for v in allv if v > 0]
            if pos and max(pos) / min(pos) > 50:
                for ax in axes[0]:
                    ax.set_yscale("log")
            better = "lower" if lower_is_better(unit) else "higher"
            fig.suptitle(f"{b}: {metric} ({unit}, {better} is better), {base} PEs x T threads")
            # Fixed margins: tight_layout costs more than the whole smoke run of a benchmark.
            fig.subplots_adjust(left=0.1 / len(panels) + 0.03, right=0.98, bottom=0.13,
                                top=0.86, wspace=0.28)
            name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{b}_{metric}_p{base}.png")
            fig.savefig(pdir / name, dpi=70 if smoke else 100)
            plt.close(fig)
            made[(b, metric, unit, base)] = f"plots/{name}"
    return made, ""


def write_report(args, impls, jobs, agg, plots, plot_note, outdir, started, load):
    names = [i.name for i in impls]
    others = names[1:]
    L = []
    L.append("# Shoal benchmark suite report\n")
    L.append(f"- Run: {started:%Y-%m-%d %H:%M:%S}, {'smoke' if args.smoke else 'full'} mode, "
             f"{args.rounds} round(s) of interleaved jobs, per-job timeout {args.timeout} s")
    L.append(f"- Command: `{shlex.join(sys.argv)}`")
    L.append(f"- Machine: {cpu_model()}, {os.cpu_count()} CPUs; load average at start "
             f"{load:.2f}" + (" (busy machine: figures are noisy)"
                              if load > 0.5 * (os.cpu_count() or 1) else ""))
    if args.load:
        L.append(f"- Added load (`--load {args.load}`): {args.load} busy-looping process(es) "
                 "ran beside every job (started after the builds and the init+finalize "
                 "probes, stopped after the last job), on top of the load above")
    else:
        L.append("- Added load: none (`--load 0`)")
    for i in impls:
        L.append(f"- Implementation `{i.name}`: {i.version}; `{i.oshcc}`, "
                 f"`{shlex.join([i.oshrun, *i.run_args])}`; init+finalize probe on 2 PEs: "
                 f"{i.probe}")
        for a, reason in i.why:
            L.append(f"  - passes `{shlex.join(a)}`: {reason}")
    L.append("- Each figure: median over rounds of each job's median (each job itself "
             "reports the median of its inner rounds); range = min..max over all rounds.")
    L.append("")

    failed = [j for j in jobs if j.status == "FAILED"]
    crashed = [j for j in jobs if j.status == "crashed at finalize"]
    ok = [j for j in jobs if j.status == "ok"]
    L.append("## Jobs\n")
    L.append(f"{len(jobs)} jobs: {len(ok)} ok, {len(crashed)} crashed at finalize, "
             f"{len(failed)} FAILED.\n")
    if failed:
        L.append(f"### FAILED jobs ({len(failed)}): their figures are not used\n")
        L.append(md_table(["job", "round", "why", "log"],
                          [[j.label(), j.rnd, j.why, j.log] for j in failed]))
        L.append("")
    if crashed:
        L.append(f"### Crashed at finalize ({len(crashed)}): all rows written, then a "
                 "non-zero exit; figures kept\n")
        L.append(md_table(["job", "round", "why", "log"],
                          [[j.label(), j.rnd, j.why, j.log] for j in crashed]))
        L.append("")

    # Headline: Shoal vs the others on 2 PEs, T = 1 and 2.
    L.append("## Headline: " + " vs ".join(names) + " on 2 PEs\n")
    if not others:
        L.append("Only Shoal ran (add `--impl openmpi` or `--impl NAME=OSHCC,OSHRUN` to "
                 "compare).\n")
    hl = []
    for b in agg:
        spec = SUITE.get(b, UNLISTED)
        d = agg[b]
        wanted = list(spec.headline)
        if not wanted:
            ms = []
            for k in d:
                if k[0] not in [m for m, _ in ms]:
                    ms.append((k[0], None))
            wanted = ms[:1]
        for metric, size in wanted:
            ks = [k for k in d if k[0] == metric and k[2] == 2]
            if not ks:
                continue
            have = sorted({k[5] for k in ks})
            if size is None or size not in have:
                # Smoke runs stop at smaller sizes: take the largest one below.
                below = [s for s in have if size is not None and s <= size]
                size = below[-1] if below else have[0]
            unit = ks[0][1]
            for t in (1, 2):
                cfgs = sorted({k[4] for k in ks if k[3] == t},
                              key=lambda c: CONFIGS.index(c) if c in CONFIGS else -1)
                for c in cfgs:
                    vals = [d.get((metric, unit, 2, t, c, size, n)) for n in names]
                    if not any(vals):
                        continue
                    absent = SHOAL_ONLY if shoal_only_for(spec, c) else "-"
                    row = [b, metric, fsize(size), t, c] + \
                          [fnum(v["med"]) if v else absent for v in vals]
                    for o, v in zip(others, vals[1:]):
                        row.append(fnum(vals[0]["med"] / v["med"]) if vals[0] and v and
                                   v["med"] else absent)
                    row += [unit, "lower" if lower_is_better(unit) else "higher"]
                    hl.append(row)
    if hl:
        L.append(md_table(["benchmark", "metric", "size", "T", "config"] + names +
                          [f"shoal/{o}" for o in others] + ["unit", "better"], hl))
    else:
        L.append("No figures on 2 PEs.")
    L.append("")

    # Targets summary, filled while writing the sections.
    summary_at = len(L)
    tally = {}

    for b in sorted({j.bench for j in jobs}, key=lambda x: list(SUITE).index(x)
                    if x in SUITE else 99):
        spec = SUITE.get(b, UNLISTED)
        bj = [j for j in jobs if j.bench == b]
        L.append(f"## {b}\n")
        if spec.about:
            L.append(spec.about + "\n")
        if spec.shoal_run_args:
            L.append(f"Shoal's jobs add `{shlex.join(spec.shoal_run_args)}` to its oshrun.\n")
        if others and spec.shoal_only:
            L.append(f"{SHOAL_ONLY}: it uses Shoal's extensions (shmemx.h); not built or "
                     f"run for {', '.join(others)}.\n")
        elif others and spec.shoal_configs:
            L.append(f"{SHOAL_ONLY}: configuration {', '.join(spec.shoal_configs)} (Shoal's "
                     f"extensions, shmemx.h); not run for {', '.join(others)}.\n")
        counts = {s: sum(1 for j in bj if j.status == s)
                  for s in ("ok", "crashed at finalize", "FAILED")}
        L.append(f"Jobs: {counts['ok']} ok, {counts['crashed at finalize']} crashed at "
                 f"finalize, {counts['FAILED']} FAILED.\n")
        if not spec.csv:
            for impl in names:
                last = [j for j in bj if j.impl.name == impl and j.status == "ok"]
                if last:
                    txt = (outdir / "logs" / f"{last[-1].stem}.out").read_text(
                        errors="replace").splitlines()
                    L.append(f"Output of `{impl}`, round {last[-1].rnd}:\n")
                    L.append("```\n" + "\n".join(txt[:40]) + "\n```\n")
            continue
        d = agg.get(b, {})
        if not d:
            L.append("No figures.\n")
            continue
        for metric, unit, base in metric_list(b, d):
            ks = [k for k in d if k[:3] == (metric, unit, base)]
            lower = lower_is_better(unit)
            L.append(f"### {metric} ({unit}, {'lower' if lower else 'higher'} is better), "
                     f"{base} PEs\n")
            has_floor = metric in spec.floors
            rows = []
            combos = sorted({(k[5], k[3], k[4]) for k in ks},
                            key=lambda x: (x[0], x[1], CONFIGS.index(x[2])
                                           if x[2] in CONFIGS else -1))
            for size, t, c in combos:
                vals = [d.get((metric, unit, base, t, c, size, n)) for n in names]
                absent = SHOAL_ONLY if shoal_only_for(spec, c) else "-"
                row = [fsize(size), t, c]
                for v in vals:
                    row.append(f"{fnum(v['med'])} ({fnum(v['min'])}..{fnum(v['max'])})"
                               + ("\\*" if v["crashed"] else "") if v else absent)
                for v in vals[1:]:
                    row.append(fnum(vals[0]["med"] / v["med"]) if vals[0] and v and v["med"]
                               else absent)
                if has_floor:
                    for n, v in zip(names, vals):
                        f = floor_of(d, b, metric, unit, base, t, c, size, n)
                        row.append(f"{v['med'] / f['med']:.2f}" if v and f and f["med"]
                                   else "-")
                rows.append(row)
            L.append(md_table(["size", "T", "config"] + [f"{n} median (min..max)"
                                                        for n in names] +
                              [f"shoal/{o}" for o in others] +
                              ([f"{n} / floor" for n in names] if has_floor else []), rows))
            if any(v["crashed"] for k, v in d.items() if k[:3] == (metric, unit, base)):
                L.append("\n\\* includes jobs that crashed at finalize")
            if has_floor:
                L.append(f"\nfloor: `{spec.floors[metric]}`, measured in the same job")
            L.append("")
            if (b, metric, unit, base) in plots:
                L.append(f"![{b} {metric}]({plots[(b, metric, unit, base)]})\n")

            # Threading configurations against pes (identical traffic).  Rates
            # have the project's targets; for times the ratio is pes / config,
            # so that above 1 means faster in both cases.
            rrows = []
            for n in names:
                for size, t in sorted({(k[5], k[3]) for k in ks}):
                    g = {c: d.get((metric, unit, base, t, c, size, n)) for c in CONFIGS}
                    if not g["pes"] or not g["pes"]["med"]:
                        continue
                    row = [n, fsize(size), t]
                    for c, target in (("ctx", TARGET_CTX), ("default", TARGET_DEFAULT)):
                        if not g[c] or not g[c]["med"]:
                            row.append("-")
                        elif lower:
                            row.append(f"{g['pes']['med'] / g[c]['med']:.3f}")
                        else:
                            r = g[c]["med"] / g["pes"]["med"]
                            row.append(f"{r:.3f} {verdict(r >= target)}")
                            tk = (n, f"{c}/pes message rate >= {target}")
                            tally.setdefault(tk, [0, 0])[0 if r >= target else 1] += 1
                    if row[3:] != ["-", "-"]:
                        rrows.append(row)
            if rrows:
                if lower:
                    L.append(f"Threading configurations, {metric}: speed relative to pes "
                             "(pes time / config time; no target)\n")
                    hdr = ["pes/ctx", "pes/default"]
                else:
                    L.append(f"Threading configurations, {metric}: ctx/pes (target >= "
                             f"{TARGET_CTX}) and default/pes (target >= {TARGET_DEFAULT})\n")
                    hdr = ["ctx/pes", "default/pes"]
                L.append(md_table(["impl", "size", "T"] + hdr, rrows))
                L.append("")

            if metric in spec.floor_targets:
                frows = []
                for k in ks:
                    if k[5] != 8:
                        continue
                    f = floor_of(d, b, metric, unit, base, k[3], k[4], 8, k[6])
                    if not f or not f["med"]:
                        continue
                    r = d[k]["med"] / f["med"]
                    frows.append([k[6], k[3], k[4], fnum(d[k]["med"]), fnum(f["med"]),
                                  f"{r:.2f} {verdict(r <= TARGET_FLOOR)}"])
                    tk = (k[6], f"8-byte {metric} / floor <= {TARGET_FLOOR}")
                    tally.setdefault(tk, [0, 0])[0 if r <= TARGET_FLOOR else 1] += 1
                if frows:
                    L.append(f"8-byte {metric} against the floor ({spec.floors[metric]}, same "
                             f"run; target <= {TARGET_FLOOR}x)\n")
                    L.append(md_table(["impl", "T", "config", metric, "floor", "ratio"],
                                      sorted(frows, key=lambda r: names.index(r[0])
                                             if r[0] in names else 99)))
                    L.append("")

    mt_bcast_target(agg.get("mt_bcast", {}), L, tally)

    summ = ["## Targets\n"]
    if tally:
        summ.append(md_table(["impl", "target", "met", "NOT met"],
                             [[k[0], k[1], v[0], v[1]] for k, v in sorted(tally.items())]))
    else:
        summ.append("No figure of this run has a target (needs rate benchmarks with the pes "
                    "configuration, or a latency with its floor).")
    if plot_note:
        summ.append(f"\nPlots: none, {plot_note}.")
    summ.append("")
    L[summary_at:summary_at] = summ
    (outdir / "report.md").write_text("\n".join(L) + "\n")


def cpu_model():
    try:
        for ln in open("/proc/cpuinfo"):
            if ln.startswith("model name"):
                return ln.split(":", 1)[1].strip()
    except OSError:
        pass
    return "CPU unknown"


def write_csvs(jobs, outdir):
    cdir = outdir / "csv"
    cdir.mkdir(exist_ok=True)
    by_bench = {}
    for j in jobs:
        for r in j.rows:
            by_bench.setdefault(j.bench, []).append(
                {"impl": j.impl.name, "round": j.rnd, "status": j.status,
                 "launched_pes": j.npes, **{k: r.get(k, "") for k in CSV_FIELDS}})
    for b, rows in by_bench.items():
        with open(cdir / f"{b}.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["impl", "round", "status", "launched_pes"]
                               + CSV_FIELDS)
            w.writeheader()
            w.writerows(rows)
    with open(outdir / "jobs.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["job", "round", "benchmark", "impl", "config", "threads", "pes",
                    "launched_pes", "status", "why", "exit", "seconds", "rows", "command_log"])
        for j in jobs:
            w.writerow([j.index, j.rnd, j.bench, j.impl.name, j.config or "-", j.threads or "-",
                        j.base_pes, j.npes, j.status, j.why, j.rc, f"{j.seconds:.2f}",
                        len(j.rows), j.log])


def fmt_eta(s):
    s = int(round(s))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else \
        f"{s // 60}:{s % 60:02d}"


def main():
    ap = argparse.ArgumentParser(
        description="Build and run Shoal's benchmark suite against any OpenSHMEM "
                    "implementations; write CSV, report.md and plots.",
        epilog="Example: bench/run_suite.py --impl openmpi --rounds 3 --out /tmp/suite")
    ap.add_argument("--smoke", action="store_true",
                    help="each benchmark's --smoke, 1 round, T = 1 and 2 (seconds)")
    ap.add_argument("--impl", action="append", default=[], metavar="NAME=OSHCC,OSHRUN[,ARGS]",
                    help="another implementation (repeatable); 'openmpi' = Debian's Open MPI, "
                         "'ofi' = Shoal over libfabric tcp;ofi_rxm, each PE a pretend node")
    ap.add_argument("--shoal-build", default=str(ROOT / "build"),
                    help="Shoal build directory (built with cmake if bin/oshcc is missing; "
                         "default: %(default)s)")
    ap.add_argument("--bench", default="", help="comma-separated benchmarks (default: all "
                                                "bench/*.c)")
    ap.add_argument("--config", default="",
                    help="comma-separated configurations to run (default: all each accepts)")
    ap.add_argument("--threads", default="1,2", help="thread counts T (default 1,2)")
    ap.add_argument("--pes", default="2", help="PEs of the multi-threaded layout (default 2; "
                                               "the pes configuration runs T times as many)")
    ap.add_argument("--rounds", type=int, default=0, help="rounds (default 3; smoke 1)")
    ap.add_argument("--timeout", type=int, default=0,
                    help="per-job timeout in seconds (default 600; smoke 60)")
    ap.add_argument("--out", default="",
                    help="output directory (default: <shoal-build>/suite/<date-time>)")
    ap.add_argument("--require-plots", action="store_true",
                    help="fail (exit 2) if matplotlib is missing")
    ap.add_argument("--load", type=int, default=0, metavar="N",
                    help="run N busy-looping processes beside the jobs (default 0); they are "
                         "stopped after the last job and end by themselves if the driver is "
                         "killed")
    ap.add_argument("--network", action="store_true",
                    help="the network path on this machine: Shoal with every other PE "
                         "through UCX tcp (each PE a pretend node); --impl openmpi with its ucx "
                         "pml and spml over tcp,self (with --pes 2,4)")
    ap.add_argument("--dry-run", action="store_true", help="print the jobs and stop")
    args = ap.parse_args()

    args.threads = csv_ints(args.threads, "--threads")
    args.pes = csv_ints(args.pes, "--pes")
    args.rounds = args.rounds or (1 if args.smoke else 3)
    args.timeout = args.timeout or (60 if args.smoke else 600)
    args.config = [c for c in args.config.split(",") if c]
    for c in args.config:
        if c not in CONFIGS + (REQ,):
            fail(f"--config: unknown configuration '{c}' ({', '.join(CONFIGS + (REQ,))})")
    if args.rounds < 1:
        fail("--rounds must be >= 1")
    if args.load < 0:
        fail("--load must be >= 0")
    if args.require_plots:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            fail(f"matplotlib is missing for {sys.executable}: run scripts/install-deps.sh "
                 "(or: python3 -m pip install matplotlib)")

    sources = sorted(p.stem for p in BENCH_DIR.glob("*.c"))
    if args.bench:
        benches = [b for b in args.bench.split(",") if b]
        for b in benches:
            if b not in sources:
                fail(f"--bench: no bench/{b}.c (have: {', '.join(sources)})")
    else:
        benches = sources
    benches.sort(key=lambda x: list(SUITE).index(x) if x in SUITE else 99)
    check_shoal_only(benches)

    shoal_build = Path(args.shoal_build).resolve()
    impls = [Impl("shoal", str(shoal_build / "bin" / "oshcc"),
                  str(shoal_build / "bin" / "oshrun"),
                  list(SHOAL_NETWORK_ARGS) if args.network else [],
                  why=[(SHOAL_NETWORK_ARGS, "--network: every other PE through UCX tcp, each "
                        "PE a pretend node")] if args.network else [], is_shoal=True)]
    max_pes = max(args.pes) * max(args.threads)
    for spec in args.impl:
        impl = parse_impl(spec, max_pes, args.network, shoal_build)
        if impl.name in [i.name for i in impls]:
            fail(f"--impl {impl.name} given twice")
        impls.append(impl)
    for i in impls[1:]:
        for tool in (i.oshcc, i.oshrun):
            if not shutil.which(tool):
                fail(f"--impl {i.name}: {tool} not found")

    started = datetime.datetime.now()
    outdir = Path(args.out or shoal_build / "suite" / f"{started:%Y%m%d-%H%M%S}").resolve()

    if args.dry_run:
        built = {(i.name, b): Path(b) for i in impls for b in benches}
        for j in plan_jobs(args, impls, benches, built, outdir):
            print(f"{j.index:4d} r{j.rnd} {j.label()}: "
                  f"{shlex.join([j.impl.oshrun, *j.impl.run_args, *impl_run_args(j.impl, SUITE.get(j.bench, UNLISTED)), '-np', str(j.npes), j.bench, *j.args])}")
        return 0

    ensure_shoal(shoal_build)
    for d in ("logs", "jobs"):
        (outdir / d).mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()[0]
    for i in impls:
        i.version = impl_version(i)

    t0 = time.monotonic()
    built = build_all(impls, benches, outdir, os.cpu_count() or 1)
    print(f"run_suite: built {len(benches)} benchmark(s) x {len(impls)} implementation(s) in "
          f"{time.monotonic() - t0:.1f} s", file=sys.stderr)
    for i in impls:
        probe_finalize(i, built.get((i.name, "finalize_probe")), outdir,
                       min(args.timeout, 60))
        if not i.probe_ok:
            print(f"run_suite: note: {i.name}: init+finalize alone {i.probe}", file=sys.stderr)

    jobs = plan_jobs(args, impls, benches, built, outdir)
    n = len(jobs)
    took = {}
    runnable = [j for j in jobs if j.status == "pending"]
    for j in jobs:
        if j.status == "FAILED":
            print(f"[{j.index:{len(str(n))}d}/{n}] r{j.rnd} {j.label()} -> not built",
                  file=sys.stderr)
    # The load's deadline: every job at its timeout, with room to spare; it
    # is a backstop, the driver stops the load itself.
    load_procs = Load(args.load, len(runnable) * (args.timeout + 15) + 120, outdir)

    def on_term(signum, frame):
        raise SystemExit(128 + signum)

    old_term = signal.signal(signal.SIGTERM, on_term)
    try:
        if args.load:
            load_procs.start()
        for k, j in enumerate(runnable):
            j.outdir = outdir
            rest = runnable[k:]
            mean = statistics.mean(x for v in took.values() for x in v) if took else 0.0
            eta = sum(statistics.mean(took[(r.key(), r.impl.name)])
                      if (r.key(), r.impl.name) in took else mean for r in rest)
            print(f"[{j.index:{len(str(n))}d}/{n}] r{j.rnd} {j.label()}"
                  + (f"  (ETA {fmt_eta(eta)})" if took else ""), end="", file=sys.stderr,
                  flush=True)
            run_job(j, built[(j.impl.name, j.bench)], outdir, args.timeout)
            took.setdefault((j.key(), j.impl.name), []).append(j.seconds)
            state = "timed out" if j.timed_out else f"exit {j.rc}"
            print(f" -> {state}, {j.seconds:.1f} s" + (f", {len(j.rows)} rows" if j.rows else ""),
                  file=sys.stderr)
    finally:
        load_procs.stop()
        signal.signal(signal.SIGTERM, old_term)
    for j in jobs:
        j.outdir = outdir
    classify(jobs)

    write_csvs(jobs, outdir)
    agg = aggregate(jobs)
    plots, plot_note = make_plots(agg, impls, outdir, args.smoke)
    if plots is None:
        plots = {}
        print(f"run_suite: WARNING: no plots: {plot_note}", file=sys.stderr)
    write_report(args, impls, jobs, agg, plots, plot_note, outdir, started, load)

    failed = [j for j in jobs if j.status == "FAILED"]
    crashed = [j for j in jobs if j.status == "crashed at finalize"]
    print(f"run_suite: {n} jobs: {n - len(failed) - len(crashed)} ok, {len(crashed)} crashed "
          f"at finalize, {len(failed)} FAILED; {time.monotonic() - t0:.1f} s", file=sys.stderr)
    for j in crashed:
        print(f"run_suite: crashed at finalize: r{j.rnd} {j.label()}: {j.why}", file=sys.stderr)
    for j in failed:
        print(f"run_suite: FAILED: r{j.rnd} {j.label()}: {j.why} (log: "
              f"{outdir / j.log})", file=sys.stderr)
    print(f"run_suite: report: {outdir / 'report.md'}", file=sys.stderr)
    shoal_crash = any(j.impl.is_shoal for j in crashed)
    if shoal_crash:
        print("run_suite: Shoal jobs crashed at finalize: counted as failure", file=sys.stderr)
    return 1 if failed or shoal_crash else 0


if __name__ == "__main__":
    sys.exit(main())
