#!/usr/bin/env bash
# Fails on a call of nlohmann's Json::dump() in src/ or include/ (code, not comments):
# dump() throws on a string that is not valid UTF-8, and outside text (file content,
# ids, PDF text, a cut of a user's message) may hold one, so a stored or sent value
# would fail where the caller cannot say why. json_text() (bioagent/json_text.h)
# writes the same text for valid input and replaces invalid bytes by U+FFFD; it is
# the one serialiser. src/core/json_text.cpp itself is exempt.
#   scripts/check-json-dump.sh              check src/ and include/
#   scripts/check-json-dump.sh --self-test  only the self-test (every check runs it first)
set -euo pipefail
cd "$(dirname "$0")/.."

PATTERN='[])}[:alnum:]_][[:space:]]*\.dump\(|^[[:space:]]*\.dump\('

violations() {
  { grep -rnE --include='*.cpp' --include='*.h' "$PATTERN" "$@" || true; } |
    while IFS= read -r hit; do
      case "${hit%%:*}" in */src/core/json_text.cpp | src/core/json_text.cpp) continue ;; esac
      local text=${hit#*:}
      text=${text#*:}
      local code=${text%%//*}  # a line comment is not code
      if printf '%s\n' "$code" | grep -qE "$PATTERN"; then printf '%s\n' "$hit"; fi
    done
}

self_test() {
  local dir found
  dir=$(mktemp -d)
  trap 'rm -rf "'"$dir"'"' EXIT
  mkdir -p "$dir/src"
  printf '%s\n' 'std::string a = j.dump();' 'out << Json{{"k", v}}.dump(2);' 'f(x["y"]' '    .dump());' >"$dir/src/planted.cpp"
  printf '%s\n' 'std::string a = json_text(j);  // never j.dump()' 'auto b = json_text(v, 2);' >"$dir/src/clean.cpp"
  found=$(violations "$dir/src")
  [ "$(printf '%s\n' "$found" | grep -c planted.cpp)" = 3 ] || { echo "self-test: planted dump() calls not all found:"; echo "$found"; exit 1; }
  if printf '%s\n' "$found" | grep -q clean.cpp; then echo "self-test: a clean file was flagged: $found"; exit 1; fi
}

self_test
[ "${1:-}" = --self-test ] && { echo "check-json-dump self-test passed"; exit 0; }
found=$(violations src include)
if [ -n "$found" ]; then
  printf '%s\n' "$found"
  echo "check-json-dump: use json_text(value[, indent]) from bioagent/json_text.h instead of dump()"
  exit 1
fi
echo "check-json-dump: no dump() in src/ or include/"
