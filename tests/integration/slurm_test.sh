#!/usr/bin/env bash
# Integration test of the Slurm runner: starts a one-node Slurm cluster (munge,
# slurmctld and slurmd as root, a generated slurm.conf, free ports), runs the
# gene-family pipeline on the example genome through it, checks every stage
# ran as a Slurm job and the result matches the truth, and stops the cluster.
# Usage: slurm_test.sh BIOAGENT_BINARY
set -uo pipefail
bin=$1
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: the one-node Slurm cluster needs root"; exit 0; fi
for p in munged slurmctld slurmd sbatch; do
  command -v "$p" >/dev/null || { echo "FAIL: $p is missing (scripts/setup.sh installs slurm-wlm and munge)"; exit 1; }
done
tmp=$(mktemp -d)
host=$(hostname -s)
port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ctld_port=$(port) d_port=$(port)
stop() {
  for f in slurmd slurmctld munged; do [ -f "$tmp/$f.pid" ] && kill "$(cat "$tmp/$f.pid")" 2>/dev/null; done
  sleep 1
  rm -rf "$tmp"
}
trap stop EXIT
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/log"
head -c 1024 /dev/urandom > "$tmp/munge.key" && chmod 600 "$tmp/munge.key"
munged --force --key-file="$tmp/munge.key" --socket="$tmp/munge.sock" --pid-file="$tmp/munged.pid" \
  --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge.seed" || { echo "FAIL: munged did not start"; exit 1; }
cat > "$tmp/slurm.conf" <<CONF
ClusterName=bioagenttest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=600
NodeName=$host CPUs=$(nproc) RealMemory=4000 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -c -f "$SLURM_CONF" && slurmd -f "$SLURM_CONF" || { echo "FAIL: the Slurm daemons did not start"; tail "$tmp"/log/*; exit 1; }
for _ in $(seq 60); do sinfo -h -o %T 2>/dev/null | grep -q idle && break; sleep 0.5; done
sinfo -h -o %T | grep -q idle || { echo "FAIL: the node never became idle"; sinfo; tail "$tmp"/log/*; exit 1; }
echo "cluster up: $(sinfo -h -o '%P %D %T')"

"$bin" genefamily example "$tmp/data" > /dev/null || { echo "FAIL: example genome"; exit 1; }
"$bin" genefamily run --runner slurm --data "$tmp/data" --run-dir "$tmp/run" --cpus 2 --slurm-mem-cap 2000 \
  --params '{"phylogeny": {"method": "fasttree"}}' > "$tmp/out.json" 2> "$tmp/progress.txt"
rc=$?
cat "$tmp/progress.txt"
/usr/bin/python3 - "$tmp" "$rc" "$bin" <<'PY'
import json, subprocess, sys
tmp, rc, bin_ = sys.argv[1], int(sys.argv[2]), sys.argv[3]
out = json.load(open(f"{tmp}/out.json"))
# Ran to completion: done, or warn (a check such as median support below its threshold), or
# skipped with its reason (no expression matrix, no orthologs given).
bad = [s for s in out["stages"] if s["state"] not in ("done", "warn") and not (s["state"] == "skipped" and s.get("message"))]
assert rc == 0 and not bad and out["runner"] == "slurm", f"stages that did not complete: {bad}"
truth = set(json.load(open(f"{tmp}/data/truth.json"))["members"])
got = set(open(f"{tmp}/run/final/Exam.GLOBIN.geneID.txt").read().split())
assert got == truth, f"members differ: {sorted(got ^ truth)}"
status = json.loads(subprocess.run([bin_, "genefamily", "status", f"{tmp}/run"], capture_output=True, text=True).stdout)
jobs = [a for a in status["attempts"] if a.get("argv")]
assert jobs and all(a["runner"] == "slurm" and a["job_id"] for a in jobs), jobs
print(f"ok: {len(jobs)} commands ran as Slurm jobs ({', '.join(sorted({a['job_id'] for a in jobs}))}); members match the truth")
PY
