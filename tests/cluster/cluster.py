#!/usr/bin/env python3
"""A cluster of Linux network namespaces on this machine, for Shoal's tests
(tests/cluster/test_cluster.py) and for reproducing faults by hand.  Root only.

Usage (by hand):
  cluster.py up [--hosts N] [--slots S] [--name NAME[=HOSTNAME] ...] [--slurm]
      Builds the cluster and prints its directory DIR (keep it: every other
      command takes it).  Hosts are node0..node<N-1> unless --name gives the
      names; NAME=HOSTNAME gives a host a UTS hostname other than its name
      (two "containers" with one hostname: --name n0a=box --name n0b=box).
  cluster.py run DIR [-n NP] [--copy] [--tag-output] [--env VAR=VALUE ...]
                 [--pe-logs] [--timeout S] -- PROGRAM [ARG ...]
      mpirun -np NP (default: every slot) across the hosts, started on the
      first host.  --copy: each host runs its own copy of PROGRAM (copied to
      DIR/<host>/app, seen by every host at DIR/app).  --pe-logs: each PE's
      stdout and stderr go to DIR/logs/pe<rank>.log (written on its own host,
      so they survive a dead link).  SHOAL_*, SHMEM_*, UCX_* and FI_*
      (libfabric's) variables of the caller are passed on to the PEs.
  cluster.py srun DIR -- [SRUN OPTION ...] PROGRAM [ARG ...]
      srun on the first host, with a cluster made by `up --slurm` (munged,
      slurmctld on the first host, `slurmd -N HOST` on each host; one node
      per host, NodeAddr its address, CPUs its slots).  E.g.
      srun DIR -- --mpi=pmix -N 2 -n 4 --bcast=DIR/app/prog /path/to/prog
      (--bcast: Slurm copies the program to each host, at DIR/app).
  cluster.py sh DIR HOST [COMMAND ...]   a command (default: a shell) on HOST
  cluster.py link DIR HOST down|up       HOST's cable out of / into the switch
  cluster.py ps DIR                      the cluster's processes: pid, host, PE
  cluster.py down DIR                    kills every process the cluster
      started, deletes its namespaces and DIR (given the id instead, e.g.
      c1a2b3c4 from the namespaces' names shoal-c1a2b3c4-h0: what is left of
      a cluster whose DIR is gone)
  cluster.py watchdog DIR                (internal) `down DIR` once its stdin
      closes without "done" first

Layout: a switch namespace holding bridge br0; per host a namespace with
`eth0` (a veth whose other end is a port of br0), lo, and an address of a
private /24 (no default route).  Commands reach a host through DIR/agent
(mpirun's rsh agent): `agent HOST COMMAND...` enters the host's network
namespace and its share of the CPUs, then new UTS, IPC and mount namespaces
with the host's hostname, its own /etc/hosts (every host's name and
address), /dev/shm, and DIR/<host>/app and DIR/<host>/tmp mounted at DIR/app
and DIR/tmp (TMPDIR).  Every process started through the
cluster carries SHOAL_CLUSTER_MARK=<id> in its environment: `down` kills
whatever still has it, whichever host it runs on.
"""
import argparse
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import marked_procs as MP  # noqa: E402
import slurm_setup as SL  # noqa: E402

MARK_VAR = "SHOAL_CLUSTER_MARK"
# Caller variables that reach the PEs (mpirun -x) when set.
FORWARD_PREFIXES = ("SHOAL_", "SHMEM_", "SMA_", "UCX_", "FI_")
# Variables of whoever runs the cluster that must not reach it: a PMIx,
# Slurm or oshrun environment of the caller would confuse the PEs.
SCRUB_PREFIXES = ("PMIX_", "SLURM_", "OMPI_", "SHOAL_BOOT")
SCRUB_VARS = ("SHOAL_RANK", "SHOAL_SIZE", "SHOAL_JOBID", "TMPDIR")

