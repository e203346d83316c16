#!/usr/bin/env bash
# Benchmark (issue 3): read a ROWS x 20 sheet written by libxlsxwriter with our
# reader, with openpyxl (read_only=True) and with pandas.read_excel, in one run;
# check that the cell values agree; print the times and the ratios.
# Usage: xlsx_bench.sh BUILD_DIR [ROWS] [REPEATS]
set -euo pipefail
build=$(cd "$1" && pwd)
rows=${2:-100000}
repeats=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
file="$work/bench_${rows}x20.xlsx"
"$build/bench/make_bench_xlsx" "$file" "$rows"
ours=$("$build/bench/xlsx_read" "$file" "$repeats" "$work/ours.jsonl")
read -r opx pdx same < <(/usr/bin/python3 "$here/xlsx_peers.py" "$file" "$repeats" "$work/ours.jsonl")
/usr/bin/python3 - "$ours" "$opx" "$pdx" "$same" "$rows" "$(stat -c %s "$file")" <<'PY'
import sys
ours, opx, pdx = map(float, sys.argv[1:4])
same, rows, size = sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
print(f"sheet: {rows} rows x 20 columns ({rows * 20} cells), {size / 1e6:.1f} MB, written by libxlsxwriter")
print(f"{'reader':34s}{'median ms':>12s}{'ours faster by':>16s}")
print(f"{'bioagent read_xlsx':34s}{ours:12.1f}{'':>16s}")
print(f"{'openpyxl (read_only=True)':34s}{opx:12.1f}{opx / ours:15.1f}x")
print(f"{'pandas.read_excel':34s}{pdx:12.1f}{pdx / ours:15.1f}x")
print(f"same cell values as openpyxl: {same}")
sys.exit(0 if same == "yes" else 1)
PY
