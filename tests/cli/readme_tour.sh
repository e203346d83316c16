#!/usr/bin/env bash
# The README's five-minute tour, run as written: every fenced ```sh block that
# follows a `<!-- tour -->` line in README.md is run, in order, in a fresh
# folder, with `bioagent` replaced by the binary under test (and `--offline`, so
# nothing is fetched), BIOAGENT_HOME and the cache in a temporary folder, and a
# FastTree phylogeny for any `genefamily run` that does not choose its own. It
# fails when a command fails or when a file the tour opens (`xdg-open FILE`) is
# not there. First it checks the documentation itself: README.md under 250
# lines, no path outside the repository (../shared), and every relative link of
# README.md and docs/*.md resolving to a file (and a heading, for #anchors).
# Usage: readme_tour.sh BIOAGENT_BINARY SOURCE_DIR
set -uo pipefail
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

# ---- the documentation: size, no outside paths, links that resolve
lines=$(wc -l < "$src/README.md")
if [ "$lines" -lt 250 ]; then ok "README.md has $lines lines (under 250)"; else bad "README.md has $lines lines (250 or more)"; fi
if grep -n '\.\./shared' "$src/README.md" "$src"/docs/*.md; then bad "a page points outside the repository (../shared)"
else ok "no page points outside the repository"; fi
if /usr/bin/python3 - "$src" <<'PY'
import os, re, sys
src = sys.argv[1]
pages = [os.path.join(src, "README.md")] + sorted(
    os.path.join(src, "docs", f) for f in os.listdir(os.path.join(src, "docs")) if f.endswith(".md"))

def slugs(path):  # GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens
    out, fenced = set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fenced = not fenced
        m = None if fenced else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = re.sub(r"[^\w\- ]", "", m.group(1).replace("`", "").lower()).replace(" ", "-")
            n, base = 1, s
            while s in out:
                s, n = "%s-%d" % (base, n), n + 1
            out.add(s)
    return out

problems = 0
for page in pages:
    text = re.sub(r"```.*?```", "", open(page, encoding="utf-8").read(), flags=re.S)  # not in code blocks
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # http:, https:, mailto:
        path, _, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        where = os.path.relpath(page, src)
        if not os.path.exists(resolved):
            print("  %s: %s does not exist" % (where, target)); problems += 1
        elif not os.path.realpath(resolved).startswith(os.path.realpath(src) + os.sep):
            print("  %s: %s leaves the repository" % (where, target)); problems += 1
        elif anchor and resolved.endswith(".md") and anchor not in slugs(resolved):
            print("  %s: %s names no heading of %s" % (where, target, os.path.relpath(resolved, src))); problems += 1
sys.exit(1 if problems else 0)
PY
then ok "every relative link of README.md and docs/*.md resolves"; else bad "relative links that do not resolve (above)"; fi

# ---- the tour's commands, as the README writes them
/usr/bin/python3 - "$src/README.md" "$tmp/tour.txt" <<'PY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
out, i = [], 0
while i < len(lines):
    if lines[i].strip() == "<!-- tour -->":
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j < len(lines) and lines[j].strip() == "```sh":
            j += 1
            while j < len(lines) and lines[j].strip() != "```":
                if lines[j].strip() and not lines[j].lstrip().startswith("#"):
                    out.append(lines[j].strip())
                j += 1
        i = j
    i += 1
open(sys.argv[2], "w", encoding="utf-8").write("\n".join(out) + ("\n" if out else ""))
PY
count=$(grep -c . "$tmp/tour.txt")
if [ "$count" -ge 5 ]; then ok "the tour has $count commands"; else bad "the tour has $count commands (marked <!-- tour --> then \`\`\`sh)"; fi
if ! grep -q 'xdg-open' "$tmp/tour.txt"; then bad "the tour opens no report (xdg-open FILE)"; fi

missing=""
for tool in hmmsearch mafft FastTree diamond yn00; do command -v "$tool" >/dev/null || missing="$missing $tool"; done
if [ -n "$missing" ]; then
  echo "SKIP the tour's commands:$missing not installed (scripts/setup.sh installs them)"
else
  work=$tmp/work
  mkdir -p "$work"
  export BIOAGENT_HOME=$tmp/home BIOAGENT_CACHE_DIR=$tmp/cache BIOAGENT_TRAJECTORY_DIR=$tmp/trajectories
  unset BIOAGENT_BUNDLE BIOAGENT_MODELS_FILE BIOAGENT_LLM_BASE_URL BIOAGENT_LLM_MODEL BIOAGENT_PAPERS_DB
  fasttree="'{\"phylogeny\": {\"method\": \"fasttree\"}}'"
  n=0
  while IFS= read -r cmd; do
    n=$((n + 1))
    run=$cmd
    if [[ $run == xdg-open\ * ]]; then  # opening a file: it must be there
      file=$(eval "printf '%s' ${run#xdg-open }")
      if (cd "$work" && [ -s "$file" ]); then ok "[$n] $cmd: the file is there"; else bad "[$n] $cmd: no such file in $work"; fi
      continue
    fi
    if [[ $run == bioagent\ * ]]; then
      run="\"\$bin\" --offline ${run#bioagent }"
      if [[ $run == *"genefamily run"* && $run != *--params* ]]; then
        if [[ $run == *'>'* ]]; then run="${run%%>*} --params $fasttree >${run#*>}"; else run="$run --params $fasttree"; fi
      fi
    fi
    start=$(date +%s%N)
    (cd "$work" && eval "$run") > "$tmp/out" 2> "$tmp/err"
    rc=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    secs=$((ms / 1000)).$((ms % 1000 / 100))
    if [ "$rc" -eq 0 ]; then ok "[$n] $cmd (${secs} s)"
    else
      bad "[$n] $cmd: exit $rc (${secs} s)"
      tail -5 "$tmp/err" | sed 's/^/  | /'
    fi
  done < "$tmp/tour.txt"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
