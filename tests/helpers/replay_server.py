#!/usr/bin/env python3
"""A local replay server standing in for external web APIs in tests.

Usage: replay_server.py ROUTES.json
Listens on 127.0.0.1 (a free port), prints "PORT <n>" on stdout, and answers
each request with the first route whose "path" equals the request path and
whose "query_contains" strings all occur in the query string. A route gives
status, headers, body (or body_file), delay_ms, "truncate" (announce a longer
body than is sent, then close), and "sequence": a list of such answers served
in turn to repeated requests (the last one repeats). Requests are logged to
stderr. Only loopback is ever bound.
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

routes = json.load(open(sys.argv[1]))
counters = {}
lock = threading.Lock()


def pick(path, query):
    for i, r in enumerate(routes):
        if r.get("path") != path:
            continue
        if all(q in query for q in r.get("query_contains", [])):
            seq = r.get("sequence")
            if not seq:
                return r
            with lock:
                n = counters.get(i, 0)
                counters[i] = n + 1
            return seq[min(n, len(seq) - 1)]
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self):
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body_in = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        r = pick(parts.path, parts.query + "&" + body_in)
        if r is None:
            r = {"status": 404, "body": json.dumps({"error": "no route for " + self.path})}
        time.sleep(r.get("delay_ms", 0) / 1000)
        body = r.get("body", "")
        if "body_file" in r:
            with open(r["body_file"], "rb") as f:
                body = f.read()
        if isinstance(body, str):
            body = body.encode()
        self.send_response(r.get("status", 200))
        for k, v in r.get("headers", {}).items():
            self.send_header(k, v)
        if r.get("truncate"):
            self.send_header("Content-Length", str(len(body) + 1000))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = answer
    do_POST = answer

    def log_message(self, fmt, *args):
        sys.stderr.write("replay: " + (fmt % args) + "\n")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"PORT {server.server_address[1]}", flush=True)
server.serve_forever()
