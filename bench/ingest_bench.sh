#!/usr/bin/env bash
# Benchmark (issue 5a): ingestion pages/s of our whole pipeline versus PyMuPDF
# plain text extraction on the same PDFs (../shared/fixtures/pdfs), one core
# each (pinned with taskset: our extraction thread and writer share the core),
# then ours on every core. Skips, saying so, when the fixtures are absent.
# Usage: ingest_bench.sh BUILD_DIR [REPEATS]
set -euo pipefail
build=$(cd "$1" && pwd)
repeats=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
pdfs="$here/../../shared/fixtures/pdfs"
if [ ! -d "$pdfs" ]; then
  echo "SKIP: fixtures absent ($pdfs)"
  exit 0
fi
mapfile -t files < <(find "$pdfs" -name '*.pdf' | sort)
cores=$(nproc)
one_core="taskset -c 0"
command -v taskset >/dev/null || one_core=""
read -r one pages < <($one_core "$build/bench/ingest_bench" 1 "$repeats" "${files[@]}")
read -r extract _ < <($one_core "$build/bench/ingest_bench" extract "$repeats" "${files[@]}")
read -r all _ < <("$build/bench/ingest_bench" "$cores" "$repeats" "${files[@]}")
read -r peer ppages < <($one_core /usr/bin/python3 "$here/ingest_peer.py" "$repeats" "${files[@]}")
/usr/bin/python3 - "$one" "$all" "$peer" "$pages" "$ppages" "$cores" "${#files[@]}" "$extract" <<'PY'
import sys
one, all_, peer = map(float, sys.argv[1:4])
pages, ppages, cores, nfiles = map(int, sys.argv[4:8])
extract = float(sys.argv[8])
print(f"Ingestion of {nfiles} PDFs, {pages} pages (median of runs)")
print(f"{'pipeline':52s}{'s':>8s}{'pages/s':>10s}")
print(f"{'bioagent papers add, 1 core (full extraction+indexes)':52s}{one:8.3f}{pages / one:10.1f}")
print(f"{'bioagent papers add, ' + str(cores) + ' cores':52s}{all_:8.3f}{pages / all_:10.1f}")
print(f"{'bioagent extraction alone (no database), 1 core':52s}{extract:8.3f}{pages / extract:10.1f}")
print(f"{'PyMuPDF page.get_text(), 1 core':52s}{peer:8.3f}{ppages / peer:10.1f}")
print(f"ratio on one core: {peer / one:.2f}x PyMuPDF (extraction alone {peer / extract:.2f}x); all cores: {peer / all_:.2f}x")
sys.exit(0 if pages == ppages else 1)
PY
