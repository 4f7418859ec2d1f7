"""The OpenSHMEM 1.6 C API as data: the single source of truth of Shoal.

tools/gen/gen_api.py expands this table into the public headers (filling
the C templates include/shmem.h.in, pshmem.h.in, ...), the generated
wrapper sources (one file per family) and the internal X-macro header
shoal_types.h; tests/api/ and tests/coll/ read it to generate their typed
tests.  Edit the table (and the C text in the templates), never the output.

Layout
------
TYPES             TYPENAME -> C type, kind, signedness (spec tables' rows)
UNSIGNED_OF       signed integer TYPENAME -> unsigned TYPENAME of its width
PROMOTED          integer TYPENAMEs that arithmetic promotes to int
FIXED_WIDTH       the TYPENAMEs whose C type may be another name of a
                  fundamental type (int64_t is usually long); the build probes
                  which ones are (tools/gen/CMakeLists.txt) so that generic
                  association lists and C++ overload sets never hold two
                  compatible types
TABLES            the spec's type tables by LaTeX label, rows in spec order;
                  teamreducetypes/asetreducetypes are keyed by column;
                  TEAMREDUCE_TYPES lists teamreducetypes' rows
SIZES             the SIZE set of the sized RMA/signal routines, in bits
CONSTANTS         every library constant (name, value, comment)
SECTIONS          the spec's sections, in order; a family belongs to one
FAMILIES          every routine family: its forms (typed over a table, sized,
                  single), ctx twins, deprecated flag, since, and how it is
                  implemented:  impl = 'gen'  wrapper generated from `body`
                                       'coll' generated only when
                                              GENERATE_COLLECTIVE_WRAPPERS
                                       'hand' written by hand in src/api/
                  extra=True marks a family beyond the 1.6 list (other
                  libraries provide it and programs use it): the check
                  against symbols-1.6.tsv skips it, and requires that it is
                  not in that list
GENERICS          the 73 C11 type-generic names (also C++ overload sets)

Body templates are C statements with these placeholders, filled per routine:
  {ctx}    `ctx` in a ctx twin, SHMEM_CTX_DEFAULT otherwise
  {TYPE}   the C type of the row (typed forms, and single forms with a type)
  {ESIZE}  bytes per element: sizeof(TYPE), SIZE/8, or 1 for *mem
  {NBYTES} the byte length of `nelems` elements, overflow-checked:
           shoal_nbytes(nelems, {ESIZE}, {FN}) (core/ops.h).  A body never
           multiplies a count by {ESIZE} itself (the generator refuses it):
           a count whose bytes wrap around size_t must be an error
  {FN}     the public routine name as a C string, for error messages
  {WKIND}  the wait/test comparison kind: SHOAL_WKIND(signed, sizeof(TYPE))
  {TO}     name of the TYPE -> uint64_t raw-bits helper (AMOs)
  {FROM}   name of the uint64_t raw-bits -> TYPE helper (AMOs)
  {TNU}    the TYPENAME in upper case (SHOAL_DT_INT, ...; collectives)
Parameter names in the bodies are those of the prototype patterns.

Every generated family also says what SHOAL_PROFILE counts for a call
(`prof=`, see prof() below): its profile family (a row of
src/core/profile/prof_families.h), the bytes of one call (a C expression
with the body's placeholders) and whether it has a target PE (`pe` of
{ctx}'s team).  The generator gives each routine a profiled twin
(tools/gen/templates/api_family.c.in) and refuses a family without it.
"""

# --------------------------------------------------------------- switches

# Typed collectives (alltoall, broadcast, reductions, scans, the deprecated
# active-set routines): their prototypes and generics are always emitted;
# their wrappers are generated only when this is True (a later issue
# implements coll/ and flips it).  The 'coll' bodies below then call
# coll/coll.h, which must provide the functions and constants they name.
GENERATE_COLLECTIVE_WRAPPERS = True

# ------------------------------------------------------------------ types

# TYPENAME: (C type, kind, signed)   kind: int | float | complex
TYPES = {
    'float':      ('float', 'float', True),
    'double':     ('double', 'float', True),
    'longdouble': ('long double', 'float', True),
    'char':       ('char', 'int', None),       # signedness is the target's
    'schar':      ('signed char', 'int', True),
    'short':      ('short', 'int', True),
    'int':        ('int', 'int', True),
    'long':       ('long', 'int', True),
    'longlong':   ('long long', 'int', True),
    'uchar':      ('unsigned char', 'int', False),
    'ushort':     ('unsigned short', 'int', False),
    'uint':       ('unsigned int', 'int', False),
    'ulong':      ('unsigned long', 'int', False),
    'ulonglong':  ('unsigned long long', 'int', False),
    'int8':       ('int8_t', 'int', True),
    'int16':      ('int16_t', 'int', True),
    'int32':      ('int32_t', 'int', True),
    'int64':      ('int64_t', 'int', True),
    'uint8':      ('uint8_t', 'int', False),
    'uint16':     ('uint16_t', 'int', False),
    'uint32':     ('uint32_t', 'int', False),
    'uint64':     ('uint64_t', 'int', False),
    'size':       ('size_t', 'int', False),
    'ptrdiff':    ('ptrdiff_t', 'int', True),
    'complexd':   ('double _Complex', 'complex', True),
    'complexf':   ('float _Complex', 'complex', True),
}

# Typedef names that may denote a fundamental type listed above.  The build
# passes their resolution as --aliases int8=schar,int64=long,... (a
# fixed-width type absent from the map is a distinct type).
FIXED_WIDTH = ['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64',
               'size', 'ptrdiff']

# The unsigned type of the same width as each signed integer TYPENAME
# (reductions compute integer sums and products in it, so they wrap).
UNSIGNED_OF = {
    'char': 'uchar', 'schar': 'uchar', 'short': 'ushort', 'int': 'uint', 'long': 'ulong',
    'longlong': 'ulonglong', 'ptrdiff': 'size', 'int8': 'uint8', 'int16': 'uint16',
    'int32': 'uint32', 'int64': 'uint64',
}

# Integer TYPENAMEs that C's integer promotions turn into int (rank below
# int; int16_t and uint16_t are at most as wide as int everywhere).
PROMOTED = ['char', 'schar', 'uchar', 'short', 'ushort', 'int8', 'int16', 'uint8', 'uint16']

_STDAMO = ['int', 'long', 'longlong', 'uint', 'ulong', 'ulonglong',
           'int32', 'int64', 'uint32', 'uint64', 'size', 'ptrdiff']

# The spec's type tables (LaTeX labels), rows in the spec's order.
TABLES = {
    # Table "stdrmatypes": standard RMA types (24)
    'stdrmatypes': ['float', 'double', 'longdouble', 'char', 'schar', 'short', 'int', 'long',
                    'longlong', 'uchar', 'ushort', 'uint', 'ulong', 'ulonglong',
                    'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64',
                    'size', 'ptrdiff'],
    # Table "stdamotypes": standard AMO types (12)
    'stdamotypes': list(_STDAMO),
    # Table "extamotypes": extended AMO types (14)
    'extamotypes': ['float', 'double'] + _STDAMO,
    # Table "bitamotypes": bitwise AMO types (7)
    'bitamotypes': ['uint', 'ulong', 'ulonglong', 'int32', 'int64', 'uint32', 'uint64'],
    # Table "p2psynctypes": point-to-point sync types (14; deprecated since 1.5)
    'p2psynctypes': ['short', 'int', 'long', 'longlong', 'ushort', 'uint', 'ulong',
                     'ulonglong', 'int32', 'int64', 'uint32', 'uint64', 'size', 'ptrdiff'],
}

# Table "teamreducetypes" (26 rows) with its operator columns.
_TEAMREDUCE_ROWS = [
    # TYPENAME     AND/OR/XOR  MAX/MIN  SUM/PROD
    ('char',       False,      True,    True),
    ('schar',      False,      True,    True),
    ('short',      False,      True,    True),
    ('int',        False,      True,    True),
    ('long',       False,      True,    True),
    ('longlong',   False,      True,    True),
    ('ptrdiff',    False,      True,    True),
    ('uchar',      True,       True,    True),
    ('ushort',     True,       True,    True),
    ('uint',       True,       True,    True),
    ('ulong',      True,       True,    True),
    ('ulonglong',  True,       True,    True),
    ('int8',       True,       True,    True),
    ('int16',      True,       True,    True),
    ('int32',      True,       True,    True),
    ('int64',      True,       True,    True),
    ('uint8',      True,       True,    True),
    ('uint16',     True,       True,    True),
    ('uint32',     True,       True,    True),
    ('uint64',     True,       True,    True),
    ('size',       True,       True,    True),
    ('float',      False,      True,    True),
    ('double',     False,      True,    True),
    ('longdouble', False,      True,    True),
    ('complexd',   False,      False,   True),
    ('complexf',   False,      False,   True),
]
# Table "asetreducetypes" (9 rows; only the deprecated *_to_all use it).
_ASETREDUCE_ROWS = [
    ('short',      True,  True,  True),
    ('int',        True,  True,  True),
    ('long',       True,  True,  True),
    ('longlong',   True,  True,  True),
    ('float',      False, True,  True),
    ('double',     False, True,  True),
    ('longdouble', False, True,  True),
    ('complexd',   False, False, True),
    ('complexf',   False, False, True),
]


