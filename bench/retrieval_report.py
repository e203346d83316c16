#!/usr/bin/python3
"""The report of bench/retrieval_eval.sh: reads WORK/a, WORK/b and WORK/c (each holds questions.jsonl and
per_question.jsonl from bench/retrieval_eval; a set not scored has no folder) and prints, per set,
recall@1 / recall@5 / MRR of each method and the offline answers' key-term rate, the two sets side by
side, and with --check whether each meets its targets (exit 1 below set (a)'s regression floors).
Usage: retrieval_report.py WORK [--check|--smoke|--tuning]"""
import json
import os
import sys

DEPTH = 20
NOTES = {"tuning": "weights are chosen on this half only", "validation": "never tuned on; the targets hold here",
         "independent": "written from the PDFs alone; never tuned on",
         "real": "real open-access papers; never tuned on",
         "real_dev": "other real open-access papers; the real-paper settings were tuned on these",
         "real_dev2": "a second tuning set of real open-access papers (other layouts and writers)"}
# Targets of the side-by-side table: (page first, within five, key terms) for set (a)'s validation
# half and for set (b).
TARGETS = {"a": (0.85, 0.97, 0.80), "b": (0.80, 0.97, 0.70)}
# Set (a)'s validation half: below these the check fails (a regression). Measured 0.815 / 1.000 / 0.815 after
# the sweep over all tuning questions (docs/evaluation.md, step 8), 0.815 / 0.981 / 0.796 (43 of 54) after
# rows stacked in one block were read a row each (step 10): the key-term floor is one question lower.
FLOORS_A = (0.80, 0.95, 0.79)
SMOKE_FLOOR_R5 = 0.5  # --smoke: the gold page within five for at least half of the few questions


def load(folder):
    split_of = {}
    for line in open(os.path.join(folder, "questions.jsonl")):
        if line.strip():
            q = json.loads(line)
            split_of[q["id"]] = q.get("split", "all")
    per = [json.loads(line) for line in open(os.path.join(folder, "per_question.jsonl"))]
    for q in per:
        q["split"] = split_of.get(q["id"], "all")
    return per


def methods_of(per):
    names = {m for q in per for m in q if isinstance(q[m], list) and m != "gold"}
    return sorted(names, key=lambda m: (m == "ClassicRetrieve", m))


def scores(qs, methods):
    """{method: [recall@1, recall@5, MRR]} and the key-term rate over the questions qs."""
    out = {}
    for m in methods:
        r1 = r5 = mrr = 0.0
        for q in qs:
            hit = next((i for i, p in enumerate(q[m][:DEPTH]) if p in q["gold"]), None)
            r1 += hit is not None and hit < 1
            r5 += hit is not None and hit < 5
            mrr += 0 if hit is None else 1.0 / (hit + 1)
        out[m] = [r1 / len(qs), r5 / len(qs), mrr / len(qs)]
    return out, sum(q["key_term"] for q in qs) / len(qs)


def print_table(title, qs, methods, indent=""):
    table, key = scores(qs, methods)
    papers = len({g.split("#")[0] for q in qs for g in q["gold"]})
    print(f"{indent}{title} ({len(qs)} questions, {papers} papers):")
    for m, (r1, r5, mrr) in table.items():
        print(f"{indent}  {m:34s}{r1:10.3f}{r5:10.3f}{mrr:8.3f}")
    print(f"{indent}  offline answer key-term rate: {key:.3f}")
    return table, key


def by_kind(label, qs):
    kinds = {}
    for q in qs:
        k = kinds.setdefault(q["kind"], [0, 0, 0])
        k[0] += 1
        k[1] += q["ClassicRetrieve"][:1] != [] and q["ClassicRetrieve"][0] in q["gold"]
        k[2] += q["key_term"]
    print(f"{label} by kind (ClassicRetrieve recall@1, key-term rate): " +
          ", ".join(f"{k} {v[1]}/{v[0]} {v[2]}/{v[0]}" for k, v in sorted(kinds.items())))


def first_page_bias(label, qs, name_misses=True):
    """A first page (title, abstract) ranked first where the answer is on another page. The misses
    are named only for sets that may be read to build a change (never set (b))."""
    others = [q for q in qs if q["kind"] not in {"authors", "affiliation"} and not any(g.endswith("#1") for g in q["gold"])]
    wrong = [q["id"] for q in others if q["ClassicRetrieve"][:1] and q["ClassicRetrieve"][0].endswith("#1")]
    if others:
        print(f"{label}: a first page ranked first though the answer is elsewhere: {len(wrong)} of {len(others)} "
              f"questions not about front matter" + (f" ({', '.join(wrong)})" if wrong and name_misses else ""))


