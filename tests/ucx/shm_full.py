#!/usr/bin/env python3
"""ucx.shm_full: a job over UCX on a node whose /dev/shm is full.

    shm_full.py --oshrun OSHRUN --exe EXIT_PATHS

UCX's shared-memory transport (posix) maps a few MiB per worker in
/dev/shm (UCX_POSIX_DIR); Shoal's own heaps are memfds and take no room
there.  In a private mount namespace (unshare -m, root) a 1 MiB tmpfs is
mounted on /dev/shm, and a 2-PE job (SHOAL_TRANSPORTS=ucx, `exit_paths
put`) must end at shmem_init with an error that names /dev/shm, its room
and what to do -- not UCX's bare "Out of memory" -- or, where UCX does
without /dev/shm (UCX 1.22 falls back to SysV shared memory by itself),
pass.  Then the advice is followed (UCX_TLS=^posix: SysV shared memory)
and the same job passes.
Exits 77 (skipped) where a mount namespace cannot be made (not root, no
unshare)."""
import argparse
import os
import re
import shutil
import subprocess
import sys

SKIP = 77
HANG_S = 120  # a hang catcher: the job takes a second alone

WANT = (r"shoal: PE [01]: shmem_init: /dev/shm \(UCX_POSIX_DIR\), where UCX's shared-memory "
        r"transport maps its buffers, has too little room: \d+ KiB free of 1024 KiB.*"
        r"UCX_TLS=\^posix")
UNWANTED = r"Out of memory \(UCX_TLS|creating the target worker \(ucp_worker_create\) failed"


def in_tiny_shm(cmd, env):
    """cmd run in a mount namespace of its own, with 1 MiB on /dev/shm."""
    script = 'mount -t tmpfs -o size=1m shoal-test /dev/shm || exit 77; exec "$@"'
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script,
                        "sh"] + cmd, env=env, capture_output=True, text=True, timeout=HANG_S)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oshrun", required=True)
    ap.add_argument("--exe", required=True)
    a = ap.parse_args()
    if os.geteuid() != 0 or not shutil.which("unshare"):
        print("skipped: needs root and unshare(1) for a private /dev/shm")
        return SKIP
    cmd = [a.oshrun, "-n", "2", a.exe, "put"]
    env = dict(os.environ, SHOAL_TRANSPORTS="ucx")
    env.pop("UCX_TLS", None)
    env.pop("UCX_POSIX_DIR", None)
    rc, out, err = in_tiny_shm(cmd, env)
    if rc == SKIP and "shoal" not in err:
        print("skipped: cannot mount a tmpfs in a mount namespace here\n" + err)
        return SKIP
    problems = []
    if rc != 0 and not re.search(WANT, err, re.S):
        problems.append("the job failed, and stderr lacks the /dev/shm error /%s/" % WANT)
    if re.search(UNWANTED, err):
        problems.append("stderr still has UCX's bare failure /%s/" % UNWANTED)
    rc2, out2, err2 = in_tiny_shm(cmd, dict(env, UCX_TLS="^posix"))
    if rc2 != 0:
        problems.append("with UCX_TLS=^posix (the advice) the job failed: status %d\n%s"
                        % (rc2, err2))
    print("full /dev/shm: status %d\n%s" % (rc, err))
    if problems:
        print("FAILED:\n  - " + "\n  - ".join(problems))
        return 1
    print("ok: %s, and UCX_TLS=^posix runs the job"
          % ("UCX did without /dev/shm" if rc == 0 else "the error names /dev/shm"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
