#!/usr/bin/env python3
"""Shoal on a cluster of network namespaces (cluster.py), launched by Open
MPI's mpirun through the PMIx bootstrap: one case per ctest (cluster.CASE).

    test_cluster.py --loop EXE --loop-other EXE --info EXE
                    --prog NAME=EXE ... --have-pmix BOOL --sanitizer BOOL CASE

Cases:
  spec       the spec programs at 2 hosts x 2 PEs; PE 0 comes to
             shmem_finalize 2 s after the others, who must not leave it
             before (cluster_loop late_finalize)
  coll_am    the coll, requests and am programs at 2 hosts x 2 PEs
  odd        a few of them at 5 PEs on 4 hosts (2+1+1+1)
  copies     each host runs its own copy of a program (another inode, one
             path): right values, status 0
  mismatch   host 1 runs another program at the same path: refused at init
             with a message naming a PE and the host of each side; the job
             fails and no PE is left
  containers two hosts with one hostname (two containers of one machine, each
             its own network namespace): the job runs, and each PE's node
             (SHMEM_TEAM_SHARED, shmem_ptr) holds only its own host's PEs
  kill       every PE of host 1 gets SIGKILL while the job loops (host 1's
             orted stopped first, so that mpirun cannot end the others
             before they notice): every PE has ended within 30 s, each
             survivor naming a peer and a host, or ended by the launcher
             after a PE of its host did
  link       host 1's link goes down: the same, on both sides of the cut
  stop       every PE of host 1 is stopped 10 s (SIGSTOP, SIGCONT): the job
             is not declared dead, it ends with status 0 and right values
  global_exit PE 0 calls shmem_global_exit(0) while the PEs of both hosts
             wait in a barrier, and again while they wait in shmem_finalize
             (tests/exit/exit_paths global_exit, global_exit_late): mpirun
             returns 0, prints no "exiting improperly" block, no PE is left;
             shmem_global_exit(5) (global_exit_busy) gives status 5
  exit_early PE 3 returns from main without shmem_finalize while the others
             loop: the job ends, failing, a PE saying that PE 3 exited
             without shmem_finalize (its leaving word, not a peer taken for
             dead); within 15 s on an idle machine, which a loaded one may
             pass with a note: only EXIT_EARLY_HANG_S (a hang) fails
  slurm      munged, slurmctld and one `slurmd -N HOST` per host (NodeAddr: the
             host's address); srun --mpi=pmix -N 2 -n 4: shmem-info --job,
             spec programs, late_finalize (as in spec), a copy per host (srun
             --bcast) and a failing PE (skipped where Slurm, munge or srun's
             pmix plugin is missing)

Faults use the library's default peer timeout: the 30 s bound is its
documented default bound (SHOAL_PEER_TIMEOUT + 10 s), kept as a bound.
Other time limits catch hangs only.  mpirun and orted may hang after a dead link (Open
MPI does): the cases do not wait for them; the cluster goes down at the end
with every process it started (each carries a marker), pass or fail, and a
watchdog takes it down if this script is killed (a ctest timeout).

Exit 77 (skipped) when: not root, no network namespaces, no Open MPI mpirun,
a build without PMIx, or a sanitizer build.
"""
import argparse
import os
import re
import shutil
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster as C  # noqa: E402

SKIP = 77
DEAD_BOUND = 30.0   # the documented default: a dead peer ends the job within 30 s
EXIT_EARLY_HANG_S = 60.0  # a job still running this long after a PE left hangs
A = None
failures = []


log = C.log


def fail(msg):
    log("FAIL: " + msg)
    failures.append(msg)


def show(rc, out, dt, what):
    log(f"--- {what}: status {rc}, {dt:.1f} s")
    for ln in (out or "").splitlines()[-40:]:
        log("    " + ln)


def node_env(hosts_of_ranks):
    """SHOAL_TEST_NODES for the test programs' st_mapped (ranks in K
    contiguous blocks, one per host)."""
    return {"SHOAL_TEST_NODES": str(hosts_of_ranks)}


