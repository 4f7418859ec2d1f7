#!/usr/bin/env python3
"""Generate the documentation of Shoal's environment variables from the env
tables the library is compiled from (src/core/config/env_table.h and the other
layers' tables), so that it cannot drift from the code.

    gen_env_doc.py --write                 rewrite docs/environment.md
    gen_env_doc.py --check                 exit 1 (and print a diff) when the
                                           committed docs/environment.md differs
                                           from what the table gives
    gen_env_doc.py --markdown              print docs/environment.md
    gen_env_doc.py --man IN OUT            fill the ENVIRONMENT section of a
                                           roff page (docs/man/shoal.7.in) into
                                           OUT (the build does this for shoal(7))
    gen_env_doc.py --check-shmem-info EXE [--not-built DIR]...
                                           run EXE (shmem-info) in an empty
                                           environment and check that it lists
                                           exactly the rows parsed here, with
                                           the same defaults, meanings and
                                           aliases (proves the parser reads the
                                           tables the library is compiled
                                           from); tables under DIR belong to a
                                           layer this build leaves out

The table: every row is

    SHOAL_ENV(id, "NAME", "ALIAS" or NULL, KIND, "default", "meaning")

KIND is SIZE, BOOL, FLAG, UINT or STRING (see the table's own comment).  Rows are
read in order from src/core/config/env_table.h and then from every other header
under src/ whose rows are SHOAL_ENV(...) lines (each layer's own table:
coll/coll_env_table.h, transport/ucx/config/ucx_env_table.h, ...), one table after
the other by path; the docs group them by layer.
C comments and preprocessor lines are ignored; adjacent string literals are
concatenated as C does.  Python 3 standard library only.
"""

import argparse
import difflib
import os
import re
import subprocess
import sys
import textwrap

sys.dont_write_bytecode = True

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAIN_TABLE = os.path.join('src', 'core', 'config', 'env_table.h')
ENV_MD = os.path.join('docs', 'environment.md')
MAN_MARK = '.\\" %ENVIRONMENT%'

KINDS = {
    'SIZE': 'size',
    'BOOL': 'boolean',
    'FLAG': 'switch',
    'UINT': 'integer',
    'STRING': 'string',
}

KIND_TEXT = [
    ('size', 'a number of bytes with an optional suffix K, M, G or T (powers '
             'of 1024) and an optional fraction: `512M`, `1.5G`, `64K`, '
             '`1000000`.  Only the first letter after the number counts '
             '(`20kk` is 20K), as the OpenSHMEM specification says.'),
    ('boolean', '`1`, `yes`, `true` or `on` turn it on; unset, empty, `0`, `no`, '
                '`false` or `off` (any case) leave it off; any other value is '
                'malformed and stops the job at start-up.'),
    ('switch', 'the specification\'s "any value": set turns it on, whatever '
               'the value (`1`, `yes`, a path, `2`), unless the value is empty, '
               '`0`, `n`, `no`, `off` or `false` (any case).'),
    ('integer', 'a non-negative decimal number (where the meaning says so, '
                'also a word such as `auto`).'),
    ('string', 'one of the words the meaning lists (the variables oshrun '
               'sets hold numbers).'),
]


class Row:
    def __init__(self, ident, name, alias, kind, default, meaning, path):
        self.ident, self.name, self.alias = ident, name, alias
        self.kind, self.default, self.meaning = kind, default, meaning
        self.path = path


# ---------------------------------------------------------------- parsing