AGENT = r"""#!/bin/sh
# rsh agent of Shoal's test cluster {id} (tests/cluster/cluster.py):
# `agent HOST COMMAND...` runs COMMAND on HOST.
host=$1
shift
case $host in
{cases}
*) echo "cluster agent: no host '$host' in cluster {id}" >&2; exit 255 ;;
esac
exec ip netns exec "$ns" taskset -c "$cpus" unshare --uts --ipc --mount --propagation private sh -c '
d=$1 top=$2 uts=$3
shift 3
mount --bind "$d/hosts" /etc/hosts &&
mount --bind "$d/app" "$top/app" &&
mount --bind "$d/tmp" "$top/tmp" &&
mount -t tmpfs -o mode=1777 cluster-shm /dev/shm &&
{cgroups}hostname "$uts" || {{ echo "cluster agent: cannot set up host $uts" >&2; exit 255; }}
export TMPDIR="$top/tmp"
exec sh -c "$*"' sh "$d" {top} "$uts" "$@"
"""


def log(msg):
    print(msg, flush=True)


def sh(*cmd, check=True):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {(r.stderr or r.stdout).strip()}")
    return r


def marked(mark):
    """{pid: environment} of the live processes carrying the mark."""
    return MP.marked(MARK_VAR, mark)


def kill_marked(mark, seconds=10):
    return MP.kill_marked(MARK_VAR, mark, seconds)


def used_prefixes():
    """The 10.a.b. prefixes of every address in this namespace and in every
    named network namespace."""
    texts = [sh("ip", "-o", "addr", check=False).stdout]
    for ns in sh("ip", "netns", "list", check=False).stdout.split("\n"):
        if ns.strip():
            texts.append(sh("ip", "-n", ns.split()[0], "-o", "addr", check=False).stdout)
    return set(re.findall(r"inet (10\.\d+\.\d+)\.", "\n".join(texts)))


def cpus_of(i, n_hosts):
    """Host i's share of this machine's CPUs, as a taskset list.  Hosts of a
    real cluster do not share CPUs: PEs that believed their host's CPUs were
    all theirs would spin where they should sleep (spec_rma at 2 hosts x 2
    PEs on 2 cores: 50 s spinning, 2 s with a CPU per host)."""
    cpus = sorted(os.sched_getaffinity(0))
    if n_hosts >= len(cpus):
        return str(cpus[i % len(cpus)])
    k = len(cpus) // n_hosts
    return ",".join(str(c) for c in cpus[i * k:(i + 1) * k])


def cgroup_mounts():
    """Shell lines that mount this machine's cgroup file systems again:
    `ip netns exec` mounts a sysfs of the namespace on /sys, without them
    (slurmd does not start without them)."""
    lines = []
    with open("/proc/self/mounts") as f:
        for ln in f:
            src, where, kind, opts = ln.split()[:4]
            if (where == "/sys/fs/cgroup" or where.startswith("/sys/fs/cgroup/")) and \
                    kind in ("tmpfs", "cgroup", "cgroup2"):
                lines.append(f"mkdir -p {where} && mount -t {kind} -o {opts} {src} {where} &&\n")
    return "".join(lines)



def to_the_end(p, timeout, t0):
    """Waits for launcher process p: (status or "timeout", output, seconds
    since t0); past the timeout it is killed."""
    try:
        out, _ = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
        rc = "timeout"
    return rc, out, time.monotonic() - t0

