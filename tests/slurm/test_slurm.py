#!/usr/bin/env python3
"""slurm.srun_pmix: Shoal under `srun --mpi=pmix` on a real one-node Slurm.

Starts a private Slurm on this machine in a temporary directory: munged
with its own key and socket, slurmctld and slurmd (CPUs = this machine's
CPU count) listening on free ports of 127.0.0.1, from a minimal slurm.conf.
Then, through srun --mpi=pmix:
  - shmem-info --job on 2 PEs says "Bootstrap: pmix" and "Job: 2 PEs";
  - spec programs (setup, rma, barrier) pass on 2 and 3 PEs;
  - a PE that fails (spec_errors die_exit, die_in_wait: exit while the
    others are blocked) under --kill-on-bad-exit=1 ends the job promptly
    with a non-zero status, and no PE survives (promptly on an idle machine:
    a loaded one only gets a note; srun's timeout catches a hang).
Every process it started (daemons, job steps, PEs) is stopped at the end,
also on failure: each carries a marker in its environment, and whatever
still has it is killed.  If this script is killed itself (SIGKILL, e.g. by
a ctest timeout), a watchdog process it started first does the same and
removes the temporary directory.

Exit 77 (skipped) when Slurm or munge is not installed, srun has no pmix
plugin, Shoal was built without PMIx, or not root (slurmd runs jobs as
their user).  Debian 12: apt-get install slurmctld slurmd slurm-client munge
(slurm-wlm-basic-plugins, pulled in, has mpi_pmix_v4.so)."""
import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import marked_procs as MP  # noqa: E402
import slurm_setup as SL  # noqa: E402

SKIP = 77
MARK_VAR = "SHOAL_SLURM_TEST_MARK"
A = None
failures = []


def log(msg):
    print(msg, flush=True)


def fail(msg):
    log("FAIL: " + msg)
    failures.append(msg)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def watchdog(mark, tmpdir):
    """The watchdog process: when the test died without cleaning up, kill
    its processes and remove its directory."""
    if MP.watchdog_released(MARK_VAR):
        return 0
    killed, left = MP.kill_marked(MARK_VAR, mark, 15)
    shutil.rmtree(tmpdir, ignore_errors=True)
    print(f"test_slurm watchdog: the test died; killed {len(killed)} process(es) of its "
          f"cluster" + (f", {len(left)} survive" if left else ""), file=sys.stderr)
    return 0


def start_watchdog(mark, tmpdir):
    return MP.start_watchdog([os.path.abspath(__file__), "--watchdog", mark, tmpdir], MARK_VAR)


