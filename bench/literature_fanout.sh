#!/usr/bin/env bash
# Benchmark (issue 4a): search five literature sources on the local replay server
# with injected latencies (PubMed 2 x 200 ms, Europe PMC 400, ClinicalTrials.gov
# 600, arXiv 800, Semantic Scholar 1000), once through search_literature (all in
# parallel) and once source after source; print both wall times and the ratio.
# Usage: literature_fanout.sh BUILD_DIR [REPEATS]
set -euo pipefail
build=$(cd "$1" && pwd)
repeats=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
server_pid=
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
/usr/bin/python3 - "$work/routes.json" <<'PY'
import json, sys
esearch = '<eSearchResult><Count>1</Count><IdList><Id>1</Id></IdList></eSearchResult>'
efetch = ('<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID><Article><ArticleTitle>SPL</ArticleTitle>'
          '</Article></MedlineCitation></PubmedArticle></PubmedArticleSet>')
routes = [
  {"path": "/pm/esearch.fcgi", "delay_ms": 200, "body": esearch},
  {"path": "/pm/efetch.fcgi", "delay_ms": 200, "body": efetch},
  {"path": "/ep/search", "delay_ms": 400, "body": json.dumps({"resultList": {"result": [{"id": "1", "source": "MED", "title": "SPL"}]}})},
  {"path": "/ct/studies", "delay_ms": 600, "body": json.dumps({"studies": []})},
  {"path": "/ax/query", "delay_ms": 800, "body": '<feed xmlns="http://www.w3.org/2005/Atom"></feed>'},
  {"path": "/s2/graph/v1/paper/search", "delay_ms": 1000, "body": json.dumps({"data": [{"title": "SPL"}]})},
]
json.dump(routes, open(sys.argv[1], "w"))
PY
/usr/bin/python3 "$here/../tests/helpers/replay_server.py" "$work/routes.json" > "$work/port" 2>/dev/null &
server_pid=$!
for _ in $(seq 50); do grep -q PORT "$work/port" 2>/dev/null && break; sleep 0.1; done
port=$(awk '{print $2}' "$work/port")
base="http://127.0.0.1:$port"
export BIOAGENT_ALLOW_PRIVATE_URLS=1 BIOAGENT_HOME="$work/home"
export BIOAGENT_BASE_URL_PUBMED=$base/pm BIOAGENT_BASE_URL_EUROPEPMC=$base/ep BIOAGENT_BASE_URL_CLINICALTRIALS=$base/ct
export BIOAGENT_BASE_URL_ARXIV=$base/ax BIOAGENT_BASE_URL_SEMANTIC_SCHOLAR=$base/s2
"$build/bioagent" tools list > /dev/null 2>&1   # writes the example bundle once, outside the timings
ms() { echo $(( $(date +%s%N) / 1000000 )); }
par=() seq_=()
for r in $(seq "$repeats"); do
  export BIOAGENT_CACHE_DIR="$work/cache-par-$r"   # cold cache every run
  t0=$(ms); "$build/bioagent" tools run search_literature --args '{"query":"spl","max_results_per_source":2}' > "$work/par.json" 2>>"$work/stderr"; t1=$(ms)
  par+=($((t1 - t0)))
  export BIOAGENT_CACHE_DIR="$work/cache-seq-$r"
  t0=$(ms)
  for s in pubmed europepmc clinicaltrials arxiv semantic_scholar; do
    "$build/bioagent" tools run "${s}_search" --args '{"query":"spl","max_results":2}' > /dev/null 2>>"$work/stderr"
  done
  t1=$(ms)
  seq_+=($((t1 - t0)))
done
/usr/bin/python3 - "$work/par.json" "${par[*]}" "${seq_[*]}" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["data"]
par = statistics.median(map(int, sys.argv[2].split()))
seq = statistics.median(map(int, sys.argv[3].split()))
print("five sources on the replay server, latencies 2x200/400/600/800/1000 ms (sum 3200 ms)")
print(f"{'':30s}{'median ms':>10s}")
print(f"{'parallel (search_literature)':30s}{par:10.0f}")
print(f"{'sequential (one by one)':30s}{seq:10.0f}")
print(f"ratio: {seq / par:.1f}x; parallel found {r['total_found']} records, errors: {r['errors'] or 'none'}")
sys.exit(0 if not r["errors"] else 1)
PY
