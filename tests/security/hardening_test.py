#!/usr/bin/python3
"""Hostile input that used to crash, starve or leak from `bioagent serve` and
`bioagent mcp`, each expected to be a clear JSON refusal (or a bounded answer)
with the server alive afterwards: JSON nested 50,000 deep on every JSON route
and over MCP (HTTP and stdio), chat messages of 10k / 100k / 1M characters on
every intent, SQL that reveals server paths, a 9 KB calculator expression,
one session reading another's files through the tools while the state folder
lies under the workspace root, more waiting parameter dialogs than a
session may hold, and every JSON route's body with one field of the wrong
type. Loopback only; every loop is bounded.

Usage: hardening_test.py BIOAGENT_BIN"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_raw import http, minimal_pdf  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from bioagent_server import Server  # noqa: E402

BIN = sys.argv[1]
WORK = tempfile.mkdtemp(prefix="bioagent-hard-")
FAILURES = []
JSON = {"Content-Type": "application/json"}


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILURES.append(what)


def error_of(resp):
    try:
        j = json.loads(resp[2])
        return j["error"] if j.get("status") == "error" else None
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def refused(resp, codes, what, secrets=()):
    st, _, body = resp
    leaked = [s for s in secrets if s and s.encode() in body]
    check(st in codes and error_of(resp) is not None and not leaked,
          "%s -> %s%s" % (what, st, (" LEAKED %s" % leaked) if leaked else ""))


def alive(port, what):
    st, _, _ = http(port, "GET", "/api/config", timeout=30)
    check(st == 200, "the server still answers after %s" % what)


def post(port, path, obj, sid=None, timeout=120):
    hdr = dict(JSON)
    if sid:
        hdr["X-Session-Id"] = sid
    body = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return http(port, "POST", path, body, hdr, timeout=timeout)


def deep(n):
    return "[" * n + "]" * n


papers_db = os.path.join(WORK, "papers.duckdb")
pdf = os.path.join(WORK, "tiny.pdf")
open(pdf, "wb").write(minimal_pdf("Gene family test paper about SPL genes"))
subprocess.run([BIN, "--papers-db", papers_db, "papers", "add", pdf], check=True, stdout=subprocess.DEVNULL)
state = os.path.join(WORK, "state")  # under the workspace root on purpose
srv = Server(BIN, WORK, state, "--confirm-timeout", "3600", pre=["--papers-db", papers_db, "--root", WORK])
P = srv.port
try:
    SID = json.loads(post(P, "/api/sessions", {})[2])["session_id"]
    OTHER = json.loads(post(P, "/api/sessions", {})[2])["session_id"]
    SECRETS = [WORK, state, SID, OTHER, os.path.expanduser("~")]

    # ---- 1. JSON nested 50,000 deep on every JSON route, over MCP-HTTP and MCP stdio
    d = deep(50000)
    for path, body in [("/api/tools/calculate_expr", '{"expr": %s}' % d),
                       ("/api/tools", '{"name": "calculate_expr", "arguments": {"expr": %s}}' % d),
                       ("/api/agent/execute", '{"plan_id": "p", "params": {"x": %s}}' % d),
                       ("/api/agent/confirm", '{"task_id": "t", "action": "modify", "params": %s}' % d),
                       ("/api/agent/chat", '{"message": %s}' % d),
                       ("/api/tools/calculate_expr", d),
                       ("/api/tools/calculate_expr", "{" * 100000)]:
        refused(post(P, path, body.encode(), SID), (400,), "JSON 50,000 deep to %s" % path)
    alive(P, "deep JSON bodies")
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    st, hdr, _ = post(P, "/mcp", init)
    msid = hdr.get("mcp-session-id", "")
    call = ('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "calculate_expr", '
            '"arguments": {"expr": %s}}}' % d).encode()
    st, _, b = http(P, "POST", "/mcp", call, {**JSON, "Accept": "application/json, text/event-stream",
                                              "Mcp-Session-Id": msid, "MCP-Protocol-Version": "2025-06-18"})
    check(st == 400 and b"256" in b, "MCP-HTTP tools/call with arguments 50,000 deep -> %s" % st)
    alive(P, "deep MCP-HTTP message")
    mcp = subprocess.run([BIN, "--offline", "mcp"], input=(d + "\n" + call.decode() + "\n" +
                                                           '{"jsonrpc": "2.0", "id": 3, "method": "ping"}\n').encode(),
                         capture_output=True, timeout=60)
    lines = [json.loads(x) for x in mcp.stdout.decode().splitlines() if x.strip()]
    errors = [x for x in lines if x.get("error", {}).get("code") == -32700]
    pong = [x for x in lines if x.get("id") == 3 and "result" in x]
    check(mcp.returncode == 0 and len(errors) == 2 and pong,
          "bioagent mcp over stdio refuses two deep messages and answers the next (rc %s)" % mcp.returncode)

    # ---- 2. long chat messages on every intent path
    for n in (10000, 100000, 1000000):
        for text in ["calculate " + "1" * n + "+1", "总结下SPL基因家族" + "啊" * (n // 3), "papers about " + "a " * (n // 2),
                     "如果我想开展荔枝的SPL基因家族研究，可以吗？" + "x" * n, "执行分析" + " " * n,
                     "[1] \"" + "q" * n + "\" SPL9 3.5 " * 3]:
            t0 = time.time()
            resp = post(P, "/api/agent/chat", {"message": text}, SID, timeout=120)
            ok = resp[0] == 200 or (resp[0] in (400, 413) and error_of(resp) is not None)
            check(ok and time.time() - t0 < 60, "chat of %d characters (%s...) -> %s in %.1f s"
                  % (len(text), text[:12], resp[0], time.time() - t0))
    alive(P, "long chat messages")

    # ---- 3. SQL that reveals server paths, decided from DuckDB's parse
    for q in ['SELECT path FROM "duckdb_databases"()', 'SELECT "current_setting"(\'home_directory\')',
              "SELECT $$ /* $$ AS a, current_setting('temp_directory') AS b -- */",
              'SELECT * FROM "query"(\'SELECT path FROM duck\'||\'db_databases()\')',
              "SELECT * FROM glob('/etc/*')", "SELECT * FROM read_csv('/etc/passwd')",
              "SELECT * FROM duckdb_settings()", "SELECT * FROM pg_catalog.pg_settings",
              "SELECT getenv('HOME')", "SELECT * FROM duckdb_databases"]:
        refused(post(P, "/api/tools/RetrieveFromDatabase", {"sql": q}), (403,), "SQL %s" % q[:50], SECRETS)
    st, _, b = post(P, "/api/tools/RetrieveFromDatabase", {"sql": "SELECT count(*) AS n FROM metadata"})
    check(st == 200 and json.loads(b)["data"]["rows"][0][0] == 1, "a library query still runs")

    # ---- 4. a 9 KB calculator expression costs a bounded amount of CPU
    t0 = time.time()
    resp = post(P, "/api/tools/calculate_expr", {"expr": "99**9999-" * 1000 + "1"})
    check(resp[0] == 413 and time.time() - t0 < 5, "a 9 KB big-integer expression -> %s in %.2f s"
          % (resp[0], time.time() - t0))

    # ---- 5. one session cannot read another's files through the tools
    boundary = uuid.uuid4().hex
    secret = b"gene,value\nSECRET_ROW,42\n"
    nb = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                     "cells": [{"cell_type": "code", "source": "print(1)", "metadata": {}, "outputs": []}]}).encode()
    body = b"".join(("--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"%s\"\r\n"
                     "Content-Type: application/octet-stream\r\n\r\n" % (boundary, name)).encode() + data + b"\r\n"
                    for name, data in [("secret_a.csv", secret), ("private_executed.ipynb", nb)])
    body += ("--%s--\r\n" % boundary).encode()
    st, _, b = http(P, "POST", "/api/upload", body,
                    {"Content-Type": "multipart/form-data; boundary=" + boundary, "X-Session-Id": SID})
    check(st == 200, "session A uploads a CSV and a notebook")
    upload = os.path.join(state, "sessions", SID, "data", "secret_a.csv")
    check(os.path.exists(upload), "the upload is in A's folder under the state folder")
    rel = os.path.relpath(upload, WORK)
    for name, args in [("get_raw_excel_data", {"file_path": upload}), ("get_raw_excel_data", {"file_path": rel}),
                       ("read_executed_notebook", {"notebook_path": os.path.join(os.path.dirname(rel),
                                                                                 "private_executed.ipynb")}),
                       ("read_executed_notebook", {"data_folder": "state"}),
                       ("read_executed_notebook", {"data_folder": os.path.join("state", "sessions")})]:
        resp = post(P, "/api/tools", {"name": name, "arguments": args}, OTHER)
        leaked = b"SECRET_ROW" in resp[2] or SID.encode() in resp[2] or b"print(1)" in resp[2]
        data = json.loads(resp[2]).get("data", {}) if resp[0] == 200 else {}
        empty = resp[0] == 200 and not data.get("data") and "error_code" in data
        check((resp[0] in (403, 404) or empty) and not leaked,
              "session B: %s %s -> %s%s" % (name, json.dumps(args)[:60], resp[0], " LEAKED" if leaked else ""))
    open(os.path.join(WORK, "mine_executed.ipynb"), "wb").write(nb)
    st, _, b = post(P, "/api/tools", {"name": "read_executed_notebook", "arguments": {"data_folder": "."}}, OTHER)
    j = json.loads(b).get("data", {}) if st == 200 else {}
    check(st == 200 and j.get("notebook_path") == "mine_executed.ipynb" and SID.encode() not in b
          and WORK.encode() not in b and "other_notebooks" not in j,
          "data_folder over the workspace finds the workspace's notebook, none of the state, relative paths (%s)"
          % b[:200])

    # ---- 6. waiting parameter dialogs per session are bounded
    st, _, b = post(P, "/api/agent/plan", {"species": "Exam", "gene_family": "GLOBIN", "language": "en"}, OTHER)
    plan_id = json.loads(b).get("plan_id", "")
    check(st == 200 and plan_id, "a plan for the example genome")
    started = []
    for i in range(4):
        st, _, b = post(P, "/api/agent/execute", {"plan_id": plan_id}, OTHER)
        if st == 202:
            started.append(json.loads(b)["task_id"])
    check(len(started) == 4, "four runs wait for their parameters")
    resp = post(P, "/api/agent/execute", {"plan_id": plan_id}, OTHER)
    refused(resp, (413, 429), "a fifth waiting run in one session")
    for t in started:
        post(P, "/api/agent/confirm", {"task_id": t, "action": "cancel"}, OTHER)
    alive(P, "the task limits")

    # ---- 7. a field of the wrong type anywhere in a JSON body: a 4xx naming it, never a 5xx
    THIRD = json.loads(post(P, "/api/sessions", {})[2])["session_id"]
    st, _, b = post(P, "/api/agent/plan", {"species": "Exam", "gene_family": "GLOBIN", "language": "en"}, THIRD)
    pid = json.loads(b).get("plan_id", "")
    bodies = [("/api/agent/chat", {"message": "What is the SPL family?", "language": "en"}),
              ("/api/agent/plan", {"species": "Exam", "gene_family": "GLOBIN", "language": "zh",
                                   "params": {"identify": {"evalue": 1e-5}}}),
              ("/api/agent/execute", {"plan_id": pid, "params": {"phylogeny": {"method": "fasttree"}}}),
              ("/api/agent/confirm", {"task_id": "t_x", "action": "confirm", "params": {"cpus": 2}}),
              ("/api/agent/diagnose", {"task_id": "t_x", "error": "boom", "stage": "identify"}),
              ("/api/data_roots/select", {"root": "genomes", "folder": "plants/Lchi"}),
              ("/api/tools/calculate_expr", {"expr": "1+1"}),
              ("/api/tools", {"name": "calculate_expr", "arguments": {"expr": "1+1"}}),
              ("/api/sessions", {"language": "en"})]
    wrong = [None, 7, -2.5, "x", [], [1, "a"], {}, {"k": 1}]

    def paths(doc, at=()):
        yield at
        items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else []
        for k, v in items:
            yield from paths(v, at + (k,))

    def replaced(doc, at, value):
        if not at:
            return value
        out = json.loads(json.dumps(doc))
        cur = out
        for k in at[:-1]:
            cur = cur[k]
        cur[at[-1]] = value
        return out

    sent, server_errors = 0, []
    for path, body in bodies:
        for at in list(paths(body)):
            for value in wrong:
                st, _, b = post(P, path, replaced(body, at, value), THIRD)
                sent += 1
                if st >= 500:
                    server_errors.append("%s %s=%r -> %s" % (path, "/".join(map(str, at)), value, st))
    check(sent > 250 and not server_errors,
          "%d bodies with one field of the wrong type: no 5xx %s" % (sent, server_errors[:3]))
    alive(P, "bodies of the wrong shape")
    check(srv.proc.poll() is None, "the server process is alive at the end")
finally:
    srv.stop()
    shutil.rmtree(WORK, ignore_errors=True)

print("%d failures" % len(FAILURES))
sys.exit(1 if FAILURES else 0)
