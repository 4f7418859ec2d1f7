#!/usr/bin/env python3
"""Shoal under a PMIx launcher (Open MPI's mpirun): one case per ctest.

    test_pmix.py --mpirun "MPIRUN ARGS..." --hello PMIX_HELLO --errors SPEC_ERRORS
                 --info SHMEM_INFO --shim LISTEN_DELAY_SO CASE [ARG...]

Cases:
  hello N        N PEs get ranks 0..N-1 of N (= PMIX_RANK), exchange data with
                 puts, gets, an atomic and barriers; SHMEM_INFO=1 says
                 "Bootstrap: pmix" with the job id made from PMIX_NAMESPACE
                 and all N PEs on this node
  concurrent     job A's rank 0 holds its segment socket (listen_delay.so
                 sleeps after its listen() until the test releases it, once
                 job B has ended) while its peers wait in the
                 bootstrap barrier; meanwhile job B runs to completion on the
                 same node; both succeed, with different job ids, and A's
                 socket names carry A's job id (jobs sharing a name: B cannot
                 bind and fails)
  die MODE RC    spec_errors MODE under mpirun with 3 PEs: one PE fails while
                 the others are blocked; mpirun must exit with RC (or any
                 non-zero status for RC=nonzero), and no process of the job
                 may survive (a few seconds on an idle machine: slower gets a
                 note, only a hang, HANG_S, fails)
  info           shmem-info --job under mpirun prints "Bootstrap: pmix";
                 shmem-info alone lists SHOAL_BOOT
  launcher_killed  3 PEs wait in shmem_wait_until for a word nobody writes;
                 SIGKILL to mpirun: the PEs lose their PMIx server and must
                 exit by themselves (nobody else can end them; within a few
                 seconds on an idle machine, a failure past HANG_S)
  boot_env       SHOAL_BOOT: singleton under mpirun gives N jobs of one PE;
                 a malformed value and pmix without a launcher fail with a
                 message naming the variable
  hang_report    exit_paths hang_finalize with 2 PEs: PE 1 waits in pause(), PE 0
                 in shmem_finalize; SIGQUIT to PE 0 (mpirun starts its PEs
                 with SIGQUIT ignored) prints where it waits, named as the
                 bootstrap barrier through PMIx; SIGQUIT to PE 1 ends its
                 pause() and the job ends with status 0
Prints the commands and outputs on failure; exits 0 on success.
"""
import argparse
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
import uuid

A = None
# Time limits catch hangs: a loaded machine (CI) may take many times what a
# job takes alone, which only gets a note.
HANG_S = 90.0


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def env_with(extra=None, mark=None):
    env = dict(os.environ)
    for k in list(env):
        # A PMIx or oshrun environment of whoever runs the tests must not leak in.
        if k.startswith("PMIX_") or k.startswith("SHOAL_BOOT") or k in ("SHOAL_RANK",
                                                                       "SHOAL_SIZE",
                                                                       "SHOAL_JOBID"):
            del env[k]
    if mark:
        env["SHOAL_TEST_MARK"] = mark
    env.update(extra or {})
    return env


def show(cmd, rc, out, err, dt):
    return "command: %s\nstatus: %s after %.2f s\n--- stdout\n%s--- stderr\n%s" % (
        " ".join(shlex.quote(c) for c in cmd), rc, dt, out, err)


def run(cmd, env, timeout=60):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, timeout=timeout)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = "timeout", e.stdout or b"", e.stderr or b""
    dt = time.monotonic() - t0
    return rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), dt


def mpirun(n, *args):
    return A.mpirun + ["-np", str(n)] + list(args)


def marked_pids(mark):
    """Processes whose environment holds SHOAL_TEST_MARK=mark (the job's PEs)."""
    want = ("SHOAL_TEST_MARK=" + mark).encode()
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open("/proc/%s/environ" % d, "rb") as f:
                if want in f.read().split(b"\0"):
                    pids.append(int(d))
        except OSError:
            pass
    return pids


def note_slow(what, dt, usual):
    if dt > usual:
        print("note: %s took %.1f s, more than the %.0f s of an idle machine (not a failure: "
              "only a hang is)" % (what, dt, usual))


def no_survivors(mark, what):
    deadline = time.monotonic() + 30
    while True:
        left = marked_pids(mark)
        if not left:
            return
        if time.monotonic() > deadline:
            fail("%s: processes of the job survive mpirun: %s" % (what, left))
        time.sleep(0.05)