# --- programs --------------------------------------------------------------------------
# (program, arguments): every program of the spec suite, and of the coll,
# requests and am suites those that run at 2 hosts x 2 PEs in a few seconds;
# each checks its values.
SPEC_PROGRAMS = [
    ("spec_setup", ["init", "4"]), ("spec_setup_deprecated", ["finalize"]),
    ("spec_memory", ["all"]), ("spec_rma", []), ("spec_amo", []), ("spec_p2p_sync", []),
    ("spec_signal", []), ("spec_ordering", []), ("spec_lock", []), ("spec_barrier", []),
    ("spec_ctx", []),
]
LIB_PROGRAMS = [
    ("coll_teams", ["basic"]), ("coll_teams", ["split"]), ("coll_sync", []),
    ("coll_typed", []), ("coll_stress", ["sizes"]), ("coll_stress", ["teams"]),
    ("coll_small", ["ops"]), ("coll_aset_outside", []),
    ("spec_requests", ["values"]), ("spec_requests", ["merge"]), ("spec_nbe_typed", []),
    ("am_test", ["sizes"]), ("am_test", ["flood"]), ("am_test", ["waiters", "2"]),
    ("am_nbe_test", ["values"]),
]
ODD_PROGRAMS = [("spec_setup", ["init", "5"]), ("spec_barrier", []), ("spec_rma", []),
                ("coll_typed", []), ("coll_small", ["ops"]), ("spec_requests", ["values"]),
                ("am_test", ["sizes"])]


def run_programs(c, progs, np, nodes):
    env = dict(node_env(nodes), SHOAL_REQUEST_WORKERS="2")
    if c.shares_cpus:
        # Hosts that share a CPU here would each believe it theirs and spin
        # (spec_rma at 5 PEs on 4 hosts on 2 cores: over 90 s; 11 s so).
        env["SHOAL_WAIT_POLICY"] = "sleep"
    for name, args in progs:
        exe = A.prog.get(name)
        if not exe:
            fail(f"no --prog {name}=EXE given")
            continue
        rc, out, dt = c.run(np, [exe, *args], env=env, timeout=150)
        log(f"{name} {' '.join(args)}: status {rc}, {dt:.1f} s")
        if rc != 0:
            show(rc, out, dt, f"{name} {' '.join(args)} at {np} PEs")
            fail(f"{name} {' '.join(args)} on {len(c.hosts)} hosts, {np} PEs: status {rc}")


def case_spec():
    c = cluster_up(2)
    run_programs(c, SPEC_PROGRAMS, 4, 2)
    rc, out, dt = c.run(4, [A.loop, "late_finalize", str(LATE_S)], timeout=60)
    check_late_finalize(rc, out, dt, "mpirun")


def case_coll_am():
    c = cluster_up(2)
    run_programs(c, LIB_PROGRAMS, 4, 2)


def case_odd():
    # 5 PEs on 4 hosts: ranks 0,1 | 2 | 3 | 4 (by slot), which are the
    # 4 contiguous blocks of st_mapped.
    c = cluster_up(4, slots=[2, 1, 1, 1])
    run_programs(c, ODD_PROGRAMS, 5, 4)


# --- one program, separate copies, another program ----------------------------------------
def loop_lines(out, what):
    """{rank: host} of the PEs whose "cluster_loop: PE r of n on host: what"
    line is in out."""
    return {int(m.group(1)): m.group(2) for m in re.finditer(
        r"cluster_loop: PE (\d+) of \d+ on (\S+): " + what, out)}


LATE_S = 2.0  # PE 0 comes to shmem_finalize this long after the others


