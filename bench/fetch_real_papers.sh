#!/usr/bin/env bash
# Downloads a real-paper evaluation set's PDFs (SOURCES, default tests/data/paper_qa_real_sources.tsv:
# file, repository, path, pinned commit, sha256) from raw.githubusercontent.com into
# DIR (default $BIOAGENT_REAL_PAPERS_DIR, else ./real_papers), and checks each file's
# SHA-256 against the pinned one; a mismatch is removed and reported. The PDFs are
# other people's work under their own licences (SOURCES.tsv's licence column): they
# are read from DIR by bench/retrieval_eval.sh and never committed.
# Usage: fetch_real_papers.sh [DIR] [SOURCES]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sources=${2:-$here/../tests/data/paper_qa_real_sources.tsv}
dir=${1:-${BIOAGENT_REAL_PAPERS_DIR:-real_papers}}
mkdir -p "$dir"
command -v curl >/dev/null || { echo "fetch_real_papers.sh: curl is needed" >&2; exit 2; }
sha256() { sha256sum "$1" | cut -d' ' -f1; }
# A path's characters that a URL must escape ('%' first: the paths hold "%2F" literally).
url_path() { local p=${1//%/%25}; p=${p// /%20}; p=${p//#/%23}; printf '%s' "${p//\?/%3F}"; }
fetched=0 present=0 failed=0
while IFS=$'\t' read -r file repo path commit want _; do
  [ "$file" = file ] && continue  # the header
  [ -z "$file" ] && continue
  out=$dir/$file
  if [ -f "$out" ] && [ "$(sha256 "$out")" = "$want" ]; then
    present=$((present + 1))
    continue
  fi
  url="https://raw.githubusercontent.com/$repo/$commit/$(url_path "$path")"
  rc=0
  curl -fsSL --retry 3 -o "$out.part" "$url" || rc=$?
  if [ "$rc" != 0 ]; then
    echo "FAILED: $file: download of $url failed (curl exit $rc)" >&2
    rm -f "$out.part"
    failed=$((failed + 1))
    # No name resolution or no connection: offline, so the other files are not tried either.
    if [ "$rc" = 6 ] || [ "$rc" = 7 ]; then
      echo "offline: no download attempted after $file" >&2
      break
    fi
    continue
  fi
  got=$(sha256 "$out.part")
  if [ "$got" != "$want" ]; then
    echo "FAILED: $file: sha256 $got, expected $want (removed)" >&2
    rm -f "$out.part"
    failed=$((failed + 1))
    continue
  fi
  mv "$out.part" "$out"
  fetched=$((fetched + 1))
done <"$sources"
echo "real papers in $dir: $fetched fetched, $present already present, $failed failed"
[ "$failed" = 0 ]
