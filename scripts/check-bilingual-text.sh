#!/usr/bin/env bash
# Fails when text for people is chosen by language anywhere but through BiText
# (include/bioagent/bitext.h): a `zh ? ... : ...` ternary (also `r.zh ?`,
# `t.zh ?`), a figure-language guard or svg::tr in src/ or include/.
#   scripts/check-bilingual-text.sh              check src/ and include/
#   scripts/check-bilingual-text.sh --self-test  only the self-test: planted
#                                                violations must be found and a
#                                                clean file must pass (every check
#                                                runs it first)
set -euo pipefail
cd "$(dirname "$0")/.."

# A language flag named zh (or a member .zh) as a ternary's condition; has_zh and zh_name do not match.
PATTERN='(^|[^A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*\.)?zh[[:space:]]*\?[^?]|FigureLanguage|svg::tr\('

violations() { grep -rnE --include='*.cpp' --include='*.h' "$PATTERN" "$@" || true; }

planted_are_found() {
  local dir
  dir=$(mktemp -d)
  trap 'rm -rf "'"$dir"'"' EXIT
  mkdir -p "$dir/src"
  printf '%s\n' 'std::string a(bool zh) { return zh ? "是" : "yes"; }' \
    'std::string b(const Ctx& r) { return (r.zh ? "甲" : "a"); }' \
    'std::string c() { return svg::tr("bits", "比特"); }' >"$dir/src/planted.cpp"
  printf '%s\n' 'std::string d(Lang lang) { return BiText{"yes", "是"}.in(lang); }' \
    'std::string e(bool has_zh) { return has_zh ? "x" : "y"; }' 'int zh_count = n ? 1 : 0;' >"$dir/src/clean.cpp"
  local found
  found=$(violations "$dir/src")
  if [ "$(echo "$found" | grep -c planted.cpp)" != 3 ] || echo "$found" | grep -q clean.cpp; then
    echo "check-bilingual-text self-test: expected the 3 planted lines only, found: ${found:-nothing}"
    return 1
  fi
  echo "check-bilingual-text self-test: the 3 planted language choices are found, the clean file passes"
}

self_test=0
[ "${1:-}" = "--self-test" ] && self_test=1
planted_are_found
[ "$self_test" = 0 ] || exit 0

found=$(violations src include)
if [ -n "$found" ]; then
  echo "$found" | sed 's/^/  /'
  echo "check-bilingual-text: choose text for people with BiText{en, zh}.in(lang) (include/bioagent/bitext.h)"
  exit 1
fi
echo "check-bilingual-text: no language ternary, svg::tr or figure-language guard in src/ or include/"
