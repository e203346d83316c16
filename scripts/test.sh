#!/usr/bin/env bash
# Every test CI runs: set up, build the release tree and the sanitizer/fuzz tree,
# then one ctest run (unit, integration, MCP SDK client, ASan+UBSan unit tests,
# fuzzers for a short time, format gate, benchmark smoke). ctest's summary closes
# the output. BIOAGENT_FUZZ_SECONDS overrides the per-target fuzz time.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
./scripts/setup.sh

echo "== sanitizer + fuzz build (clang, ASan+UBSan, libFuzzer)"
# Line tables only: file:line in sanitizer reports at two thirds of -g's compile time.
source scripts/ccache-env.sh
cmake -S . -B build/sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug "${ccache_args[@]}" \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_FLAGS="-O1" \
  -DCMAKE_CXX_FLAGS_DEBUG="-gline-tables-only" -DCMAKE_C_FLAGS_DEBUG="-gline-tables-only" \
  -DBIOAGENT_SANITIZE=ON -DBIOAGENT_FUZZ=ON -DBIOAGENT_BENCH=OFF >/dev/null
ninja -C build/sanitize unit_tests write_xlsxwriter_fixture fuzz_all

echo "== release build"
# The unit tests run once, from the sanitizer tree (two shards), not built again here.
./scripts/build.sh -DBIOAGENT_SANITIZE_BUILD="$PWD/build/sanitize" -DBIOAGENT_UNIT_TESTS=OFF \
  -DBIOAGENT_FUZZ_SECONDS="${BIOAGENT_FUZZ_SECONDS:-20}"

echo "== tests (set-up and builds took $(( $(date +%s) - start )) s)"
cd build/release
exec ctest --output-on-failure --timeout 900 -j2
