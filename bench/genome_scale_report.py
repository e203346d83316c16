#!/usr/bin/env python3
"""The figures of bench/genome_scale.sh from its work folder: per-stage wall time and peak RSS, the
same external programs replayed by a plain script (our total over the script's), the reuse of the
all-against-all search by the second family, the WGD peak against the planted Ks, and the confusion
of planted duplicate classes against the synteny stage's. Exit 1 when a check fails."""
import collections
import csv
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

work, truth_path, cpus = sys.argv[1], sys.argv[2], sys.argv[3]
families = sys.argv[4:6]  # run 1's and run 2's
truth = json.load(open(truth_path))
failures = []


def load_run(run):
    status = json.load(open(os.path.join(run, "status.json")))
    stages = status["stages"] if isinstance(status, dict) else status
    # "wall_s rss_kb [user_s sys_s]" (CPU includes the programs it waited for); empty when the run was killed
    lines = [line.split() for line in open(run + ".time") if line.strip()]
    parts = lines[-1] if lines else []
    wall, rss = (parts[0], parts[1]) if len(parts) >= 2 and parts[1].isdigit() else ("nan", "0")
    cpu = float(parts[2]) + float(parts[3]) if len(parts) >= 4 else float("nan")
    attempts = collections.defaultdict(list)
    db = sqlite3.connect(os.path.join(run, "run.sqlite"))
    for stage, argv, seconds, rss_kb, state in db.execute(
            "SELECT stage, argv, seconds, max_rss_kb, state FROM attempts ORDER BY id"):
        attempts[stage].append((json.loads(argv) if argv else [], seconds or 0, rss_kb or 0, state))
    return stages, float(wall), int(rss), cpu, attempts


def stage_folder(run, stage):
    return stage.get("folder") and (stage["folder"] if os.path.isabs(stage["folder"])
                                    else os.path.join(run, stage["folder"]))


def print_stages(name, run):
    stages, wall, rss, cpu, attempts = load_run(run)
    print(f"\n{name}: {wall:.0f} s wall, {cpu:.0f} s CPU, bioagent peak RSS {rss / 1024:.0f} MiB")
    print(f"  {'stage':<12} {'state':<9} {'wall s':>8} {'programs s':>10} {'programs peak RSS MiB':>22}")
    for s in stages:
        ext = [a for a in attempts.get(s["stage"], []) if a[0]]
        print(f"  {s['stage']:<12} {s['state']:<9} {s.get('seconds', 0):8.1f} {sum(a[1] for a in ext):10.1f} "
              f"{max([a[2] for a in ext], default=0) / 1024:22.0f}")
    return stages, wall, rss, cpu, attempts


def replay(run, stages, attempts):
    """The external programs of the finished stages, same argv, in a copy of each stage's folder: (wall s, CPU s)."""
    total = 0.0
    before = os.times()
    for s in stages:
        folder = stage_folder(run, s)
        commands = [a[0] for a in attempts.get(s["stage"], []) if a[0] and a[3] == "ok"]
        if not commands or not folder or not os.path.isdir(folder):
            continue
        with tempfile.TemporaryDirectory() as scratch:
            copy = os.path.join(scratch, "stage")
            shutil.copytree(folder, copy, symlinks=True)
            for argv in commands:
                t0 = time.monotonic()
                with open(os.path.join(scratch, "out"), "wb") as out:
                    subprocess.run(argv, cwd=copy, stdout=out, stderr=subprocess.DEVNULL, check=False)
                total += time.monotonic() - t0
    after = os.times()
    return total, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def print_identification(run, stages, family):
    """The identify stage's genes against the family's planted members (copies included)."""
    identify = next((s for s in stages if s["stage"] == "identify"), None)
    folder = identify and stage_folder(run, identify)
    if not folder or family not in truth["families"]:
        return
    # members.tsv names each member (the family's renamed name) and gives the data's gene and protein ids.
    with open(os.path.join(folder, "members.tsv")) as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    found = {r["name"]: {r["gene_id"], r["protein_id"]} for r in rows}
    planted = set(truth["families"][family])
    hit = sum(1 for ids in found.values() if ids & planted)
    print(f"  identify: {len(found)} {family} genes called, {hit} of {len(planted)} planted members found "
          f"(recall {hit / max(1, len(planted)):.2f}, precision {hit / max(1, len(found)):.2f})")
    if hit < 0.9 * len(planted) or hit < 0.95 * len(found):
        failures.append(f"{family}: recall or precision of the identification below 0.90 / 0.95")


