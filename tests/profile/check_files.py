#!/usr/bin/env python3
"""Where SHOAL_PROFILE's files go and what reads them (docs/profiling.md,
"The files"): runs tests/profile/traffic.c under oshrun and checks one case.

    check_files.py --oshrun OSHRUN --exe TRAFFIC --tool SHOAL-PROF --work DIR -n N
                   --case unwritable|dir|dir_slash|jobs|bad_json

unwritable  SHOAL_PROFILE names a file in a directory that does not exist,
            or under a regular file: PE 0 warns, naming the file and the
            reason, and no line says that files were written.
dir         SHOAL_PROFILE names an existing directory (dir_slash: with a
            trailing slash): the files are inside it, shoal-profile.json,
            .ops.csv and .bytes.csv; nothing beside it, nothing hidden.
jobs        two jobs that go down (PE n-1 fails) write their per-PE files
            under one name; one file of the first job is left among the
            second's: every file names its job, and shoal-prof merges the
            newest job's files, leaving the other out with a line.
bad_json    shoal-prof given a JSON that is not a Shoal profile (an array,
            an object without its keys, a file cut short, records with a key
            missing or of the wrong type): one line that says so, a non-zero
            status, never a traceback.
"""

import argparse
import copy
import glob
import json
import os
import re
import shutil
import subprocess
import sys

errors = []


def check(cond, what):
    if not cond:
        errors.append(what)
    return cond


def run_job(a, profile, mode='1', cwd=None):
    env = dict(os.environ, SHOAL_PROFILE=profile)
    p = subprocess.run([a.oshrun, '-n', str(a.n), a.exe, mode], cwd=cwd or a.work, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=240)
    sys.stderr.write(p.stderr)
    return p


def run_tool(a, args):
    p = subprocess.run([sys.executable, a.tool] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=240)
    return p


def listing(d):
    return sorted(os.listdir(d))


# ----------------------------------------------------------------- cases

def case_unwritable(a):
    plain = os.path.join(a.work, 'plain')
    with open(plain, 'w') as f:
        f.write('a regular file\n')
    for target, reason in ((os.path.join(a.work, 'missing', 'prof.json'),
                            'No such file or directory'),
                           (os.path.join(plain, 'prof.json'), 'Not a directory')):
        before = listing(a.work)
        p = run_job(a, target)
        check(p.returncode == 0, '%s: the job failed (%d)' % (target, p.returncode))
        warned = [line for line in p.stderr.splitlines()
                  if 'SHOAL_PROFILE' in line and target in line and reason in line]
        check(warned, '%s: no warning naming the file and "%s"' % (target, reason))
        claims = [line for line in p.stderr.splitlines()
                  if re.match(r'shoal: profile: ', line) and 'no file written' not in line]
        check(not claims, '%s: a line claims files were written: %s' % (target, claims))
        check('shoal: profile of %d PE' % a.n in p.stderr, '%s: no table on stderr' % target)
        check(listing(a.work) == before, '%s: files appeared: %s' % (target, listing(a.work)))


def case_dir(a, slash):
    d = os.path.join(a.work, 'out')
    os.makedirs(d)
    p = run_job(a, d + ('/' if slash else ''))
    check(p.returncode == 0, 'the job failed (%d)' % p.returncode)
    want = ['shoal-profile.bytes.csv', 'shoal-profile.json', 'shoal-profile.ops.csv']
    check(listing(d) == want, 'in %s: %s, expected %s' % (d, listing(d), want))
    check(listing(a.work) == ['out'], 'beside %s: %s' % (d, listing(a.work)))
    path = os.path.join(d, 'shoal-profile.json')
    if os.path.exists(path):
        with open(path) as f:
            prof = json.load(f)
        check(prof['complete'] is True and prof['npes'] == a.n, 'not a complete profile')
    check(path in p.stderr, 'the closing line does not name %s' % path)


def partial_job(a, name):
    p = run_job(a, os.path.join(a.work, name), mode='fatal')
    check(p.returncode != 0, 'the job did not fail')
    files = sorted(glob.glob(os.path.join(a.work, name.replace('.json', '.pe*.json'))))
    check(len(files) == a.n, 'partial files %s, expected %d' % (files, a.n))
    jobs = set()
    for path in files:
        with open(path) as f:
            jobs.add(json.load(f).get('job'))
    check(len(jobs) == 1 and None not in jobs and '' not in jobs,
          'the files of one job name jobs %s' % jobs)
    return files, jobs.pop() if len(jobs) == 1 else None


def case_jobs(a):
    files, first = partial_job(a, 'prof.json')
    stale = os.path.join(a.work, 'stale.json')
    shutil.copy(files[-1], stale)  # PE n-1's file of the first job
    files, second = partial_job(a, 'prof.json')
    check(first != second, 'two jobs share the id %r' % first)
    shutil.copy(stale, files[-1])  # as if PE n-1 of the second job wrote nothing
    os.utime(files[-1], (1e9, 1e9))
    data = os.path.join(a.work, 'pictures.json')
    p = run_tool(a, ['-o', os.path.join(a.work, 'pics'), '--no-html', '--data', data] + files)
    sys.stderr.write(p.stdout + p.stderr)
    if not check(p.returncode == 0, 'shoal-prof failed (%d)' % p.returncode):
        return
    said = [line for line in p.stderr.splitlines() if files[-1] in line and 'left out' in line]
    check(len(said) == 1 and str(first) in said[0] and str(second) in said[0],
          'no line leaving %s (job %s) out of job %s' % (files[-1], first, second))
    with open(data) as f:
        merged = json.load(f)
    check(merged['pes'] == list(range(a.n - 1)), 'merged PEs %s, expected the second job\'s %s'
          % (merged['pes'], list(range(a.n - 1))))
    check(merged['complete'] is False, 'the merge says complete')


