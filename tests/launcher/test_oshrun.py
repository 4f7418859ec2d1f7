#!/usr/bin/env python3
"""oshrun behaviour tests (one ctest per case).

    test_oshrun.py --oshrun PATH --pe PATH CASE [CASE...]
    test_oshrun.py --list

PE programs are launcher_pe (tests/launcher/launcher_pe.c), which uses only
the bootstrap interface.  Every job's PEs carry a unique marker in argv; after
each job the case asserts that

  * no process with the marker is left (scanned in /proc right after oshrun
    has exited: oshrun must have reaped or killed everything),
  * nothing new appeared under /dev/shm,
  * the job's working directory (a fresh temporary one) is still empty.

Timing figures (kill latency, signal-to-exit) are printed as
"figure: NAME = VALUE s" lines.
"""
import argparse
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

OSHRUN = None
PE = None
LOAD = None  # --load: busy loops beside the jobs of the *_load cases
FAILURES = []
# "Everything is gone" within one second is the requirement, on an idle
# machine; a loaded one (CI) may take several times longer.  A figure over
# its bound gets a note; only one past HANG_S fails: time limits in tests
# catch hangs (nothing ended the PEs), not slowness.
KILL_BOUND = 1.0
HANG_S = 60.0


def fail(msg):
    FAILURES.append(msg)
    print("FAIL: " + msg, flush=True)


def check(cond, msg):
    if not cond:
        fail(msg)
    return cond


def figure(name, value):
    print("figure: %s = %.3f s" % (name, value), flush=True)


def bounded(value, bound, msg):
    """`value` seconds should stay under `bound` (idle machine): a note
    over it, a failure (a hang) past HANG_S."""
    if value >= HANG_S:
        return check(False, "%s (a hang: past %.0f s)" % (msg, HANG_S))
    if value >= bound:
        print("note: %s, over the %.1f s of an idle machine (not a failure: only a hang is)"
              % (msg, bound), flush=True)
    return True


def shm_entries():
    try:
        return set(os.listdir("/dev/shm"))
    except OSError:
        return set()


def shm_in_use(names):
    """The subset of /dev/shm names some live process maps or holds open:
    those belong to jobs still running (tests run in parallel, and UCX's
    shared-memory transport uses /dev/shm), not to a job that left them."""
    paths = {"/dev/shm/" + n: n for n in names}
    used = set()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/maps" % d) as f:
                for line in f:
                    i = line.find("/dev/shm/")
                    if i >= 0:
                        path = line[i:].strip().replace(" (deleted)", "")
                        if path in paths:
                            used.add(paths[path])
            for fd in os.listdir("/proc/%s/fd" % d):
                try:
                    t = os.readlink("/proc/%s/fd/%s" % (d, fd)).replace(" (deleted)", "")
                except OSError:
                    continue
                if t in paths:
                    used.add(paths[t])
        except OSError:
            continue
    return used


def marker_procs(marker):
    """pids of live (non-zombie) processes whose argv contains marker."""
    found = []
    me = os.getpid()
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == me:
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                argv = f.read().split(b"\0")
            with open("/proc/%s/stat" % d, "rb") as f:
                stat = f.read()
        except OSError:
            continue
        state = stat[stat.rfind(b")") + 2:][:1]
        if marker.encode() in argv and state != b"Z":
            found.append(int(d))
    return found


class Job:
    """One oshrun run with its checks."""

    counter = 0

    def __init__(self, case):
        Job.counter += 1
        self.marker = "shoal-lt-%d-%s-%d-%s" % (os.getpid(), case, Job.counter,
                                                os.urandom(4).hex())
        self.cwd = tempfile.mkdtemp(prefix="shoal-lt-")
        self.shm_before = shm_entries()

    def argv(self, opts, mode, *args):
        return [OSHRUN] + [str(o) for o in opts] + [PE, self.marker, mode] + [str(a) for a in args]

    def start(self, argv, stdin=subprocess.DEVNULL, new_session=False):
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(argv, cwd=self.cwd, stdin=stdin, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, start_new_session=new_session)
        return self.proc

    def finish(self, input_bytes=None, timeout=60):
        try:
            out, err = self.proc.communicate(input=input_bytes, timeout=timeout)
        except subprocess.TimeoutExpired:
            fail("%s: oshrun did not end within %d s" % (self.marker, timeout))
            # Whatever holds our pipes must go, or communicate() waits forever.
            for p in marker_procs(self.marker):
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass
            self.proc.kill()
            out, err = self.proc.communicate()
        self.t_end = time.monotonic()
        self.out = (out or b"").decode(errors="replace")  # None: the case closed it
        self.err = (err or b"").decode(errors="replace")
        self.rc = self.proc.returncode
        self.after()
        return self.rc, self.out, self.err

    def run(self, argv, input_bytes=None, timeout=60):
        self.start(argv, stdin=subprocess.PIPE if input_bytes is not None else subprocess.DEVNULL)
        return self.finish(input_bytes, timeout)

    def after(self):
        left = marker_procs(self.marker)
        if left:
            fail("%s: processes survived the job: %s" % (self.marker, left))
            for p in left:
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass
        new_shm = shm_entries() - self.shm_before
        if new_shm:
            new_shm -= shm_in_use(new_shm)
            new_shm &= shm_entries()  # gone meanwhile: another job's, removed by it
        check(not new_shm, "new entries under /dev/shm: %s" % sorted(new_shm))
        files = os.listdir(self.cwd)
        check(not files, "files left in the job's directory: %s" % files)
        shutil.rmtree(self.cwd, ignore_errors=True)

    def expect(self, rc, err_res=(), out_res=(), what=""):
        ok = check(self.rc == rc, "%s: exit status %s, expected %s\nstdout:\n%s\nstderr:\n%s"
                   % (what, self.rc, rc, self.out[-3000:], self.err[-3000:]))
        for r in err_res:
            ok &= check(re.search(r, self.err, re.M) is not None,
                        "%s: stderr does not match %r:\n%s" % (what, r, self.err[-3000:]))
        for r in out_res:
            ok &= check(re.search(r, self.out, re.M) is not None,
                        "%s: stdout does not match %r:\n%s" % (what, r, self.out[-3000:]))
        return ok


def wait_ready(job, n, timeout=30):
    """Reads the job's stdout until n "ready R" lines arrived."""
    buf = b""
    end = time.monotonic() + timeout
    fd = job.proc.stdout.fileno()
    while buf.count(b"ready ") < n:
        left = end - time.monotonic()
        if left <= 0:
            fail("PEs not ready within %d s: %r" % (timeout, buf))
            return False
        r, _, _ = select.select([fd], [], [], left)
        if r:
            chunk = os.read(fd, 65536)
            if not chunk:
                fail("oshrun ended before the PEs were ready: %r" % buf)
                return False
            buf += chunk
    return True


# ---------------------------------------------------------------- cases ----

