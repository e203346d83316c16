#!/usr/bin/env bash
# Benchmark (issue 8): our collinear-block detection versus MCScanX itself on
# the real Arabidopsis gene table (../shared/fixtures/genefamily/mcscanx_arabidopsis/at.gff)
# with homologous pairs derived from its gene families. MCScanX is built from
# its public source outside the repository (MCSCANX_SRC, a folder with its .cc
# files; never committed). Prints both times, the ratio and the overlap of the
# anchor pairs and blocks; then each gene's duplicate class from our synteny code
# (`--gene-types`) against MCScanX's duplicate_gene_classifier on the same hits
# (singleton, dispersed, proximal, tandem, WGD/segmental), as a confusion table.
# Usage: synteny_bench.sh BUILD_DIR [MCSCANX_SRC]
set -euo pipefail
build=$(cd "$1" && pwd)
src=${2:-${MCSCANX_SRC:-}}
here=$(cd "$(dirname "$0")" && pwd)
fx="$here/../../shared/fixtures/genefamily/mcscanx_arabidopsis"
[ -f "$fx/at.gff" ] || { echo "SKIP: fixtures absent ($fx)"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$fx/at.gff" "$work/at.gff"
/usr/bin/python3 "$here/gen_homology.py" "$fx/at_MCL_families.txt" "$work/at.blast"
now() { date +%s.%N; }
t0=$(now)
"$build/bioagent" genefamily collinearity --gff "$work/at.gff" --blast "$work/at.blast" --out "$work/ours.collinearity" \
  --gene-types "$work/ours.gene_type" 2>/dev/null
t1=$(now)
if [ -z "$src" ] || [ ! -f "$src/mcscan.cc" ]; then
  echo "ours: $(grep -c '^## Alignment' "$work/ours.collinearity") blocks in $(/usr/bin/python3 -c "print(f'{$t1 - $t0:.2f}')") s"
  echo "SKIP peer: set MCSCANX_SRC to a folder with MCScanX's source (fetch wyp1125/MCScanX)"
  exit 0
fi
( cd "$src" && [ -x MCScanX ] || g++ -O2 -w struct.cc mcscan.cc read_data.cc out_utils.cc dagchainer.cc msa.cc permutation.cc -o MCScanX )
( cd "$src" && [ -x duplicate_gene_classifier ] ||
  g++ -O2 -w struct.cc dup_classifier.cc read_data.cc out_utils.cc dagchainer.cc cls.cc permutation.cc -o duplicate_gene_classifier )
t2=$(now)
"$src/MCScanX" "$work/at" > /dev/null
t3=$(now)
"$src/duplicate_gene_classifier" "$work/at" > /dev/null
/usr/bin/python3 - "$work/ours.collinearity" "$work/at.collinearity" "$t0" "$t1" "$t2" "$t3" \
  "$work/ours.gene_type" "$work/at.gene_type" <<'PY'
import collections, sys
def read(path):
    blocks, cur = [], None
    for line in open(path):
        if line.startswith("## Alignment"):
            cur = set(); blocks.append(cur)
        elif cur is not None and line.strip() and not line.startswith("#"):
            f = line.split()
            a, b = (f[1], f[2]) if f[0].endswith(":") else (f[2], f[3])
            cur.add(tuple(sorted((a, b))))
    return blocks
ours, peer = read(sys.argv[1]), read(sys.argv[2])
t0, t1, t2, t3 = map(float, sys.argv[3:7])
pa, pb = set().union(*ours) if ours else set(), set().union(*peer) if peer else set()
both = pa & pb
matched = sum(1 for b in peer if any(len(b & o) >= len(b) / 2 for o in ours))
print("Collinear blocks on Arabidopsis (at.gff, family-derived homologs)")
print(f"{'tool':24s}{'blocks':>8s}{'anchors':>9s}{'seconds':>9s}")
print(f"{'bioagent':24s}{len(ours):8d}{len(pa):9d}{t1 - t0:9.2f}")
print(f"{'MCScanX':24s}{len(peer):8d}{len(pb):9d}{t3 - t2:9.2f}")
print(f"anchor pairs shared: {len(both)} ({len(both) / max(1, len(pb)):.0%} of MCScanX's, {len(both) / max(1, len(pa)):.0%} of ours)")
print(f"MCScanX blocks with at least half their anchors in one of ours: {matched} of {len(peer)} ({matched / max(1, len(peer)):.0%})")
print(f"time ratio: {(t3 - t2) / max(1e-9, t1 - t0):.2f}x MCScanX's speed")

# Duplicate classes: duplicate_gene_classifier's codes (0 singleton ... 4 WGD/segmental) for every gene.
names = ["singleton", "dispersed", "proximal", "tandem", "segmental"]
def types(path):
    out = {}
    for line in open(path):
        f = line.split()
        if len(f) == 2 and f[1].isdigit():
            out[f[0]] = int(f[1])
    return out
mine, theirs = types(sys.argv[7]), types(sys.argv[8])
genes = sorted(set(theirs) & set(mine))
conf = collections.Counter((theirs[g], mine[g]) for g in genes)
print(f"\nduplicate classes of {len(genes)} genes (rows MCScanX duplicate_gene_classifier, columns ours)")
print(f"{'':12s}" + "".join(f"{n:>11s}" for n in names) + f"{'agree':>8s}")
worst = 1.0
for i, n in enumerate(names):
    row = [conf[(i, j)] for j in range(5)]
    total = sum(row)
    share = row[i] / total if total else 1.0
    if total:
        worst = min(worst, share)
    print(f"{n:12s}" + "".join(f"{c:11d}" for c in row) + (f"{share:8.1%}" if total else f"{'-':>8s}"))
print(f"genes in the same class: {sum(conf[(i, i)] for i in range(5)) / max(1, len(genes)):.1%}; "
      f"worst class: {worst:.1%}")
missing = len(set(theirs) ^ set(mine))
if missing:
    print(f"genes classified by only one of the two: {missing}")
PY
