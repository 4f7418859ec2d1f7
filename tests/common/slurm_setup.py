"""What a test Slurm needs besides its hosts and paths: the settings every
test cluster of Shoal's shares, and munge's key and command line.  Used by
tests/cluster/cluster.py (a Slurm across namespaces) and
tests/slurm/test_slurm.py (a one-node Slurm)."""
import os


def auth(sock):
    """slurm.conf lines: munge through `sock`, everything as root."""
    return (f"AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket={sock}\n"
            "SlurmUser=root\nSlurmdUser=root\n")


# slurm.conf lines: no cgroups, accounting or job completion records; a node
# that comes back returns to service; jobs end soon after a kill.
POLICY = """ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
KillWait=2
InactiveLimit=0
"""

PARTITION = "PartitionName=shoal Nodes=ALL Default=YES MaxTime=5 State=UP\n"


def munged_argv(key, sock, pid_file, log_file, seed_file):
    """Writes a fresh munge key at `key` (mode 0600) and returns the command
    line of a munged in the foreground that uses it."""
    with open(key, "wb") as f:
        f.write(os.urandom(1024))
    os.chmod(key, 0o600)
    return ["munged", "-F", "--key-file=" + key, "--socket=" + sock, "--pid-file=" + pid_file,
            "--log-file=" + log_file, "--seed-file=" + seed_file]
