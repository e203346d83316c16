#!/usr/bin/python3
"""Integration test of server-side data roots (`bioagent serve --root DIR`): a
genome folder too large to upload is listed by the root's name, picked for a
session, named in the plan by root name + relative path (never a server path),
and read in place by the run (check + identify): nothing of it is copied into
the state folder and the root folder is left as it was (the misnamed genome is
linked under the right name in the run's own folder, not renamed). Traversal
names ('..', absolute paths, a link leading out of the root) are refused.

Usage: data_roots_test.py BIOAGENT_BIN"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_json import call  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from bioagent_server import Server, events, new_session  # noqa: E402

BIN = sys.argv[1]
WORK = tempfile.mkdtemp(prefix="bioagent-roots-")
FAILURES = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILURES.append(what)
        if detail:
            print("  | " + detail.replace("\n", "\n  | "), flush=True)


def listing(folder):
    """name -> (inode, size, mtime) of every entry under folder."""
    out = {}
    for d, dirs, files in os.walk(folder):
        for n in dirs + files:
            p = os.path.join(d, n)
            st = os.lstat(p)
            out[os.path.relpath(p, folder)] = (st.st_ino, st.st_size, st.st_mtime_ns)
    return out


# ---- a root with one species folder two levels down, a misnamed genome, files no rule names, a link out
ROOT = os.path.join(WORK, "genomes")
species = os.path.join(ROOT, "plants", "Lchi")
subprocess.run([BIN, "genefamily", "example", species, "--prefix", "Lchi", "--family", "GLOBIN"], check=True,
               stdout=subprocess.DEVNULL)
os.rename(os.path.join(species, "Lchi.genome.fasta"), os.path.join(species, "Lchi.genome.fa"))
# Proteins and annotation as Phytozome names them: Lchinensis_<version>_<annotation> gives the prefix Lchi.
os.rename(os.path.join(species, "Lchi.pep.fasta"), os.path.join(species, "Lchinensis_1_v1.protein.fa"))
os.rename(os.path.join(species, "Lchi.gff3"), os.path.join(species, "Lchinensis_1_v1.gene_exons.gff3"))
os.remove(os.path.join(species, "truth.json"))
open(os.path.join(species, "md5sums.txt"), "w").write("not a data file\n")
outside = os.path.join(WORK, "outside", "Osec")
os.makedirs(outside)
shutil.copy(os.path.join(species, "Lchinensis_1_v1.protein.fa"), os.path.join(outside, "Osec.pep.fasta"))
os.symlink(os.path.dirname(outside), os.path.join(ROOT, "escape"))
GENOME = os.path.join(species, "Lchi.genome.fa")
genome_stat = os.stat(GENOME)
GENOME_HEAD = open(GENOME, "rb").read(65536)
before = listing(ROOT)

state = os.path.join(WORK, "state")
srv = Server(BIN, WORK, state, "--stages", "identify", "--root", ROOT, confirm_timeout=3)
try:
    B = srv.base
    sid = new_session(B)

    # ---- the roots, by name only
    st, cfg = call(B, "GET", "/api/config")
    check(st == 200 and cfg["data_roots"] == ["genomes"], "config names the data root (not its path)")
    st, roots = call(B, "GET", "/api/data_roots", sid=sid)
    folders = {f["folder"]: f for r in roots["roots"] for f in r["folders"]}
    check(st == 200 and list(folders) == ["plants/Lchi"] and folders["plants/Lchi"]["prefix"] == "Lchi",
          "the species folder two levels down is listed, the link out of the root is not: %s" % list(folders))
    files = {f["name"]: f for f in folders["plants/Lchi"]["files"]}
    check(files["Lchi.genome.fa"]["read_as"] == "Lchi.genome.fasta"
          and files["Lchinensis_1_v1.protein.fa"]["read_as"] == "Lchi.pep.fasta"
          and files["Lchinensis_1_v1.gene_exons.gff3"]["read_as"] == "Lchi.gff3"
          and files["Lchi.genome.fa"]["bytes"] == genome_stat.st_size and "md5sums.txt" not in files,
          "files listed with kind, size and the name the run reads them as; unrelated files left out")
    check(ROOT not in json.dumps(roots) and WORK not in json.dumps(cfg), "no server path in the listing")

    # ---- traversal names are refused
    for root, folder in [("genomes", ".."), ("genomes", "../outside"), ("genomes", "plants/../.."),
                         ("genomes", "/etc"), ("genomes", ROOT), ("genomes", "escape"), ("genomes", "escape/Osec"),
                         ("genomes", "plants/./Lchi"), ("genomes", ""), ("nope", "plants/Lchi")]:
        st, r = call(B, "POST", "/api/data_roots/select", {"root": root, "folder": folder}, sid)
        check(st in (400, 403, 404) and "error" in r and WORK not in json.dumps(r),
              "select %s:%s refused (%s)" % (root, folder, st))

    # ---- without a choice the planner finds the prefix in the root; with one, the same folder
    st, p = call(B, "POST", "/api/agent/plan", {"species": "Lchi", "gene_family": "GLOBIN"}, new_session(B))
    check(st == 200 and p["plan"]["analysis_plan"]["reference_genome"]["local_path"] == "genomes:plants/Lchi",
          "the planner finds the species folder in the root")
    st, r = call(B, "POST", "/api/data_roots/select", {"root": "genomes", "folder": "plants/Lchi"}, sid)
    check(st == 200 and r["selected"]["prefix"] == "Lchi", "the folder is chosen for the session")
    st, roots = call(B, "GET", "/api/data_roots", sid=sid)
    check(roots["selected"] == {"root": "genomes", "folder": "plants/Lchi", "prefix": "Lchi"}, "the choice is kept")
    st, r = call(B, "POST", "/api/agent/chat", {"message": "Can I study the GLOBIN gene family?"}, sid)
    check(st == 200 and r["route"]["species"] == "Lchi"
          and r["plan"]["analysis_plan"]["reference_genome"]["local_path"] == "genomes:plants/Lchi",
          "a chat naming only the family plans the chosen folder's species")
    st, p = call(B, "POST", "/api/agent/plan", {"species": "Lchi", "gene_family": "GLOBIN"}, sid)
    ref = p["plan"]["analysis_plan"]["reference_genome"]
    check(st == 200 and ref["local_path"] == "genomes:plants/Lchi" and ref["genome_fasta_status"] == "available",
          "the plan names the folder by root name and relative path")
    check("genomes:plants/Lchi/Lchi.genome.fa (read as Lchi.genome.fasta)" in ref["files_read"]
          and "genomes:plants/Lchi/Lchinensis_1_v1.protein.fa (read as Lchi.pep.fasta)" in ref["files_read"] and "read_in_place" in ref,
          "the plan lists the files it will read and where: %s" % ref.get("files_read"))
    check(ROOT not in json.dumps(p) and WORK not in json.dumps(p), "no server path in the plan or its YAML")

    # ---- the run reads the genome in place
    st, t = call(B, "POST", "/api/agent/execute", {"plan_id": p["plan_id"], "auto_confirm": True}, sid)
    check(st == 202, "the run starts")
    evs = events(B, sid, t["task_id"], timeout=300)
    final = [e for e in evs if e.get("type") == "state"][-1]
    check(final["state"] == "done", "check + identify done from the root folder: %s" % final.get("message"))
    data = [e for e in evs if e.get("type") == "data"]
    check(data and {"file": "genomes:plants/Lchi/Lchi.genome.fa", "kind": "genome", "bytes": genome_stat.st_size,
                    "read_as": "Lchi.genome.fasta"} in data[0]["read_in_place"]
          and data[0]["not_read"] == ["md5sums.txt"], "the run says which files it reads in place: %s" % (data[:1],))
    check(all(c.get("how") == "link" for e in evs if e.get("type") == "repair" for c in e["changes"]),
          "a misnamed file of the root folder is read under its rule name through a link, never renamed")
    st, status = call(B, "GET", "/api/agent/status/%s" % t["task_id"], sid=sid)
    check(status["stages"].get("identify") == "done", "identify done")
    check(ROOT not in json.dumps(evs) and ROOT not in json.dumps(status), "no server path in the events or status")
    copies, links, largest = [], [], 0
    for d, dirs, names in os.walk(state):
        if d == state:  # the server's own generated example genome (as the generated Lchi) is not a copy
            dirs.remove("example-data")
        for n in names:
            path = os.path.join(d, n)
            st_ = os.lstat(path)
            if os.path.islink(path):
                links.append(os.path.realpath(path))
            elif st_.st_ino == genome_stat.st_ino or (st_.st_size == genome_stat.st_size
                                                      and open(path, "rb").read(65536) == GENOME_HEAD):
                copies.append(path)
            elif not n.startswith("app.sqlite"):
                largest = max(largest, st_.st_size)
    check(not copies, "no file in the state folder is the genome or a copy of it: %s" % copies)
    check(largest < genome_stat.st_size / 2, "no run file is near the genome's size (%d of %d bytes)"
          % (largest, genome_stat.st_size))
    check(os.path.realpath(GENOME) in links, "the run's folder links the genome where it is")
    check(listing(ROOT) == before, "the root folder is unchanged (nothing renamed, no backup written)")
finally:
    srv.stop()

# ---- a folder of special files named as data: FIFOs (reading one blocks for ever), a socket, a link to a
# device node and a link inside the root to a FIFO. Only regular files are data: none is listed or read.
SPECIAL = os.path.join(ROOT, "plants", "Fifo")
os.makedirs(SPECIAL)
os.mkfifo(os.path.join(SPECIAL, "Fifo.genome.fasta"))
os.mkfifo(os.path.join(SPECIAL, "Fifo.pep.fasta"))
os.symlink("/dev/zero", os.path.join(SPECIAL, "Fifo.cds.fasta"))
os.symlink(os.path.join(SPECIAL, "Fifo.pep.fasta"), os.path.join(SPECIAL, "Fifo.gff3"))
sock = __import__("socket").socket(__import__("socket").AF_UNIX)
sock.bind(os.path.join(SPECIAL, "Fifo.hmm"))

# ---- a root that holds the server's state folder: the state (every session's uploads and runs) is never offered
state2 = os.path.join(ROOT, "state")
srv2 = Server(BIN, WORK, state2, "--root", ROOT, cpus=None)
try:
    B2 = srv2.base
    sid2 = new_session(B2)
    st, roots = call(B2, "GET", "/api/data_roots", sid=sid2)
    listed = [f["folder"] for r in roots["roots"] for f in r["folders"]]
    check(st == 200 and listed == ["plants/Lchi"],
          "neither the state folder inside the root nor the folder of FIFOs, a socket and device links is listed: %s"
          % listed)
    for folder in ["state", "state/example-data/Exam", "state/sessions"]:
        st, r = call(B2, "POST", "/api/data_roots/select", {"root": "genomes", "folder": folder}, sid2)
        check(st == 403, "select genomes:%s refused (%s)" % (folder, st))
    st, r = call(B2, "POST", "/api/data_roots/select", {"root": "genomes", "folder": "plants/Fifo"}, sid2)
    check(st == 404 and "only regular files" in json.dumps(r) and WORK not in json.dumps(r),
          "selecting the folder of FIFOs is refused, naming why: %s %s" % (st, r))
    st, p = call(B2, "POST", "/api/agent/plan", {"species": "Fifo", "gene_family": "GLOBIN"}, sid2)
    check(st == 200 and "plants/Fifo" not in json.dumps(p),
          "the planner does not take FIFOs named Fifo.*.fasta as the species' data (answered, not blocked)")
finally:
    srv2.stop()
    sock.close()
    shutil.rmtree(SPECIAL)


def terminal_chat_on_root():
    """`bioagent chat --root`: /roots lists the folder, /use picks it (traversal refused), the chat plans and
    runs the species from the root."""
    lines = ["/roots", "/use genomes:../outside", "/use genomes:plants/Lchi",
             "I want to study the GLOBIN gene family of Lchi. Is it feasible?", "Run the analysis"]
    r = subprocess.run([BIN, "--offline", "chat", "--state-dir", os.path.join(WORK, "state-chat"), "--root", ROOT,
                        "--stages", "identify", "--confirm-timeout", "2", "--cpus", "1"],
                       input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=240)
    out = r.stdout
    check(r.returncode == 0 and "plants/Lchi  prefix Lchi" in out and "Lchi.genome.fa (genome" in out,
          "chat /roots lists the root's species folder and its files", out[-600:])
    check("escape" not in out.split("/use ROOT:FOLDER")[0], "chat /roots does not list the link out of the root")
    check("not a plain relative name" in r.stderr,
          "chat /use with '..' is refused: %s" % r.stderr[-300:])
    check('"prefix": "Lchi"' in out, "chat /use picks the folder")
    check("genomes:plants/Lchi" in out and ROOT not in out, "the chat's plan names the root folder, not its path")
    check(re.search(r"task \S+ done|任务 \S+ done|· task done", out) is not None or "identify: done" in out,
          "the chat's run is done from the root folder", out[-800:])


def mcp_on_root():
    """`bioagent mcp --root`: genefamily_data_roots lists the folder; genefamily_task_start with data_folder runs
    it; a traversal folder is an error result."""
    log = open(os.path.join(WORK, "server.log"), "a")  # the servers' log: kept for a failure's message
    proc = subprocess.Popen([BIN, "--offline", "mcp", "--state-dir", os.path.join(WORK, "state-mcp"), "--root", ROOT,
                             "--stages", "identify", "--confirm-timeout", "2", "--cpus", "1"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)
    ids = iter(range(1, 100))

    def rpc(method, params):
        msg = {"jsonrpc": "2.0", "id": next(ids), "method": method, "params": params}
        proc.stdin.write(json.dumps(msg) + "\n")
        proc.stdin.flush()
        while True:
            reply = json.loads(proc.stdout.readline())
            if reply.get("id") == msg["id"]:
                return reply

    def tool(name, args):
        return rpc("tools/call", {"name": name, "arguments": args})["result"]

    try:
        rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "data-roots-test", "version": "1"}})
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        names = [t["name"] for t in rpc("tools/list", {})["result"]["tools"]]
        check("genefamily_data_roots" in names, "MCP lists genefamily_data_roots")
        listed = tool("genefamily_data_roots", {})["structuredContent"]
        folders = [f["folder"] for r_ in listed["roots"] for f in r_["folders"]]
        check(folders == ["plants/Lchi"] and ROOT not in json.dumps(listed),
              "MCP genefamily_data_roots lists the species folder by name: %s" % folders)
        bad = tool("genefamily_task_start", {"species": "Lchi", "family": "GLOBIN", "data_folder": "genomes:../outside"})
        check(bad.get("isError") is True and WORK not in json.dumps(bad), "MCP data_folder with '..' is an error")
        started = tool("genefamily_task_start",
                       {"species": "Lchi", "family": "GLOBIN", "data_folder": "genomes:plants/Lchi"})
        task = started["structuredContent"]["task_id"]
        done = tool("genefamily_task_result", {"task_id": task, "wait_seconds": 200})
        sc = done["structuredContent"]
        check(sc.get("state") == "done" and any(f.get("name") == "Lchi.GLOBIN.pep.fasta" for f in sc.get("files", [])),
              "MCP's task on the root folder is done: %s" % json.dumps(done)[:400])
        check(ROOT not in json.dumps(done), "no server path in the MCP result")
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
        log.close()


terminal_chat_on_root()
mcp_on_root()
after = {k: v for k, v in listing(ROOT).items() if k.split(os.sep)[0] != "state"}  # the second server's own
check(after == before, "the root folder is unchanged after the chat and MCP runs")

if FAILURES:
    print("\n%d failed; the server's log: %s" % (len(FAILURES), os.path.join(WORK, "server.log")))
    sys.exit(1)
shutil.rmtree(WORK, ignore_errors=True)
print("all passed")
