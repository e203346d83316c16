#!/usr/bin/env python3
"""One assistant behind every surface of a server's store.

1. In `bioagent serve`, the MCP tool assistant_chat is the server's own
   assistant: it continues a session the web API opened (runs the plan made
   there), the web API answers that run's parameter dialog in the same process
   (the answer is not forwarded), and a session MCP opened is the web API's.
2. A run planned in `bioagent chat` (another process on the server's store) is
   confirmed from the HTTP API: the chat's dialog ends before its countdown and
   the run finishes.
3. The other way round: a run the HTTP API started is followed in the chat,
   whose dialog cancels it; the server reports it cancelled.

Usage: surfaces_test.py BIOAGENT_BINARY"""
import codecs
import json
import os
import pty
import re
import select
import shutil
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from bioagent_server import Server  # noqa: E402

BIN = sys.argv[1]
WORK = tempfile.mkdtemp(prefix="bioagent-surfaces-")
STATE = os.path.join(WORK, "state")
ENV = {k: v for k, v in os.environ.items() if not k.startswith("BIOAGENT_LLM")}
ENV["BIOAGENT_HOME"] = os.path.join(WORK, "home")
ENV.pop("BIOAGENT_BUNDLE", None)
FAILURES = []
PLAN_ZH = "如果我想开展 Exam 的 GLOBIN 基因家族研究，可以吗？"


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILURES.append(what)
        if detail:
            print("  | " + str(detail)[:1500].replace("\n", "\n  | "), flush=True)


def http(method, path, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(BASE + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            text = r.read().decode()
            if "text/event-stream" in r.headers.get("Content-Type", ""):  # MCP over SSE: the last message
                data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
                text = data[-1] if data else ""
            return r.status, dict(r.headers), json.loads(text or "null")
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), json.loads(e.read() or b"null")


def wait_state(sid, task, states, timeout=120):
    deadline, st = time.time() + timeout, {}
    while time.time() < deadline:
        _, _, st = http("GET", "/api/agent/status/%s?session_id=%s" % (task, sid))
        if st.get("state") in states:
            return st
        time.sleep(0.3)
    return st


class Mcp:
    """An MCP client of the server's /mcp endpoint."""

    def __init__(self):
        st, hdr, _ = http("POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
            {"Accept": "application/json, text/event-stream"})
        self.headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18",
                        "Mcp-Session-Id": {k.lower(): v for k, v in hdr.items()}.get("mcp-session-id", "")}
        http("POST", "/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"}, self.headers)
        self.id = 1

    def assistant_chat(self, message, session_id=None):
        self.id += 1
        args = {"message": message, **({"session_id": session_id} if session_id else {})}
        _, _, r = http("POST", "/mcp", {"jsonrpc": "2.0", "id": self.id, "method": "tools/call",
                                        "params": {"name": "assistant_chat", "arguments": args}}, self.headers)
        res = (r or {}).get("result", {})
        return res.get("structuredContent") or {}, r


class Chat:
    """`bioagent chat` on a pseudo-terminal, on the server's store."""

    def __init__(self, *extra):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(BIN, [BIN, "--offline", "chat", "--state-dir", STATE, "--stages", "check,identify", "--cpus",
                            "1", "--confirm-timeout", "120", *extra], ENV)
        self.buf = ""
        # One decoder for the whole stream: a read may end inside a character.
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.wait_for(r"\n> $|^> $")

    def wait_for(self, pattern, timeout=120):
        deadline = time.time() + timeout
        while time.time() < deadline:
            text = self.buf.replace("\r", "")
            if re.search(pattern, text):
                return text
            r, _, _ = select.select([self.fd], [], [], 0.5)
            if r:
                try:
                    self.buf += self.decoder.decode(os.read(self.fd, 65536))
                except OSError:
                    pass
        raise TimeoutError("waited for %r; the terminal shows:\n%s" % (pattern, self.buf[-3000:]))

    def send(self, line):
        self.buf = ""
        os.write(self.fd, (line + "\n").encode())

    def close(self):
        os.write(self.fd, b"/quit\n")
        _, status = os.waitpid(self.pid, 0)
        return os.waitstatus_to_exitcode(status)