# The rows of teamreducetypes in the spec's order (every row of
# asetreducetypes is one of them): the element types of the reductions and
# scans, in coll/ as SHOAL_FOREACH_REDUCE_TYPE (generated shoal_types.h).
TEAMREDUCE_TYPES = [r[0] for r in _TEAMREDUCE_ROWS]


def _columns(rows):
    col = {'AND': 1, 'OR': 1, 'XOR': 1, 'MAX': 2, 'MIN': 2, 'SUM': 3, 'PROD': 3}
    return {op: [r[0] for r in rows if r[i]] for op, i in col.items()}


TABLES['teamreducetypes'] = _columns(_TEAMREDUCE_ROWS)
TABLES['asetreducetypes'] = _columns(_ASETREDUCE_ROWS)

# SIZE, in bits, of shmem_[ctx_]{put,get,iput,iget,ibput,ibget}S[_nbi] and
# shmem_[ctx_]putS_signal[_nbi].
SIZES = [8, 16, 32, 64, 128]

# -------------------------------------------------------------- constants

SPEC_MAJOR, SPEC_MINOR = 1, 6

# (name, value, comment).  '@VENDOR@' is replaced by "Shoal <version>".
CONSTANTS = [
    ('SHMEM_MAJOR_VERSION', '1', 'specification version implemented'),
    ('SHMEM_MINOR_VERSION', '6', None),
    ('SHMEM_MAX_NAME_LEN', '256', 'maximum length of SHMEM_VENDOR_STRING'),
    ('SHMEM_VENDOR_STRING', '@VENDOR@', None),
    ('SHMEM_THREAD_SINGLE', '0', 'thread levels (increasing)'),
    ('SHMEM_THREAD_FUNNELED', '1', None),
    ('SHMEM_THREAD_SERIALIZED', '2', None),
    ('SHMEM_THREAD_MULTIPLE', '3', None),
    ('SHMEM_CTX_SERIALIZED', '1L', 'shmem_ctx_create options'),
    ('SHMEM_CTX_PRIVATE', '2L', None),
    ('SHMEM_CTX_NOSTORE', '4L', None),
    ('SHMEM_CTX_SESSION_BATCH', '1L', 'shmem_ctx_session_start option'),
    ('SHMEM_CTX_SESSION_TOTAL_OPS', '1L', 'shmem_ctx_session_config_t mask bit'),
    ('SHMEM_TEAM_NUM_CONTEXTS', '1L', 'shmem_team_config_t mask bit'),
    ('SHMEM_MALLOC_ATOMICS_REMOTE', '1L', 'shmem_malloc_with_hints hints'),
    ('SHMEM_MALLOC_SIGNAL_REMOTE', '2L', None),
    ('SHMEM_SIGNAL_SET', '0', 'sig_op of the put-with-signal routines'),
    ('SHMEM_SIGNAL_ADD', '1', None),
    ('SHMEM_CMP_EQ', '0', 'comparison operators of wait/test'),
    ('SHMEM_CMP_NE', '1', None),
    ('SHMEM_CMP_GT', '2', None),
    ('SHMEM_CMP_GE', '3', None),
    ('SHMEM_CMP_LT', '4', None),
    ('SHMEM_CMP_LE', '5', None),
    ('SHMEM_SYNC_VALUE', '0L', 'deprecated (1.5): active-set collectives'),
    ('SHMEM_SYNC_SIZE', '128L', None),
    ('SHMEM_BCAST_SYNC_SIZE', '128L', None),
    ('SHMEM_REDUCE_SYNC_SIZE', '128L', None),
    ('SHMEM_BARRIER_SYNC_SIZE', '128L', None),
    ('SHMEM_COLLECT_SYNC_SIZE', '128L', None),
    ('SHMEM_ALLTOALL_SYNC_SIZE', '128L', None),
    ('SHMEM_ALLTOALLS_SYNC_SIZE', '128L', None),
    ('SHMEM_REDUCE_MIN_WRKDATA_SIZE', '16L', None),
]

# Deprecated (1.3) spellings still required: _SHMEM_X means SHMEM_X.
DEPRECATED_CONSTANT_ALIASES = [
    '_SHMEM_SYNC_VALUE', '_SHMEM_BCAST_SYNC_SIZE', '_SHMEM_REDUCE_SYNC_SIZE',
    '_SHMEM_BARRIER_SYNC_SIZE', '_SHMEM_COLLECT_SYNC_SIZE', '_SHMEM_REDUCE_MIN_WRKDATA_SIZE',
    '_SHMEM_MAJOR_VERSION', '_SHMEM_MINOR_VERSION', '_SHMEM_MAX_NAME_LEN',
    '_SHMEM_VENDOR_STRING', '_SHMEM_CMP_EQ', '_SHMEM_CMP_NE', '_SHMEM_CMP_LT',
    '_SHMEM_CMP_LE', '_SHMEM_CMP_GT', '_SHMEM_CMP_GE',
]

# ---------------------------------------------------------------- sections

SECTIONS = [
    'Library setup, exit, and query',
    'Thread support',
    'Memory management',
    'Team management',
    'Communication management (contexts)',
    'RMA',
    'AMO',
    'Signaling',
    'Sessions',
    'Collectives',
    'Point-to-point synchronization',
    'Memory ordering',
    'Distributed locking',
    'Profiling interface',
]

# Sections of Shoal's extensions (shmemx.h), in the order they are printed.
EXT_SECTIONS = [
    'Requests: explicit non-blocking operations (shmemx)',
    'Active messages (shmemx)',
    'Multi-threaded collectives (shmemx)',
]

# ------------------------------------------------------------ form helpers
#
# A prototype pattern is 'RET NAME(PARAMS)' as the spec prints it.  In typed
# forms NAME contains {T} (the TYPENAME) and TYPE stands for the C type; in
# sized forms NAME contains {S} (the SIZE in bits).  ctx twins are derived:
# shmem_X -> shmem_ctx_X with a leading `shmem_ctx_t ctx` parameter.


def typed(types, proto):
    """One routine per row of `types`: a table label, (label, column), or a
    list of TYPENAMEs (the deprecated routines' fixed subsets)."""
    return {'kind': 'typed', 'types': types, 'proto': proto}


def sized(proto):
    """One routine per SIZE; the element is SIZE/8 bytes."""
    return {'kind': 'sized', 'proto': proto}


def mem(proto):
    """The byte-granular *mem routine of a typed family."""
    return {'kind': 'mem', 'proto': proto}


def single(proto, type=None, noreturn=False, esize=None):
    """One routine.  `type` (a TYPENAME) gives {TYPE} for body templates,
    `esize` the {ESIZE} of the deprecated 32/64-bit collectives."""
    return {'kind': 'single', 'proto': proto, 'type': type, 'noreturn': noreturn,
            'esize': esize}


def prof(fam, nbytes='0', target=False):
    """What SHOAL_PROFILE counts for one call of a generated routine:
    SHOAL_PROF_<fam> (src/core/profile/prof_families.h), `nbytes` (a C
    expression, evaluated after the call: its arguments were valid) and,
    with `target`, the target PE `pe` of {ctx}'s team."""
    return {'fam': fam, 'nbytes': nbytes, 'target': target}


def family(section, name, forms, since, ctx=False, deprecated=False, impl='hand', body=None,
           extra=False, ext=False, includes=(), prof=None):
    assert impl in ('hand', 'gen', 'coll'), impl
    assert section in (EXT_SECTIONS if ext else SECTIONS), section
    assert (prof is None) == (impl == 'hand'), '%s: prof= goes with a generated body' % name
    return {'section': section, 'name': name, 'forms': forms, 'since': since, 'ctx': ctx,
            'deprecated': deprecated, 'impl': impl, 'body': body, 'extra': extra, 'ext': ext,
            'includes': tuple(includes), 'prof': prof}


def ext_family(section, name, forms, ctx=False, impl='hand', body=None, includes=(), prof=None):
    """A Shoal extension family (shmemx.h): routine names start with
    shmemx_, ctx twins are shmemx_ctx_X, `since` is the Shoal version that
    added it.  `includes` are internal headers its generated wrappers need
    (e.g. 'ext/requests/request.h')."""
    return family(section, name, forms, 'Shoal', ctx=ctx, impl=impl, body=body, ext=True,
                  includes=includes, prof=prof)


# The profile of the element-sized transfers and atomics.
_P_ELEM = 'sizeof({TYPE})'
# The blocked strided forms move nblocks blocks of bsize elements.
_P_BLOCKS = 'shoal_nbytes(shoal_nbytes(nblocks, bsize, {FN}), {ESIZE}, {FN})'


# ---------------------------------------------------------------- families
#
# `name` is the family as symbols-1.6.tsv (column "family") names it; the
# generator checks every emitted routine against that file.

S_SETUP, S_THREAD, S_MEM, S_TEAM, S_CTX, S_RMA, S_AMO, S_SIG, S_SESS, S_COLL, S_P2P, \
    S_ORDER, S_LOCK, S_PROF = SECTIONS

_RMA_ARGS = 'TYPE *dest, const TYPE *source, size_t nelems, int pe'
_RMA_VARGS = 'void *dest, const void *source, size_t nelems, int pe'
_STRIDED = 'TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe'
_VSTRIDED = 'void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe'
_BLOCKED = ('TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, '
            'size_t nblocks, int pe')
_VBLOCKED = ('void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, '
             'size_t nblocks, int pe')
_SIG = 'uint64_t *sig_addr, uint64_t signal, int sig_op, int pe'
_ASET = 'int PE_start, int logPE_stride, int PE_size, long *pSync'


