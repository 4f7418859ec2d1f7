#!/usr/bin/env python3
"""Run a Shoal job that must fail (or must print a diagnostic) and check how.

    expect_failure.py --oshrun PATH -n N [--env VAR=VALUE ...]
                      [--rc nonzero|N] [--regex RE ...] [--not-regex RE ...]
                      [--max-seconds S] [--hang-seconds H] -- PROGRAM [ARGS ...]

Passes when:
  * the job exits with the expected status (--rc: 'nonzero' (the default),
    or an exact number, e.g. 0 for "NULL is returned and the job goes on");
  * every --regex matches stderr (Python re, DOTALL, case-sensitive);
  * no --not-regex matches stderr;
  * the whole job ended: a failing PE must take the others down, even when
    they are blocked.  A job still running after --hang-seconds (default
    120) is taken for hung and killed.  --max-seconds (default 5) is how
    long the job takes on an idle machine: a job slower than that only gets
    a note, since a loaded machine (CI) may take several times longer; time
    limits in tests catch hangs, not slowness.
  * stderr holds no ThreadSanitizer report.
Prints the command, status, time and both streams on failure.
"""
import argparse
import os
import re
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oshrun", required=True)
    ap.add_argument("-n", "--np", type=int, default=1)
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--rc", default="nonzero")
    ap.add_argument("--regex", action="append", default=[])
    ap.add_argument("--not-regex", action="append", default=[])
    ap.add_argument("--out-regex", action="append", default=[], help="the same for stdout")
    ap.add_argument("--out-not-regex", action="append", default=[])
    ap.add_argument("--max-seconds", type=float, default=5.0)
    ap.add_argument("--hang-seconds", type=float, default=120.0)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("no program given")

    env = dict(os.environ)
    for kv in a.env:
        k, sep, v = kv.partition("=")
        if not sep:
            ap.error("--env wants VAR=VALUE, got %r" % kv)
        env[k] = v
    full = [a.oshrun, "-n", str(a.np)] + cmd
    hard_limit = max(a.hang_seconds, a.max_seconds)
    t0 = time.monotonic()
    try:
        p = subprocess.run(full, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=hard_limit)
        rc, out, err = p.returncode, p.stdout, p.stderr
        timed_out = False
    except subprocess.TimeoutExpired as e:
        rc, out, err = None, e.stdout or b"", e.stderr or b""
        timed_out = True
    dt = time.monotonic() - t0
    out = out.decode("utf-8", "replace")
    err = err.decode("utf-8", "replace")

    problems = []
    if timed_out:
        problems.append("the job did not end within %.0f s (hung)" % hard_limit)
    else:
        if a.rc == "nonzero":
            if rc == 0:
                problems.append("exit status 0, expected a failure")
        elif rc != int(a.rc):
            problems.append("exit status %s, expected %s" % (rc, a.rc))
        if dt > a.max_seconds:
            print("note: the job took %.2f s, more than the %.1f s it takes on an idle machine "
                  "(not a failure: only a hang is)" % (dt, a.max_seconds))
    # A ThreadSanitizer report does not end the process, so a job that
    # fails as it must would hide it: it fails the test here.
    if "WARNING: ThreadSanitizer:" in err:
        problems.append("ThreadSanitizer reported a problem (stderr)")
    for r in a.regex:
        if not re.search(r, err, re.S):
            problems.append("stderr does not match /%s/" % r)
    for r in a.not_regex:
        if re.search(r, err, re.S):
            problems.append("stderr matches /%s/ but must not" % r)
    for r in a.out_regex:
        if not re.search(r, out, re.S):
            problems.append("stdout does not match /%s/" % r)
    for r in a.out_not_regex:
        if re.search(r, out, re.S):
            problems.append("stdout matches /%s/ but must not" % r)

    env_txt = " ".join(a.env)
    print("command: %s%s" % (env_txt + " " if env_txt else "", " ".join(full)))
    print("exit status %s after %.2f s" % (rc, dt))
    if problems:
        print("FAILED:")
        for pr in problems:
            print("  - " + pr)
        print("---- stdout ----\n" + out)
        print("---- stderr ----\n" + err)
        return 1
    print("ok; stderr was:\n" + err)
    return 0


if __name__ == "__main__":
    sys.exit(main())
