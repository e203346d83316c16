#!/usr/bin/env bash
# The router's accuracy on seven case files, each routed as the chat routes it
# (`bioagent route --cases`: the bundle, the sessions and the paper library set
# up for real, no model):
#   cases  tests/data/router_cases.tsv      the router's own cases (written with its rules)
#   dev    tests/data/router_fresh_dev.tsv  fresh wording, a set tuning may look at
#   dev2   tests/data/router_fresh2_dev.tsv second fresh set (another writer, cross-context cases), tuned on
#   dev3   tests/data/router_fresh3_dev.tsv third fresh set (family spellings, short and long messages), tuned on
#   dev4   tests/data/router_fresh5_dev.tsv fifth writer's set (several users' habits, indirect asks), tuned on
#   test   tests/data/router_fresh_test.tsv fresh wording, reported, never tuned on
#   test2  tests/data/router_fresh4_test.tsv a fourth writer's set, read once, reported, never tuned on
# The fresh sets' paper questions need the fixture PDFs (BIOAGENT_FIXTURES_DIR,
# default ../shared/fixtures beside the repository): without them those cases are
# skipped and the count says so. Prints each set's accuracy, Chinese share,
# accuracy by context, routing time and each miss (misses of the test set are
# counted, not printed, so that nobody tunes on them; --show-test prints them).
# --check fails below the floors (what the router scores now, so a regression fails CI) and prints the
# issue's targets (test 0.90, cases 0.95) met or not.
# Usage: router_eval.sh BUILD_DIR [--check] [--show-test]
set -euo pipefail
build=$(cd "$1" && pwd)
shift
check=0
show_test=0
for a in "$@"; do
  case "$a" in
    --check) check=1 ;;
    --show-test) show_test=1 ;;
    *) echo "unknown option $a" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../tests/data
export BIOAGENT_FIXTURES_DIR="${BIOAGENT_FIXTURES_DIR:-$here/../../shared/fixtures}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A private home: the example bundle and caches of this run only, nothing of the user's.
export BIOAGENT_HOME="$tmp/home" BIOAGENT_CACHE_DIR="$tmp/cache" BIOAGENT_OFFLINE=1
unset BIOAGENT_BUNDLE BIOAGENT_PAPERS_DB
mkdir -p "$BIOAGENT_HOME"
for set in cases dev dev2 dev3 dev4 test test2; do
  case $set in
    cases) file=$data/router_cases.tsv ;;
    dev) file=$data/router_fresh_dev.tsv ;;
    dev2) file=$data/router_fresh2_dev.tsv ;;
    dev3) file=$data/router_fresh3_dev.tsv ;;
    dev4) file=$data/router_fresh5_dev.tsv ;;
    test) file=$data/router_fresh_test.tsv ;;
    test2) file=$data/router_fresh4_test.tsv ;;
  esac
  "$build/bioagent" route --cases "$file" --work "$tmp/work" > "$tmp/$set.json" 2> "$tmp/$set.err" ||
    { cat "$tmp/$set.err" >&2; exit 1; }
done
/usr/bin/python3 - "$tmp" "$check" "$show_test" <<'PY'
import json, sys
tmp, check, show_test = sys.argv[1], sys.argv[2] == "1", sys.argv[3] == "1"
targets = {"cases": 0.95, "test": 0.90, "test2": 0.90}
# Measured 0.977 / 1.000 / 0.976 / 0.955 / 0.923 / 0.922 / 0.906 (cases, dev, dev2, dev3, dev4, test, test2; dev4 read first at 0.830
# before it was tuned on; test and test2 after the dev4 round, which looked at neither).
floors = {"cases": 0.96, "dev": 0.97, "dev2": 0.96, "dev3": 0.94, "dev4": 0.90, "test": 0.90, "test2": 0.89}
# Without the fixtures' PDFs the paper-library cases are skipped; the rest measured 0.977 / 1.000 / 0.978 / 0.965 / 0.912 / 0.907 / 0.925.
floors_without_library = {"cases": 0.96, "dev": 0.97, "dev2": 0.96, "dev3": 0.95, "dev4": 0.90, "test": 0.89, "test2": 0.91}
names = {"cases": "existing case file (router_cases.tsv)", "dev": "fresh dev (tuning set)",
         "dev2": "second fresh dev (tuning set)", "dev3": "third fresh dev (tuning set)",
         "dev4": "fifth writer's set (tuning set)",
         "test": "fresh test (held back, not tuned on)", "test2": "fourth writer's set (held back, not tuned on)"}
failed = []
for s in ("cases", "dev", "dev2", "dev3", "dev4", "test", "test2"):
    r = json.load(open("%s/%s.json" % (tmp, s)))
    skipped = r.get("skipped", 0)
    print("%-40s %3d cases (%3d Chinese): accuracy %.3f (%d right), intent only %.3f%s; route median %.1f ms, max %.1f ms"
          % (names[s], r["cases"], r["chinese"], r["accuracy"], r["correct"], r["intent_accuracy"],
             (", %d skipped: %s" % (skipped, r.get("skipped_why", ""))) if skipped else "",
             r["route_ms"]["median"], r["route_ms"]["max"]))
    ctx = r.get("by_context", {})
    if len(ctx) > 1:
        print("    by context: " + ", ".join("%s %d/%d" % (k, v["correct"], v["cases"]) for k, v in sorted(ctx.items())))
    if not s.startswith("test") or show_test:
        for f in r["failures"]:
            print("    miss %s[%s]: %r: expected %s, got %s (%s)" % (f.get("id", ""), f.get("context", "none"),
                  f["message"][:100], f["expected"], f["got"], f.get("because", "")))
    else:
        print("    %d misses (not printed: the held-back set is not tuned on)" % len(r["failures"]))
    if s in targets and r["accuracy"] < targets[s]:
        print("    target %.2f not met" % targets[s])
    floor = (floors_without_library if skipped else floors)[s]
    if r["accuracy"] < floor:
        failed.append("%s %.3f < %.2f%s" % (s, r["accuracy"], floor, " (library cases skipped)" if skipped else ""))
if failed:
    print("BELOW FLOOR: " + "; ".join(failed))
sys.exit(1 if check and failed else 0)
PY
