#!/usr/bin/env python3
"""Writes a synthetic executed notebook for the notebook-reader benchmark.

Usage: gen_notebook.py OUT.ipynb [N_CELLS]
A realistic mix: markdown, code with stdout/stderr streams, tables as
text/plain + text/html, figures as base64 PNG (every 10th code cell), JSON
results, and errors with ANSI-coloured tracebacks (every 50th code cell).
"""
import base64
import json
import random
import sys

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
rng = random.Random(42)
genes = [f"LcSPL{i}" for i in range(1, 17)] + ["AtSPL9", "OsSPL14", "SlSBP3", "ZmTGA1"]


def table(rows):
    lines = ["      gene   log2FC      pvalue        padj"]
    for i in range(rows):
        g = rng.choice(genes)
        lines.append(f"{i:4d}  {g:8s} {rng.uniform(-6, 6):8.3f} {rng.random() / 100:11.3e} {rng.random() / 10:11.3e}")
    return "\n".join(lines)


cells = []
for i in range(n):
    if i % 5 == 0:
        cells.append({"cell_type": "markdown", "id": f"m{i}", "metadata": {},
                      "source": [f"## Step {i}: differential expression of the SPL family\n",
                                 "Genes with padj < 0.05 are kept; fold changes are log2.\n"]})
        continue
    src = [f"res_{i} = deseq(counts[{i % 17}], design='~ condition')\n",
           f"print(res_{i}.summary())\n", f"res_{i}.head({5 + i % 10})"]
    outputs = [{"output_type": "stream", "name": "stdout",
                "text": [f"out of {rng.randint(1000, 30000)} with nonzero total read count\n",
                         f"adjusted p-value < 0.1\nLFC > 0 (up): {rng.randint(0, 500)}\n"]}]
    if i % 7 == 0:
        outputs.append({"output_type": "stream", "name": "stderr",
                        "text": "\x1b[33mWarning\x1b[0m: 12 genes had zero counts in all samples\n"})
    t = table(5 + i % 10)
    outputs.append({"output_type": "execute_result", "execution_count": i, "metadata": {},
                    "data": {"text/plain": t.splitlines(True),
                             "text/html": ["<table>" + "".join(f"<tr><td>{l}</td></tr>" for l in t.splitlines()) + "</table>"]}})
    if i % 10 == 3:
        payload = base64.b64encode(rng.randbytes(24000)).decode()
        outputs.append({"output_type": "display_data", "metadata": {},
                        "data": {"image/png": payload, "text/plain": ["<Figure size 640x480 with 1 Axes>"]}})
    if i % 10 == 6:
        outputs.append({"output_type": "execute_result", "execution_count": i, "metadata": {},
                        "data": {"application/json": {"n_up": rng.randint(0, 99), "n_down": rng.randint(0, 99),
                                                      "genes": rng.sample(genes, 4)}}})
    if i % 50 == 11:
        outputs.append({"output_type": "error", "ename": "KeyError", "evalue": "'padj'",
                        "traceback": ["\x1b[0;31m---------------------------------------------------------------\x1b[0m",
                                      "\x1b[0;31mKeyError\x1b[0m                 Traceback (most recent call last)",
                                      f"Cell \x1b[0;32mIn[{i}], line 3\x1b[0m\n----> 3 res_{i}.loc[:, 'padj']",
                                      "\x1b[0;31mKeyError\x1b[0m: 'padj'"]})
    cells.append({"cell_type": "code", "execution_count": i, "id": f"c{i}", "metadata": {}, "source": src,
                  "outputs": outputs})

nb = {"nbformat": 4, "nbformat_minor": 5,
      "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
      "cells": cells}
with open(out, "w") as f:
    json.dump(nb, f, indent=1)
