#!/usr/bin/env bash
# The main job on the embedded defaults: set up, build, then `bioagent serve`
# (HTTP API, web page, MCP over HTTP) with the generated example genome as the
# shared data folder; it prints the URL. Options are passed on, e.g.
# ./scripts/main.sh --port 0 --confirm-timeout 10.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
exec ./build/release/bioagent serve "$@"
