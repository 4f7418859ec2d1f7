#!/usr/bin/env python3
"""Runs tests/profile/traffic.c under SHOAL_PROFILE and checks the profile
against the traffic the program makes, exactly.

    check_profile.py --oshrun OSHRUN --exe TRAFFIC --work DIR -n N
                     [--mode T|fatal|exit] [--route on-node|network|split]
                     [--tool shoal-prof] [--mpirun "MPIRUN ARGS"]

--route says how PEs reach each other in this run (the environment ctest
gives the job: nothing, SHOAL_TRANSPORTS=ucx, SHOAL_SPLIT_NODES=2).
--mode T: T threads; the job ends in shmem_finalize and PE 0 writes the
profile (checked: the JSON, the CSV matrices, the table on stderr).
--mode fatal|exit: PE n-1 fails after the traffic; every PE must leave its
partial file with what it did until then.  --tool: also draws the
pictures from the profile and checks them (sizes; the heat map's non-white
cells are exactly the pairs that had traffic).  --mpirun: start the job
with that command (and -np N: the PMIx bootstrap) instead of oshrun.
"""

import argparse
import csv
import glob
import json
import os
import re
import shutil
import subprocess
import sys

# One thread's pattern (traffic.c): family -> (operations, bytes) to the next PE.
PER_THREAD = {
    'put': (5, 3 * 100 + 2 * 8), 'get': (2, 64 + 8), 'put_nbi': (5, 80), 'get_nbi': (2, 16),
    'iput': (1, 16), 'amo_fetch': (4, 32), 'amo': (3, 24), 'amo_nbi': (1, 8),
    'put_signal': (1, 32), 'signal': (2, 16), 'put_nbe': (1, 40), 'am_send': (2, 48),
}
PER_THREAD_CALLS = {'quiet': 2, 'fence': 1, 'wait': 1, 'test': 2, 'request_wait': 1,
                    'am_quiet': 1}
SLOTS_BYTES = 4 * 624  # shmem_malloc(sizeof(struct slots) * MAX_THREADS)
# The main thread's calls: family -> (calls, bytes).
MAIN = {'barrier': (2, 0), 'sync': (1, 0), 'broadcast': (1, 16), 'reduce': (1, 16),
        'fcollect': (1, 8), 'alltoall': (1, 8), 'lock': (2, 0), 'ctx': (2, 0), 'team': (2, 0),
        'alloc': (2, SLOTS_BYTES)}
# Before PE n-1 fails (modes fatal, exit): the pattern once, two barriers,
# then every other PE adds 1 to a word of PE n-1 (an amo), which PE n-1
# waits for (a wait) before it fails.
FAILING = {'barrier': (2, 0), 'alloc': (1, SLOTS_BYTES)}
# That add is counted when it returns, where it is timed (through the
# network: the slow twin counts after the call); its answer reaches PE n-1
# first, and over libfabric's tcp;ofi_rxm PE n-1 failed, and the launcher
# ended the others, before they counted it (profile.ofi_exit: once in a
# -j2 run of the OFI tests, once in 30 runs beside two busy loops).  There
# the add may be missing from their files.
ANNOUNCE = (1, 8)
AMO_CLASS = {'amo_fetch', 'amo', 'amo_nbi', 'amo_nbe', 'signal'}
UNTIMED_ON_NODE = set(PER_THREAD) - {'am_send', 'am_send_nbe'}

errors = []


def check(cond, what):
    if not cond:
        errors.append(what)
    return cond


def run(a):
    if os.path.isdir(a.work):
        shutil.rmtree(a.work)
    os.makedirs(a.work)
    env = dict(os.environ, SHOAL_PROFILE=os.path.join(a.work, 'prof.json'))
    cmd = [a.oshrun, '-n', str(a.n), a.exe, a.mode]
    if a.mpirun:
        cmd = a.mpirun.split() + ['-np', str(a.n), a.exe, a.mode]
    p = subprocess.run(cmd, cwd=a.work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=240)
    sys.stderr.write(p.stderr)
    return p


def route_of(a, src, dst, family, pe):
    if a.route == 'network':
        return 'network'
    if family in AMO_CLASS and pe['atomics'] == 'network':
        return 'network'
    if a.route == 'split':
        return 'on-node' if src * 2 // a.n == dst * 2 // a.n else 'network'
    return 'on-node'


def expected_pairs(a, prof, threads):
    pes = {p['pe']: p for p in prof['pes']}
    want = {}
    for src in pes:
        dst = (src + 1) % a.n
        for fam, (ops, nbytes) in PER_THREAD.items():
            want[(src, dst, fam)] = (ops * threads, nbytes * threads,
                                     route_of(a, src, dst, fam, pes[src]))
        if a.mode in ('fatal', 'exit') and src != a.n - 1:
            k = (src, a.n - 1, 'amo')
            ops, nbytes, _ = want.get(k, (0, 0, None))
            want[k] = (ops + 1, nbytes + 8, route_of(a, src, a.n - 1, 'amo', pes[src]))
    return want