def case_ok():
    for n in (1, 2, 4, 8):
        j = Job("ok")
        j.run(j.argv(["-n", n], "ok"))
        j.expect(0, what="ok -n %d" % n)
        for r in range(n):
            check("pe %d of %d ok" % (r, n) in j.out, "ok -n %d: PE %d did not report" % (n, r))
        check(j.err == "", "ok -n %d: unexpected stderr: %s" % (n, j.err))
    # Programs that never start shmem: status 0 is a normal end.
    j = Job("ok")
    j.run([OSHRUN, "-n", "3", "sh", "-c", "exit 0", j.marker])
    j.expect(0, what="sh exit 0")


def case_exit_codes():
    # Rank r exits 10+r, the highest rank first: its status is the job's.
    for n in (2, 4):
        j = Job("exit")
        j.run(j.argv(["-n", n], "exitorder"))
        j.expect(10 + n - 1, [r"^oshrun: PE %d \(pid \d+\) exited with status %d before "
                              r"shmem_finalize; terminating the other %d PEs?$"
                              % (n - 1, 10 + n - 1, n - 1)], what="exitorder -n %d" % n)
        check(len(re.findall(r"^oshrun:", j.err, re.M)) == 1,
              "exitorder: exactly one oshrun line expected:\n" + j.err)
    j = Job("exit")
    j.run([OSHRUN, "-n", "3", "sh", "-c", "exit 7", j.marker])
    j.expect(7, [r"^oshrun: PE \d \(pid \d+\) exited with status 7"], what="sh exit 7")
    j = Job("exit")
    j.run([OSHRUN, "-n", "2", "sh", "-c", 'test "$SHOAL_RANK" = 1 && exit 5; sleep 300',
           j.marker], timeout=HANG_S + 30)
    j.expect(5, [r"^oshrun: PE 1 \(pid \d+\) exited with status 5; terminating the other 1 PE$"],
             what="rank 1 exits 5 while rank 0 sleeps")
    bounded(j.t_end - j.t0, 5, "the sleeping PE was terminated %.2f s after the start"
            % (j.t_end - j.t0))


def case_segv():
    j = Job("segv")
    j.run(j.argv(["-n", 4], "segv", 2))
    j.expect(139, [r"^oshrun: PE 2 \(pid \d+\) was killed by signal 11 \(Segmentation fault\); "
                   r"terminating the other 3 PEs$"], what="segv")


def case_abort():
    j = Job("abort")
    j.run(j.argv(["-n", 4], "abort", 1, 6))
    j.expect(6, [r"^oshrun: PE 1 \(pid \d+\) aborted the job with status 6: launcher test abort "
                 r"reason; terminating the other 3 PEs$"], what="abort")
    check(len(re.findall(r"^oshrun:", j.err, re.M)) == 1,
          "abort: exactly one oshrun line expected:\n" + j.err)
    bounded(j.t_end - j.t0, 5, "abort took %.2f s" % (j.t_end - j.t0))


def kill_latency(ignore_term):
    n = 4
    extra = ["term"] if ignore_term else []
    name = "kill_latency_ignore_term" if ignore_term else "kill_latency"
    for rep in range(3):
        j = Job(name)
        j.run(j.argv(["-n", n], "exit", n - 1, 3, *extra))
        j.expect(3, [r"^oshrun: PE %d \(pid \d+\) exited with status 3 before shmem_finalize; "
                     r"terminating the other %d PEs$" % (n - 1, n - 1)], what=name)
        m = re.search(r"t_exit=([0-9.]+)", j.err)
        if not check(m is not None, "no exit time in stderr"):
            continue
        lat = j.t_end - float(m.group(1))
        figure("%s[%d] (PE exit -> every process gone)" % (name, rep), lat)
        bounded(lat, KILL_BOUND, "%s: the other PEs were gone only %.3f s after the failure"
                % (name, lat))
        if ignore_term:
            check(lat >= 0.4, "%s: SIGKILL came after %.3f s, before the grace period"
                  % (name, lat))


def case_kill_latency():
    kill_latency(False)


def case_kill_latency_ignore_term():
    kill_latency(True)


def case_global_exit():
    j = Job("gexit")
    j.run(j.argv(["-n", 4], "globalexit", 0, 9))
    j.expect(9, [r"^oshrun: PE 0 called shmem_global_exit\(9\); terminating the other 3 PEs$"],
             what="global_exit")
    check("killed" not in j.err and "aborted" not in j.err,
          "global_exit reported as a failure:\n" + j.err)
    figure("global_exit (start -> every process gone)", j.t_end - j.t0)
    bounded(j.t_end - j.t0, 5, "global_exit took %.2f s" % (j.t_end - j.t0))
    # Alone, nobody has to be killed: no note at all.
    j = Job("gexit")
    j.run(j.argv(["-n", 1], "globalexit", 0, 5))
    j.expect(5, what="global_exit -n 1")
    check(j.err == "", "global_exit -n 1: unexpected stderr: " + j.err)
    # Status 0 is a clean end of the job.
    j = Job("gexit")
    j.run(j.argv(["-n", 3], "globalexit", 2, 0))
    j.expect(0, what="global_exit(0)")


def case_no_finalize():
    j = Job("nofin")
    j.run(j.argv(["-n", 3], "nofinalize", 1))
    j.expect(1, [r"^oshrun: PE 1 \(pid \d+\) exited with status 0 before shmem_finalize; "
                 r"terminating the other 2 PEs$"], what="exit 0 without finalize")


def case_dead_peer():
    # PE 1 exits 0 without starting shmem; the others' barrier must fail
    # with a clear error instead of hanging.
    j = Job("dead")
    j.run(j.argv(["-n", 3], "deadpeer", 1), timeout=30)
    j.expect(4, [r"bootstrap: barrier #1 cannot complete: PE 1 \(pid \d+\) exited with status 0 "
                 r"without joining it",
                 r"^oshrun: PE [02] \(pid \d+\) exited with status 4"], what="dead peer")


def case_allgather_mismatch():
    # Different lengths: every PE's allgather fails with a clear error.
    for rep in range(5):
        j = Job("mismatch")
        j.run(j.argv(["-n", 3], "mismatch"), timeout=30)
        j.expect(4, [r"bootstrap: .*every PE must contribute the same length|bootstrap: the "
                     r"collective this PE joined failed",
                     r"^oshrun: PE \d \(pid \d+\) exited with status 4 before shmem_finalize"],
                 what="allgather of different lengths")


def signal_case(sig, expect_rc, group=False, ignore_term=False):
    n = 4
    j = Job("sig")
    args = ["term"] if ignore_term else []
    j.start(j.argv(["-n", n], "sleep", *args), new_session=group)
    if not wait_ready(j, n):
        j.proc.kill()
        j.finish()
        return j
    t_sig = time.monotonic()
    if group:
        os.killpg(j.proc.pid, sig)  # what a terminal does on Ctrl-C
    else:
        os.kill(j.proc.pid, sig)
    j.finish(timeout=HANG_S + 30)
    lat = j.t_end - t_sig
    figure("signal %d to %s -> every process gone" % (sig, "the group" if group else "oshrun"),
           lat)
    bounded(lat, KILL_BOUND, "signal %d: the job ended only %.3f s later" % (sig, lat))
    j.expect(expect_rc, [r"^oshrun: received signal %d \(.*\); terminating the %d PEs$"
                         % (sig, n)], what="signal %d" % sig)
    check("was killed by signal" not in j.err, "PE deaths reported as failures:\n" + j.err)
    return j


