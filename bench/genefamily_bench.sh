#!/usr/bin/env bash
# Benchmark (issue 7): the gene-family pipeline end to end on the generated
# example genome. Cold run of `bioagent genefamily run` versus a plain
# sequential script calling the same tools with the same parameters
# (hmmsearch, MAFFT L-INS-i, IQ-TREE 2 or FastTree; python3 for the glue), then
# a warm re-run of ours (target: at most 5% of the cold time).
# Usage: genefamily_bench.sh BUILD_DIR [iqtree|fasttree] [CPUS]
set -euo pipefail
build=$(cd "$1" && pwd)
method=${2:-iqtree}
cpus=${3:-$(nproc)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin="$build/bioagent"
"$bin" genefamily example "$work/data" > /dev/null
now() { date +%s.%N; }

# The same tools, one after another (a function: run once untimed first, so
# that neither side pays for loading the tools from disk).
baseline() {
  local b="$1"
  mkdir -p "$b" && cd "$b"
  hmmsearch --domtblout hits.domtbl --noali -E 1e-5 --domE 1e-3 --cpu "$cpus" -o /dev/null \
    "$work/data/GLOBIN.hmm" "$work/data/Exam.pep.fasta"
  /usr/bin/python3 - "$work/data/Exam.pep.fasta" <<'PY'
import sys
seqs, name = {}, None
for line in open(sys.argv[1]):
    if line.startswith(">"):
        name = line[1:].split()[0]; gene = line.split("gene=")[1].split()[0]; seqs[name] = [gene, ""]
    else:
        seqs[name][1] += line.strip()
best = {}
for row in open("hits.domtbl"):
    if row.startswith("#"): continue
    f = row.split()
    if float(f[6]) <= 1e-5:
        gene, seq = seqs[f[0]]
        if gene not in best or len(seq) > len(best[gene]): best[gene] = seq
with open("members.fasta", "w") as out:
    for gene, seq in sorted(best.items()): out.write(f">{gene}\n{seq}\n")
PY
  mafft --thread "$cpus" --threadit 0 --quiet --localpair --maxiterate 1000 members.fasta > aln.fasta
  /usr/bin/python3 - <<'PY'
recs, name = {}, None
for line in open("aln.fasta"):
    if line.startswith(">"): name = line[1:].strip(); recs[name] = ""
    else: recs[name] += line.strip()
cols = len(next(iter(recs.values())))
keep = [c for c in range(cols) if sum(s[c] == "-" for s in recs.values()) / len(recs) <= 0.5]
with open("trimmed.fasta", "w") as out:
    for n, s in recs.items(): out.write(f">{n}\n{''.join(s[c] for c in keep)}\n")
PY
  if [ "$method" = fasttree ]; then
    FastTree -quiet trimmed.fasta > tree.nwk
  else
    iqtree2 -s trimmed.fasta -m MFP -B 1000 -T "$cpus" --prefix tree --seed 12345 -redo > /dev/null
  fi
  cd "$work"
}
baseline "$work/warmup" > /dev/null 2>&1
# Alternating repetitions, medians reported: MAFFT and IQ-TREE vary by a few
# per cent from run to run, as much as the engine's own cost.
reps=${REPS:-3}
: > "$work/times"
for i in $(seq "$reps"); do
  t0=$(now)
  # The stages that do what the script does: identify and phylogeny.
  "$bin" genefamily run --data "$work/data" --run-dir "$work/run$i" --cpus "$cpus" --stages phylogeny \
    --params "{\"phylogeny\": {\"method\": \"$method\"}}" > "$work/ours.json" 2> /dev/null
  t1=$(now)
  "$bin" genefamily run --data "$work/data" --run-dir "$work/run$i" --cpus "$cpus" --stages phylogeny \
    --params "{\"phylogeny\": {\"method\": \"$method\"}}" > /dev/null 2>&1
  t2=$(now)
  baseline "$work/baseline$i"
  t3=$(now)
  echo "$t0 $t1 $t2 $t3" >> "$work/times"
done
/usr/bin/python3 - "$work/times" "$method" "$cpus" "$work/ours.json" <<'PY'
import json, statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
ours = json.load(open(sys.argv[4]))
ok = all(s["state"] in ("done", "warn") for s in ours["stages"])  # warn: ran, a check (support) below threshold
cold = statistics.median(r[1] - r[0] for r in rows)
warm = statistics.median(r[2] - r[1] for r in rows)
base = statistics.median(r[3] - r[2] for r in rows)
print(f"Gene-family pipeline on the example genome ({sys.argv[2]}, {sys.argv[3]} CPUs, median of {len(rows)})")
print(f"{'run':52s}{'s':>9s}")
print(f"{'bioagent genefamily run, cold (identify + phylogeny)':52s}{cold:9.2f}")
print(f"{'sequential script, same tools and parameters':52s}{base:9.2f}")
print(f"{'bioagent genefamily run, warm re-run':52s}{warm:9.2f}")
print(f"ratio: {base / cold:.2f}x the script's speed; warm re-run = {100 * warm / cold:.1f}% of cold (target <= 5%)")
sys.exit(0 if ok and warm <= 0.05 * cold + 0.5 else 1)
PY
