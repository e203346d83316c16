#!/usr/bin/env bash
# Benchmark (issue 5b): BM25 top-10 latency over N chunks, ours (Xapian, the
# engine of text_bm25_en) versus SQLite FTS5 bm25() through python3's sqlite3,
# same synthetic chunks and queries in one run; p50/p95 and the ratio, plus the
# overlap of the two top-10 lists.
# Usage: bm25_bench.sh BUILD_DIR [N_CHUNKS] [N_QUERIES]
set -euo pipefail
build=$(cd "$1" && pwd)
n=${2:-200000}
q=${3:-200}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$here/gen_chunks.py" "$work" "$n" "$q"
read -r ob o50 o95 < <("$build/bench/bm25_search" "$work/chunks.tsv" "$work/queries.txt" "$work/ours.txt" "$work/xapian")
read -r pb p50 p95 < <(/usr/bin/python3 "$here/bm25_peer.py" "$work/chunks.tsv" "$work/queries.txt" "$work/peer.txt")
/usr/bin/python3 - "$work/ours.txt" "$work/peer.txt" "$n" "$q" "$ob" "$o50" "$o95" "$pb" "$p50" "$p95" <<'PY'
import sys
ours = [l.split() for l in open(sys.argv[1])]
peer = [l.split() for l in open(sys.argv[2])]
n, q = int(sys.argv[3]), int(sys.argv[4])
ob, o50, o95, pb, p50, p95 = map(float, sys.argv[5:11])
overlap = sum(len(set(a) & set(b)) for a, b in zip(ours, peer)) / max(1, sum(len(b) for b in peer))
print(f"BM25 top-10 over {n} chunks, {q} queries")
print(f"{'engine':36s}{'build s':>9s}{'p50 ms':>9s}{'p95 ms':>9s}")
print(f"{'bioagent text_bm25_en (Xapian)':36s}{ob:9.2f}{o50:9.3f}{o95:9.3f}")
print(f"{'SQLite FTS5 bm25() (python3)':36s}{pb:9.2f}{p50:9.3f}{p95:9.3f}")
print(f"ratio p50: {p50 / o50:.1f}x, p95: {p95 / o95:.1f}x faster; top-10 overlap with FTS5: {overlap:.0%}")
sys.exit(0 if overlap >= 0.6 else 1)
PY
