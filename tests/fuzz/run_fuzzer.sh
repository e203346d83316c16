#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time on a scratch copy of its seed corpus.
# On a crash it prints the report from its first line (the stack names the parser)
# (libFuzzer prints the input that caused it); otherwise the final statistics.
set -euo pipefail
bin=$1 seeds=$2 seconds=${3:-30}
[ -x "$bin" ] || { echo "fuzz target $bin was not built (scripts/test.sh builds it)"; exit 1; }
bin=$(realpath "$bin")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -d "$seeds" ] && cp -r "$seeds"/. "$work"/corpus
mkdir -p "$work"/corpus
rc=0
(cd "$work" && "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
  corpus >log 2>&1) || rc=$?
if [ "$rc" -ne 0 ]; then
  if grep -q 'ERROR: ' "$work"/log; then
    sed -n '/ERROR: /,$p' "$work"/log | cut -c1-300 | head -n 80
  else
    tail -n 30 "$work"/log
  fi
  echo "fuzz target exited with $rc"
  exit "$rc"
fi
tail -n 15 "$work"/log