class Cluster:
    def __init__(self, mark):
        self.mark = mark
        self.dir = tempfile.mkdtemp(prefix="shoal-slurm-")
        os.chmod(self.dir, 0o755)        # munged: the socket's path must be searchable
        for d, mode in (("munge", 0o700), ("run", 0o755), ("state", 0o700),
                        ("spool", 0o755), ("log", 0o755), ("tmp", 0o755)):
            os.mkdir(os.path.join(self.dir, d), mode)
        self.conf = os.path.join(self.dir, "slurm.conf")
        self.procs = []       # (name, Popen)
        self.host = socket.gethostname().split(".")[0]
        self.cpus = os.cpu_count() or 1
        self.env = dict(os.environ)
        for k in list(self.env):
            # A PMIx, Slurm or oshrun environment of whoever runs the tests
            # must not leak in.
            if k.startswith(("PMIX_", "SLURM_", "SHOAL_BOOT")) or k in (
                    "SHOAL_RANK", "SHOAL_SIZE", "SHOAL_JOBID"):
                del self.env[k]
        self.env["SLURM_CONF"] = self.conf
        self.env[MARK_VAR] = mark

    def path(self, *p):
        return os.path.join(self.dir, *p)

    def write_conf(self):
        sock = self.path("run", "munge.sock")
        conf = f"""# A one-node Slurm for Shoal's test (tests/slurm/test_slurm.py).
ClusterName=shoaltest
SlurmctldHost={self.host}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
{SL.auth(sock)}StateSaveLocation={self.path("state")}
SlurmdSpoolDir={self.path("spool")}
# Where the pmix plugin makes its per-step directories (spmix_appdir_<uid>_
# <job>.<step>): job ids restart at 1 in every test cluster, so under /tmp
# a directory left by an earlier run would make that step fail.
TmpFS={self.path("tmp")}
SlurmctldPidFile={self.path("run", "slurmctld.pid")}
SlurmdPidFile={self.path("run", "slurmd.pid")}
SlurmctldLogFile={self.path("log", "slurmctld.log")}
SlurmdLogFile={self.path("log", "slurmd.log")}
{SL.POLICY}NodeName={self.host} NodeAddr=127.0.0.1 CPUs={self.cpus} State=UNKNOWN
{SL.PARTITION}"""
        with open(self.conf, "w") as f:
            f.write(conf)

    def start(self, name, cmd):
        out = open(self.path("log", name + ".out"), "w")
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, env=self.env, preexec_fn=MP.pdeathsig)
        self.procs.append((name, p))
        log(f"started {name} (pid {p.pid}): {' '.join(cmd)}")

    def up(self):
        self.start("munged", SL.munged_argv(self.path("munge", "munge.key"),
                                            self.path("run", "munge.sock"),
                                            self.path("run", "munged.pid"),
                                            self.path("log", "munged.log"),
                                            self.path("munge", "munged.seed")))
        end = time.monotonic() + 10
        while not os.path.exists(self.path("run", "munge.sock")):
            if time.monotonic() > end or self.procs[0][1].poll() is not None:
                return "munged did not start"
            time.sleep(0.05)
        self.start("slurmctld", ["slurmctld", "-D", "-c", "-f", self.conf])
        self.start("slurmd", ["slurmd", "-D", "-f", self.conf, "-N", self.host])
        end = time.monotonic() + 30
        state = ""
        while time.monotonic() < end:
            for name, p in self.procs:
                if p.poll() is not None:
                    return f"{name} exited with status {p.returncode}"
            r = subprocess.run(["sinfo", "-h", "-o", "%t"], env=self.env, capture_output=True,
                               text=True, timeout=20)
            state = r.stdout.strip()
            if state == "idle":
                return ""
            time.sleep(0.2)
        return f"the node is not idle after 30 s (sinfo: '{state}')"

    def srun(self, n, args, extra=(), timeout=110):  # a hang catcher (--time=2 ends it too)
        # --overcommit: more tasks than the node's CPUs (3 PEs on 2 cores).
        cmd = ["srun", "--mpi=pmix", "-n", str(n), "--overcommit", "--time=2", *extra, *args]
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, env=self.env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL,
                             preexec_fn=MP.pdeathsig)
        try:
            out, _ = p.communicate(timeout=timeout)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            p.kill()
            out, _ = p.communicate()
            rc = "timeout"
        dt = time.monotonic() - t0
        log(f"$ {' '.join(cmd)} -> {rc} ({dt:.1f} s)")
        return rc, out, dt

    def down(self):
        try:
            subprocess.run(["scancel", "--user", "root", "--full"], env=self.env,
                           capture_output=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            pass
        for name, p in reversed(self.procs):     # slurmd, slurmctld, munged
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    log(f"{name} ignored SIGTERM for 10 s: SIGKILL")
                    p.kill()
                    p.wait()
        left, still = MP.kill_marked(MARK_VAR, self.mark, 5)
        if left:
            log(f"killed {len(left)} leftover process(es) of the test cluster: {left}")
        if still:
            fail(f"processes of the test cluster survive: {still}")

    def show_logs(self):
        for f in sorted(os.listdir(self.path("log"))):
            try:
                lines = open(self.path("log", f), errors="replace").read().splitlines()
            except OSError:
                continue
            log(f"--- {f} (last lines)")
            for ln in lines[-15:]:
                log("    " + ln)

    def remove(self):
        if failures and A.work:
            keep = os.path.join(A.work, "logs")
            shutil.rmtree(keep, ignore_errors=True)
            shutil.copytree(self.path("log"), keep, dirs_exist_ok=True)
            shutil.copy(self.conf, keep)
            log(f"logs kept in {keep}")
        shutil.rmtree(self.dir, ignore_errors=True)


def skip_reason():
    if A.have_pmix.upper() not in ("TRUE", "ON", "1"):
        return "Shoal was built without PMIx (Debian: libpmix-dev)"
    missing = [t for t in ("munged", "slurmctld", "slurmd", "srun", "sinfo", "scancel")
               if shutil.which(t) is None]
    if missing:
        return (f"not installed: {', '.join(missing)} (Debian: slurmctld slurmd slurm-client "
                "munge)")
    if os.geteuid() != 0:
        return "not root: slurmd must run as root to start jobs"
    return ""


def check_pmix_plugin(c):
    r = subprocess.run(["srun", "--mpi=list"], env=c.env, capture_output=True, text=True,
                       timeout=20)
    text = r.stdout + r.stderr
    log("$ srun --mpi=list\n" + text.rstrip())
    return re.search(r"^\s*pmix\b", text, re.M) is not None


def run_cases(c):
    # shmem-info under srun: the PMIx bootstrap, 2 PEs on this node.
    rc, out, _ = c.srun(2, [A.shmem_info, "--job"])
    if rc != 0 or not re.search(r"^Bootstrap: pmix", out, re.M) or \
            not re.search(r"^Job: 2 PEs", out, re.M):
        fail("shmem-info --job under srun --mpi=pmix -n 2: want 'Bootstrap: pmix' and "
             "'Job: 2 PEs':\n" + out)
    for n in (2, 3):
        for name, args in (("setup", [A.setup, "init", str(n)]), ("rma", [A.rma]),
                           ("barrier", [A.barrier])):
            rc, out, _ = c.srun(n, args)
            if rc != 0 or f"ok: {name} ({n} PEs)" not in out:
                fail(f"spec {name} on {n} PEs: status {rc}, want 'ok: {name} ({n} PEs)':\n{out}")
    # A PE that fails while the others are blocked: the job must end promptly
    # with a non-zero status and no survivor.
    for mode in ("die_exit", "die_in_wait"):
        rc, out, dt = c.srun(3, [A.errors, mode], extra=["--kill-on-bad-exit=1"])
        if rc == 0 or rc == "timeout":
            fail(f"spec_errors {mode}: the job did not fail (status {rc}):\n{out}")
        elif dt > 15:  # a hang is caught by srun's timeout; slowness is no failure
            log(f"note: spec_errors {mode}: the job took {dt:.1f} s to end, more than the "
                "15 s of an idle machine (not a failure: only a hang is)")
        if "survived" in out or "passed a barrier" in out:
            fail(f"spec_errors {mode}: a PE survived the failure:\n{out}")


def main():
    global A
    if len(sys.argv) == 4 and sys.argv[1] == "--watchdog":
        return watchdog(sys.argv[2], sys.argv[3])
    ap = argparse.ArgumentParser()
    for o in ("shmem-info", "setup", "rma", "barrier", "errors", "have-pmix", "work"):
        ap.add_argument("--" + o, required=True)
    A = ap.parse_args()
    why = skip_reason()
    if why:
        log("SKIP: " + why)
        return SKIP
    os.makedirs(A.work, exist_ok=True)
    t0 = time.monotonic()
    c = Cluster(uuid.uuid4().hex)
    dog = start_watchdog(c.mark, c.dir)

    MP.clean_up_on_signals()
    try:
        c.write_conf()
        if not check_pmix_plugin(c):
            log("SKIP: srun --mpi=list lists no pmix plugin")
            return SKIP
        why = c.up()
        if why:
            fail("the test cluster did not start: " + why)
        else:
            log(f"one-node Slurm up in {time.monotonic() - t0:.1f} s ({c.host}, "
                f"CPUs={c.cpus})")
            run_cases(c)
    finally:
        if failures:
            c.show_logs()
        c.down()
        c.remove()
        MP.release_watchdog(dog)
    took = time.monotonic() - t0
    if failures:
        log(f"{len(failures)} failure(s), {took:.1f} s")
        return 1
    log(f"ok: srun --mpi=pmix on 2 and 3 PEs, failing PEs end their job; {took:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
