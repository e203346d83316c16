#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time on a scratch copy of its seed corpus.
set -euo pipefail
bin=$1 seeds=$2 seconds=${3:-30}
[ -x "$bin" ] || { echo "fuzz target $bin was not built (scripts/test.sh builds it)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -d "$seeds" ] && cp -r "$seeds"/. "$work"/
"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 "$work" 2>&1 | tail -n 15
