#!/usr/bin/python3
"""Hostile genome-side files against `bioagent serve`: malformed and oversized
genome, annotation and sequence files (generated here, plain and gzip: bytes
that are not UTF-8, control bytes, long lines, long ids, huge Parent lists,
too many attributes or features, truncated gzip, decompression bombs, one huge
sequence, FIFOs and device nodes in place of files) sent through the web
upload and through a data root, one bad file per run beside good ones. While
they run, /healthz answers within 2 s, the server's RSS stays under 1 GiB; each
bad file fails its own stage (check) with a reason naming the file and what
is wrong; no run writes more than its disk budget; no response names a server
path. Then a FASTA with a byte that is not UTF-8, uploaded and run, with the
server killed and restarted twice on the same state: the run is failed with
its reason each time and the server answers.

Usage: hostile_upload_test.py BIOAGENT_BIN"""
import concurrent.futures
import gzip
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from http_json import call as raw_call  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from bioagent_server import Server, events as raw_events, new_session  # noqa: E402

BIN = sys.argv[1]
WORK = tempfile.mkdtemp(prefix="bioagent-hostile-")
FAILURES = []
SEEN = []  # every response body, for the server-path check
SEEN_LOCK = threading.Lock()
DISK_MB = 48
# Size limits lowered so that an oversized file is a few MiB; the others keep their defaults.
LIMITS = ["file_bytes=6291456", "genome_bytes=12582912", "genome_sequence_bytes=6000000", "features=20000"]


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILURES.append(what)
        if detail:
            print("  | " + str(detail)[:1500].replace("\n", "\n  | "), flush=True)


def call(*a, **kw):
    st, body = raw_call(*a, **kw)
    with SEEN_LOCK:
        SEEN.append(json.dumps(body))
    return st, body


def events(*a, **kw):
    evs = raw_events(*a, **kw)
    with SEEN_LOCK:
        SEEN.append(json.dumps(evs))
    return evs


def upload(base, sid, files):
    boundary = uuid.uuid4().hex
    body = b"".join(("--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"%s\"\r\n"
                     "Content-Type: application/octet-stream\r\n\r\n" % (boundary, n)).encode() + c + b"\r\n"
                    for n, c in files) + ("--%s--\r\n" % boundary).encode()
    req = urllib.request.Request(base + "/api/upload", data=body, method="POST")
    req.add_header("Content-Type", "multipart/form-data; boundary=" + boundary)
    req.add_header("X-Session-Id", sid)
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            st, out = r.status, r.read()
    except urllib.error.HTTPError as e:
        st, out = e.code, e.read()
    with SEEN_LOCK:
        SEEN.append(out.decode(errors="replace"))
    return st


# ---- the good data: the generated genome of Lchi and its GLOBIN profile
good_dir = os.path.join(WORK, "Lchi")
subprocess.run([BIN, "genefamily", "example", good_dir, "--prefix", "Lchi", "--family", "GLOBIN"], check=True,
               stdout=subprocess.DEVNULL)
GOOD = {k: open(os.path.join(good_dir, n), "rb").read() for k, n in
        [("genome", "Lchi.genome.fasta"), ("gff3", "Lchi.gff3"), ("cds", "Lchi.cds.fasta"), ("pep", "Lchi.pep.fasta"),
         ("hmm", "GLOBIN.hmm")]}
NAMES = {"genome": "Lchi.genome.fasta", "gff3": "Lchi.gff3", "cds": "Lchi.cds.fasta", "pep": "Lchi.pep.fasta",
         "hmm": "GLOBIN.hmm"}


def gff(seqid, typ, attrs, start=1, end=90, strand="+"):
    return ("%s\tsrc\t%s\t%s\t%s\t.\t%s\t0\t%s\n" % (seqid, typ, start, end, strand, attrs)).encode()


