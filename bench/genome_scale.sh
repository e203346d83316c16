#!/usr/bin/env bash
# The gene-family pipeline at genome scale. Generates (once, kept in the work
# folder) a species of --genes genes on --genome-mb megabases (default 30,000
# genes, 400 Mb: a whole-genome duplication, segmental blocks, tandem arrays,
# soft-masked repeats, 2,000 scaffolds; `bioagent genefamily example --genes`),
# then:
#  1. runs the pipeline for one family (--family, default GLOBIN) on --cpus
#     cores (default 2) and prints each stage's wall time and its external
#     programs' peak RSS, and the bioagent process's own peak RSS;
#  2. runs the same external programs with the same arguments on the same
#     stage inputs from a plain script, and prints our total over the
#     script's (the in-process work — parsing, alignment, collinearity,
#     figures, the report — is what the ratio adds), in wall time and in CPU
#     time (on a machine others share, CPU time is the fair figure);
#  3. runs a second family (--second, default FN3) on the same genome with the
#     same cache folder, and prints whether the all-against-all search was
#     reused;
#  4. checks the duplication context against what was planted: the genome-wide
#     Ks peak nearest the WGD's expected Ks (within ±0.1), and the confusion
#     of planted copy classes against the synteny stage's classes.
# Usage: genome_scale.sh BUILD_DIR [--genes N] [--genome-mb M] [--cpus N]
#        [--family F] [--second F] [--stages a,b,c] [--params JSON] [--work DIR]
# --stages limits the run (with what the stages need), e.g. the smoke test's
# check,identify,synteny,duplication. --params passes stage parameters to both
# runs, e.g. '{"phylogeny": {"method": "fasttree"}}' for the whole pipeline
# without IQ-TREE's hour on a divergent generated family (bench/phylogeny_models.sh
# measures IQ-TREE). Without --work the folder is temporary.
set -euo pipefail
build=$(cd "$1" && pwd)
shift
genes=30000 mb=400 cpus=2 family=GLOBIN second=FN3 stages="" params="" work=""
while [ $# -gt 0 ]; do
  case "$1" in
    --genes) genes=$2; shift 2 ;;
    --genome-mb) mb=$2; shift 2 ;;
    --cpus) cpus=$2; shift 2 ;;
    --family) family=$2; shift 2 ;;
    --second) second=$2; shift 2 ;;
    --stages) stages=$2; shift 2 ;;
    --params) params=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) echo "genome_scale.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
bioagent=$build/bioagent
if [ -z "$work" ]; then  # a fresh folder, removed at the end; --work DIR keeps the genome for the next run
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
work=$(cd "$work" && pwd)
data=$work/data
export BIOAGENT_CACHE_DIR=$work/cache HOME=$work/home
rm -rf "$BIOAGENT_CACHE_DIR"  # run 1 searches, run 2 may reuse only what run 1 kept
mkdir -p "$HOME"

if [ ! -f "$data/truth.json" ]; then
  echo "== generating $genes genes, $mb Mb in $data"
  rm -rf "$data"
  /usr/bin/time -f "generated in %e s, peak RSS %M KB" "$bioagent" genefamily example "$data" --genes "$genes" \
    --genome-mb "$mb" > "$work/generate.json"
fi
python3 - "$data/truth.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
print(f"species: {t['genes']} genes, {t['genome_bp'] / 1e6:.0f} Mb, {len(t['chromosomes'])} chromosomes + "
      f"{t['unplaced_scaffolds']} scaffolds, {100 * t['soft_masked_fraction']:.0f}% soft-masked; families "
      + ", ".join(f"{k} {len(v)}" for k, v in t["families"].items())
      + f"; WGD expected Ks {t['wgd']['expected_ks']:.3f}")
PY

run_family() {  # family, run folder
  local fam=$1 run=$2 stage_arg=()
  [ -n "$stages" ] && stage_arg=(--stages "$stages")
  [ -n "$params" ] && stage_arg+=(--params "$params")
  rm -rf "$run"
  /usr/bin/time -f "%e %M %U %S" -o "$run.time" "$bioagent" --offline genefamily run --data "$data" --species Scal \
    --family "$fam" --cpus "$cpus" --run-dir "$run" "${stage_arg[@]}" > "$run.json" 2> "$run.log" || true
}

echo "== run 1: $family on $cpus cores"
run_family "$family" "$work/run1"
echo "== run 2: $second on the same genome (same cache folder)"
run_family "$second" "$work/run2"

python3 "$(dirname "$0")/genome_scale_report.py" "$work" "$data/truth.json" "$cpus" "$family" "$second"
