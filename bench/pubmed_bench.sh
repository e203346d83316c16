#!/usr/bin/env bash
# Benchmark (issue 4b): parse N PubMed EFetch records with our parser and with
# Biopython's Entrez.read (Debian python3-biopython), same file, one run;
# check the records agree; print both times and the ratio.
# Usage: pubmed_bench.sh BUILD_DIR [N] [REPEATS]
set -euo pipefail
build=$(cd "$1" && pwd)
n=${2:-10000}
repeats=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$here/gen_pubmed.py" "$work/efetch.xml" "$n"
ours=$("$build/bench/pubmed_parse" "$work/efetch.xml" "$repeats" "$work/ours.tsv")
read -r peer same < <(/usr/bin/python3 "$here/pubmed_peer.py" "$work/efetch.xml" "$repeats" "$work/ours.tsv")
/usr/bin/python3 - "$ours" "$peer" "$same" "$n" "$(stat -c %s "$work/efetch.xml")" <<'PY'
import sys
ours, peer = float(sys.argv[1]), float(sys.argv[2])
same, n, size = sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
print(f"PubMed EFetch XML: {n} records, {size / 1e6:.1f} MB")
print(f"{'parser':34s}{'median ms':>12s}")
print(f"{'bioagent parse_pubmed_efetch':34s}{ours:12.1f}")
print(f"{'Biopython Entrez.read':34s}{peer:12.1f}")
print(f"ratio: {peer / ours:.1f}x faster; same pmid/doi/title/author count: {same}")
sys.exit(0 if same == "yes" else 1)
PY
