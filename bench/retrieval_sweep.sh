#!/usr/bin/env bash
# Chooses ClassicRetrieve's ranking settings (bench/retrieval_sweep.json lists
# the candidates) on the tuning questions only: the tuning half of the labelled
# dev set (a), and with RETRIEVAL_SWEEP_SETS="a c d" also the real-paper tuning
# sets (c) and (d) (their PDFs fetched as bench/retrieval_eval.sh does), all in
# one library. Coordinate ascent from the settings in
# src/papers/paper_tools.json, keeping a value when it raises MRR over those
# questions (ties: recall@5, then the value held). Validation, independent and
# set (b) questions are never read by the sweep. Prints every candidate's
# scores and the chosen settings; copying them into paper_tools.json is a
# reviewed edit (docs/evaluation.md records the last sweep).
# Skips, saying so, when the fixtures are absent.
# Usage: retrieval_sweep.sh BUILD_DIR [GRID.json] [QUESTIONS.jsonl]
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
grid=${2:-$here/retrieval_sweep.json}
questions=${3:-$here/../tests/data/paper_qa_dev.jsonl}
pdfs="${BIOAGENT_FIXTURES_DIR:-$here/../../shared/fixtures}/pdfs"
if [ ! -d "$pdfs" ]; then
  echo "SKIP: fixtures absent ($pdfs)"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cache=${BIOAGENT_CACHE_DIR:-${XDG_CACHE_HOME:+$XDG_CACHE_HOME/bioagent}}
cache=${cache:-$HOME/.cache/bioagent}
dirs=("$pdfs")
cp "$questions" "$work/questions.jsonl"
# The real-paper tuning sets asked for: every question of theirs is a tuning question.
for set in ${RETRIEVAL_SWEEP_SETS:-a}; do
  case "$set" in
    c) dir=${BIOAGENT_REAL_PAPERS_DEV_DIR:-$cache/real_papers_dev} qs=paper_qa_real_dev ;;
    d) dir=${BIOAGENT_REAL_PAPERS_DEV2_DIR:-$cache/real_papers_dev2} qs=paper_qa_real_dev2 ;;
    *) continue ;;
  esac
  if ! bash "$here/fetch_real_papers.sh" "$dir" "$here/../tests/data/${qs}_sources.tsv" >"$work/fetch_$set.log" 2>&1; then
    echo "set ($set): SKIP: its papers could not be fetched into $dir: $(tail -1 "$work/fetch_$set.log")"
    continue
  fi
  dirs+=("$dir")
  /usr/bin/python3 -c 'import json,sys
for l in open(sys.argv[1]):
    if l.strip(): print(json.dumps({**json.loads(l), "split": "tuning"}, ensure_ascii=False))' \
    "$here/../tests/data/$qs.jsonl" >>"$work/questions.jsonl"
done
mapfile -t files < <(find "${dirs[@]}" -name '*.pdf' | sort)
"$build/bench/retrieval_eval" --sweep "$grid" "$work/papers.duckdb" "$work/questions.jsonl" "$work" "${files[@]}" > "$work/sweep.txt"
/usr/bin/python3 - "$work/sweep.txt" <<'PY'
import json, sys
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
for w in lines:
    if w[0] == "questions":
        print(f"Sweep of ClassicRetrieve's settings on {w[1]} tuning questions {' '.join(w[2:])}")
    elif w[0] in ("start", "chosen"):
        r1, r5, mrr = map(float, w[2:5])
        print(f"{w[0]:7s} recall@1 {r1:.3f} recall@5 {r5:.3f} MRR {mrr:.3f}  {w[1]}")
        if w[0] == "start":
            print(f"{'round':>5s}  {'setting':24s}{'value':>7s}{'recall@1':>10s}{'recall@5':>10s}{'MRR':>8s}")
    elif w[0] == "sweep":
        r1, r5, mrr = map(float, w[4:7])
        print(f"{w[1]:>5s}  {w[2]:24s}{w[3]:>7s}{r1:10.3f}{r5:10.3f}{mrr:8.3f}")
PY