def _strip_c(text):
    """Drop comments and preprocessor lines, keeping string literals."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            i = n if j < 0 else j + 2
            out.append(' ')
        elif text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == '\\' else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    lines = [ln for ln in ''.join(out).split('\n') if not ln.lstrip().startswith('#')]
    return '\n'.join(lines)


_ESC = {'n': '\n', 't': '\t', '\\': '\\', '"': '"', "'": "'"}


def _unquote(lit):
    body, out, i = lit[1:-1], [], 0
    while i < len(body):
        if body[i] == '\\' and i + 1 < len(body):
            out.append(_ESC.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(body[i])
            i += 1
    return ''.join(out)


def _args(text, start, where):
    """The comma-separated arguments of the call whose '(' is at start."""
    args, cur, depth, i = [], [], 0, start + 1
    while i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == '\\' else 1
            cur.append(text[i:j + 1])
            i = j + 1
            continue
        if c == '(':
            depth += 1
        elif c == ')':
            if depth == 0:
                args.append(''.join(cur).strip())
                return args, i + 1
            depth -= 1
        elif c == ',' and depth == 0:
            args.append(''.join(cur).strip())
            cur = []
            i += 1
            continue
        cur.append(c)
        i += 1
    sys.exit('%s: unterminated SHOAL_ENV(' % where)


def _value(arg, where):
    """A C expression made of string literals (concatenated), or NULL."""
    if arg == 'NULL':
        return None
    lits = re.findall(r'"(?:[^"\\]|\\.)*"', arg)
    rest = re.sub(r'"(?:[^"\\]|\\.)*"', '', arg).strip()
    if not lits or rest:
        sys.exit('%s: expected a string literal or NULL, got %r' % (where, arg))
    return ''.join(_unquote(x) for x in lits)


def parse_file(path, root=ROOT):
    with open(path, encoding='utf-8') as f:
        text = _strip_c(f.read())
    rows = []
    for m in re.finditer(r'\bSHOAL_ENV\s*\(', text):
        where = '%s (row %d)' % (os.path.relpath(path, root), len(rows) + 1)
        args, _ = _args(text, m.end() - 1, where)
        if len(args) != 6:
            sys.exit('%s: SHOAL_ENV takes 6 arguments, found %d: %r' % (where, len(args), args))
        ident, name, alias, kind, default, meaning = args
        if kind not in KINDS:
            sys.exit('%s: unknown kind %r (known: %s)' % (where, kind, ', '.join(KINDS)))
        rows.append(Row(ident, _value(name, where), _value(alias, where), kind,
                        _value(default, where), _value(meaning, where),
                        os.path.relpath(path, root)))
    return rows


def table_files(root):
    """src/core/config/env_table.h first, then other headers holding rows."""
    files = [os.path.join(root, MAIN_TABLE)]
    row_line = re.compile(r'^\s*SHOAL_ENV\s*\(', re.M)
    for d, subdirs, names in sorted(os.walk(os.path.join(root, 'src'))):
        subdirs.sort()
        for n in sorted(names):
            p = os.path.join(d, n)
            if n.endswith('.h') and p not in files:
                with open(p, encoding='utf-8') as f:
                    if row_line.search(_strip_c(f.read())):
                        files.append(p)
    return files


def load_rows(root=ROOT):
    rows = []
    for p in table_files(root):
        rows.extend(parse_file(p, root))
    if not rows:
        sys.exit('no SHOAL_ENV rows found in %s' % MAIN_TABLE)
    seen = set()
    for r in rows:
        if r.name in seen:
            sys.exit('%s: %s appears twice' % (r.path, r.name))
        seen.add(r.name)
    return rows


# The layer a table belongs to, by where it lives (longest prefix wins), and
# a note for tables that only some builds compile.
LAYERS = [
    ('src/core', 'Core'),
    ('src/api', 'API'),
    ('src/coll', 'Collectives'),
    ('src/ext', 'Extensions'),
    ('src/transport/ucx', 'UCX transport'),
    ('src/transport/ofi', 'OFI (libfabric) transport'),
    ('src/transport', 'Network transport'),
    ('src/boot/pmix', 'PMIx bootstrap'),
    ('src/boot', 'Bootstrap'),
]
BUILD_NOTES = [
    ('src/transport/ucx', 'Read only in a build with UCX (`SHOAL_WITH_UCX`); '
                          'other builds do not list them.'),
    ('src/transport/ofi', 'Read only in a build with libfabric (`SHOAL_WITH_OFI`); '
                          'other builds do not list them.'),
    ('src/boot/pmix', 'Read only in a build with PMIx (`SHOAL_WITH_PMIX`); '
                      'other builds do not list them.'),
]


def _by_prefix(table, path, default=None):
    best = None
    for prefix, value in table:
        if (path == prefix or path.startswith(prefix + '/')) and \
                (best is None or len(prefix) > len(best[0])):
            best = (prefix, value)
    return best[1] if best else default


def groups(rows):
    """[(table path, [rows])], core's table first, the others by path."""
    out = []
    for r in rows:
        if not out or out[-1][0] != r.path:
            out.append((r.path, []))
        out[-1][1].append(r)
    return out