GENE = gff("chr1", "gene", "ID=gx") + gff("chr1", "mRNA", "ID=tx;Parent=gx")
# FASTA defects: (name, bytes for a protein/CDS file, bytes for a genome, what the reason says; a pair when the
# sequence readers and the genome reader word it differently)
FASTA_DEFECTS = [
    ("id not UTF-8", b">a\xff\nMK\n", b">c\xff\nACGT\n", "0xFF"),
    ("sequence not UTF-8", b">a\nM\xffK\n", b">c\nAC\xffGT\n", "0xFF"),
    ("overlong UTF-8 in id", b">a\xc0\xaf\nMK\n", b">c\xc0\xaf\nACGT\n", "0xC0"),
    ("control byte in id", b">a\x01b\nMK\n", b">c\x01d\nACGT\n", "0x01"),
    ("header without a name", b">\nMK\n", b">\nACGT\n", "without a name"),
    ("sequence before any header", b"MKV\n>a\nMK\n", b"ACGT\n>c\nACGT\n", "before the first"),
    ("duplicate id", b">a\nMK\n>a\nMV\n", b">c\nACGT\n>c\nACGT\n", ("used already", "twice")),
    ("id of 5000 bytes", b">" + b"a" * 5000 + b"\nMK\n", b">" + b"c" * 5000 + b"\nACGT\n", "id_bytes"),
    ("header of 5 MiB", b">a " + b"d" * (5 << 20) + b"\nMK\n", b">c " + b"d" * (5 << 20) + b"\nACGT\n", "line_bytes"),
    ("digits in the sequence", b">a\nMK1V\n", b">c\nAC7GT\n", "column 3"),
]
GFF_DEFECTS = [
    ("ID not UTF-8", GENE + b"chr1\tsrc\tgene\t1\t90\t.\t+\t0\tID=g\xff\n", "0xFF"),
    ("seqid not UTF-8", b"chr\xff\tsrc\tgene\t1\t90\t.\t+\t0\tID=g1\n", "0xFF"),
    ("Parent of 20000 ids", GENE + gff("chr1", "CDS", "ID=c1;Parent=" + ",".join("t%d" % i for i in range(20000))), "parents"),
    ("2000 attributes", gff("chr1", "gene", "ID=g1;" + ";".join("k%d=v" % i for i in range(2000))), "attributes"),
    ("line of 5 MiB", gff("chr1", "gene", "ID=g1;Note=" + "n" * (5 << 20)), "line_bytes"),
    ("25000 features", b"".join(gff("chr1", "gene", "ID=g%d" % i) for i in range(25000)), "features"),
    ("8 columns", b"chr1\tsrc\tgene\t1\t90\t.\t+\t0\n", "9 tab-separated"),
    ("end before start", gff("chr1", "gene", "ID=g1", 90, 1), "start"),
    ("strand x", gff("chr1", "gene", "ID=g1", strand="x"), "strand"),
    ("duplicate gene ID", gff("chr1", "gene", "ID=g1") + gff("chr1", "gene", "ID=g1"), "used already"),
    ("ID of 5000 bytes", gff("chr1", "gene", "ID=" + "g" * 5000), "id_bytes"),
]


def bomb(unit, mib):
    """gzip of `mib` MiB of one letter: a few hundred KiB that inflate past every ratio."""
    return gzip.compress(unit + b"A" * (mib << 20) + b"\n", 9)


