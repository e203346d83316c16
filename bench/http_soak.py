#!/usr/bin/python3
"""Soak of `bioagent serve`'s HTTP transport: N idle or slow connections (half
send nothing, half send one header line every 2 s; each is reopened when the
server closes it) beside well-behaved clients that call /healthz, /api/config
and a tool, each request on a new connection, for S seconds. Prints the
figures; fails on any error of a well-behaved client, a p99 of 1 s or more,
or a server RSS above the bound. Loopback only.

Usage: http_soak.py BIOAGENT_BIN [--connections 1000] [--seconds 60] [--clients 8] [--rss-bound-mb 512]"""
import argparse
import json
import os
import resource
import selectors
import shutil
import socket
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "security"))
from http_raw import http  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "helpers"))
from bioagent_server import Server  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("bin")
ap.add_argument("--connections", type=int, default=1000)
ap.add_argument("--seconds", type=float, default=60)
ap.add_argument("--clients", type=int, default=8)
ap.add_argument("--rss-bound-mb", type=int, default=512)
args = ap.parse_args()

soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.connections * 2 + 256)), hard))
work = tempfile.mkdtemp(prefix="bioagent-soak-")
srv = Server(args.bin, work, os.path.join(work, "state"))
port = srv.port
stop = threading.Event()
lat, errors, lock = [], [], threading.Lock()
held = {"max": 0, "reopened": 0}
peak = [0]


def rss(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def slow_pool():
    """Keeps args.connections sockets open; half trickle a header line every 2 s."""
    sel = selectors.DefaultSelector()
    conns = {}

    def open_one(i):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
        except OSError:
            return
        s.setblocking(False)
        if i % 2:
            try:
                s.send(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            except OSError:
                pass
        conns[s] = i
        sel.register(s, selectors.EVENT_READ, i)
    for i in range(args.connections):
        open_one(i)
    last_trickle = time.time()
    while not stop.is_set():
        held["max"] = max(held["max"], len(conns))
        for key, _ in sel.select(timeout=0.2):
            s = key.fileobj
            try:
                data = s.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if not data:  # closed by the server (deadline): reopen
                sel.unregister(s)
                i = conns.pop(s)
                s.close()
                held["reopened"] += 1
                open_one(i)
        if time.time() - last_trickle >= 2:
            last_trickle = time.time()
            for s, i in list(conns.items()):
                if i % 2:
                    try:
                        s.send(b"X-Slow: 1\r\n")
                    except OSError:
                        pass
    for s in conns:
        s.close()


def client(n):
    calc = json.dumps({"expr": "6*7"}).encode()
    while not stop.is_set():
        for method, path, body in (("GET", "/healthz", None), ("GET", "/api/config", None),
                                   ("POST", "/api/tools/calculate_expr", calc)):
            t = time.time()
            try:
                st, _, _ = http(port, method, path, body, {"Content-Type": "application/json"} if body else None,
                                timeout=30)
            except OSError as e:
                st = "%s" % e
            with lock:
                lat.append(time.time() - t)
                if st != 200:
                    errors.append((path, st))


def sampler():
    while not stop.is_set():
        peak[0] = max(peak[0], rss(srv.proc.pid))
        time.sleep(0.25)


try:
    start_rss = rss(srv.proc.pid)
    threads = [threading.Thread(target=slow_pool), threading.Thread(target=sampler)]
    threads[0].start()
    time.sleep(1.0)  # the slow connections are open before the traffic starts
    threads += [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
    for t in threads[1:]:
        t.start()
    t0 = time.time()
    time.sleep(args.seconds)
    stop.set()
    for t in threads:
        t.join()
    took = time.time() - t0
    alive = http(port, "GET", "/healthz")[0] == 200
finally:
    srv.stop()
    shutil.rmtree(work, ignore_errors=True)

lat.sort()
p50 = lat[len(lat) // 2] if lat else 0
p99 = lat[max(0, int(len(lat) * 0.99) - 1)] if lat else 99
print("soak: %d idle/slow connections (%d held at most, %d reopened after server deadlines) for %.0f s"
      % (args.connections, held["max"], held["reopened"], took))
print("soak: %d requests from %d well-behaved clients, %d errors, p50 %.3f s, p99 %.3f s, max %.3f s"
      % (len(lat), args.clients, len(errors), p50, p99, lat[-1] if lat else 0))
print("soak: server RSS %.0f MiB at start, %.0f MiB peak (bound %d MiB)"
      % (start_rss / 2**20, peak[0] / 2**20, args.rss_bound_mb))
ok = not errors and lat and p99 < 1.0 and peak[0] < args.rss_bound_mb << 20 and alive
if errors:
    print("soak: first errors: %s" % errors[:5])
print("soak: %s" % ("passed" if ok else "FAILED"))
sys.exit(0 if ok else 1)
