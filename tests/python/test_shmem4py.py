#!/usr/bin/env python3
"""python.shmem4py: shmem4py, the OpenSHMEM bindings on PyPI, builds
unmodified against this build of Shoal and passes its own test suite.

    test_shmem4py.py --oshcc BUILD/bin/oshcc --oshrun BUILD/bin/oshrun \\
                     --header BUILD/include/shmem.h --work DIR [--npes 1 2]

What a user does, in a virtual environment under DIR:

    OSHCC=BUILD/bin/oshcc python3 -m pip install shmem4py
    oshrun -n N python -m unittest discover -s test     (in shmem4py's sdist)

1. Downloads (once) shmem4py's sdist, its build requirements and NumPy into
   DIR/wheelhouse.  NumPy stays below 2: shmem4py 1.0.0 predates NumPy 2
   and its tests fail there for reasons of its own (np.array(copy=False),
   NEP 50 integer conversions), whatever the OpenSHMEM library.
2. Creates DIR/venv and builds shmem4py from the sdist with pip, OSHCC set,
   from the wheelhouse only (--no-index, --no-cache-dir: the extension is
   compiled here, against this shmem.h).  Skipped on later runs while
   shmem.h and oshcc are unchanged (DIR/build.stamp).
3. Runs shmem4py's suite under oshrun at each PE count and prints, per PE,
   how many tests ran and were skipped.

Exit status 0 when every PE of every run reports OK; 77 (ctest's SKIP) when
nothing is cached and the package index cannot be reached, or Python cannot
make a virtual environment; 1 otherwise (a failed build or test is a
failure: Shoal should build and pass shmem4py unmodified).
"""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time

SHMEM4PY = '1.0.0'
# Build requirements of shmem4py (its pyproject.toml) and its runtime ones.
REQUIREMENTS = ['setuptools>=43', 'wheel', 'cffi>=1.13', 'numpy<2']
SKIP = 77


def log(msg):
    print('python.shmem4py: ' + msg, flush=True)


def run(what, cmd, timeout, env=None, cwd=None):
    """(returncode, output) of cmd, logged as `what`."""
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                           cwd=cwd, timeout=timeout, text=True)
        rc, out = p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors='replace') if isinstance(e.stdout, bytes) else e.stdout
        rc, out = 124, (out or '') + '\n(timed out after %d s)' % timeout
    log('%s: exit %d after %.0f s' % (what, rc, time.time() - t0))
    return rc, out


def tail(text, n=40):
    return '\n'.join(text.rstrip().split('\n')[-n:])


def fetch(work, python):
    """The wheelhouse: shmem4py's sdist and the wheels it needs.  None when
    the index cannot be reached (and nothing was downloaded before)."""
    house = os.path.join(work, 'wheelhouse')
    done = os.path.join(house, 'complete')
    if os.path.exists(done):
        return house
    os.makedirs(house, exist_ok=True)
    cmd = [python, '-m', 'pip', 'download', '--disable-pip-version-check', '--timeout', '15',
           '--retries', '1', '-d', house]
    rc, out = run('pip download shmem4py (sdist)',
                  cmd + ['--no-deps', '--no-binary', ':all:', 'shmem4py==' + SHMEM4PY],
                  timeout=300)
    if rc == 0:
        rc, out = run('pip download ' + ' '.join(REQUIREMENTS),
                      cmd + ['--only-binary', ':all:'] + REQUIREMENTS, timeout=600)
    if rc != 0:
        print(tail(out, 15))
        return None
    with open(done, 'w') as f:
        f.write('\n'.join(sorted(os.listdir(house))) + '\n')
    return house


def build_stamp(header, oshcc):
    h = hashlib.sha256()
    for p in (header, oshcc):
        with open(p, 'rb') as f:
            h.update(f.read())
    h.update(SHMEM4PY.encode())
    return h.hexdigest()


