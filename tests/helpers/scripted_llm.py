#!/usr/bin/env python3
"""A scripted OpenAI-compatible server standing in for a language model in tests.

Usage: scripted_llm.py SCRIPT.json [LOG.jsonl]
Listens on 127.0.0.1 (a free port) and prints "PORT <n>". POST /v1/chat/completions
answers with the script's exchanges in order ({"script": [...], "repeat_last": bool}):
  {"message": {...}, "usage": {...}, "finish_reason": "..."}   a JSON completion
  {"stream": [delta, ...]}                                     SSE chunks, one delta each
  {"status": 429, "headers": {...}, "body": "..."}             an error answer
  {"expect": ["text", ...]}                                    the request must contain these
An exhausted script answers 500 unless repeat_last is set. With "by_expect": true the
exchanges are not taken in order: each request gets the first exchange whose expect strings it
all contains (400 when none does), so a model asked several kinds of prompt can be scripted. POST /v1/embeddings
gives deterministic 8-dimensional vectors. Every request body is appended to LOG.
Only loopback is ever bound.
"""
import hashlib
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

doc = json.load(open(sys.argv[1]))
script = doc["script"] if isinstance(doc, dict) else doc
repeat_last = isinstance(doc, dict) and doc.get("repeat_last", False)
by_expect = isinstance(doc, dict) and doc.get("by_expect", False)
log_path = sys.argv[2] if len(sys.argv) > 2 else None
state = {"n": 0}
lock = threading.Lock()


def completion(ex):
    msg = dict(ex.get("message", {"role": "assistant", "content": ""}))
    msg.setdefault("role", "assistant")
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": ex.get("model", "scripted-model"),
        "choices": [{"index": 0, "message": msg, "finish_reason": ex.get("finish_reason", "stop")}],
        "usage": ex.get("usage", {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}),
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def send(self, status, body, ctype="application/json", headers=None):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8", "replace")
        if log_path:
            with lock, open(log_path, "a") as f:
                f.write(json.dumps({"path": self.path, "auth": self.headers.get("Authorization", ""), "body": json.loads(raw or "{}")}) + "\n")
        if self.path.endswith("/embeddings"):
            inputs = json.loads(raw).get("input", [])
            if isinstance(inputs, str):
                inputs = [inputs]
            data = []
            for i, text in enumerate(inputs):
                h = hashlib.sha256(text.encode()).digest()
                data.append({"index": i, "embedding": [(b - 128) / 128 for b in h[:8]]})
            return self.send(200, json.dumps({"data": data, "model": "scripted-embedder"}))
        if not self.path.endswith("/chat/completions"):
            return self.send(404, json.dumps({"error": {"message": "no route " + self.path}}))
        if by_expect:
            n = next((i for i, e in enumerate(script) if all(t in raw for t in e.get("expect", []))), None)
            if n is None:
                return self.send(400, json.dumps({"error": {"message": "no scripted exchange expects this request"}}))
            return self.answer(n, script[n], raw)
        with lock:
            n = state["n"]
            state["n"] += 1
        if n >= len(script):
            if not repeat_last:
                return self.send(500, json.dumps({"error": {"message": "script exhausted"}}))
            n = len(script) - 1
        return self.answer(n, script[n], raw)

    def answer(self, n, ex, raw):
        for text in ex.get("expect", []):
            if text not in raw:
                return self.send(400, json.dumps({"error": {"message": f"scripted exchange {n} expected {text!r} in the request"}}))
        if "status" in ex and ex["status"] != 200:
            return self.send(ex["status"], ex.get("body", json.dumps({"error": {"message": "scripted error"}})),
                             headers=ex.get("headers"))
        if "stream" in ex:
            events = []
            for delta in ex["stream"]:
                events.append({"id": "c", "object": "chat.completion.chunk", "model": "scripted-model",
                               "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
            events.append({"id": "c", "object": "chat.completion.chunk", "model": "scripted-model",
                           "choices": [{"index": 0, "delta": {}, "finish_reason": ex.get("finish_reason", "stop")}]})
            events.append({"id": "c", "choices": [], "usage": ex.get("usage", {"prompt_tokens": 50, "completion_tokens": 10})})
            body = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
            return self.send(200, body, ctype="text/event-stream")
        if "raw" in ex:
            return self.send(200, ex["raw"])
        return self.send(200, json.dumps(completion(ex)))

    def log_message(self, fmt, *args):
        sys.stderr.write("scripted_llm: " + (fmt % args) + "\n")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"PORT {server.server_address[1]}", flush=True)
server.serve_forever()
