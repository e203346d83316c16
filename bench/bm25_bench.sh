#!/usr/bin/env bash
# Benchmark (issue 5b): BM25 top-10 latency over N chunks, ours (Xapian, the
# engine of text_bm25_en) versus SQLite FTS5 bm25() through python3's sqlite3,
# same synthetic chunks and queries in one run; build seconds, p50/p95 and
# ours/FTS5 ratios, the share of queries whose two top-10 id sets are
# identical, and the id overlap.
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
# "Same top-10": the two engines return the identical set of ids for a query
# (order may differ only among equal scores).
same = sum(set(a) == set(b) for a, b in zip(ours, peer)) / max(1, len(peer))
print(f"BM25 top-10 over {n} chunks, {q} queries")
print(f"{'engine':36s}{'build s':>9s}{'p50 ms':>9s}{'p95 ms':>9s}")
print(f"{'bioagent text_bm25_en (Xapian)':36s}{ob:9.2f}{o50:9.3f}{o95:9.3f}")
print(f"{'SQLite FTS5 bm25() (python3)':36s}{pb:9.2f}{p50:9.3f}{p95:9.3f}")
print(f"ours / FTS5: build {ob / pb:.2f}x, p50 {o50 / p50:.2f}x, p95 {o95 / p95:.2f}x")
print(f"top-10: identical id sets for {same:.1%} of queries; id overlap {overlap:.1%}")
# The gate: the engines agree (stemming and ties at rank 10 account for the rest).
sys.exit(0 if same >= 0.9 and overlap >= 0.95 else 1)
PY
