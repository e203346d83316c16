#!/usr/bin/python3
"""Per-session tool workspaces: a tool called in a session (HTTP /api/tools with
X-Session-Id, MCP over HTTP initialised with X-Session-Id, the chat) reads the
data folders named at start and that session's own files, never the state
folder or another session's files, and neither results nor refusals name an
absolute server path or another session's id. The state folder lies under the
data root on purpose. Session B tries every way at A's upload (a data_folder
walk, the absolute path, relative paths with and without '..', a symlink in
the data root, the names A's results print); A still reads its own files.
Loopback only; every loop is bounded.

Usage: workspace_test.py BIOAGENT_BIN"""
import json
import os
import shutil
import sys
import tempfile
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_raw import http  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from bioagent_server import Server  # noqa: E402

BIN = sys.argv[1]
WORK = os.path.realpath(tempfile.mkdtemp(prefix="bioagent-ws-"))
FAILURES = []
JSON = {"Content-Type": "application/json"}


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILURES.append(what)


def post(port, path, obj, sid=None, extra=None):
    hdr = {**JSON, **(extra or {})}
    if sid:
        hdr["X-Session-Id"] = sid
    return http(port, "POST", path, json.dumps(obj).encode(), hdr, timeout=60)


def why_refused(st, body):
    """The refusal's message: a JSON error (403/404), or the tool's empty result
    that says why ({data: [], error_code, message}); "" when not refused."""
    try:
        j = json.loads(body)
    except ValueError:
        return ""
    if st in (403, 404):
        return j.get("error", {}).get("message", "")
    d = j.get("data", {}) if st == 200 else {}
    return d.get("message", "") if d.get("error_code") and not d.get("data") else ""


def rpc_result(body):
    """The JSON-RPC message of a POST /mcp answer, sent as JSON or as one SSE event."""
    text = body.decode()
    if text.lstrip().startswith("{"):
        return json.loads(text)
    events = [json.loads(ln[5:]) for ln in text.splitlines() if ln.startswith("data:") and ln[5:].strip()]
    answers = [e for e in events if "id" in e and ("result" in e or "error" in e)]
    return answers[-1] if answers else {}


def upload(port, sid, files):
    boundary = uuid.uuid4().hex
    body = b"".join(("--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"%s\"\r\n"
                     "Content-Type: application/octet-stream\r\n\r\n" % (boundary, name)).encode() + data + b"\r\n"
                    for name, data in files)
    body += ("--%s--\r\n" % boundary).encode()
    return http(port, "POST", "/api/upload", body,
                {"Content-Type": "multipart/form-data; boundary=" + boundary, "X-Session-Id": sid})


