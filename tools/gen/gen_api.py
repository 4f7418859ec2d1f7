#!/usr/bin/env python3
"""Generate Shoal's public headers and typed API wrappers from api_table.py.

    gen_api.py --version 0.1.0 --aliases int8=schar,int64=long,... \
               --include-dir BUILD/include --src-dir BUILD/tools/gen/src
               [--symbols tools/gen/spec/symbols-1.6.tsv]
               [--generics tools/gen/spec/generics-1.6.txt]

writes  INCLUDE/shmem.h, shmemx.h, pshmem.h, mpp/shmem.h, mpp/shmemx.h
                  from the C templates include/*.h.in (shmemx.h with the
                  table's extension families and generics)
        SRC/api_<area>_<family>.c   one per family (pshmem_X definitions +
                  weak shmem_X aliases), from tools/gen/templates/api_family.c.in
        SRC/shoal_types.h   the type tables as X-macros for src/coll
                  (tools/gen/templates/shoal_types.h.in)

Before writing anything it checks the expansion of the table against the
spec list: every emitted C prototype must equal the `prototype` column of
symbols-1.6.tsv (modulo whitespace), with the same section, family and
deprecated flag, and no symbol may be missing or extra; the generic names
must be exactly those of generics-1.6.txt.  The table's extra families
(beyond the 1.6 list, see api_table.py) are the one exception: their
routines must not be in the list.  Any difference is an error (exit status
1), which fails the build.

--list-sources prints the wrapper source paths (CMake asks at configure
time) and writes nothing.  The module is also imported by tests/api/.
"""

import argparse
import os
import re
import sys

sys.dont_write_bytecode = True  # never write __pycache__ into the source tree

HERE = os.path.dirname(os.path.abspath(__file__))  # tools/gen
ROOT = os.path.dirname(os.path.dirname(HERE))      # the source tree
sys.path.insert(0, HERE)
import api_table as T  # noqa: E402

# The spec's lists that the table is checked against (from the OpenSHMEM 1.6
# document; tests/api/check_symbols.py reads the first too).
SPEC_DIR = os.path.join(HERE, 'spec')
SPEC_SYMBOLS = os.path.join(SPEC_DIR, 'symbols-1.6.tsv')
SPEC_GENERICS = os.path.join(SPEC_DIR, 'generics-1.6.txt')

# ------------------------------------------------------------- expansion


