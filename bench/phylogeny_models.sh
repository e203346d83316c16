#!/usr/bin/env bash
# Benchmark: IQ-TREE's full ModelFinder (546 protein models) against the
# phylogeny stage's restricted set (-mset LG,WAG,JTT,VT,Blosum62 -mrate G,I+G,R
# -cmax 4), each with UFBoot (-B 1000), on the same alignment: wall and CPU time
# of each (CPU time is what a loaded machine does not distort; the phylogeny
# stage's cost model, iqtree_expected_seconds, is fitted to it) and the clades
# each tree supports (UFBoot >= 95) that the other lacks.
# Usage: phylogeny_models.sh [ALIGNMENT.fasta] [CPUS]
#   Without an alignment: 60 globin-domain sequences sampled by hmmemit from
#   Debian's hmmer-examples profile, aligned with MAFFT (a family-sized input;
#   its clades are weak, so use a real family's alignment for the clade check).
set -euo pipefail
cpus=${2:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
aln=${1:-}
if [ -z "$aln" ]; then
  hmmemit -N 60 --seed 7 -o "$work/raw.fasta" /usr/share/doc/hmmer/examples/tutorial/globins4.hmm
  mafft --quiet --thread "$cpus" --threadit 0 --localpair --maxiterate 1000 "$work/raw.fasta" > "$work/aln.fasta"
  aln="$work/aln.fasta"
fi
seqs=$(grep -c '^>' "$aln")
echo "alignment: $aln ($seqs sequences)"
run() {  # name, extra iqtree2 options...
  local name=$1
  shift
  /usr/bin/time -f "%e %U %S" -o "$work/$name.time" \
    nice iqtree2 -s "$aln" -B 1000 -T "$cpus" --seed 12345 --prefix "$work/$name" -redo -quiet "$@" > /dev/null
  local model
  model=$(grep -m1 'Best-fit model' "$work/$name.iqtree" | sed 's/.*: //')
  read -r wall user sys < "$work/$name.time"
  printf '%-12s wall %7.1f s  CPU %7.1f s  model %s\n' "$name" "$wall" "$(echo "$user + $sys" | bc)" "$model"
}
run full -m MFP
run restricted -m MFP -mset LG,WAG,JTT,VT,Blosum62 -mrate G,I+G,R -cmax 4
python3 - "$work/full.treefile" "$work/restricted.treefile" <<'PY'
import re, sys

def splits(path, min_support):
    text = open(path).read().strip().rstrip(";")
    leaves, stack, out = [], [[]], []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "(":
            stack.append([]); i += 1
        elif c == ")":
            members = stack.pop(); stack[-1].extend(members); i += 1
            m = re.match(r"([^,():;]*)(:[0-9.eE+-]+)?", text[i:])
            label = m.group(1); i += m.end()
            sup = label.split("/")[-1]
            if sup and float(sup) >= min_support: out.append(frozenset(members))
        elif c == ",":
            i += 1
        else:
            m = re.match(r"([^,():;]+)(:[0-9.eE+-]+)?", text[i:])
            leaves.append(m.group(1)); stack[-1].append(m.group(1)); i += m.end()
    every = frozenset(leaves)
    canon = lambda s: min(s, every - s, key=lambda x: sorted(x))  # unrooted: a split and its complement
    return {canon(s) for s in out if 1 < len(s) < len(every) - 1}

full, restricted = splits(sys.argv[1], 95), splits(sys.argv[2], 95)
full_all, restricted_all = splits(sys.argv[1], 0), splits(sys.argv[2], 0)
print(f"clades with UFBoot >= 95: full {len(full)}, restricted {len(restricted)}")
print(f"well-supported clades of the full run missing from the restricted tree: {len(full - restricted_all)}")
print(f"well-supported clades of the restricted run missing from the full tree: {len(restricted - full_all)}")
print(f"Robinson-Foulds distance between the trees: {len(full_all ^ restricted_all)}")
PY
