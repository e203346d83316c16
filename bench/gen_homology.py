#!/usr/bin/env python3
"""Homologous pairs for the collinearity benchmark, from gene families (one
family per line, tab-separated, first field a family number) as a BLAST -m 8
table: each gene gets at most 5 partners of its family (chosen and scored
deterministically), like a top-5 BLASTP run. Usage: gen_homology.py FAMILIES OUT"""
import hashlib, sys

families, out = sys.argv[1], sys.argv[2]
def h(*parts):
    return int(hashlib.sha256("|".join(parts).encode()).hexdigest()[:12], 16)
with open(out, "w") as o:
    for line in open(families):
        genes = line.split()[1:]
        for g in genes:
            others = sorted((x for x in genes if x != g), key=lambda x: h(g, x) if g < x else h(x, g))[:5]
            for x in others:
                k = h(min(g, x), max(g, x))
                e = 10 ** -(20 + k % 150)
                o.write(f"{g}\t{x}\t80.0\t300\t20\t1\t1\t300\t1\t300\t{e:.1e}\t{200 + k % 500}\n")