class Cluster:
    """One cluster; its state lives in DIR/state.json so that any process
    (the CLI, a watchdog) can take it down."""

    def __init__(self, dir):
        self.dir = dir
        with open(os.path.join(dir, "state.json")) as f:
            self.state = json.load(f)
        self.mark = self.state["id"]
        self.hosts = self.state["hosts"]          # [{name, uts, ns, addr, port, slots}]
        self.switch = self.state["switch"]

    # --- building -------------------------------------------------------------
    @classmethod
    def create(cls, names=None, slots=2, base=None):
        """names: [(host name, UTS hostname)]; slots: per host, or one count
        for all.  Returns the cluster, up."""
        names = names or [("node0", "node0"), ("node1", "node1")]
        slots = slots if isinstance(slots, list) else [slots] * len(names)
        ident = "c" + uuid.uuid4().hex[:7]
        dir = tempfile.mkdtemp(prefix=f"shoal-cluster-{ident}-", dir=base)
        os.chmod(dir, 0o755)
        used = used_prefixes()
        for _ in range(100):
            prefix = f"10.{random.randint(100, 254)}.{random.randint(0, 255)}"
            if prefix not in used:
                break
        hosts = [{"name": n, "uts": u, "ns": f"shoal-{ident}-h{i}", "addr": f"{prefix}.{i + 1}",
                  "port": f"p{i}", "slots": slots[i], "cpus": cpus_of(i, len(names))}
                 for i, (n, u) in enumerate(names)]
        state = {"id": ident, "subnet": f"{prefix}.0/24", "switch": f"shoal-{ident}-sw",
                 "hosts": hosts, "created_by": os.getpid()}
        # Written before anything exists, so that `down` finds what to remove.
        with open(os.path.join(dir, "state.json"), "w") as f:
            json.dump(state, f, indent=1)
        c = cls(dir)
        try:
            c._build()
        except BaseException:
            c.down(quiet=True)
            raise
        return c

    def path(self, *p):
        return os.path.join(self.dir, *p)

    def host(self, name):
        for h in self.hosts:
            if h["name"] == name:
                return h
        raise KeyError(f"no host {name} in cluster {self.mark}")

    def _build(self):
        sw = self.switch
        sh("ip", "netns", "add", sw)
        sh("ip", "-n", sw, "link", "set", "lo", "up")
        sh("ip", "-n", sw, "link", "add", "br0", "type", "bridge")
        sh("ip", "-n", sw, "link", "set", "br0", "up")
        for h in self.hosts:
            sh("ip", "netns", "add", h["ns"])
            sh("ip", "-n", h["ns"], "link", "set", "lo", "up")
            sh("ip", "-n", sw, "link", "add", h["port"], "type", "veth", "peer", "name", "eth0",
               "netns", h["ns"])
            sh("ip", "-n", sw, "link", "set", h["port"], "master", "br0", "up")
            sh("ip", "-n", h["ns"], "addr", "add", h["addr"] + "/24", "dev", "eth0")
            sh("ip", "-n", h["ns"], "link", "set", "eth0", "up")
        for d in ("app", "tmp", "logs"):
            os.mkdir(self.path(d))
        table = "".join(f"{h['addr']}\t{h['name']}\n" for h in self.hosts)
        for h in self.hosts:
            for d in ("app", "tmp"):
                os.makedirs(self.path(h["name"], d))
            os.chmod(self.path(h["name"], "tmp"), 0o1777)
            own = "" if h["uts"] == h["name"] else f"{h['addr']}\t{h['uts']}\n"
            with open(self.path(h["name"], "hosts"), "w") as f:
                f.write(f"127.0.0.1\tlocalhost\n{own}{table}")
        cases = "\n".join(f"{h['name']}) ns={h['ns']} d={shlex.quote(self.path(h['name']))} "
                          f"uts={shlex.quote(h['uts'])} cpus={h['cpus']} ;;" for h in self.hosts)
        with open(self.path("agent"), "w") as f:
            f.write(AGENT.format(id=self.mark, cases=cases, top=shlex.quote(self.dir),
                                 cgroups=cgroup_mounts()))
        os.chmod(self.path("agent"), 0o755)
        with open(self.path("hostfile"), "w") as f:
            f.write("".join(f"{h['name']} slots={h['slots']}\n" for h in self.hosts))

    # --- running ----------------------------------------------------------------
    def env(self, extra=None):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(SCRUB_PREFIXES) and k not in SCRUB_VARS}
        env[MARK_VAR] = self.mark
        env.update(extra or {})
        return env

    def agent(self, host, command):
        """argv running the shell command line `command` on host."""
        return [self.path("agent"), host, command]

    def install(self, program, hosts=None, name=None):
        """Copies program into each host's app directory (a file of its own
        per host); returns the path every host sees it at."""
        name = name or os.path.basename(program)
        for h in hosts or [h["name"] for h in self.hosts]:
            dst = self.path(h, "app", name)
            shutil.copy2(program, dst)
        return self.path("app", name)

    def mpirun_command(self, np, argv, env=None, tag_output=False, pe_logs=False,
                       mpirun_args=()):
        """The shell command line of mpirun -np np argv over the cluster; env
        (a dict) is set for the PEs on top of the forwarded variables."""
        sub = self.state["subnet"]
        cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
               "-np", str(np), "--hostfile", self.path("hostfile"),
               "--mca", "plm_rsh_agent", self.path("agent"), "--mca", "plm_rsh_no_tree_spawn",
               "1", "--mca", "oob_tcp_if_include", sub, "--mca", "btl_tcp_if_include", sub]
        if tag_output:
            cmd.append("--tag-output")
        names = {MARK_VAR, "PATH"}
        if "LD_LIBRARY_PATH" in os.environ:
            names.add("LD_LIBRARY_PATH")
        names |= {k for k in os.environ if k.startswith(FORWARD_PREFIXES)
                  and not k.startswith(SCRUB_PREFIXES) and k not in SCRUB_VARS}
        env = dict(env or {})
        if pe_logs:
            env["SHOAL_CLUSTER_LOGS"] = self.path("logs")
        prefix = "".join(f"{k}={shlex.quote(v)} " for k, v in env.items())
        for k in sorted(names | set(env)):
            cmd += ["-x", k]
        cmd += list(mpirun_args)
        if pe_logs:
            # Each PE writes its own file, on its own host: its lines survive
            # a link that no longer carries them to mpirun.
            cmd += ["sh", "-c", 'exec "$0" "$@" >"$SHOAL_CLUSTER_LOGS/pe$PMIX_RANK.log" 2>&1']
        cmd += list(argv)
        return prefix + " ".join(shlex.quote(a) for a in cmd)

    def launch(self, np, argv, env=None, tag_output=False, pe_logs=False, mpirun_args=(),
               stdout=subprocess.PIPE):
        """Starts mpirun on the first host; returns its Popen (text, stderr in
        stdout)."""
        if pe_logs:
            for f in os.listdir(self.path("logs")):
                os.unlink(self.path("logs", f))
        cmd = self.mpirun_command(np, argv, env, tag_output, pe_logs, mpirun_args)
        self.last_command = cmd
        return subprocess.Popen(self.agent(self.hosts[0]["name"], cmd), env=self.env(),
                                stdout=stdout, stderr=subprocess.STDOUT, text=True,
                                stdin=subprocess.DEVNULL, preexec_fn=MP.pdeathsig)

    def run(self, np, argv, timeout=60, **kw):
        """mpirun to the end: (status or "timeout", output, seconds)."""
        t0 = time.monotonic()
        return to_the_end(self.launch(np, argv, **kw), timeout, t0)

    def pe_logs(self):
        """{rank: text} of the PE log files (run with pe_logs=True)."""
        logs = {}
        for f in os.listdir(self.path("logs")):
            m = re.fullmatch(r"pe(\d+)\.log", f)
            if m:
                with open(self.path("logs", f), errors="replace") as fh:
                    logs[int(m.group(1))] = fh.read()
        return logs

    # --- Slurm ------------------------------------------------------------------------
    def slurm_conf(self):
        return self.path("slurm", "slurm.conf")

    def slurm_env(self):
        return self.env({"SLURM_CONF": self.slurm_conf()})

    def start_daemon(self, name, host, command):
        """A daemon through the agent (host None: on this machine, outside
        the cluster's hosts); its output goes to DIR/slurm/log/NAME.out."""
        out = open(self.path("slurm", "log", name + ".out"), "w")
        argv = self.agent(host, command) if host else shlex.split(command)
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, env=self.slurm_env(),
                             start_new_session=True)
        self.daemons_started = getattr(self, "daemons_started", []) + [(name, p)]
        return p

    def slurm_up(self, seconds=60):
        """munged (on this machine: its socket is a file every host reaches),
        slurmctld on the first host, one `slurmd -N HOST` per host (NodeAddr:
        its address).  Returns "" once every node is idle, else why not."""
        os.makedirs(self.path("slurm", "log"))
        os.makedirs(self.path("slurm", "state"), mode=0o700)
        os.makedirs(self.path("slurm", "munge"), mode=0o700)
        for h in self.hosts:
            os.makedirs(self.path("slurm", "spool", h["name"]))
        sock = self.path("slurm", "munge.sock")
        first = self.hosts[0]
        nodes = "".join(f"NodeName={h['name']} NodeAddr={h['addr']} CPUs={h['slots']} "
                        "State=UNKNOWN\n" for h in self.hosts)
        with open(self.slurm_conf(), "w") as f:
            f.write(f"""# Slurm of Shoal's test cluster {self.mark} (tests/cluster/cluster.py)
ClusterName=shoal{self.mark}
SlurmctldHost={first['name']}({first['addr']})
SlurmctldPort=6817
SlurmdPort=6818
{SL.auth(sock)}StateSaveLocation={self.path("slurm", "state")}
SlurmdSpoolDir={self.path("slurm", "spool", "%n")}
# Each host sees its own DIR/tmp: the pmix plugin's per-step directories
# of one job do not meet.
TmpFS={self.path("tmp")}
SlurmctldPidFile={self.path("slurm", "slurmctld.pid")}
SlurmdPidFile={self.path("slurm", "spool", "%n", "slurmd.pid")}
SlurmctldLogFile={self.path("slurm", "log", "slurmctld.log")}
SlurmdLogFile={self.path("slurm", "log", "slurmd.%n.log")}
{SL.POLICY}{nodes}{SL.PARTITION}""")
        munged = SL.munged_argv(self.path("slurm", "munge", "munge.key"), sock,
                                self.path("slurm", "munged.pid"),
                                self.path("slurm", "log", "munged.log"),
                                self.path("slurm", "munge", "munged.seed"))
        self.start_daemon("munged", None, " ".join(shlex.quote(a) for a in munged))
        end = time.monotonic() + 10
        while not os.path.exists(sock):
            if time.monotonic() > end:
                return "munged did not start"
            time.sleep(0.05)
        conf = shlex.quote(self.slurm_conf())
        self.start_daemon("slurmctld", first["name"], f"exec slurmctld -D -c -f {conf}")
        for h in self.hosts:
            self.start_daemon("slurmd." + h["name"], h["name"],
                              f"exec slurmd -D -f {conf} -N {h['name']}")
        end, state = time.monotonic() + seconds, ""
        while time.monotonic() < end:
            for name, p in self.daemons_started:
                if p.poll() is not None:
                    return f"{name} exited with status {p.returncode}"
            r = subprocess.run(self.agent(first["name"], "sinfo -h -N -o %t"),
                               env=self.slurm_env(), capture_output=True, text=True, timeout=30)
            state = r.stdout.split()
            if state == ["idle"] * len(self.hosts):
                return ""
            time.sleep(0.3)
        return f"the nodes are not idle after {seconds} s (sinfo: {state})"

    def srun_launch(self, args, env=None, stdout=subprocess.PIPE):
        """srun ARGS on the first host (env: set for it and so for the PEs);
        returns its Popen."""
        cmd = "".join(f"{k}={shlex.quote(v)} " for k, v in (env or {}).items())
        cmd += "exec srun " + " ".join(shlex.quote(a) for a in args)
        return subprocess.Popen(self.agent(self.hosts[0]["name"], cmd), env=self.slurm_env(),
                                stdout=stdout, stderr=subprocess.STDOUT, text=True,
                                stdin=subprocess.DEVNULL, preexec_fn=MP.pdeathsig)

    def srun(self, args, env=None, timeout=60):
        """srun ARGS to the end: (status or "timeout", output, seconds)."""
        t0 = time.monotonic()
        return to_the_end(self.srun_launch(args, env), timeout, t0)

    def slurm_logs(self):
        d = self.path("slurm", "log")
        out = {}
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            with open(os.path.join(d, f), errors="replace") as fh:
                out[f] = fh.read()
        return out

    # --- looking and breaking ---------------------------------------------------
    def host_of(self, pid):
        """The host whose network namespace pid lives in (None: not one)."""
        try:
            ino = os.stat(f"/proc/{pid}/ns/net").st_ino
        except OSError:
            return None
        for h in self.hosts:
            try:
                if os.stat(f"/run/netns/{h['ns']}").st_ino == ino:
                    return h["name"]
            except OSError:
                pass
        return None

    def processes(self):
        """[(pid, host, rank or None, command)] of the live marked processes;
        rank is set for PEs (processes that mpirun started as ranks)."""
        out = []
        for pid, env in sorted(marked(self.mark).items()):
            rank = env.get("PMIX_RANK")
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmdline = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                continue
            out.append((pid, self.host_of(pid), int(rank) if rank is not None else None,
                        cmdline))
        return out

    def pes(self, host=None):
        """{rank: pid} of the live PEs (on host only, if given)."""
        return {r: pid for pid, h, r, _ in self.processes()
                if r is not None and (host is None or h == host)}

    def daemons(self, host):
        """pids of Open MPI's daemons (orted) on host."""
        return [pid for pid, h, r, cmd in self.processes()
                if h == host and r is None and os.path.basename(cmd.split()[0]) == "orted"]

    @property
    def shares_cpus(self):
        """Whether hosts share CPUs (more hosts than this machine has)."""
        return len({h["cpus"] for h in self.hosts}) < len(self.hosts)

    def link(self, host, state):
        sh("ip", "-n", self.switch, "link", "set", self.host(host)["port"], state)

    # --- taking down --------------------------------------------------------------
    def down(self, quiet=False):
        """Kills the cluster's processes, deletes its namespaces and
        directory.  Returns what survives (pids, namespaces)."""
        killed, left = kill_marked(self.mark)
        if killed and not quiet:
            log(f"cluster {self.mark}: killed {len(killed)} process(es)")
        names = set(sh("ip", "netns", "list", check=False).stdout.split())
        gone_ns = []
        for ns in [h["ns"] for h in self.hosts] + [self.switch]:
            if ns in names:
                r = sh("ip", "netns", "del", ns, check=False)
                if r.returncode != 0:
                    gone_ns.append(ns)
        shutil.rmtree(self.dir, ignore_errors=True)
        return left, gone_ns


