#!/usr/bin/env python3
"""The peer of read_executed_notebook: the same extraction in Python with json.

Usage: notebook_peer.py NOTEBOOK REPEATS SEARCH MAX_CHARS [OUT.json]
Prints the median in-process time (ms) of load + extract over REPEATS runs,
after interpreter start-up and imports, and optionally writes the result.
With REPEATS 0 it behaves like the CLI tool: extract once and print the result
as indented JSON on stdout (what `bioagent tools run` does).
"""
import json
import re
import statistics
import sys
import time

ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.")


def text(v):
    return "".join(v) if isinstance(v, list) else (v if isinstance(v, str) else "")


def output_text(o):
    t = o.get("output_type")
    if t == "stream":
        return ANSI.sub("", text(o.get("text", "")))
    if t == "error":
        s = f"{text(o.get('ename', ''))}: {text(o.get('evalue', ''))}"
        for line in o.get("traceback", []):
            s += "\n" + ANSI.sub("", line)
        return s
    data = o.get("data")
    if not isinstance(data, dict):
        return ""
    s = ""
    for mime in ("text/plain", "text/html"):
        if mime in data:
            s = text(data[mime])
            break
    if not s and "application/json" in data:
        s = json.dumps(data["application/json"], separators=(",", ":"))
    for k in data:
        if k.startswith("image/"):
            s += ("\n" if s else "") + f"[{k}]"
    return s


def trunc(s, n):
    if len(s) <= n:
        return s
    return s[:n] + f"... [truncated: {n} of {len(s)} characters shown]"


def extract(path, search, max_chars):
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    terms = [t.strip().lower() for t in search.split(",") if t.strip()]
    cells, matching = [], []
    for idx, cell in enumerate(nb["cells"]):
        src = text(cell.get("source", ""))
        out = ""
        for o in cell.get("outputs", []):
            t = output_text(o)
            if t:
                if out and not out.endswith("\n"):
                    out += "\n"
                out += t
        c = {"idx": idx, "type": cell.get("cell_type", "unknown"), "source": trunc(src, max_chars),
             "output": trunc(out, max_chars)}
        if terms and any(t in src.lower() or t in out.lower() for t in terms):
            matching.append(c)
        cells.append(c)
    return {"notebook_path": path, "total_cells": len(cells), "cells": cells, "search": search or None,
            "matching_cells": matching, "n_matches": len(matching)}


def main():
    path, repeats, search, max_chars = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    if repeats == 0:
        json.dump({"status": "success", "data": extract(path, search, max_chars)}, sys.stdout, indent=2)
        return
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = extract(path, search, max_chars)
        times.append((time.perf_counter() - t0) * 1000)
    if len(sys.argv) > 5:
        with open(sys.argv[5], "w") as f:
            json.dump(result, f)
    print(f"{statistics.median(times):.3f}")


main()