def check_hello(n, rc, out, err, dt, cmd, info=True):
    text = show(cmd, rc, out, err, dt)
    if rc != 0:
        fail("job of %d PEs failed\n%s" % (n, text))
    oks = sorted(int(m.group(1)) for m in re.finditer(r"pmix_hello: PE (\d+)/%d ok" % n, out))
    if oks != list(range(n)):
        fail("expected 'pmix_hello: PE r/%d ok' for r = 0..%d, got PEs %s\n%s" %
             (n, n - 1, oks, text))
    if not info:
        return None
    m = re.search(r"^Bootstrap: (\S+) \(job id (\S+)\)$", out, re.M)
    if not m or m.group(1) != "pmix":
        fail("SHMEM_INFO=1 does not say 'Bootstrap: pmix (job id ...)'\n" + text)
    if not re.search(r"^Job: %d PEs, %d on this node" % (n, n), out, re.M):
        fail("SHMEM_INFO=1 does not say 'Job: %d PEs, %d on this node'\n%s" % (n, n, text))
    nss = set(re.findall(r"namespace (\S+)", out))
    if len(nss) != 1:
        fail("the PEs report namespaces %s, expected one\n%s" % (sorted(nss), text))
    ns = nss.pop()
    jobid = m.group(2)
    if not jobid.startswith("pmix-") or (re.fullmatch(r"[A-Za-z0-9._-]{1,40}", ns) and
                                          jobid != "pmix-" + ns):
        fail("job id %s is not made from PMIX_NAMESPACE=%s\n%s" % (jobid, ns, text))
    return jobid


def case_hello(n):
    n = int(n)
    mark = uuid.uuid4().hex
    cmd = mpirun(n, A.hello, "hello", str(n))
    rc, out, err, dt = run(cmd, env_with({"SHMEM_INFO": "1"}, mark))
    check_hello(n, rc, out, err, dt, cmd)
    no_survivors(mark, "hello")


def abstract_shoal_sockets():
    names = set()
    with open("/proc/net/unix") as f:
        next(f)
        for line in f:
            parts = line.split()
            if len(parts) >= 8 and parts[7].startswith("@shoal-"):
                names.add(parts[7][1:])
    return names


def case_concurrent():
    n = 3
    release = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                           "shoal-test-release-%s" % uuid.uuid4().hex)
    before = abstract_shoal_sockets()
    mark_a, mark_b = uuid.uuid4().hex, uuid.uuid4().hex
    cmd_a = mpirun(n, A.hello, "hello", str(n))
    # Job A's rank 0 sleeps right after listen() on its segment socket (the
    # shim), while its peers wait for it in the bootstrap barrier.
    # It holds until this test releases it (B has ended), or HANG_S.
    env_a = env_with({"SHMEM_INFO": "1", "LD_PRELOAD": A.shim,
                      "SHOAL_TEST_LISTEN_DELAY": str(HANG_S),
                      "SHOAL_TEST_LISTEN_UNTIL": release}, mark_a)
    # In an ASan build the preloaded shim comes before the ASan runtime.
    env_a["ASAN_OPTIONS"] = ":".join(o for o in (env_a.get("ASAN_OPTIONS"),
                                                 "verify_asan_link_order=0") if o)
    t0 = time.monotonic()
    pa = subprocess.Popen(cmd_a, env=env_a, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL)
    try:
        a_socks = set()
        while not a_socks:
            if pa.poll() is not None or time.monotonic() - t0 > HANG_S:
                pa.kill()
                out, err = pa.communicate()
                fail("job A's rank 0 never showed a listening shoal socket in /proc/net/unix\n" +
                     show(cmd_a, pa.returncode, out.decode(), err.decode(),
                          time.monotonic() - t0))
            a_socks = abstract_shoal_sockets() - before
            time.sleep(0.02)
        cmd_b = mpirun(n, A.hello, "hello", str(n))
        rc, out_b, err_b, dt_b = run(cmd_b, env_with({"SHMEM_INFO": "1"}, mark_b),
                                     timeout=HANG_S)
        a_socks_after = abstract_shoal_sockets() & a_socks
        open(release, "w").close()
        jid_b = check_hello(n, rc, out_b, err_b, dt_b, cmd_b)
        if not a_socks_after:
            fail("job A's sockets %s were gone when job B ended (B took %.2f s): the jobs "
                 "did not overlap" % (sorted(a_socks), dt_b))
        out_a, err_a = pa.communicate(timeout=HANG_S)
    finally:
        if pa.poll() is None:
            pa.kill()
            pa.wait()
        if os.path.exists(release):
            os.unlink(release)
    jid_a = check_hello(n, pa.returncode, out_a.decode(), err_a.decode(),
                        time.monotonic() - t0, cmd_a)
    if jid_a == jid_b:
        fail("two concurrent jobs have the same job id %s" % jid_a)
    if not all(s.startswith("shoal-%s-" % jid_a) for s in a_socks):
        fail("job A's socket names %s do not carry its job id %s" % (sorted(a_socks), jid_a))
    no_survivors(mark_a, "concurrent A")
    no_survivors(mark_b, "concurrent B")


