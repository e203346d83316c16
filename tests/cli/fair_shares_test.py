#!/usr/bin/python3
"""Fair shares through the running server: client A (connecting from 127.0.0.1) takes every share it
may -- MCP sessions, never-read event streams, runs waiting in the parameter dialog, MCP tasks -- and
each further request of A's is refused naming A's own limit; client B (connecting from 127.0.0.2, a
different address of the loopback network) still opens a session, an event stream, a run and a task.
JSON-RPC messages whose id has the wrong type (1.5, true, an object, 10^30, an array) get -32600
Invalid Request at once on /mcp, in both revisions. Loopback only; about 20 s.

Usage: fair_shares_test.py BIOAGENT_BIN"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from bioagent_server import Server  # noqa: E402

BIN = sys.argv[1]
WORK = os.path.realpath(tempfile.mkdtemp(prefix="bioagent-shares-"))
FAILURES = []
A, B = "127.0.0.1", "127.0.0.2"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
STATELESS = "2026-07-28"


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILURES.append(what)


def connect(port, source):
    return socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0))


def head_of(port, source, method, path, body=None, headers=None):
    """Sends one request from `source`; (socket, status, {header: value}, body read so far). The socket
    stays open (an event stream is never read further)."""
    s = connect(port, source)
    h = {"Host": "127.0.0.1:%d" % port, **(headers or {})}
    if body is not None:
        h["Content-Length"] = str(len(body))
    s.sendall(("%s %s HTTP/1.1\r\n" % (method, path) + "".join("%s: %s\r\n" % kv for kv in h.items()) + "\r\n")
              .encode() + (body or b""))
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else 0
    hdr = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
    return s, status, hdr, rest


def request(port, source, method, path, obj=None, headers=None):
    """A whole request from `source` -> (status, headers, JSON body or {})."""
    body = json.dumps(obj).encode() if obj is not None else None
    h = {"Content-Type": "application/json", "Connection": "close", **(headers or {})}
    s, status, hdr, rest = head_of(port, source, method, path, body, h)
    length = int(hdr.get("content-length", "0") or 0)
    while len(rest) < length:
        chunk = s.recv(65536)
        if not chunk:
            break
        rest += chunk
    s.close()
    try:
        return status, hdr, json.loads(rest) if rest else {}
    except ValueError:
        return status, hdr, {}


def error_of(body):
    e = body.get("error", {}) if isinstance(body, dict) else {}
    data = e.get("data") or e.get("details") or {}
    return e.get("message", ""), data


def initialize(port, source):
    st, hdr, body = request(port, source, "POST", "/mcp", INIT, {"Accept": "application/json, text/event-stream"})
    return st, hdr.get("mcp-session-id", ""), body


state = os.path.join(WORK, "state")
# A species folder the runs find (their dialog then waits for its parameters); the conformance
# fixtures offer slow_compute, a task that sleeps as long as asked.
ROOT = os.path.join(WORK, "genomes")
subprocess.run([BIN, "genefamily", "example", os.path.join(ROOT, "Lchi"), "--prefix", "Lchi", "--family", "GLOBIN"],
               check=True, stdout=subprocess.DEVNULL)
srv = Server(BIN, WORK, state, "--stages", "identify", "--root", ROOT, "--mcp-conformance-fixtures",
             confirm_timeout=600)
held = []
try:
    P = srv.port

    # ---- wrong-type ids: -32600 at once, both revisions
    st, sid, _ = initialize(P, A)
    check(st == 200 and sid, "client A initializes an MCP session")
    for raw_id in ["1.5", "true", '{"x": 1}', "1" + "0" * 30, "[1]"]:
        msg = ('{"jsonrpc": "2.0", "id": %s, "method": "ping"}' % raw_id).encode()
        for revision, headers in [("session", {"Mcp-Session-Id": sid}),
                                  ("stateless", {"MCP-Protocol-Version": STATELESS, "Mcp-Method": "ping"})]:
            t = time.time()
            s, status, hdr, rest = head_of(P, A, "POST", "/mcp", msg,
                                           {"Content-Type": "application/json", "Connection": "close",
                                            "Accept": "application/json, text/event-stream", **headers})
            s.settimeout(5)
            while len(rest) < int(hdr.get("content-length", "0") or 0):
                rest += s.recv(65536)
            s.close()
            code = json.loads(rest).get("error", {}).get("code") if rest else None
            check(status == 400 and code == -32600 and time.time() - t < 2,
                  "id %s (%s): %s -32600 in %.2f s (got %s %s)" % (raw_id[:12], revision, status, time.time() - t,
                                                                   status, code))

    # ---- sessions: A takes its share (a quarter of 256), B still opens one
    sessions_a, refusal = [sid], None
    for _ in range(80):
        st, s_id, body = initialize(P, A)
        if st != 200:
            refusal = (st, body)
            break
        sessions_a.append(s_id)
    msg, data = error_of(refusal[1]) if refusal else ("", {})
    check(len(sessions_a) == 64 and refusal[0] == 503 and data.get("scope") == "client" and "64 per client" in msg,
          "client A opens 64 MCP sessions, then is refused naming its own limit: %d, %s" % (len(sessions_a), msg[:100]))
    st, sid_b, _ = initialize(P, B)
    check(st == 200 and sid_b, "client B still opens an MCP session (%s)" % st)

    # ---- streams: A's never-read GET streams take its share (all of 32 but the quarter kept for the others: one
    # host holds a stream per session); B still opens one
    streams, refusal = 0, None
    for s_id in sessions_a[:40]:
        s, status, hdr, rest = head_of(P, A, "GET", "/mcp", None, {"Accept": "text/event-stream", "Mcp-Session-Id": s_id})
        if status != 200:
            length = int(hdr.get("content-length", "0") or 0)
            while len(rest) < length:
                rest += s.recv(65536)
            refusal = (status, json.loads(rest) if rest else {})
            s.close()
            break
        held.append(s)  # never read further
        streams += 1
    msg, data = error_of(refusal[1]) if refusal else ("", {})
    check(streams == 24 and refusal[0] == 503 and data.get("scope") == "client" and "24 per client" in msg,
          "client A holds 24 never-read event streams, then is refused naming its own limit: %d, %s"
          % (streams, msg[:100]))
    s, status, _, _ = head_of(P, B, "GET", "/mcp", None, {"Accept": "text/event-stream", "Mcp-Session-Id": sid_b})
    check(status == 200, "client B still opens an event stream (%s)" % status)
    held.append(s)

    # ---- runs: A's runs waiting in the dialog take its share (a quarter of 32); B still starts one
    runs, refusal = 0, None
    for _ in range(4):
        st, _, body = request(P, A, "POST", "/api/sessions", {})
        owner = body["session_id"]
        for _ in range(4):
            st, _, p = request(P, A, "POST", "/api/agent/plan", {"species": "Lchi", "gene_family": "GLOBIN"},
                               {"X-Session-Id": owner})
            st, _, t = request(P, A, "POST", "/api/agent/execute", {"plan_id": p.get("plan_id", "")},
                               {"X-Session-Id": owner})
            if st != 202:
                refusal = (st, t)
                break
            runs += 1
        if refusal:
            break
    msg, data = error_of(refusal[1]) if refusal else ("", {})
    check(runs == 8 and refusal[0] in (413, 429, 503) and data.get("scope") == "client" and "8 per client" in msg,
          "client A starts 8 runs (waiting in the dialog), then is refused naming its own limit: %d, %s"
          % (runs, msg[:100]))
    st, _, body = request(P, B, "POST", "/api/sessions", {})
    owner_b = body["session_id"]
    st, _, p = request(P, B, "POST", "/api/agent/plan", {"species": "Lchi", "gene_family": "GLOBIN"},
                       {"X-Session-Id": owner_b})
    st, _, t = request(P, B, "POST", "/api/agent/execute", {"plan_id": p.get("plan_id", "")}, {"X-Session-Id": owner_b})
    check(st == 202 and t.get("task_id"), "client B still starts a run (%s %s)" % (st, error_of(t)[0][:80]))

    # ---- MCP tasks: A's running tasks take its share (a quarter of 64); B still starts one
    caps = {"extensions": {"io.modelcontextprotocol/tasks": {}}}

    def task_call(source, n):
        msg = {"jsonrpc": "2.0", "id": n, "method": "tools/call",
               "params": {"name": "slow_compute", "arguments": {"seconds": 120, "label": "held"},
                          "_meta": {"io.modelcontextprotocol/protocolVersion": STATELESS,
                                    "io.modelcontextprotocol/clientCapabilities": caps}}}
        return request(P, source, "POST", "/mcp", msg,
                       {"MCP-Protocol-Version": STATELESS, "Mcp-Method": "tools/call",
                        "Mcp-Name": "slow_compute", "Accept": "application/json, text/event-stream"})

    tasks, refusal = 0, None
    for n in range(20):
        st, _, body = task_call(A, 100 + n)
        if body.get("result", {}).get("resultType") != "task":
            refusal = (st, body)
            break
        tasks += 1
    msg, data = error_of(refusal[1]) if refusal else ("", {})
    check(tasks == 16 and refusal and "16 per client" in msg,
          "client A starts 16 MCP tasks, then is refused naming its own limit: %d, %s" % (tasks, msg[:100]))
    st, _, body = task_call(B, 200)
    check(body.get("result", {}).get("resultType") == "task", "client B still starts an MCP task (%s)" % st)

    t = time.time()
    st, _, body = request(P, B, "GET", "/healthz")
    check(st == 200 and time.time() - t < 2, "the server answers /healthz at once throughout")
finally:
    for s in held:
        s.close()
    srv.stop()

if FAILURES:
    print("server log: %s" % os.path.join(WORK, "server.log"))
    print("%d failure(s)" % len(FAILURES))
    sys.exit(1)
shutil.rmtree(WORK, ignore_errors=True)
print("all fair-share checks passed")