def check_late_finalize(rc, out, dt, launcher):
    """cluster_loop late_finalize under `launcher`: status 0, and no PE left
    shmem_finalize before PE 0 entered it (a bootstrap barrier that does not
    wait for the other hosts: a host's PEs went and closed their connections,
    and a PE still at work took its peers for dead)."""
    spans = {int(m.group(1)): (float(m.group(2)), float(m.group(3))) for m in re.finditer(
        r"cluster_loop: PE (\d+) of \d+ on \S+: shmem_finalize from ([\d.]+) to ([\d.]+)", out)}
    bad = []
    if rc != 0:
        bad.append(f"status {rc}")
    if sorted(spans) != [0, 1, 2, 3]:
        bad.append(f"PEs that said when they left shmem_finalize: {sorted(spans)} (want 0-3)")
    elif any(left < spans[0][0] for _, left in spans.values()):
        early = sorted(pe for pe, (_, left) in spans.items() if left < spans[0][0])
        bad.append(f"PEs {early} left shmem_finalize before PE 0 entered it "
                   f"({LATE_S:.0f} s after them)")
    log(f"{launcher} cluster_loop late_finalize: status {rc}, {dt:.1f} s")
    if bad:
        show(rc, out, dt, f"{launcher} cluster_loop late_finalize")
        fail(f"shmem_finalize with PE 0 late under {launcher} on 2 hosts: " + "; ".join(bad))


def case_copies():
    c = cluster_up(2)
    prog = c.install(A.loop, name="cluster_loop")
    inodes = {h["name"]: os.stat(c.path(h["name"], "app", "cluster_loop")).st_ino
              for h in c.hosts}
    log(f"copies of cluster_loop at {prog}: inodes {inodes}")
    rc, out, dt = c.run(4, [prog, "loop", "2"], timeout=90)
    done = loop_lines(out, r"\d+ rounds in [\d.]+ s, values right")
    if rc != 0 or sorted(done) != [0, 1, 2, 3]:
        show(rc, out, dt, "cluster_loop, a copy per host")
        fail(f"a copy of cluster_loop per host: status {rc}, PEs with right values "
             f"{sorted(done)} (want 0-3)")
    elif done != {0: "node0", 1: "node0", 2: "node1", 3: "node1"}:
        fail(f"cluster_loop copies: PEs ran on {done}, want 0,1 on node0 and 2,3 on node1")
    # A spec program too: its static data is checked across the hosts.
    rma = c.install(A.prog["spec_rma"], name="spec_rma")
    rc, out, dt = c.run(4, [rma], env=node_env(2), timeout=120)
    if rc != 0:
        show(rc, out, dt, "spec_rma, a copy per host")
        fail(f"a copy of spec_rma per host: status {rc}")


def pes_left(c, grace=30):
    """The PEs still alive once the launcher ended (a PE it killed may take
    a moment)."""
    end = time.monotonic() + grace
    while c.pes() and time.monotonic() < end:
        time.sleep(0.1)
    return c.pes()


def case_mismatch():
    c = cluster_up(2)
    c.install(A.loop, hosts=["node0"], name="prog")
    c.install(A.loop_other, hosts=["node1"], name="prog")
    rc, out, dt = c.run(4, [c.path("app", "prog"), "loop", "2"], timeout=60)
    left = pes_left(c)
    bad = []
    if rc == 0 or rc == "timeout":
        bad.append(f"the job did not fail (status {rc})")
    if loop_lines(out, "running"):
        bad.append("PEs ran past shmem_init")
    # A line naming a PE of each host and both hosts.
    named = False
    for ln in out.splitlines():
        pes = {int(x) for x in re.findall(r"\bPE (\d+)\b", ln)}
        if pes & {0, 1} and pes & {2, 3} and re.search(r"\bnode0\b", ln) and \
                re.search(r"\bnode1\b", ln):
            if not named:
                log("refused: " + ln)
            named = True
    if not named:
        bad.append("no line names a PE of each host and both hosts (node0, node1)")
    if left:
        bad.append(f"PEs left after mpirun ended: {left}")
    if bad:
        show(rc, out, dt, "another program on node1")
        fail("another program on node1: " + "; ".join(bad))