def cases():
    """(label, kind, bytes, what the reason names) for every file kind, defect and compression."""
    out = []
    for kind in ("pep", "cds", "genome"):
        for label, seq_file, genome_file, says in FASTA_DEFECTS:
            data = genome_file if kind == "genome" else seq_file
            if isinstance(says, tuple):
                says = says[kind == "genome"]
            out.append(("%s %s" % (kind, label), kind, data, says))
            if label in ("id not UTF-8", "sequence not UTF-8", "header of 5 MiB"):
                out.append(("%s %s (gzip)" % (kind, label), kind, gzip.compress(data), says))
    for label, data, says in GFF_DEFECTS:
        out.append(("gff3 " + label, "gff3", data, says))
        if label in ("ID not UTF-8", "Parent of 20000 ids", "25000 features"):
            out.append(("gff3 %s (gzip)" % label, "gff3", gzip.compress(data), says))
    for kind in ("pep", "cds", "genome", "gff3"):
        z = gzip.compress(GOOD[kind])
        out.append(("%s truncated gzip" % kind, kind, z[: len(z) // 2], "not readable gzip data"))
        out.append(("%s gzip bomb" % kind, kind, bomb(b">x\n" if kind != "gff3" else b"", 200), "input_limits"))
    out.append(("pep of 7 MiB (file_bytes)", "pep", b">a\n" + b"M" * (7 << 20) + b"\n", "file_bytes"))
    out.append(("genome sequence of 7 Mb", "genome", gzip.compress(b">c\n" + b"ACGT" * (7 << 18) + b"\n"),
                "genome_sequence_bytes"))
    out.append(("gff3 binary bytes", "gff3", bytes(range(256)) * 64, "line"))
    return out


class Watch:
    """/healthz latency and the server's RSS, sampled every 0.25 s while the runs go on."""

    def __init__(self, base, pid):
        self.base, self.pid, self.worst, self.rss, self.stop_flag = base, pid, 0.0, 0, False
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        while not self.stop_flag:
            t0 = time.time()
            try:
                urllib.request.urlopen(self.base + "/healthz", timeout=10).read()
                self.worst = max(self.worst, time.time() - t0)
            except Exception:  # noqa: BLE001 - any failure counts as a slow answer
                self.worst = max(self.worst, 99.0)
            try:
                for line in open("/proc/%d/status" % self.pid):
                    if line.startswith("VmRSS:"):
                        self.rss = max(self.rss, int(line.split()[1]) * 1024)
            except OSError:
                pass
            time.sleep(0.25)

    def stop(self):
        self.stop_flag = True
        self.thread.join()


def run_case(base, label, kind, data, says, root_folder=None):
    """One run with the bad file: (label, ok, detail)."""
    sid = new_session(base)
    if root_folder:
        st, r = call(base, "POST", "/api/data_roots/select", {"root": "genomes", "folder": root_folder}, sid)
        if st != 200:
            return label, False, "select %s: %s %s" % (root_folder, st, r)
    else:
        files = [(NAMES[k], data if k == kind else GOOD[k]) for k in NAMES]
        if upload(base, sid, files) != 200:
            return label, False, "upload refused"
    st, p = call(base, "POST", "/api/agent/plan", {"species": "Lchi", "gene_family": "GLOBIN"}, sid)
    if st != 200:
        return label, False, "plan: %s %s" % (st, p)
    st, t = call(base, "POST", "/api/agent/execute", {"plan_id": p["plan_id"], "auto_confirm": True}, sid)
    if st != 202:
        return label, False, "execute: %s %s" % (st, t)
    evs = events(base, sid, t["task_id"], timeout=240)
    failed = [e for e in evs if e.get("type") == "stage" and e.get("state") == "failed"]
    final = [e for e in evs if e.get("type") == "state"]
    message = failed[0].get("message", "") if failed else ""
    if root_folder in ("fifo", "device"):  # not a file: refused by the stage, or left out of the folder's listing
        message = message or (final[-1].get("message", "") if final else "")
        ok = bool(final) and final[-1]["state"] == "failed" and NAMES[kind] in message
    else:
        ok = (bool(failed) and failed[0]["stage"] == "check" and bool(final) and final[-1]["state"] == "failed"
              and says in message and NAMES[kind] in message)
    return label, ok, "stage %s: %s" % (failed[0]["stage"] if failed else "-", message[:400] or final[-1:])


def make_root():
    """A data root of species folders, each with one bad file (and a FIFO and a device in place of proteins)."""
    root = os.path.join(WORK, "genomes")
    picks = [c for c in cases() if c[0] in ("genome sequence not UTF-8", "gff3 Parent of 20000 ids (gzip)",
                                             "genome gzip bomb", "pep id of 5000 bytes", "cds truncated gzip",
                                             "gff3 25000 features", "genome header of 5 MiB (gzip)",
                                             "pep sequence not UTF-8 (gzip)")]
    out = []
    for i, (label, kind, data, says) in enumerate(picks):
        folder = os.path.join(root, "case%02d" % i)
        os.makedirs(folder)
        for k, n in NAMES.items():
            open(os.path.join(folder, n), "wb").write(data if k == kind else GOOD[k])
        out.append(("root: " + label, kind, data, says, "case%02d" % i))
    for special in ("fifo", "device"):
        folder = os.path.join(root, special)
        os.makedirs(folder)
        for k, n in NAMES.items():
            if k != "pep":
                open(os.path.join(folder, n), "wb").write(GOOD[k])
        target = os.path.join(folder, NAMES["pep"])
        if special == "fifo":
            os.mkfifo(target)
        elif os.geteuid() == 0:
            os.mknod(target, stat.S_IFCHR | 0o600, os.makedev(1, 3))  # /dev/null's numbers
        else:
            os.symlink("/dev/zero", target)
        out.append(("root: proteins are a %s" % special, "pep", b"", "Lchi.pep.fasta", special))
    return root, out


def run_dirs_over_budget(state):
    over = []
    for d, dirs, names in os.walk(state):
        if os.path.basename(os.path.dirname(d)) == "runs":
            total = sum(os.lstat(os.path.join(dd, n)).st_size for dd, _, ns in os.walk(d) for n in ns)
            if total > DISK_MB << 20:
                over.append((d, total))
    return over


started = time.time()
root, root_cases = make_root()
state = os.path.join(WORK, "state")
extra = ["--stages", "check", "--run-disk-mb", str(DISK_MB), "--max-upload-mb", "32", "--root", root]
for kv in LIMITS:
    extra += ["--input-limit", kv]
srv = Server(BIN, WORK, state, *extra, confirm_timeout=2, cpus=2)
try:
    watch = Watch(srv.base, srv.proc.pid)
    all_cases = [(l, k, d, s, None) for l, k, d, s in cases()] + root_cases
    check(len(all_cases) >= 60, "%d hostile files (%d through the upload, %d through a data root)"
          % (len(all_cases), len(all_cases) - len(root_cases), len(root_cases)))
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda c: run_case(srv.base, *c[:4], root_folder=c[4]), all_cases))
    for label, ok, detail in results:
        check(ok, "%s fails its check stage with a clear reason" % label, detail)
    watch.stop()
    check(watch.worst < 2.0, "/healthz answered within 2 s throughout (slowest %.2f s)" % watch.worst)
    check(0 < watch.rss < 1 << 30, "the server's RSS stayed under 1 GiB (peak %.0f MiB)" % (watch.rss / 2**20))
    over = run_dirs_over_budget(state)
    check(not over, "no run wrote more than its disk budget of %d MiB" % DISK_MB, over)
    st, h = call(srv.base, "GET", "/healthz")
    check(st == 200, "the server is alive after every hostile file")
finally:
    srv.stop()

# ---- a byte that is not UTF-8, the server killed at once and restarted twice on the same state
state2 = os.path.join(WORK, "state-restart")
srv = Server(BIN, WORK, state2, "--stages", "check", confirm_timeout=2)
sid = new_session(srv.base)
upload(srv.base, sid, [(NAMES[k], b">a\nM\xffK\n" if k == "pep" else GOOD[k]) for k in NAMES])
st, p = call(srv.base, "POST", "/api/agent/plan", {"species": "Lchi", "gene_family": "GLOBIN"}, sid)
st, t = call(srv.base, "POST", "/api/agent/execute", {"plan_id": p["plan_id"], "auto_confirm": True}, sid)
task = t["task_id"]
srv.stop(signal.SIGKILL)
for attempt in (1, 2):
    srv = Server(BIN, WORK, state2, "--stages", "check", confirm_timeout=2)
    try:
        s = {}
        for _ in range(300):
            st, s = call(srv.base, "GET", "/api/agent/status/" + task, sid=sid)
            if s.get("terminal"):
                break
            time.sleep(0.2)
        text = json.dumps(s)
        check(s.get("state") == "failed" and "0xFF" in text and "Lchi.pep.fasta" in text,
              "restart %d: the run is failed and says which byte of which file" % attempt, text[:800])
        st, h = call(srv.base, "GET", "/healthz")
        check(st == 200 and srv.proc.poll() is None, "restart %d: the server is alive" % attempt)
    finally:
        srv.stop(signal.SIGKILL if attempt == 1 else signal.SIGTERM)

leaks = [b for b in SEEN if WORK in b]
check(not leaks, "no response names a server path (%d responses read)" % len(SEEN), leaks[:2])
print("%.0f s" % (time.time() - started))
shutil.rmtree(WORK, ignore_errors=True)
print("%d failure(s)" % len(FAILURES))
sys.exit(1 if FAILURES else 0)
