#!/usr/bin/env bash
# Family classification versus TAPscan v4: the 53 Pfam profiles of the fixture
# (../shared/fixtures/genefamily/hmm/planttfhunter_PFAM_TF_domains.hmm) searched
# once over each of the three Ostreococcus proteomes, families assigned by the
# built-in rules, compared per family with TAPscan's own calls (output.3).
# Prints the per-family table (agree / only ours / only TAPscan, recall,
# precision) grouped by how far the profiles express each family, pooled
# figures per group, and the rules the profiles cannot express.
# Usage: classify_eval.sh BUILD_DIR [CPUS]
set -euo pipefail
build=$(cd "$1" && pwd)
cpus=${2:-2}
here=$(cd "$(dirname "$0")" && pwd)
fx="$here/../../shared/fixtures/genefamily"
hmm="$fx/hmm/planttfhunter_PFAM_TF_domains.hmm"
[ -f "$hmm" ] || { echo "SKIP: fixtures absent ($fx)"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
args=()
for sp in OSTLU OSTSP OSTTA; do
  args+=(--proteome "$fx/ostreococcus_tapscan_proteomes/$sp.fa.gz" --reference "$fx/ostreococcus_tapscan_proteomes/$sp.output.3")
done
t0=$(date +%s.%N)
"$build/bioagent" genefamily classify --hmm "$hmm" "${args[@]}" --out "$work" --cpus "$cpus" > "$work/out.txt"
t1=$(date +%s.%N)
# The table comes first, then the JSON summary.
sed -n '/^{/q;p' "$work/out.txt"
/usr/bin/python3 - "$work/out.txt" "$t0" "$t1" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
summary = json.loads(text[text.index("\n{") + 1:])
levels = summary["families"]
print("families by what the profiles express:",
      {k: sum(1 for v in levels.values() if v == k) for k in ("full", "rules", "required", "none")})
print("rules the profiles cannot express (domains without a profile):")
for rule, missing in sorted(summary["unexpressible_rules"].items()):
    print(f"  {rule}: {', '.join(missing)}")
for p in summary["proteomes"]:
    print(f"{p['proteome'].rsplit('/', 1)[-1]}: {p['classified']} proteins classified of {p['proteins_with_domains']} with domains")
print(f"threshold mode: {list(summary['threshold_mode'].values())[0]}")
print(f"wall time: {float(sys.argv[3]) - float(sys.argv[2]):.1f} s")
PY
