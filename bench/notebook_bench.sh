#!/usr/bin/env bash
# Benchmark (issue 2): read_executed_notebook versus the same extraction in Python
# with json, on one generated executed notebook, in one run. Prints both times and
# the ratio, in-process (load + extract) and end to end (process start included),
# and checks that both produce the same cells.
# Usage: notebook_bench.sh BUILD_DIR [N_CELLS] [REPEATS]
set -euo pipefail
build=$(cd "$1" && pwd)
cells=${2:-5000}
repeats=${3:-7}
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nb="$work/bench_${cells}_executed.ipynb"
$py "$here/gen_notebook.py" "$nb" "$cells"
size=$(stat -c %s "$nb")
search="keyerror,LcSPL16"

ours=$("$build/bench/notebook_bench" "$nb" "$repeats" "$search" 400 "$work/ours.json")
peer=$($py "$here/notebook_peer.py" "$nb" "$repeats" "$search" 400 "$work/peer.json")

# End to end: the CLI tool call versus the Python script, both printing the
# result as indented JSON, median of REPEATS.
e2e() {
  local t=()
  for _ in $(seq "$repeats"); do
    local s e; s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); t+=($(( (e - s) / 1000 )))
  done
  printf '%s\n' "${t[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]/1000}'
}
args="{\"notebook_path\":\"$nb\",\"search\":\"$search\"}"
ours_e2e=$(e2e "$build/bioagent" --root "$work" tools run read_executed_notebook --args "$args")
peer_e2e=$(e2e $py "$here/notebook_peer.py" "$nb" 0 "$search" 400)

$py - "$work/ours.json" "$work/peer.json" "$ours" "$peer" "$ours_e2e" "$peer_e2e" "$cells" "$size" <<'PY'
import json, sys
ours, peer = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
o, p, oe, pe = map(float, sys.argv[3:7])
cells, size = int(sys.argv[7]), int(sys.argv[8])
same = ours["cells"] == peer["cells"] and ours["n_matches"] == peer["n_matches"]
print(f"notebook: {cells} cells, {size / 1e6:.1f} MB, search 'keyerror,LcSPL16', {ours['n_matches']} matches")
print(f"{'':28s}{'bioagent':>12s}{'python json':>14s}{'ratio':>9s}")
print(f"{'load + extract (median ms)':28s}{o:12.1f}{p:14.1f}{p / o:8.1f}x")
print(f"{'end to end (median ms)':28s}{oe:12.1f}{pe:14.1f}{pe / oe:8.1f}x")
print(f"same cells and matches: {'yes' if same else 'NO'}")
if not same:
    for a, b in zip(ours["cells"], peer["cells"]):
        if a != b:
            print("first difference:", json.dumps(a)[:300], "\n               vs", json.dumps(b)[:300])
            break
    sys.exit(1)
PY