def case_sigint():
    signal_case(signal.SIGINT, 130)
    signal_case(signal.SIGINT, 130, ignore_term=True)


def case_sigterm():
    signal_case(signal.SIGTERM, 143)
    signal_case(signal.SIGHUP, 129)


def case_sigint_group():
    signal_case(signal.SIGINT, 130, group=True)


def case_oshrun_killed():
    # SIGKILL to oshrun: the PEs die of their parent-death signal.
    n = 4
    j = Job("killed")
    j.start(j.argv(["-n", n], "sleep", "term"))
    if not wait_ready(j, n):
        j.proc.kill()
        j.finish()
        return
    t = time.monotonic()
    j.proc.kill()
    j.proc.wait()
    while marker_procs(j.marker) and time.monotonic() - t < HANG_S:
        time.sleep(0.005)
    lat = time.monotonic() - t
    figure("oshrun SIGKILLed -> PEs gone", lat)
    bounded(lat, KILL_BOUND, "PEs outlived a killed oshrun by %.3f s" % lat)
    j.finish()


def case_timeout():
    j = Job("timeout")
    j.run(j.argv(["-n", 3, "--timeout", "1"], "sleep", "term"), timeout=HANG_S + 30)
    dt = j.t_end - j.t0
    figure("--timeout 1 with SIGTERM-ignoring PEs -> every process gone", dt)
    j.expect(124, [r"^oshrun: the job did not finish within --timeout 1 s; terminating the 3 PEs$"],
             what="timeout")
    check(dt >= 1.0, "--timeout 1 ended after %.3f s, before its time" % dt)
    bounded(dt, 1.0 + KILL_BOUND + 0.5, "--timeout 1 ended after %.3f s" % dt)
    j = Job("timeout")
    j.run(j.argv(["-n", 2, "--timeout", "30"], "ok"))
    j.expect(0, what="a job within its timeout")


def case_tag_output():
    n, k = 4, 300
    j = Job("tag")
    j.run(j.argv(["-n", n, "--tag-output"], "lines", k))
    j.expect(0, what="tag-output")
    for stream, text, kind in (("stdout", j.out, "out"), ("stderr", j.err, "err")):
        got = {r: [] for r in range(n)}
        tails = set()
        for line in text.split("\n")[:-1]:
            m = re.match(r"^\[pe (\d+)\] pe (\d+) (out|err) (\d+) ([a-z]*)$", line)
            t = re.match(r"^\[pe (\d+)\] pe (\d+) tail-without-newline$", line)
            if t and t.group(1) == t.group(2) and stream == "stdout":
                tails.add(int(t.group(1)))
                continue
            if not check(m is not None, "%s: malformed or mixed line: %r" % (stream, line[:200])):
                return
            r, r2, kd, i, payload = int(m.group(1)), int(m.group(2)), m.group(3), \
                int(m.group(4)), m.group(5)
            check(r == r2 and kd == kind, "%s: line tagged for PE %d is PE %d's %s line"
                  % (stream, r, r2, kd))
            plen = (i * 37 + r) % 5000
            check(payload == chr(ord("a") + i % 26) * plen,
                  "%s: PE %d line %d: payload damaged" % (stream, r, i))
            got[r].append(i)
        for r in range(n):
            check(got[r] == list(range(k)), "%s: PE %d's lines missing or out of order"
                  % (stream, r))
        if stream == "stdout":
            check(tails == set(range(n)), "final lines without newline lost: %s" % tails)
        check(text.endswith("\n"), "%s does not end with a newline" % stream)


def case_whole_lines():
    # Without --tag-output, lines still leave oshrun whole: 4 PEs printf
    # thousands of 90-character lines to stdout and stderr at once, through
    # 4 KiB stdio buffers, so most of their write()s end mid-line.
    n, k = 4, 4000
    j = Job("lines")
    j.run(j.argv(["-n", n], "stdio", k), timeout=110)
    j.expect(0, what="stdio lines")
    check_whole_lines(j, n, k)


def busy_loops(count):
    """count busy-looping processes: a loaded machine (stopped by the caller,
    or by themselves after 5 minutes)."""
    code = "import time\nend = time.monotonic() + 300\nwhile time.monotonic() < end: pass\n"
    return [subprocess.Popen([sys.executable, "-c", code]) for _ in range(count)]


def case_whole_lines_load():
    # The same on a loaded machine (LOAD busy loops, by default 4 per CPU):
    # a PE is then kept off the CPUs for a few hundred milliseconds now and
    # then, between the write() that ends mid-line and the one that
    # completes the line, while its stream goes quiet; oshrun must not
    # forward the piece that waits before the rest (iofwd.c).  Before: 20
    # of 20 runs of 4 PEs x 20,000 lines spliced lines beside 8 busy loops
    # on 2 CPUs.
    # Up to 3 runs, fewer once a minute has gone (a machine already busy
    # makes each run slow).
    n, k, runs = 4, 20000, 3
    load = busy_loops(LOAD if LOAD is not None else min(64, 4 * (os.cpu_count() or 1)))
    try:
        spliced, done, t0 = 0, 0, time.monotonic()
        while done < runs and (done == 0 or time.monotonic() - t0 < 60):
            j = Job("lines-load")
            j.run(j.argv(["-n", n], "stdio", k), timeout=240)
            j.expect(0, what="stdio lines under load")
            done += 1
            spliced += check_whole_lines(j, n, k, "run %d under load: " % done) > 0
        print("under load (%d busy loops): %d of %d runs spliced lines" % (len(load), spliced, done))
    finally:
        for p in load:
            p.kill()
        for p in load:
            p.wait()


def check_whole_lines(j, n, k, what=""):
    """Every line of launcher_pe's stdio mode is whole, in order; returns
    how many are not."""
    nbad = 0
    for stream, text, kind in (("stdout", j.out, "out"), ("stderr", j.err, "err")):
        got = {r: [] for r in range(n)}
        bad = []
        for line in text.split("\n")[:-1]:
            m = re.match(r"^pe (\d+) (out|err) (\d+) ([a-z]+)$", line)
            if not m or len(line) != 89 or m.group(2) != kind:
                bad.append(line)
                continue
            r, i = int(m.group(1)), int(m.group(3))
            if m.group(4) != chr(ord("a") + i % 26) * len(m.group(4)) or r >= n:
                bad.append(line)
                continue
            got[r].append(i)
        nbad += len(bad)
        check(not bad, "%s%s: %d of %d lines spliced or damaged, e.g. %r"
              % (what, stream, len(bad), n * k, bad[:3]))
        for r in range(n):
            check(got[r] == list(range(k)), "%s%s: PE %d's lines missing or out of order"
                  % (what, stream, r))
        check(text.endswith("\n"), "%s%s does not end with a newline" % (what, stream))
    return nbad


