#!/usr/bin/env python3
"""Lint man pages: fail on any warning of groff or man.

    check_man.py PAGE...

For each page runs
    groff -man -t -ww -z -Tutf8 PAGE
    man --warnings=w -E UTF-8 -l -Tutf8 -Z PAGE
(w: every troff warning; the second is man-db's own pipeline, run the way
lintian runs it: -Z makes man run troff itself, so that its warnings reach
stderr; --warnings=all, oddly, reports nothing)
and fails when either exits non-zero or prints anything on stderr (groff
reports warnings on stderr but still exits 0).  Exits 77 (ctest: skipped)
when neither groff nor man is installed (Debian: groff-base, man-db).
"""

import os
import shutil
import subprocess
import sys


def run(cmd, env):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=env, timeout=60)
    return p.returncode, p.stderr.strip()


def main():
    pages = sys.argv[1:]
    if not pages:
        sys.exit('usage: check_man.py PAGE...')
    groff, man = shutil.which('groff'), shutil.which('man')
    if not groff and not man:
        print('SKIP: neither groff nor man is installed (Debian: groff-base, man-db)')
        return 77
    env = dict(os.environ, LC_ALL='C.UTF-8', MANROFFSEQ='', MANWIDTH='80')
    bad = 0
    for page in pages:
        page_bad = 0
        cmds = []
        if groff:
            cmds.append([groff, '-man', '-t', '-ww', '-z', '-Tutf8', page])
        if man:
            cmds.append([man, '--warnings=w', '-E', 'UTF-8', '-l', '-Tutf8', '-Z', page])
        for cmd in cmds:
            rc, err = run(cmd, env)
            if rc != 0 or err:
                page_bad += 1
                print('FAIL: %s (status %d)' % (' '.join(cmd), rc))
                if err:
                    print(err)
        bad += page_bad
        if not page_bad:
            print('ok: %s (%s)' % (page, ', '.join(os.path.basename(c[0]) for c in cmds)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