def down_by_id(ident):
    """What is left of a cluster whose directory is gone: its processes (by
    the mark) and namespaces (shoal-ID-*)."""
    if not re.fullmatch(r"c[0-9a-f]{7}", ident):
        print(f"cluster.py: {ident} is neither a cluster's directory nor its id (cXXXXXXX, "
              "as in the namespaces' names shoal-ID-h0 ...)", file=sys.stderr)
        return 2
    killed, left = kill_marked(ident)
    gone = [ns for ns in sh("ip", "netns", "list", check=False).stdout.split()
            if ns.startswith(f"shoal-{ident}-")]
    for ns in gone:
        sh("ip", "netns", "del", ns, check=False)
    print(f"cluster {ident}: killed {len(killed)} process(es), deleted namespaces {gone}"
          + (f"; survive: {left}" if left else ""))
    return 1 if left else 0


# --- watchdog -------------------------------------------------------------------------
def watchdog(dir):
    """Once its stdin closes without "done" first, the one who started it
    died without taking the cluster down: take it down."""
    if MP.watchdog_released(MARK_VAR) or not os.path.exists(os.path.join(dir, "state.json")):
        return 0
    left, ns = Cluster(dir).down(quiet=True)
    print(f"cluster watchdog: the test died; took its cluster {dir} down"
          + (f" ({len(left)} process(es), namespaces {ns} survive)" if left or ns else ""),
          file=sys.stderr)
    return 0


