#!/usr/bin/python3
"""Hostile clients against the HTTP transport of `bioagent serve`: memory
spent before authentication (an endless request line, endless headers, huge
bodies on DELETE and PRI, a Range header of 2,000 ranges), slowloris
connections beside normal traffic, pipelined requests, duplicate and NUL
headers, an unknown MCP-Protocol-Version, an upload of 150 files, 260 MCP
initialize calls, a cancelled MCP tools/call and SIGTERM while one runs.
Each is refused with a clear JSON error (or bounded) and /healthz answers after.
Only loopback addresses are used; every loop is bounded in count and time.

Usage: transport_test.py BIOAGENT_BIN"""
import json
import os
import resource
import shutil
import socket
import sys
import tempfile
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_raw import http  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from bioagent_server import Server  # noqa: E402

BIN = sys.argv[1]
WORK = tempfile.mkdtemp(prefix="bioagent-transport-")
FAILURES = []
TOKEN = "t0k-" + uuid.uuid4().hex
AUTH = {"Authorization": "Bearer " + TOKEN}
JSON = {"Content-Type": "application/json"}
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILURES.append(what)


def json_error(resp):
    try:
        j = json.loads(resp[2])
        return j["error"]["message"] if j.get("status") == "error" else None
    except (ValueError, KeyError, TypeError):
        return None


def refused(resp, codes, what):
    msg = json_error(resp)
    check(resp[0] in codes and bool(msg), "%s -> %s %s" % (what, resp[0], (msg or "")[:90]))