def case_containers():
    # Agent names n0a and n0b (their own addresses), one hostname: "box".
    c = cluster_up(2, names=[("n0a", "box"), ("n0b", "box")])
    rc, out, dt = c.run(4, [A.info, "--job"], timeout=60)
    if rc != 0 or not re.search(r"^Job: 4 PEs, 2 on this node", out, re.M):
        show(rc, out, dt, "shmem-info --job")
        fail(f"shmem-info --job in two containers named box: status {rc}, want "
             "'Job: 4 PEs, 2 on this node'")
    rc, out, dt = c.run(4, [A.loop, "nodes"], env=node_env(2), timeout=60)
    nodes = {int(m.group(1)): m.group(2) for m in
             re.finditer(r"cluster_loop: PE (\d+) of \d+ on \S+: node PEs ([\d,]+)", out)}
    want = {0: "0,1", 1: "0,1", 2: "2,3", 3: "2,3"}
    done = loop_lines(out, r"\d+ rounds in [\d.]+ s, values right")
    if rc != 0 or nodes != want or sorted(done) != [0, 1, 2, 3]:
        show(rc, out, dt, "cluster_loop nodes")
        fail(f"two containers named box: status {rc}, nodes {nodes} (want {want}), "
             f"PEs with right values {sorted(done)}")


# --- faults ------------------------------------------------------------------------------
def start_loop(c, seconds, args=None):
    """cluster_loop on 2 hosts x 2 PEs, each PE's output in its own log;
    returns (mpirun, {rank: pid}) once every PE runs (None if they did not)."""
    p = c.launch(4, [A.loop, *(args or ["loop", str(seconds)])], pe_logs=True,
                 tag_output=True)
    end = time.monotonic() + 60
    while time.monotonic() < end:
        running = loop_lines("".join(c.pe_logs().values()), "running")
        if len(running) == 4:
            return p, c.pes()
        if p.poll() is not None:
            break
        time.sleep(0.1)
    out = p.stdout.read() if p.poll() is not None else ""
    show(p.poll(), out, 0, "cluster_loop did not start")
    show_pe_logs(c)
    fail("cluster_loop did not start on 4 PEs within 60 s")
    return None, None


def show_pe_logs(c):
    for r, text in sorted(c.pe_logs().items()):
        log(f"--- PE {r}'s output")
        for ln in text.splitlines()[-15:]:
            log("    " + ln)


def wait_pes_gone(c, t_fault, bound):
    """Seconds from the fault until no PE is left, or None (then PEs live
    past the bound)."""
    while time.monotonic() - t_fault <= bound:
        if not c.pes():
            return time.monotonic() - t_fault
        time.sleep(0.1)
    return None


def names_peer(c, rank, text, peers):
    """The first line of PE rank's output (not cluster_loop's own) that names
    a PE of peers and a host of the cluster, or None."""
    hosts = [h["name"] for h in c.hosts]
    for ln in text.splitlines():
        if ln.startswith("cluster_loop:"):
            continue
        pes = {int(x) for x in re.findall(r"\bPE (\d+)\b", ln)} - {rank}
        if pes & set(peers) and any(re.search(rf"\b{re.escape(h)}\b", ln) for h in hosts):
            return ln
    return None


def check_ended(c, p, what, t_fault, killed):
    """Every PE gone within the bound; each PE not killed by the test named
    a peer and a host (a PE may name a peer on its own side that failed
    first: which notices first is a race), or a PE of its own host did and
    the launcher ended it; and at least one named a peer across the cut."""
    took = wait_pes_gone(c, t_fault, DEAD_BOUND)
    logs = c.pe_logs()
    bad = []
    if took is None:
        left = c.processes()
        bad.append(f"PEs still run {DEAD_BOUND:.0f} s after the fault: " + ", ".join(
            f"PE {r} (pid {pid}) on {h}" for pid, h, r, _ in left if r is not None))
        stacks = [f"PE {r} pid {pid}: {state_of(pid)}" for pid, h, r, _ in left if r is not None]
        log("states of the PEs left: " + "; ".join(stacks))
    else:
        log(f"{what}: every PE ended {took:.1f} s after the fault")
    across = False
    survivors = sorted(set(range(4)) - set(killed))
    said = {r: names_peer(c, r, logs.get(r, ""), set(range(4)) - {r}) for r in survivors}
    for r in survivors:
        mates = [m for m in survivors if m != r and m not in ACROSS[r] and said[m]]
        if said[r]:
            log(f"PE {r} said: {said[r]}")
        elif mates:
            # A launcher ends a host's other PEs as soon as one of them
            # fails: a PE still waiting on its node-mate (alive, so nothing
            # to report yet) is ended before its own timeout.
            log(f"PE {r} said nothing: its node-mate PE {mates[0]} reported first, "
                "and the launcher ended the rest")
        else:
            bad.append(f"neither PE {r} nor a PE of its host printed a line naming "
                       "a peer PE and a host")
        across = across or names_peer(c, r, logs.get(r, ""), ACROSS[r]) is not None
    if not across:
        bad.append("no PE named a peer across the cut (node0's PEs 0, 1 | node1's PEs 2, 3)")
    if p.poll() is not None:
        log(f"mpirun exited with status {p.returncode}")
    else:
        log("mpirun still runs (it is not required to end)")
    if bad:
        show_pe_logs(c)
        fail(f"{what}: " + "; ".join(bad))


