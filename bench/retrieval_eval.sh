#!/usr/bin/env bash
# Retrieval evaluation on two held-out sets, side by side:
#  (a) the fixture PDFs (../shared/fixtures/pdfs): the labelled dev set
#      (tests/data/paper_qa_dev.jsonl, tuning and validation halves) and the
#      independent questions (tests/data/paper_qa_independent.jsonl);
#  (b) real open-access papers nobody tuned on (tests/data/paper_qa_real.jsonl;
#      the PDFs are fetched by bench/fetch_real_papers.sh into
#      $BIOAGENT_REAL_PAPERS_DIR, default <cache dir>/real_papers, and never
#      committed). Skipped, saying so, when they cannot be fetched (offline).
#  (c) other real open-access papers, the tuning set of the real-paper settings
#      (tests/data/paper_qa_real_dev.jsonl; PDFs fetched the same way into
#      $BIOAGENT_REAL_PAPERS_DEV_DIR, default <cache dir>/real_papers_dev): scored beside (b),
#      so that what was tuned and what was not are read side by side.
#  (d) a second tuning set of real papers by another writer (other layouts: author manuscripts,
#      line-numbered preprints, key-resources tables; tests/data/paper_qa_real_dev2.jsonl, PDFs into
#      $BIOAGENT_REAL_PAPERS_DEV2_DIR, default <cache dir>/real_papers_dev2).
# For each: the gold page first (recall@1), within five (recall@5), MRR per
# collection alone and for ClassicRetrieve, and the offline answers' key-term
# rate. --check prints whether each set meets its targets (page first >= 0.85
# on (a)'s validation half and >= 0.80 on (b), within five >= 0.97, key terms
# >= 0.80 and >= 0.70) and fails below the regression floors of set (a)'s
# validation half (ClassicRetrieve at least the best single collection at
# every k, recall@1 >= 0.77, recall@5 >= 0.95, key-term rate >= 0.80).
# Skips set (a), saying so, when the fixtures are absent.
# --smoke ranks a few questions of each set on their papers only (a quick
# check that the whole path runs and finds pages; ctest's bench_retrieval_smoke).
# --tune measures the weight of a model's dense vote in ClassicRetrieve: with
# BIOAGENT_EMBED_URL and BIOAGENT_EMBED_MODEL naming an OpenAI-compatible
# embedding server, it ranks with each weight of RETRIEVAL_EVAL_WEIGHTS, keeps
# the one with the best MRR among those no worse than BM25 alone (weight 0) at
# recall@1 and @5, and records it for that model in the fusion-weights file
# (BIOAGENT_FUSION_WEIGHTS, default <cache dir>/fusion_weights.json), which
# ClassicRetrieve reads.
# Only the tuning half's questions are given to --tune, as to bench/retrieval_sweep.sh
# (which chooses the other settings of ClassicRetrieve). Set (b) and the
# independent questions are validation only: scored, never tuned on.
# --tuning scores the tuning half alone (no validation, independent or real
# question is ranked or read): the quick measure while building a ranking change.
# Usage: retrieval_eval.sh BUILD_DIR [--check|--tune|--tuning|--smoke] [QUESTIONS.jsonl]
set -euo pipefail
build=$(cd "$1" && pwd)
mode=${2:-}
case "$mode" in --check | --tune | --tuning | --smoke) shift ;; *) mode= ;; esac
here=$(cd "$(dirname "$0")" && pwd)
questions=${2:-$here/../tests/data/paper_qa_dev.jsonl}
independent=$here/../tests/data/paper_qa_independent.jsonl
real=$here/../tests/data/paper_qa_real.jsonl
real_dev=$here/../tests/data/paper_qa_real_dev.jsonl
real_dev2=$here/../tests/data/paper_qa_real_dev2.jsonl
if [ -n "${2:-}" ]; then independent= real= real_dev= real_dev2=; fi
if [ "$mode" = --tune ] || [ "$mode" = --tuning ]; then real= real_dev= real_dev2=; fi
cache=${BIOAGENT_CACHE_DIR:-${XDG_CACHE_HOME:+$XDG_CACHE_HOME/bioagent}}
cache=${cache:-$HOME/.cache/bioagent}
work=$(mktemp -d)
trap '[ -n "${KEEP_WORK:-}" ] && cat "$work"/*/per_question.jsonl >"$KEEP_WORK" 2>/dev/null; rm -rf "$work"' EXIT
smoke_questions=6 # per set with --smoke, on the papers of the first questions

pdfs="${BIOAGENT_FIXTURES_DIR:-$here/../../shared/fixtures}/pdfs"
have_a=1
if [ ! -d "$pdfs" ]; then
  echo "set (a): SKIP: fixtures absent ($pdfs)"
  have_a=0
fi
# RETRIEVAL_EVAL_SETS chooses the sets scored (default "a b c d").
sets=" ${RETRIEVAL_EVAL_SETS:-a b c d} "
case "$sets" in *" a "*) ;; *) have_a=0 ;; esac
case "$sets" in *" b "*) ;; *) real= ;; esac
case "$sets" in *" c "*) ;; *) real_dev= ;; esac
case "$sets" in *" d "*) ;; *) real_dev2= ;; esac
# Fetches a real-paper set's PDFs into DIR (pinned by SOURCES): 0 when all are there, else says why.
fetch_set() {
  local set=$1 dir=$2 sources=$3
  bash "$here/fetch_real_papers.sh" "$dir" "$sources" >"$work/fetch_$set.log" 2>&1 && return 0
  echo "set ($set): SKIP: the real papers could not be fetched into $dir (offline?): $(tail -1 "$work/fetch_$set.log")"
  return 1
}
real_dir=${BIOAGENT_REAL_PAPERS_DIR:-$cache/real_papers}
real_dev_dir=${BIOAGENT_REAL_PAPERS_DEV_DIR:-$cache/real_papers_dev}
real_dev2_dir=${BIOAGENT_REAL_PAPERS_DEV2_DIR:-$cache/real_papers_dev2}
have_b=0 have_c=0 have_d=0
[ -n "$real" ] && fetch_set b "$real_dir" "$here/../tests/data/paper_qa_real_sources.tsv" && have_b=1
[ -n "$real_dev" ] && fetch_set c "$real_dev_dir" "$here/../tests/data/paper_qa_real_dev_sources.tsv" && have_c=1
[ -n "$real_dev2" ] && fetch_set d "$real_dev2_dir" "$here/../tests/data/paper_qa_real_dev2_sources.tsv" && have_d=1
[ "$have_a" = 0 ] && [ "$have_b" = 0 ] && [ "$have_c" = 0 ] && [ "$have_d" = 0 ] && exit 0