def case_prompt():
    # A prompt without newline is forwarded while the PE waits for its
    # answer (a partial line waits only briefly), and untagged output keeps
    # its bytes: nothing is added or removed.
    j = Job("prompt")
    p = j.start(j.argv(["-n", 1], "prompt"), stdin=subprocess.PIPE)
    fd = p.stdout.fileno()
    buf = b""
    end = time.monotonic() + 30
    while b"prompt> " not in buf and time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            buf += chunk
    t_prompt = time.monotonic()
    check(buf == b"pe 0 prompt> ", "the prompt did not appear while the PE waited: %r" % buf)
    check(p.poll() is None, "oshrun ended before the PE got its answer")
    try:
        p.stdin.write(b"yes\n")
        p.stdin.close()
    except BrokenPipeError:
        pass  # already reported: oshrun is gone
    p.stdin = None
    j.finish()
    j.out = buf.decode() + j.out
    j.expect(0, what="prompt")
    check(j.out == "pe 0 prompt> pe 0 got yes\n", "prompt: stdout %r" % j.out)
    figure("prompt wait (start -> prompt seen)", t_prompt - j.t0)


def case_tty():
    # When oshrun writes to a terminal, so do the PEs (a pseudo-terminal
    # oshrun reads): stdio stays line-buffered, isatty() stays true.
    import pty
    mo, so = pty.openpty()
    me, se = pty.openpty()
    j = Job("tty")
    j.t0 = time.monotonic()
    j.proc = subprocess.Popen(j.argv(["-n", 2], "tty"), cwd=j.cwd, stdin=subprocess.DEVNULL,
                              stdout=so, stderr=se)
    os.close(so)
    os.close(se)
    outs = {mo: b"", me: b""}
    live = set(outs)
    end = time.monotonic() + 60
    while live and time.monotonic() < end:
        r, _, _ = select.select(list(live), [], [], 0.5)
        for fd in r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # EIO: every writer has closed the terminal
                chunk = b""
            if chunk:
                outs[fd] += chunk
            else:
                live.discard(fd)
    if live:
        fail("tty: output did not end within 60 s")
        j.proc.kill()
    j.rc = j.proc.wait()
    j.t_end = time.monotonic()
    os.close(mo)
    os.close(me)
    j.out = outs[mo].decode(errors="replace").replace("\r\n", "\n")
    j.err = outs[me].decode(errors="replace").replace("\r\n", "\n")
    j.after()
    j.expect(0, out_res=[r"^pe 0 tty out=1 err=1$", r"^pe 1 tty out=1 err=1$"], what="tty")


def case_epipe():
    # oshrun's stdout closes early (oshrun ... | head -1): the rest of the
    # output is dropped, the job goes on and ends normally, stderr intact.
    n, k = 2, 3000
    j = Job("epipe")
    p = j.start(j.argv(["-n", n], "stdio", k))
    first = p.stdout.readline()
    p.stdout.close()
    p.stdout = None
    check(re.match(rb"^pe \d out 0 a+\n$", first) is not None, "epipe: first line %r" % first)
    j.finish(timeout=110)
    j.expect(0, what="stdout closed early")
    lines = j.err.split("\n")[:-1]
    check(len(lines) == n * k and all(re.match(r"^pe \d err \d+ [a-z]+$", x) for x in lines),
          "epipe: stderr damaged (%d lines, expected %d)" % (len(lines), n * k))


def case_stdin():
    n = 3
    j = Job("stdin")
    data = b"line one\nline two\n" * 1000
    j.run(j.argv(["-n", n], "stdin"), input_bytes=data)
    j.expect(0, what="stdin")
    check("pe 0 stdin %d" % len(data) in j.out, "PE 0 did not get stdin:\n" + j.out)
    for r in range(1, n):
        check("pe %d stdin 0" % r in j.out, "PE %d read something from stdin:\n%s" % (r, j.out))


def case_env():
    n = 3
    os.environ["SHOAL_LT_INHERITED"] = "inherited-value"
    jobids = []
    for rep in range(2):
        j = Job("env")
        j.run(j.argv(["-n", n, "-x", "SHOAL_LT_X=x value", "-x", "SHOAL_LT_INHERITED",
                      "-x", "SHOAL_LT_UNSET_VAR"], "env", "SHOAL_LT_X", "SHOAL_LT_INHERITED",
                     "SHOAL_JOBID", "SHOAL_RANK", "SHOAL_SIZE", "SHOAL_BOOT_FD"))
        j.expect(0, what="env")
        ids = set()
        for r in range(n):
            check("pe %d SHOAL_LT_X=x value" % r in j.out, "-x VAR=value not set:\n" + j.out)
            check("pe %d SHOAL_LT_INHERITED=inherited-value" % r in j.out,
                  "environment not inherited:\n" + j.out)
            check("pe %d SHOAL_RANK=%d" % (r, r) in j.out, "SHOAL_RANK wrong:\n" + j.out)
            check("pe %d SHOAL_SIZE=%d" % (r, n) in j.out, "SHOAL_SIZE wrong:\n" + j.out)
            check(re.search(r"^pe %d SHOAL_BOOT_FD=\d+$" % r, j.out, re.M) is not None,
                  "SHOAL_BOOT_FD missing:\n" + j.out)
            m = re.search(r"^pe %d SHOAL_JOBID=(\S+)$" % r, j.out, re.M)
            if check(m is not None, "SHOAL_JOBID missing:\n" + j.out):
                ids.add(m.group(1))
        check(len(ids) == 1, "PEs of one job see different job ids: %s" % ids)
        jobids += list(ids)
    check(len(set(jobids)) == 2, "two jobs got the same job id: %s" % jobids)


