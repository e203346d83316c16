#!/usr/bin/env bash
# The router's accuracy over its case file (tests/data/router_cases.tsv: every
# class of question in Chinese and English, written to cover the class): the
# cases, how many are Chinese, the accuracy and each miss. --check fails below
# 0.95. Usage: router_eval.sh BUILD_DIR [--check] [CASES.tsv]
set -euo pipefail
build=$(cd "$1" && pwd)
check=0
[ "${2:-}" = "--check" ] && check=1 && shift
here=$(cd "$(dirname "$0")" && pwd)
cases=${2:-$here/../tests/data/router_cases.tsv}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$build/bioagent" route --cases "$cases" > "$out"
/usr/bin/python3 - "$out" "$check" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("Router on %d cases (%d Chinese): accuracy %.3f (%d right)" % (r["cases"], r["chinese"], r["accuracy"], r["correct"]))
for f in r["failures"]:
    print("  miss: %r: expected %s, got %s" % (f["message"], f["expected"], f["got"]))
sys.exit(1 if sys.argv[2] == "1" and r["accuracy"] < 0.95 else 0)
PY