def group_title(path):
    return _by_prefix(LAYERS, os.path.dirname(path), os.path.dirname(path))


# --------------------------------------------------------------- Markdown

def _md(s):
    return s.replace('|', '\\|')


def markdown(rows):
    srcs = sorted({r.path for r in rows}, key=lambda p: (p != MAIN_TABLE, p))
    out = [
        '<!-- Generated by tools/docs/gen_env_doc.py from %s: do not edit.' % ', '.join(srcs),
        '     Change the table, then run: python3 tools/docs/gen_env_doc.py --write -->',
        '',
        '# Environment variables',
        '',
        textwrap.fill(
            'Every variable Shoal reads, %s.  This page is generated from the '
            'table%s the library itself is compiled from (%s), and the `docs` '
            'tests fail when they differ.'
            % ('in the order `shmem-info` lists them' if len(srcs) == 1
               else 'grouped by the layer that reads them',
               '' if len(srcs) == 1 else 's', ', '.join('`%s`' % p for p in srcs)),
            width=76),
        '',
        '- Values are read once, by `shmem_init`.  A malformed value (a size or',
        '  number that does not parse, a word that is not in the list) is an',
        '  error that names the variable and ends the job.',
        '- The standard `SHMEM_*` variables also accept their deprecated `SMA_*`',
        '  spelling; when both are set, `SHMEM_*` wins.',
        '- `shmem-info` prints each variable with its current value, and',
        '  `SHMEM_INFO=1` makes PE 0 of a job print the same at start-up.',
        '- Under `oshrun` the PEs inherit oshrun\'s environment (`-x VAR=value`',
        '  adds to it); Open MPI\'s `mpirun` passes a variable to other nodes only',
        '  with `-x VAR`; `srun` passes the whole environment.',
        '',
        'Kinds of value:',
        '',
    ]
    for k, text in KIND_TEXT:
        out.append(textwrap.fill('- *%s*: %s' % (k, text), width=76, subsequent_indent='  '))
    gs = groups(rows)
    for path, grows in gs:
        out.append('')
        if len(gs) > 1:
            note = _by_prefix(BUILD_NOTES, path)
            out += ['## %s' % group_title(path), '',
                    textwrap.fill('From `%s`.%s' % (path, '  ' + note if note else ''),
                                  width=76), '']
        out += [
            '| Variable | Kind | Default | Meaning |',
            '|---|---|---|---|',
        ]
        for r in grows:
            var = '`%s`' % r.name
            if r.alias:
                var += '<br>(alias `%s`)' % r.alias
            out.append('| %s | %s | `%s` | %s |' % (var, KINDS[r.kind], _md(r.default),
                                                    _md(r.meaning)))
    out += [
        '',
        '## Read by others',
        '',
        'Not in the table because Shoal does not interpret them itself:',
        '',
        '- UCX reads its own `UCX_*` variables (`ucx_info -c` lists them).  The',
        '  ones that matter most to Shoal: `UCX_TLS` (which transports UCX may',
        '  use, e.g. `tcp`, `rc,sm,self`), `UCX_NET_DEVICES`, `UCX_ATOMIC_MODE`',
        '  (`cpu` lets on-node AMOs use CPU atomics, see the user guide) and',
        '  `UCX_MEM_EVENTS=no` (required under ThreadSanitizer).',
        '- PMIx launchers set `PMIX_NAMESPACE` and `PMIX_RANK`; `SHOAL_BOOT=auto`',
        '  looks at them to pick the PMIx bootstrap.',
        '- `oshcc` and `oshc++` read `SHOAL_CC` and `SHOAL_CXX`: the compiler',
        '  they run instead of the one Shoal was built with.',
        '- The test suite reads `SHOAL_TEST_TIMEOUT` (seconds before a test',
        '  program\'s watchdog reports a hang, default 90).',
        '  On a cluster (tests/cluster) it sets `SHOAL_TEST_NODES=K` for its',
        '  programs: the hosts hold the ranks in K contiguous blocks.',
        '',
    ]
    return '\n'.join(out)


