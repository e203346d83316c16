#!/usr/bin/env python3
"""Peer for the BM25 benchmark: SQLite FTS5 with bm25() through Python's sqlite3
(default unicode61 tokenizer), the same chunks and queries. Prints build seconds,
p50 and p95 query milliseconds, and writes the top-10 ids per query.
Usage: bm25_peer.py CHUNKS.tsv QUERIES.txt TOP10_OUT"""
import sqlite3, sys, time

chunks, queries, top_out = sys.argv[1:4]
db = sqlite3.connect(":memory:")
db.execute("CREATE VIRTUAL TABLE t USING fts5(key UNINDEXED, body)")
t0 = time.perf_counter()
with open(chunks) as f:
    db.executemany("INSERT INTO t VALUES (?, ?)", (line.rstrip("\n").split("\t", 1) for line in f))
db.commit()
build = time.perf_counter() - t0
times = []
with open(queries) as f, open(top_out, "w") as out:
    for q in f:
        expr = " OR ".join(q.split())
        t = time.perf_counter()
        rows = db.execute("SELECT key FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 10", (expr,)).fetchall()
        times.append((time.perf_counter() - t) * 1000)
        out.write(" ".join(r[0] for r in rows) + "\n")
times.sort()
print(f"{build:.2f} {times[len(times) // 2]:.3f} {times[int(len(times) * 0.95)]:.3f}")
