#!/usr/bin/env bash
# Contract tests of the `bioagent` command line: exit codes, JSON on stdout,
# clear refusals. Usage: cli_test.sh BIOAGENT_BINARY SOURCE_DIR
set -uo pipefail
bin=$1 src=$2
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src"
export BIOAGENT_HOME="$tmp/home"   # the default example bundle is written here, not in the user's home
unset BIOAGENT_BUNDLE

check() {  # name, expected exit code, python assertion over stdout (variable d = parsed JSON, s = text), command...
  local name=$1 want=$2 assertion=$3
  shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL $name: exit $rc, expected $want"; sed 's/^/  | /' "$tmp/err" | head -5; fail=$((fail + 1)); return
  fi
  if ! /usr/bin/python3 - "$tmp/out" "$assertion" <<'PY'
import json, os, sys
s = open(sys.argv[1]).read()
try:
    d = json.loads(s)
except ValueError:
    d = None
ok = eval(sys.argv[2])
sys.exit(0 if ok else 1)
PY
  then
    echo "FAIL $name: assertion $assertion"; head -c 600 "$tmp/out" | sed 's/^/  | /'; fail=$((fail + 1)); return
  fi
  echo "ok   $name"; pass=$((pass + 1))
}

check "version" 0 "'duckdb v1.4.4' in s and s.startswith('bioagent ')" "$bin" version
check "help" 0 "'tools' in s and 'mcp' in s" "$bin" --help
check "no command is a usage error" 2 "True" "$bin"
check "tools list" 0 "'calculate_expr' in s and 'read_executed_notebook' in s" "$bin" tools list
check "tools list --json is strict" 0 \
  "all(t['parameters']['additionalProperties'] is False and isinstance(t['parameters']['required'], list) for t in d) and {'calculate_expr','read_executed_notebook'} <= {t['name'] for t in d}" \
  "$bin" tools list --json
check "openai format" 0 "all(t['type']=='function' and 'parameters' in t['function'] for t in d)" "$bin" tools list --json --format openai
check "mcp format" 0 "all('inputSchema' in t for t in d)" "$bin" tools list --json --format mcp
check "describe" 0 "d['name']=='calculate_expr' and d['parameters']['required']==['expr']" "$bin" tools describe calculate_expr
check "describe unknown" 1 "d['status']=='error' and d['error']['code']=='not_found'" "$bin" tools describe nope
check "2 + 3 * 4 is 14" 0 "d['status']=='success' and d['data']['result']==14" "$bin" tools run calculate_expr --args '{"expr":"2 + 3 * 4"}'
check "__import__ refused" 1 "d['status']=='error' and \"unknown function '__import__'\" in d['error']['message'] and d['error']['details']['position']==0" \
  "$bin" tools run calculate_expr --args "{\"expr\":\"__import__('os')\"}"
check "open refused" 1 "\"unknown function 'open'\" in d['error']['message']" "$bin" tools run calculate_expr --args "{\"expr\":\"open('x')\"}"
check "9**9**9 refused" 1 "d['error']['code']=='resource_exhausted' and 'too large' in d['error']['message']" \
  "$bin" tools run calculate_expr --args '{"expr":"9**9**9"}'
check "missing required arg" 1 "d['error']['details']['field']=='args.expr' and d['error']['details']['rule']=='required'" \
  "$bin" tools run calculate_expr --args '{}'
check "unknown arg" 1 "d['error']['details']['rule']=='additionalProperties'" "$bin" tools run calculate_expr --args '{"expr":"1","x":2}'
check "wrong type" 1 "d['error']['details']['rule']=='type'" "$bin" tools run calculate_expr --args '{"expr":5}'
check "malformed --args" 1 "d['error']['code']=='parse_error'" "$bin" tools run calculate_expr --args '{"expr":'
check "non-object --args" 1 "d['error']['code']=='invalid_argument'" "$bin" tools run calculate_expr --args '[1]'
echo '{"expr": "round(pi, 3)"}' > "$tmp/args.json"
check "--args @file" 0 "d['data']['result']==3.142" "$bin" tools run calculate_expr --args "@$tmp/args.json"
check "--args @missing" 1 "d['error']['code']=='not_found'" "$bin" tools run calculate_expr --args "@$tmp/none.json"
check "unknown tool" 1 "d['error']['code']=='not_found'" "$bin" tools run nope --args '{}'
check "notebook via folder" 0 "d['data']['total_cells']==9 and d['data']['notebook_path'].endswith('spl_expression_executed.ipynb')" \
  "$bin" tools run read_executed_notebook --args '{"data_folder":"examples/notebooks"}'
