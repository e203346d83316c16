#!/usr/bin/env python3
"""Picks the weight of a model's dense vote in ClassicRetrieve from retrieval_eval's
"ClassicRetrieve@<w> r@1 r@5 mrr" lines and records it for the model.

Usage: fusion_tune.py SCORES.txt WEIGHTS.json MODEL QUESTIONS.jsonl
QUESTIONS.jsonl is what was scored: retrieval_eval.sh --tune gives the dev set's tuning half only.
The chosen weight has the best MRR among the weights that are at least as good as
weight 0 (BM25 and fields alone) at recall@1 and recall@5; ties go to the smaller
weight. WEIGHTS.json keeps the other models' entries.
"""
import datetime
import hashlib
import json
import os
import sys

scores_path, weights_path, model, questions = sys.argv[1:5]
rows = {}
n = 0
for line in open(scores_path):
    name, *vals = line.split()
    if name == "questions":
        n = int(vals[0])
    elif name.startswith("ClassicRetrieve@"):
        rows[float(name.split("@", 1)[1])] = [float(v) for v in vals]
if 0.0 not in rows:
    sys.exit("fusion_tune.py: the weights must include 0 (BM25 alone) to compare against")
base = rows[0.0]
print(f"ClassicRetrieve with {model}'s dense vote, {n} labelled questions")
print(f"{'weight':>8s}{'recall@1':>10s}{'recall@5':>10s}{'MRR':>8s}")
for w, (r1, r5, mrr) in sorted(rows.items()):
    print(f"{w:8.2f}{r1:10.3f}{r5:10.3f}{mrr:8.3f}")
eligible = [(w, v) for w, v in rows.items() if v[0] + 1e-9 >= base[0] and v[1] + 1e-9 >= base[1]]
best_w, best = max(eligible, key=lambda wv: (wv[1][2], -wv[0]))
print(f"chosen weight {best_w:g} (MRR {best[2]:.3f}; weight 0 gives {base[2]:.3f})")
try:
    doc = json.load(open(weights_path))
    if not isinstance(doc, dict) or not isinstance(doc.get("models"), dict):
        raise ValueError("not a fusion-weights file")
except FileNotFoundError:
    doc = {"models": {}}
except ValueError as e:
    sys.exit(f"fusion_tune.py: {weights_path}: {e}; move it away to start a new one")
digest = hashlib.sha256(open(questions, "rb").read()).hexdigest()[:16]
doc["models"][model] = {
    "weight": best_w, "questions": n, "recall_at_1": best[0], "recall_at_5": best[1], "mrr": best[2],
    "mrr_without_model": base[2], "question_set": os.path.basename(questions), "question_set_sha256": digest,
    "measured": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
}
os.makedirs(os.path.dirname(os.path.abspath(weights_path)), exist_ok=True)
tmp = weights_path + ".tmp"
with open(tmp, "w") as f:
    json.dump(doc, f, indent=1)
os.replace(tmp, weights_path)
print(f"recorded in {weights_path}")
