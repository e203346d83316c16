"""One JSON request to the server for the integration tests: (status, decoded
body); an HTTP error's body decoded too, or {"raw": text} when it is no JSON."""
import json
import urllib.error
import urllib.request


def call(base, method, path, body=None, sid=None, token=None, raw=None, headers=None):
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else b"")
    req = urllib.request.Request(base + path, data=data if method != "GET" else None, method=method)
    req.add_header("Content-Type", "application/json")
    if sid:
        req.add_header("X-Session-Id", sid)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        text = e.read()
        try:
            return e.code, json.loads(text)
        except ValueError:
            return e.code, {"raw": text.decode(errors="replace")}
