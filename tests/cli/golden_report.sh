#!/usr/bin/env bash
# Golden files (as htslib's _exp files): the example genome's report, in English
# and Chinese, run end to end with FastTree, compared line by line with
# tests/data/golden/. What a run cannot repeat is masked first: the timeline
# (wall-clock times) and the provenance table (seconds, finishing order, the
# machine's tool versions). A change to what the report says shows as a diff;
# when it is meant, rewrite the golden files with --update and review the diff
# in the commit.
# Usage: golden_report.sh BIOAGENT_BINARY SOURCE_DIR [--update]
set -euo pipefail
bin=$1 src=$2 update=${3:-}
golden=$src/tests/data/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A cache of this test's own: the English run computes the all-against-all DIAMOND search and the
# Chinese run reuses it, whatever other tests or runs left in the user's cache (the report says which).
export BIOAGENT_CACHE_DIR="$tmp/cache"
for tool in hmmsearch mafft FastTree diamond yn00; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (scripts/setup.sh installs it)"; exit 0; }
done
"$bin" genefamily example "$tmp/data" > /dev/null
mask() {  # report.md -> the lines a run repeats
  /usr/bin/python3 - "$1" <<'PY'
import sys
table = False
for line in open(sys.argv[1], encoding="utf-8"):
    if line.startswith(("Timeline:", "时间线：", "时间线:")):
        continue
    if line.startswith("| stage | command |") or line.startswith("| 阶段 | 命令 |"):
        table = True
        print(line, end="")
        continue
    if table and line.startswith("|"):
        if not line.startswith("|---") and not line.startswith("| ---"):
            continue
    else:
        table = False
    print(line, end="")
PY
}
failed=0
for lang in en zh; do
  "$bin" --offline genefamily run --data "$tmp/data" --cpus 2 --run-dir "$tmp/run_$lang" --lang "$lang" \
    --params '{"phylogeny": {"method": "fasttree"}}' > /dev/null 2> "$tmp/run_$lang.log" ||
    { echo "FAIL: the $lang run failed"; tail -5 "$tmp/run_$lang.log"; exit 1; }
  # Every count the report states agrees with the run's own tables (and a stage not run says so).
  /usr/bin/python3 "$src/tests/cli/report_numbers_check.py" "$tmp/run_$lang" > "$tmp/numbers_$lang.txt" ||
    { echo "FAIL: the $lang report's numbers disagree with its tables:"; grep FAIL "$tmp/numbers_$lang.txt"; failed=1; }
  mask "$tmp/run_$lang/final/Exam.GLOBIN.report.md" > "$tmp/report_$lang.md"
  want=$golden/example_report_$lang.md
  if [ "$update" = "--update" ]; then
    mkdir -p "$golden"
    cp "$tmp/report_$lang.md" "$want"
    echo "updated $want"
  elif ! diff -u "$want" "$tmp/report_$lang.md" > "$tmp/diff_$lang"; then
    echo "FAIL: the $lang report differs from $want:"
    head -60 "$tmp/diff_$lang"
    failed=1
  else
    echo "ok: the $lang report matches $(basename "$want") ($(wc -l < "$want") lines)"
  fi
done
exit $failed