def main():
    work, mode = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
    sets = {s: load(os.path.join(work, s)) for s in ("a", "b", "c", "d") if os.path.exists(os.path.join(work, s, "per_question.jsonl"))}
    print(f"Page retrieval (MRR over the first {DEPTH} distinct pages); columns: recall@1 (page first), "
          "recall@5 (within five), MRR")
    side = {}  # set -> (label, [r1, r5, mrr] of ClassicRetrieve, key-term rate, questions)
    if "a" in sets:
        per = sets["a"]
        methods = methods_of(per)
        print("Set (a): the fixture PDFs")
        dev = [q for q in per if q["split"] != "independent"]
        print_table("  labelled dev set, whole", dev, methods)
        for name in ("tuning", "validation", "independent", "all"):
            qs = [q for q in per if q["split"] == name]
            if qs:
                label = {"independent": "independent questions", "all": "questions given"}.get(name, f"{name} half")
                table, key = print_table(f"{label} — {NOTES.get(name, 'no split')}", qs, methods, "  ")
                # Questions without a split are held to the validation half's targets.
                side["a:validation" if name == "all" else f"a:{name}"] = (f"(a) {label}", table["ClassicRetrieve"],
                                                                          key, len(qs), table)
        by_kind("  (a) dev", dev)
        first_page_bias("  (a) dev", dev)
        first_page_bias("  (a) independent", [q for q in per if q["split"] == "independent"])
    # The real-paper sets: (b) reported only (its misses never named), (c) the real papers tuned on.
    for name, title, note, label, tuned in (
            ("b", "real open-access papers (tests/data/paper_qa_real.jsonl)", "real", "(b) real papers", False),
            ("c", "other real open-access papers (tests/data/paper_qa_real_dev.jsonl)", "real_dev",
             "(c) real papers (tuning)", True),
            ("d", "more real open-access papers (tests/data/paper_qa_real_dev2.jsonl)", "real_dev2",
             "(d) real papers (tuning)", True)):
        if name not in sets:
            continue
        per = sets[name]
        print(f"Set ({name}): {title}")
        table, key = print_table(f"real papers — {NOTES[note]}", per, methods_of(per), "  ")
        side[name] = (label, table["ClassicRetrieve"], key, len(per), table)
        by_kind(f"  ({name})", per)
        first_page_bias(f"  ({name})", per, name_misses=tuned)
    print("\nSide by side (ClassicRetrieve; offline answers):")
    print(f"{'set':34s}{'questions':>10s}{'page first':>12s}{'within five':>13s}{'MRR':>8s}{'key terms':>11s}")
    for label, (r1, r5, mrr), key, n, _ in side.values():
        print(f"{label:34s}{n:10d}{r1:12.3f}{r5:13.3f}{mrr:8.3f}{key:11.3f}")
    if mode == "--smoke":
        low = [label for label, c, _, _, _ in side.values() if c[1] < SMOKE_FLOOR_R5]
        for label in low:
            print(f"FAIL: {label}: the gold page within five for fewer than {SMOKE_FLOOR_R5:.0%} of the smoke questions")
        sys.exit(1 if low else 0)
    if mode != "--check":
        return
    failures = []
    for key_name, set_name in (("a:validation", "a"), ("b", "b")):
        if key_name not in side:
            continue
        label, classic, key, _, table = side[key_name]
        for value, target, what in zip((classic[0], classic[1], key), TARGETS[set_name],
                                       ("page first", "within five", "key terms")):
            print(f"target {label} {what} >= {target:.2f}: {'met' if value >= target else 'NOT met'} ({value:.3f})")
    if "a:validation" in side:
        label, classic, key, _, table = side["a:validation"]
        singles = [v for m, v in table.items() if m != "ClassicRetrieve"]
        for i, what in enumerate(["recall@1", "recall@5", "MRR"]):
            best = max(v[i] for v in singles)
            if classic[i] + 1e-9 < best:
                failures.append(f"{label}: ClassicRetrieve {what} {classic[i]:.3f} < best single collection {best:.3f}")
        # A target not yet met is reported above, never hidden; the check fails below the floors.
        for value, floor, what in zip((classic[0], classic[1], key), FLOORS_A, ("recall@1", "recall@5", "key terms")):
            if value < floor:
                failures.append(f"{label}: {what} {value:.3f} < {floor:.2f} (regression floor)")
    for f in failures:
        print("FAIL: " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
