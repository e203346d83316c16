#!/usr/bin/env python3
"""Synthetic text chunks for the BM25 benchmark: pseudo-words with a Zipf
distribution (like real text), ~120 words a chunk; and queries of 2-4 words
drawn from the middle of the frequency range. Usage: gen_chunks.py OUT_DIR N Q"""
import itertools, random, sys

out, n, q = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(42)
syll = [c + v for c in "bdfgklmnprtvz" for v in "aeiou"]
vocab = sorted({"".join(rng.choice(syll) for _ in range(rng.randint(2, 4))) for _ in range(60000)})
rng.shuffle(vocab)
weights = [1.0 / (r + 1) ** 1.05 for r in range(len(vocab))]
cum = list(itertools.accumulate(weights))  # what choices(weights=) builds on every call
with open(f"{out}/chunks.tsv", "w") as f:
    for i in range(n):
        words = rng.choices(vocab, cum_weights=cum, k=rng.randint(80, 160))
        f.write(f"c{i}\t{' '.join(words)}\n")
with open(f"{out}/queries.txt", "w") as f:
    for _ in range(q):
        f.write(" ".join(rng.choice(vocab[200:5000]) for _ in range(rng.randint(2, 4))) + "\n")