stages1, wall1, rss1, cpu1, attempts1 = print_stages("run 1", os.path.join(work, "run1"))
print_identification(os.path.join(work, "run1"), stages1, families[0] if families else "")
inside = sum(a[1] for runs in attempts1.values() for a in runs if a[0])
print(f"\nwithin run 1: its external programs {inside:.0f} s (wall, summed), the rest of its {wall1:.0f} s wall "
      f"is in-process work or stages overlapping")
script, script_cpu = replay(os.path.join(work, "run1"), stages1, attempts1)
nan = float("nan")
print(f"the same external programs from a plain script: {script:.0f} s wall, {script_cpu:.0f} s CPU; ours "
      f"{wall1:.0f} s wall, {cpu1:.0f} s CPU; ratio wall {wall1 / script if script > 0 else nan:.2f}, "
      f"CPU {cpu1 / script_cpu if script_cpu > 0 else nan:.2f} (target <= 1.05)")
stages2, wall2, rss2, cpu2, attempts2 = print_stages("run 2 (second family)", os.path.join(work, "run2"))
print_identification(os.path.join(work, "run2"), stages2, families[1] if len(families) > 1 else "")

synteny2 = next((s for s in stages2 if s["stage"] == "synteny"), None)
if synteny2 is not None:
    reused = (synteny2.get("summary") or {}).get("homology_search", {}).get("reused")
    print(f"\nsecond family: all-against-all search reused from the cache: {reused}")
    if reused is not True:
        failures.append("the second family did not reuse the all-against-all search")

duplication = next((s for s in stages1 if s["stage"] == "duplication"), None)
if duplication is not None and duplication["state"] in ("done", "cached", "warn"):
    peaks = (duplication.get("summary") or {}).get("peaks", [])
    expected = truth["wgd"]["expected_ks"]
    nearest = min(peaks, key=lambda p: abs(p["ks"] - expected), default=None)
    listed = ", ".join("%.2f (%d pairs)" % (p["ks"], p["pairs"]) for p in peaks) or "none"
    print(f"\ngenome-wide Ks peaks: {listed}; planted WGD expected Ks {expected:.3f}")
    if nearest is None or abs(nearest["ks"] - expected) > 0.1:
        failures.append(f"no genome-wide Ks peak within 0.1 of the planted WGD ({expected:.3f})")
    else:
        print(f"WGD peak found at Ks {nearest['ks']:.3f} (off by {abs(nearest['ks'] - expected):.3f})")

synteny1 = next((s for s in stages1 if s["stage"] == "synteny"), None)
if synteny1 is not None and stage_folder(os.path.join(work, "run1"), synteny1):
    path = os.path.join(stage_folder(os.path.join(work, "run1"), synteny1), "duplicate_classes.tsv")
    if os.path.exists(path):
        classified = dict(line.rstrip("\n").split("\t") for line in list(open(path))[1:])
        expect = {"wgd": "segmental", "segmental": "segmental", "tandem": "tandem", "proximal": "proximal",
                  "dispersed": "dispersed"}
        confusion = collections.defaultdict(collections.Counter)
        for original, copy, planted, _rate, _ks in truth["duplicates"]:
            confusion[planted][classified.get(copy, "singleton")] += 1
        columns = ["segmental", "tandem", "proximal", "dispersed", "singleton"]
        print("\nplanted copies (rows) against the synteny stage's class of the copy (columns):")
        print(f"  {'':<10}" + "".join(f"{c:>11}" for c in columns) + f"{'agree':>8}")
        for planted, row in sorted(confusion.items()):
            n = sum(row.values())
            agree = row[expect[planted]] / n if n else 0
            print(f"  {planted:<10}" + "".join(f"{row[c]:>11}" for c in columns) + f"{agree:8.2f}")
            if planted in ("tandem", "segmental", "wgd") and agree < 0.8:
                failures.append(f"planted {planted} copies classed {expect[planted]} only {agree:.2f} of the time")

if failures:
    print("\nFAILED: " + "; ".join(failures))
    sys.exit(1)
print("\nall checks passed")
