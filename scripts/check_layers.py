#!/usr/bin/env python3
"""Fails when a file under src/ includes a header of a higher layer, or (with
--objects) when the library's objects call upward or in a circle that spans
more than one room.

The layers (docs/architecture.md), top to bottom:
    api -> coll -> ext -> core -> transport -> boot
A layer includes only headers of its own layer or of layers below it:
  api        api, coll, ext, core, the transport contract
  coll       coll, core, the transport contract (not ext: collectives are
             written against core's operations only)
  ext        ext, core, transport/shm, the transport contract; inside ext,
             ext/am may use ext/requests, never the other way round, and the
             layer's entry (ext/ext.{c,h}) may use both
  core       core, transport/shm, the transport contract, boot
  transport  the contract headers at transport/'s top (transport/net.h,
             transport/env_rows.h, transport/env_layer.h), which every
             layer above may include, and the choice of the network
             (transport/net_select.c: the contract and boot);
             transport/shm: itself and the contract; transport/ucx,
             transport/ofi and transport/none: themselves, the contract
             and boot; inside
             transport/ucx, its floors base/, config/ and signal/ use
             none of its other rooms, and its top room uses them all
  boot       boot only
Generated headers (shmem.h, shmemx.h, pshmem.h, shoal_types.h) are the
public API or data tables and may be included anywhere.

A room is a folder of src/ (core/, core/config/, core/memory/,
core/teams/, core/waiting/, coll/, coll/mt/, ext/am/, ...); a nested
folder is a room of the layer its first folder names.  With --objects
OBJ... (the library's object files, in any order; CMake's
$<TARGET_OBJECTS:shoal_obj>) the script also reads who calls whom
(nm: a symbol one object uses and another defines) and fails when
  - an object calls into, or reads the data of, a higher layer (a hook the
    upper layer registered is a function pointer, which nm does not see),
    or of another room on its floor or a higher one (FLOORS);
  - a circle of mutual calls (a strongly connected set of objects) spans
    more than one room.
Circles inside one room are allowed; the summary counts them and the rooms.

usage: check_layers.py [SRC_DIR] [--objects OBJ...]
       (SRC_DIR default: the src/ next to this script)
"""
import os
import re
import subprocess
import sys

CONTRACT = {"transport/net.h", "transport/env_rows.h", "transport/env_layer.h"}
RANK = {"boot": 0, "transport": 1, "core": 2, "ext": 3, "coll": 4, "api": 5}


# layer of a file or header, from its path under src/
def layer(path):
    parts = path.split("/")
    if parts[0] == "transport":
        return "transport" if len(parts) == 2 else "transport/" + parts[1]
    return parts[0]


def room(path):
    return os.path.dirname(path) or "."


# Rooms of one layer that stand on one another: a room includes and calls
# its own files and the rooms of a lower floor only (rooms on one floor
# not each other).  A room of these layers missing here includes nothing
# of the layer's other rooms until it is given its floor.
FLOORS = {
    "ext/requests": 0, "ext/am": 1, "ext": 2,  # the layer's entry on top
    "transport/ucx/base": 0, "transport/ucx/config": 0, "transport/ucx/signal": 0,
    "transport/ucx": 1,
}


def floors_ok(me, h):
    a, b = FLOORS.get(room(me)), FLOORS.get(room(h))
    return room(me) == room(h) or (a is not None and b is not None and b < a)


