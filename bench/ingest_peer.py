#!/usr/bin/env python3
"""Peer for the ingestion benchmark: PyMuPDF (Debian python3-fitz) plain text
extraction of every page, one core. Prints the median seconds and the page count.
Usage: ingest_peer.py REPEATS FILE.pdf..."""
import sys, time
import fitz

repeats, files = int(sys.argv[1]), sys.argv[2:]
secs = []
for _ in range(repeats):
    t0 = time.perf_counter()
    pages = 0
    for f in files:
        with fitz.open(f) as doc:
            for page in doc:
                page.get_text()
                pages += 1
    secs.append(time.perf_counter() - t0)
secs.sort()
print(f"{secs[len(secs) // 2]:.4f} {pages}")