def _rma(name, op, since, body):
    """put/get-like family: typed, sized and mem forms."""
    return family(S_RMA, 'shmem_' + name, [
        typed('stdrmatypes', 'void shmem_{T}_%s(%s)' % (name, _RMA_ARGS)),
        sized('void shmem_%s{S}%s(%s)' % (op, name[len(op):], _RMA_VARGS)),
        mem('void shmem_%smem%s(%s)' % (op, name[len(op):], _RMA_VARGS)),
    ], since, ctx=True, impl='gen', body=body,
        prof=prof(name.upper(), '{NBYTES}', target=True))


def _amo_prof(ret):
    return prof('AMO_FETCH' if ret == 'TYPE' else 'AMO', _P_ELEM, target=True)


def _amo(name, table, proto_args, ret, since, body):
    """shmem_T_atomic_<name>: ret is 'TYPE' or 'void'."""
    return family(S_AMO, 'shmem_atomic_' + name, [
        typed(table, '%s shmem_{T}_atomic_%s(%s)' % (ret, name, proto_args)),
    ], since, ctx=True, impl='gen', body=body, prof=_amo_prof(ret))


def _amo_nbi(name, table, proto_args, body):
    return family(S_AMO, 'shmem_atomic_%s_nbi' % name, [
        typed(table, 'void shmem_{T}_atomic_%s_nbi(%s)' % (name, proto_args)),
    ], '1.5', ctx=True, impl='gen', body=body, prof=prof('AMO_NBI', _P_ELEM, target=True))


def _amo_old(name, types, proto, since, body):
    """Deprecated (1.4) pre-1.4 AMO names; no ctx twins."""
    return family(S_AMO, 'shmem_TYPENAME_' + name, [typed(types, proto)], since,
                  deprecated=True, impl='gen', body=body, prof=_amo_prof(proto.split()[0]))


_OLD_EXT = ['float', 'double', 'int', 'long', 'longlong']
_OLD_STD = ['int', 'long', 'longlong']


def _amo_call(op, value='{TO}(value)', cond='0', addr='dest'):
    return 'shoal_amo({ctx}, SHOAL_AMO_%s, %s, sizeof({TYPE}), %s, %s, pe, {FN})' % (
        op, addr, value, cond)


def _fetching(op, value='{TO}(value)', cond='0', addr='dest'):
    return 'return {FROM}(%s);' % _amo_call(op, value, cond, addr)


def _nonfetching(op, value='{TO}(value)'):
    return '(void)%s;' % _amo_call(op, value)


def _nbi(op, value='{TO}(value)', cond='0', addr='dest'):
    return ('shoal_amo_nbi({ctx}, SHOAL_AMO_%s, fetch, %s, sizeof({TYPE}), %s, %s, pe, {FN});'
            % (op, addr, value, cond))


_B_FETCH = _fetching('FETCH', value='0', addr='source')
_B_SET = _nonfetching('SET')
_B_CSWAP = _fetching('CSWAP', cond='{TO}(cond)')
_B_SWAP = _fetching('SWAP')
_B_FINC = _fetching('FADD', value='1')
_B_INC = _nonfetching('ADD', value='1')
_B_FADD = _fetching('FADD')
_B_ADD = _nonfetching('ADD')

_WAIT_SET = 'TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value'
_WAIT_SOME = 'TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp, TYPE cmp_value'
_WAIT_SETV = 'TYPE *ivars, size_t nelems, const int *status, int cmp, const TYPE *cmp_values'
_WAIT_SOMEV = ('TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp, '
               'const TYPE *cmp_values')


def _p2p_prof(name):
    return prof('TEST' if name.startswith('test') else 'WAIT')


def _p2p(name, ret, args, since, call):
    forms = [typed('stdamotypes', '%s shmem_{T}_%s(%s)' % (ret, name, args))]
    return family(S_P2P, 'shmem_' + name, forms, since, impl='gen', body=call,
                  prof=_p2p_prof(name))


# The deprecated point-to-point types that the multi-element routines lack
# in the spec (its p2psynctypes rows outside stdamotypes).
_P2P_OLD = ['short', 'ushort']


def _p2p_set(name, ret, args, call):
    """A multi-element wait/test family (1.5) and, right after it, its short
    and unsigned short forms: not in the 1.6 list, but the spec keeps those
    types for point-to-point synchronization (deprecated), other libraries
    provide these forms, and C11 programs that call the generic name on a
    `short *` need them."""
    return [
        _p2p(name, ret, args, '1.5', call),
        family(S_P2P, 'shmem_short_%s, shmem_ushort_%s' % (name, name),
               [typed(_P2P_OLD, '%s shmem_{T}_%s(%s)' % (ret, name, args))], '1.5',
               deprecated=True, impl='gen', body=call, extra=True, prof=_p2p_prof(name)),
    ]


# A collective's bytes: its own count times the element size (the block
# each PE sends in alltoall, what the root sends in broadcast, each PE's
# contribution in collect/fcollect).
_P_COLL = '{NBYTES}'


def _coll(name, args, mem_args, body, since='1.5'):
    forms = [typed('stdrmatypes', 'int shmem_{T}_%s(shmem_team_t team, %s)' % (name, args))]
    if mem_args:
        forms.append(mem('int shmem_%smem(shmem_team_t team, %s)' % (name, mem_args)))
    return family(S_COLL, 'shmem_' + name, forms, since, impl='coll', body=body,
                  prof=prof(name.upper(), _P_COLL))