def announce_pending(a, src, pe):
    """May PE src's file lack its add on PE n-1 (ANNOUNCE)?"""
    return (a.mode in ('fatal', 'exit') and src != a.n - 1
            and route_of(a, src, a.n - 1, 'amo', pe) == 'network')


def without_announce(want):
    """`want` (ops, bytes[, route]) less the add, None where nothing is left."""
    if want is None or want[0] == ANNOUNCE[0]:
        return None
    return (want[0] - ANNOUNCE[0], want[1] - ANNOUNCE[1]) + tuple(want[2:])


def check_pairs(a, prof, threads):
    want = expected_pairs(a, prof, threads)
    pes = {p['pe']: p for p in prof['pes']}
    got = {(q['src'], q['dst'], q['family']): (q['ops'], q['bytes'], q['route'])
           for q in prof['pairs']}
    check(len(got) == len(prof['pairs']), 'a (src, dst, family) pair listed twice')
    for k in sorted(set(want) | set(got)):
        src, dst, fam = k
        pending = (dst, fam) == (a.n - 1, 'amo') and announce_pending(a, src, pes[src])
        ok = want.get(k) == got.get(k) or (pending and without_announce(want.get(k)) == got.get(k))
        check(ok, 'pair %s: expected %s, got %s' % (k, want.get(k), got.get(k)))


def check_calls(a, pe, calls, threads):
    """Every family of one PE: calls and bytes, exactly."""
    want = {f: (o * threads, b * threads) for f, (o, b) in PER_THREAD.items()}
    want.update({f: (c * threads, 0) for f, c in PER_THREAD_CALLS.items()})
    want.update(calls)
    if a.mode in ('fatal', 'exit'):
        if pe['pe'] == a.n - 1:
            want['wait'] = (want['wait'][0] + 1, 0)
        else:
            want['amo'] = (want['amo'][0] + 1, want['amo'][1] + 8)
    got = {f: (v['calls'], v['bytes']) for f, v in pe['families'].items()}
    for f in sorted(set(want) | set(got)):
        pending = f == 'amo' and announce_pending(a, pe['pe'], pe)
        ok = want.get(f) == got.get(f) or (pending and without_announce(want.get(f)) == got.get(f))
        check(ok, 'PE %d family %s: expected (calls, bytes) %s, got %s'
              % (pe['pe'], f, want.get(f), got.get(f)))


def check_times(a, pe, prof):
    fams = pe['families']
    check(pe['wall_ns'] > 0, 'PE %d: wall_ns is 0' % pe['pe'])
    check(fams['barrier']['time_ns'] > 0, 'PE %d: no time in barrier' % pe['pe'])
    check(fams['am_send']['time_ns'] > 0, 'PE %d: no time in am_send' % pe['pe'])
    check(pe['shoal_ns'] == sum(v['time_ns'] for v in fams.values()),
          'PE %d: shoal_ns is not the sum of its families' % pe['pe'])
    dst = (pe['pe'] + 1) % a.n
    for f in UNTIMED_ON_NODE:
        on_node = route_of(a, pe['pe'], dst, f, pe) == 'on-node'
        check((fams[f]['time_ns'] == 0) == on_node,
              'PE %d: %s to PE %d (%s) has time %d ns: timed exactly when through the network'
              % (pe['pe'], f, dst, 'on-node' if on_node else 'network', fams[f]['time_ns']))
    if a.route == 'on-node':
        for f in ('test', 'quiet', 'fence'):
            check(fams[f]['time_ns'] == 0, 'PE %d: %s timed without a network' % (pe['pe'], f))
    if a.route == 'network':
        for f in ('test', 'quiet', 'fence'):
            check(fams[f]['time_ns'] > 0, 'PE %d: %s not timed over the network' % (pe['pe'], f))


def check_csv(a, prof):
    for metric in ('ops', 'bytes'):
        path = os.path.join(a.work, 'prof.%s.csv' % metric)
        if not check(os.path.exists(path), 'no %s' % path):
            continue
        with open(path) as f:
            rows = list(csv.reader(f))
        check(rows[0][1:] == [str(d) for d in range(a.n)], '%s: header %s' % (path, rows[0]))
        m = [[0] * a.n for _ in range(a.n)]
        for q in prof['pairs']:
            m[q['src']][q['dst']] += q[metric]
        got = [[int(v) for v in r[1:]] for r in rows[1:]]
        check(got == m, '%s: %s, the JSON pairs sum to %s' % (path, got, m))


def check_complete(a, p):
    check(p.returncode == 0, 'the job failed (status %d)' % p.returncode)
    threads = int(a.mode)
    path = os.path.join(a.work, 'prof.json')
    if not check(os.path.exists(path), 'no profile written (%s)' % path):
        return None
    with open(path) as f:
        prof = json.load(f)
    check(prof['format'] == 'shoal-profile' and prof['complete'] is True, 'not a complete profile')
    check(prof['npes'] == a.n and [q['pe'] for q in prof['pes']] == list(range(a.n)),
          'PEs %s' % [q['pe'] for q in prof['pes']])
    for pe in prof['pes']:
        check(pe['threads'] == threads, 'PE %d: %d threads' % (pe['pe'], pe['threads']))
        check_calls(a, pe, MAIN, threads)
        check_times(a, pe, prof)
    check_pairs(a, prof, threads)
    check_csv(a, prof)
    check('shoal: profile of %d PE' % a.n in p.stderr, 'no table on stderr')
    check(p.stderr.count('shoal: profile of') == 1, 'the table printed more than once')
    check('busiest pairs: 0->%d ' % (1 % a.n) in p.stderr, 'the busiest pair is not in the table')
    return prof


