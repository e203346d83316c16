#!/usr/bin/env bash
# Chooses ClassicRetrieve's ranking settings (field, second-chunk, proximity,
# phrase, reference-list and first-page weights; bench/retrieval_sweep.json
# lists the candidates) on the tuning half of the labelled dev set only:
# coordinate ascent from the settings in src/papers/paper_tools.json, keeping a
# value when it raises MRR on the tuning half (ties: recall@5, then the value
# held). Validation questions are not read by the sweep. Prints every
# candidate's tuning scores and the chosen settings; copying them into
# paper_tools.json is a reviewed edit (docs/evaluation.md records the last sweep).
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
mapfile -t files < <(find "$pdfs" -name '*.pdf' | sort)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bench/retrieval_eval" --sweep "$grid" "$work/papers.duckdb" "$questions" "$work" "${files[@]}" > "$work/sweep.txt"
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
