#!/usr/bin/env bash
# Fails when a C++ file is not formatted as .clang-format says. Fix with:
#   git ls-files '*.cpp' '*.h' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=${1:-clang-format}
files=$(git ls-files '*.cpp' '*.h' 2>/dev/null || find src include tests bench -name '*.cpp' -o -name '*.h')
[ -n "$files" ] || { echo "no C++ files found"; exit 1; }
if ! $fmt --dry-run --Werror $files 2>"${TMPDIR:-/tmp}/bioagent-format.log"; then
  head -n 40 "${TMPDIR:-/tmp}/bioagent-format.log"
  echo "clang-format: the files above differ from .clang-format (run: git ls-files '*.cpp' '*.h' | xargs $fmt -i)"
  exit 1
fi
echo "clang-format: $(echo "$files" | wc -w) files formatted correctly"