class Routine:
    """One C routine of the API."""

    def __init__(self, fam, form, name, ret, params, tn=None, size=None, ctx=False):
        self.family = fam
        self.form = form
        self.section = fam['section']
        self.name = name
        self.ret = ret.strip()
        self.params = params.strip()
        self.tn = tn                # TYPENAME (typed forms, typed singles)
        self.size = size            # SIZE in bits (sized forms)
        self.ctx = ctx              # a ctx twin
        self.deprecated = fam['deprecated']
        self.extra = fam['extra']   # beyond the 1.6 list
        self.ext = fam['ext']       # a Shoal extension (shmemx.h)
        self.noreturn = form.get('noreturn', False)
        self.impl = fam['impl']

    @property
    def twin(self):
        return 'p' + self.name

    def decl(self, name=None):
        """'RET NAME(PARAMS)' with the spec's spacing."""
        name = name or self.name
        sep = '' if self.ret.endswith('*') else ' '
        return '%s%s%s(%s)' % (self.ret, sep, name, self.params)

    @property
    def prototype(self):
        return self.decl() + ';'

    def param_names(self):
        if self.params == 'void':
            return []
        out = []
        for p in self.params.split(','):
            p = p.strip()
            if p == '...':
                out.append('...')
                continue
            m = re.search(r'(\w+)\s*$', p)
            out.append(m.group(1))
        return out

    @property
    def uses_complex(self):
        return '_Complex' in self.params or '_Complex' in self.ret

    @property
    def esize(self):
        if self.form['kind'] == 'sized':
            return str(self.size // 8)
        if self.form['kind'] == 'mem':
            return '1'
        if self.form.get('esize'):
            return str(self.form['esize'])
        if self.tn:
            return 'sizeof(%s)' % T.c_type(self.tn)
        return None


def _subst_type(text, tn):
    return re.sub(r'\bTYPE\b', T.c_type(tn), text) if tn else text


def _split(proto):
    """'RET NAME(PARAMS)' -> (ret, name, params)."""
    i = proto.index('(')
    assert proto.endswith(')'), proto
    head, params = proto[:i], proto[i + 1:-1]
    m = re.match(r'^(.*?)([\w{}]+)\s*$', head)
    return m.group(1).strip(), m.group(2), params


def _ctx_twin(name, params):
    prefix = 'shmemx_' if name.startswith('shmemx_') else 'shmem_'
    assert name.startswith(prefix), name
    cname = prefix + 'ctx_' + name[len(prefix):]
    cparams = 'shmem_ctx_t ctx' if params.strip() == 'void' else 'shmem_ctx_t ctx, ' + params
    return cname, cparams


def expand_family(fam):
    """The routines of a family, in the spec list's order: per form, the
    plain routines then their ctx twins."""
    out = []
    for form in fam['forms']:
        ret, name, params = _split(form['proto'])
        rows = []   # (name, ret, params, tn, size)
        kind = form['kind']
        if kind == 'typed':
            for tn in T.type_list(form['types']):
                rows.append((name.replace('{T}', tn), _subst_type(ret, tn),
                             _subst_type(params, tn), tn, None))
        elif kind == 'sized':
            for s in T.SIZES:
                rows.append((name.replace('{S}', str(s)), ret, params, None, s))
        else:
            rows.append((name, ret, params, form.get('type'), None))
        for n, r, p, tn, s in rows:
            out.append(Routine(fam, form, n, r, p, tn, s))
        if fam['ctx']:
            for n, r, p, tn, s in rows:
                cn, cp = _ctx_twin(n, p)
                out.append(Routine(fam, form, cn, r, cp, tn, s, ctx=True))
    return out


def all_routines():
    """Every routine: the standard families' then the extensions'."""
    out = []
    for fam in T.FAMILIES + T.EXT_FAMILIES:
        out.extend(expand_family(fam))
    return out


def parse_aliases(text):
    """'int8=schar,int64=long' -> {'int8': 'schar', ...}"""
    amap = {}
    for item in filter(None, (text or '').split(',')):
        k, v = item.split('=')
        k, v = k.strip(), v.strip()
        if k not in T.FIXED_WIDTH or v not in T.TYPES:
            raise SystemExit('gen_api: bad alias %r' % item)
        amap[k] = v
    return amap


def distinct_types(types, aliases):
    """Rows of `types` whose C types are pairwise incompatible: a row whose
    type is another name of an earlier row's type is dropped."""
    seen, out = set(), []
    for tn in types:
        canon = aliases.get(tn, tn)
        if canon in seen:
            continue
        seen.add(canon)
        out.append(tn)
    return out


def generic_targets(g, aliases=None):
    """[(TYPENAME, routine name)] of a typed generic, deduplicated when
    `aliases` is given."""
    types = T.type_list(g['types'])
    if aliases is not None:
        types = distinct_types(types, aliases)
    names = {r.name for r in ALL}
    out = []
    for tn in types:
        rn = g['routine'].replace('{T}', tn)
        if rn not in names and g['fallback']:
            rn = g['fallback'].replace('{T}', tn)
        out.append((tn, rn))
    return out


ALL = all_routines()
BY_NAME = {r.name: r for r in ALL}
STD = [r for r in ALL if not r.ext]   # shmem.h, pshmem.h
EXT = [r for r in ALL if r.ext]       # shmemx.h

# ------------------------------------------------------------------ check


def _tokens(s):
    return re.findall(r'\w+|[^\s\w]', s)


def check_against_spec(symbols_tsv, generics_txt):
    errors = []
    spec = []
    with open(symbols_tsv) as f:
        header = f.readline().rstrip('\n').split('\t')
        for line in f:
            if line.strip():
                spec.append(dict(zip(header, line.rstrip('\n').split('\t'))))
    by_sym = {row['symbol']: row for row in spec}
    mine = {}
    for r in STD:
        if r.name in mine:
            errors.append('duplicate routine %s' % r.name)
        mine[r.name] = r
    for name in by_sym:
        if name not in mine:
            errors.append('missing: %s  (%s)' % (name, by_sym[name]['prototype']))
    for name, r in mine.items():
        row = by_sym.get(name)
        if r.extra:
            if row is not None:
                errors.append('%s is in the spec list but its family is marked extra' % name)
            continue
        if row is None:
            errors.append('not in the spec list: %s' % r.prototype)
            continue
        if _tokens(r.prototype) != _tokens(row['prototype']):
            errors.append('prototype differs:\n  spec: %s\n  ours: %s' % (row['prototype'],
                                                                          r.prototype))
        if row['section'] != r.section:
            errors.append('%s: section %r, spec %r' % (name, r.section, row['section']))
        if row['family'] != r.family['name']:
            errors.append('%s: family %r, spec %r' % (name, r.family['name'], row['family']))
        if (row['deprecated'] == 'deprecated') != r.deprecated:
            errors.append('%s: deprecated flag differs from the spec' % name)
    if not errors and [r.name for r in STD if not r.extra] != [row['symbol'] for row in spec]:
        errors.append('routine order differs from the spec list')
    errors += check_extensions(by_sym, mine)
    # Generic names.
    with open(generics_txt) as f:
        spec_generics = [l.strip() for l in f if l.strip()]
    ours = [g['name'] for g in T.GENERICS]
    if sorted(ours) != sorted(spec_generics) or len(set(ours)) != len(ours):
        errors.append('generic names differ: missing %s, extra %s' % (
            sorted(set(spec_generics) - set(ours)), sorted(set(ours) - set(spec_generics))))
    errors += check_generics(T.GENERICS)
    return errors, len(spec)


def check_extensions(by_sym, std):
    """Extension routines are shmemx_ names, unique, outside the spec list;
    their generic names are shmemx_ names too, outside the spec's."""
    errors = []
    seen = set()
    for r in EXT:
        if not r.name.startswith('shmemx_'):
            errors.append('extension routine %s does not start with shmemx_' % r.name)
        if r.name in seen or r.name in std:
            errors.append('duplicate routine %s' % r.name)
        if r.name in by_sym:
            errors.append('extension routine %s is in the spec list' % r.name)
        seen.add(r.name)
    names = [g['name'] for g in T.GENERICS + T.EXT_GENERICS]
    for g in T.EXT_GENERICS:
        if not g['name'].startswith('shmemx_'):
            errors.append('extension generic %s does not start with shmemx_' % g['name'])
        if names.count(g['name']) > 1:
            errors.append('duplicate generic name %s' % g['name'])
    return errors + check_generics(T.EXT_GENERICS)


def check_generics(generics):
    """Every generic target exists; every non-deprecated typed routine of a
    generic's family is reachable (before deduplication)."""
    errors = []
    for g in generics:
        if g['special']:
            if g['routine'] not in BY_NAME or g['function'] not in BY_NAME:
                errors.append('generic %s: unknown routine' % g['name'])
            continue
        for tn, rn in generic_targets(g):
            if rn not in BY_NAME:
                errors.append('generic %s: no routine %s' % (g['name'], rn))
            if g['ctx'] and _ctx_twin(rn, '')[0] not in BY_NAME:
                errors.append('generic %s: no ctx twin of %s' % (g['name'], rn))
        if not g['fallback']:
            fam = BY_NAME[generic_targets(g)[0][1]].family['name']
            want = {r.name for r in ALL if r.family['name'] == fam and r.tn and not r.ctx
                    and r.form['kind'] == 'typed'}
            got = {rn for _, rn in generic_targets(g)}
            if not want <= got:
                errors.append('generic %s misses %s' % (g['name'], sorted(want - got)))
    return errors

# -------------------------------------------------------------- templates
#
# The C text lives in template files: the public headers' in include/
# (shmem.h.in, pshmem.h.in, shmemx.h.in, mpp/*.h.in), the wrapper sources'
# and the internal type header's in tools/gen/templates/.  A template line
# that holds only the comment /* @NAME@ */ is replaced by the block NAME
# (and removed when the block is empty); any other @NAME@ by a value;
# comments opened with /*@ are notes on the template and are dropped.  Every
# marker must be filled and every block given must be used.

_NOTE = re.compile(r'^/\*@.*?@\*/\n', re.S | re.M)
_BLOCK = re.compile(r'^[ \t]*/\* @([A-Z0-9_]+)@ \*/\n', re.M)
_VALUE = re.compile(r'@([A-Z0-9_]+)@')


def fill(template, blocks=None, values=None):
    """The template (a path in the source tree) with its blocks and values
    filled in."""
    path = os.path.join(ROOT, template)
    with open(path) as f:
        text = _NOTE.sub('', f.read())
    blocks, values = blocks or {}, values or {}
    used = set()

    def block(m):
        key = m.group(1)
        if key not in blocks:
            raise SystemExit('gen_api: %s: no block %s' % (path, key))
        used.add(key)
        b = blocks[key].strip('\n')
        return b + '\n' if b else ''

    def value(m):
        key = m.group(1)
        if key not in values:
            raise SystemExit('gen_api: %s: no value %s' % (path, key))
        used.add(key)
        return str(values[key])

    # Blocks are set aside while the values are filled in, so that an @ in
    # generated text is never taken for a marker.
    parts = []

    def park(m):
        parts.append(block(m))
        return '\0%d\0' % (len(parts) - 1)

    text = _VALUE.sub(value, _BLOCK.sub(park, text))
    text = re.sub(r'\0(\d+)\0', lambda m: parts[int(m.group(1))], text)
    unused = (set(blocks) | set(values)) - used
    if unused:
        raise SystemExit('gen_api: %s has no marker for %s' % (path, sorted(unused)))
    return text


def banner(out_name, template):
    """The first line of every generated file."""
    return ('/* %s — generated from %s and tools/gen/api_table.py\n'
            ' * by tools/gen/gen_api.py.  Do not edit: change those and rebuild. */'
            % (out_name, template))


def fill_file(out_name, template, blocks=None, values=None):
    """fill() for a whole generated file: its banner comes first."""
    return fill(template, dict(blocks or {}, SHOAL_BANNER=banner(out_name, template)), values)

# ---------------------------------------------------------------- headers


def _decorated(r, name=None):
    pre = ''
    if r.noreturn:
        pre += 'SHOAL_NORETURN '
    if r.deprecated:
        pre += 'SHOAL_DEPRECATED '
    return pre + r.decl(name) + ';'


def _prototype_block(routines, twin=False):
    """Prototypes grouped by section and family; complex-typed ones guarded."""
    lines = []
    section = family = None
    in_complex = False
    for r in routines:
        if r.section != section:
            if in_complex:
                lines.append('#endif')
                in_complex = False
            section = r.section
            lines += ['', '/* ' + '=' * 66 + '\n * %s\n */' % section]
        if r.family['name'] != family:
            if in_complex:
                lines.append('#endif')
                in_complex = False
            family = r.family['name']
            f = r.family
            note = 'since %s' % f['since']
            if f['ext']:
                note = 'Shoal extension'
            if f['deprecated']:
                note += ', deprecated'
            if f['extra']:
                note += '; not in the OpenSHMEM 1.6 list, as in other libraries'
            lines.append('')
            lines.append('/* %s (%s) */' % (family, note))
        if r.uses_complex and not in_complex:
            lines.append('#if SHOAL_HAVE_COMPLEX')
            in_complex = True
        elif not r.uses_complex and in_complex:
            lines.append('#endif')
            in_complex = False
        lines.append(_complex_names(_decorated(r, r.twin if twin else None)))
    if in_complex:
        lines.append('#endif')
    return '\n'.join(lines)


def _c_define(name, value, width=34):
    return '#define %-*s %s' % (width, name, value)


def gen_shmem_h(version, aliases):
    major, minor, patch = (version.split('.') + ['0', '0'])[:3]
    vendor = '"Shoal %s"' % version
    consts = []
    for name, value, comment in T.CONSTANTS:
        if comment:
            consts.append('/* %s */' % comment)
        consts.append(_c_define(name, vendor if value == '@VENDOR@' else value))
    return fill_file('shmem.h', 'include/shmem.h.in', blocks={
        'SHOAL_CONSTANTS': '\n'.join(consts),
        'SHOAL_DEPRECATED_CONSTANTS': '\n'.join(_c_define(n, n[1:])
                                                for n in T.DEPRECATED_CONSTANT_ALIASES),
        'SHOAL_PROTOTYPES': _prototype_block(STD),
        'SHOAL_C11_TYPE_ASSERTS': c11_type_asserts(aliases),
        'SHOAL_C11_GENERICS': '\n\n'.join(_generic_macro(g, aliases) for g in T.GENERICS),
        'SHOAL_CXX_OVERLOADS': cxx_overloads(T.GENERICS, aliases),
    }, values={
        'SHOAL_SPEC_MAJOR': T.SPEC_MAJOR, 'SHOAL_SPEC_MINOR': T.SPEC_MINOR,
        'SHOAL_VERSION': version, 'SHOAL_VERSION_MAJOR': major,
        'SHOAL_VERSION_MINOR': minor, 'SHOAL_VERSION_PATCH': patch,
    })


def _assoc(types_targets, const):
    lines = []
    complex_lines = []
    for tn, rn in types_targets:
        ct = T.c_type(tn)
        target = complex_lines if T.TYPES[tn][1] == 'complex' else lines
        target.append('%s *: %s' % (ct, rn))
        if const:
            target.append('const %s *: %s' % (ct, rn))
    return lines, complex_lines


def _generic_macro(g, aliases):
    """The #define of one C11 generic name (possibly two, with and without
    the complex-typed associations)."""
    name = g['name']
    if g['special'] == 'team_sync':
        return ('#define %s(...) \\\n    _Generic(SHOAL_C11_ARG0(__VA_ARGS__), \\\n'
                '        shmem_team_t: %s, \\\n        default: %s)(__VA_ARGS__)'
                % (name, g['routine'], g['function']))
    if g['special'] == 'signal':
        return ('#define %s(...) \\\n    _Generic(SHOAL_C11_ARG0(__VA_ARGS__), \\\n'
                '        shmem_ctx_t: %s, \\\n        default: %s)(__VA_ARGS__)'
                % (name, g['routine'], g['function']))
    tt = generic_targets(g, aliases)
    plain, cplx = _assoc(tt, g['const'])
    argsel = 'SHOAL_C11_ARG%d(__VA_ARGS__)' % g['arg']
    body = []
    if g['ctx']:
        cplain, _ = _assoc([(tn, _ctx_twin(rn, '')[0]) for tn, rn in tt], g['const'])
        body.append('        shmem_ctx_t: _Generic(SHOAL_C11_ARG1(__VA_ARGS__), \\')
        body += ['            %s, \\' % a for a in cplain]
        body.append('            default: shoal_c11_type_error), \\')
    cmacro = None
    if cplx:
        cmacro = 'SHOAL_C11_COMPLEX_%s' % name
        body.append('        %s \\' % cmacro)
    body += ['        %s, \\' % a for a in plain]
    body[-1] = body[-1][:-3] + ')(__VA_ARGS__)'
    text = '#define %s(...) \\\n    _Generic(%s, \\\n%s' % (name, argsel, '\n'.join(body))
    if cmacro:
        pre = ['#if SHOAL_HAVE_COMPLEX',
               '#define %s %s,' % (cmacro, ', '.join(cplx)),
               '#else',
               '#define %s' % cmacro,
               '#endif']
        text = '\n'.join(pre) + '\n' + text
    return text


def c11_type_asserts(aliases):
    """The type probe's findings, checked where the header is used."""
    return '\n'.join(
        '_Static_assert(_Generic((%s *)0, %s *: 1, default: 0),\n'
        '               "shmem.h was generated for a target where %s is %s");'
        % (T.c_type(tn), T.c_type(aliases[tn]), T.c_type(tn), T.c_type(aliases[tn]))
        for tn in T.FIXED_WIDTH if tn in aliases)


def _complex_names(text):
    """Prototypes spell the complex types through the header's typedefs
    (shmem.h.in), which C++ declares with __extension__: -pedantic C++
    builds accept them from g++ and clang++ alike."""
    return (text.replace('double _Complex', 'shoal_complexd_t')
            .replace('float _Complex', 'shoal_complexf_t'))


def _cxx_overload(name, r):
    """An inline C++ overload `name` forwarding to routine r."""
    params = r.params
    args = ', '.join(r.param_names())
    ret = '' if r.ret == 'void' else 'return '
    return _complex_names('inline %s %s(%s) { %s%s(%s); }' %
                          (r.ret, name, params, ret, r.name, args))


def cxx_overloads(generics, aliases):
    out = []
    for g in generics:
        if out:
            out.append('')
        out.append('/* %s */' % g['name'])
        if g['special']:
            r = BY_NAME[g['routine']]
            out.append(_cxx_overload(g['name'], r))
            continue
        fn = BY_NAME.get(g['function']) if g['function'] else None
        for tn, rn in generic_targets(g, aliases):
            r = BY_NAME[rn]
            # An overload identical to the C function of the same name (the
            # deprecated long-typed shmem_wait_until) would redefine it.
            if fn is not None and aliases.get(tn, tn) == fn.tn:
                continue
            guard = r.uses_complex
            if guard:
                out.append('#if SHOAL_HAVE_COMPLEX')
            out.append(_cxx_overload(g['name'], r))
            if g['ctx']:
                out.append(_cxx_overload(g['name'], BY_NAME[_ctx_twin(rn, '')[0]]))
            if guard:
                out.append('#endif')
    return '\n'.join(out)


def gen_pshmem_h():
    return fill_file('pshmem.h', 'include/pshmem.h.in', blocks={
        'SHOAL_PROTOTYPES': _prototype_block(STD, twin=True),
    })


def gen_shmemx_h(aliases):
    """shmemx.h: the hand-written extensions of the template plus the
    table's extension families: prototypes, their pshmemx_ twins, C11
    generics and C++ overloads."""
    return fill_file('shmemx.h', 'include/shmemx.h.in', blocks={
        'SHOAL_X_PROTOTYPES': _prototype_block(EXT),
        'SHOAL_X_PROFILING': _prototype_block(EXT, twin=True),
        'SHOAL_X_C11_GENERICS': '\n\n'.join(_generic_macro(g, aliases)
                                              for g in T.EXT_GENERICS),
        'SHOAL_X_CXX_OVERLOADS': cxx_overloads(T.EXT_GENERICS, aliases),
    })


def gen_plain_header(name):
    """mpp/*.h: templates with a banner only."""
    return fill_file(name, 'include/%s.in' % name)


HEADERS = {
    'shmem.h': lambda a: gen_shmem_h(a.version, a.alias_map),
    'pshmem.h': lambda a: gen_pshmem_h(),
    'shmemx.h': lambda a: gen_shmemx_h(a.alias_map),
    'mpp/shmem.h': lambda a: gen_plain_header('mpp/shmem.h'),
    'mpp/shmemx.h': lambda a: gen_plain_header('mpp/shmemx.h'),
}

# ------------------------------------------------------- internal header


def reduce_types():
    """The TYPENAMEs of the reductions: the teamreducetypes rows in order
    (asetreducetypes is a subset)."""
    out = []
    for key in ('teamreducetypes', 'asetreducetypes'):
        for col in T.TABLES[key].values():
            out += [tn for tn in col if tn not in out]
    order = T.TEAMREDUCE_TYPES
    assert set(out) == set(order), 'asetreducetypes is not part of teamreducetypes'
    return list(order)


def _reduce_kind(tn):
    kind = T.TYPES[tn][1]
    if kind == 'float':
        return 'FLT'
    if kind == 'complex':
        return 'CPX'
    return 'SMALL' if tn in T.PROMOTED else 'INT'


def _xmacro(name, rows):
    return '#define %s(X) \\\n%s' % (name, ' \\\n'.join('    X(%s)' % ', '.join(r) for r in rows))


def gen_types_h():
    rows = []
    for tn in reduce_types():
        ct = T.c_type(tn)
        if T.TYPES[tn][1] == 'int':
            u = T.c_type(T.UNSIGNED_OF.get(tn, tn))
        else:
            u = ct
        rows.append((tn.upper(), ct, u, _reduce_kind(tn)))
    tables = []
    for key, types in T.TABLES.items():
        if isinstance(types, dict):
            continue
        tables.append('/* %s */\n' % key + _xmacro(
            'SHOAL_FOREACH_%s_TYPE' % key[:-len('types')].upper(),
            [(tn, T.c_type(tn)) for tn in types]))
    return fill_file('shoal_types.h', 'tools/gen/templates/shoal_types.h.in', blocks={
        'SHOAL_FOREACH_REDUCE_TYPE': _xmacro('SHOAL_FOREACH_REDUCE_TYPE', rows),
        'SHOAL_FOREACH_TABLE_TYPES': '\n\n'.join(tables),
    })

# ---------------------------------------------------------------- sources

# The area of each section whose wrappers are generated: the first part of
# the wrapper files' names (api_<area>_<family>.c).
AREAS = {
    'RMA': 'rma',
    'AMO': 'amo',
    'Signaling': 'signal',
    'Collectives': 'coll',
    'Point-to-point synchronization': 'p2p',
}


# The extensions' areas: api_x_<area>_<family>.c.
EXT_AREAS = dict(zip(T.EXT_SECTIONS, ('req', 'am', 'mt')))


def _slug(s):
    return re.sub(r'[^a-z0-9]+', '_', s.lower()).strip('_')


def wrapper_routines():
    kinds = {'gen'} | ({'coll'} if T.GENERATE_COLLECTIVE_WRAPPERS else set())
    return [r for r in ALL if r.impl in kinds]


def source_file(fam):
    """The wrapper file of a family: api_<area>_<family>.c, the family's
    name without shmem_ (and atomic_); api_<area>_deprecated.c for every
    deprecated family of the area."""
    area = AREAS.get(fam['section']) or _slug(fam['section'])
    if fam['ext']:
        area = 'x_' + EXT_AREAS[fam['section']]
    if fam['deprecated']:
        stem = 'deprecated'
    else:
        stem = fam['name'].split(',')[0].strip()
        for prefix in ('shmemx_', 'shmem_', 'atomic_'):
            if stem.startswith(prefix):
                stem = stem[len(prefix):]
        stem = _slug(stem)
    return 'api_%s_%s.c' % (area, stem)


def source_plan():
    """[(file name, [routines])]: the generated routines by family (see
    source_file), files in the table's order.  (Inlining of core/ops.h's
    fast paths does not depend on the split: every wrapper is
    SHOAL_FLATTEN, see api/export.h.)"""
    plan = {}
    for r in wrapper_routines():
        plan.setdefault(source_file(r.family), []).append(r)
    return list(plan.items())


def wrapper_body(r):
    body = r.family['body']
    assert body, 'no body for %s' % r.name
    assert not re.search(r'\*\s*\{ESIZE\}|\{ESIZE\}\s*\*', body), (
        '%s: multiply by {ESIZE} through {NBYTES} (overflow-checked)' % r.name)
    return fill_placeholders(r, body)


def fill_placeholders(r, text):
    """A body template (or a profile's byte count) with r's values."""
    tn = r.tn
    esize = r.esize or '?'
    subs = {
        'NBYTES': 'shoal_nbytes(nelems, %s, {FN})' % esize,
        'ctx': 'ctx' if r.ctx else 'SHMEM_CTX_DEFAULT',
        'FN': '"%s"' % r.name,
        'ESIZE': esize,
        'TYPE': T.c_type(tn) if tn else '?',
        'TO': 'shoal_to_bits_%s' % tn if tn else '?',
        'FROM': 'shoal_from_bits_%s' % tn if tn else '?',
        'TNU': (tn or '?').upper(),
        'WKIND': ('SHOAL_WKIND(%d, sizeof(%s))' % (1 if T.is_signed(tn) else 0, T.c_type(tn))
                  if tn else '?'),
    }
    for k, v in subs.items():
        text = text.replace('{%s}' % k, v)
    assert '?' not in re.sub(r'"[^"]*"', '', text), (r.name, text)
    return text


def profile_hooks(r):
    """The profiled twin's first and last statements (core/profile/profile.h)."""
    p = r.family['prof']
    assert p, '%s: a generated family needs prof= (api_table.py)' % r.name
    fam = 'SHOAL_PROF_' + p['fam']
    nbytes = fill_placeholders(r, p['nbytes'])
    if not p['target']:
        return ('shoal_prof_call_begin(%s)' % fam,
                'shoal_prof_call_end(%s, t0, %s);' % (fam, nbytes))
    assert 'pe' in r.param_names(), '%s: a profile target needs a `pe` parameter' % r.name
    assert not {'t0', 'ret'} & set(r.param_names()), r.name  # the twin's own names
    ctx = 'ctx' if r.ctx else 'SHMEM_CTX_DEFAULT'
    return ('shoal_prof_to_begin(%s, %s, pe)' % (fam, ctx),
            'shoal_prof_to_end(%s, t0, %s, pe, %s);' % (fam, ctx, nbytes))


def _do(r):
    """The routine's body, shoal_do_X: inlined into the routine (where
    SHMEM_DEBUG's checks are compiled out) and into its slow twin."""
    body = '\n'.join('    ' + line for line in wrapper_body(r).split('\n'))
    return 'static inline %s\n{\n%s\n}' % (r.decl('shoal_do_' + r.name), body)


def _branch(r, cond, call):
    """`if (cond) return call;` (for a void routine: the call, then return)."""
    if r.ret == 'void':
        return '    if (%s) {\n        %s;\n        return;\n    }' % (cond, call)
    return '    if (%s)\n        return %s;' % (cond, call)


def _tail(r, call):
    return '    %s%s;' % ('' if r.ret == 'void' else 'return ', call)


def has_counted(r):
    """Whether r has a counted twin: the routines with a target PE, whose
    calls on this node take a few ns (SHMEM_DEBUG's body, out of line,
    would cost more than the counting)."""
    return r.family['prof']['target']


def _counted_body(r, do, args):
    """The profile's hooks around the call of `do`."""
    begin, end = profile_hooks(r)
    if r.ret == 'void':
        return '    uint64_t t0 = %s;\n    %s(%s);\n    %s' % (begin, do, args, end)
    return ('    uint64_t t0 = %s;\n    %s ret = %s(%s);\n    %s\n    return ret;'
            % (begin, r.ret, do, args, end))


def counted_twin(r):
    """shoal_counted_X, in the routines' file: where the call is counted
    by itself (shoal_prof_counter, core/profile/profile.h), the count, then
    the routine's own body; otherwise the slow twin."""
    args = ', '.join(r.param_names())
    assert 'counter' not in r.param_names(), r.name  # the twin's own name
    p = r.family['prof']
    nbytes = fill_placeholders(r, p['nbytes']).replace('shoal_nbytes(', 'shoal_prof_nbytes(')
    ctx = 'ctx' if r.ctx else 'SHMEM_CTX_DEFAULT'
    fam = 'SHOAL_PROF_' + p['fam']
    return ('SHOAL_COUNTED_TWIN SHOAL_FLATTEN %s\n{\n'
            '    struct shoal_prof_block *counter = shoal_prof_counter(%s, %s, pe);\n%s\n'
            '    shoal_prof_count(counter, %s, %s, pe, %s);\n%s\n}\n'
            % (r.decl('shoal_counted_' + r.name), fam, ctx,
               _branch(r, 'SHOAL_UNLIKELY(counter == NULL)', 'shoal_slow_%s(%s)' % (r.name, args)),
               fam, ctx, nbytes, _tail(r, 'shoal_do_%s(%s)' % (r.name, args))))


def fast_wrapper(r):
    """pshmem_X: one test of shoal_g.slow, then the body.  The test is the
    one SHMEM_DEBUG's checks had inside the body: SHOAL_PROFILE costs
    nothing more when it is off.  Where it is set, a routine with a target
    PE runs its counted twin, the others their slow twin.  Then shmem_X:
    the weak alias, or for a routine with a counted twin the indirect
    function that picks the twin while the profile counts
    (SHOAL_COUNTED_ALIAS, templates/api_family.c.in)."""
    args = ', '.join(r.param_names())
    slow, do = 'shoal_slow_' + r.name, 'shoal_do_' + r.name
    twin = counted_twin(r) if has_counted(r) else ''
    alias = ('SHOAL_COUNTED_ALIAS(%s, %s, shoal_counted_%s)' % (r.name, r.twin, r.name) if twin
             else 'SHOAL_WEAK_ALIAS(%s, %s)' % (r.name, r.twin))
    return ('%s\nSHOAL_SLOW_TWIN %s;\n%sSHOAL_EXPORT SHOAL_FLATTEN %s\n{\n%s\n%s\n}\n%s'
            % (_do(r), r.decl(slow), twin, r.decl(r.twin),
               _branch(r, 'SHOAL_UNLIKELY(shoal_g.slow)',
                       '%s(%s)' % ('shoal_counted_' + r.name if twin else slow, args)),
               _tail(r, '%s(%s)' % (do, args)), alias))


def slow_wrapper(r):
    """shoal_slow_X: the body with SHMEM_DEBUG's checks, between the
    profile's hooks while SHOAL_PROFILE counts."""
    args = ', '.join(r.param_names())
    do = 'shoal_do_' + r.name
    return ('%s\nSHOAL_SLOW_TWIN %s\n{\n%s\n%s\n}'
            % (_do(r), r.decl('shoal_slow_' + r.name),
               _branch(r, '!shoal_prof_on', '%s(%s)' % (do, args)),
               _counted_body(r, do, args)))


def slow_name(fname):
    """The file of a family's slow twins: api_<area>_<family>_slow.c."""
    return fname[:-2] + '_slow.c'


def gen_source(fname, routines, slow=False):
    fams = []
    for r in routines:
        if r.family not in fams:
            fams.append(r.family)
    amo_types = []
    for r in routines:
        b = r.family['body']
        if r.tn and ('{TO}' in b or '{FROM}' in b):
            if r.tn not in amo_types:
                amo_types.append(r.tn)
    wrappers = [(slow_wrapper if slow else fast_wrapper)(r) for r in routines]
    bits = [fill('tools/gen/templates/amo_bits.c.in', values={'TN': tn, 'TYPE': T.c_type(tn)})
            for tn in amo_types]
    includes = ['coll/coll.h'] if any(f['impl'] == 'coll' for f in fams) else []
    for f in fams:
        includes += [h for h in f['includes'] if h not in includes]
    if any(f['ext'] for f in fams):
        includes.insert(0, 'shmemx.h')
    prelude = ('/* SHMEM_DEBUG\'s checks are the slow twins\' (%s): this file\'s\n'
               ' * routines test shoal_g.slow once and run the twin when it is set. */\n'
               '#define SHOAL_OPS_DEBUG 0' % slow_name(fname))
    return fill_file(slow_name(fname) if slow else fname,
                     'tools/gen/templates/api_family.c.in', blocks={
        'SHOAL_PRELUDE': '' if slow else prelude,
        'SHOAL_INCLUDES': '\n'.join('#include "%s"' % h for h in includes),
        'SHOAL_DEFINITIONS': '\n'.join(bits + ['\n\n'.join(wrappers)]),
    }, values={'SHOAL_FAMILIES': ', '.join(f['name'] for f in fams)})

# ------------------------------------------------------------------- main


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--symbols', default=SPEC_SYMBOLS,
                    help='the spec list (default: %(default)s)')
    ap.add_argument('--generics', default=SPEC_GENERICS,
                    help='the spec\'s generic names (default: %(default)s)')
    ap.add_argument('--version', default='0.0.0')
    ap.add_argument('--aliases', default='',
                    help='fixed-width TYPENAME=fundamental TYPENAME pairs, comma-separated')
    ap.add_argument('--include-dir')
    ap.add_argument('--src-dir')
    ap.add_argument('--list-sources', action='store_true')
    ap.add_argument('--stamp', help='file to touch when done')
    a = ap.parse_args()

    if a.list_sources:
        print(';'.join(os.path.join(a.src_dir, n) for f, _ in source_plan()
                       for n in (f, slow_name(f))))
        return 0
    aliases = parse_aliases(a.aliases)
    errors, nspec = check_against_spec(a.symbols, a.generics)
    if errors:
        for e in errors[:200]:
            print('gen_api: ' + e, file=sys.stderr)
        print('gen_api: %d difference(s) between tools/gen/api_table.py and %s'
              % (len(errors), a.symbols), file=sys.stderr)
        return 1
    a.alias_map = aliases
    if a.include_dir:
        for name, gen in HEADERS.items():
            write(os.path.join(a.include_dir, name), gen(a))
    nwrap = 0
    if a.src_dir:
        write(os.path.join(a.src_dir, 'shoal_types.h'), gen_types_h())
        plan = source_plan()
        for fname, routines in plan:
            write(os.path.join(a.src_dir, fname), gen_source(fname, routines))
            write(os.path.join(a.src_dir, slow_name(fname)),
                  gen_source(fname, routines, slow=True))
            nwrap += len(routines)
        # Wrapper files of an earlier table (or generator) would only
        # mislead a reader who greps the build tree.
        files = {n for f, _ in plan for n in (f, slow_name(f))}
        for old in os.listdir(a.src_dir):
            if re.match(r'api_\w+\.c$', old) and old not in files:
                os.remove(os.path.join(a.src_dir, old))
    if a.stamp:
        write(a.stamp, 'ok\n')
    nextra = sum(1 for r in STD if r.extra)
    print('gen_api: %d routines match the spec list (%d symbols), %d beyond it; %d generic '
          'names; %d extension routines, %d extension generics; %d wrappers generated'
          % (len(STD) - nextra, nspec, nextra, len(T.GENERICS), len(EXT), len(T.EXT_GENERICS),
             nwrap))
    return 0


if __name__ == '__main__':
    sys.exit(main())
