#!/usr/bin/python3
"""Integration test of `bioagent serve` (issue 9): the seed's four exchanges in
Chinese and English against a running server, the planted naming failure
diagnosed, fixed, recorded and prevented on the next run, hostile input,
session isolation, the bearer token, load (200 concurrent status requests, 20
concurrent chats), and a server killed during a run that resumes the task.

Usage: api_test.py BIOAGENT_BIN FIXTURES_DIR"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_json import call  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "security"))
import http_raw  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
import bioagent_server  # noqa: E402
from bioagent_server import events, new_session as session  # noqa: E402

BIN, FIXTURES = sys.argv[1], sys.argv[2]
WORK = tempfile.mkdtemp(prefix="bioagent-api-")
FAILURES = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILURES.append(what)


def Server(state, *extra, **kw):
    """A server on the test's state folder with a 3-second parameter dialog."""
    return bioagent_server.Server(BIN, WORK, state, *extra, confirm_timeout=3, **kw)


def upload(base, sid, files):
    """files: [(name, bytes)] as multipart/form-data."""
    boundary = uuid.uuid4().hex
    parts = []
    for name, content in files:
        parts.append(("--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"%s\"\r\n"
                      "Content-Type: application/octet-stream\r\n\r\n" % (boundary, name)).encode() + content + b"\r\n")
    body = b"".join(parts) + ("--%s--\r\n" % boundary).encode()
    req = urllib.request.Request(base + "/api/upload", data=body, method="POST")
    req.add_header("Content-Type", "multipart/form-data; boundary=" + boundary)
    req.add_header("X-Session-Id", sid)
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


# ---- data: the generated genome, Lchi with the real SBP HMM when the fixture is there
sbp = os.path.join(FIXTURES, "genefamily", "hmm", "PF03110_SBP.hmm")
FAMILY = "SPL" if os.path.exists(sbp) else "GLOBIN"
if FAMILY != "SPL":
    print("note: %s absent; the exchanges use the generated GLOBIN family instead of SPL" % sbp)
genome = os.path.join(WORK, "Lchi")
args = [BIN, "genefamily", "example", genome, "--prefix", "Lchi", "--family", FAMILY]
if FAMILY == "SPL":
    args += ["--hmm", sbp]
subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
truth = json.load(open(os.path.join(genome, "truth.json")))
FILES = [(n, open(os.path.join(genome, n), "rb").read())
         for n in ["Lchi.genome.fasta", "Lchi.gff3", "Lchi.cds.fasta", "Lchi.pep.fasta", FAMILY + ".hmm"]]
MISNAMED = [("Lchi.genome.fa", FILES[0][1])] + FILES[1:]