def _coll_old(name, args, esize_body):
    """Deprecated active-set shmem_<name>32/64."""
    forms = [single('void shmem_%s%d(%s)' % (name, bits, args), esize=bits // 8)
             for bits in (32, 64)]
    return family(S_COLL, 'shmem_%s32, shmem_%s64' % (name, name), forms, '1.0',
                  deprecated=True, impl='coll', body=esize_body, prof=prof(name.upper(), _P_COLL))


def _reduce(op, col):
    return family(S_COLL, 'shmem_%s_reduce' % op, [
        typed(('teamreducetypes', col),
              'int shmem_{T}_%s_reduce(shmem_team_t team, TYPE *dest, const TYPE *source, '
              'size_t nreduce)' % op),
    ], '1.5', impl='coll',
        body='return shoal_coll_reduce(team, dest, source, nreduce, SHOAL_RED_%s, '
             'SHOAL_DT_{TNU}, {FN});' % col,
        prof=prof('REDUCE', 'shoal_nbytes(nreduce, {ESIZE}, {FN})'))


def _to_all(op, col):
    return family(S_COLL, 'shmem_TYPENAME_%s_to_all' % op, [
        typed(('asetreducetypes', col),
              'void shmem_{T}_%s_to_all(TYPE *dest, const TYPE *source, int nreduce, '
              'int PE_start, int logPE_stride, int PE_size, TYPE *pWrk, long *pSync)' % op),
    ], '1.0', deprecated=True, impl='coll',
        body='shoal_coll_to_all(dest, source, nreduce, PE_start, logPE_stride, PE_size, pWrk, '
             'pSync, SHOAL_RED_%s, SHOAL_DT_{TNU}, {FN});' % col,
        prof=prof('REDUCE', 'shoal_nbytes((size_t)nreduce, {ESIZE}, {FN})'))


def _scan(kind, exclusive):
    return family(S_COLL, 'shmem_sum_%s' % kind, [
        typed(('teamreducetypes', 'SUM'),
              'int shmem_{T}_sum_%s(shmem_team_t team, TYPE *dest, const TYPE *source, '
              'size_t nelems)' % kind),
    ], '1.6', impl='coll',
        body='return shoal_coll_scan(team, dest, source, nelems, %d, SHOAL_DT_{TNU}, {FN});'
             % exclusive, prof=prof('SCAN', '{NBYTES}'))


FAMILIES = [
    # ---------------------------------------------------------------- setup
    family(S_SETUP, 'shmem_init', [single('void shmem_init(void)')], '1.2'),
    family(S_SETUP, 'shmem_my_pe', [single('int shmem_my_pe(void)')], '1.2'),
    family(S_SETUP, 'shmem_n_pes', [single('int shmem_n_pes(void)')], '1.2'),
    family(S_SETUP, 'shmem_finalize', [single('void shmem_finalize(void)')], '1.2'),
    family(S_SETUP, 'shmem_query_initialized',
           [single('void shmem_query_initialized(int *initialized)')], '1.6'),
    family(S_SETUP, 'shmem_global_exit',
           [single('void shmem_global_exit(int status)', noreturn=True)], '1.2'),
    family(S_SETUP, 'shmem_pe_accessible', [single('int shmem_pe_accessible(int pe)')], '1.0'),
    family(S_SETUP, 'shmem_addr_accessible',
           [single('int shmem_addr_accessible(const void *addr, int pe)')], '1.0'),
    family(S_SETUP, 'shmem_ptr', [single('void *shmem_ptr(const void *dest, int pe)')], '1.0'),
    family(S_SETUP, 'shmem_team_ptr',
           [single('void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)')], '1.6'),
    family(S_SETUP, 'shmem_info_get_version',
           [single('void shmem_info_get_version(int *major, int *minor)')], '1.2'),
    family(S_SETUP, 'shmem_info_get_name', [single('void shmem_info_get_name(char *name)')],
           '1.2'),
    family(S_SETUP, 'start_pes', [single('void start_pes(int npes)')], '1.0', deprecated=True),
    family(S_SETUP, '_my_pe, _num_pes',
           [single('int _my_pe(void)'), single('int _num_pes(void)')], '1.0', deprecated=True),
    # --------------------------------------------------------------- thread
    family(S_THREAD, 'shmem_init_thread',
           [single('int shmem_init_thread(int requested, int *provided)')], '1.4'),
    family(S_THREAD, 'shmem_query_thread', [single('void shmem_query_thread(int *provided)')],
           '1.4'),
    # --------------------------------------------------------------- memory
    family(S_MEM, 'shmem_malloc', [single('void *shmem_malloc(size_t size)')], '1.2'),
    family(S_MEM, 'shmem_free', [single('void shmem_free(void *ptr)')], '1.2'),
    family(S_MEM, 'shmem_realloc', [single('void *shmem_realloc(void *ptr, size_t size)')],
           '1.2'),
    family(S_MEM, 'shmem_align', [single('void *shmem_align(size_t alignment, size_t size)')],
           '1.2'),
    family(S_MEM, 'shmem_malloc_with_hints',
           [single('void *shmem_malloc_with_hints(size_t size, long hints)')], '1.5'),
    family(S_MEM, 'shmem_calloc', [single('void *shmem_calloc(size_t count, size_t size)')],
           '1.4'),
    family(S_MEM, 'shmalloc, shfree, shrealloc, shmemalign', [
        single('void *shmalloc(size_t size)'),
        single('void shfree(void *ptr)'),
        single('void *shrealloc(void *ptr, size_t size)'),
        single('void *shmemalign(size_t alignment, size_t size)'),
    ], '1.0', deprecated=True),
    # ---------------------------------------------------------------- teams
    family(S_TEAM, 'shmem_team_my_pe', [single('int shmem_team_my_pe(shmem_team_t team)')],
           '1.5'),
    family(S_TEAM, 'shmem_team_n_pes', [single('int shmem_team_n_pes(shmem_team_t team)')],
           '1.5'),
    family(S_TEAM, 'shmem_team_get_config', [single(
        'int shmem_team_get_config(shmem_team_t team, long config_mask, '
        'shmem_team_config_t *config)')], '1.5'),
    family(S_TEAM, 'shmem_team_translate_pe', [single(
        'int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, '
        'shmem_team_t dest_team)')], '1.5'),
    family(S_TEAM, 'shmem_team_split_strided', [single(
        'int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, '
        'int size, const shmem_team_config_t *config, long config_mask, '
        'shmem_team_t *new_team)')], '1.5'),
    family(S_TEAM, 'shmem_team_split_2d', [single(
        'int shmem_team_split_2d(shmem_team_t parent_team, int xrange, '
        'const shmem_team_config_t *xaxis_config, long xaxis_mask, shmem_team_t *xaxis_team, '
        'const shmem_team_config_t *yaxis_config, long yaxis_mask, '
        'shmem_team_t *yaxis_team)')], '1.5'),
    family(S_TEAM, 'shmem_team_destroy', [single('void shmem_team_destroy(shmem_team_t team)')],
           '1.5'),
    # ------------------------------------------------------------- contexts
    family(S_CTX, 'shmem_ctx_create',
           [single('int shmem_ctx_create(long options, shmem_ctx_t *ctx)')], '1.4'),
    family(S_CTX, 'shmem_team_create_ctx', [single(
        'int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)')],
        '1.5'),
    family(S_CTX, 'shmem_ctx_destroy', [single('void shmem_ctx_destroy(shmem_ctx_t ctx)')],
           '1.4'),
    family(S_CTX, 'shmem_ctx_get_team',
           [single('int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)')], '1.5'),
    # ------------------------------------------------------------------ RMA
    _rma('put', 'put', '1.0',
         'shoal_put({ctx}, dest, source, {NBYTES}, pe, {FN});'),
    family(S_RMA, 'shmem_p', [
        typed('stdrmatypes', 'void shmem_{T}_p(TYPE *dest, TYPE value, int pe)'),
    ], '1.0', ctx=True, impl='gen',
        body='shoal_put({ctx}, dest, &value, sizeof({TYPE}), pe, {FN});',
        prof=prof('PUT', _P_ELEM, target=True)),
    family(S_RMA, 'shmem_iput', [
        typed('stdrmatypes', 'void shmem_{T}_iput(%s)' % _STRIDED),
        sized('void shmem_iput{S}(%s)' % _VSTRIDED),
    ], '1.0', ctx=True, impl='gen',
        body='shoal_iput({ctx}, dest, source, dst, sst, nelems, {ESIZE}, pe, {FN});',
        prof=prof('IPUT', '{NBYTES}', target=True)),
    family(S_RMA, 'shmem_ibput', [
        typed('stdrmatypes', 'void shmem_{T}_ibput(%s)' % _BLOCKED),
        sized('void shmem_ibput{S}(%s)' % _VBLOCKED),
    ], '1.6', ctx=True, impl='gen',
        body='shoal_ibput({ctx}, dest, source, dst, sst, bsize, nblocks, {ESIZE}, pe, {FN});',
        prof=prof('IPUT', _P_BLOCKS, target=True)),
    _rma('get', 'get', '1.0',
         'shoal_get({ctx}, dest, source, {NBYTES}, pe, {FN});'),
    family(S_RMA, 'shmem_g', [
        typed('stdrmatypes', 'TYPE shmem_{T}_g(const TYPE *source, int pe)'),
    ], '1.0', ctx=True, impl='gen',
        body='{TYPE} v = 0;  /* (initialized: the debug overlap check reads &v) */\n'
             'shoal_get({ctx}, &v, source, sizeof v, pe, {FN});\n'
             'return v;',
        prof=prof('GET', _P_ELEM, target=True)),
    family(S_RMA, 'shmem_iget', [
        typed('stdrmatypes', 'void shmem_{T}_iget(%s)' % _STRIDED),
        sized('void shmem_iget{S}(%s)' % _VSTRIDED),
    ], '1.0', ctx=True, impl='gen',
        body='shoal_iget({ctx}, dest, source, dst, sst, nelems, {ESIZE}, pe, {FN});',
        prof=prof('IGET', '{NBYTES}', target=True)),
    family(S_RMA, 'shmem_ibget', [
        typed('stdrmatypes', 'void shmem_{T}_ibget(%s)' % _BLOCKED),
        sized('void shmem_ibget{S}(%s)' % _VBLOCKED),
    ], '1.6', ctx=True, impl='gen',
        body='shoal_ibget({ctx}, dest, source, dst, sst, bsize, nblocks, {ESIZE}, pe, {FN});',
        prof=prof('IGET', _P_BLOCKS, target=True)),
    _rma('put_nbi', 'put', '1.3',
         'shoal_put_nbi({ctx}, dest, source, {NBYTES}, pe, {FN});'),
    _rma('get_nbi', 'get', '1.3',
         'shoal_get_nbi({ctx}, dest, source, {NBYTES}, pe, {FN});'),
    # ------------------------------------------------------------------ AMO
    _amo('fetch', 'extamotypes', 'const TYPE *source, int pe', 'TYPE', '1.4', _B_FETCH),
    _amo('set', 'extamotypes', 'TYPE *dest, TYPE value, int pe', 'void', '1.4', _B_SET),
    _amo('compare_swap', 'stdamotypes', 'TYPE *dest, TYPE cond, TYPE value, int pe', 'TYPE',
         '1.4', _B_CSWAP),
    _amo('swap', 'extamotypes', 'TYPE *dest, TYPE value, int pe', 'TYPE', '1.4', _B_SWAP),
    _amo('fetch_inc', 'stdamotypes', 'TYPE *dest, int pe', 'TYPE', '1.4', _B_FINC),
    _amo('inc', 'stdamotypes', 'TYPE *dest, int pe', 'void', '1.4', _B_INC),
    _amo('fetch_add', 'stdamotypes', 'TYPE *dest, TYPE value, int pe', 'TYPE', '1.4', _B_FADD),
    _amo('add', 'stdamotypes', 'TYPE *dest, TYPE value, int pe', 'void', '1.4', _B_ADD),
    _amo('fetch_and', 'bitamotypes', 'TYPE *dest, TYPE value, int pe', 'TYPE', '1.4',
         _fetching('FAND')),
    _amo('and', 'bitamotypes', 'TYPE *dest, TYPE value, int pe', 'void', '1.4',
         _nonfetching('AND')),
    _amo('fetch_or', 'bitamotypes', 'TYPE *dest, TYPE value, int pe', 'TYPE', '1.4',
         _fetching('FOR')),
    _amo('or', 'bitamotypes', 'TYPE *dest, TYPE value, int pe', 'void', '1.4',
         _nonfetching('OR')),
    _amo('fetch_xor', 'bitamotypes', 'TYPE *dest, TYPE value, int pe', 'TYPE', '1.4',
         _fetching('FXOR')),
    _amo('xor', 'bitamotypes', 'TYPE *dest, TYPE value, int pe', 'void', '1.4',
         _nonfetching('XOR')),
    _amo_nbi('fetch', 'extamotypes', 'TYPE *fetch, const TYPE *source, int pe',
             _nbi('FETCH', value='0', addr='source')),
    _amo_nbi('compare_swap', 'stdamotypes', 'TYPE *fetch, TYPE *dest, TYPE cond, TYPE value, int pe',
             _nbi('CSWAP', cond='{TO}(cond)')),
    _amo_nbi('swap', 'extamotypes', 'TYPE *fetch, TYPE *dest, TYPE value, int pe', _nbi('SWAP')),
    _amo_nbi('fetch_inc', 'stdamotypes', 'TYPE *fetch, TYPE *dest, int pe',
             _nbi('FADD', value='1')),
    _amo_nbi('fetch_add', 'stdamotypes', 'TYPE *fetch, TYPE *dest, TYPE value, int pe',
             _nbi('FADD')),
    _amo_nbi('fetch_and', 'bitamotypes', 'TYPE *fetch, TYPE *dest, TYPE value, int pe',
             _nbi('FAND')),
    _amo_nbi('fetch_or', 'bitamotypes', 'TYPE *fetch, TYPE *dest, TYPE value, int pe',
             _nbi('FOR')),
    _amo_nbi('fetch_xor', 'bitamotypes', 'TYPE *fetch, TYPE *dest, TYPE value, int pe',
             _nbi('FXOR')),
    _amo_old('fetch', _OLD_EXT, 'TYPE shmem_{T}_fetch(const TYPE *source, int pe)', '1.3',
             _B_FETCH),
    _amo_old('set', _OLD_EXT, 'void shmem_{T}_set(TYPE *dest, TYPE value, int pe)', '1.3',
             _B_SET),
    _amo_old('cswap', _OLD_STD, 'TYPE shmem_{T}_cswap(TYPE *dest, TYPE cond, TYPE value, int pe)',
             '1.0', _B_CSWAP),
    _amo_old('swap', _OLD_EXT, 'TYPE shmem_{T}_swap(TYPE *dest, TYPE value, int pe)', '1.0',
             _B_SWAP),
    _amo_old('finc', _OLD_STD, 'TYPE shmem_{T}_finc(TYPE *dest, int pe)', '1.0', _B_FINC),
    _amo_old('inc', _OLD_STD, 'void shmem_{T}_inc(TYPE *dest, int pe)', '1.0', _B_INC),
    _amo_old('fadd', _OLD_STD, 'TYPE shmem_{T}_fadd(TYPE *dest, TYPE value, int pe)', '1.0',
             _B_FADD),
    _amo_old('add', _OLD_STD, 'void shmem_{T}_add(TYPE *dest, TYPE value, int pe)', '1.0',
             _B_ADD),
    # ------------------------------------------------------------ signaling
    family(S_SIG, 'shmem_put_signal', [
        typed('stdrmatypes', 'void shmem_{T}_put_signal(%s, %s)'
              % (_RMA_ARGS.replace(', int pe', ''), _SIG)),
        sized('void shmem_put{S}_signal(%s, %s)' % (_RMA_VARGS.replace(', int pe', ''), _SIG)),
        mem('void shmem_putmem_signal(%s, %s)' % (_RMA_VARGS.replace(', int pe', ''), _SIG)),
    ], '1.5', ctx=True, impl='gen',
        body='shoal_put_signal({ctx}, dest, source, {NBYTES}, sig_addr, signal, sig_op, '
             'pe, 0, {FN});', prof=prof('PUT_SIGNAL', '{NBYTES}', target=True)),
    family(S_SIG, 'shmem_put_signal_nbi', [
        typed('stdrmatypes', 'void shmem_{T}_put_signal_nbi(%s, %s)'
              % (_RMA_ARGS.replace(', int pe', ''), _SIG)),
        sized('void shmem_put{S}_signal_nbi(%s, %s)'
              % (_RMA_VARGS.replace(', int pe', ''), _SIG)),
        mem('void shmem_putmem_signal_nbi(%s, %s)' % (_RMA_VARGS.replace(', int pe', ''), _SIG)),
    ], '1.5', ctx=True, impl='gen',
        body='shoal_put_signal({ctx}, dest, source, {NBYTES}, sig_addr, signal, sig_op, '
             'pe, 1, {FN});', prof=prof('PUT_SIGNAL_NBI', '{NBYTES}', target=True)),
    family(S_SIG, 'shmem_signal_add',
           [single('void shmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)')],
           '1.6', ctx=True),
    family(S_SIG, 'shmem_signal_fetch',
           [single('uint64_t shmem_signal_fetch(const uint64_t *sig_addr)')], '1.5'),
    family(S_SIG, 'shmem_signal_set',
           [single('void shmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)')],
           '1.6', ctx=True),
    # ------------------------------------------------------------- sessions
    family(S_SESS, 'shmem_ctx_session_start', [single(
        'void shmem_ctx_session_start(shmem_ctx_t ctx, long options, '
        'const shmem_ctx_session_config_t *config, long config_mask)')], '1.6'),
    family(S_SESS, 'shmem_ctx_session_stop',
           [single('void shmem_ctx_session_stop(shmem_ctx_t ctx)')], '1.6'),
    # ---------------------------------------------------------- collectives
    family(S_COLL, 'shmem_barrier_all', [single('void shmem_barrier_all(void)')], '1.0'),
    family(S_COLL, 'shmem_barrier', [single('void shmem_barrier(%s)' % _ASET)], '1.0',
           deprecated=True),
    family(S_COLL, 'shmem_team_sync', [single('int shmem_team_sync(shmem_team_t team)')], '1.5'),
    family(S_COLL, 'shmem_sync', [single('void shmem_sync(%s)' % _ASET)], '1.4',
           deprecated=True),
    family(S_COLL, 'shmem_sync_all', [single('void shmem_sync_all(void)')], '1.4'),
    _coll('alltoall', 'TYPE *dest, const TYPE *source, size_t nelems',
          'void *dest, const void *source, size_t nelems',
          'return shoal_coll_alltoall(team, dest, source, {NBYTES}, {FN});'),
    _coll_old('alltoall', 'void *dest, const void *source, size_t nelems, ' + _ASET,
              'shoal_coll_aset_alltoall(dest, source, {NBYTES}, PE_start, logPE_stride, '
              'PE_size, pSync, {FN});'),
    _coll('alltoalls', 'TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, '
          'size_t nelems',
          'void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems',
          'return shoal_coll_alltoalls(team, dest, source, dst, sst, nelems, {ESIZE}, {FN});'),
    _coll_old('alltoalls', 'void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, '
              'size_t nelems, ' + _ASET,
              'shoal_coll_aset_alltoalls(dest, source, dst, sst, nelems, {ESIZE}, PE_start, '
              'logPE_stride, PE_size, pSync, {FN});'),
    _coll('broadcast', 'TYPE *dest, const TYPE *source, size_t nelems, int PE_root',
          'void *dest, const void *source, size_t nelems, int PE_root',
          'return shoal_coll_broadcast(team, dest, source, {NBYTES}, PE_root, {FN});'),
    _coll_old('broadcast', 'void *dest, const void *source, size_t nelems, int PE_root, ' + _ASET,
              'shoal_coll_aset_broadcast(dest, source, {NBYTES}, PE_root, PE_start, '
              'logPE_stride, PE_size, pSync, {FN});'),
    _coll('collect', 'TYPE *dest, const TYPE *source, size_t nelems',
          'void *dest, const void *source, size_t nelems',
          'return shoal_coll_collect(team, dest, source, {NBYTES}, {FN});'),
    _coll_old('collect', 'void *dest, const void *source, size_t nelems, ' + _ASET,
              'shoal_coll_aset_collect(dest, source, {NBYTES}, PE_start, logPE_stride, '
              'PE_size, pSync, {FN});'),
    _coll('fcollect', 'TYPE *dest, const TYPE *source, size_t nelems',
          'void *dest, const void *source, size_t nelems',
          'return shoal_coll_fcollect(team, dest, source, {NBYTES}, {FN});'),
    _coll_old('fcollect', 'void *dest, const void *source, size_t nelems, ' + _ASET,
              'shoal_coll_aset_fcollect(dest, source, {NBYTES}, PE_start, logPE_stride, '
              'PE_size, pSync, {FN});'),
    _reduce('and', 'AND'),
    _reduce('or', 'OR'),
    _reduce('xor', 'XOR'),
    _reduce('max', 'MAX'),
    _reduce('min', 'MIN'),
    _reduce('sum', 'SUM'),
    _reduce('prod', 'PROD'),
    _to_all('and', 'AND'),
    _to_all('or', 'OR'),
    _to_all('xor', 'XOR'),
    _to_all('max', 'MAX'),
    _to_all('min', 'MIN'),
    _to_all('sum', 'SUM'),
    _to_all('prod', 'PROD'),
    _scan('inscan', 0),
    _scan('exscan', 1),
    # ----------------------------------------------- point-to-point sync
    _p2p('wait_until', 'void', 'TYPE *ivar, int cmp, TYPE cmp_value', '1.0',
         'shoal_wait_until({WKIND}, ivar, cmp, &cmp_value, {FN});'),
    family(S_P2P, 'shmem_short_wait_until, shmem_ushort_wait_until', [
        typed(['short', 'ushort'], 'void shmem_{T}_wait_until(TYPE *ivar, int cmp, TYPE cmp_value)'),
    ], '1.0', deprecated=True, impl='gen',
        body='shoal_wait_until({WKIND}, ivar, cmp, &cmp_value, {FN});', prof=prof('WAIT')),
    family(S_P2P, 'shmem_wait_until (long-typed C routine)', [
        single('void shmem_wait_until(long *ivar, int cmp, long cmp_value)', type='long'),
    ], '1.0', deprecated=True, impl='gen',
        body='shoal_wait_until({WKIND}, ivar, cmp, &cmp_value, {FN});', prof=prof('WAIT')),
    *_p2p_set('wait_until_all', 'void', _WAIT_SET,
              'shoal_wait_until_all({WKIND}, ivars, nelems, status, cmp, &cmp_value, 0, {FN});'),
    *_p2p_set('wait_until_any', 'size_t', _WAIT_SET,
              'return shoal_wait_until_any({WKIND}, ivars, nelems, status, cmp, &cmp_value, 0, '
              '{FN});'),
    *_p2p_set('wait_until_some', 'size_t', _WAIT_SOME,
              'return shoal_wait_until_some({WKIND}, ivars, nelems, indices, status, cmp, '
              '&cmp_value, 0, {FN});'),
    *_p2p_set('wait_until_all_vector', 'void', _WAIT_SETV,
              'shoal_wait_until_all({WKIND}, ivars, nelems, status, cmp, cmp_values, 1, {FN});'),
    *_p2p_set('wait_until_any_vector', 'size_t', _WAIT_SETV,
              'return shoal_wait_until_any({WKIND}, ivars, nelems, status, cmp, cmp_values, 1, '
              '{FN});'),
    *_p2p_set('wait_until_some_vector', 'size_t', _WAIT_SOMEV,
              'return shoal_wait_until_some({WKIND}, ivars, nelems, indices, status, cmp, '
              'cmp_values, 1, {FN});'),
    _p2p('test', 'int', 'TYPE *ivar, int cmp, TYPE cmp_value', '1.4',
         'return shoal_test({WKIND}, ivar, cmp, &cmp_value, {FN});'),
    family(S_P2P, 'shmem_short_test, shmem_ushort_test', [
        typed(['short', 'ushort'], 'int shmem_{T}_test(TYPE *ivar, int cmp, TYPE cmp_value)'),
    ], '1.4', deprecated=True, impl='gen',
        body='return shoal_test({WKIND}, ivar, cmp, &cmp_value, {FN});', prof=prof('TEST')),
    *_p2p_set('test_all', 'int', _WAIT_SET,
              'return shoal_test_all({WKIND}, ivars, nelems, status, cmp, &cmp_value, 0, {FN});'),
    *_p2p_set('test_any', 'size_t', _WAIT_SET,
              'return shoal_test_any({WKIND}, ivars, nelems, status, cmp, &cmp_value, 0, {FN});'),
    *_p2p_set('test_some', 'size_t', _WAIT_SOME,
              'return shoal_test_some({WKIND}, ivars, nelems, indices, status, cmp, &cmp_value, '
              '0, {FN});'),
    *_p2p_set('test_all_vector', 'int', _WAIT_SETV,
              'return shoal_test_all({WKIND}, ivars, nelems, status, cmp, cmp_values, 1, {FN});'),
    *_p2p_set('test_any_vector', 'size_t', _WAIT_SETV,
              'return shoal_test_any({WKIND}, ivars, nelems, status, cmp, cmp_values, 1, {FN});'),
    *_p2p_set('test_some_vector', 'size_t', _WAIT_SOMEV,
              'return shoal_test_some({WKIND}, ivars, nelems, indices, status, cmp, cmp_values, '
              '1, {FN});'),
    family(S_P2P, 'shmem_signal_wait_until', [single(
        'uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)')],
        '1.5'),
    family(S_P2P, 'shmem_wait, shmem_TYPENAME_wait', [
        single('void shmem_wait(long *ivar, long cmp_value)', type='long'),
        typed(['short', 'int', 'long', 'longlong'],
              'void shmem_{T}_wait(TYPE *ivar, TYPE cmp_value)'),
    ], '1.0', deprecated=True, impl='gen',
        body='shoal_wait_until({WKIND}, ivar, SHMEM_CMP_NE, &cmp_value, {FN});',
        prof=prof('WAIT')),
    # ------------------------------------------------------ memory ordering
    family(S_ORDER, 'shmem_fence', [single('void shmem_fence(void)')], '1.0', ctx=True),
    family(S_ORDER, 'shmem_quiet', [single('void shmem_quiet(void)')], '1.0', ctx=True),
    family(S_ORDER, 'shmem_pe_quiet',
           [single('void shmem_pe_quiet(const int *target_pes, size_t npes)')], '1.6', ctx=True),
    # -------------------------------------------------------------- locking
    family(S_LOCK, 'shmem_set_lock, shmem_clear_lock, shmem_test_lock', [
        single('void shmem_set_lock(long *lock)'),
        single('void shmem_clear_lock(long *lock)'),
        single('int shmem_test_lock(long *lock)'),
    ], '1.0'),
    # ------------------------------------------------------------ profiling
    family(S_PROF, 'shmem_pcontrol', [single('void shmem_pcontrol(int level, ...)')], '1.5'),
]

# ---------------------------------------------------------------- generics
#
# Each entry is one C11 type-generic name (tools/gen/spec/generics-1.6.txt) and,
# in C++, one overload set of the same name.
#   routine   the typed routine it dispatches to, as a pattern with {T}
#   types     the type set (a TABLES key, (key, column) or a TYPENAME list)
#   arg       index of the argument whose type selects (0 = first; the
#             collectives dispatch on dest, after the team)
#   ctx       True: an optional leading shmem_ctx_t selects the ctx twin
#   const     True: `const TYPE *` is accepted as well as `TYPE *`
#   fallback  deprecated names: routine for the rows that have no deprecated
#             typed C routine (the spec says they behave as their
#             replacements, so they accept the replacements' types)
#   special   'team_sync'   shmem_sync: a shmem_team_t selects
#                           shmem_team_sync, anything else the deprecated
#                           active-set C function shmem_sync
#             'signal'      shmem_signal_add/set: a shmem_ctx_t selects the
#                           ctx twin, anything else the C function
#   function  the C function of the same name, still callable as (name)(...)


def generic(name, routine=None, types=None, arg=0, ctx=False, const=False, fallback=None,
            special=None, function=None):
    return {'name': name, 'routine': routine, 'types': types, 'arg': arg, 'ctx': ctx,
            'const': const, 'fallback': fallback, 'special': special, 'function': function}


_P2P_GENERIC_TYPES = TABLES['stdamotypes'] + _P2P_OLD

GENERICS = [
    # RMA (optional ctx)
    generic('shmem_put', 'shmem_{T}_put', 'stdrmatypes', ctx=True),
    generic('shmem_p', 'shmem_{T}_p', 'stdrmatypes', ctx=True),
    generic('shmem_iput', 'shmem_{T}_iput', 'stdrmatypes', ctx=True),
    generic('shmem_ibput', 'shmem_{T}_ibput', 'stdrmatypes', ctx=True),
    generic('shmem_get', 'shmem_{T}_get', 'stdrmatypes', ctx=True),
    generic('shmem_g', 'shmem_{T}_g', 'stdrmatypes', ctx=True, const=True),
    generic('shmem_iget', 'shmem_{T}_iget', 'stdrmatypes', ctx=True),
    generic('shmem_ibget', 'shmem_{T}_ibget', 'stdrmatypes', ctx=True),
    generic('shmem_put_nbi', 'shmem_{T}_put_nbi', 'stdrmatypes', ctx=True),
    generic('shmem_get_nbi', 'shmem_{T}_get_nbi', 'stdrmatypes', ctx=True),
    # AMO (optional ctx)
    generic('shmem_atomic_fetch', 'shmem_{T}_atomic_fetch', 'extamotypes', ctx=True, const=True),
    generic('shmem_atomic_set', 'shmem_{T}_atomic_set', 'extamotypes', ctx=True),
    generic('shmem_atomic_compare_swap', 'shmem_{T}_atomic_compare_swap', 'stdamotypes',
            ctx=True),
    generic('shmem_atomic_swap', 'shmem_{T}_atomic_swap', 'extamotypes', ctx=True),
    generic('shmem_atomic_fetch_inc', 'shmem_{T}_atomic_fetch_inc', 'stdamotypes', ctx=True),
    generic('shmem_atomic_inc', 'shmem_{T}_atomic_inc', 'stdamotypes', ctx=True),
    generic('shmem_atomic_fetch_add', 'shmem_{T}_atomic_fetch_add', 'stdamotypes', ctx=True),
    generic('shmem_atomic_add', 'shmem_{T}_atomic_add', 'stdamotypes', ctx=True),
    generic('shmem_atomic_fetch_and', 'shmem_{T}_atomic_fetch_and', 'bitamotypes', ctx=True),
    generic('shmem_atomic_and', 'shmem_{T}_atomic_and', 'bitamotypes', ctx=True),
    generic('shmem_atomic_fetch_or', 'shmem_{T}_atomic_fetch_or', 'bitamotypes', ctx=True),
    generic('shmem_atomic_or', 'shmem_{T}_atomic_or', 'bitamotypes', ctx=True),
    generic('shmem_atomic_fetch_xor', 'shmem_{T}_atomic_fetch_xor', 'bitamotypes', ctx=True),
    generic('shmem_atomic_xor', 'shmem_{T}_atomic_xor', 'bitamotypes', ctx=True),
    generic('shmem_atomic_fetch_nbi', 'shmem_{T}_atomic_fetch_nbi', 'extamotypes', ctx=True),
    generic('shmem_atomic_compare_swap_nbi', 'shmem_{T}_atomic_compare_swap_nbi', 'stdamotypes',
            ctx=True),
    generic('shmem_atomic_swap_nbi', 'shmem_{T}_atomic_swap_nbi', 'extamotypes', ctx=True),
    generic('shmem_atomic_fetch_inc_nbi', 'shmem_{T}_atomic_fetch_inc_nbi', 'stdamotypes',
            ctx=True),
    generic('shmem_atomic_fetch_add_nbi', 'shmem_{T}_atomic_fetch_add_nbi', 'stdamotypes',
            ctx=True),
    generic('shmem_atomic_fetch_and_nbi', 'shmem_{T}_atomic_fetch_and_nbi', 'bitamotypes',
            ctx=True),
    generic('shmem_atomic_fetch_or_nbi', 'shmem_{T}_atomic_fetch_or_nbi', 'bitamotypes',
            ctx=True),
    generic('shmem_atomic_fetch_xor_nbi', 'shmem_{T}_atomic_fetch_xor_nbi', 'bitamotypes',
            ctx=True),
    # Deprecated AMO names (no ctx)
    generic('shmem_fetch', 'shmem_{T}_fetch', 'extamotypes', const=True,
            fallback='shmem_{T}_atomic_fetch'),
    generic('shmem_set', 'shmem_{T}_set', 'extamotypes', fallback='shmem_{T}_atomic_set'),
    generic('shmem_cswap', 'shmem_{T}_cswap', 'stdamotypes',
            fallback='shmem_{T}_atomic_compare_swap'),
    generic('shmem_swap', 'shmem_{T}_swap', 'extamotypes', fallback='shmem_{T}_atomic_swap'),
    generic('shmem_finc', 'shmem_{T}_finc', 'stdamotypes', fallback='shmem_{T}_atomic_fetch_inc'),
    generic('shmem_inc', 'shmem_{T}_inc', 'stdamotypes', fallback='shmem_{T}_atomic_inc'),
    generic('shmem_fadd', 'shmem_{T}_fadd', 'stdamotypes', fallback='shmem_{T}_atomic_fetch_add'),
    generic('shmem_add', 'shmem_{T}_add', 'stdamotypes', fallback='shmem_{T}_atomic_add'),
    # Signaling
    generic('shmem_put_signal', 'shmem_{T}_put_signal', 'stdrmatypes', ctx=True),
    generic('shmem_put_signal_nbi', 'shmem_{T}_put_signal_nbi', 'stdrmatypes', ctx=True),
    generic('shmem_signal_add', 'shmem_ctx_signal_add', special='signal',
            function='shmem_signal_add'),
    generic('shmem_signal_set', 'shmem_ctx_signal_set', special='signal',
            function='shmem_signal_set'),
    # Collectives (team first; dispatch on dest)
    generic('shmem_sync', 'shmem_team_sync', special='team_sync', function='shmem_sync'),
    generic('shmem_alltoall', 'shmem_{T}_alltoall', 'stdrmatypes', arg=1),
    generic('shmem_alltoalls', 'shmem_{T}_alltoalls', 'stdrmatypes', arg=1),
    generic('shmem_broadcast', 'shmem_{T}_broadcast', 'stdrmatypes', arg=1),
    generic('shmem_collect', 'shmem_{T}_collect', 'stdrmatypes', arg=1),
    generic('shmem_fcollect', 'shmem_{T}_fcollect', 'stdrmatypes', arg=1),
    generic('shmem_and_reduce', 'shmem_{T}_and_reduce', ('teamreducetypes', 'AND'), arg=1),
    generic('shmem_or_reduce', 'shmem_{T}_or_reduce', ('teamreducetypes', 'OR'), arg=1),
    generic('shmem_xor_reduce', 'shmem_{T}_xor_reduce', ('teamreducetypes', 'XOR'), arg=1),
    generic('shmem_max_reduce', 'shmem_{T}_max_reduce', ('teamreducetypes', 'MAX'), arg=1),
    generic('shmem_min_reduce', 'shmem_{T}_min_reduce', ('teamreducetypes', 'MIN'), arg=1),
    generic('shmem_sum_reduce', 'shmem_{T}_sum_reduce', ('teamreducetypes', 'SUM'), arg=1),
    generic('shmem_prod_reduce', 'shmem_{T}_prod_reduce', ('teamreducetypes', 'PROD'), arg=1),
    generic('shmem_sum_inscan', 'shmem_{T}_sum_inscan', ('teamreducetypes', 'SUM'), arg=1),
    generic('shmem_sum_exscan', 'shmem_{T}_sum_exscan', ('teamreducetypes', 'SUM'), arg=1),
    # Point-to-point synchronization (no ctx): every one also takes the
    # deprecated short / unsigned short (the multi-element ones through the
    # extra families above).
    generic('shmem_wait_until', 'shmem_{T}_wait_until', _P2P_GENERIC_TYPES,
            function='shmem_wait_until'),
    generic('shmem_wait_until_all', 'shmem_{T}_wait_until_all', _P2P_GENERIC_TYPES),
    generic('shmem_wait_until_any', 'shmem_{T}_wait_until_any', _P2P_GENERIC_TYPES),
    generic('shmem_wait_until_some', 'shmem_{T}_wait_until_some', _P2P_GENERIC_TYPES),
    generic('shmem_wait_until_all_vector', 'shmem_{T}_wait_until_all_vector', _P2P_GENERIC_TYPES),
    generic('shmem_wait_until_any_vector', 'shmem_{T}_wait_until_any_vector', _P2P_GENERIC_TYPES),
    generic('shmem_wait_until_some_vector', 'shmem_{T}_wait_until_some_vector',
            _P2P_GENERIC_TYPES),
    generic('shmem_test', 'shmem_{T}_test', _P2P_GENERIC_TYPES),
    generic('shmem_test_all', 'shmem_{T}_test_all', _P2P_GENERIC_TYPES),
    generic('shmem_test_any', 'shmem_{T}_test_any', _P2P_GENERIC_TYPES),
    generic('shmem_test_some', 'shmem_{T}_test_some', _P2P_GENERIC_TYPES),
    generic('shmem_test_all_vector', 'shmem_{T}_test_all_vector', _P2P_GENERIC_TYPES),
    generic('shmem_test_any_vector', 'shmem_{T}_test_any_vector', _P2P_GENERIC_TYPES),
    generic('shmem_test_some_vector', 'shmem_{T}_test_some_vector', _P2P_GENERIC_TYPES),
]


# ------------------------------------------------------------- extensions
#
# Shoal's extensions, declared like the standard families and generics
# above and emitted into shmemx.h (prototypes, pshmemx_ profiling twins,
# C11 generics, C++ overloads) with generated wrappers.  Their names start
# with shmemx_; they are checked not to be in the spec list.  Each feature
# keeps its own block.

S_X_REQ, S_X_AM, S_X_MT = EXT_SECTIONS

# ---- requests (issue 14): explicit non-blocking operations (_nbe) that
# join a request handle (ext/requests/request.h, ext/requests/request_ops.h).
_REQ = 'shmemx_request_h *req'
_REQ_INC = ('ext/requests/request_ops.h',)


def _rma_nbe(name, op, body):
    """shmemx_{T}_<name>, shmemx_<op>{S}_nbe, shmemx_<op>mem_nbe (+ ctx twins)."""
    return ext_family(S_X_REQ, 'shmemx_' + name, [
        typed('stdrmatypes', 'void shmemx_{T}_%s(%s, %s)' % (name, _RMA_ARGS, _REQ)),
        sized('void shmemx_%s{S}_nbe(%s, %s)' % (op, _RMA_VARGS, _REQ)),
        mem('void shmemx_%smem_nbe(%s, %s)' % (op, _RMA_VARGS, _REQ)),
    ], ctx=True, impl='gen', body=body, includes=_REQ_INC,
        prof=prof(name.upper(), '{NBYTES}', target=True))


def _amo_nbe(name, table, args, op, value='{TO}(value)', cond='0', addr='dest',
             fetching=True):
    """shmemx_{T}_atomic_<name>_nbe: fetching ones take `TYPE *fetch` first."""
    args = ('TYPE *fetch, ' if fetching else '') + args
    return ext_family(S_X_REQ, 'shmemx_atomic_%s_nbe' % name, [
        typed(table, 'void shmemx_{T}_atomic_%s_nbe(%s, %s)' % (name, args, _REQ)),
    ], ctx=True, impl='gen', includes=_REQ_INC, prof=prof('AMO_NBE', _P_ELEM, target=True),
        body='shoal_amo_nbe({ctx}, SHOAL_AMO_%s, %s, %s, sizeof({TYPE}), %s, %s, pe, req, {FN});'
             % (op, 'fetch' if fetching else 'NULL', addr, value, cond))


_SIG_NBE_BODY = ('shoal_put_signal_nbe({ctx}, dest, source, {NBYTES}, sig_addr, signal, '
                 'sig_op, pe, req, {FN});')

_REQ_FAMILIES = [
    _rma_nbe('put_nbe', 'put',
             'shoal_rma_nbe({ctx}, 1, (void *)source, dest, {NBYTES}, pe, req, {FN});'),
    _rma_nbe('get_nbe', 'get',
             'shoal_rma_nbe({ctx}, 0, dest, source, {NBYTES}, pe, req, {FN});'),
    ext_family(S_X_REQ, 'shmemx_put_signal_nbe', [
        typed('stdrmatypes', 'void shmemx_{T}_put_signal_nbe(%s, %s, %s)'
              % (_RMA_ARGS.replace(', int pe', ''), _SIG, _REQ)),
        sized('void shmemx_put{S}_signal_nbe(%s, %s, %s)'
              % (_RMA_VARGS.replace(', int pe', ''), _SIG, _REQ)),
        mem('void shmemx_putmem_signal_nbe(%s, %s, %s)'
            % (_RMA_VARGS.replace(', int pe', ''), _SIG, _REQ)),
    ], ctx=True, impl='gen', body=_SIG_NBE_BODY, includes=_REQ_INC,
        prof=prof('PUT_SIGNAL_NBE', '{NBYTES}', target=True)),
    # Fetching AMOs (the _nbi set) ...
    _amo_nbe('fetch', 'extamotypes', 'const TYPE *source, int pe', 'FETCH', value='0',
             addr='source'),
    _amo_nbe('compare_swap', 'stdamotypes', 'TYPE *dest, TYPE cond, TYPE value, int pe', 'CSWAP',
             cond='{TO}(cond)'),
    _amo_nbe('swap', 'extamotypes', 'TYPE *dest, TYPE value, int pe', 'SWAP'),
    _amo_nbe('fetch_inc', 'stdamotypes', 'TYPE *dest, int pe', 'FADD', value='1'),
    _amo_nbe('fetch_add', 'stdamotypes', 'TYPE *dest, TYPE value, int pe', 'FADD'),
    _amo_nbe('fetch_and', 'bitamotypes', 'TYPE *dest, TYPE value, int pe', 'FAND'),
    _amo_nbe('fetch_or', 'bitamotypes', 'TYPE *dest, TYPE value, int pe', 'FOR'),
    _amo_nbe('fetch_xor', 'bitamotypes', 'TYPE *dest, TYPE value, int pe', 'FXOR'),
    # ... and the non-fetching ones.
    _amo_nbe('set', 'extamotypes', 'TYPE *dest, TYPE value, int pe', 'SET', fetching=False),
    _amo_nbe('inc', 'stdamotypes', 'TYPE *dest, int pe', 'ADD', value='1', fetching=False),
    _amo_nbe('add', 'stdamotypes', 'TYPE *dest, TYPE value, int pe', 'ADD', fetching=False),
    _amo_nbe('and', 'bitamotypes', 'TYPE *dest, TYPE value, int pe', 'AND', fetching=False),
    _amo_nbe('or', 'bitamotypes', 'TYPE *dest, TYPE value, int pe', 'OR', fetching=False),
    _amo_nbe('xor', 'bitamotypes', 'TYPE *dest, TYPE value, int pe', 'XOR', fetching=False),
    # The requests themselves (src/api/request.c).
    ext_family(S_X_REQ, 'shmemx_request_alloc', [single(
        'int shmemx_request_alloc(const shmemx_request_params_t *params, shmemx_request_h *req)')]),
    ext_family(S_X_REQ, 'shmemx_request_free',
               [single('void shmemx_request_free(shmemx_request_h *req)')]),
    ext_family(S_X_REQ, 'shmemx_request_test',
               [single('int shmemx_request_test(shmemx_request_h *req, int *done)')]),
    ext_family(S_X_REQ, 'shmemx_request_wait',
               [single('void shmemx_request_wait(shmemx_request_h *req)')]),
    ext_family(S_X_REQ, 'shmemx_request_waitall',
               [single('void shmemx_request_waitall(size_t n, shmemx_request_h *reqs)')]),
    ext_family(S_X_REQ, 'shmemx_request_waitany',
               [single('size_t shmemx_request_waitany(size_t n, shmemx_request_h *reqs)')]),
    ext_family(S_X_REQ, 'shmemx_merge_request', [single(
        'int shmemx_merge_request(size_t count, shmemx_request_h **requests, '
        'shmemx_request_h *merged)')]),
]

_REQ_AMO_GENERICS = [('fetch', 'extamotypes'), ('compare_swap', 'stdamotypes'),
                     ('swap', 'extamotypes'), ('fetch_inc', 'stdamotypes'),
                     ('fetch_add', 'stdamotypes'), ('fetch_and', 'bitamotypes'),
                     ('fetch_or', 'bitamotypes'), ('fetch_xor', 'bitamotypes'),
                     ('set', 'extamotypes'), ('inc', 'stdamotypes'), ('add', 'stdamotypes'),
                     ('and', 'bitamotypes'), ('or', 'bitamotypes'), ('xor', 'bitamotypes')]

_REQ_GENERICS = [
    generic('shmemx_put_nbe', 'shmemx_{T}_put_nbe', 'stdrmatypes', ctx=True),
    generic('shmemx_get_nbe', 'shmemx_{T}_get_nbe', 'stdrmatypes', ctx=True),
    generic('shmemx_put_signal_nbe', 'shmemx_{T}_put_signal_nbe', 'stdrmatypes', ctx=True),
] + [generic('shmemx_atomic_%s_nbe' % n, 'shmemx_{T}_atomic_%s_nbe' % n, t, ctx=True)
     for n, t in _REQ_AMO_GENERICS]
# ---- end of requests (issue 14)

EXT_FAMILIES = [
    # ---------------------------------------------- requests (issue 14)
    *_REQ_FAMILIES,
    # ----------------------------------------- active messages (issue 15)
    # Hand-written in src/api/shmemx_am.c (argument checks, then ext/am/am.h);
    # the types and constants are in include/shmemx.h.in.
    ext_family(S_X_AM, 'shmemx_am_register', [
        single('int shmemx_am_register(int tag, shmemx_am_handler_t handler, void *arg)')]),
    ext_family(S_X_AM, 'shmemx_am_unregister', [single('int shmemx_am_unregister(int tag)')]),
    ext_family(S_X_AM, 'shmemx_am_send', [
        single('void shmemx_am_send(shmem_ctx_t ctx, int pe, int tag, const void *payload, '
               'size_t len)')]),
    # Completes *req once the handler returned at the target (ext/am/am_req.c).
    ext_family(S_X_AM, 'shmemx_am_send_nbe', [
        single('void shmemx_am_send_nbe(shmem_ctx_t ctx, int pe, int tag, const void *payload, '
               'size_t len, shmemx_request_h *req)')]),
    ext_family(S_X_AM, 'shmemx_am_poll', [single('size_t shmemx_am_poll(void)')]),
    ext_family(S_X_AM, 'shmemx_am_quiet', [single('void shmemx_am_quiet(shmem_ctx_t ctx)')]),
    # ------------------------------ multi-threaded collectives (issue 15)
    # Every one of nthreads threads of every member calls with the same
    # arguments and its own thread_id; coll/mt/mt_*.c (docs/mt_collectives.md).
    ext_family(S_X_MT, 'shmemx_team_broadcastmem_mt', [
        single('int shmemx_team_broadcastmem_mt(shmem_team_t team, void *dest, '
               'const void *source, size_t nelems, int PE_root, int nthreads, int thread_id)'),
    ], impl='coll',
        body='return shoal_coll_broadcast_mt(team, dest, source, nelems, PE_root, nthreads, '
             'thread_id, {FN});', prof=prof('BROADCAST_MT', 'nelems')),
    ext_family(S_X_MT, 'shmemx_team_fcollectmem_mt', [
        single('int shmemx_team_fcollectmem_mt(shmem_team_t team, void *dest, '
               'const void *source, size_t nelems, int nthreads, int thread_id)'),
    ], impl='coll',
        body='return shoal_coll_fcollect_mt(team, dest, source, nelems, nthreads, thread_id, '
             '{FN});', prof=prof('FCOLLECT_MT', 'nelems')),
    ext_family(S_X_MT, 'shmemx_team_alltoallmem_mt', [
        single('int shmemx_team_alltoallmem_mt(shmem_team_t team, void *dest, '
               'const void *source, size_t nelems, int nthreads, int thread_id)'),
    ], impl='coll',
        body='return shoal_coll_alltoall_mt(team, dest, source, nelems, nthreads, thread_id, '
             '{FN});', prof=prof('ALLTOALL_MT', 'nelems')),
    *[ext_family(S_X_MT, 'shmemx_%s_reduce_mt' % op, [
        typed(('teamreducetypes', col),
              'int shmemx_{T}_%s_reduce_mt(shmem_team_t team, TYPE *dest, const TYPE *source, '
              'size_t nreduce, int nthreads, int thread_id)' % op),
    ], impl='coll',
        body='return shoal_coll_reduce_mt(team, dest, source, nreduce, SHOAL_RED_%s, '
             'SHOAL_DT_{TNU}, nthreads, thread_id, {FN});' % col,
        prof=prof('REDUCE_MT', 'shoal_nbytes(nreduce, {ESIZE}, {FN})'))
      for op, col in (('and', 'AND'), ('or', 'OR'), ('xor', 'XOR'), ('max', 'MAX'),
                      ('min', 'MIN'), ('sum', 'SUM'), ('prod', 'PROD'))],
]

EXT_GENERICS = [
    # ---------------------------------------------- requests (issue 14)
    *_REQ_GENERICS,
    # ------------------------------ multi-threaded collectives (issue 15)
    *[generic('shmemx_%s_reduce_mt' % op, 'shmemx_{T}_%s_reduce_mt' % op,
              ('teamreducetypes', op.upper()), arg=1)
      for op in ('and', 'or', 'xor', 'max', 'min', 'sum', 'prod')],
]

# ----------------------------------------------------------------- helpers


def type_list(types):
    """TYPENAMEs of a form's or generic's `types` field."""
    if isinstance(types, str):
        return list(TABLES[types])
    if isinstance(types, tuple):
        return list(TABLES[types[0]][types[1]])
    return list(types)


def c_type(tn):
    return TYPES[tn][0]


def is_signed(tn):
    return TYPES[tn][2]
