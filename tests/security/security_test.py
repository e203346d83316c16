#!/usr/bin/python3
"""Hostile requests against `bioagent serve`, each expected to be refused with a
clear JSON error and nothing read, written or leaked: traversal in every
encoding, foreign Origin and Host, wrong Content-Types, token variants,
oversized, slow and streamed uploads, resource-exhausting and revealing SQL,
malformed bodies, wrong methods, MCP session expiry, a URL that never answers,
and a bounded load test (bursts of concurrent status requests and chats).
Only loopback addresses are used; every loop is bounded in count and time.

Usage: security_test.py BIOAGENT_BIN WEB_DIST_DIR"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_raw import http, minimal_pdf  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from bioagent_server import Server  # noqa: E402

BIN, WEB = sys.argv[1], sys.argv[2]
WORK = tempfile.mkdtemp(prefix="bioagent-sec-")
FAILURES, COUNT = [], [0]
TOKEN = "s3cret-" + uuid.uuid4().hex
SECRETS = [b"root:x:0:0", b"SQLite format 3", TOKEN.encode(), b"BIOAGENT_", WORK.encode()]


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILURES.append(what)


def refused(resp, codes, what, rpc=False):
    """A hostile request: refused with one of `codes`, a JSON error body (on /mcp, `rpc`: a JSON-RPC
    error with an integer code), nothing secret in it."""
    COUNT[0] += 1
    st, headers, body = resp
    try:
        j = json.loads(body)
        if rpc:
            is_json_error = j.get("jsonrpc") == "2.0" and isinstance(j["error"]["code"], int) and j["error"]["message"]
        else:
            is_json_error = j.get("status") == "error" and j["error"]["message"]
    except (ValueError, KeyError, TypeError, AttributeError):
        is_json_error = False
    leaked = [s for s in SECRETS if s in body]
    check(st in codes and is_json_error and not leaked,
          "%s -> %s%s" % (what, st, (" LEAKED %s" % leaked) if leaked else ""))
    return j if is_json_error else None


# ---- servers: loopback, and every interface with a token (tests speak only to 127.0.0.1)
state = os.path.join(WORK, "state")
papers_db = os.path.join(WORK, "papers.duckdb")
pdf = os.path.join(WORK, "tiny.pdf")
open(pdf, "wb").write(minimal_pdf("Gene family test paper about SPL genes"))
subprocess.run([BIN, "--papers-db", papers_db, "papers", "add", pdf], check=True, stdout=subprocess.DEVNULL)
common = ["--web-dir", WEB, "--read-timeout", "2", "--max-upload-mb", "4", "--confirm-timeout", "3600"]
srv = Server(BIN, WORK, os.path.join(WORK, "state"), *common, "--mcp-session-idle", "2", pre=["--papers-db", papers_db])
# Online, so that fetch_text_from_urls really connects (to a loopback socket that never answers, and nothing else).
tok = Server(BIN, WORK, os.path.join(WORK, "state-tok"), *common, "--host", "0.0.0.0", "--token", TOKEN,
             env={"BIOAGENT_ALLOW_PRIVATE_URLS": "1", "BIOAGENT_CACHE_DIR": os.path.join(WORK, "cache-tok")},
             offline=False)
P, PT = srv.port, tok.port
try:
    st, _, b = http(P, "POST", "/api/sessions", b"{}", {"Content-Type": "application/json"})
    SID = json.loads(b)["session_id"]
    JSON = {"Content-Type": "application/json"}

    # ---- 1. the web route never maps a path to the file system
    st, _, index = http(P, "GET", "/")
    check(st == 200 and b"<html" in index.lower()[:500], "the UI's index.html is served")
    assets = [n for n in os.listdir(os.path.join(WEB, "assets"))]
    st, _, _ = http(P, "GET", "/assets/" + assets[0])
    check(st == 200, "a built asset is served by its name")
    traversal = ["//etc/passwd", "/%2Fetc%2Fpasswd", "/%2fetc%2fpasswd", "//proc/self/environ", "//proc/self/cmdline",
                 "/" + state + "/app.sqlite", "/" + os.path.join(state, "app.sqlite").lstrip("/"),
                 "/../../../../etc/passwd", "/assets/../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
                 "/..%2f..%2f..%2fetc%2fpasswd", "/..%5c..%5c..%5cetc%5cpasswd", "/..\\..\\..\\etc\\passwd",
                 "/index.html%00.png", "/%00", "/assets/%2e%2e%2f%2e%2e%2fpackage.json", "/.%2e/.%2e/etc/passwd",
                 "/%252e%252e/etc/passwd", "/.git/config", "/../package.json", "/%c0%ae%c0%ae/etc/passwd",
                 "/assets//etc/passwd", "///etc/passwd", "/?file=/etc/passwd&x=//etc/passwd"]
    for path in traversal:
        for port, name in ((P, "loopback"), (PT, "token server")):
            resp = http(port, "GET", path)
            if path.startswith("/?"):  # the query is not a file name: the index page, nothing else
                COUNT[0] += 1
                check(resp[0] == 200 and resp[2] == index, "%s %s serves only index.html" % (name, path))
            else:
                refused(resp, (400, 404), "%s GET %s" % (name, path))
    os.symlink("/etc/passwd", os.path.join(WEB, "assets", "sec-link.txt")) if os.access(WEB, os.W_OK) else None
    refused(http(P, "GET", "/assets/sec-link.txt"), (404,), "a symlink added after start is not served")
    try:
        os.unlink(os.path.join(WEB, "assets", "sec-link.txt"))
    except OSError:
        pass

    # ---- 2. foreign origins and hosts, content types
    calc = json.dumps({"expr": "6*7"}).encode()
    st, _, b = http(P, "POST", "/api/tools/calculate_expr", calc, JSON)
    check(st == 200 and json.loads(b)["data"]["result"] == 42, "same-origin tool call works")
    st, _, b = http(P, "POST", "/api/tools/calculate_expr", calc, {**JSON, "Origin": "http://127.0.0.1:%d" % P})
    check(st == 200, "the server's own Origin is accepted")
    for origin in ["http://evil.example", "null", "http://127.0.0.1:%d" % (P + 1), "https://127.0.0.1:%d" % P,
                   "http://localhost.evil.example:%d" % P, "http://127.0.0.1.nip.io:%d" % P, "file://", "http://[::1]:1"]:
        refused(http(P, "POST", "/api/tools/calculate_expr", calc, {**JSON, "Origin": origin}), (403,),
                "POST with Origin %s" % origin)
    init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "t", "version": "1"}}}).encode()
    refused(http(P, "POST", "/mcp", init, {**JSON, "Origin": "http://evil.example"}), (403,), "/mcp initialize, foreign Origin", rpc=True)
    refused(http(P, "GET", "/mcp", None, {"Origin": "http://evil.example"}), (403,), "GET /mcp, foreign Origin", rpc=True)
    for host in ["evil.example", "evil.example:%d" % P, "127.0.0.1.evil.example", "localhost.evil.example",
                 "attacker.localhost.example", "[::1", "127.0.0.1:abc"]:
        refused(http(P, "POST", "/api/tools/calculate_expr", calc, {**JSON, "Host": host}), (400, 421),
                "POST with Host %s" % host)
        COUNT[0] += 1
    refused(http(P, "GET", "/api/config", None, {"Host": "evil.example"}), (421,), "GET with a rebound Host")
    refused(http(P, "POST", "/mcp", init, {**JSON, "Host": "evil.example"}), (421,), "/mcp with a rebound Host", rpc=True)
    for ctype in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "",
                  "application/json-patch+json", "text/json"]:
        hdr = {"Content-Type": ctype} if ctype else {}
        refused(http(P, "POST", "/api/tools/calculate_expr", calc, hdr), (415,), "POST body as '%s'" % ctype)
    refused(http(P, "POST", "/mcp", init, {"Content-Type": "text/plain"}), (415,), "/mcp as text/plain", rpc=True)
    refused(http(P, "POST", "/api/upload", b"{}", JSON), (400,), "upload that is not multipart")

    # ---- 3. the token, in every shape
    st, _, _ = http(PT, "GET", "/api/config", None, {"Authorization": "Bearer " + TOKEN})
    check(st == 200, "token server: the right token works")
    for hdr in [{}, {"Authorization": "Bearer"}, {"Authorization": "Bearer "}, {"Authorization": "Bearer wrong"},
                {"Authorization": "Bearer " + TOKEN + "x"}, {"Authorization": "Bearer " + TOKEN[:-1]},
                {"Authorization": "Basic " + TOKEN}, {"Authorization": "bearer  " + TOKEN},
                {"Authorization": "Bearer " + "A" * 10000}, {"Authorization": TOKEN}]:
        refused(http(PT, "GET", "/api/config", None, hdr), (400, 401), "token server: Authorization %r" % (
            list(hdr.values())[0][:30] if hdr else None))
    refused(http(PT, "GET", "/api/config?access_token=wrong"), (401,), "token server: wrong access_token")
    refused(http(PT, "POST", "/mcp", init, JSON), (401,), "token server: /mcp without a token", rpc=True)
    refused(http(PT, "POST", "/api/upload", b"x", {"Content-Type": "multipart/form-data; boundary=x"}), (401,),
            "token server: upload without a token")

    # ---- 4. bodies: framing, size, types, fields
    t0 = time.time()
    st, _, b = http(P, "POST", "/api/sessions", None, {})
    check(st == 201 and time.time() - t0 < 2, "POST /api/sessions without a body: answered at once (%.2f s)" % (time.time() - t0))
    t0 = time.time()
    refused(http(P, "POST", "/api/upload", None, {"Content-Type": "multipart/form-data; boundary=x",
                                                  "Content-Length": str(3 << 30), "X-Session-Id": SID}, send_body=False),
            (413,), "a declared 3 GiB upload refused before its body")
    check(time.time() - t0 < 2, "  ... within %.2f s" % (time.time() - t0))
    refused(http(P, "POST", "/api/tools/calculate_expr", None, {**JSON, "Content-Length": str(200 << 20)},
                 send_body=False), (413,), "a declared 200 MiB JSON body")
    refused(http(P, "POST", "/api/tools/calculate_expr", b"4\r\n{}  \r\n0\r\n\r\n",
                 {**JSON, "Transfer-Encoding": "chunked"}), (411,), "a chunked body")
    refused(http(P, "POST", "/api/tools/calculate_expr", calc, {**JSON, "Content-Length": "-5"}), (400,),
            "a negative Content-Length")
    for body, what in [(b'{"message": "hi", "session_id": 123}', "session_id: 123"),
                       (b'{"message": "hi", "stream": "yes"}', "stream: \"yes\""),
                       (b'{"message": "hi", "sesion_id": "x"}', "an unknown field"),
                       (b'{"message": 5}', "message: 5"), (b'[]', "an array body"), (b'{"message": "hi"', "cut JSON"),
                       (b'\xff\xfe{', "bytes that are not UTF-8"), (b'{}', "no message")]:
        refused(http(P, "POST", "/api/agent/chat", body, JSON), (400,), "chat with %s" % what)
    refused(http(P, "POST", "/api/agent/confirm", b'{"task_id": "t", "action": "rm -rf"}', JSON), (400,),
            "confirm with an action outside the enum")
    for method, path in [("GET", "/api/agent/chat"), ("GET", "/api/upload"), ("POST", "/api/agent/status/x"),
                         ("DELETE", "/api/sessions"), ("GET", "/api/agent/plan")]:
        j = refused(http(P, method, path, b"{}" if method != "GET" else None, JSON), (405,), "%s %s" % (method, path))
        check(j is not None and "allowed" in j["error"]["message"], "  ... says which methods are allowed")

    # ---- 5. uploads: names, streaming, slow clients
    def multipart(files, sid_field=None):
        boundary = uuid.uuid4().hex
        parts = []
        if sid_field:
            parts.append(("--%s\r\nContent-Disposition: form-data; name=\"session_id\"\r\n\r\n%s\r\n"
                          % (boundary, sid_field)).encode())
        for name, content in files:
            parts.append(("--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"%s\"\r\n"
                          "Content-Type: application/octet-stream\r\n\r\n" % (boundary, name)).encode() + content + b"\r\n")
        return b"".join(parts) + ("--%s--\r\n" % boundary).encode(), "multipart/form-data; boundary=" + boundary

    data_dir = os.path.join(state, "sessions", SID, "data")
    for name in ["../../etc/passwd", "/etc/passwd", "..\\..\\x.fasta", "a%00b.fasta", "%2e%2e%2fx.fasta", ".hidden",
                 "x/../../y.fasta", "C:\\win.fasta", "a" * 300, "Lchi.gff3\r\nX-Injected: 1"]:
        body, ctype = multipart([(name, b">x\nACGT\n")])
        st, _, b = http(P, "POST", "/api/upload", body, {"Content-Type": ctype, "X-Session-Id": SID})
        COUNT[0] += 1
        try:
            err = json.loads(b)["files"][0].get("error") if st == 200 else json.loads(b).get("error")
        except (ValueError, KeyError, IndexError):
            err = None
        check(err is not None and st in (200, 400), "upload named %r refused (%s)" % (name[:40], st))
    outside = os.path.join(WORK, "outside.txt")
    open(outside, "w").write("untouched")
    os.makedirs(data_dir, exist_ok=True)
    os.symlink(outside, os.path.join(data_dir, "Exam.gff3"))
    body, ctype = multipart([("Exam.gff3", b"##gff-version 3\n")])
    st, _, b = http(P, "POST", "/api/upload", body, {"Content-Type": ctype, "X-Session-Id": SID})
    check(st == 200 and open(outside).read() == "untouched" and not os.path.islink(os.path.join(data_dir, "Exam.gff3")),
          "an upload over a symlink replaces the link, never writes through it")
    body, ctype = multipart([("Exam.pep.fasta", b">p\nMKV\n" * ((5 << 20) // 7))])
    refused(http(P, "POST", "/api/upload", body, {"Content-Type": ctype, "X-Session-Id": SID}), (413,),
            "an upload over --max-upload-mb")
    body, ctype = multipart([("Exam.cds.fasta", b">c\nATG\n")])
    refused(http(P, "POST", "/api/upload", body, {"Content-Type": ctype, "X-Session-Id": "s_" + "0" * 32}), (404,),
            "an upload into an unknown session")
    body, ctype = multipart([("Exam.cds.fasta", b">c\nATG\n")], sid_field=SID)
    st, _, b = http(P, "POST", "/api/upload", body, {"Content-Type": ctype})
    check(st == 200 and json.loads(b)["files"][0]["file"] == "Exam.cds.fasta", "session_id as a part before the files")
    leftovers = [f for f in os.listdir(os.path.join(state, "sessions", SID, ".incoming"))]
    check(leftovers == [], "no partial upload left behind (%s)" % leftovers)
    # a slow client: headers, a few bytes, then silence -> dropped after --read-timeout
    s = socket.create_connection(("127.0.0.1", P), timeout=10)
    s.sendall(("POST /api/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Session-Id: %s\r\nContent-Type: multipart/form-data; "
               "boundary=b\r\nContent-Length: 100000\r\n\r\n--b\r\n" % SID).encode())
    t0 = time.time()
    got = b""
    try:
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
    except socket.timeout:
        pass
    s.close()
    COUNT[0] += 1
    check(time.time() - t0 < 8, "a stalled upload is dropped after the read timeout (%.1f s)" % (time.time() - t0))
    st, _, _ = http(P, "GET", "/healthz")
    check(st == 200, "the server answers after the stalled upload")
    # streamed to disk: a 3.5 MB upload does not grow the server by its size
    def rss(pid):
        for line in open("/proc/%d/status" % pid):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0
    before = rss(srv.proc.pid)
    body, ctype = multipart([("Exam.genome.fasta", b">chr1\n" + b"ACGTACGTAC" * 350000 + b"\n")])
    st, _, b = http(P, "POST", "/api/upload", body, {"Content-Type": ctype, "X-Session-Id": SID})
    grew = rss(srv.proc.pid) - before
    check(st == 200 and json.loads(b)["files"][0]["bytes"] > 3000000, "a 3.5 MB upload is stored")
    print("note: server RSS grew by %.1f MB during a 3.5 MB upload" % (grew / 1e6))

    # ---- 6. SQL that reveals or exhausts
    def sql(q):
        return http(P, "POST", "/api/tools/RetrieveFromDatabase", json.dumps({"sql": q}).encode(), JSON, timeout=60)
    st, _, b = sql("SELECT count(*) AS n FROM metadata")
    check(st == 200 and json.loads(b)["data"]["rows"][0][0] in (1, "1"), "a plain SELECT works")
    for q in ["SELECT * FROM duckdb_databases()", "SELECT path FROM duckdb_databases", "SELECT current_setting('temp_directory')",
              "SELECT * FROM duckdb_settings()", "SELECT * FROM pragma_database_list", "SELECT getenv('HOME')",
              "SELECT * FROM duckdb_extensions()", "SELECT * FROM duckdb_temporary_files()",
              "SELECT * FROM read_csv('/etc/passwd')", "SELECT * FROM read_text('/proc/self/environ')",
              "COPY metadata TO '/tmp/x.csv'", "ATTACH '/tmp/x.db' AS x", "INSERT INTO metadata VALUES (1)",
              "DELETE FROM metadata", "SET memory_limit='100GB'", "PRAGMA threads=64", "INSTALL httpfs",
              "SELECT 1; DROP TABLE metadata", "CREATE TABLE t AS SELECT 1", "CALL pragma_version()"]:
        refused(sql(q), (400, 403), "SQL %s" % q[:60])
    st, _, b = sql("SELECT count(*) AS n FROM metadata")
    check(st == 200, "the library is intact after the refused writes")
    peak = [0]
    stop = threading.Event()

    def sample_tree_rss():
        while not stop.is_set():
            total = rss(srv.proc.pid)
            try:  # children are listed per thread (the query forks from a worker thread)
                for tid in os.listdir("/proc/%d/task" % srv.proc.pid):
                    for child in open("/proc/%d/task/%s/children" % (srv.proc.pid, tid)).read().split():
                        total += rss(int(child))
            except (OSError, ValueError):
                pass
            peak[0] = max(peak[0], total)
            time.sleep(0.05)
    sampler = threading.Thread(target=sample_tree_rss)
    sampler.start()
    t0 = time.time()
    resp = sql("SELECT count(*) FROM (SELECT DISTINCT repeat(chr(65 + (i % 26)::INTEGER), 100000000) || i::VARCHAR "
               "AS s FROM range(60) t(i))")
    took = time.time() - t0
    stop.set()
    sampler.join()
    refused(resp, (413, 504), "memory-exhausting SQL")
    check(took < 31 and peak[0] < 1 << 30, "  ... stopped in %.1f s, server and query peaked at %.0f MB" % (took, peak[0] / 1e6))

    # ---- 7. MCP sessions expire; a URL that never answers has one deadline
    st, h, _ = http(P, "POST", "/mcp", init, JSON)
    msid = h.get("mcp-session-id", "")
    check(st == 200 and msid, "MCP initialize works")
    time.sleep(3)
    ping = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}).encode()
    st, _, b = http(P, "POST", "/mcp", ping, {**JSON, "Mcp-Session-Id": msid})
    COUNT[0] += 1
    check(st == 404 and "expired" in b.decode(), "an idle MCP session expires (--mcp-session-idle 2)")
    # A query that only computes: interrupted at its 30 s limit, the child killed by 31 s (runs beside the next check).
    slow = {}

    def slow_sql():
        t = time.time()
        slow["resp"] = sql("SELECT count(*) FROM range(100000000000) a, range(10) b WHERE a.range % 7 = b.range")
        slow["took"] = time.time() - t
    slow_thread = threading.Thread(target=slow_sql)
    slow_thread.start()
    black = socket.socket()
    black.bind(("127.0.0.1", 0))
    black.listen(16)  # accepts, never answers
    url = "http://127.0.0.1:%d/paper" % black.getsockname()[1]
    t0 = time.time()
    st, _, b = http(PT, "POST", "/api/tools/fetch_text_from_urls",
                    json.dumps({"paper_info_list": [{"url": url, "title": "t"}]}).encode(),
                    {**JSON, "Authorization": "Bearer " + TOKEN}, timeout=150)
    took = time.time() - t0
    black.close()
    text = json.loads(b)["data"][0]["retrieved_text_content"] if st == 200 else b.decode()[:200]
    check(st == 200 and 25 < took < 40 and text.startswith("Error fetching URL"),
          "a URL that never answers ends after one deadline (%.1f s: %s)" % (took, text[:100]))
    slow_thread.join()
    refused(slow["resp"], (504,), "SQL that runs past its time limit")
    check(slow["took"] < 32, "  ... ended %.1f s after it started (limit 30 s + 1 s)" % slow["took"])

    # ---- 8. load: bursts of concurrent status requests and chats, no errors, p99 under 2 s
    st, _, b = http(P, "POST", "/api/agent/plan", json.dumps({"species": "Exam", "gene_family": "GLOBIN"}).encode(),
                    {**JSON, "X-Session-Id": SID})
    plan = json.loads(b)
    st, _, b = http(P, "POST", "/api/agent/execute", json.dumps({"plan_id": plan.get("plan_id", "")}).encode(),
                    {**JSON, "X-Session-Id": SID})
    task = json.loads(b).get("task_id") or json.loads(b).get("task", {}).get("task_id", "")
    check(st == 202 and task, "a task waits in its parameter dialog for the load test")
    lat, errors, lock = [], [], threading.Lock()

    def status_req():
        t = time.time()
        st, _, _ = http(P, "GET", "/api/agent/status/" + task, None, {"X-Session-Id": SID}, timeout=60)
        with lock:
            lat.append(time.time() - t)
            if st != 200:
                errors.append(st)

    def chat_req(i):
        msg = ["总结下SPL基因家族", "What is the WRKY family?"][i % 2]
        st, _, b = http(P, "POST", "/api/agent/chat", json.dumps({"message": msg}).encode(), JSON, timeout=120)
        with lock:
            if st != 200 or not json.loads(b).get("answer"):
                errors.append(("chat", st))
    t_all = time.time()
    for burst in range(7):
        threads = [threading.Thread(target=status_req) for _ in range(200)] + \
                  [threading.Thread(target=chat_req, args=(i,)) for i in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    lat.sort()
    p99 = lat[int(len(lat) * 0.99) - 1]
    check(not errors and len(lat) == 1400 and p99 < 2.0,
          "load: 7 bursts of 200 status + 20 chats, %d errors, p99 %.2f s, max %.2f s, %.1f s in all"
          % (len(errors), p99, lat[-1], time.time() - t_all))
    http(P, "POST", "/api/agent/confirm", json.dumps({"task_id": task, "action": "cancel"}).encode(),
         {**JSON, "X-Session-Id": SID})
finally:
    srv.stop()
    tok.stop()

check(COUNT[0] >= 100, "%d hostile requests in all" % COUNT[0])
shutil.rmtree(WORK, ignore_errors=True)
if FAILURES:
    print("FAILED %d: %s" % (len(FAILURES), "; ".join(FAILURES)))
    sys.exit(1)
print("security: all checks passed")
