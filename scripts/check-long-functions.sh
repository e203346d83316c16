#!/usr/bin/env bash
# Fails when src/ has more functions of logic over 80 lines than it had when the
# long functions were split (MAX_LONG below): a function is counted from its
# first to its last line by Universal Ctags; the data tables (a function that
# only returns a literal table) are named in DATA_TABLES and not counted.
#   scripts/check-long-functions.sh [CTAGS]   check src/ (prints the long ones)
#   scripts/check-long-functions.sh --self-test [CTAGS]
#                                             only the self-test: a long function
#                                             planted in a scratch folder must be
#                                             found (every check runs it first)
# Lower MAX_LONG when a function of the list is split; never raise it.
set -euo pipefail
cd "$(dirname "$0")/.."

MAX_LONG=7
MAX_LINES=80
# "name file" of the functions that are data: one literal table each.
DATA_TABLES="builtin_family_rules src/genefamily/classify/classify_rules_tapscan.cpp
form_lexicon src/assistant/form_lexicon.cpp
intent_table src/assistant/intents.cpp
plant_cis_elements src/genefamily/algo/cis_scan.cpp
tables src/papers/paper_schema.cpp"

self_test=0
if [ "${1:-}" = "--self-test" ]; then
  self_test=1
  shift
fi
ctags=${1:-ctags}
if ! "$ctags" --version 2>/dev/null | grep -q "Universal Ctags"; then
  echo "check-long-functions: '$ctags' is not Universal Ctags (apt-get install universal-ctags)"
  exit 1
fi

# "lines name file" of every function over MAX_LINES lines under $1, data tables left out.
long_functions() {
  "$ctags" -R --languages=C++ --kinds-C++=f --fields=+ne -x --_xformat="%{end} %{line} %N %F" "$1" |
    awk -v max="$MAX_LINES" '$1 != "" { n = $1 - $2 + 1; if (n > max) print n, $3, $4 }' |
    while read -r n name file; do
      grep -qxF "$name $file" <<<"$DATA_TABLES" || echo "$n $name $file"
    done | sort -rn
}

# A planted function of MAX_LINES + 8 lines must be found, alone: not a short
# one, not an equally long data table of the allow-list.
planted_is_found() {
  local dir
  dir=$(mktemp -d)
  trap 'rm -rf "'"$dir"'"' EXIT
  mkdir -p "$dir/src"
  {
    echo "int short_one() { return 1; }"
    echo "int planted_long(int x) {"
    for i in $(seq 1 $((MAX_LINES + 5))); do echo "  x += $i;"; done
    echo "  return x;"
    echo "}"
  } >"$dir/src/planted.cpp"
  mkdir -p "$dir/src/papers"
  sed 's/planted_long/tables/' "$dir/src/planted.cpp" >"$dir/src/papers/paper_schema.cpp"
  local found
  found=$(cd "$dir" && long_functions src)
  if [ "$(echo "$found" | awk '{print $2}')" != "planted_long" ]; then
    echo "check-long-functions self-test: expected only planted_long, found: ${found:-nothing}"
    return 1
  fi
  echo "check-long-functions self-test: the planted $(echo "$found" | awk '{print $1}')-line function is found"
}

planted_is_found
[ "$self_test" = 0 ] || exit 0

found=$(long_functions src)
count=$(echo -n "$found" | grep -c . || true)
echo "functions of logic over $MAX_LINES lines in src/: $count (at most $MAX_LONG)"
[ -z "$found" ] || echo "$found" | sed 's/^/  /'
if [ "$count" -gt "$MAX_LONG" ]; then
  echo "check-long-functions: more long functions than before; split the new one into named steps" \
    "(a helper per step, a struct for shared state)"
  exit 1
fi