# --------------------------------------------------------------------- roff

def _roff(s):
    s = s.replace('\\', '\\e').replace('-', '\\-')
    if s.startswith(('.', "'")):
        s = '\\&' + s
    return s


def roff(rows):
    out = []
    gs = groups(rows)
    for path, grows in gs:
        if len(gs) > 1:
            out.append('.SS %s' % group_title(path))
            note = _by_prefix(BUILD_NOTES, path)
            if note:
                out += ['.PP', _roff(note.replace('`', ''))]
        out += roff_rows(grows)
    return '\n'.join(out)


def roff_rows(rows):
    out = []
    for r in rows:
        out.append('.TP')
        out.append('.B \\%%%s' % r.name)   # \% : never hyphenated
        out.append('%s, default \\fB%s\\fR.' % (KINDS[r.kind].capitalize(), _roff(r.default)))
        # Words holding a variable's or constant's name are never hyphenated
        # (\% at the start of a word; elsewhere it would mark a break point).
        meaning = ' '.join('\\%' + w if re.search(r'[A-Z][A-Z0-9]*_[A-Z0-9_]', w) else w
                           for w in _roff(r.meaning).split(' '))
        if not meaning.endswith('.'):
            meaning += '.'
        out.append(meaning)
        if r.alias:
            out.append('Deprecated spelling: \\fB\\%%%s\\fR.' % r.alias)
    return out


def fill_man(template, output, rows):
    with open(template, encoding='utf-8') as f:
        text = f.read()
    if text.count(MAN_MARK + '\n') != 1:
        sys.exit('%s: needs exactly one line %r' % (template, MAN_MARK))
    text = text.replace(MAN_MARK + '\n', roff(rows) + '\n')
    text = ('.\\" Generated from %s by tools/docs/gen_env_doc.py: do not edit.\n'
            % os.path.relpath(template, ROOT)) + text
    tmp = output + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        f.write(text)
    os.replace(tmp, output)


# ------------------------------------------------------------------- checks

REGEN = 'python3 tools/docs/gen_env_doc.py --write'


def check(rows, path, root=ROOT):
    want = markdown(rows)
    try:
        with open(path, encoding='utf-8') as f:
            have = f.read()
    except OSError as e:
        print('%s: %s' % (path, e))
        print('Generate it with: %s' % REGEN)
        return 1
    rel = os.path.relpath(path, root)
    if rel.startswith('..'):
        rel = path
    if have == want:
        print('%s matches the env tables (%d variables)' % (rel, len(rows)))
        return 0
    sys.stdout.writelines(difflib.unified_diff(
        have.splitlines(True), want.splitlines(True),
        fromfile=rel + ' (committed)', tofile=rel + ' (from the env table)'))
    print('\n%s is out of date with the env tables (%s).'
          % (rel, ', '.join(sorted({r.path for r in rows}))))
    print('Regenerate it from the repository root with:\n    %s' % REGEN)
    return 1