data_root = os.path.join(WORK, "data")
state = os.path.join(data_root, "state")  # under the data root on purpose
os.makedirs(data_root)
open(os.path.join(data_root, "shared.csv"), "w").write("gene,value\nSHARED_ROW,1\n")
srv = Server(BIN, WORK, state, pre=["--root", data_root])
P = srv.port
try:
    A = json.loads(post(P, "/api/sessions", {})[2])["session_id"]
    B = json.loads(post(P, "/api/sessions", {})[2])["session_id"]
    nb = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                     "cells": [{"cell_type": "code", "source": "print('A_SECRET_CODE')", "metadata": {},
                                "outputs": []}]}).encode()
    st, _, _ = upload(P, A, [("secret_a.csv", b"gene,value\nSECRET_ROW,42\n"), ("a_executed.ipynb", nb)])
    check(st == 200, "session A uploads a CSV and a notebook")
    a_dir = os.path.join(state, "sessions", A, "data")
    a_csv = os.path.join(a_dir, "secret_a.csv")
    check(os.path.exists(a_csv), "A's upload is in A's folder under the state folder")
    os.symlink(a_csv, os.path.join(data_root, "link_to_a.csv"))
    os.symlink(os.path.join(state, "sessions", A), os.path.join(data_root, "link_to_a_dir"))
    secrets = [b"SECRET_ROW", b"A_SECRET_CODE", A.encode(), WORK.encode(), state.encode()]

    # ---- A reads its own files; results print names relative to A's folder
    st, _, b = post(P, "/api/tools/get_raw_excel_data", {"file_path": "secret_a.csv"}, A)
    check(st == 200 and b"SECRET_ROW" in b and A.encode() not in b and WORK.encode() not in b,
          "A reads its own CSV by the name it uploaded (%s %s)" % (st, b[:300]))
    st, _, b = post(P, "/api/tools/read_executed_notebook", {"notebook_path": "a_executed.ipynb"}, A)
    j = json.loads(b).get("data", {}) if st == 200 else {}
    check(st == 200 and j.get("notebook_path") == "a_executed.ipynb" and b"A_SECRET_CODE" in b
          and A.encode() not in b and WORK.encode() not in b,
          "A reads its own notebook; the result names it relative to A's folder (%s)" % j.get("notebook_path"))
    st, _, b = post(P, "/api/tools/get_raw_excel_data", {"file_path": "shared.csv"}, A)
    check(st == 200 and b"SHARED_ROW" in b, "A reads the data folder too")

    # ---- B tries every way at A's files; each is refused with a clear error and leaks nothing
    attempts = [("get_raw_excel_data", {"file_path": a_csv}),
                ("get_raw_excel_data", {"file_path": "secret_a.csv"}),
                ("get_raw_excel_data", {"file_path": os.path.relpath(a_csv, data_root)}),
                ("get_raw_excel_data", {"file_path": os.path.join("..", "..", A, "data", "secret_a.csv")}),
                ("get_raw_excel_data", {"file_path": os.path.join("sessions", A, "data", "secret_a.csv")}),
                ("get_raw_excel_data", {"file_path": "link_to_a.csv"}),
                ("get_raw_excel_data", {"file_path": "link_to_a_dir/data/secret_a.csv"}),
                ("get_raw_excel_data", {"file_path": "/etc/passwd"}),
                ("read_executed_notebook", {"notebook_path": os.path.join(a_dir, "a_executed.ipynb")}),
                ("read_executed_notebook", {"notebook_path": "a_executed.ipynb"}),
                ("read_executed_notebook", {"data_folder": "state"}),
                ("read_executed_notebook", {"data_folder": os.path.join("state", "sessions")}),
                ("read_executed_notebook", {"data_folder": os.path.join("state", "sessions", A)}),
                ("read_executed_notebook", {"data_folder": a_dir}),
                ("read_executed_notebook", {"data_folder": "link_to_a_dir"}),
                ("read_executed_notebook", {"data_folder": "/"})]
    for name, args in attempts:
        for how, (st, _, b) in [("HTTP", post(P, "/api/tools/" + name, args, B)),
                                ("no session", post(P, "/api/tools/" + name, args))]:
            refusal = why_refused(st, b)
            asked = json.dumps(args).encode()  # what the caller sent may come back as it was sent
            leaked = [s.decode() for s in secrets if s in b and s not in asked]
            check(refusal and not leaked, "B (%s): %s %s -> %s %s%s" % (
                how, name, json.dumps(args)[:70], st, refusal[:60] or b[:300], (" LEAKED %s" % leaked) if leaked else ""))
    st, _, b = post(P, "/api/tools/read_executed_notebook", {"data_folder": "."}, B)
    check(b"A_SECRET_CODE" not in b and A.encode() not in b and WORK.encode() not in b,
          "B's data_folder walk over the data root finds nothing of A (%s)" % st)
    st, _, b = post(P, "/api/tools/get_raw_excel_data", {"file_path": "secret_a.csv"}, "s_" + "0" * 24)
    check(st == 404 and b"SECRET_ROW" not in b, "an unknown session id is refused (%s)" % st)

    # ---- MCP over HTTP: a session initialised for B reads B's files only
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    mcp = {}
    for who in (A, B):
        st, hdr, _ = post(P, "/mcp", init, who)
        mcp[who] = hdr.get("mcp-session-id", "")
        check(st == 200 and mcp[who], "MCP initialize with X-Session-Id")

    def mcp_call(who, args):
        msg = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "get_raw_excel_data", "arguments": args}}
        return post(P, "/mcp", msg, extra={"Mcp-Session-Id": mcp[who], "Accept": "application/json, text/event-stream"})
    st, _, b = mcp_call(A, {"file_path": "secret_a.csv"})
    check(st == 200 and b"SECRET_ROW" in b, "MCP: A's session reads A's upload")
    for args in [{"file_path": a_csv}, {"file_path": "secret_a.csv"}, {"file_path": "link_to_a.csv"}]:
        st, _, b = mcp_call(B, args)
        r = rpc_result(b).get("result", {}) if st == 200 else {}
        asked = json.dumps(args).encode()
        leaked = [s.decode() for s in secrets if s in b and s not in asked]
        said = json.dumps(r)
        check((r.get("isError") is True or "error_code" in said) and "SECRET_ROW" not in said and not leaked,
              "MCP: B's session %s -> refused%s" % (json.dumps(args)[:60], (" LEAKED %s" % leaked) if leaked else "")
              + ("" if r.get("isError") is True or "error_code" in said else " (HTTP %s: %r)" % (st, b[:400])))
    st, _, b = post(P, "/mcp", init, "s_" + "0" * 24)
    check(st == 404, "MCP initialize for an unknown session is refused (%s)" % st)

    # ---- the chat: B names A's file and A's id; the answer holds nothing of A's
    for text in ["show the rows of %s" % a_csv, "read sessions/%s/data/secret_a.csv" % A, "read secret_a.csv"]:
        st, _, b = post(P, "/api/agent/chat", {"message": text}, B)
        check(st == 200 and b"SECRET_ROW" not in b and b"A_SECRET_CODE" not in b,
              "chat in B: %s -> %s, nothing of A's%s" % (text[:50], st, "" if st == 200 else " " + repr(b[:300])))
    st, _, b = http(P, "GET", "/api/sessions/%s/messages" % B)
    check(st == 200 and b"SECRET_ROW" not in b, "B's conversation holds nothing of A's")
    st, _, _ = http(P, "GET", "/api/config")
    check(st == 200 and srv.proc.poll() is None, "the server still answers")
finally:
    srv.stop()
    if FAILURES:  # the server's own account of what it refused and why
        log = open(os.path.join(WORK, "server.log"), errors="replace").read()
        print("server.log (last 3000 characters):\n" + log[-3000:])
    shutil.rmtree(WORK, ignore_errors=True)

print("%d failures" % len(FAILURES))
sys.exit(1 if FAILURES else 0)