state = os.path.join(WORK, "state")
srv = Server(state, "--pipeline-params", '{"phylogeny": {"method": "fasttree"}}', "--max-upload-mb", "8")
B = srv.base
try:
    st, h = call(B, "GET", "/healthz")
    check(st == 200 and h["status"] == "ok", "healthz answers")
    st, api = call(B, "GET", "/api/openapi.json")
    check(st == 200 and "/api/agent/chat" in api["paths"] and "/mcp" in api["paths"], "OpenAPI lists the endpoints")

    # ---- exchange 1: summary of the family (zh and en)
    sid = session(B)
    st, r = call(B, "POST", "/api/agent/chat", {"message": "总结下SPL基因家族"}, sid)
    check(st == 200 and r["route"]["intent"] == "faq" and r["route"]["confidence"] >= 0.9, "zh summary routed to FAQ")
    check("PF03110" in r["answer"] and "miR156" in r["answer"] and "拟南芥" in r["answer"] and r["sources"],
          "zh summary names the SBP domain, miR156, Arabidopsis counts, with a source")
    st, r = call(B, "POST", "/api/agent/chat", {"message": "Summarise the SPL gene family"}, sid)
    check(st == 200 and r["route"]["intent"] == "faq" and "SQUAMOSA" in r["answer"] and "rice 19" in r["answer"],
          "en summary from the knowledge base")

    # ---- exchange 2: literature on litchi SPL (offline: nothing found locally)
    st, r = call(B, "POST", "/api/agent/chat", {"message": "荔枝的SPL基因家族是否有发表过相关的文章"}, sid)
    check(st == 200 and r["route"]["intent"] == "literature" and r["route"]["species"] == "Lchi",
          "zh literature question routed, species Lchi found")
    check(r.get("research_gap") is False and "未检索在线数据库" in r["answer"] and "不能据此判断" in r["answer"],
          "zh literature check offline: says what was searched and claims no research gap")
    st, r = call(B, "POST", "/api/agent/chat", {"message": "Has anything been published on the SPL gene family of lychee?"}, sid)
    check(st == 200 and r["route"]["intent"] == "literature" and r.get("research_gap") is False
          and "does not show a research gap" in r["answer"] and "offline" in r["answer"],
          "en literature check offline: nothing found locally, no gap claimed")

    # ---- streamed chat (SSE): route, deltas, result
    req = urllib.request.Request(B + "/api/agent/chat", data=json.dumps({"message": "总结下WRKY基因家族", "stream": True}).encode(),
                                 method="POST", headers={"Content-Type": "application/json", "X-Session-Id": sid})
    kinds, text = [], ""
    with urllib.request.urlopen(req, timeout=60) as resp:
        check(resp.headers["Content-Type"].startswith("text/event-stream"), "chat streams as text/event-stream")
        for line in resp:
            line = line.decode()
            if line.startswith("event: "):
                kinds.append(line[7:].strip())
            if line.startswith("data: ") and kinds and kinds[-1] == "delta":
                text += json.loads(line[6:])["text"]
    check(kinds[:2] == ["session", "route"] and "delta" in kinds and kinds[-1] == "result" and "PF03106" in text,
          "streamed answer: session, route, deltas, result")

    # ---- uploads: the misnamed genome is flagged with the rule and the fix
    st, u = upload(B, sid, MISNAMED)
    naming = {f["file"]: f["naming"] for f in u["files"]}
    check(st == 200 and naming["Lchi.genome.fa"]["ok"] is False and naming["Lchi.genome.fa"]["fix"] == "Lchi.genome.fasta"
          and "genome" in naming["Lchi.genome.fa"]["rule"], "upload: Lchi.genome.fa flagged with its rule and fix")
    check(naming["Lchi.gff3"]["ok"] is True, "upload: correctly named files pass")

    # ---- exchange 3: the plan
    st, r = call(B, "POST", "/api/agent/chat", {"message": "如果我想开展荔枝的%s基因家族研究，可以吗？" % FAMILY}, sid)
    check(st == 200 and r["route"]["intent"] == "analysis" and r.get("plan_id"), "zh feasibility question gives a plan")
    plan = r["plan"]["analysis_plan"]
    check(plan["target_species"].startswith("Litchi chinensis") and plan["gene_family"] == FAMILY
          and plan["next_action"] == "等待用户确认执行" and "analysis_plan:" in r["answer"],
          "plan (YAML) names species, family, next_action 等待用户确认执行")
    check(plan["reference_genome"]["genome_fasta_status"] == "available"
          and plan["reference_genome"].get("genome_fasta_renamed_from") == "Lchi.genome.fa"
          and plan["reference_genome"]["naming_problems"],
          "plan reports the misnamed genome file and counts it as present under the name the run gives it")
    check([list(s)[0] for s in plan["analysis_stages"]][:3] == ["identify", "phylogeny", "domain"], "plan lists the stages")

    # ---- questions and refusals after the plan are answered, never run
    st, r = call(B, "POST", "/api/agent/chat", {"message": "执行分析之前需要准备哪些文件？"}, sid)
    check(st == 200 and r["route"]["intent"] == "plan_question" and "task" not in r and "Lchi.pep.fasta" in r["answer"],
          "a question about the files after the plan is answered, no task")
    st, r = call(B, "POST", "/api/agent/chat", {"message": "我不想执行分析"}, sid)
    check(st == 200 and r["route"]["intent"] == "decline" and "task" not in r, "a refusal after the plan starts nothing")
    st, r = call(B, "POST", "/api/agent/chat", {"message": "如果我想开展 Exam 的 GLOBIN 基因家族研究，可以吗？"}, session(B))
    check(st == 200 and r.get("plan_id") and r.get("executable") is True and "execute" in r.get("actions", []),
          "the welcome suggestion with spaces plans the shared example genome and offers the run")

    # ---- exchange 4: execute; the dialog times out, the naming failure is diagnosed, fixed and recorded
    st, r = call(B, "POST", "/api/agent/chat", {"message": "执行分析"}, sid)
    check(st == 200 and r["route"]["intent"] == "execute" and r["task"]["task_id"], "执行分析 starts a task")
    task = r["task"]["task_id"]
    evs = events(B, sid, task)
    types = [e["type"] for e in evs]
    diag = [e for e in evs if e["type"] == "diagnosis"]
    check(diag and diag[0]["diagnosis"]["error_type"] == "naming_mismatch"
          and ".fa" in diag[0]["diagnosis"]["root_cause"], "failure classified: naming mismatch, root cause .fa for .fasta")
    rep = [e for e in evs if e["type"] == "repair"]
    check(rep and rep[0]["test_result"] == "passed" and rep[0]["changes"][0]["to"] == "Lchi.genome.fasta",
          "repair renamed the genome (backup kept) and the re-check passed")
    check("learning" in types, "a learning record was written")
    conf = [e for e in evs if e["type"] == "confirmed"]
    check(types.index("confirm") < types.index("confirmed") and conf[0]["by"] == "timeout"
          and "未确认" in conf[0]["message"], "dialog confirmed the defaults after the timeout")
    check(evs[-1]["state"] == "done", "task finished: " + evs[-1].get("message", ""))
    outcome = [e for e in evs if e["type"] == "outcome"]
    st, conv = call(B, "GET", "/api/sessions/%s/messages" % sid, sid=sid)
    last = conv["messages"][-1] if st == 200 and conv["messages"] else {}
    check(outcome and "个家族成员" in outcome[0]["text"] and any(l["kind"] == "report" for l in outcome[0]["links"])
          and last.get("content") == outcome[0]["text"],
          "the chat hears the run's outcome: members found and the report link, stored in the conversation")
    st, s = call(B, "GET", "/api/agent/status/" + task, sid=sid)
    check(st == 200 and s["state"] == "done" and s["stages"].get("identify") == "done", "status shows the stages done")
    st, res = call(B, "GET", "/api/agent/results/" + task, sid=sid)
    names = [f["name"] for f in res["files"]]
    check("Lchi.%s.pep.fasta" % FAMILY in names and any(n.endswith("report.html") for n in names),
          "results list the family FASTA and the report")
    members = [l for l in open(os.path.join(state, "sessions", sid, "runs", task, "final",
                                            "Lchi.%s.geneID.txt" % FAMILY)).read().split() if l]
    check(sorted(members) == sorted(truth["members"]), "every true member found and no decoy (%d)" % len(members))
    check(res["validation"]["status"] in ("pass", "warn"), "validator ran: " + res["validation"]["status"])
    check("Arabidopsis" in res["literature_comparison"] or "拟南芥" in res["literature_comparison"]
          or FAMILY != "SPL", "the report gets the literature comparison")
    report = [n for n in names if n.endswith("report.html")][0]
    with urllib.request.urlopen(urllib.request.Request(
            B + "/api/agent/results/%s/files/%s?download=1" % (task, report), headers={"X-Session-Id": sid})) as f:
        page = f.read()
        check(f.status == 200 and b"<html" in page[:2000].lower() and "attachment" in f.headers.get("Content-Disposition", ""),
              "report downloads")
        check(b'id="literature-comparison"' in page, "the report ends with the knowledge agent's literature comparison")
        policy = f.headers.get("Content-Security-Policy", "")
        check("default-src 'none'" in policy and "sandbox" in policy, "the HTML result runs no script: " + policy)
    svg = [n for n in names if n.endswith(".svg")][0]
    with urllib.request.urlopen(urllib.request.Request(
            B + "/api/agent/results/%s/files/%s" % (task, svg), headers={"X-Session-Id": sid})) as f:
        policy = f.headers.get("Content-Security-Policy", "")
        check(f.headers.get("Content-Type", "").startswith("image/svg+xml") and "default-src 'none'" in policy,
              "an SVG result is served with the same policy: " + policy)

    # ---- the English exchanges 3 and 4: plan and execute (defaults after the timeout)
    sid_en = session(B)
    upload(B, sid_en, FILES)
    st, r = call(B, "POST", "/api/agent/chat", {"message": "I want to study the %s gene family of lychee. Is it feasible?" % FAMILY}, sid_en)
    check(st == 200 and r["route"]["intent"] == "analysis" and r["plan"]["analysis_plan"]["next_action"] == "wait for confirmation"
          and r["plan"]["analysis_plan"]["reference_genome"]["status"] == "available", "en plan: files available, waits for confirmation")
    st, r = call(B, "POST", "/api/agent/chat", {"message": "Run the analysis"}, sid_en)
    check(st == 200 and r["route"]["intent"] == "execute" and r["task"]["task_id"], "en: 'Run the analysis' starts a task")
    evs_en = events(B, sid_en, r["task"]["task_id"])
    conf_en = [e for e in evs_en if e["type"] == "confirmed"]
    check(conf_en and conf_en[0]["by"] == "timeout" and "default parameters" in conf_en[0]["message"]
          and evs_en[-1]["state"] == "done", "en task: defaults after the timeout, finished")

    # ---- the next run: the learned prevention is applied up front, and said so
    sid2 = session(B)
    upload(B, sid2, MISNAMED)
    st, p = call(B, "POST", "/api/agent/plan", {"species": "Lchi", "gene_family": FAMILY, "language": "en"}, sid2)
    st, t = call(B, "POST", "/api/agent/execute", {"plan_id": p["plan_id"], "auto_confirm": True}, sid2)
    check(st == 202 and t["auto_confirm"] is True, "execute with auto_confirm")
    evs2 = events(B, sid2, t["task_id"])
    prev = [e for e in evs2 if e["type"] == "prevention"]
    check(prev and "learned prevention" in prev[0]["message"] and not [e for e in evs2 if e["type"] == "diagnosis"],
          "next run applied the learned prevention before the check (no failure this time)")
    check(evs2[-1]["state"] == "done", "second task finished")
    st, d = call(B, "POST", "/api/agent/diagnose", {"error_log": "hmmsearch: genome file not found: Lchi.genome.fa"}, sid2)
    check(st == 200 and d["error_type"] == "missing_file" and d["learned"] is not None, "diagnose endpoint classifies a log")

    # ---- hostile and malformed input
    st, e = upload(B, sid, [("../../etc/passwd", b"x")])
    check(st == 200 and e["files"][0]["error"]["code"] == "invalid_argument", "path traversal in an upload name refused")
    # Refused from its declared size before the body is read: the client sees the 413, not a stored file.
    boundary = uuid.uuid4().hex
    big = ("--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"Lchi.big.fasta\"\r\n\r\n" % boundary).encode() \
        + b"A" * (9 << 20) + ("\r\n--%s--\r\n" % boundary).encode()
    st, _, body = http_raw.http(int(B.rsplit(":", 1)[1]), "POST", "/api/upload", big,
                                {"Content-Type": "multipart/form-data; boundary=" + boundary, "X-Session-Id": sid})
    check(st == 413 and not os.path.exists(os.path.join(state, "sessions", sid, "data", "Lchi.big.fasta")),
          "oversized upload refused (%d)" % st)
    st, e = call(B, "GET", "/api/agent/results/%s/files/..%%2F..%%2F..%%2Fapp.sqlite" % task, sid=sid)
    check(st in (403, 404) and e["status"] == "error", "path traversal in a result file refused")
    # Every encoding of a way out of final/, and a symlink planted inside it, finds nothing.
    final_dir = os.path.join(state, "sessions", sid, "runs", task, "final")
    os.symlink("/etc/passwd", os.path.join(final_dir, "planted-link.txt"))
    port = int(B.rsplit(":", 1)[1])
    for name in ["/etc/passwd", "//etc/passwd", "%2Fetc%2Fpasswd", "..%2F..%2F..%2F..%2Fapp.sqlite",
                 "%2e%2e/%2e%2e/%2e%2e/%2e%2e/app.sqlite", "..\\..\\..\\app.sqlite", "%5c..%5c..%5capp.sqlite",
                 report + "%00.txt", "%00", "planted-link.txt", "../final/" + report, "./" + report,
                 os.path.join(final_dir, report)]:
        st, _, body = http_raw.http(port, "GET", "/api/agent/results/%s/files/%s" % (task, name), None,
                                    {"X-Session-Id": sid})
        check(st in (403, 404) and b"root:x:0" not in body and b"SQLite format" not in body and b"<html" not in body,
              "result file %r refused (%d)" % (name, st))
    st, e = call(B, "POST", "/api/agent/chat", raw=b"{not json", sid=sid)
    check(st == 400 and e["error"]["code"] == "parse_error", "malformed JSON body: 400 with a JSON error")
    st, e = call(B, "POST", "/api/agent/chat", {"message": 7}, sid)
    check(st == 400 and e["error"]["details"]["field"] == "message", "wrong type names the field")
    st, e = call(B, "POST", "/api/agent/execute", {"plan_id": p["plan_id"], "params": {"cpu": 0}}, sid2)
    check(st == 400 and "cpu" in e["error"]["message"], "out-of-range parameter refused")
    st, e = call(B, "POST", "/api/agent/execute", {"plan_id": p["plan_id"], "params": {"rm": "-rf"}}, sid2)
    check(st == 400 and e["error"]["details"]["field"] == "rm", "unknown parameter refused")
    # Inputs a client names (never server paths): a comparative species the server does not have and an
    # upload that is not there fail the run at its start, named in its state.
    for given, name in (({"comparative_species": ["Nope"]}, "Nope.gff3"), ({"expression": {"matrix": "absent.tsv"}}, "absent.tsv")):
        st, t = call(B, "POST", "/api/agent/execute", {"plan_id": p["plan_id"], "params": given, "auto_confirm": True}, sid2)
        last = events(B, sid2, t["task_id"], timeout=60)[-1] if st == 202 else {}
        check(last.get("state") == "failed" and name in last.get("message", ""),
              "a named input the server does not have fails the run, named: %s" % last.get("message"))
    st, e = call(B, "POST", "/api/tools", {"name": "calculate_expr", "arguments": {"expr": "__import__('os').system('id')"}})
    check(st == 400 and e["status"] == "error", "code in a calculator expression refused")
    st, e = call(B, "POST", "/api/tools", {"name": "RetrieveFromDatabase", "arguments": {"sql": "DROP TABLE metadata"}})
    check(st >= 400 and e["status"] == "error", "SQL write through the tools endpoint refused")
    st, e = call(B, "POST", "/api/tools", {"name": "fetch_text_from_urls", "arguments": {"urls": ["http://169.254.169.254/latest"]}})
    check(st == 200 and "error" in json.dumps(e["data"]).lower() or st >= 400, "SSRF to a private address refused")
    st, e = call(B, "POST", "/api/agent/chat", {"message": "x" * 30000}, sid)
    check(st == 400, "huge chat message refused")
    # Isolation: another session sees nothing of this one.
    st, e = call(B, "GET", "/api/agent/status/" + task, sid=sid2)
    check(st == 404, "another session cannot see the task")
    st, e = call(B, "GET", "/api/agent/status/" + task, sid="s_" + "0" * 32)
    check(st == 404, "an unknown session sees nothing")
    st, e = call(B, "GET", "/api/agent/results/%s/files/%s" % (task, report), sid=sid2)
    check(st == 404, "another session cannot download the files")

    # ---- load: 200 concurrent status requests, 20 concurrent chats
    codes, lock = [], threading.Lock()

    def status_req():
        c, _ = call(B, "GET", "/api/agent/status/" + task, sid=sid)
        with lock:
            codes.append(c)

    def chat_req(i):
        c, r = call(B, "POST", "/api/agent/chat", {"message": ["总结下SPL基因家族", "What is the WRKY family?"][i % 2]}, sid2)
        with lock:
            codes.append(c if r.get("answer") else 0)

    threads = [threading.Thread(target=status_req) for _ in range(200)] + \
              [threading.Thread(target=chat_req, args=(i,)) for i in range(20)]
    t0 = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(codes.count(200) == 220, "load: 200 status + 20 chats all answered (%d ok in %.1f s)" % (codes.count(200), time.time() - t0))

    # ---- the token is required beyond loopback
    bad = subprocess.run([BIN, "--offline", "serve", "--host", "0.0.0.0", "--port", "0", "--state-dir", state],
                         capture_output=True, text=True, timeout=30)
    check(bad.returncode != 0 and "token" in bad.stdout + bad.stderr, "listening beyond loopback without a token refused")
