#!/usr/bin/env bash
# The weight of a model's dense vote goes from the dev set into ClassicRetrieve:
# retrieval_eval.sh --tune (against the scripted embedding server) records it for
# the model, and ClassicRetrieve then says it uses that measured weight; a given
# BIOAGENT_EMBED_WEIGHT wins, a malformed one is reported, and without either the
# weight is said to be not measured. Skips, saying so, when the fixtures are absent.
# Usage: fusion_tune_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
pdfs="$here/../../shared/fixtures/pdfs"
[ -d "$pdfs" ] || { echo "SKIP: fixtures absent ($pdfs)"; exit 0; }
work=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
echo '{"script": []}' > "$work/script.json"
/usr/bin/python3 "$here/../tests/helpers/scripted_llm.py" "$work/script.json" > "$work/port" &
server=$!
for _ in $(seq 50); do grep -q PORT "$work/port" && break; sleep 0.1; done
port=$(awk '/PORT/{print $2}' "$work/port")
export BIOAGENT_EMBED_URL="http://127.0.0.1:$port" BIOAGENT_EMBED_MODEL=scripted-embedder
export BIOAGENT_FUSION_WEIGHTS="$work/fusion_weights.json" BIOAGENT_CACHE_DIR="$work/cache"
head -8 "$here/../tests/data/paper_qa_dev.jsonl" > "$work/q.jsonl"
RETRIEVAL_EVAL_WEIGHTS=0,0.5 "$here/retrieval_eval.sh" "$build" --tune "$work/q.jsonl"
/usr/bin/python3 - "$BIOAGENT_FUSION_WEIGHTS" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["models"]["scripted-embedder"]
assert m["weight"] in (0, 0.5) and m["questions"] == 8, m
PY
pdf=$(find "$pdfs" -name '*.pdf' | sort | head -1)
export BIOAGENT_PAPERS_DB="$work/papers.duckdb"
"$build/bioagent" papers add "$pdf" > /dev/null
fusion() {
  "$build/bioagent" tools run ClassicRetrieve --args '{"query": "randomised trials", "limit": 3}' |
    /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["fusion"])'
}
expect() {
  local what=$1 got
  got=$(fusion)
  case "$got" in *"$what"*) echo "ok: $what" ;; *) echo "FAIL: expected '$what' in: $got"; exit 1 ;; esac
}
expect "measured for scripted-embedder on 8 labelled questions"
BIOAGENT_EMBED_WEIGHT=0.7 expect "0.70 x text_openai_scripted_embedder similarity (weight given by BIOAGENT_EMBED_WEIGHT)"
BIOAGENT_EMBED_WEIGHT=lots expect "BIOAGENT_EMBED_WEIGHT 'lots' is not a number"
BIOAGENT_FUSION_WEIGHTS="$work/absent.json" expect "not measured for scripted-embedder"
echo '{"models": ' > "$work/broken.json"
BIOAGENT_FUSION_WEIGHTS="$work/broken.json" expect "not measured for scripted-embedder"
