#!/usr/bin/env bash
# Fails on a use of std::regex in src/ or include/ (code, not comments): libstdc++'s
# matcher recurses per character and backtracks without bound, so text a user can
# supply (FASTA descriptions, upload names, PDF text) may exhaust the stack or the
# CPU. Use RE2 (linear time, already a dependency) or a scanner. A use on text the
# program wrote itself may stay when its line says so: `// std-regex-ok: <why>`.
#   scripts/check-std-regex.sh              check src/ and include/
#   scripts/check-std-regex.sh --self-test  only the self-test: planted uses must be
#                                           found and a clean file must pass (every
#                                           check runs it first)
set -euo pipefail
cd "$(dirname "$0")/.."

PATTERN='#[[:space:]]*include[[:space:]]*<regex>|std::(w?regex|basic_regex|regex_(search|match|replace|iterator|token_iterator|constants|traits|error)|[cs]?w?s?match(_results)?|s?w?c?regex_iterator|sregex_(token_)?iterator|sub_match|ssub_match|csub_match)\b'

# file:line:text of each use, comments and marked lines left out.
violations() {
  { grep -rnE --include='*.cpp' --include='*.cc' --include='*.h' --include='*.hpp' "$PATTERN" "$@" || true; } |
    while IFS= read -r hit; do
      local text=${hit#*:}
      text=${text#*:}
      case "$text" in *"std-regex-ok:"*) continue ;; esac
      local code=${text%%//*}  # a line comment is not code
      if printf '%s\n' "$code" | grep -qE "$PATTERN"; then printf '%s\n' "$hit"; fi
    done
}

planted_are_found() {
  local dir
  dir=$(mktemp -d)
  trap 'rm -rf "'"$dir"'"' EXIT
  mkdir -p "$dir/src"
  printf '%s\n' '#include <regex>' 'static const std::regex gn(R"(GN=(\S+))");' \
    'bool m(const std::string& s) { std::smatch m; return std::regex_search(s, m, gn); }' \
    'auto r = std::regex_replace(s, std::regex("a+"), "b");' >"$dir/src/planted.cpp"
  printf '%s\n' '#include <re2/re2.h>' '// RE2, never std::regex: linear time.' \
    'static const RE2 gn(R"(GN=(\S+))");  // not std::regex_search' \
    'static const std::regex own(R"(x)");  // std-regex-ok: our own generated text' >"$dir/src/clean.cpp"
  local found
  found=$(violations "$dir/src")
  if [ "$(echo "$found" | grep -c planted.cpp)" != 4 ] || echo "$found" | grep -q clean.cpp; then
    echo "check-std-regex self-test: expected the 4 planted lines only, found: ${found:-nothing}"
    return 1
  fi
  echo "check-std-regex self-test: the 4 planted std::regex lines are found, comments and marked lines pass"
}

self_test=0
[ "${1:-}" = "--self-test" ] && self_test=1
planted_are_found
[ "$self_test" = 0 ] || exit 0

found=$(violations src include)
if [ -n "$found" ]; then
  printf '%s\n' "$found" | sed 's/^/  /'
  echo "check-std-regex: use RE2 (<re2/re2.h>) or a scanner, not std::regex; a use on text the program wrote"
  echo "itself may stay with '// std-regex-ok: <why>' on its line"
  exit 1
fi
echo "check-std-regex: no std::regex in src/ or include/"