def build(work, house, python, oshcc, header):
    """The venv with shmem4py built against this Shoal; its python, or None
    when Python cannot make a venv."""
    venv = os.path.join(work, 'venv')
    vpy = os.path.join(venv, 'bin', 'python')
    stamp_file = os.path.join(work, 'build.stamp')
    stamp = build_stamp(header, oshcc)
    if os.path.exists(vpy) and os.path.exists(stamp_file):
        with open(stamp_file) as f:
            if f.read().strip() == stamp:
                log('shmem4py already built against this shmem.h and oshcc (%s)' % venv)
                return vpy
    if os.path.exists(stamp_file):
        os.remove(stamp_file)
    if not os.path.exists(vpy):
        shutil.rmtree(venv, ignore_errors=True)
        rc, out = run('python -m venv', [python, '-m', 'venv', venv], timeout=300)
        if rc != 0:
            print(tail(out, 15))
            shutil.rmtree(venv, ignore_errors=True)
            return None
    env = dict(os.environ, OSHCC=oshcc)
    env.pop('PYTHONPATH', None)
    rc, out = run('OSHCC=%s pip install shmem4py' % oshcc,
                  [vpy, '-m', 'pip', 'install', '--disable-pip-version-check', '--no-index',
                   '--find-links', house, '--no-cache-dir', '--force-reinstall',
                   'shmem4py==' + SHMEM4PY, 'numpy<2'], timeout=1500, env=env)
    if rc != 0:
        print(tail(out, 60))
        raise SystemExit('python.shmem4py: FAILED: shmem4py %s does not build against Shoal '
                         '(OSHCC=%s)' % (SHMEM4PY, oshcc))
    with open(stamp_file, 'w') as f:
        f.write(stamp + '\n')
    return vpy


def sources(work, house):
    """shmem4py's sdist unpacked (its test/ directory is the suite)."""
    top = os.path.join(work, 'shmem4py-' + SHMEM4PY)
    if not os.path.isdir(os.path.join(top, 'test')):
        sdist = [f for f in os.listdir(house) if f.startswith('shmem4py-') and
                 f.endswith('.tar.gz')]
        with tarfile.open(os.path.join(house, sdist[0])) as t:
            if hasattr(tarfile, 'data_filter'):
                t.extractall(work, filter='data')
            else:
                t.extractall(work)
    return top


def suite(vpy, oshrun, top, npes):
    """Runs the suite on npes PEs; True when every PE reports OK."""
    env = dict(os.environ)
    env.pop('PYTHONPATH', None)
    rc, out = run('oshrun -n %d python -m unittest discover -s test' % npes,
                  [oshrun, '--tag-output', '-n', str(npes), vpy, '-m', 'unittest', 'discover',
                   '-s', 'test'], timeout=600, env=env, cwd=top)
    ran = dict(re.findall(r'^\[pe (\d+)\] Ran (\d+) tests? in', out, re.M))
    verdicts = {pe: (v, d) for pe, v, d in
                re.findall(r'^\[pe (\d+)\] (OK|FAILED)(?: \(([^)]*)\))?$', out, re.M)}
    ok = rc == 0
    for pe in map(str, range(npes)):
        verdict, detail = verdicts.get(pe, ('no result', ''))
        skipped = re.search(r'skipped=(\d+)', detail)
        log('%d PE(s), PE %s: %s tests, %s skipped: %s%s'
            % (npes, pe, ran.get(pe, '?'), skipped.group(1) if skipped else 0, verdict,
               ' (%s)' % detail if verdict != 'OK' and detail else ''))
        ok = ok and verdict == 'OK' and pe in ran
    if not ok:
        print(tail(out, 80))
        log('FAILED at %d PE(s) (oshrun exit %d)' % (npes, rc))
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--oshcc', required=True)
    ap.add_argument('--oshrun', required=True)
    ap.add_argument('--header', required=True, help="the build's shmem.h (for the cache key)")
    ap.add_argument('--work', required=True)
    ap.add_argument('--python', default=sys.executable)
    ap.add_argument('--npes', type=int, nargs='+', default=[1, 2])
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)

    house = fetch(a.work, a.python)
    if house is None:
        log('SKIPPED: the package index cannot be reached (pip download failed) and nothing '
            'is cached in %s' % a.work)
        return SKIP
    vpy = build(a.work, house, a.python, a.oshcc, a.header)
    if vpy is None:
        log('SKIPPED: %s cannot make a virtual environment (Debian: python3-venv)' % a.python)
        return SKIP
    top = sources(a.work, house)
    ok = all([suite(vpy, a.oshrun, top, n) for n in a.npes])
    log('shmem4py %s suite %s at %s PE(s)' % (SHMEM4PY, 'passed' if ok else 'FAILED',
                                              ' and '.join(map(str, a.npes))))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