check "notebook search" 0 "[c['idx'] for c in d['data']['matching_cells']]==[7] and d['data']['n_matches']==1" \
  "$bin" tools run read_executed_notebook --args '{"data_folder":"examples/notebooks","search":"padj"}'
check "path traversal refused" 1 "d['error']['code']=='permission_denied' and 'outside the workspace' in d['error']['message']" \
  "$bin" tools run read_executed_notebook --args '{"notebook_path":"../../../etc/passwd"}'
check "absolute path outside refused" 1 "d['error']['code']=='permission_denied'" \
  "$bin" tools run read_executed_notebook --args '{"notebook_path":"/etc/hostname"}'
ln -s /etc "$tmp/etc_link"
check "symlink out of a root refused" 1 "d['error']['code']=='permission_denied'" \
  "$bin" --root "$tmp" tools run read_executed_notebook --args '{"data_folder":"etc_link"}'
check "--root widens the sandbox" 0 "d['data']['total_cells']==9" \
  "$bin" --root "$tmp" --root "$src" tools run read_executed_notebook --args "{\"notebook_path\":\"$src/examples/notebooks/spl_expression_executed.ipynb\"}"
check "bad --root" 1 "d['error']['code']=='not_found'" "$bin" --root /no/such/dir tools list
mkdir -p "$tmp/tools"
cat > "$tmp/tools/lab.json" <<'JSON'
[{"name": "lab_calc", "type": "CalculatorTool", "description": "The lab's calculator.",
  "parameter": {"type": "object", "properties": {"expr": {"type": "string"}}, "required": ["expr"], "additionalProperties": false},
  "settings": {"max_length": 5}}]
JSON
check "--tools-dir adds a tool" 0 "d['data']['result']==2" "$bin" --tools-dir "$tmp/tools" tools run lab_calc --args '{"expr":"1+1"}'
check "tool settings apply" 1 "d['error']['code']=='resource_exhausted'" "$bin" --tools-dir "$tmp/tools" tools run lab_calc --args '{"expr":"1+1+1+1"}'
echo '[{"name": "broken"' > "$tmp/tools/broken.json"
check "broken config is a clear error" 1 "'broken' in d['error']['message'] and 'JSON' in d['error']['message']" "$bin" --tools-dir "$tmp/tools" tools list
check "demo runs every example" 0 "'0 failed' in s" "$bin" demo
check "the default bundle was generated" 0 "d['data']['dataset_identifiers'][0]=='Overall_TF_PageRank'" \
  "$bin" tools run list_available_tf_catalog_datasets
check "example-bundle writes a bundle" 0 "'example bundle' in s" "$bin" data example-bundle "$tmp/lab"
check "example-bundle never overwrites" 1 "d['error']['code']=='invalid_argument'" "$bin" data example-bundle "$tmp/lab"
check "data check" 0 "d['tf_catalog'][1]=='Naive' and d['communities']==['trm','texterm']" "$bin" data check "$tmp/lab"
check "--bundle picks the bundle" 0 "d['data']['row_labels'][0]=='PageRank score' and len(d['data']['data'])==4" \
  "$bin" --bundle "$tmp/lab" tools run get_processed_tf_data --args '{"dataset_identifier":"TEXterm"}'
check "unknown dataset: empty list with a message" 0 "d['data']['data']==[] and 'valid identifiers' in d['data']['message']" \
  "$bin" --bundle "$tmp/lab" tools run get_processed_tf_data --args '{"dataset_identifier":"memory"}'
check "raw excel via www/ path" 0 "d['data']['data'][0][:2]==['TF','PageRank score']" \
  "$bin" --bundle "$tmp/lab" tools run get_raw_excel_data --args '{"file_path":"www/tablePagerank/TRM.xlsx"}'
check "bundle without manifest" 1 "'no bundle.json' in d['error']['message']" \
  "$bin" --bundle "$tmp" tools run list_available_tf_catalog_datasets
printf 'a,"b\n1,2\n' > "$tmp/unbalanced.csv"
check "unbalanced CSV: message names file and line" 0 "d['data']['data']==[] and 'unbalanced.csv' in d['data']['message'] and 'line 1' in d['data']['message']" \
  "$bin" --root "$tmp" tools run get_raw_excel_data --args "{\"file_path\":\"$tmp/unbalanced.csv\"}"

