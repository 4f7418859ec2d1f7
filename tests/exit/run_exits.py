#!/usr/bin/env python3
"""Runs tests/exit/exit_paths.c's modes under one launcher, each several
times in a row, so that an exit path that hangs now and then fails the test.

  run_exits.py --launch 'oshrun -n @N@' --np 3 --exe exit_paths [--runs 10]
               [--global-exit-status 0] MODE [MODE ...]

Every run has its own time limit (--run-timeout, 120 s: it catches hangs,
and a loaded machine may take many times a run's usual second); a run that
exceeds it is killed (its whole process group) and reported as a hang.  Expected outcomes:
  clean modes (hello put ctx amo no_finalize exit0): status 0
  global_exit, global_exit_late: --global-exit-status (0: the status given)
  global_exit_busy: status 5, and no PE but PE 0 says a word: the errors
      its peers meet as it goes (connections closing) are not failures
  fork_put, nested: status 0 (the program checks the forked child's and
      the inner program's errors itself)
  early_exit, early_finalize, mismatch(_debug): a non-zero status and a message that
      names PE 1 (or the mismatch) -- an error, promptly, never a hang
  hang (oshrun only, run with --timeout): status 124 and every PE's report
      of where it waits
  hang_mt (the same): the report names the thread of the PE each waits for
  hang_init, hang_finalize (oshrun only, run with --timeout): status 124
      and the report of every PE but PE 1 names its bootstrap call
  hang_sleep (oshrun only, with --timeout and perhaps --dump-on-hang and
      --quit-at): status 124 after the timeout, a report at every request,
      and nothing the reports changed: no sleep or pause cut short, no PE
      that went on into shmem_finalize
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import time

CLEAN = {"hello", "put", "ctx", "amo", "no_finalize", "exit0", "fork_put", "nested"}

# mode -> (what stderr must contain, as regular expressions)
ERROR_TEXT = {
    "early_exit": [r"PE 1 exited without calling shmem_finalize"],
    "early_finalize": [r"PE 1 entered shmem_finalize"],
    "mismatch": [r"collectives do not match on SHMEM_TEAM_WORLD: this PE \(PE \d+\) is in "
                 r"shmem_(barrier_all|int_sum_reduce) .*PE \d+ is in shmem_(barrier_all|int_sum_reduce)"],
    "mismatch_debug": [r"SHMEM_DEBUG: collectives do not match on SHMEM_TEAM_WORLD: this PE "
                       r"\(PE \d+\) is in shmem_(barrier_all|int_sum_reduce) \(collective #1, "
                       r"sizes \d+, 0\), PE \d+ is in shmem_(barrier_all|int_sum_reduce) "],
}
# modes run with extra environment
MODE_ENV = {"mismatch_debug": {"SHMEM_DEBUG": "1"}}


# Open MPI 4's mpirun now and then fails to start when another mpirun of
# the same user starts at the same moment (its session directory in /tmp
# already exists): a launcher failure before any PE ran, retried.
LAUNCHER_FLAKE = re.compile(r"orte_session_dir failed|orte_init failed")


def run_once(argv, env, limit, quit_at=None):
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                         start_new_session=True)
    try:
        if quit_at is not None:
            try:  # SIGQUIT to the launcher: "where does every PE wait?"
                out, err = p.communicate(timeout=quit_at)
                return p.returncode, out.decode(errors="replace"), \
                    err.decode(errors="replace"), time.monotonic() - t0
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGQUIT)
        out, err = p.communicate(timeout=limit)
        return p.returncode, out.decode(errors="replace"), err.decode(errors="replace"), \
            time.monotonic() - t0
    except subprocess.TimeoutExpired:
        # A hang: record every process's native stacks (a PE stuck outside
        # Shoal, e.g. in a library's exit path, reports nothing itself), ask
        # every PE where it waits (Shoal's SIGQUIT report) and keep what
        # they print, then end the job.
        stacks = native_stacks(p.pid)
        try:
            os.killpg(p.pid, signal.SIGQUIT)
            time.sleep(1.0)
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        return None, out.decode(errors="replace"), \
            err.decode(errors="replace") + stacks, time.monotonic() - t0


def native_stacks(pgid):
    """Every thread's backtrace of each process in the group, where gdb is
    installed (one line per frame, shortened)."""
    gdb = shutil.which("gdb")
    if not gdb:
        return "\n(no gdb here: no native stacks)\n"
    try:
        ps = subprocess.run(["ps", "-e", "-o", "pid=,pgid=,stat=,args="], capture_output=True,
                            text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    text = ""
    for line in ps.splitlines():
        f = line.split(None, 3)
        if len(f) < 4 or int(f[1]) != pgid:
            continue
        text += "\n== pid %s (%s): %s\n" % (f[0], f[2], f[3][:120])
        try:
            bt = subprocess.run([gdb, "-p", f[0], "-batch", "-ex", "thread apply all bt"],
                                capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError) as e:
            text += "  gdb failed: %s\n" % e
            continue
        text += "".join("  %s\n" % l[:160] for l in bt.splitlines()
                        if l.startswith("#") or l.startswith("Thread"))
    return text


def check_hang_report(err, np):
    """Every PE says where it waits: PE 0 in the wait, the others in the barrier."""
    problems = []
    if not re.search(r"shoal: PE 0 \(pid \d+\): thread \d+ blocked for [\d.]+ s in "
                     r"shmem_long_wait_until", err):
        problems.append("PE 0 did not report its wait in shmem_long_wait_until")
    for pe in range(1, np):
        pat = (r"shoal: PE %d \(pid \d+\): thread \d+ blocked for [\d.]+ s in shmem_barrier_all "
               r"\(collective #1 on SHMEM_TEAM_WORLD\), waiting for PE \d+: " % pe)
        if not re.search(pat, err):
            problems.append("PE %d did not report its wait in shmem_barrier_all" % pe)
    return problems


def check_net_report(err, np):
    """PE 0 is blocked in a get through the network from PE 1, which is
    stopped; the others wait in the barrier."""
    problems = []
    if not re.search(r"shoal: PE 0 \(pid \d+\): thread \d+ blocked for [\d.]+ s in "
                     r"shmem_long_g, waiting for PE 1: .*get", err):
        problems.append("PE 0 did not report its get from PE 1 through the network")
    return problems


def check_mt_report(err, np):
    """Each PE's only thread in the multi-threaded broadcast waits for the
    thread of its PE that never calls."""
    problems = []
    for pe in range(np):
        pat = (r"shoal: PE %d \(pid \d+\): thread \d+ blocked for [\d.]+ s in "
               r"shmemx_team_broadcastmem_mt, waiting for thread %d of this PE" % (pe, 1 - pe % 2))
        if not re.search(pat, err):
            problems.append("PE %d did not report that it waits for thread %d of the PE"
                            % (pe, 1 - pe % 2))
    return problems


def check_boot_report(err, np, routine, calls):
    """hang_init, hang_finalize: PE 1 waits in pause(), every other PE in a
    bootstrap call of `routine`, which the report names as one (not as a
    request through the network)."""
    problems = []
    if "request through the network" in err:
        problems.append("a bootstrap wait is reported as a request through the network")
    for pe in range(np):
        if pe == 1:
            continue
        pat = (r"shoal: PE %d \(pid \d+\): thread \d+ blocked for [\d.]+ s in %s, waiting for "
               r"every PE to get this far in %s \(the bootstrap (%s), through oshrun's socket\)"
               % (pe, routine, routine, calls))
        if not re.search(pat, err):
            problems.append("PE %d did not report its wait in %s's bootstrap call" % (pe, routine))
    return problems


# What a report must not change: a PE's sleep or pause cut short, or a PE
# that then went on and left the others waiting.
NOT_STARTED = re.compile(r"no report: it has not called shmem_init yet\s*$", re.M)
DISTURBED = r"cut short|pause\(\) returned|entered shmem_finalize|exited without calling"


def check_quiet_report(err, np, dt, timeout, reports):
    """hang_sleep: every request got a report, and none changed the program."""
    problems = []
    m = re.search(DISTURBED, err)
    if m:
        problems.append("a report changed what the program does: %r" % m.group(0))
    if dt < timeout:
        problems.append("the job ended after %.2f s, before its --timeout %g s" % (dt, timeout))
    # One line per PE and request (each PE has one thread).  On a loaded
    # machine a PE may still be starting at the first requests (oshrun then
    # says that it has not called shmem_init yet, or the PE that it is not
    # blocked), but by the timeout, the last report, every PE must be where
    # the program put it.
    where = {0: r"shoal: PE 0 \(pid \d+\): no thread is blocked in Shoal",
             1: r"shoal: PE 1 \(pid \d+\): thread \d+ blocked for [\d.]+ s in "
                r"shmem_barrier_all \(collective #1 on SHMEM_TEAM_WORLD\), waiting for PE 0: "}
    if np > 2:
        where[2] = r"shoal: PE 2 \(pid \d+\): no thread is blocked in Shoal"
    for pe, pat in sorted(where.items()):
        lines = re.findall(r"^(?:shoal|oshrun): PE %d \(pid \d+\): .*$" % pe, err, re.M)
        if len(lines) != reports:
            problems.append("PE %d: %d report line(s), expected %d" % (pe, len(lines), reports))
        elif not re.match(pat, lines[-1]):
            problems.append("PE %d's last report is not where it waits: %r" % (pe, lines[-1]))
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--launch", required=True, help="launcher command; @N@ = PE count")
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--exe", required=True)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--run-timeout", type=float, default=120.0)
    ap.add_argument("--global-exit-status", type=int, default=0)
    ap.add_argument("--quit-at", type=float, metavar="SECONDS",
                    help="send SIGQUIT to the launcher this long after the start")
    ap.add_argument("modes", nargs="+")
    a = ap.parse_args()

    launch = [w.replace("@N@", str(a.np)) for w in a.launch.split()]
    env = dict(os.environ)
    failures = 0
    for mode in a.modes:
        times = []
        for r in range(a.runs):
            argv = launch + [a.exe, mode]
            menv = dict(env, **MODE_ENV.get(mode, {}))
            rc, out, err, dt = run_once(argv, menv, a.run_timeout, a.quit_at)
            for retry in range(2):
                if rc is None or rc == 0 or not LAUNCHER_FLAKE.search(err):
                    break
                print("note: %s run %d: the launcher failed to start (%s); retrying" %
                      (mode, r + 1, LAUNCHER_FLAKE.search(err).group(0)))
                rc, out, err, dt = run_once(argv, menv, a.run_timeout, a.quit_at)
            for retry in range(3):
                # A machine so loaded that a PE had not reached shmem_init
                # by the --timeout says nothing about the reports: again.
                last = err[err.rfind("did not finish within --timeout"):]
                if mode != "hang_sleep" or not NOT_STARTED.search(last):
                    break
                print("note: %s run %d: a PE had not called shmem_init by the timeout "
                      "(loaded machine); retrying" % (mode, r + 1))
                rc, out, err, dt = run_once(argv, menv, a.run_timeout, a.quit_at)
            times.append(dt)
            problems = []
            if rc is None:
                problems.append("hung: killed after %.0f s" % a.run_timeout)
            elif mode in CLEAN:
                if rc != 0:
                    problems.append("status %d, expected 0" % rc)
            elif mode in ("global_exit", "global_exit_late"):
                if rc != a.global_exit_status:
                    problems.append("status %d, expected %d" % (rc, a.global_exit_status))
            elif mode == "global_exit_busy":
                if rc != 5:
                    problems.append("status %d, expected 5" % rc)
                said = re.findall(r"^.*shoal: PE [1-9]\d*:.*$", err, re.M)
                if said:
                    problems.append("a PE other than PE 0 reported: " + said[0])
            elif mode in ERROR_TEXT:
                if rc == 0:
                    problems.append("status 0, expected an error")
                for pat in ERROR_TEXT[mode]:
                    if not re.search(pat, err):
                        problems.append("stderr lacks /%s/" % pat)
            elif mode == "hang":
                if rc != 124:
                    problems.append("status %d, expected 124 (--timeout)" % rc)
                problems += check_hang_report(err, a.np)
            elif mode == "hang_net":
                if rc != 124:
                    problems.append("status %d, expected 124 (--timeout)" % rc)
                problems += check_net_report(err, a.np)
            elif mode == "hang_mt":
                if rc != 124:
                    problems.append("status %d, expected 124 (--timeout)" % rc)
                problems += check_mt_report(err, a.np)
            elif mode in ("hang_init", "hang_finalize"):
                if rc != 124:
                    problems.append("status %d, expected 124 (--timeout)" % rc)
                routine, calls = (("shmem_init", "allgather|barrier") if mode == "hang_init"
                                  else ("shmem_finalize", "barrier"))
                problems += check_boot_report(err, a.np, routine, calls)
            elif mode == "hang_sleep":
                if rc != 124:
                    problems.append("status %d, expected 124 (--timeout)" % rc)
                timeout = float(launch[launch.index("--timeout") + 1])
                reports = 1 + ("--dump-on-hang" in launch) + (a.quit_at is not None)
                problems += check_quiet_report(err, a.np, dt, timeout, reports)
            else:
                problems.append("unknown mode")
            if problems:
                failures += 1
                print("FAIL %s run %d/%d (%.2f s): %s" % (mode, r + 1, a.runs, dt,
                                                          "; ".join(problems)))
                print("  command: %s" % " ".join(argv))
                print("  stderr:\n    " + "\n    ".join(err.splitlines()[-400:]))
                break
        print("%-15s np %d: %d run(s), slowest %.3f s, median %.3f s" %
              (mode, a.np, len(times), max(times), sorted(times)[len(times) // 2]))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