finally:
    srv.stop()

# ---- online, through the replay server: NCBI Datasets in the plan, literature found
routes = [
    {"path": "/datasets/genome/taxon/Litchi%20chinensis/dataset_report",
     "body": json.dumps({"reports": [{"accession": "GCF_000000001.1",
                                      "assembly_info": {"assembly_name": "Lchi_test_v1", "submitter": "Replay Univ"}}]})},
    {"path": "/pm/esearch.fcgi", "body": "<eSearchResult><Count>1</Count><IdList><Id>7</Id></IdList></eSearchResult>"},
    {"path": "/pm/efetch.fcgi", "body": "<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>7</PMID><Article>"
     "<ArticleTitle>Genome-wide analysis of the SPL gene family in litchi</ArticleTitle><AuthorList><Author><LastName>Chen"
     "</LastName><ForeName>Wei</ForeName></Author></AuthorList></Article></MedlineCitation><PubmedData><ArticleIdList>"
     "<ArticleId IdType=\"doi\">10.1/spl.litchi</ArticleId></ArticleIdList></PubmedData></PubmedArticle></PubmedArticleSet>"},
]
routes_file = os.path.join(WORK, "routes.json")
json.dump(routes, open(routes_file, "w"))
replay = subprocess.Popen(["/usr/bin/python3", os.path.join(os.path.dirname(__file__), "..", "helpers", "replay_server.py"),
                           routes_file], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
rbase = "http://127.0.0.1:%s" % replay.stdout.readline().split()[1]
online_env = {"BIOAGENT_ALLOW_PRIVATE_URLS": "1", "BIOAGENT_CACHE_DIR": os.path.join(WORK, "cache-online"),
              "BIOAGENT_BASE_URL_NCBI_DATASETS": rbase + "/datasets", "BIOAGENT_BASE_URL_PUBMED": rbase + "/pm"}
for src in ["EUROPEPMC", "CLINICALTRIALS", "ARXIV", "SEMANTIC_SCHOLAR"]:
    online_env["BIOAGENT_BASE_URL_" + src] = rbase + "/none"  # 404: never the real service
online = Server(os.path.join(WORK, "state-online"), env=online_env, offline=False)
try:
    sid_on = session(online.base)
    st, r = call(online.base, "POST", "/api/agent/chat", {"message": "荔枝的%s基因家族是否有发表过相关的文章" % FAMILY}, sid_on)
    if FAMILY == "SPL":
        check(st == 200 and r.get("found", 0) >= 1 and "找到" in r["answer"] and r["sources"][0]["locator"],
              "online literature check finds the replayed paper and cites it")
    # The other sources answer 404: the answer says they could not be searched.
    check(st == 200 and r.get("research_gap") is False and r.get("failed") and "无法检索" in r["answer"],
          "online literature check names the sources that failed")
    st, p = call(online.base, "POST", "/api/agent/plan", {"species": "Lchi", "gene_family": FAMILY}, sid_on)
    ncbi = p["plan"]["analysis_plan"]["reference_genome"]["ncbi_datasets"]
    check(st == 200 and ncbi.get("accession") == "GCF_000000001.1" and ncbi.get("assembly_name") == "Lchi_test_v1",
          "online plan names the NCBI Datasets reference assembly")
finally:
    online.stop()
    replay.kill()

# ---- a real run with IQ-TREE: the figures that do not need the tree come while it runs; the run is
# stopped mid-phylogeny (cancelled, resumable, nothing half-written marked done), resumed, killed with
# the server mid-phylogeny, and resumed again after the restart
state2 = os.path.join(WORK, "state-kill")
slow = Server(state2, "--pipeline-params", '{"phylogeny": {"method": "iqtree", "bootstrap": 1000}}')
sid3 = session(slow.base)
upload(slow.base, sid3, FILES)
st, p = call(slow.base, "POST", "/api/agent/plan", {"species": "Lchi", "gene_family": FAMILY}, sid3)
st, t = call(slow.base, "POST", "/api/agent/execute", {"plan_id": p["plan_id"], "auto_confirm": True}, sid3)
task3 = t["task_id"]
BESIDE = ("structure", "motif", "chromosome", "synteny")


def wait_stages(base, want, seconds=120):
    for _ in range(seconds * 5):
        st, s = call(base, "GET", "/api/agent/status/" + task3, sid=sid3)
        if want(s) or s["terminal"]:
            return s
        time.sleep(0.2)
    return s


s = wait_stages(slow.base, lambda s: all(s["stages"].get(x) in ("done", "warn", "skipped") for x in BESIDE))
check(s["stages"].get("phylogeny") == "running" and all(s["stages"].get(x) in ("done", "warn") for x in BESIDE),
      "structure, motif, chromosome and synteny finished while IQ-TREE runs: %s" % s["stages"])
check(s.get("expected_seconds_left") is None or s["expected_seconds_left"] >= 0, "the time left is estimated or says not")
st, stop = call(slow.base, "POST", "/api/agent/stop", {"task_id": task3}, sid3)
check(st == 200 and stop.get("state") == "cancelled", "the stop button's route cancels the run: %s" % stop)
st, s = call(slow.base, "GET", "/api/agent/status/" + task3, sid=sid3)
run3 = os.path.join(state2, "sessions", sid3, "runs", task3, "stages")
half = [d for d in os.listdir(run3) if d.startswith("phylogeny-") and os.path.exists(os.path.join(run3, d, ".complete"))]
check(s["state"] == "cancelled" and s["stages"].get("phylogeny") == "cancelled" and not half,
      "stopped mid-phylogeny: cancelled, and no phylogeny folder marked finished: %s %s" % (s["state"], half))
st, r = call(slow.base, "POST", "/api/agent/resume", {"task_id": task3}, sid3)
check(st == 202 and r.get("resumed"), "the cancelled run resumes")
s = wait_stages(slow.base, lambda s: s["stages"].get("phylogeny") == "running")
check(s["stages"].get("phylogeny") == "running" and s["stages"].get("identify") == "cached",
      "the resumed run reuses identify and runs the tree again")
before_kill = s["events"]  # the events so far (their seq runs 1..n)
slow.stop(signal.SIGKILL)
# The task keeps the parameters it was confirmed with (method iqtree); the restarted server's
# fasttree_above, which the dialog does not offer, keeps the resumed tree quick.
again = Server(state2, "--pipeline-params", '{"phylogeny": {"fasttree_above": 4}}')
evs3 = events(again.base, sid3, task3, after=before_kill)
check("resumed" in [e["type"] for e in evs3], "after the restart the task says it resumed: %s" % evs3[-3:])
cached = [e["stage"] for e in evs3 if e["type"] == "stage" and e["state"] == "cached"]
check("identify" in cached, "finished stages were reused, not redone (cached: %s)" % ",".join(cached))
check(evs3[-1]["state"] == "done", "the resumed task finished")
again.stop()

shutil.rmtree(WORK, ignore_errors=True)
print("%d failure(s)" % len(FAILURES))
sys.exit(1 if FAILURES else 0)
