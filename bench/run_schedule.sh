#!/usr/bin/env bash
# The scheduler against the run's own critical path: a full run of the generated
# example genome (IQ-TREE by default) on CPUS cores, its wall time beside the
# longest chain of the stage graph (each stage's measured seconds along the
# `after`/`uses` edges of the stages that ran), and when each figure-making stage
# finished relative to the phylogeny stage (the ones that do not need the tree
# must finish while it runs). Exit 1 when the wall exceeds the chain by more than
# SLACK seconds (default 5: process start, the naming check, validation) or a
# figure that does not need the tree came after it.
# Usage: run_schedule.sh BUILD_DIR [iqtree|fasttree] [CPUS]
set -euo pipefail
build=$(cd "$1" && pwd)
method=${2:-iqtree}
cpus=${3:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin="$build/bioagent"
export BIOAGENT_HOME="$work/home"
"$bin" genefamily example "$work/data" > /dev/null
"$bin" genefamily stages > "$work/stages.json"
t0=$(date +%s.%N)
"$bin" genefamily run --data "$work/data" --run-dir "$work/run" --cpus "$cpus" \
  --params "{\"phylogeny\": {\"method\": \"$method\"}}" > "$work/run.json" 2> "$work/events.txt" || true
t1=$(date +%s.%N)
/usr/bin/python3 - "$work/stages.json" "$work/run.json" "$work/events.txt" "$t0" "$t1" "$method" "$cpus" "${SLACK:-5}" <<'PY'
import json, sys
table = {s["name"]: s for s in json.load(open(sys.argv[1]))}
run = json.load(open(sys.argv[2]))
events = open(sys.argv[3]).read().splitlines()
wall = float(sys.argv[5]) - float(sys.argv[4])
secs = {s["stage"]: s["seconds"] for s in run["stages"]}
ran = {s["stage"] for s in run["stages"] if s["state"] in ("done", "warn", "failed")}
memo = {}
def chain(n):  # the longest path ending at n through stages that ran
    if n not in memo:
        ups = [u for u in table[n]["after"] + table[n]["uses"] if u in ran]
        memo[n] = secs.get(n, 0) + max((chain(u) for u in ups), default=0)
    return memo[n]
longest = max((chain(n) for n in ran), default=0)
def finished_line(stage):  # the line of the event that ended the stage
    for i, l in enumerate(events):
        if f"] {stage}: " in l and any(f"{stage}: {s}" in l for s in ("done", "warn", "skipped", "failed")):
            return i
    return None
tree = finished_line("phylogeny")
beside = ["structure", "motif", "chromosome", "synteny"]
late = [s for s in beside if tree is not None and (finished_line(s) or 10**9) > tree]
print(f"Scheduling on the example genome ({sys.argv[6]}, {sys.argv[7]} CPUs)")
print(f"  state: {run['state']}; stages that ran: {len(ran)}")
print(f"  wall (the whole command): {wall:.1f} s; longest chain of measured stages: {longest:.1f} s; "
      f"ratio {wall / longest if longest else 0:.2f}")
print(f"  phylogeny {secs.get('phylogeny', 0):.1f} s; finished before it: "
      + ", ".join(s for s in beside if s not in late) + (f"; after it: {', '.join(late)}" if late else ""))
ok = run["state"] == "done" and not late and wall <= longest + float(sys.argv[8])
sys.exit(0 if ok else 1)
PY
