#!/usr/bin/env bash
# The main job on the embedded defaults: set up, build, then run bioagent's demo
# (lists every tool and runs each on the bundled examples).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
exec ./build/release/bioagent demo "$@"