def rss(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def alive(port, what):
    st, _, b = http(port, "GET", "/healthz", timeout=10)
    check(st == 200 and json.loads(b)["status"] == "ok", "  ... /healthz answers after %s" % what)


def flood(port, head, filler, limit_bytes):
    """Sends `head` then `filler` repeatedly (up to limit_bytes) until the server stops reading;
    returns (bytes sent, the response's status or 0 when the connection was cut)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    sent = 0
    try:
        s.sendall(head)
        while sent < limit_bytes:
            s.sendall(filler)
            sent += len(filler)
    except (BrokenPipeError, ConnectionResetError, socket.timeout):
        pass
    status = 0
    try:
        data = s.recv(65536)
        if data.startswith(b"HTTP/1.1 "):
            status = int(data.split()[1])
    except (ConnectionResetError, socket.timeout, OSError):
        pass
    s.close()
    return sent, status


def raw_exchange(port, raw, timeout=10):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(raw)
    data = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except (socket.timeout, ConnectionResetError):
        pass
    s.close()
    return data


def parse(data):
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else 0
    return status, {}, body


state = os.path.join(WORK, "state")
srv = Server(BIN, WORK, state, "--token", TOKEN, "--header-timeout", "3", "--read-timeout", "5",
             env={"BIOAGENT_ALLOW_PRIVATE_URLS": "1", "BIOAGENT_CACHE_DIR": os.path.join(WORK, "cache")}, offline=False)
P = srv.port
try:
    # ---- memory before authentication: nothing unbounded is buffered for a request without a token
    before = rss(srv.proc.pid)
    sent, st = flood(P, b"GET /", b"a" * 65536, 64 << 20)
    check(sent < (16 << 20) and st in (0, 431), "a request line without end is cut after %.1f MiB (status %s)"
          % (sent / 2**20, st or "closed"))
    sent, st = flood(P, b"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\n", b"X-Filler: abcdefgh\r\n" * 3000, 64 << 20)
    check(sent < (16 << 20) and st in (0, 431), "endless header lines are cut after %.1f MiB (status %s)"
          % (sent / 2**20, st or "closed"))
    for method, target in [("DELETE", "/api/sessions"), ("PRI", "*"), ("GET", "/api/config")]:
        head = ("%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%sContent-Length: %d\r\n\r\n"
                % (method, target, "Authorization: Bearer %s\r\n" % TOKEN, 300 << 20)).encode()
        sent, st = flood(P, head, b"z" * 65536, 48 << 20)
        check(sent < (16 << 20) and st in (400, 404, 413), "%s with a 300 MiB body refused before it is read (%s, "
              "%.1f MiB taken)" % (method, st, sent / 2**20))
    grew = rss(srv.proc.pid) - before
    check(grew < 64 << 20, "the server grew by %.1f MiB over these floods (bound 64 MiB)" % (grew / 2**20))
    refused(http(P, "DELETE", "/api/sessions", None, {"Content-Length": str(300 << 20)}, send_body=False), (401,),
            "a DELETE with a 300 MiB body and no token")
    ranges = "bytes=" + ",".join("%d-%d" % (i, i + 1) for i in range(2000))
    st, h, body = http(P, "GET", "/", None, {"Range": ranges})
    st2, _, whole = http(P, "GET", "/")
    check(st == 200 and len(body) == len(whole), "2,000 ranges get the plain page (%d bytes), never a multiplied answer"
          % len(body))
    alive(P, "the floods")

    # ---- slowloris beside normal traffic; pipelining
    slow, lat, errors = [], [], []
    for _ in range(200):
        s = socket.create_connection(("127.0.0.1", P), timeout=10)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        slow.append(s)
    opened = time.time()
    stop = threading.Event()

    def trickle():
        while not stop.is_set():
            for s in slow:
                try:
                    s.send(b"X-Slow: 1\r\n")
                except OSError:
                    pass
            time.sleep(0.5)

    def probe():
        while not stop.is_set():
            t = time.time()
            try:
                st, _, _ = http(P, "GET", "/healthz", timeout=10)
            except OSError as e:
                st = str(e)
            lat.append(time.time() - t)
            if st != 200:
                errors.append(st)
            time.sleep(0.02)
    threads = [threading.Thread(target=trickle)] + [threading.Thread(target=probe) for _ in range(4)]
    for t in threads:
        t.start()
    time.sleep(6)
    stop.set()
    for t in threads:
        t.join()
    lat.sort()
    p99 = lat[max(0, int(len(lat) * 0.99) - 1)] if lat else 99
    check(not errors and len(lat) > 50 and p99 < 1.0,
          "200 slowloris connections: %d /healthz requests, %d errors, p99 %.3f s" % (len(lat), len(errors), p99))
    closed = 0
    for s in slow:
        s.settimeout(0.2)
        try:
            closed += 1 if s.recv(1) == b"" else 0
        except socket.timeout:
            pass
        except OSError:
            closed += 1  # reset: closed by the server
        s.close()
    check(closed == 200, "every slowloris connection was closed by the header deadline (3 s; %d of 200 after %.1f s)"
          % (closed, time.time() - opened))
    three = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 2 + \
        b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    data = raw_exchange(P, three)
    check(data.count(b"HTTP/1.1 200") == 3, "three pipelined requests get three answers (%d)" % data.count(b"HTTP/1.1 200"))

    # ---- duplicate and NUL headers, the MCP protocol version
    for raw, what in [(b"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n", "two Host headers"),
                      (b"POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://127.0.0.1:%d\r\n"
                       b"Origin: http://evil.example\r\nContent-Length: 0\r\n" % P, "two Origin headers"),
                      (b"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1\x00.evil.example\r\n", "a Host with NUL")]:
        resp = parse(raw_exchange(P, raw + b"Authorization: Bearer " + TOKEN.encode() + b"\r\nConnection: close\r\n\r\n"))
        refused(resp, (400,), what)
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    st, _, b = http(P, "POST", "/mcp", json.dumps(init).encode(), {**JSON, **AUTH, "MCP-Protocol-Version": "1999-01-01"})
    try:
        err = json.loads(b).get("error", {})
    except ValueError:
        err = {}
    check(st == 400 and err.get("code") == -32022 and "2026-07-28" in err.get("data", {}).get("supported", []) and
          err.get("data", {}).get("requested") == "1999-01-01",
          "an unknown MCP-Protocol-Version -> %s, JSON-RPC %s listing the versions spoken" % (st, err.get("code")))
    st, h, _ = http(P, "POST", "/mcp", json.dumps(init).encode(), {**JSON, **AUTH, "MCP-Protocol-Version": "2025-06-18"})
    first = h.get("mcp-session-id", "")
    check(st == 200 and first, "a known MCP-Protocol-Version is accepted")

    # ---- 260 initialize calls from one client (one token) take its share (a quarter of 256) and evict no
    # live session; the refusal names the client's own limit
    codes = []
    for _ in range(260):
        st, _, b = http(P, "POST", "/mcp", json.dumps(init).encode(), {**JSON, **AUTH})
        codes.append(st)
    refusal = json.loads(b)["error"] if st == 503 else {}
    refused_msg = refusal.get("message", "")
    check(codes.count(200) == 63 and codes.count(503) == 197 and "64 per client" in refused_msg
          and refusal.get("data", {}).get("scope") == "client",
          "260 initialize calls: %d opened, %d refused (%s)" % (codes.count(200), codes.count(503), refused_msg[:90]))
    ping = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "ping"}).encode()
    st, _, b = http(P, "POST", "/mcp", ping, {**JSON, **AUTH, "Mcp-Session-Id": first})
    check(st == 200 and json.loads(b).get("result") == {}, "  ... the first client's session still answers")

    # ---- an upload of 150 files stores at most 100
    st, _, b = http(P, "POST", "/api/sessions", b"{}", {**JSON, **AUTH})
    sid = json.loads(b)["session_id"]
    boundary = uuid.uuid4().hex
    body = b"".join(("--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"Exam%03d.pep.fasta\"\r\n\r\n"
                     ">p\nMKV\n\r\n" % (boundary, i)).encode() for i in range(150)) + ("--%s--\r\n" % boundary).encode()
    resp = http(P, "POST", "/api/upload", body, {**AUTH, "X-Session-Id": sid,
                                                 "Content-Type": "multipart/form-data; boundary=" + boundary})
    refused(resp, (413,), "an upload of 150 files")
    made = sum(len(files) for _, _, files in os.walk(os.path.join(state, "sessions", sid)))
    check(made <= 100, "  ... %d files made in the session (at most 100)" % made)
    alive(P, "the upload")

    # ---- a cancelled MCP tools/call is answered at once; SIGTERM while one runs ends the server
    black = socket.socket()
    black.bind(("127.0.0.1", 0))
    black.listen(16)  # accepts, never answers
    url = "http://127.0.0.1:%d/paper" % black.getsockname()[1]
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "fetch_text_from_urls", "arguments": {"paper_info_list": [{"url": url, "title": "t"}]}}}
    out = {}

    def call_tool(key, msg):
        t = time.time()
        try:
            out[key] = http(P, "POST", "/mcp", json.dumps(msg).encode(), {**JSON, **AUTH, "Mcp-Session-Id": first},
                            timeout=60)
        except OSError as e:
            out[key] = (0, {}, str(e).encode())
        out[key + "_took"] = time.time() - t
    t = threading.Thread(target=call_tool, args=("call", call))
    t.start()
    time.sleep(1.0)
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "test"}}
    st, _, _ = http(P, "POST", "/mcp", json.dumps(cancel).encode(), {**JSON, **AUTH, "Mcp-Session-Id": first})
    t.join(timeout=30)
    st, _, b = out.get("call", (0, {}, b""))
    try:
        err = json.loads(b).get("error", {})
    except ValueError:
        err = {}
    check(st == 200 and err.get("code") == -32800 and out.get("call_took", 99) < 3,
          "a cancelled tools/call is answered at once (%s, %s, %.1f s)" % (st, err.get("message"), out.get("call_took", 99)))
    call["id"] = 3
    t = threading.Thread(target=call_tool, args=("second", call))
    t.start()
    time.sleep(1.0)
    t0 = time.time()
    srv.proc.send_signal(15)
    try:
        srv.proc.wait(timeout=15)
    except Exception:
        pass
    took = time.time() - t0
    check(srv.proc.poll() is not None and took < 8, "SIGTERM with a tools/call running ends the server in %.1f s" % took)
    t.join(timeout=20)
    black.close()
finally:
    if srv.proc.poll() is None:
        srv.stop()

shutil.rmtree(WORK, ignore_errors=True)
if FAILURES:
    print("FAILED %d: %s" % (len(FAILURES), "; ".join(FAILURES)))
    sys.exit(1)
print("transport security: all checks passed")