def start_watchdog(dir):
    """A process in its own session that takes the cluster down if this one
    dies (even by SIGKILL, e.g. a ctest timeout); MP.release_watchdog once
    the cluster is down."""
    return MP.start_watchdog([os.path.abspath(__file__), "watchdog", dir], MARK_VAR)


def skip_reason(need_mpirun=True):
    """Why no cluster (with Open MPI's mpirun) can be built here ("" if one
    can)."""
    if os.geteuid() != 0:
        return "not root: the cluster needs network namespaces and mounts"
    for tool in ("ip", "unshare", "taskset", "mount", "hostname") + (
            ("mpirun",) if need_mpirun else ()):
        if shutil.which(tool) is None:
            return f"{tool} is not installed" + (" (Debian: openmpi-bin)" if tool == "mpirun"
                                                 else "")
    probe = f"shoal-probe-{os.getpid()}"
    r = sh("ip", "netns", "add", probe, check=False)
    if r.returncode != 0:
        return f"no network namespaces here (ip netns add: {r.stderr.strip()})"
    try:
        r = subprocess.run(["ip", "netns", "exec", probe, "unshare", "--uts", "--ipc", "--mount",
                            "sh", "-c", "mount -t tmpfs x /mnt && hostname probe"],
                           capture_output=True, text=True, timeout=20)
        if r.returncode != 0:
            return f"cannot enter new UTS/IPC/mount namespaces: {r.stderr.strip()}"
    finally:
        sh("ip", "netns", "del", probe, check=False)
    if not need_mpirun:
        return ""
    r = subprocess.run(["mpirun", "--version"], capture_output=True, text=True, timeout=20)
    if "Open MPI" not in r.stdout + r.stderr:
        return "mpirun is not Open MPI's (Debian: openmpi-bin)"
    return ""


