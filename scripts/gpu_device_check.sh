#!/usr/bin/env bash
# Run minigrad's GPU checks on a CUDA machine and keep the logs.
#   bash scripts/gpu_device_check.sh [OUTDIR] [STEPS]
# STEPS: comma list of env,install,tests,lesson5,bench (default: all).
# Uses the machine's python3 (which must already hold CuPy); installs minigrad
# without dependencies when they are present (the device has no network).
set -uo pipefail
OUTDIR=${1:-${OUT:-gpu-logs}}
STEPS=${2:-env,install,tests,lesson5,bench}
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
