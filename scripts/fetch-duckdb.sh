#!/usr/bin/env bash
# Fetches the pinned DuckDB 1.4.4 LTS artifacts through `npm pack`, checks their
# integrity hashes, and unpacks libduckdb.so and duckdb.h into .deps/duckdb.
# DuckDB is never built here: building it takes far longer than CI allows.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.deps/duckdb
lib_pkg="@duckdb/node-bindings-linux-x64@1.4.4-r.4"
lib_sri="sha512-jBTL/WvfwxLToFa/pVHfT6elMtltJGnc3wSuxZD9OfMltit9YUdVFS37vBFQzXMT1Z8OWjtSjMh+zPKxOwHLHA=="
hdr_pkg="duckdb@1.4.4"
hdr_sri="sha512-hEJJ5hyVF0VLj3dmOLpsWrQR0b3d4Ykqtygm6iUXjHJDDnSqg/USKxcb5qvNrOhFYPgktayU6dXCtgPqcmmpog=="

if [ -f "$dest/lib/libduckdb.so" ] && [ -f "$dest/include/duckdb.h" ] && [ "$(cat "$dest/PINNED" 2>/dev/null)" = "$lib_sri $hdr_sri" ]; then
  echo "DuckDB 1.4.4 already in $dest"
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sri_of() { printf 'sha512-%s' "$(openssl dgst -sha512 -binary "$1" | base64 -w0)"; }
fetch() {  # package, expected SRI -> path of the verified tarball
  local pkg=$1 want=$2 file
  file=$(cd "$tmp" && npm pack --silent "$pkg" 2>/dev/null | tail -n1)
  [ -n "$file" ] && [ -f "$tmp/$file" ] || { echo "npm pack $pkg failed" >&2; exit 1; }
  local got; got=$(sri_of "$tmp/$file")
  if [ "$got" != "$want" ]; then
    echo "integrity mismatch for $pkg: expected $want, got $got" >&2
    exit 1
  fi
  echo "$tmp/$file"
}
echo "Fetching $lib_pkg and $hdr_pkg (integrity-checked)"
lib_tgz=$(fetch "$lib_pkg" "$lib_sri")
hdr_tgz=$(fetch "$hdr_pkg" "$hdr_sri")
rm -rf "$dest" && mkdir -p "$dest/lib" "$dest/include"
tar -xzf "$lib_tgz" -C "$tmp" package/libduckdb.so
mv "$tmp/package/libduckdb.so" "$dest/lib/"
tar -xzf "$hdr_tgz" -C "$tmp" package/src/duckdb/src/include/duckdb.h
mv "$tmp/package/src/duckdb/src/include/duckdb.h" "$dest/include/"
echo "$lib_sri $hdr_sri" > "$dest/PINNED"
echo "DuckDB 1.4.4 ready in $dest"