# Writes the questions of a set to $work/SET/questions.jsonl (the dev set, then the independent
# set as its own split; the tuning half alone with --tune/--tuning; the first few with --smoke) and
# the PDFs its questions need (all of the folder's, or with --smoke their papers only) to $work/SET/pdfs.
select_set() {
  local set=$1 dir=$2 main=$3 extra=$4
  mkdir -p "$work/$set"
  /usr/bin/python3 - "$main" "$extra" "$work/$set" "$mode" "$smoke_questions" "$dir" <<'PY'
import json, os, sys
main, extra, out, mode, smoke_n, pdf_dir = sys.argv[1:7]
rows = [json.loads(l) for l in open(main) if l.strip()]
if mode in ("--tune", "--tuning"):  # weights are measured (and --tuning scores) on the tuning half only
    rows = [q for q in rows if q.get("split") == "tuning"] if any("split" in q for q in rows) else rows
elif extra and os.path.exists(extra):
    for q in (json.loads(l) for l in open(extra) if l.strip()):
        rows.append({**q, "id": "independent:" + str(q["id"]), "split": "independent"})
# Every PDF under the folder, by file name (the gold pages name files, not paths).
paths = {f: os.path.join(d, f) for d, _, fs in os.walk(pdf_dir) for f in fs if f.endswith(".pdf")}
files = sorted(paths)
if mode == "--smoke":
    rows = rows[: int(smoke_n)]
    files = sorted({g["file"] for q in rows for g in q["gold"]})
with open(out + "/questions.jsonl", "w") as f:
    for q in rows:
        f.write(json.dumps(q, ensure_ascii=False) + "\n")
with open(out + "/pdfs", "w") as f:
    f.write("".join(paths[p] + "\n" for p in sorted(paths, key=lambda p: paths[p]) if p in files))
PY
}

# Ranks the set's questions with every method and asks the offline agent (bench/retrieval_eval),
# in RETRIEVAL_EVAL_JOBS shards at once (default 1), each with its own library of the set's PDFs.
score_set() {
  local set=$1 jobs=${RETRIEVAL_EVAL_JOBS:-1} k
  mapfile -t files <"$work/$set/pdfs"
  local pids=()
  for ((k = 0; k < jobs; k++)); do
    mkdir -p "$work/$set/shard$k"
    awk -v k="$k" -v n="$jobs" '(NR - 1) % n == k' "$work/$set/questions.jsonl" >"$work/$set/shard$k/questions.jsonl"
    [ -s "$work/$set/shard$k/questions.jsonl" ] || continue
    "$build/bench/retrieval_eval" "$work/$set/shard$k/papers.duckdb" "$work/$set/shard$k/questions.jsonl" \
      "$work/$set/shard$k" "${files[@]}" >"$work/$set/shard$k/scores.txt" &
    pids+=($!)
  done
  for k in "${pids[@]}"; do wait "$k"; done
  cat "$work/$set"/shard*/per_question.jsonl >"$work/$set/per_question.jsonl"
}

[ "$have_a" = 1 ] && select_set a "$pdfs" "$questions" "${independent:-}"
if [ "$mode" = --tune ]; then
  [ "$have_a" = 1 ] || exit 0
  if [ -z "${BIOAGENT_EMBED_URL:-}" ] || [ -z "${BIOAGENT_EMBED_MODEL:-}" ]; then
    echo "retrieval_eval.sh --tune: set BIOAGENT_EMBED_URL and BIOAGENT_EMBED_MODEL to the embedding server to measure" >&2
    exit 2
  fi
  weights_file=${BIOAGENT_FUSION_WEIGHTS:-$cache/fusion_weights.json}
  mapfile -t files <"$work/a/pdfs"
  "$build/bench/retrieval_eval" --weights "${RETRIEVAL_EVAL_WEIGHTS:-0,0.1,0.25,0.5,1,2}" \
    "$work/a/papers.duckdb" "$work/a/questions.jsonl" "$work/a" "${files[@]}" >"$work/a/scores.txt"
  exec /usr/bin/python3 "$here/fusion_tune.py" "$work/a/scores.txt" "$weights_file" "$BIOAGENT_EMBED_MODEL" \
    "$work/a/questions.jsonl"
fi
[ "$have_a" = 1 ] && score_set a
if [ "$have_b" = 1 ]; then
  select_set b "$real_dir" "$real" ""
  score_set b
fi
if [ "$have_c" = 1 ]; then
  select_set c "$real_dev_dir" "$real_dev" ""
  score_set c
fi
if [ "$have_d" = 1 ]; then
  select_set d "$real_dev2_dir" "$real_dev2" ""
  score_set d
fi
/usr/bin/python3 "$here/retrieval_report.py" "$work" "$mode"  # not exec: the EXIT trap removes $work
