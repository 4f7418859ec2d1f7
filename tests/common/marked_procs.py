"""Processes a test starts and must not leave behind, even when it is killed
(a ctest timeout sends SIGKILL): each carries a marker variable in its
environment, children die with their starter (pdeathsig), and a watchdog in
its own session cleans up after a starter that died before it could.

Used by tests/cluster/cluster.py and tests/slurm/test_slurm.py."""
import ctypes
import os
import signal
import subprocess
import sys
import time


def pdeathsig():
    """preexec_fn: the child gets SIGTERM when whoever started it dies (even
    by SIGKILL)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)
    except Exception:
        pass


def clean_up_on_signals():
    """SIGTERM and SIGINT end the script through SystemExit, so that its
    `finally` blocks take down what it started."""

    def on_term(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)


def proc_env(pid):
    """The environment of process pid as a dict, or None when unreadable."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            items = f.read().split(b"\0")
    except OSError:
        return None
    env = {}
    for it in items:
        k, sep, v = it.partition(b"=")
        if sep:
            env[k.decode(errors="replace")] = v.decode(errors="replace")
    return env


def alive(pid):
    """Running or stopped, not a zombie and not gone."""
    try:
        with open(f"/proc/{pid}/stat") as s:
            return s.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def marked(var, mark):
    """{pid: environment} of the live processes (this one aside) whose
    environment has var=mark."""
    found = {}
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        env = proc_env(d)
        if env and env.get(var) == mark and alive(d):
            found[int(d)] = env
    return found


def kill_marked(var, mark, seconds=10):
    """SIGKILL (and SIGCONT: a stopped process dies too) every marked process
    until none is left or the time is up.  Returns (killed, left), sorted."""
    killed, end = set(), time.monotonic() + seconds
    while True:
        left = sorted(marked(var, mark))
        if not left or time.monotonic() > end:
            return sorted(killed), left
        for pid in left:
            for sig in (signal.SIGKILL, signal.SIGCONT):
                try:
                    os.kill(pid, sig)
                    killed.add(pid)
                except OSError:
                    pass
        time.sleep(0.1)


class Watchdog:
    """The starter's end of a watchdog: its stdin, and its pid."""

    def __init__(self, stdin, pid):
        self.stdin, self.pid = stdin, pid


def start_watchdog(argv, var):
    """Starts `python argv...` without var in its environment (it must
    survive its own cleanup), in its own session and as an orphan: ctest,
    at a timeout, kills the test's descendants (found by parent pid), and
    the watchdog must outlive them.  The starter writes "done" to its stdin
    and closes it once it has cleaned up (release_watchdog); the watchdog
    (watchdog_released) sees whether it did."""
    env = {k: v for k, v in os.environ.items() if k != var}
    r, w = os.pipe()
    report_r, report_w = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.setsid()
            pid = os.fork()
            if pid == 0:
                os.dup2(r, 0)
                for fd in (r, w, report_r, report_w):
                    os.close(fd)
                os.execve(sys.executable, [sys.executable] + list(argv), env)
            os.write(report_w, str(pid).encode())
        finally:
            os._exit(0)
    os.close(r)
    os.close(report_w)
    os.waitpid(child, 0)
    with os.fdopen(report_r) as f:
        pid = int(f.read() or 0)
    return Watchdog(os.fdopen(w, "w"), pid)


def watchdog_released(var):
    """In the watchdog: waits until its starter closes stdin.  True when the
    starter said "done" first (it cleaned up), False when it died."""
    os.environ.pop(var, None)
    return sys.stdin.read().strip() == "done"


def release_watchdog(dog):
    """In the starter, once everything is cleaned up."""
    try:
        dog.stdin.write("done\n")
        dog.stdin.close()
    except OSError:
        pass
    end = time.monotonic() + 10
    while dog.pid and alive(dog.pid) and time.monotonic() < end:
        time.sleep(0.05)
