#!/usr/bin/env bash
# Benchmark (issue 5c): ViewImage (render only the asked page, or a clip, from
# the library) versus converting the whole PDF with pdftoppm at the same
# resolution, as the seed's reference does; same PDF (the longest fixture),
# median of REPEATS. Skips, saying so, when the fixtures are absent.
# Usage: view_image_bench.sh BUILD_DIR [REPEATS]
set -euo pipefail
build=$(cd "$1" && pwd)
repeats=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
pdfs="$here/../../shared/fixtures/pdfs"
if [ ! -d "$pdfs" ]; then
  echo "SKIP: fixtures absent ($pdfs)"
  exit 0
fi
pdf=$(/usr/bin/python3 -c '
import sys, fitz
best = max(sys.argv[1:], key=lambda f: fitz.open(f).page_count)
print(best)' $(find "$pdfs" -name '*.pdf'))
pages=$(/usr/bin/python3 -c 'import sys, fitz; print(fitz.open(sys.argv[1]).page_count)' "$pdf")
read -r full clip < <("$build/bench/view_image_bench" "$pdf" 3 "$repeats")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
peer=$(/usr/bin/python3 - "$pdf" "$repeats" "$work" <<'PY'
import subprocess, sys, time
pdf, repeats, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ms = []
for r in range(repeats):
    t = time.perf_counter()
    subprocess.run(["pdftoppm", "-png", "-r", "144", pdf, f"{work}/p{r}"], check=True)
    ms.append((time.perf_counter() - t) * 1000)
ms.sort()
print(f"{ms[len(ms) // 2]:.1f}")
PY
)
/usr/bin/python3 - "$full" "$clip" "$peer" "$pdf" "$pages" <<'PY'
import os, sys
full, clip, peer = map(float, sys.argv[1:4])
print(f"ViewImage on {os.path.basename(sys.argv[4])} ({sys.argv[5]} pages), 144 dpi, median")
print(f"{'path':44s}{'ms':>10s}")
print(f"{'bioagent ViewImage, page 3':44s}{full:10.1f}")
print(f"{'bioagent ViewImage, 300x200 pt clip':44s}{clip:10.1f}")
print(f"{'pdftoppm -png -r 144, whole PDF':44s}{peer:10.1f}")
print(f"ratio: {peer / full:.1f}x faster for a page, {peer / clip:.1f}x for a clip")
PY
