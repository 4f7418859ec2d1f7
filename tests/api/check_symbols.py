#!/usr/bin/env python3
"""Check that libshoal exports the OpenSHMEM 1.6 routines of the issues done
so far, each with its profiling twin.

    check_symbols.py --lib build/lib/libshoal.so --symbols tools/gen/spec/symbols-1.6.tsv

Reads `nm -D --defined-only` of the library.  Every symbol of the spec list
(symbols-1.6.tsv) outside DEFERRED_SECTIONS (plus the DEFERRED_EXCEPTIONS)
must be exported as a function (T, W or i), and so must its twin: pshmem_X
for shmem_X, pX for the deprecated names without the shmem_ prefix
(pstart_pes, p_my_pe, pshmalloc, ...).  Prints per-section counts, then every
missing name; exit status 1 if any is missing.  --all checks every section.
The API table's extra families (routines beyond the 1.6 list that other
libraries provide, tools/gen/api_table.py) must be exported with their twins
too.
"""

import argparse
import collections
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # never write __pycache__ into the source tree

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                'tools', 'gen'))
import gen_api as G  # noqa: E402

# Sections implemented by later issues.  Remove a section from this set when
# its issue lands (then this test requires all its routines).
DEFERRED_SECTIONS = set()
# Routines of a deferred section that belong to the current issue.
DEFERRED_EXCEPTIONS = {
    'shmem_barrier_all',
    'shmem_sync_all',
}


def twin(name):
    return 'p' + name   # shmem_X -> pshmem_X; start_pes -> pstart_pes; _my_pe -> p_my_pe


def exported(lib, nm):
    out = subprocess.run([nm, '-D', '--defined-only', lib], check=True,
                         capture_output=True, text=True).stdout
    funcs, other = set(), {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        kind, name = parts[-2], parts[-1]
        name = name.split('@')[0]
        if kind in ('T', 'W', 'i'):
            funcs.add(name)
        else:
            other[name] = kind
    return funcs, other


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--lib', required=True)
    ap.add_argument('--symbols', default=G.SPEC_SYMBOLS,
                    help='the spec list (default: %(default)s)')
    ap.add_argument('--nm', default='nm')
    ap.add_argument('--all', action='store_true', help='check the deferred sections too')
    a = ap.parse_args()

    rows = []
    with open(a.symbols) as f:
        header = f.readline().rstrip('\n').split('\t')
        for line in f:
            if line.strip():
                rows.append(dict(zip(header, line.rstrip('\n').split('\t'))))
    funcs, other = exported(a.lib, a.nm)

    sections = []
    expected = collections.defaultdict(int)
    found = collections.defaultdict(int)
    found_twin = collections.defaultdict(int)
    missing = []
    deferred = 0
    for row in rows:
        sym, sec = row['symbol'], row['section']
        if sec not in sections:
            sections.append(sec)
        if not a.all and sec in DEFERRED_SECTIONS and sym not in DEFERRED_EXCEPTIONS:
            deferred += 1
            continue
        expected[sec] += 1
        for name, counter in ((sym, found), (twin(sym), found_twin)):
            if name in funcs:
                counter[sec] += 1
            else:
                how = ' (exported as %r, not a function)' % other[name] if name in other else ''
                missing.append('%-36s %s%s' % (sec, name, how))

    print('%-40s %8s %8s %8s' % ('section', 'expected', 'shmem_', 'pshmem_'))
    for sec in sections:
        if expected[sec]:
            flag = '' if found[sec] == found_twin[sec] == expected[sec] else '   <-- incomplete'
            print('%-40s %8d %8d %8d%s' % (sec, expected[sec], found[sec], found_twin[sec], flag))
    total = sum(expected.values())
    print('%-40s %8d %8d %8d' % ('total', total, sum(found.values()), sum(found_twin.values())))
    extras = [r.name for r in G.ALL if r.extra or r.ext]
    xfound = sum(1 for n in extras if n in funcs)
    xtwin = sum(1 for n in extras if twin(n) in funcs)
    print('%-40s %8d %8d %8d' % ('beyond the 1.6 list (extras, shmemx_)', len(extras), xfound,
                                 xtwin))
    for name in extras:
        for n in (name, twin(name)):
            if n not in funcs:
                missing.append('%-36s %s' % ('beyond the 1.6 list', n))
    if deferred:
        print('(%d symbols of sections deferred to later issues not checked: %s)'
              % (deferred, ', '.join(sorted(DEFERRED_SECTIONS))))
    spec = {r['symbol'] for r in rows} | set(extras)
    extra = sorted(n for n in funcs if n not in spec and n[1:] not in spec)
    if extra:
        print('note: %d exported functions outside the spec list, e.g. %s'
              % (len(extra), ', '.join(extra[:8])))
    if missing:
        print('\nMISSING (%d):' % len(missing))
        for m in missing:
            print('  ' + m)
        return 1
    print('OK: all %d routines (and %d beyond the 1.6 list) and their profiling twins are '
          'exported' % (total, len(extras)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
