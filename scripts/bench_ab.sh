#!/usr/bin/env bash
# Before/after benchmarks: the same bench/ scripts against an older minigrad and this checkout.
#   bash scripts/bench_ab.sh BASE_REF [OUTDIR] [ONLY]
# BASE_REF: a git commit (its minigrad/ is exported to OUTDIR/base) or a directory holding a
# minigrad/ package. Each run writes OUTDIR/RESULTS_<before|after>.md with ratios to the
# references measured in that run (bench/_common.py: interleaved, one thread, BLAS pinned).
# ONLY: bench/run_all.py --only list (default per_op,mlp,matmul,tracing_overhead,deep_chain).
set -euo pipefail
BASE=${1:?usage: bash scripts/bench_ab.sh BASE_REF [OUTDIR] [ONLY]}
OUTDIR=${2:-bench-ab}
ONLY=${3:-per_op,mlp,matmul,tracing_overhead,deep_chain}
PY=${PY:-python3}
mkdir -p "$OUTDIR"
if [ -d "$BASE/minigrad" ]; then
  BASE_DIR=$BASE
else
  BASE_DIR="$OUTDIR/base"
  rm -rf "$BASE_DIR" && mkdir -p "$BASE_DIR"
  git archive "$BASE" minigrad | tar -x -C "$BASE_DIR"
fi
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
for side in before after; do
  if [ "$side" = before ]; then export BENCH_MINIGRAD_PATH=$BASE_DIR; else unset BENCH_MINIGRAD_PATH; fi
  echo "== $side (${BENCH_MINIGRAD_PATH:-checkout})"
  $PY bench/run_all.py --only "$ONLY" --out "$OUTDIR/RESULTS_$side.md" ${BENCH_ARGS:-}
done
