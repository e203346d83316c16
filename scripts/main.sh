#!/usr/bin/env bash
# The main job on the embedded defaults: set up, build, run bioagent's demo
# (lists every tool and runs each on the bundled examples), then the gene-family
# pipeline end to end on the generated example genome; the report's path is
# printed at the end (a re-run reuses every finished stage).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
./build/release/bioagent demo "$@"
example=${BIOAGENT_EXAMPLE_DIR:-runs/example}
[ -f "$example/data/Exam.genome.fasta" ] || ./build/release/bioagent genefamily example "$example/data" > /dev/null
./build/release/bioagent genefamily run --data "$example/data" --run-dir "$example/run" > "$example/run.json"
echo "gene-family report: $example/run/final/Exam.GLOBIN.report.html (outputs explained in $example/run/final/outputs.md)"