export BIOAGENT_CACHE_DIR="$tmp/cache"
check "offline with a cold cache says so" 1 "d['error']['code']=='unavailable' and 'offline' in d['error']['message']" \
  "$bin" --offline tools run pubmed_search --args '{"query":"SPL litchi"}'
check "offline multi-source search says why it is empty" 1 "'offline' in d['error']['message']" \
  env BIOAGENT_OFFLINE=1 "$bin" tools run multi_source_literature_search --args '{"queries":["SPL litchi"]}'
check "fetch_text refuses metadata addresses" 0 "'refused' in d['data'][0]['retrieved_text_content'] and d['data'][1]['retrieved_text_content']=='Error: Invalid or missing URL.'" \
  "$bin" tools run fetch_text_from_urls --args '{"paper_info_list":[{"url":"http://169.254.169.254/latest/meta-data/"},{"url":"N/A"}]}'
check "evidence store works offline and says when empty" 0 "d['data']['evidence']==[] and 'message' in d['data']" \
  "$bin" --offline tools run search_evidence_store --args '{"query":"SPL"}'

export BIOAGENT_PAPERS_DB="$tmp/papers.duckdb"
check "describe_paper_database" 0 "[t['table_name'] for t in d['data']['tables']][:4]==['metadata','pages','images','chunks']" \
  "$bin" tools run describe_paper_database
check "SQL on a library that does not exist yet" 1 "d['error']['code']=='not_found' and 'papers add' in d['error']['message']" \
  "$bin" tools run RetrieveFromDatabase --args '{"sql":"SELECT 1"}'
check "papers list on a new library" 0 "d==[]" "$bin" papers list
check "writes are refused" 1 "d['error']['code']=='permission_denied'" \
  "$bin" tools run RetrieveFromDatabase --args '{"sql":"DELETE FROM metadata"}'
check "file reads are refused" 1 "d['error']['code']=='permission_denied'" \
  "$bin" tools run RetrieveFromDatabase --args '{"sql":"SELECT * FROM read_text('"'"'/etc/passwd'"'"')"}'
printf 'not a pdf' > "$tmp/fake.pdf"
check "a non-PDF is a clear error" 1 "d['failed']==1 and 'not a PDF' in d['added'][0]['error']['message']" "$bin" papers add "$tmp/fake.pdf"
pdfs="$src/../shared/fixtures/pdfs/neusym_rag"
if [ -d "$pdfs" ]; then
  check "papers add ingests a real PDF" 0 "d['failed']==0 and d['added'][0]['num_pages']==3 and d['added'][0]['chunks']>0" "$bin" papers add "$pdfs"
  check "adding it again is a no-op" 0 "d['added'][0]['already_present'] is True" "$bin" papers add "$pdfs"
  check "RetrieveFromDatabase reads it" 0 "d['data']['rows'][0][0].startswith('Retrieval-Augmented Generation')" \
    "$bin" tools run RetrieveFromDatabase --args '{"sql":"SELECT title FROM metadata"}'
  check "RetrieveFromVectorstore with a filter" 0 "d['data']['results'] and all(r['page_number']==2 and 'retriev' in r['text'].lower() for r in d['data']['results'])" \
    "$bin" tools run RetrieveFromVectorstore --args '{"query":"retrieval","collection_name":"text_bm25_en","table_name":"chunks","column_name":"text_content","filter":"page_number == 2"}'
  check "unknown collection is a clear error" 1 "d['error']['code']=='not_found' and 'text_bm25_en' in d['error']['message']" \
    "$bin" tools run RetrieveFromVectorstore --args '{"query":"x","collection_name":"milvus","table_name":"chunks","column_name":"text_content"}'
  check "filter on an unknown field" 1 "d['error']['code']=='invalid_argument' and 'author' in d['error']['message']" \
    "$bin" tools run RetrieveFromVectorstore --args '{"query":"x","collection_name":"text_bm25_en","table_name":"chunks","column_name":"text_content","filter":"author == 1"}'
  check "ClassicRetrieve fuses both rankings" 0 "len(d['data']['results'])==3 and 'ranks' in d['data']['results'][0] and all(len(r['text']) > 20 for r in d['data']['results'])" \
    "$bin" tools run ClassicRetrieve --args '{"query":"structured retrieval augmented generation","limit":3}'
  check "ask offline cites the library" 0 "d['loop']=='offline' and d['model']=='none' and d['sources'] and 'No language model' in d['note'] and d['trajectory']" \
    env -u BIOAGENT_LLM_BASE_URL "$bin" --offline ask --json "What is retrieval-augmented generation?"
  check "ask --loop actions offline says why not" 1 "True" "$bin" --offline ask --loop actions "x"
  # A PDF by URL (a replay server on loopback stands in for the web).
  printf '[{"path": "/paper.pdf", "headers": {"Content-Type": "application/pdf"}, "body_file": "%s"}]' \
    "$src/../shared/fixtures/pdfs/arxiv/1111.2011v2.pdf" > "$tmp/routes.json"
  /usr/bin/python3 tests/helpers/replay_server.py "$tmp/routes.json" > "$tmp/replay.port" 2>/dev/null &
  replay_pid=$!
  for _ in $(seq 50); do grep -q PORT "$tmp/replay.port" 2>/dev/null && break; sleep 0.1; done
  pdf_url="http://127.0.0.1:$(awk '{print $2}' "$tmp/replay.port")/paper.pdf"
  check "papers add by URL" 0 "d['failed']==0 and d['added'][0]['download_url'].endswith('/paper.pdf') and d['added'][0]['num_pages']>0" \
    env BIOAGENT_ALLOW_PRIVATE_URLS=1 "$bin" papers add "$pdf_url"
  check "a private-address URL is refused" 1 "d['failed']==1 and 'refused' in d['added'][0]['error']['message']" \
    "$bin" papers add "${pdf_url%/paper.pdf}/other.pdf"
  kill "$replay_pid" 2>/dev/null