# --- command line -------------------------------------------------------------------
def parse_names(specs, hosts):
    if not specs:
        return [(f"node{i}", f"node{i}") for i in range(hosts)]
    return [tuple(s.split("=", 1)) if "=" in s else (s, s) for s in specs]


def main(argv):
    if len(argv) == 2 and argv[0] == "watchdog":
        return watchdog(argv[1])
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("up")
    p.add_argument("--hosts", type=int, default=2)
    p.add_argument("--slots", type=int, default=2)
    p.add_argument("--name", action="append", default=[])
    p.add_argument("--base", default=None, help="where DIR is made (default: $TMPDIR or /tmp)")
    p.add_argument("--slurm", action="store_true")
    p = sub.add_parser("run")
    p.add_argument("dir")
    p.add_argument("-n", "--np", type=int, default=0)
    p.add_argument("--copy", action="store_true")
    p.add_argument("--tag-output", action="store_true")
    p.add_argument("--pe-logs", action="store_true")
    p.add_argument("--env", action="append", default=[])
    p.add_argument("--timeout", type=float, default=0)
    p = sub.add_parser("srun")
    p.add_argument("dir")
    p = sub.add_parser("sh")
    p.add_argument("dir")
    p.add_argument("host")
    p.add_argument("command", nargs=argparse.REMAINDER)
    p = sub.add_parser("link")
    p.add_argument("dir")
    p.add_argument("host")
    p.add_argument("state", choices=("up", "down"))
    for name in ("ps", "down"):
        sub.add_parser(name).add_argument("dir")
    prog = []
    if argv[:1] in (["run"], ["srun"]) and "--" in argv:
        prog = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    a = ap.parse_args(argv)
    if a.cmd == "up":
        why = skip_reason()
        if why:
            print("cluster.py: " + why, file=sys.stderr)
            return 1
        c = Cluster.create(parse_names(a.name, a.hosts), a.slots, a.base)
        why = c.slurm_up() if a.slurm else ""
        if why:
            print(f"cluster.py: Slurm did not start: {why}; logs in {c.path('slurm', 'log')}",
                  file=sys.stderr)
        for h in c.hosts:
            print(f"# {h['name']}: {h['addr']} (hostname {h['uts']}, namespace {h['ns']})",
                  file=sys.stderr)
        print(c.dir)
        return 0
    if a.cmd == "down" and not os.path.isdir(a.dir):
        return down_by_id(a.dir)
    c = Cluster(a.dir)
    if a.cmd == "run":
        args = prog
        if not args:
            ap.error("run: no program (cluster.py run DIR [options] -- PROGRAM [ARG...])")
        # The PEs start in another directory: the program by its full path.
        args[0] = os.path.abspath(args[0]) if os.sep in args[0] else shutil.which(args[0])
        if a.copy:
            args[0] = c.install(args[0])
        np = a.np or sum(h["slots"] for h in c.hosts)
        env = dict(e.split("=", 1) for e in a.env)
        p = c.launch(np, args, env=env, tag_output=a.tag_output, pe_logs=a.pe_logs,
                     stdout=None)
        try:
            rc = p.wait(timeout=a.timeout or None)
        except subprocess.TimeoutExpired:
            print(f"cluster.py: mpirun still runs after {a.timeout} s; `down` ends it",
                  file=sys.stderr)
            return 124
        except KeyboardInterrupt:
            p.terminate()
            rc = p.wait()
        if a.pe_logs:
            for r, text in sorted(c.pe_logs().items()):
                sys.stdout.write("".join(f"[pe{r}] {ln}\n" for ln in text.splitlines()))
        return rc
    if a.cmd == "srun":
        return c.srun_launch(prog, stdout=None).wait()
    if a.cmd == "sh":
        # One word: a shell command line; several: a command and its arguments.
        if len(a.command) == 1:
            cmd = a.command[0]
        else:
            cmd = " ".join(shlex.quote(x) for x in a.command) if a.command else "exec sh -i"
        return subprocess.call(c.agent(a.host, cmd), env=c.env())
    if a.cmd == "link":
        c.link(a.host, a.state)
        return 0
    if a.cmd == "ps":
        for pid, host, rank, cmd in c.processes():
            pe = f"PE {rank}" if rank is not None else "-"
            print(f"{pid:>8} {host or '?':<8} {pe:<6} {cmd[:100]}")
        return 0
    if a.cmd == "down":
        left, ns = c.down()
        if left or ns:
            print(f"cluster.py: survive: processes {left}, namespaces {ns}", file=sys.stderr)
            return 1
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