def case_mpmd():
    """The colon form: blocks of PEs numbered in order, each with its
    arguments; the first block's -x for every PE, a later block's for its
    own; the bootstrap spans every block."""
    os.environ.pop("SHOAL_LT_B", None)
    j = Job("mpmd")
    pe = [PE, j.marker]
    j.run([OSHRUN, "-x", "SHOAL_LT_A=a", "-n", "2"] + pe + ["env", "SHOAL_LT_A", "SHOAL_LT_B",
                                                           "SHOAL_SIZE"]
          + [":", "-n", "3", "-x", "SHOAL_LT_B=b"] + pe + ["env", "SHOAL_LT_B", "SHOAL_LT_A"]
          + [":"] + pe + ["env", "SHOAL_LT_B", "SHOAL_RANK"])
    j.expect(0, what="oshrun -n 2 A : -n 3 -x B=b A : A")
    want = ["pe 0 SHOAL_LT_A=a", "pe 1 SHOAL_LT_B=(unset)", "pe 1 SHOAL_SIZE=6",
            "pe 2 SHOAL_LT_B=b", "pe 4 SHOAL_LT_A=a", "pe 5 SHOAL_LT_B=(unset)",
            "pe 5 SHOAL_RANK=5"]
    for w in want:
        check(re.search("^%s$" % re.escape(w), j.out, re.M) is not None,
              "mpmd: no line %r:\n%s" % (w, j.out))
    # Each PE ran its own block's arguments, and no other's.
    for r, names in ((0, 3), (1, 3), (2, 2), (3, 2), (4, 2), (5, 2)):
        got = len(re.findall(r"^pe %d " % r, j.out, re.M))
        check(got == names, "mpmd: PE %d printed %d variables, its block asks for %d:\n%s"
              % (r, got, names, j.out))
    # One job across the blocks: every PE in the bootstrap's allgather.
    j = Job("mpmd")
    j.run([OSHRUN, "-n", "1", PE, j.marker, "ok", ":", "-n", "2", PE, j.marker, "ok"])
    j.expect(0, what="oshrun -n 1 ok : -n 2 ok")
    for r in range(3):
        check("pe %d of 3 ok" % r in j.out, "mpmd: PE %d of 3 did not report:\n%s" % (r, j.out))
    # The form: two PEs, not one PE given ": -n 1 ..." as arguments.
    j = Job("mpmd")
    j.run([OSHRUN, "-n", "1", "sh", "-c", 'echo "rank $SHOAL_RANK of $SHOAL_SIZE: $*"', "a",
           j.marker, ":", "-n", "1", "sh", "-c", 'echo "rank $SHOAL_RANK of $SHOAL_SIZE: $*"',
           "b", j.marker])
    j.expect(0, out_res=[r"^rank 0 of 2: %s$" % j.marker, r"^rank 1 of 2: %s$" % j.marker],
             what="oshrun -n 1 sh : -n 1 sh")


# --- placement (--bind-to, --cpus-per-pe, --report-bindings) ---
# Expectations come from this machine: the test's own affinity mask (which
# oshrun inherits) and the kernel's topology in /sys.

def cpulist(s):
    """"0-3,8" -> {0, 1, 2, 3, 8}"""
    cpus = set()
    for part in s.strip().split(","):
        if part:
            a, _, b = part.partition("-")
            cpus.update(range(int(a), int(b or a) + 1))
    return cpus


def oshrun_has_hwloc():
    p = subprocess.run([OSHRUN, "--help"], stdout=subprocess.PIPE, universal_newlines=True)
    return "built without hwloc" not in p.stdout


def core_groups(mask):
    """The CPUs of mask grouped by core (hardware-thread siblings)."""
    groups = []
    for c in sorted(mask):
        sib = {c}
        for name in ("core_cpus_list", "thread_siblings_list"):
            try:
                with open("/sys/devices/system/cpu/cpu%d/topology/%s" % (c, name)) as f:
                    sib = cpulist(f.read()) & mask
                break
            except OSError:
                continue
        sib.add(c)
        if sib not in groups:
            groups.append(sib)
    return groups


def numa_groups(mask):
    """The CPUs of mask per NUMA node (nodes with CPUs in mask, in order)."""
    nodes = []
    try:
        names = os.listdir("/sys/devices/system/node")
    except OSError:
        names = []
    for d in sorted((n for n in names if re.match(r"node\d+$", n)), key=lambda n: int(n[4:])):
        with open("/sys/devices/system/node/%s/cpulist" % d) as f:
            cpus = cpulist(f.read()) & mask
        if cpus and not any(cpus <= g for g in nodes):
            nodes.append(cpus)
    return nodes or [set(mask)]


def run_affinity(case, opts, n, prefix=(), what=""):
    """Runs n launcher_pe in mode affinity; returns (job, {rank: (pid, cpus)})."""
    j = Job(case)
    j.run(list(prefix) + j.argv(["-n", n] + list(opts), "affinity"))
    j.expect(0, what=what)
    pes = {}
    for m in re.finditer(r"^pe (\d+) pid (\d+) allowed (\S+)$", j.out, re.M):
        pes[int(m.group(1))] = (int(m.group(2)), cpulist(m.group(3)))
    check(sorted(pes) == list(range(n)), "%s: not every PE reported its CPUs:\n%s"
          % (what, j.out))
    return j, pes