else
  echo "skip papers add: fixtures absent ($pdfs)"
fi

# The gene-family pipeline on the generated example genome.
if command -v hmmsearch >/dev/null && command -v mafft >/dev/null; then
  check "genefamily example" 0 "len(d['members'])==20 and d['family']=='GLOBIN' and len(d['segmental_pairs'])==8" "$bin" genefamily example "$tmp/gf"
  check "genefamily check passes" 0 "d['ok'] is True and d['prefix']=='Exam' and d['consistency']['cds_not_translating_to_protein']==0" \
    "$bin" genefamily check "$tmp/gf"
  mkdir -p "$tmp/gf_bad" && cp "$tmp"/gf/* "$tmp/gf_bad/" && mv "$tmp/gf_bad/Exam.genome.fasta" "$tmp/gf_bad/Exam.genome.fa"
  check "a download name is read as the rule's name" 0 "d['ok'] is True and d['read_as']=={'Exam.genome.fa': 'Exam.genome.fasta'} and d['files']['genome'].endswith('/gf_bad/Exam.genome.fa')" \
    "$bin" genefamily check "$tmp/gf_bad"
  check "run reads a download name in place through a link" 0 "[s['state'] for s in d['stages']]==['done'] and os.path.islink('$tmp/gf_run_bad/input_links/Exam.genome.fasta') and os.path.isfile('$tmp/gf_bad/Exam.genome.fa')" \
    "$bin" genefamily run --data "$tmp/gf_bad" --run-dir "$tmp/gf_run_bad" --stages check
  cp "$tmp/err" "$tmp/err_bad"
  # The CLI's run is the run service's, as the server's: the misnamed file is diagnosed, read under its
  # rule name (a link) and the repair learned in the state folder the server reads.
  check "the CLI run gets the server's naming repair: diagnosed, linked, tested and learned" 0 \
    "any(r['fix']=='rename_extension_variant' and r['test_result']=='passed' for r in d['records']) and 'repair:' in open('$tmp/err_bad').read()" \
    "$bin" learning export
  mkdir -p "$tmp/gf_nopep" && cp "$tmp"/gf/* "$tmp/gf_nopep/" && rm "$tmp/gf_nopep/Exam.pep.fasta"
  check "a run of a folder without proteins fails at its naming check, saying what is missing" 1 "d['state']=='failed' and 'pep' in d['message'] and d['stages']==[]" \
    "$bin" genefamily run --data "$tmp/gf_nopep" --run-dir "$tmp/gf_run_bad2"
  check "genefamily run" 0 "all(s['state'] in ('done','warn') or (s['state']=='skipped' and s['message']) for s in d['stages']) and [s['state'] for s in d['stages'] if s['stage']=='ppi']==['skipped'] and d['validation']['status'] in ('pass','warn')" \
    "$bin" genefamily run --data "$tmp/gf" --run-dir "$tmp/gf_run" --cpus 2 --params '{"phylogeny": {"method": "fasttree"}}'
  check "genefamily run --stages identify,report runs those two only" 0 "[s['stage'] for s in d['stages']]==['identify','report']" \
    "$bin" genefamily run --data "$tmp/gf" --run-dir "$tmp/gf_run_two" --cpus 2 --stages identify,report
  # Every count a report states agrees with the run's tables; the numbers of stages not run say "not run".
  check "the reports' numbers agree with their tables" 0 "s.rstrip().endswith('all agree')" \
    /usr/bin/python3 "$src/tests/cli/report_numbers_check.py" "$tmp/gf_run" "$tmp/gf_run_two"
  check "genefamily run again is all cached" 0 "all('finished earlier' in s['message'] or s['state']=='skipped' for s in d['stages'])" \
    "$bin" genefamily run --data "$tmp/gf" --run-dir "$tmp/gf_run" --cpus 2 --params '{"phylogeny": {"method": "fasttree"}}'
  check "unknown stage" 1 "'no stage named' in d['error']['message']" \
    "$bin" genefamily run --data "$tmp/gf" --run-dir "$tmp/gf_run" --stages nope
  check "a bad stage parameter is refused before any run, naming it" 1 "d['error']['code']=='invalid_argument' and 'params.identify.evalue' in d['error']['message']" \
    "$bin" genefamily run --data "$tmp/gf" --run-dir "$tmp/gf_run_badparam" --stages identify --params '{"identify": {"evalue": "big"}}'
  check "genefamily status lists attempts" 0 "any(a.get('argv') and a['argv'][0]=='hmmsearch' for a in d['attempts'])" \
    "$bin" genefamily status "$tmp/gf_run"
  check "genefamily validate" 0 "d['status'] in ('pass','warn') and any(c['check']=='stage ppi' and c['status']=='skipped' for c in d['checks']) and any('support' in c['check'] for c in d['checks'])" "$bin" genefamily validate "$tmp/gf_run"
  check "validate a folder that is not a run" 1 "True" "$bin" genefamily validate "$tmp"
else
  echo "skip genefamily: hmmer/mafft not installed"
fi

# Both agent loops end to end through the CLI against the scripted OpenAI-compatible server.
cat > "$tmp/script.json" <<'JSON'
{"script": [
  {"message": {"content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "calculate_expr", "arguments": "{\"expr\": \"6*7\"}"}}]}},
  {"expect": ["42"], "message": {"content": "It is 42."}},
  {"message": {"content": "{\"action_type\": \"CalculateExpr\", \"parameters\": {\"expr\": \"6*7\"}}"}},
  {"expect": ["[Observation]"], "message": {"content": "{\"action_type\": \"GenerateAnswer\", \"parameters\": {\"answer\": 42}}"}}
]}
JSON
/usr/bin/python3 tests/helpers/scripted_llm.py "$tmp/script.json" > "$tmp/llm.port" 2>/dev/null &
llm_pid=$!
for _ in $(seq 50); do grep -q PORT "$tmp/llm.port" 2>/dev/null && break; sleep 0.1; done
llm_url="http://127.0.0.1:$(awk '{print $2}' "$tmp/llm.port")/v1"
check "ask: function loop with a scripted model" 0 "d['answer']=='It is 42.' and d['loop']=='function' and d['budget']['tool_calls']==1 and d['model']=='default'" \
  env BIOAGENT_LLM_BASE_URL="$llm_url" BIOAGENT_LLM_MODEL=scripted "$bin" ask --json --tools calculate_expr "6*7?"
check "ask: action loop with a scripted model" 0 "d['answer_value']==42 and d['loop']=='actions'" \
  env BIOAGENT_LLM_BASE_URL="$llm_url" BIOAGENT_LLM_MODEL=scripted "$bin" ask --json --loop actions --answer-format int "6*7?"
check "ask: unknown model is a clear error" 1 "True" \
  env BIOAGENT_LLM_BASE_URL="$llm_url" BIOAGENT_LLM_MODEL=scripted "$bin" ask --model nope "x"
kill "$llm_pid" 2>/dev/null

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
