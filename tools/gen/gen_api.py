#!/usr/bin/env python3
"""Generate Shoal's public headers and typed API wrappers from api_table.py.

    gen_api.py --symbols tests/data/symbols-1.6.tsv --generics tests/data/generics-1.6.txt \
               --version 0.1.0 --aliases int8=schar,int64=long,... \
               --include-dir BUILD/include --src-dir BUILD/tools/gen/src

writes  INCLUDE/shmem.h, shmemx.h, pshmem.h, mpp/shmem.h, mpp/shmemx.h
        SRC/api_<section>_<n>.c   (pshmem_X definitions + weak shmem_X aliases)

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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import api_table as T  # noqa: E402

CHUNK = 32  # routines per generated source file (see source_plan)

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
    assert name.startswith('shmem_'), name
    cname = 'shmem_ctx_' + name[len('shmem_'):]
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
    out = []
    for fam in T.FAMILIES:
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
    for r in ALL:
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
    if not errors and [r.name for r in ALL if not r.extra] != [row['symbol'] for row in spec]:
        errors.append('routine order differs from the spec list')
    # Generic names.
    with open(generics_txt) as f:
        spec_generics = [l.strip() for l in f if l.strip()]
    ours = [g['name'] for g in T.GENERICS]
    if sorted(ours) != sorted(spec_generics) or len(set(ours)) != len(ours):
        errors.append('generic names differ: missing %s, extra %s' % (
            sorted(set(spec_generics) - set(ours)), sorted(set(ours) - set(spec_generics))))
    # Every generic target exists; every non-deprecated typed routine of a
    # generic's family is reachable (before deduplication).
    for g in T.GENERICS:
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
    return errors, len(spec)

# ---------------------------------------------------------------- headers


BANNER = ('/* %s — generated by tools/gen/gen_api.py from tools/gen/api_table.py.\n'
          ' * Do not edit: change the table and rebuild. */\n')


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
        lines.append(_decorated(r, r.twin if twin else None))
    if in_complex:
        lines.append('#endif')
    return '\n'.join(lines)


def _c_define(name, value, width=34):
    return '#define %-*s %s' % (width, name, value)


def gen_shmem_h(version, aliases):
    major, minor, patch = (version.split('.') + ['0', '0'])[:3]
    vendor = '"Shoal %s"' % version
    out = [BANNER % 'shmem.h', '''/* The OpenSHMEM %d.%d C/C++ API of Shoal.  It holds what the specification
 * defines plus implementation-prefixed (SHOAL_/shoal_) helpers; extensions
 * are in shmemx.h, the profiling twins in pshmem.h. */
#ifndef SHOAL_SHMEM_H
#define SHOAL_SHMEM_H

#include <stddef.h>
#include <stdint.h>
''' % (T.SPEC_MAJOR, T.SPEC_MINOR)]
    out.append('/* Library version (implementation-prefixed). */')
    out.append(_c_define('SHOAL_VERSION_MAJOR', major))
    out.append(_c_define('SHOAL_VERSION_MINOR', minor))
    out.append(_c_define('SHOAL_VERSION_PATCH', patch))
    out.append(_c_define('SHOAL_VERSION_STRING', '"%s"' % version))
    out.append('')
    out.append('/* Library constants. */')
    for name, value, comment in T.CONSTANTS:
        if comment:
            out.append('/* %s */' % comment)
        out.append(_c_define(name, vendor if value == '@VENDOR@' else value))
    out.append('')
    out.append('/* Deprecated (1.3) spellings of the constants above. */')
    for name in T.DEPRECATED_CONSTANT_ALIASES:
        out.append(_c_define(name, name[1:]))
    out.append(r'''
/* Compiler support. */
#if defined(__cplusplus)
#define SHOAL_NORETURN [[noreturn]]
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define SHOAL_NORETURN _Noreturn
#elif defined(__GNUC__)
#define SHOAL_NORETURN __attribute__((noreturn))
#else
#define SHOAL_NORETURN
#endif

/* Define SHOAL_WARN_DEPRECATED to get compiler warnings for the
 * deprecated routines. */
#if defined(SHOAL_WARN_DEPRECATED) && defined(__GNUC__)
#define SHOAL_DEPRECATED __attribute__((deprecated))
#else
#define SHOAL_DEPRECATED
#endif

/* The complex-typed reductions exist where the compiler has _Complex. */
#if defined(__cplusplus)
#if defined(__GNUC__)
#define SHOAL_HAVE_COMPLEX 1
#else
#define SHOAL_HAVE_COMPLEX 0
#endif
#elif defined(__STDC_NO_COMPLEX__)
#define SHOAL_HAVE_COMPLEX 0
#else
#define SHOAL_HAVE_COMPLEX 1
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Handles: opaque pointers to distinct structs (defined privately in
 * src/core/state.h), so a team passed where a context is expected does not
 * compile.  The predefined handles are link-time constants. */
typedef struct shoal_ctx *shmem_ctx_t;
typedef struct shoal_team *shmem_team_t;

typedef struct {
    int num_contexts;
} shmem_team_config_t;

typedef struct {
    size_t total_ops;
} shmem_ctx_session_config_t;

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

extern struct shoal_ctx shoal_ctx_default;
extern struct shoal_team shoal_team_world;
extern struct shoal_team shoal_team_shared;

#define SHMEM_CTX_DEFAULT  ((shmem_ctx_t)&shoal_ctx_default)
#define SHMEM_CTX_INVALID  ((shmem_ctx_t)0)
#define SHMEM_TEAM_WORLD   ((shmem_team_t)&shoal_team_world)
#define SHMEM_TEAM_SHARED  ((shmem_team_t)&shoal_team_shared)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)''')
    out.append(_prototype_block(ALL))
    out.append(r'''
#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif
''')
    out.append(gen_c11_generics(aliases))
    out.append(gen_cxx_overloads(aliases))
    out.append('#endif /* SHOAL_SHMEM_H */\n')
    return '\n'.join(out)


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


def gen_c11_generics(aliases):
    out = [r'''/* ====================================================================
 * C11 type-generic interfaces.  RMA, AMO and put-with-signal take an
 * optional leading shmem_ctx_t; collectives take the team first and select
 * on dest.  Association lists hold one entry per distinct type: on this
 * target the fixed-width types that are other names of fundamental types
 * (configure-time probe) are reached through those.  shmem_sync,
 * shmem_wait_until, shmem_signal_add and shmem_signal_set are also C
 * functions: the macros select on the first argument's type, and the
 * functions remain callable as (shmem_sync)(...) or through their address.
 */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && \
    !defined(SHOAL_NO_C11_GENERICS)

#define SHOAL_C11_ARG0(...) SHOAL_C11_ARG0_(__VA_ARGS__, 0)
#define SHOAL_C11_ARG0_(a, ...) a
#define SHOAL_C11_ARG1(...) SHOAL_C11_ARG1_(__VA_ARGS__, 0, 0)
#define SHOAL_C11_ARG1_(a, b, ...) b

/* Never defined: selected only when a shmem_ctx_t is followed by an argument
 * of an unsupported type, which then fails to compile (too many arguments). */
void shoal_c11_type_error(void);
''']
    # The probe's findings, checked where the header is used.
    for tn in T.FIXED_WIDTH:
        if tn in aliases:
            out.append('_Static_assert(_Generic((%s *)0, %s *: 1, default: 0),\n'
                       '               "shmem.h was generated for a target where %s is %s");'
                       % (T.c_type(tn), T.c_type(aliases[tn]), T.c_type(tn),
                          T.c_type(aliases[tn])))
    out.append('')
    for g in T.GENERICS:
        out.append(_generic_macro(g, aliases))
        out.append('')
    out.append('#endif /* C11 generics */\n')
    return '\n'.join(out)


def _cxx_overload(name, r):
    """An inline C++ overload `name` forwarding to routine r."""
    params = r.params
    args = ', '.join(r.param_names())
    ret = '' if r.ret == 'void' else 'return '
    return 'inline %s %s(%s) { %s%s(%s); }' % (r.ret, name, params, ret, r.name, args)


def gen_cxx_overloads(aliases):
    out = [r'''/* ====================================================================
 * C++: the type-generic names are overload sets (no _Generic in C++). */
#if defined(__cplusplus) && !defined(SHOAL_NO_CXX_OVERLOADS)
extern "C++" {''']
    for g in T.GENERICS:
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
    out.append('\n} /* extern "C++" */\n#endif /* C++ overloads */\n')
    return '\n'.join(out)


def gen_pshmem_h():
    return '\n'.join([BANNER % 'pshmem.h', '''/* The profiling interface: every routine of shmem.h also exists as
 * pshmem_X (pX for the deprecated names without the shmem_ prefix).  Types
 * and constants come from shmem.h. */
#ifndef SHOAL_PSHMEM_H
#define SHOAL_PSHMEM_H

#include "shmem.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif''', _prototype_block(ALL, twin=True), '''
#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SHOAL_PSHMEM_H */
'''])


def gen_shmemx_h():
    return BANNER % 'shmemx.h' + '''/* Shoal's extensions to OpenSHMEM (shmemx_ prefix). */
#ifndef SHOAL_SHMEMX_H
#define SHOAL_SHMEMX_H

#include "shmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Network transport (UCX) worker statistics of the calling PE: workers
 * created so far, held by live contexts (or threads, for SHMEM_CTX_DEFAULT
 * under SHMEM_THREAD_MULTIPLE) now, and how many times a context got a
 * pooled worker back instead of a new one.  Zeros without a network
 * transport; any pointer may be NULL. */
void shmemx_net_worker_counts(long *created, long *in_use, long *reused);

/* Wait-engine counters of the calling process since it started: sleep
 * episodes of its waiters, wake-up system calls its writers made (at most
 * one per sleep episode of the PE written to), and sleeps that ended by
 * their safety timeout although the awaited value had arrived (a wake-up
 * that did not come).  Any pointer may be NULL. */
void shmemx_wait_counters(unsigned long long *sleeps, unsigned long long *wakes,
                          unsigned long long *late_timeouts);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SHOAL_SHMEMX_H */
'''


def gen_mpp(name):
    return (BANNER % ('mpp/' + name) + '/* The deprecated mpp/ location of <%s>. */\n'
            '#include "../%s"\n' % (name, name))

# ---------------------------------------------------------------- sources


def _slug(s):
    return re.sub(r'[^a-z0-9]+', '_', s.lower()).strip('_')


def wrapper_routines():
    kinds = {'gen'} | ({'coll'} if T.GENERATE_COLLECTIVE_WRAPPERS else set())
    return [r for r in ALL if r.impl in kinds]


def source_plan():
    """[(file name, [routines])]: each section's generated routines in files
    of at most CHUNK, so that the library builds in parallel.  (Inlining of
    core/ops.h's fast paths does not depend on the split: every wrapper is
    SHOAL_FLATTEN, see api/prof.h.)"""
    plan = []
    wrapped = wrapper_routines()
    for section in T.SECTIONS:
        rs = [r for r in wrapped if r.section == section]
        for n, i in enumerate(range(0, len(rs), CHUNK)):
            plan.append(('api_%s_%d.c' % (_slug(section), n), rs[i:i + CHUNK]))
    return plan


def _bits_helpers(tns):
    out = []
    for tn in tns:
        ct = T.c_type(tn)
        out.append('''_Static_assert(sizeof(%(ct)s) == 4 || sizeof(%(ct)s) == 8, "AMOs are 4 or 8 bytes");
static inline uint64_t shoal_to_bits_%(tn)s(%(ct)s v)
{
    if (sizeof v == 4) {
        uint32_t b;
        memcpy(&b, &v, sizeof b);
        return b;
    }
    uint64_t b = 0;
    memcpy(&b, &v, sizeof v);
    return b;
}
static inline %(ct)s shoal_from_bits_%(tn)s(uint64_t r)
{
    %(ct)s v;
    if (sizeof v == 4) {
        uint32_t b = (uint32_t)r;
        memcpy(&v, &b, sizeof b);
        return v;
    }
    memcpy(&v, &r, sizeof v);
    return v;
}
''' % {'ct': ct, 'tn': tn})
    return '\n'.join(out)


def wrapper_body(r):
    body = r.family['body']
    assert body, 'no body for %s' % r.name
    tn = r.tn
    subs = {
        'ctx': 'ctx' if r.ctx else 'SHMEM_CTX_DEFAULT',
        'FN': '"%s"' % r.name,
        'ESIZE': r.esize or '?',
        'TYPE': T.c_type(tn) if tn else '?',
        'TO': 'shoal_to_bits_%s' % tn if tn else '?',
        'FROM': 'shoal_from_bits_%s' % tn if tn else '?',
        'TNU': (tn or '?').upper(),
        'WKIND': ('SHOAL_WKIND(%d, sizeof(%s))' % (1 if T.is_signed(tn) else 0, T.c_type(tn))
                  if tn else '?'),
    }
    text = body
    for k, v in subs.items():
        text = text.replace('{%s}' % k, v)
    assert '?' not in re.sub(r'"[^"]*"', '', text), (r.name, text)
    return text


def gen_source(fname, routines):
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
    out = [BANNER % fname.replace('.c', '.c (wrappers)'),
           '/* Families: %s.\n * Each routine is a strong pshmem_X plus a weak shmem_X alias '
           '(api/prof.h). */' % ', '.join(f['name'] for f in fams),
           '#include <string.h>',
           '',
           '#include "api/prof.h"',
           '#include "core/ops.h"']
    if any(f['impl'] == 'coll' for f in fams):
        out.append('#include "coll/coll.h"')
    out.append('')
    if amo_types:
        out.append('/* AMO values travel as raw bits: memcpy through a uint32_t/uint64_t of\n'
                   ' * the same size (floats included; signed values round-trip). */')
        out.append(_bits_helpers(amo_types))
    for r in routines:
        body = '\n'.join('    ' + l for l in wrapper_body(r).split('\n'))
        out.append('SHOAL_EXPORT SHOAL_FLATTEN %s\n{\n%s\n}\nSHOAL_WEAK_ALIAS(%s, %s)\n' % (
            r.decl(r.twin), body, r.name, r.twin))
    return '\n'.join(out)

# ------------------------------------------------------------------- main


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--symbols', help='symbols-1.6.tsv (the spec list)')
    ap.add_argument('--generics', help='generics-1.6.txt')
    ap.add_argument('--version', default='0.0.0')
    ap.add_argument('--aliases', default='',
                    help='fixed-width TYPENAME=fundamental TYPENAME pairs, comma-separated')
    ap.add_argument('--include-dir')
    ap.add_argument('--src-dir')
    ap.add_argument('--list-sources', action='store_true')
    ap.add_argument('--stamp', help='file to touch when done')
    a = ap.parse_args()

    if a.list_sources:
        print(';'.join(os.path.join(a.src_dir, f) for f, _ in source_plan()))
        return 0
    aliases = parse_aliases(a.aliases)
    errors, nspec = check_against_spec(a.symbols, a.generics)
    if errors:
        for e in errors[:200]:
            print('gen_api: ' + e, file=sys.stderr)
        print('gen_api: %d difference(s) between tools/gen/api_table.py and %s'
              % (len(errors), a.symbols), file=sys.stderr)
        return 1
    if a.include_dir:
        inc = a.include_dir
        write(os.path.join(inc, 'shmem.h'), gen_shmem_h(a.version, aliases))
        write(os.path.join(inc, 'pshmem.h'), gen_pshmem_h())
        write(os.path.join(inc, 'shmemx.h'), gen_shmemx_h())
        write(os.path.join(inc, 'mpp', 'shmem.h'), gen_mpp('shmem.h'))
        write(os.path.join(inc, 'mpp', 'shmemx.h'), gen_mpp('shmemx.h'))
    nwrap = 0
    if a.src_dir:
        for fname, routines in source_plan():
            write(os.path.join(a.src_dir, fname), gen_source(fname, routines))
            nwrap += len(routines)
    if a.stamp:
        write(a.stamp, 'ok\n')
    nextra = sum(1 for r in ALL if r.extra)
    print('gen_api: %d routines match the spec list (%d symbols), %d beyond it; %d generic '
          'names; %d wrappers generated' % (len(ALL) - nextra, nspec, nextra, len(T.GENERICS),
                                            nwrap))
    return 0


if __name__ == '__main__':
    sys.exit(main())