server = Server(BIN, WORK, STATE, base_env=ENV, confirm_timeout=120, cpus=1)
try:
    BASE = server.base

    # 1. MCP's assistant_chat and the web API: one assistant.
    _, _, web = http("POST", "/api/agent/chat", {"message": PLAN_ZH})
    sid = web.get("session_id")
    check(sid and web.get("plan_id"), "the web API plans in a new session", web)
    mcp = Mcp()
    ran, raw = mcp.assistant_chat("执行分析", sid)
    task = ran.get("task_id")
    check(ran.get("session_id") == sid and task, "MCP assistant_chat runs the plan the web API made", raw)
    st = wait_state(sid, task, ("awaiting_confirmation",))
    check(st.get("state") == "awaiting_confirmation", "the web API sees MCP's run waiting in its dialog", st)
    _, _, conf = http("POST", "/api/agent/confirm", {"task_id": task, "action": "cancel", "session_id": sid})
    check(conf.get("action") == "cancel" and not conf.get("forwarded"),
          "the web API answers the dialog of MCP's run in the same process (not forwarded)", conf)
    st = wait_state(sid, task, ("cancelled",), 30)
    check(st.get("state") == "cancelled", "MCP's run is cancelled from the web API", st)
    opened, raw = mcp.assistant_chat("Summarise the SPL gene family")
    _, _, msgs = http("GET", "/api/sessions/%s/messages" % opened.get("session_id", "none"))
    texts = [m.get("content", "") for m in (msgs or {}).get("messages", [])]
    check("Summarise the SPL gene family" in texts and any("miR156" in t for t in texts),
          "the web API reads the session MCP's assistant_chat opened", msgs)

    # 2. A run planned in the terminal chat, confirmed from the HTTP API.
    chat = Chat()
    sid_chat = re.search(r"session (s_[0-9a-f]{32})", chat.buf).group(1)
    chat.send(PLAN_ZH)
    chat.wait_for(r"\n> $")
    chat.send("执行分析")
    shown = chat.wait_for(r"参数确认[\s\S]*\(\d+ s\)")
    task = re.search(r"\bt_[0-9a-f]{32}\b", shown).group(0)
    _, _, conf = http("POST", "/api/agent/confirm", {"task_id": task, "action": "confirm", "session_id": sid_chat})
    check(conf.get("forwarded") is True, "the HTTP API forwards the confirmation to the chat's process", conf)
    t0 = time.time()
    done = chat.wait_for(r"任务 (done|failed|cancelled)[^\n]*\n[\s\S]*> $", 120)
    check("参数已确认" in done and "任务 done" in done and time.time() - t0 < 60,
          "the chat's run takes the API's confirmation and finishes", done[-1500:])
    st = wait_state(sid_chat, task, ("done",), 10)
    check(st.get("state") == "done", "the server reports the chat's run done", st)
    check(chat.close() == 0, "the chat ends with /quit")

    # 3. A run started by the HTTP API, cancelled from the chat that follows it.
    _, _, plan = http("POST", "/api/agent/chat", {"message": PLAN_ZH})
    sid_web = plan.get("session_id")
    _, _, ex = http("POST", "/api/agent/execute", {"plan_id": plan.get("plan_id"), "session_id": sid_web})
    task = ex.get("task_id")
    check(task and wait_state(sid_web, task, ("awaiting_confirmation",)).get("state") == "awaiting_confirmation",
          "the HTTP API's run waits in its dialog", ex)
    follower = Chat("--session", sid_web)
    follower.send("/follow " + task)
    follower.wait_for(r"Parameters:[\s\S]*\(\d+ s\)")
    follower.send("cancel")
    seen = follower.wait_for(r"task cancelled[^\n]*\n[\s\S]*> $", 60)
    st = wait_state(sid_web, task, ("cancelled",), 30)
    check(st.get("state") == "cancelled", "the chat cancels the server's run through its dialog", seen[-800:])
    check(follower.close() == 0, "the follower ends with /quit")
finally:
    server.stop()
    if FAILURES:
        print(open(os.path.join(WORK, "server.log")).read()[-3000:])
    shutil.rmtree(WORK, ignore_errors=True)

print("%d failed" % len(FAILURES))
sys.exit(1 if FAILURES else 0)