def check_shares(what, pes, n, mask, hwloc, per_pe=None):
    """Every PE is bound to a disjoint, non-empty share of mask, as large as
    the placement rules make it (per_pe: --cpus-per-pe)."""
    shares = [pes[r][1] for r in sorted(pes)]
    seen = set()
    for r, s in enumerate(shares):
        check(s, "%s: PE %d has no CPU" % (what, r))
        check(s <= mask, "%s: PE %d's CPUs %s are not all in oshrun's mask %s"
              % (what, r, sorted(s), sorted(mask)))
        check(not (s & seen), "%s: PE %d's CPUs %s overlap another PE's: %s"
              % (what, r, sorted(s), shares))
        seen |= s
    cores = core_groups(mask) if hwloc else [{c} for c in sorted(mask)]
    P, C = len(mask), len(cores)
    for r, s in enumerate(shares):
        if per_pe:
            check(len(s) == per_pe, "%s: PE %d has %d CPUs, expected %d (--cpus-per-pe): %s"
                  % (what, r, len(s), per_pe, sorted(s)))
            if hwloc and n <= C and per_pe == 1:
                check(sum(1 for g in cores if g & s) == 1, "%s: PE %d: %s" % (what, r, s))
        elif n <= C:
            # whole cores, C // n of them
            mine = [g for g in cores if g & s]
            check(all(g <= s for g in mine) and len(mine) == C // n,
                  "%s: PE %d's CPUs %s are not %d whole core(s) of %s"
                  % (what, r, sorted(s), C // n, [sorted(g) for g in cores]))
        else:
            check(len(s) == P // n, "%s: PE %d has %d CPUs, expected %d (%d CPUs / %d PEs)"
                  % (what, r, len(s), P // n, P, n))
    if per_pe and n <= C and hwloc and per_pe == 1:
        used = [next(i for i, g in enumerate(cores) if g & s) for s in shares]
        check(len(set(used)) == n, "%s: one CPU each, but not on distinct cores first: %s"
              % (what, shares))
    if not hwloc and not per_pe:
        k, order = P // n, sorted(mask)
        for r, s in enumerate(shares):
            check(s == set(order[r * k:(r + 1) * k]),
                  "%s (no hwloc): PE %d's CPUs %s are not the %d-th contiguous run of %d"
                  % (what, r, sorted(s), r, k))


def check_unbound(what, pes, mask):
    for r in sorted(pes):
        check(pes[r][1] == mask, "%s: PE %d runs on CPUs %s, expected oshrun's whole mask %s"
              % (what, r, sorted(pes[r][1]), sorted(mask)))


def case_bind():
    mask = set(os.sched_getaffinity(0))
    P = len(mask)
    hwloc = oshrun_has_hwloc()
    print("oshrun's mask: %s (%d CPUs, %d cores, %d NUMA nodes), hwloc: %s"
          % (sorted(mask), P, len(core_groups(mask)), len(numa_groups(mask)), hwloc), flush=True)
    # The default binds each PE to its own share; oshrun says nothing.
    for n in sorted({1, 2, 3, min(P, 16)}):
        if n > P:
            continue
        what = "-n %d (default binding)" % n
        j, pes = run_affinity("bind", [], n, what=what)
        check_shares(what, pes, n, mask, hwloc)
        check(j.err == "", "%s: oshrun printed something: %s" % (what, j.err))
    what = "--bind-to core -n %d" % min(P, 2)
    j, pes = run_affinity("bind", ["--bind-to", "core"], min(P, 2), what=what)
    check_shares(what, pes, min(P, 2), mask, hwloc)
    # --cpus-per-pe 1: one CPU each, distinct cores first.
    n = min(P, 3)
    what = "--cpus-per-pe 1 -n %d" % n
    j, pes = run_affinity("bind", ["--cpus-per-pe", "1"], n, what=what)
    check_shares(what, pes, n, mask, hwloc, per_pe=1)
    if P >= 2:
        what = "--cpus-per-pe=%d -n 1" % (P - 1)
        j, pes = run_affinity("bind", ["--cpus-per-pe=%d" % (P - 1)], 1, what=what)
        check_shares(what, pes, 1, mask, hwloc, per_pe=P - 1)
    # Oversubscribed: more PEs than CPUs, or a share too large.  No binding,
    # and not a word from oshrun.
    over = [(["--cpus-per-pe", P + 1], 1), (["--cpus-per-pe", P], 2)]
    if P <= 64:
        over += [([], P + 1), (["--bind-to", "core"], P + 1)]
    for opts, n in over:
        what = "oversubscribed: %s -n %d" % (" ".join(map(str, opts)), n)
        j, pes = run_affinity("bind", opts, n, what=what)
        check_unbound(what, pes, mask)
        check(j.err == "", "%s: oshrun printed something: %s" % (what, j.err))
    # --bind-to none: every PE keeps oshrun's mask.
    for opts in (["--bind-to=none"], ["--bind-to", "none"]):
        what = " ".join(opts) + " -n 2"
        j, pes = run_affinity("bind", opts, 2, what=what)
        check_unbound(what, pes, mask)
    # Bad values: exit 2, the option named.
    for args, pat in [
            (["--cpus-per-pe", "0"], r"--cpus-per-pe '0'"),
            (["--cpus-per-pe=-1"], r"--cpus-per-pe '-1'"),
            (["--cpus-per-pe", "two"], r"--cpus-per-pe 'two'"),
            (["--cpus-per-pe", "99999999"], r"--cpus-per-pe '99999999'"),
            (["--cpus-per-pe"], r"'--cpus-per-pe' needs a value"),
            (["--bind-to", "foo"], r"--bind-to 'foo'"),
            (["--bind-to", ""], r"--bind-to ''"),
            (["--bind-to", "none", "--cpus-per-pe", "1"], r"--cpus-per-pe 1: only with "
             r"--bind-to core"),
            (["--cpus-per-pe", "1", "--bind-to", "numa"], r"--cpus-per-pe 1: only with "
             r"--bind-to core"),
            (["--report-bindings=yes"], r"'--report-bindings' takes no value")]:
        j = Job("bind")
        j.run([OSHRUN] + args + ["true"] if args[-1] != "--cpus-per-pe" else [OSHRUN] + args)
        j.expect(2, [r"^oshrun: .*" + pat], what="oshrun %s" % " ".join(args))


def case_bind_numa():
    mask = set(os.sched_getaffinity(0))
    hwloc = oshrun_has_hwloc()
    nodes = numa_groups(mask) if hwloc else [mask]
    n = len(nodes) + 1  # round robin: the first node twice
    what = "--bind-to numa -n %d" % n
    j, pes = run_affinity("bind_numa", ["--bind-to", "numa"], n, what=what)
    for r in sorted(pes):
        want = nodes[r % len(nodes)]
        check(pes[r][1] == want, "%s: PE %d runs on CPUs %s, expected NUMA node %d's %s"
              % (what, r, sorted(pes[r][1]), r % len(nodes), sorted(want)))
    check(j.err == "", "%s: oshrun printed something: %s" % (what, j.err))


def case_bind_taskset():
    """oshrun divides its own mask, not the machine."""
    mine = sorted(os.sched_getaffinity(0))
    if len(mine) < 2 or not shutil.which("taskset"):
        print("skipped: needs 2 CPUs and taskset", flush=True)
        return
    hwloc = oshrun_has_hwloc()
    for sub in ([mine[0]], [mine[-1]], mine[:(len(mine) + 1) // 2]):
        sub_mask = set(sub)
        ts = ["taskset", "-c", ",".join(map(str, sub))]
        for n in sorted({1, len(sub)}):
            what = "taskset -c %s oshrun -n %d" % (ts[2], n)
            j, pes = run_affinity("bind_taskset", ["--report-bindings"], n, ts, what=what)
            check_shares(what, pes, n, sub_mask, hwloc)
            for m in re.finditer(r"^oshrun: PE (\d+) .* CPUs? (\S+):", j.err, re.M):
                check(cpulist(m.group(2)) <= sub_mask, "%s: report outside the mask:\n%s"
                      % (what, j.err))
        what = "taskset -c %s oshrun -n %d (oversubscribed)" % (ts[2], len(sub) + 1)
        j, pes = run_affinity("bind_taskset", [], len(sub) + 1, ts, what=what)
        check_unbound(what, pes, sub_mask)


def case_report_bindings():
    mask = set(os.sched_getaffinity(0))
    P = len(mask)
    hwloc = oshrun_has_hwloc()
    line = re.compile(r"^oshrun: PE (\d+) \(pid (\d+)\) (.*)$", re.M)

    def lines(j, n, what):
        got = {int(m.group(1)): (int(m.group(2)), m.group(3)) for m in line.finditer(j.err)}
        check(len(line.findall(j.err)) == n and sorted(got) == list(range(n)),
              "%s: expected one line per PE on stderr:\n%s" % (what, j.err))
        return got

    n = min(P, 2)
    what = "--report-bindings -n %d" % n
    j, pes = run_affinity("report", ["--report-bindings"], n, what=what)
    for r, (pid, text) in lines(j, n, what).items():
        check(r in pes and pes[r][0] == pid, "%s: PE %d's pid is not %d:\n%s%s"
              % (what, r, pid, j.out, j.err))
        m = re.match(r"bound to CPUs? (\S+?):? ", text + " ")
        if check(m is not None, "%s: no CPU list in %r" % (what, text)) and r in pes:
            check(cpulist(m.group(1)) == pes[r][1], "%s: PE %d reported %s but runs on %s"
                  % (what, r, m.group(1), sorted(pes[r][1])))
        if hwloc:
            check(re.search(r": (part of )?cores? \d", text) and
                  re.search(r"NUMA nodes? \d", text), "%s: no cores / NUMA node in %r"
                  % (what, text))
        else:
            check("without hwloc" in text, "%s: the fallback is not mentioned: %r"
                  % (what, text))
    for opts, n, why in [(["--bind-to", "none"], 2, r"--bind-to none"),
                         (["--cpus-per-pe", P + 1], 1, r"oversubscribed")]:
        what = "--report-bindings %s -n %d" % (" ".join(map(str, opts)), n)
        j, pes = run_affinity("report", ["--report-bindings"] + opts, n, what=what)
        for r, (pid, text) in lines(j, n, what).items():
            check(re.match(r"not bound \(%s.*\): keeps oshrun's affinity mask, CPUs? (\S+?):? "
                           % why, text + " ") is not None, "%s: %r" % (what, text))
            check(r in pes and pes[r][0] == pid, "%s: wrong pid" % what)
        check_unbound(what, pes, mask)


def case_bind_whatif():
    """HWLOC_SYNTHETIC: the placement on a made-up machine with 2 NUMA nodes of
    2 cores of 2 hardware threads, reported, PEs unbound."""
    if not oshrun_has_hwloc():
        print("skipped: oshrun built without hwloc", flush=True)
        return
    mask = set(os.sched_getaffinity(0))
    would = re.compile(r"^oshrun: PE (\d+) \(pid \d+\) not bound \(HWLOC_SYNTHETIC[^)]*\); "
                       r"would be bound to CPUs? (\S+): (.*)$", re.M)
    expect = [
        ([], 2, ["0-3: cores 0-1, NUMA node 0", "4-7: cores 2-3, NUMA node 1"]),
        ([], 3, ["0-1: core 0, NUMA node 0", "2-3: core 1, NUMA node 0",
                 "4-5: core 2, NUMA node 1"]),
        ([], 4, ["0-1: core 0, NUMA node 0", "2-3: core 1, NUMA node 0",
                 "4-5: core 2, NUMA node 1", "6-7: core 3, NUMA node 1"]),
        # more PEs than cores: hardware threads, distinct cores first
        ([], 8, ["%d: part of core %d, NUMA node %d" % (c, c // 2, c // 4)
                 for c in (0, 2, 4, 6, 1, 3, 5, 7)]),
        (["--cpus-per-pe", "3"], 2, ["0-2: core 0 and part of core 1, NUMA node 0",
                                     "4-6: core 2 and part of core 3, NUMA node 1"]),
        (["--cpus-per-pe", "1"], 2, ["0: part of core 0, NUMA node 0",
                                     "2: part of core 1, NUMA node 0"]),
        (["--bind-to", "numa"], 3, ["0-3: cores 0-1, NUMA node 0", "4-7: cores 2-3, NUMA node 1",
                                    "0-3: cores 0-1, NUMA node 0"]),
    ]
    old = os.environ.get("HWLOC_SYNTHETIC")
    os.environ["HWLOC_SYNTHETIC"] = "package:1 numa:2 core:2 pu:2"
    try:
        for opts, n, lines in expect:
            what = "HWLOC_SYNTHETIC, %s -n %d" % (" ".join(opts), n)
            j, pes = run_affinity("whatif", ["--report-bindings"] + opts, n, what=what)
            got = {int(m.group(1)): "%s: %s" % (m.group(2), m.group(3))
                   for m in would.finditer(j.err)}
            check(got == dict(enumerate(lines)), "%s: expected\n  %s\ngot\n%s"
                  % (what, "\n  ".join(lines), j.err))
            check_unbound(what, pes, mask)
        what = "HWLOC_SYNTHETIC, -n 9 (oversubscribed)"
        j, pes = run_affinity("whatif", ["--report-bindings"], 9, what=what)
        check(len(re.findall(r"^oshrun: PE \d+ \(pid \d+\) not bound \(oversubscribed: 9 PEs > "
                             r"8 CPUs\)", j.err, re.M)) == 9, "%s:\n%s" % (what, j.err))
    finally:
        if old is None:
            del os.environ["HWLOC_SYNTHETIC"]
        else:
            os.environ["HWLOC_SYNTHETIC"] = old


def case_bad_options():
    bad = [
        (["-n", "0", "true"], r"-n '0'"),
        (["-n", "abc", "true"], r"-n 'abc'"),
        (["-np", "-3", "true"], r"-np '-3'"),
        (["-n", "99999999", "true"], r"-n '99999999'"),
        (["-n"], r"'-n' needs a value"),
        (["--bogus", "true"], r"unknown option '--bogus'"),
        (["--bind-to", "socket", "true"], r"--bind-to 'socket'"),
        (["--bind-to"], r"'--bind-to' needs a value"),
        (["--timeout", "-1", "true"], r"--timeout '-1'"),
        (["--timeout", "soon", "true"], r"--timeout 'soon'"),
        (["-x", "1BAD=x", "true"], r"-x '1BAD=x'"),
        (["-x", "=x", "true"], r"-x '=x'"),
        (["--tag-output=yes", "true"], r"'--tag-output' takes no value"),
        ([], r"no program given"),
        (["-n", "2"], r"no program given"),
        (["-n", "1", "true", ":"], r"no program given after the last ':'"),
        (["-n", "1", "true", ":", "-n", "2"], r"no program given after ':' \(program 2\)"),
        ([":", "true"], r"no program given"),
        (["true", ":", "--tag-output", "true"],
         r"'--tag-output' after ':' \(program 2\): a later program takes -n and -x only"),
        (["true", ":", "-n", "0", "true"], r"-n '0'"),
        (["-n", "40000", "true", ":", "-n", "30000", "true"], r"70000 PEs in all: at most 65536"),
    ]
    for args, pat in bad:
        j = Job("badopt")
        j.run([OSHRUN] + args)
        j.expect(2, [r"^oshrun: .*" + pat], what="oshrun %s" % " ".join(args))
    j = Job("badopt")
    j.run([OSHRUN, "--help"])
    j.expect(0, out_res=[r"^usage: oshrun", r"--tag-output", r"--bind-to", r"--timeout"],
             what="--help")
    j = Job("badopt")
    j.run([OSHRUN, "--version"])
    j.expect(0, out_res=[r"^oshrun \(Shoal\) \d+\.\d+"], what="--version")
    # Open MPI options that are accepted and ignored; "--" ends the options.
    j = Job("badopt")
    j.run([OSHRUN, "--oversubscribe", "--allow-run-as-root", "-np", "2", "--", PE, j.marker,
           "ok"])
    j.expect(0, what="ignored options")


def case_missing_program():
    j = Job("missing")
    j.run([OSHRUN, "-n", "2", "/nonexistent/shoal-no-such-program", j.marker])
    j.expect(127, [r"^oshrun: cannot execute '/nonexistent/shoal-no-such-program': "
                   r"No such file or directory$"], what="missing path")
    j = Job("missing")
    j.run([OSHRUN, "-n", "2", "shoal-no-such-command-xyz", j.marker])
    j.expect(127, [r"^oshrun: cannot execute 'shoal-no-such-command-xyz': command not found"],
             what="missing command")
    d = tempfile.mkdtemp(prefix="shoal-lt-noexec-")
    try:
        p = os.path.join(d, "not-executable")
        with open(p, "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(p, 0o644)
        j = Job("missing")
        j.run([OSHRUN, "-n", "2", p, j.marker])
        j.expect(127, [r"^oshrun: cannot execute '.*not-executable': Permission denied$"],
                 what="not executable")
        j = Job("missing")
        j.run([OSHRUN, "-n", "2", d, j.marker])
        j.expect(127, [r"^oshrun: cannot execute '.*': Is a directory$"], what="a directory")
        # Executable, but not a format the kernel runs: exec fails in the child.
        p2 = os.path.join(d, "garbage")
        with open(p2, "wb") as f:
            f.write(b"\x7fELF garbage")
        os.chmod(p2, 0o755)
        j = Job("missing")
        j.run([OSHRUN, "-n", "3", p2, j.marker])
        j.expect(127, [r"^oshrun: cannot execute '.*garbage' \(PE 0\): Exec format error$"],
                 what="exec fails")
    finally:
        shutil.rmtree(d, ignore_errors=True)


def case_boot_env():
    """Malformed bootstrap variables are refused with a message naming them."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("SHOAL_")}
    good = dict(base, SHOAL_BOOT_FD="0", SHOAL_RANK="0", SHOAL_SIZE="1", SHOAL_JOBID="1-2")
    cases = [
        (dict(good, SHOAL_BOOT_FD="abc"), r"SHOAL_BOOT_FD='abc' is not"),
        (dict(good, SHOAL_BOOT_FD=""), r"SHOAL_BOOT_FD='' is not"),
        (dict(good, SHOAL_BOOT_FD="-1"), r"SHOAL_BOOT_FD='-1' is not"),
        (dict(good, SHOAL_BOOT_FD="999"), r"SHOAL_BOOT_FD=999: no such open file descriptor"),
        (dict(good, SHOAL_BOOT_FD="0"), r"SHOAL_BOOT_FD=0 is not the SOCK_SEQPACKET socket"),
        (dict(good, SHOAL_SIZE="0"), r"SHOAL_SIZE=0 is out of range"),
        (dict(good, SHOAL_SIZE="4x"), r"SHOAL_SIZE='4x' is not"),
        (dict(good, SHOAL_RANK="1"), r"SHOAL_RANK=1 is out of range for SHOAL_SIZE=1"),
        (dict(good, SHOAL_RANK="99999999999"), r"SHOAL_RANK='99999999999' is not"),
        ({k: v for k, v in good.items() if k != "SHOAL_RANK"}, r"SHOAL_RANK is not set"),
        (dict(good, SHOAL_JOBID="a b"), r"SHOAL_JOBID='a b' is malformed"),
        ({k: v for k, v in good.items() if k != "SHOAL_JOBID"}, r"SHOAL_JOBID is not set"),
    ]
    for env, pat in cases:
        j = Job("bootenv")
        p = subprocess.run([PE, j.marker, "open"], env=env, cwd=j.cwd, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=30)
        err = p.stderr.decode(errors="replace")
        check(p.returncode == 3, "env %s: exit %d, expected 3: %s"
              % ({k: v for k, v in env.items() if k.startswith("SHOAL_")}, p.returncode, err))
        check(re.search(pat, err) is not None, "expected %r in: %s" % (pat, err))
        j.after()
    # A wrapper that execs the PE program keeps the connection.
    j = Job("bootenv")
    j.run([OSHRUN, "-n", "2", "sh", "-c", 'exec "$0" "$@" 9<&-', PE, j.marker, "ok"])
    j.expect(0, what="PE via sh -c exec (the connection survives a wrapper's exec)")
    # Without SHOAL_BOOT_FD the program is a singleton job.
    j = Job("bootenv")
    p = subprocess.run([PE, j.marker, "ok"], env=base, cwd=j.cwd, capture_output=True, timeout=30)
    check(p.returncode == 0 and b"pe 0 of 1 ok" in p.stdout,
          "singleton run failed: %r %r" % (p.stdout, p.stderr))
    j.after()


def case_orphans():
    n = 3
    j = Job("orphan")
    j.run(j.argv(["-n", n], "orphan"))
    j.expect(0, what="PEs leaving children behind")
    check(len(re.findall(r"^pe \d forked \d+$", j.out, re.M)) == n, "PEs did not fork:\n" + j.out)
    figure("job with %d orphaned grandchildren (start -> all gone)" % n, j.t_end - j.t0)


def case_many_pes():
    # Hundreds of PEs on a couple of cores: start, allgathers (1 KiB each,
    # 256 KiB results), barriers, clean end.
    for n, size, rounds in ((64, 4096, 5), (256, 1024, 3)):
        j = Job("many")
        j.run(j.argv(["-n", n], "gather", size, rounds), timeout=110)
        j.expect(0, out_res=[r"^gather ok %d PEs %d bytes %d rounds$" % (n, size, rounds)],
                 what="-n %d gather" % n)
        figure("-n %d, %d allgathers of %d bytes per PE" % (n, rounds, size), j.t_end - j.t0)
    # A failure among hundreds still takes everything down quickly.
    n = 200
    j = Job("many")
    j.run(j.argv(["-n", n], "exit", 150, 3), timeout=110)
    j.expect(3, [r"^oshrun: PE 150 \(pid \d+\) exited with status 3 before shmem_finalize; "
                 r"terminating the other 199 PEs$"], what="-n 200, one fails")
    m = re.search(r"t_exit=([0-9.]+)", j.err)
    if m:
        lat = j.t_end - float(m.group(1))
        figure("-n 200 kill latency (PE exit -> every process gone)", lat)
        bounded(lat, KILL_BOUND, "-n 200: the others were gone only %.3f s after the failure"
                % lat)


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    global OSHRUN, PE, LOAD
    ap = argparse.ArgumentParser()
    ap.add_argument("--oshrun")
    ap.add_argument("--pe")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--load", type=int, metavar="N",
                    help="busy-looping processes beside the *_load cases' jobs "
                         "(default: 4 per CPU, at most 64)")
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    if a.list:
        print("\n".join(sorted(CASES)))
        return 0
    if not a.oshrun or not a.pe:
        ap.error("--oshrun and --pe are required")
    OSHRUN, PE = os.path.abspath(a.oshrun), os.path.abspath(a.pe)
    LOAD = a.load
    todo = a.cases or sorted(CASES)
    for c in todo:
        if c not in CASES:
            print("unknown case %r; cases: %s" % (c, " ".join(sorted(CASES))))
            return 2
    for c in todo:
        print("== %s" % c, flush=True)
        t = time.monotonic()
        n0 = len(FAILURES)
        CASES[c]()
        print("== %s: %s (%.2f s)" % (c, "ok" if len(FAILURES) == n0 else "FAILED",
                                      time.monotonic() - t), flush=True)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