ALLOWED = {
    "api": lambda me, h: layer(h) in ("api", "coll", "ext", "core") or h in CONTRACT,
    "coll": lambda me, h: layer(h) in ("coll", "core") or h in CONTRACT,
    "ext": lambda me, h: (layer(h) == "ext" and floors_ok(me, h)) or
    layer(h) in ("core", "transport/shm") or h in CONTRACT,
    "core": lambda me, h: layer(h) in ("core", "transport/shm", "boot") or h in CONTRACT,
    "transport": lambda me, h: h in CONTRACT or layer(h) == "boot",
    "transport/shm": lambda me, h: layer(h) == "transport/shm" or h in CONTRACT,
    "transport/ucx": lambda me, h: (layer(h) == "transport/ucx" and floors_ok(me, h)) or
    layer(h) == "boot" or h in CONTRACT,
    "transport/none": lambda me, h: layer(h) in ("transport/none", "boot") or h in CONTRACT,
    "transport/ofi": lambda me, h: layer(h) in ("transport/ofi", "boot") or h in CONTRACT,
    "boot": lambda me, h: layer(h) == "boot",
}
PUBLIC = {"shmem.h", "shmemx.h", "pshmem.h", "shoal_types.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def check_includes(src):
    bad, checked = [], 0
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.relpath(os.path.join(root, f), src)
            me = layer(path)
            rule = ALLOWED.get(me)
            if rule is None:
                bad.append("%s: unknown layer '%s' (add it to scripts/check_layers.py)" %
                           (path, me))
                continue
            text = open(os.path.join(root, f), encoding="utf-8").read()
            for h in INCLUDE.findall(text):
                checked += 1
                if h in PUBLIC or "/" not in h:
                    continue
                if not rule(path, h):
                    bad.append('%s (%s) includes "%s" (%s)' % (path, me, h, layer(h)))
    for b in bad:
        print("upward or sideways include:", b)
    print("%d includes checked, %d not allowed" % (checked, len(bad)))
    return bad


# The source path under src/ of an object file: CMake names it
# <build>/src/CMakeFiles/shoal_obj.dir/<path>.o; the generated wrappers
# (<...>/__/tools/gen/src/api_*.c.o) are api/.
def source_of(obj):
    p = obj.replace(os.sep, "/")
    p = p[:-2] if p.endswith(".o") else p
    if "/__/" in p:
        return "api/generated/" + os.path.basename(p)
    m = re.search(r"\.dir/(.*)$", p)
    return m.group(1) if m else os.path.basename(p)


def read_symbols(objs):
    """{source: set(used)}, {symbol: source}."""
    uses, defs = {}, {}
    for i in range(0, len(objs), 200):
        batch = objs[i:i + 200]
        out = subprocess.run(["nm", "-A"] + batch, capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            obj, _, rest = line.partition(":")
            if len(batch) == 1:  # nm -A names the file even for one
                obj = batch[0]
            f = rest.split()
            src = source_of(obj)
            if len(f) == 2 and f[0] == "U":
                uses.setdefault(src, set()).add(f[1])
            elif len(f) == 3 and f[1] in "TDBRVWCGS":
                defs[f[2]] = src
            uses.setdefault(src, set())
    return uses, defs


def strongly_connected(nodes, edges):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(max(10000, 4 * len(nodes)))
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def check_calls(objs):
    uses, defs = read_symbols(objs)
    bad, edges, why = [], {}, {}
    for a, syms in sorted(uses.items()):
        for s in sorted(syms):
            b = defs.get(s)
            if b is None or b == a:
                continue
            edges.setdefault(a, set()).add(b)
            why.setdefault((a, b), s)
            la, lb = layer(a).split("/")[0], layer(b).split("/")[0]
            if RANK.get(lb, -1) > RANK.get(la, -1):
                bad.append("%s (%s) uses %s of %s (%s)" % (a, la, s, b, lb))
            elif (layer(a) == layer(b) and room(a) in FLOORS and room(b) in FLOORS and
                  not floors_ok(a, b)):
                bad.append("%s (floor %d) uses %s of %s (floor %d)" %
                           (a, FLOORS[room(a)], s, b, FLOORS[room(b)]))
    inside = []  # circles within one room: allowed, counted
    for comp in strongly_connected(set(uses), edges):
        rooms = sorted({room(x) for x in comp})
        if len(rooms) < 2:
            if len(comp) > 1:
                inside.append("%s: %d objects" % (rooms[0], len(comp)))
            continue
        members = set(comp)
        links = ["%s -> %s (%s)" % (a, b, why[(a, b)]) for a in comp
                 for b in sorted(edges.get(a, ())) if b in members and room(a) != room(b)]
        bad.append("a circle of calls spans the rooms %s: %s; between rooms: %s" %
                   (", ".join(rooms), " ".join(comp), "; ".join(links)))
    for b in bad:
        print("upward call or circle:", b)
    print("%d objects in %d rooms, %d links between them, %d circle%s inside a room%s, "
          "%d not allowed" %
          (len(uses), len({room(x) for x in uses}), sum(len(e) for e in edges.values()),
           len(inside), "" if len(inside) == 1 else "s", " (%s)" % "; ".join(sorted(inside)) if inside else "", len(bad)))
    return bad


def main():
    args = sys.argv[1:]
    objs = []
    if "--objects" in args:
        i = args.index("--objects")
        # one argument each, or a CMake list (a;b;c) in one
        objs = [o for a in args[i + 1:] for o in a.split(";") if o]
        args = args[:i]
    src = args[0] if args else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "src")
    bad = check_includes(os.path.normpath(src))
    if objs:
        bad += check_calls(objs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
