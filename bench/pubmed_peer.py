#!/usr/bin/env python3
"""Peer of our PubMed parser: Biopython's Entrez.read on the same EFetch XML.

Usage: pubmed_peer.py FILE REPEATS OURS.tsv
Prints 'median_ms same': Entrez.read time (median of REPEATS), and whether
pmid, DOI, title and author count agree with ours for every record.
"""
import statistics
import sys
import time

from Bio import Entrez

path, repeats, ours = sys.argv[1], int(sys.argv[2]), sys.argv[3]
times, records = [], None
for _ in range(repeats):
    t0 = time.perf_counter()
    with open(path, "rb") as f:
        records = Entrez.read(f)
    times.append((time.perf_counter() - t0) * 1000)
theirs = []
for a in records["PubmedArticle"]:
    mc = a["MedlineCitation"]
    doi = next((str(i) for i in a["PubmedData"]["ArticleIdList"] if i.attributes.get("IdType") == "doi"), "")
    theirs.append((str(mc["PMID"]), doi, str(mc["Article"]["ArticleTitle"]), len(mc["Article"].get("AuthorList", []))))
mine = []
with open(ours) as f:
    for line in f:
        pmid, doi, title, n_auth, _ = line.rstrip("\n").split("\t")
        mine.append((pmid, doi, title, int(n_auth)))
same = mine == theirs
if not same:
    for a, b in zip(mine, theirs):
        if a != b:
            print(f"differs: ours {a} theirs {b}", file=sys.stderr)
            break
print(f"{statistics.median(times):.1f} {'yes' if same else 'NO'}")
