#!/usr/bin/env python3
"""Fails when a file under src/ includes a header of a higher layer.

The layers (docs/architecture.md): api -> coll -> core -> transport -> boot.
A transport sees core only through the contract headers core/net.h and
core/env_rows.h; the on-node transport (transport/shm) is inline below core
and is included by core alone; boot calls libc only.  Generated headers
(shmem.h, shmemx.h, pshmem.h, shoal_types.h) are the public API or data
tables and may be included anywhere.

usage: check_layers.py [SRC_DIR]   (default: the src/ next to this script)
"""
import os
import re
import sys

CONTRACT = {"core/net.h", "core/env_rows.h"}

# layer of a file or header, from its path under src/
def layer(path):
    parts = path.split("/")
    if parts[0] == "transport":
        return "transport/" + parts[1]
    return parts[0]

ALLOWED = {
    "api": lambda h: layer(h) in ("api", "coll", "core"),
    "coll": lambda h: layer(h) in ("coll", "core"),
    "core": lambda h: layer(h) in ("core", "boot") or layer(h).startswith("transport/"),
    "transport/shm": lambda h: layer(h) == "transport/shm" or h in CONTRACT,
    "transport/ucx": lambda h: layer(h) in ("transport/ucx", "boot") or h in CONTRACT,
    "transport/none": lambda h: layer(h) in ("transport/none", "boot") or h in CONTRACT,
    "boot": lambda h: layer(h) == "boot",
}
PUBLIC = {"shmem.h", "shmemx.h", "pshmem.h", "shoal_types.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "src")
    src = os.path.normpath(src)
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
                if not rule(h):
                    bad.append('%s (%s) includes "%s" (%s)' % (path, me, h, layer(h)))
    for b in bad:
        print("upward or sideways include:", b)
    print("%d includes checked, %d not allowed" % (checked, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
