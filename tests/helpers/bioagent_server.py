"""One way for the Python tests to run `bioagent serve`: a server on a free
loopback port (the port file it writes, waited for; an early exit raised), its
stderr appended to WORK/server.log, and stopped with a signal. Also a new
session and a task's event stream read to its final state.

    srv = Server(BIN, WORK, state, "--stages", "identify", confirm_timeout=3)
    sid = new_session(srv.base)
    ...
    srv.stop()

Used by the integration, security, CLI and benchmark tests."""
import json
import os
import signal
import subprocess
import time
import urllib.request
import uuid

FINAL_STATES = ("done", "failed", "cancelled")


class Server:
    """`bioagent [--offline] PRE... serve --port 0 ... EXTRA...`; port and base once it listens.

    cpus: --cpus (None leaves the server's default); confirm_timeout: --confirm-timeout
    when given; env: variables over base_env (os.environ unless given)."""

    def __init__(self, binary, work, state, *extra, pre=(), env=None, base_env=None, offline=True, cpus=2,
                 confirm_timeout=None, start_seconds=60):
        port_file = os.path.join(work, "port-%s" % uuid.uuid4().hex)
        argv = [binary, *(["--offline"] if offline else []), *pre, "serve", "--port", "0", "--port-file", port_file,
                "--state-dir", state]
        if confirm_timeout is not None:
            argv += ["--confirm-timeout", str(confirm_timeout)]
        if cpus is not None:
            argv += ["--cpus", str(cpus)]
        self.log_path = os.path.join(work, "server.log")
        with open(self.log_path, "a") as log:
            self.proc = subprocess.Popen([*argv, *extra], stdout=subprocess.DEVNULL, stderr=log,
                                         env={**(os.environ if base_env is None else base_env), **(env or {})})
        deadline = time.time() + start_seconds
        while not (os.path.exists(port_file) and open(port_file).read().strip()):
            if self.proc.poll() is not None:
                raise RuntimeError("the server exited with %s; its log: %s" % (self.proc.returncode, self.log_path))
            if time.time() > deadline:
                self.proc.kill()
                raise RuntimeError("the server wrote no port within %d s; its log: %s" % (start_seconds, self.log_path))
            time.sleep(0.1)
        self.port = int(open(port_file).read().strip())
        self.base = "http://127.0.0.1:%d" % self.port

    def stop(self, sig=signal.SIGTERM, timeout=60):
        self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def new_session(base):
    """A new session's id (POST /api/sessions must answer 201)."""
    req = urllib.request.Request(base + "/api/sessions", data=b"{}", method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        body = json.loads(r.read())
        assert r.status == 201, body
    return body["session_id"]


def events(base, sid, task, until_final=True, timeout=600, after=0):
    """The task's events after `after` from its SSE stream, up to its final state (or the timeout)."""
    req = urllib.request.Request(base + "/api/agent/events/%s?session_id=%s&after=%d" % (task, sid, after))
    out, deadline = [], time.time() + timeout
    with urllib.request.urlopen(req, timeout=timeout) as r:
        for line in r:
            line = line.decode().rstrip("\n")
            if line.startswith("data: "):
                e = json.loads(line[6:])
                out.append(e)
                if until_final and e.get("type") == "state" and e.get("state") in FINAL_STATES:
                    break
            if time.time() > deadline:
                break
    return out