def minimal_profile():
    return {
        'format': 'shoal-profile', 'version': 1, 'library': 'Shoal', 'job': 'j1',
        'complete': True, 'npes': 2, 'clock': 'tsc',
        'families': [{'name': 'put', 'class': 'rma', 'group': 'rma'},
                     {'name': 'barrier', 'class': 'call', 'group': 'sync'}],
        'pes': [{'pe': p, 'node': 0, 'host': 'h', 'threads': 1, 'atomics': 'cpu',
                 'wall_ns': 1000, 'shoal_ns': 100,
                 'families': {'put': {'calls': 1, 'bytes': 8, 'time_ns': 0},
                              'barrier': {'calls': 1, 'bytes': 0, 'time_ns': 100}}}
                for p in (0, 1)],
        'pairs': [{'src': 0, 'dst': 1, 'family': 'put', 'route': 'on-node', 'ops': 1,
                   'bytes': 8}],
    }


def mutations(prof):
    """(what, the profile changed): every key of the top level, of a PE
    record, of a family's counts and of a pair, deleted or of another type."""
    def paths(obj, at):
        if isinstance(obj, dict):
            for k, v in obj.items():
                yield at + [k]
                yield from paths(v, at + [k])
        elif isinstance(obj, list) and obj:
            yield from paths(obj[0], at + [0])
    for path in list(paths(prof, [])):
        obj = prof
        for k in path[:-1]:
            obj = obj[k]
        kinds = [('deleted', None), ('a string', 'x')]
        if isinstance(obj[path[-1]], int):
            kinds.append(('negative', -1))
        elif isinstance(obj[path[-1]], str):
            kinds[1] = ('an array', [1])
        for kind, value in kinds:
            p = copy.deepcopy(prof)
            obj = p
            for k in path[:-1]:
                obj = obj[k]
            if kind == 'deleted':
                del obj[path[-1]]
            else:
                obj[path[-1]] = value
            yield '%s %s' % ('.'.join(map(str, path)), kind), p


def case_bad_json(a):
    good = minimal_profile()
    path = os.path.join(a.work, 'p.json')
    with open(path, 'w') as f:
        json.dump(good, f)
    p = run_tool(a, ['-o', os.path.join(a.work, 'pics'), path])
    check(p.returncode == 0, 'the minimal profile is refused: %s' % p.stderr.strip())
    text = json.dumps(good)
    inputs = [('a JSON array', '[1, 2, 3]'), ('an empty object', '{}'),
              ('an object without the keys', '{"format": "shoal-profile"}'),
              ('another format', '{"format": "other", "npes": 2}'),
              ('a cut file', text[:len(text) // 2]), ('an empty file', ''),
              ('a number', '42')]
    refused = 0
    for what, body in inputs + [(w, json.dumps(p)) for w, p in mutations(good)]:
        with open(path, 'w') as f:
            f.write(body)
        p = run_tool(a, ['-o', os.path.join(a.work, 'pics'), '--no-html', path])
        out = p.stdout + p.stderr
        if not check('Traceback' not in out, '%s: a traceback:\n%s' % (what, out)):
            continue
        if p.returncode == 0:
            check((what, body) not in inputs, '%s: accepted' % what)
            continue
        refused += 1
        lines = p.stderr.strip().splitlines()
        check(len(lines) == 1 and lines[0].startswith('shoal-prof: %s: not a Shoal profile'
                                                      % path),
              '%s: not one line that says so: %r' % (what, p.stderr))
    check(refused > len(inputs) + 40, 'only %d inputs refused' % refused)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--oshrun', required=True)
    ap.add_argument('--exe', required=True)
    ap.add_argument('--tool', required=True)
    ap.add_argument('--work', required=True)
    ap.add_argument('-n', type=int, default=2)
    ap.add_argument('--case', required=True,
                    choices=('unwritable', 'dir', 'dir_slash', 'jobs', 'bad_json'))
    a = ap.parse_args()
    a.oshrun, a.exe, a.work, a.tool = (os.path.abspath(x) for x in (a.oshrun, a.exe, a.work,
                                                                      a.tool))
    if os.path.isdir(a.work):
        shutil.rmtree(a.work)
    os.makedirs(a.work)
    {'unwritable': case_unwritable, 'dir': lambda a: case_dir(a, False),
     'dir_slash': lambda a: case_dir(a, True), 'jobs': case_jobs,
     'bad_json': case_bad_json}[a.case](a)
    for e in errors:
        print('FAIL: ' + e)
    print('%s, %d PEs: %s' % (a.case, a.n, 'FAILED' if errors else 'ok'))
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
