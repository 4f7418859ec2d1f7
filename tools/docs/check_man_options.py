#!/usr/bin/env python3
"""Check that the man pages document exactly the options the tools take.

    check_man_options.py --src SOURCE_DIR --oshrun EXE --shmem-info EXE

For each tool, the options it accepts are read from its source (the
strings its option parser compares with) and from its --help text; every
one must appear in its man page, and every option that heads an entry of
the page's OPTIONS section must be one the tool accepts:

    oshrun      tools/oshrun/options.c, `oshrun --help`     docs/man/oshrun.1.in
    shmem-info  tools/info/shmem_info.c, `shmem-info --help` docs/man/shmem-info.1.in
    oshcc/c++   tools/oshcc.in (its `case` patterns)         docs/man/oshcc.1.in
    shoal-prof  tools/prof/shoal-prof (add_argument), `shoal-prof --help`
                                                             docs/man/shoal-prof.1.in
"""

import argparse
import os
import re
import subprocess
import sys

OPT = re.compile(r'(?<![\w-])(--?[A-Za-z][\w+-]*)')


def roff_text(s):
    """Roff source -> plain text good enough to search for option names."""
    s = re.sub(r'\\f(\[[^]]*\]|.)', '', s)   # font changes
    s = s.replace('\\-', '-').replace('\\e', '\\').replace('\\&', '')
    return s


def man_options(path):
    """(all text, options heading the .TP entries of the OPTIONS section)."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    text = roff_text('\n'.join(ln for ln in lines if not ln.startswith('.\\"')))
    heads, in_opts = set(), False
    for i, ln in enumerate(lines):
        if ln.startswith('.SH'):
            in_opts = ln.split(None, 1)[1:] == ['OPTIONS']
        elif in_opts and ln.startswith('.TP') and i + 1 < len(lines):
            heads.update(OPT.findall(roff_text(lines[i + 1])))
    return text, heads


def mentioned(opt, text):
    return re.search(r'(?<![\w-])%s(?![\w-])' % re.escape(opt), text) is not None


def help_options(exe):
    p = subprocess.run([exe, '--help'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=60)
    opts = set()
    for ln in p.stdout.split('\n'):
        m = re.match(r'^ {2,4}(-\S.*?)(?: {2,}|$)', ln)
        if m:
            opts.update(OPT.findall(m.group(1)))
    return p.returncode, opts


def source_strings(path, pattern):
    with open(path, encoding='utf-8') as f:
        return set(re.findall(pattern, f.read()))


def check(tool, page, accepted, from_help, failures):
    text, heads = man_options(page)
    missing = sorted(o for o in accepted | from_help if not mentioned(o, text))
    unknown = sorted(heads - accepted - from_help)
    rel = os.path.basename(page)
    if missing:
        failures.append('%s: %s does not document %s' % (tool, rel, ', '.join(missing)))
    if unknown:
        failures.append('%s: %s documents %s, which %s does not accept'
                        % (tool, rel, ', '.join(unknown), tool))
    if not missing and not unknown:
        print('ok: %s documents the %d options of %s' % (rel, len(accepted | from_help), tool))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--src', required=True)
    ap.add_argument('--oshrun', required=True)
    ap.add_argument('--shmem-info', required=True)
    ap.add_argument('--shoal-prof', required=True)
    a = ap.parse_args()
    man = os.path.join(a.src, 'docs', 'man')
    failures = []

    rc, helped = help_options(a.oshrun)
    if rc != 0 or not helped:
        failures.append('oshrun --help failed or listed no options')
    acc = source_strings(os.path.join(a.src, 'tools', 'oshrun', 'options.c'),
                         r'strcmp\(name, "(-[^"]*)"\)')
    check('oshrun', os.path.join(man, 'oshrun.1.in'), acc, helped, failures)

    rc, helped = help_options(a.shmem_info)
    if rc != 0 or not helped:
        failures.append('shmem-info --help failed or listed no options')
    acc = source_strings(os.path.join(a.src, 'tools', 'info', 'shmem_info.c'),
                         r'strcmp\(argv\[i\], "(-[^"]*)"\)')
    check('shmem-info', os.path.join(man, 'shmem-info.1.in'), acc, helped, failures)

    # oshcc.in: the options it acts on are the patterns of its `case "$a"`.
    with open(os.path.join(a.src, 'tools', 'oshcc.in'), encoding='utf-8') as f:
        acc = set()
        for m in re.finditer(r'^\s*((?:-[\w+-]+)(?:\|-[\w+-]+)*)\)', f.read(), re.M):
            acc.update(m.group(1).split('|'))
    if not acc:
        failures.append('found no options in tools/oshcc.in')
    check('oshcc', os.path.join(man, 'oshcc.1.in'), acc, set(), failures)

    rc, helped = help_options(a.shoal_prof)
    if rc != 0 or not helped:
        failures.append('shoal-prof --help failed or listed no options')
    acc = set()
    with open(a.shoal_prof, encoding='utf-8') as f:
        for m in re.finditer(r"add_argument\(((?:'-[^']*',\s*)+)", f.read()):
            acc.update(re.findall(r"'(-[^']*)'", m.group(1)))
    check('shoal-prof', os.path.join(man, 'shoal-prof.1.in'), acc, helped, failures)

    for f in failures:
        print('FAIL: ' + f)
    if failures:
        print('Update the page under docs/man/ (or the tool) so that they agree.')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
