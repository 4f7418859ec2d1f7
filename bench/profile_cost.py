#!/usr/bin/env python3
"""What SHOAL_PROFILE costs: pingpong, latency8 and mt_rate of a baseline
build against this build, profile off and on, in interleaved rounds.

    bench/profile_cost.py --base BUILD_BASE --new build [--rounds 15]

Each round runs every benchmark once in each configuration, in a rotated
order:
  base      the baseline build (e.g. the commit before the profile)
  base2     the same binaries again: the spread of base/base2 is the noise
  off       this build, SHOAL_PROFILE unset
  on        this build, SHOAL_PROFILE=1 (files in a scratch directory)
  base_on   (--base-on) the baseline build with SHOAL_PROFILE=1: the cost
            of an earlier profile against this one's
and takes one figure per benchmark and run (the benchmark's own median
over its rounds).  Prints, per figure, the median and min..max over
rounds of each configuration, and the ratio of medians to base (latency:
time / base; rate: base / rate, so above 1 is slower either way).

On a shared machine, --max-running N makes each run wait until at most N
processes are runnable (/proc/stat's procs_running, this script's own
included, sampled over 0.2 s) before it starts, so that the rounds fall
into the machine's quiet moments.  --env VAR=VALUE (repeatable) adds to
every run's environment: SHOAL_TRANSPORTS=ucx measures the network path
(with --only latency8,mt_rate: pingpong needs shmem_ptr, on-node only).
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

# figure: (benchmark, arguments, regex of the value, unit, higher is better)
FIGURES = {
    'pingpong put 8 B (ns)': ('pingpong', ['-r', '5'],
                              r'put latency \(8 B, half RTT\)\s+([\d.]+) ns', False),
    'latency8 put (us)': ('latency8', ['-r', '5'], r'^put\s+([\d.]+)', False),
    'latency8 get (us)': ('latency8', ['-r', '5'], r'^get\s+([\d.]+)', False),
    'latency8 fadd (us)': ('latency8', ['-r', '5'], r'^fadd\s+([\d.]+)', False),
    'mt_rate putmem_nbi 8 B (Mmsg/s)': ('mt_rate', ['-s', '8', '-r', '5', '--ops', 'put,bput,add,fadd'],
                                        r'^putmem\s+8 B\s+\d+\s+([\d.]+)', True),
    'mt_rate putmem 8 B (Mmsg/s)': ('mt_rate', None, r'^putmem_blk\s+8 B\s+\d+\s+([\d.]+)', True),
    'mt_rate atomic_add (Mmsg/s)': ('mt_rate', None, r'^atomic_add\s+8 B\s+\d+\s+([\d.]+)', True),
    'mt_rate fetch_add (Mmsg/s)': ('mt_rate', None, r'^fetch_add\s+8 B\s+\d+\s+([\d.]+)', True),
}
CONFIGS = ['base', 'base2', 'off', 'on']


def benches():
    out = {}
    for name, (b, args, _, _) in FIGURES.items():
        if args is not None:
            out[b] = args
    return out


def select(only):
    """Keeps the figures of the benchmarks named in `only` (comma list)."""
    if only:
        keep = only.split(',')
        for name in [n for n, f in FIGURES.items() if f[0] not in keep]:
            del FIGURES[name]


def running():
    with open('/proc/stat') as f:
        for line in f:
            if line.startswith('procs_running'):
                return int(line.split()[1])
    return 0


def wait_quiet(limit):
    """Until `limit` or fewer processes are runnable, 5 looks in a row."""
    calm = 0
    while limit and calm < 5:
        calm = calm + 1 if running() <= limit else 0
        time.sleep(0.04)


def run(build, bench, args, env, limit):
    wait_quiet(limit)
    cmd = [os.path.join(build, 'bin', 'oshrun'), '-n', '2', os.path.join(build, 'bench', bench)]
    p = subprocess.run(cmd + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True, timeout=300)
    if p.returncode != 0:
        sys.exit('profile_cost: %s failed (%d)' % (' '.join(cmd), p.returncode))
    return p.stdout


def one_round(a, k, scratch, samples):
    order = CONFIGS[k % len(CONFIGS):] + CONFIGS[:k % len(CONFIGS)]
    for cfg in order:
        env = dict(os.environ, **dict(e.split('=', 1) for e in a.env))
        env.pop('SHOAL_PROFILE', None)
        if cfg in ('on', 'base_on'):
            env['SHOAL_PROFILE'] = os.path.join(scratch, 'p.json')
        build = a.base if cfg.startswith('base') else a.new
        for bench, args in benches().items():
            text = run(build, bench, args, env, a.max_running)
            for name, (b, _, rx, _) in FIGURES.items():
                if b != bench:
                    continue
                m = re.search(rx, text, re.M)
                if not m:
                    sys.exit('profile_cost: no "%s" in the output of %s' % (name, bench))
                samples[name][cfg].append(float(m.group(1)))


def report(samples):
    print('%-34s %-7s %10s %22s %8s' % ('figure', 'config', 'median', 'min..max', 'vs base'))
    for name, by_cfg in samples.items():
        higher = FIGURES[name][3]
        base = statistics.median(by_cfg['base'])
        for cfg in CONFIGS:
            v = by_cfg[cfg]
            med = statistics.median(v)
            ratio = base / med if higher else med / base
            print('%-34s %-7s %10.4g %10.4g..%-10.4g %8.3f' % (name, cfg, med, min(v), max(v),
                                                               ratio))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--base', required=True, help='the baseline build directory')
    ap.add_argument('--new', required=True, help='this build directory')
    ap.add_argument('--rounds', type=int, default=15)
    ap.add_argument('--only', metavar='LIST', help='these benchmarks only (comma list)')
    ap.add_argument('--env', action='append', default=[], metavar='VAR=VALUE',
                    help='add to every run\'s environment (repeatable)')
    ap.add_argument('--max-running', type=int, default=0,
                    help='start a run only when at most this many processes are runnable')
    ap.add_argument('--base-on', action='store_true',
                    help='also the baseline with the profile on (config base_on)')
    a = ap.parse_args()
    if a.base_on:
        CONFIGS.append('base_on')
    select(a.only)
    samples = {name: {c: [] for c in CONFIGS} for name in FIGURES}
    with tempfile.TemporaryDirectory() as scratch:
        for k in range(a.rounds):
            one_round(a, k, scratch, samples)
            print('round %d of %d done' % (k + 1, a.rounds), file=sys.stderr)
    report(samples)


if __name__ == '__main__':
    main()