def check_shmem_info(rows, exe, not_built=()):
    """shmem-info lines: '  NAME   = VALUE    (default) MEANING [alias: X]'.

    shmem-info must list every table of this build (core's first, each
    table's rows together and in order; the other tables' order is the
    layers' registration order, not checked), and no table under a
    directory in not_built (a layer this build leaves out)."""
    env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin')}
    p = subprocess.run([exe], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=60)
    if p.returncode != 0:
        print('%s failed with status %d:\n%s%s' % (exe, p.returncode, p.stdout, p.stderr))
        return 1
    lines = p.stdout.split('\n')
    try:
        start = lines.index('Environment variables:') + 1
    except ValueError:
        print('%s printed no "Environment variables:" section:\n%s' % (exe, p.stdout))
        return 1
    line_re = re.compile(r'^  (\S+)\s+= (.*?)\s+\(default\) (.*?)(?: \[alias: (\S+)\])?$')
    got = []
    for ln in lines[start:]:
        if not ln.startswith('  '):
            break
        m = line_re.match(ln)
        if not m:
            print('cannot read this line of shmem-info: %r' % ln)
            return 1
        got.append(m.groups())

    def key(r):
        return (r.name, r.default, r.meaning, r.alias)

    def skipped(path):
        return any(path == d or path.startswith(d.rstrip('/') + '/') for d in not_built)

    expected = [(path, [key(r) for r in grows]) for path, grows in groups(rows)
                if not skipped(path)]
    # Match whole tables: core's first, then any order.
    todo, i, ok = list(expected), 0, True
    order = []
    while i < len(got) and ok:
        for j, (path, keys) in enumerate(todo):
            if (j == 0 or order) and got[i:i + len(keys)] == keys:
                order.append((path, keys))
                i += len(keys)
                del todo[j]
                break
        else:
            ok = False
    if ok and not todo and i == len(got):
        print('shmem-info lists the %d variables of %s, with the same defaults, meanings '
              'and aliases' % (len(got), ', '.join(p for p, _ in order)))
        return 0
    print('shmem-info (the compiled tables) and the rows parsed from the sources differ:')
    fmt = lambda t: '%s = %s | %s | alias %s\n' % t  # noqa: E731
    want = [k for _, keys in (order + todo) for k in keys]
    sys.stdout.writelines(difflib.unified_diff(
        [fmt(t) for t in got], [fmt(t) for t in want],
        fromfile='shmem-info', tofile='tools/docs/gen_env_doc.py'))
    print('Either the tables moved or changed shape (teach tools/docs/gen_env_doc.py '
          'where the rows are), or shmem-info is stale (rebuild).')
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument('--markdown', action='store_true', help='print docs/environment.md')
    g.add_argument('--write', action='store_true', help='rewrite docs/environment.md')
    g.add_argument('--check', action='store_true',
                   help='fail with a diff when docs/environment.md is out of date')
    g.add_argument('--man', nargs=2, metavar=('TEMPLATE', 'OUTPUT'),
                   help='fill the variables into a roff page')
    g.add_argument('--check-shmem-info', metavar='EXE',
                   help='compare with what shmem-info prints')
    g.add_argument('--names', action='store_true', help='print the variable names')
    ap.add_argument('--root', default=ROOT, help='source tree (default: this checkout)')
    ap.add_argument('--file', help='the Markdown file for --write/--check '
                                   '(default: ROOT/docs/environment.md)')
    ap.add_argument('--not-built', action='append', default=[], metavar='DIR',
                    help='with --check-shmem-info: tables under DIR (e.g. '
                         'src/transport/ucx) are not in this build')
    a = ap.parse_args()
    rows = load_rows(a.root)
    md_path = a.file or os.path.join(a.root, ENV_MD)
    if a.markdown:
        sys.stdout.write(markdown(rows))
    elif a.write:
        with open(md_path, 'w', encoding='utf-8') as f:
            f.write(markdown(rows))
        print('wrote %s (%d variables)' % (md_path, len(rows)))
    elif a.check:
        return check(rows, md_path, a.root)
    elif a.man:
        fill_man(a.man[0], a.man[1], rows)
    elif a.check_shmem_info:
        return check_shmem_info(rows, a.check_shmem_info, a.not_built)
    elif a.names:
        print('\n'.join(r.name for r in rows))
    return 0


if __name__ == '__main__':
    sys.exit(main())