def case_die(mode, want_rc, usual_s=8.0):
    n = 3
    mark = uuid.uuid4().hex
    cmd = mpirun(n, A.errors, mode)
    rc, out, err, dt = run(cmd, env_with({}, mark), timeout=HANG_S)
    text = show(cmd, rc, out, err, dt)
    if rc == "timeout" or rc == 0:
        fail("the job did not fail\n" + text)
    if want_rc != "nonzero" and rc != int(want_rc):
        fail("mpirun exited with %s, expected %s\n%s" % (rc, want_rc, text))
    # (A PE killed by signal S makes mpirun exit with 128 + S; mpirun's own
    # crash prints Open MPI's backtrace banner.)
    if "*** Process received signal ***" in err:
        fail("mpirun itself crashed\n" + text)
    note_slow("the job's going down", dt, usual_s)
    if "survived" in out + err or "passed a barrier" in out + err:
        fail("a PE survived the failure\n" + text)
    no_survivors(mark, "die " + mode)


def case_launcher_killed(n=3, usual_s=5.0):
    mark = uuid.uuid4().hex
    cmd = mpirun(n, A.hello, "stuck", str(n))
    p = subprocess.Popen(cmd, env=env_with({}, mark), stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    ready, lines, t0 = 0, [], time.monotonic()
    while ready < n and time.monotonic() - t0 < 60:
        line = p.stdout.readline().decode("utf-8", "replace")
        if not line:
            break
        lines.append(line)
        ready += "stuck" in line
    if ready < n:
        p.kill()
        p.wait()
        no_survivors(mark, "launcher_killed (start)")
        fail("the PEs did not all report 'stuck':\n" + "".join(lines))
    time.sleep(0.2)  # into their wait
    t = time.monotonic()
    p.kill()
    p.wait()
    p.stdout.close()
    while marked_pids(mark) and time.monotonic() - t < HANG_S:
        time.sleep(0.01)
    left = marked_pids(mark)
    if left:
        for pid in left:
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        fail("PEs %s outlived a SIGKILLed mpirun by %.0f s" % (left, HANG_S))
    print("mpirun SIGKILLed -> PEs gone in %.3f s" % (time.monotonic() - t))
    note_slow("the PEs' going", time.monotonic() - t, usual_s)


def rank_of(pid):
    try:
        with open("/proc/%d/environ" % pid, "rb") as f:
            for kv in f.read().split(b"\0"):
                if kv.startswith(b"PMIX_RANK="):
                    return int(kv[10:])
    except (OSError, ValueError):
        pass
    return None


def case_hang_report():
    mark = uuid.uuid4().hex
    cmd = mpirun(2, A.exits, "hang_finalize")
    p = subprocess.Popen(cmd, env=env_with({}, mark), stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    err = []
    reader = threading.Thread(target=lambda: err.extend(
        l.decode("utf-8", "replace") for l in p.stderr), daemon=True)
    reader.start()
    want = re.compile(r"shoal: PE 0 \(pid \d+\): thread \d+ blocked for [\d.]+ s in "
                      r"shmem_finalize, waiting for every PE to get this far in shmem_finalize "
                      r"\(the bootstrap barrier, through PMIx\)")
    pes, t0 = {}, time.monotonic()
    # Ask PE 0 until it reports its wait in shmem_finalize (a loaded machine
    # may take a while to get it there).
    while not any("in shmem_finalize" in l for l in err) and time.monotonic() - t0 < 60:
        time.sleep(0.5)
        pes = {rank_of(pid): pid for pid in marked_pids(mark)}
        if 0 in pes:
            os.kill(pes[0], signal.SIGQUIT)
    if 1 in pes:
        os.kill(pes[1], signal.SIGQUIT)  # out of its pause(): the job ends
    try:
        rc = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
    reader.join(5)
    text = show(cmd, rc, "", "".join(err), time.monotonic() - t0)
    if not any(want.search(l) for l in err):
        fail("PE 0's SIGQUIT report does not name the bootstrap barrier through PMIx\n" + text)
    if rc != 0:
        fail("the job did not end with status 0 once PE 1 left pause()\n" + text)
    no_survivors(mark, "hang_report")


def case_info():
    mark = uuid.uuid4().hex
    cmd = mpirun(2, A.info, "--job")
    rc, out, err, dt = run(cmd, env_with({}, mark))
    text = show(cmd, rc, out, err, dt)
    if rc != 0:
        fail("shmem-info --job failed under mpirun\n" + text)
    if len(re.findall(r"^Bootstrap: pmix \(job id pmix-\S+\)$", out, re.M)) != 1:
        fail("shmem-info --job under mpirun does not print 'Bootstrap: pmix' once\n" + text)
    if not re.search(r"^Job: 2 PEs, 2 on this node", out, re.M):
        fail("shmem-info --job under mpirun does not see 2 PEs\n" + text)
    no_survivors(mark, "info")
    rc, out, err, dt = run([A.info], env_with())
    if rc != 0 or not re.search(r"^\s*SHOAL_BOOT\s+= auto", out, re.M) or \
            not re.search(r"^Bootstrap: \(not initialized; built: .*pmix", out, re.M):
        fail("shmem-info does not list SHOAL_BOOT and the pmix bootstrap\n" +
             show([A.info], rc, out, err, dt))


def case_boot_env():
    # Forced singleton under mpirun: every process is PE 0 of a job of one.
    n = 2
    cmd = mpirun(n, A.info, "--job")
    mark = uuid.uuid4().hex
    rc, out, err, dt = run(cmd, env_with({"SHOAL_BOOT": "singleton"}, mark))
    text = show(cmd, rc, out, err, dt)
    if rc != 0 or len(re.findall(r"^Bootstrap: singleton \(job id single-\d+\)$", out,
                                 re.M)) != n or \
            len(re.findall(r"^Job: 1 PEs, 1 on this node", out, re.M)) != n:
        fail("SHOAL_BOOT=singleton under mpirun: expected %d jobs of one PE\n%s" % (n, text))
    no_survivors(mark, "boot_env singleton")
    # A malformed value fails, naming the variable.
    for val, pattern, launcher in (("bogus", r"SHOAL_BOOT='bogus' is malformed", True),
                                   ("pmix", r"PMIx_Init failed", False),
                                   ("local", r"SHOAL_BOOT=local .*SHOAL_BOOT_FD is not set",
                                    False)):
        cmd = mpirun(1, A.hello, "hello", "1") if launcher else [A.info, "--job"]
        rc, out, err, dt = run(cmd, env_with({"SHOAL_BOOT": val}), timeout=30)
        text = show(cmd, rc, out, err, dt)
        if rc == 0 or rc == "timeout" or not re.search(pattern, err):
            fail("SHOAL_BOOT=%s: expected a failure saying /%s/\n%s" % (val, pattern, text))


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpirun", required=True, help="the mpirun command without -np")
    ap.add_argument("--hello", required=True)
    ap.add_argument("--errors", required=True)
    ap.add_argument("--info", required=True)
    ap.add_argument("--shim", required=True, help="listen_delay.so (LD_PRELOAD)")
    ap.add_argument("--exits", required=True, help="tests/exit's exit_paths")
    ap.add_argument("case")
    ap.add_argument("args", nargs="*")
    A = ap.parse_args()
    A.mpirun = shlex.split(A.mpirun)
    cases = {"hello": case_hello, "concurrent": case_concurrent, "die": case_die,
             "info": case_info, "boot_env": case_boot_env,
             "launcher_killed": case_launcher_killed, "hang_report": case_hang_report}
    if A.case not in cases:
        ap.error("unknown case %s" % A.case)
    cases[A.case](*A.args)
    print("ok: %s %s" % (A.case, " ".join(A.args)))


if __name__ == "__main__":
    main()