def check_partial(a, p):
    check(p.returncode != 0, 'the job did not fail')
    files = sorted(glob.glob(os.path.join(a.work, 'prof.pe*.json')))
    check(not os.path.exists(os.path.join(a.work, 'prof.json')), 'a complete profile was written')
    check(len(files) == a.n, 'partial files %s, expected one per PE' % files)
    merged = {'npes': a.n, 'pes': [], 'pairs': []}
    for path in files:
        with open(path) as f:
            prof = json.load(f)
        check(prof['complete'] is False and prof['npes'] == a.n, '%s: not partial' % path)
        pe = prof['pes'][0]
        # The others: ended by the launcher's SIGTERM, or (having seen the
        # failed PE's word while they waited for it) before it came.
        want = ('shmem_global_exit' if a.mode == 'exit' else 'fatal error in shmem_long_p') \
            if pe['pe'] == a.n - 1 else 'terminated by SIGTERM|PE %d failed' % (a.n - 1)
        check(re.fullmatch(want, prof['reason']) is not None,
              '%s: reason %r, expected %r' % (path, prof['reason'], want))
        check_calls(a, pe, FAILING, 1)
        merged['pes'].append(pe)
        merged['pairs'] += prof['pairs']
    check_pairs(a, merged, 1)
    return files


def check_pictures(a, inputs):
    import matplotlib
    matplotlib.use('Agg')
    from matplotlib.image import imread
    data_path = os.path.join(a.work, 'pictures.json')
    p = subprocess.run([sys.executable, a.tool, '-o', os.path.join(a.work, 'pics'), '--prefix',
                        'p', '--data', data_path] + inputs, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=240)
    sys.stderr.write(p.stdout + p.stderr)
    if not check(p.returncode == 0, 'shoal-prof failed'):
        return
    with open(data_path) as f:
        data = json.load(f)
    for name, pic in data['pictures'].items():
        img = imread(pic['file'])
        w, h = pic['size_px']
        check(img.shape[:2] == (h, w), '%s: %s, the tool says %dx%d' % (name, img.shape, w, h))
    check(tuple(data['pictures']['matrix']['size_px']) == (700, 600), 'matrix picture size')
    pes = {'pes': [{'pe': p, 'atomics': 'cpu'} for p in range(a.n)]}  # (routes unused)
    want = sorted({(s, d) for s, d, _ in expected_pairs(a, pes, 1)})
    want = [list(c) for c in want]
    check(sorted(data['nonzero_cells']) == want,
          'cells with traffic %s, expected %s' % (data['nonzero_cells'], want))
    img = imread(data['pictures']['matrix']['file'])
    for s in range(a.n):
        for d in range(a.n):
            x, y = data['pictures']['matrix']['cell_px']['%d,%d' % (s, d)]
            rgb = img[int(round(y)), int(round(x))][:3]
            white = all(c > 0.99 for c in rgb)
            check(white != ([s, d] in want), 'matrix cell %d->%d at (%d, %d) is %s' %
                  (s, d, x, y, 'white' if white else 'coloured'))
    check(os.path.getsize(os.path.join(a.work, 'pics', 'p.html')) > 1000, 'no HTML page')
    stacks = data['pictures']['families']['stacks']
    for i, pe in enumerate(data['pes']):
        height = sum(t[i] for t in stacks.values())
        check(abs(height - data['shoal_s'][i]) <= 1e-9 * max(1, len(stacks)),
              'PE %d: the bars stack to %g s, its time in Shoal is %g s' %
              (pe, height, data['shoal_s'][i]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--oshrun', required=True)
    ap.add_argument('--exe', required=True)
    ap.add_argument('--work', required=True)
    ap.add_argument('-n', type=int, required=True)
    ap.add_argument('--mode', default='1')
    ap.add_argument('--route', choices=('on-node', 'network', 'split'), default='on-node')
    ap.add_argument('--tool')
    ap.add_argument('--mpirun')
    a = ap.parse_args()
    a.oshrun, a.exe, a.work = (os.path.abspath(x) for x in (a.oshrun, a.exe, a.work))
    p = run(a)
    if a.mode in ('fatal', 'exit'):
        inputs = check_partial(a, p)
    else:
        check_complete(a, p)
        inputs = [os.path.join(a.work, 'prof.json')]
    if a.tool and not errors:
        check_pictures(a, inputs)
    for e in errors:
        print('FAIL: ' + e)
    print('%s: %d PEs, mode %s, route %s: %s' % (os.path.basename(a.exe), a.n, a.mode, a.route,
                                                'FAILED' if errors else 'ok'))
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