def state_of(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/wchan") as f:
            wchan = f.read()
        return f"state {fields[0]}, wchan {wchan}, utime {fields[11]} stime {fields[12]}"
    except OSError as e:
        return str(e)


ACROSS = {0: [2, 3], 1: [2, 3], 2: [0, 1], 3: [0, 1]}


def case_kill():
    c = cluster_up(2)
    p, pes = start_loop(c, 300)
    if not p:
        return
    # node1's orted is stopped first: otherwise it reports the deaths and
    # mpirun kills the survivors within a second, before they could say
    # anything (a race, and not Shoal's detection, which is what is tested;
    # a host that crashes takes its daemon with it too).
    orted = c.daemons("node1")
    for pid in orted:
        os.kill(pid, signal.SIGSTOP)
    victims = c.pes("node1")
    log(f"SIGSTOP to node1's orted {orted}, then SIGKILL to the PEs of node1: {victims}")
    t = time.monotonic()
    for pid in victims.values():
        os.kill(pid, signal.SIGKILL)
    check_ended(c, p, "SIGKILL of node1's PEs", t, killed=list(victims))


def case_link():
    c = cluster_up(2)
    p, pes = start_loop(c, 300)
    if not p:
        return
    log("node1's link down")
    t = time.monotonic()
    c.link("node1", "down")
    check_ended(c, p, "node1's link down", t, killed=[])


def case_stop():
    c = cluster_up(2)
    p, pes = start_loop(c, 16)
    if not p:
        return
    victims = c.pes("node1")
    log(f"SIGSTOP to the PEs of node1 for 10 s: {victims}")
    for pid in victims.values():
        os.kill(pid, signal.SIGSTOP)
    time.sleep(10)
    for pid in victims.values():
        os.kill(pid, signal.SIGCONT)
    log("SIGCONT")
    try:
        out, _ = p.communicate(timeout=60)
        rc = p.returncode
    except Exception:
        out, rc = "", "timeout"
    logs = c.pe_logs()
    done = loop_lines("".join(logs.values()), r"\d+ rounds in [\d.]+ s, values right")
    if rc != 0 or sorted(done) != [0, 1, 2, 3]:
        show(rc, out, 0, "mpirun")
        show_pe_logs(c)
        fail(f"node1's PEs stopped 10 s: status {rc}, PEs with right values {sorted(done)} "
             "(want status 0 and PEs 0-3)")


def case_exit_early():
    c = cluster_up(2)
    t0 = time.monotonic()
    p, pes = start_loop(c, 300, ["exit_early", "3", "300"])
    if not p:
        return
    try:
        out, _ = p.communicate(timeout=max(1.0, EXIT_EARLY_HANG_S - (time.monotonic() - t0)))
        rc = p.returncode
    except Exception:
        out, rc = "", "timeout"
    dt = time.monotonic() - t0
    logs = c.pe_logs()
    text = "\n".join(ln for ln in (out + "\n" + "\n".join(logs.values())).splitlines()
                     if "cluster_loop:" not in ln)
    bad = []
    if rc == 0 or rc == "timeout":
        bad.append(f"the job did not end failing within {EXIT_EARLY_HANG_S:.0f} s (status {rc}, "
                   f"{dt:.1f} s)")
    elif dt > 15:
        log(f"note: exit_early: the job ended {dt:.1f} s after the start, more than the 15 s "
            "of an idle machine (not a failure: only a hang is)")
    if not re.search(r"\bPE 3 exited without calling shmem_finalize\b", text):
        bad.append("no message says that PE 3 exited without calling shmem_finalize")
    left = pes_left(c)
    if left:
        bad.append(f"PEs left: {left}")
    show(rc, out, dt, "mpirun")
    show_pe_logs(c)
    if bad:
        fail("PE 3 returned from main without shmem_finalize: " + "; ".join(bad))


def slurm_skip_reason():
    missing = [t for t in ("munged", "slurmctld", "slurmd", "srun", "sinfo")
               if shutil.which(t) is None]
    if missing:
        return (f"not installed: {', '.join(missing)} (Debian: slurmctld slurmd slurm-client "
                "munge)")
    return ""


def case_slurm():
    why = slurm_skip_reason()
    if why:
        log("SKIP: " + why)
        return SKIP
    c = cluster_up(2)
    t0 = time.monotonic()
    why = c.slurm_up()
    if why:
        for name, text in c.slurm_logs().items():
            log(f"--- {name}")
            for ln in text.splitlines()[-15:]:
                log("    " + ln)
        fail("Slurm did not start across the hosts: " + why)
        return
    log(f"Slurm up in {time.monotonic() - t0:.1f} s: slurmctld on node0, slurmd on node0, node1")
    rc, out, dt = c.srun(["--mpi=list"])
    if not re.search(r"^\s*pmix\b", out, re.M):
        log("SKIP: srun --mpi=list lists no pmix plugin (Debian: slurm-wlm-basic-plugins):\n"
            + out)
        return SKIP
    srun = ["--mpi=pmix", "-N", "2", "-n", "4", "--time=2"]
    rc, out, dt = c.srun(srun + [A.info, "--job"])
    if rc != 0 or not re.search(r"^Bootstrap: pmix", out, re.M) or \
            not re.search(r"^Job: 4 PEs, 2 on this node", out, re.M):
        show(rc, out, dt, "srun shmem-info --job")
        fail(f"shmem-info --job under srun on 2 hosts: status {rc}, want 'Bootstrap: pmix' "
             "and 'Job: 4 PEs, 2 on this node'")
    for name, args in (("spec_setup", ["init", "4"]), ("spec_rma", []), ("spec_barrier", [])):
        rc, out, dt = c.srun(srun + [A.prog[name], *args], env=node_env(2), timeout=120)
        log(f"srun {name}: status {rc}, {dt:.1f} s")
        if rc != 0:
            show(rc, out, dt, f"srun {name}")
            fail(f"{name} under srun on 2 hosts x 2 PEs: status {rc}")
    rc, out, dt = c.srun(srun + [A.loop, "late_finalize", str(LATE_S)], timeout=60)
    check_late_finalize(rc, out, dt, "srun")
    # Slurm's own way to give each host its copy: srun --bcast.
    copy = c.path("app", "cluster_loop")
    rc, out, dt = c.srun(srun + ["--bcast=" + copy, A.loop, "loop", "2"], timeout=90)
    done = loop_lines(out, r"\d+ rounds in [\d.]+ s, values right")
    log(f"srun --bcast cluster_loop: status {rc}, {dt:.1f} s")
    if rc != 0 or sorted(done) != [0, 1, 2, 3]:
        show(rc, out, dt, "srun --bcast cluster_loop")
        fail(f"srun --bcast (a copy per host) of cluster_loop: status {rc}, PEs with right "
             f"values {sorted(done)} (want 0-3)")
    # A PE that fails while the others wait: the job ends promptly, failing.
    rc, out, dt = c.srun(srun + ["--kill-on-bad-exit=1", A.prog["spec_errors"], "die_in_wait"])
    log(f"srun spec_errors die_in_wait: status {rc}, {dt:.1f} s")
    left = pes_left(c)
    if rc in (0, "timeout") or left:
        show(rc, out, dt, "srun spec_errors die_in_wait")
        fail(f"a PE failing under srun on 2 hosts: status {rc} after {dt:.1f} s (want a "
             f"failure, not a hang), PEs left {left}")
    elif dt > 15:
        log(f"note: srun spec_errors die_in_wait took {dt:.1f} s, more than the 15 s of an "
            "idle machine (not a failure: only a hang is)")


def case_global_exit():
    c = cluster_up(2)
    exe = A.prog.get("exit_paths")
    if not exe:
        fail("no --prog exit_paths=EXE given")
        return
    for mode, want in (("global_exit", 0), ("global_exit_late", 0), ("global_exit_busy", 5)):
        rc, out, dt = c.run(4, [exe, mode], env=node_env(2), timeout=120)
        logs = "\n".join(c.pe_logs().values())
        log(f"exit_paths {mode} on 2 hosts: status {rc}, {dt:.1f} s")
        bad = []
        if rc != want:
            bad.append(f"status {rc}, want {want} (the status given to shmem_global_exit)")
        if re.search(r"exiting improperly|shoal: PE [1-9]", out + logs):
            bad.append("mpirun or a PE other than PE 0 reported a failure")
        left = pes_left(c)
        if left:
            bad.append(f"PEs left: {left}")
        if bad:
            show(rc, out + "\n" + logs, dt, f"exit_paths {mode}")
            fail(f"shmem_global_exit on 2 hosts ({mode}): " + "; ".join(bad))


CASES = {"spec": case_spec, "coll_am": case_coll_am, "odd": case_odd, "copies": case_copies,
         "mismatch": case_mismatch, "containers": case_containers, "kill": case_kill,
         "link": case_link, "stop": case_stop, "exit_early": case_exit_early,
         "global_exit": case_global_exit,
         "slurm": case_slurm}

# --- the cluster of this run --------------------------------------------------------------
current = {}


def cluster_up(n, slots=2, names=None):
    names = names or [(f"node{i}", f"node{i}") for i in range(n)]
    t0 = time.monotonic()
    c = C.Cluster.create(names, slots)
    current["cluster"] = c
    current["dog"] = C.start_watchdog(c.dir)
    log(f"cluster {c.mark} up in {time.monotonic() - t0:.1f} s: " + ", ".join(
        f"{h['name']} {h['addr']} (hostname {h['uts']}, {h['slots']} slots, CPU {h['cpus']})"
        for h in c.hosts))
    return c


def cluster_down():
    c, dog = current.get("cluster"), current.get("dog")
    if not c:
        return
    left, ns = c.down()
    if left or ns:
        fail(f"the cluster did not go down: processes {left}, namespaces {ns}")
    C.MP.release_watchdog(dog)


def skip_reason():
    if A.sanitizer.upper() in ("TRUE", "ON", "1"):
        return ("a sanitizer build: the cluster runs plain builds (PMIx under the sanitizers is "
                "tested by the mpirun variant)")
    if A.have_pmix.upper() not in ("TRUE", "ON", "1"):
        return "Shoal was built without PMIx (Debian: libpmix-dev)"
    return C.skip_reason(need_mpirun=A.case != "slurm")


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("--loop", required=True)
    ap.add_argument("--loop-other", required=True)
    ap.add_argument("--info", required=True)
    ap.add_argument("--prog", action="append", default=[])
    ap.add_argument("--have-pmix", default="FALSE")
    ap.add_argument("--sanitizer", default="FALSE")
    ap.add_argument("case", choices=sorted(CASES))
    A = ap.parse_args()
    A.prog = dict(p.split("=", 1) for p in A.prog)
    why = skip_reason()
    if why:
        log("SKIP: " + why)
        return SKIP

    C.MP.clean_up_on_signals()
    t0 = time.monotonic()
    try:
        rc = CASES[A.case]()
    finally:
        cluster_down()
    if rc == SKIP:
        return SKIP
    took = time.monotonic() - t0
    if failures:
        log(f"{len(failures)} failure(s), {took:.1f} s")
        return 1
    log(f"ok: cluster.{A.case}, {took:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
