#!/usr/bin/env bash
# Run minigrad's GPU checks on a CUDA machine and keep the logs.
#   bash scripts/gpu_device_check.sh [OUTDIR] [STEPS]
# STEPS: comma list of env,install,tests,fuzz,lesson5,bench (default: all).
# fuzz: the differential fuzzer's device mode (tests/test_fuzz_torch.py, long profile,
#   views and in-place included) against PyTorch CUDA, FUZZ_PROGRAMS programs (default
#   1000) in FUZZ_SHARDS processes of fresh randomness (default 8), each under
#   FUZZ_TIMEOUT seconds (default 420); prints each shard's summary row and the total.
# Uses the machine's python3 (which must already hold CuPy); installs minigrad
# without dependencies when they are present (the device has no network).
set -uo pipefail
OUTDIR=${1:-${OUT:-gpu-logs}}
STEPS=${2:-env,install,tests,fuzz,lesson5,bench}
mkdir -p "$OUTDIR"
export PYTHONUNBUFFERED=1
has() { [[ ",$STEPS," == *",$1,"* ]]; }
if has env; then
  { nvidia-smi; python3 --version; python3 -c "import cupy, numpy; print('cupy', cupy.__version__, 'numpy', numpy.__version__, 'cuda runtime', cupy.cuda.runtime.runtimeGetVersion(), 'driver', cupy.cuda.runtime.driverGetVersion())";
    python3 -c "import torch; print('torch', torch.__version__, torch.cuda.is_available())";
    python3 -m pip list 2>/dev/null | grep -iE "^(textual|graphviz|rich|pytest|hypothesis|cupy|numpy|scikit-learn) "; } > "$OUTDIR/env.txt" 2>&1
  cat "$OUTDIR/env.txt"
fi
if has install; then
  python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUTDIR/install.txt" 2>&1 || cat "$OUTDIR/install.txt"
  python3 -c "import minigrad as mg; print('gpu available:', mg.is_gpu_available())"
fi
if has tests; then
  timeout 400 python3 -m pytest tests/gpu -m gpu -q -p no:cacheprovider -n 8 --tb=short -W ignore -rfE > "$OUTDIR/pytest_gpu.txt" 2>&1
  echo "pytest rc=$?"; tail -40 "$OUTDIR/pytest_gpu.txt"
fi
if has fuzz; then
  FUZZ_PROGRAMS=${FUZZ_PROGRAMS:-1000}; FUZZ_SHARDS=${FUZZ_SHARDS:-8}
  per=$(( (FUZZ_PROGRAMS + FUZZ_SHARDS - 1) / FUZZ_SHARDS ))
  for k in $(seq 1 "$FUZZ_SHARDS"); do
    MINIGRAD_FUZZ=long MINIGRAD_FUZZ_DEVICE=gpu MINIGRAD_FUZZ_EXAMPLES=$per timeout "${FUZZ_TIMEOUT:-420}" \
      python3 -m pytest tests/test_fuzz_torch.py -k on_the_gpu -q -s -p no:cacheprovider -p no:xdist --tb=short -W ignore \
      > "$OUTDIR/fuzz_gpu_$k.txt" 2>&1 &
  done
  wait
  for k in $(seq 1 "$FUZZ_SHARDS"); do
    row=$(grep -h "^differential fuzzer:" "$OUTDIR/fuzz_gpu_$k.txt")
    if [[ -n "$row" ]]; then echo "shard $k: $row"; else echo "shard $k: NO SUMMARY (mismatch, error or timeout):"; tail -40 "$OUTDIR/fuzz_gpu_$k.txt"; fi
  done
  grep -h "^differential fuzzer:" "$OUTDIR"/fuzz_gpu_*.txt | awk '{p += $3; s += $5} END {print "fuzz device mode total:", p + 0, "programs,", s + 0, "steps without a mismatch"}'
fi
if has lesson5; then
  rm -rf /tmp/l5 && python3 -m minigrad.lessons_cli build --out /tmp/l5 --lesson 5 --reference > "$OUTDIR/lesson5.txt" 2>&1
  python3 -m minigrad.lessons_cli grade /tmp/l5 >> "$OUTDIR/lesson5.txt" 2>&1
  (cd /tmp/l5/* && timeout 200 python3 -m pytest -q -p no:cacheprovider --tb=short >> "$OUTDIR/lesson5.txt" 2>&1)
  tail -30 "$OUTDIR/lesson5.txt"
fi
if has bench; then
  cp bench/RESULTS.md "$OUTDIR/RESULTS.md"
  timeout 400 python3 bench/gpu_kernels.py --results "$OUTDIR/RESULTS.md" ${BENCH_ARGS:-} > "$OUTDIR/bench.txt" 2>&1
  echo "bench rc=$?"; tail -60 "$OUTDIR/bench.txt"
fi
