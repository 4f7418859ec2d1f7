#!/usr/bin/env python3
"""Fails when LIB's thread-local segment (PT_TLS, its memory size) is larger
than LIMIT bytes.  usage: check_static_tls.py LIB LIMIT

A library with initial-exec thread-locals (libshoal's profile counters) that
a program loads with dlopen gets them from glibc's static TLS reserve; past
it, dlopen fails with "cannot allocate memory in static TLS block"."""
import struct
import sys


def tls_memsz(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:4] != b'\x7fELF' or data[4] != 2:
        sys.exit(f'{path}: not a 64-bit ELF file')
    end = '<' if data[5] == 1 else '>'
    phoff, = struct.unpack_from(end + 'Q', data, 0x20)
    phentsize, phnum = struct.unpack_from(end + 'HH', data, 0x36)
    for i in range(phnum):
        off = phoff + i * phentsize
        p_type, = struct.unpack_from(end + 'I', data, off)
        if p_type == 7:  # PT_TLS
            return struct.unpack_from(end + 'Q', data, off + 0x28)[0]
    return 0


def main():
    lib, limit = sys.argv[1], int(sys.argv[2])
    size = tls_memsz(lib)
    print(f'{lib}: {size} bytes of thread-locals (limit {limit})')
    if size > limit:
        print(f'FAILED: more than {limit} bytes: a program that loads it with dlopen '
              '(Python, Julia) may fail with "cannot allocate memory in static TLS block"; '
              'put large per-thread state on the heap behind one thread-local pointer')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
