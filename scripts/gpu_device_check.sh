#!/usr/bin/env bash
# Run minigrad's GPU checks on a CUDA machine and keep the logs.
#   bash scripts/gpu_device_check.sh [OUTDIR] [STEPS]
# STEPS: comma list of env,install,tests,fuzz,conform,lesson5,bench,kernels,profile,ab (default: all but the last
# three).
#   tests:   the GPU suite (tests/gpu -m gpu), TESTS_WORKERS processes (default 7), under TESTS_TIMEOUT s (150).
#   fuzz:    the differential fuzzer's device mode (tests/test_fuzz_torch.py, long profile, views and in-place
#            included) against PyTorch CUDA: FUZZ_PROGRAMS programs (default 1200) in FUZZ_SHARDS processes of
#            fresh randomness (default 8), each under FUZZ_TIMEOUT s (120). Each shard prints a progress line per
#            program, so a shard its timeout stops still says how many programs ran without a mismatch; a mismatch
#            is reported unshrunk, at once.
#   conform: PyTorch's OpInfo reference inputs (tests/test_conformance.py) with minigrad's side on the GPU
#            (MINIGRAD_CONFORMANCE_DEVICE=gpu): values, devices and gradients against PyTorch's float64 CPU
#            ones, CONFORM_WORKERS processes (default 4), under CONFORM_TIMEOUT s (200).
#   lesson5: lesson 5's reference built, graded and its tests run.
#   bench:   bench/gpu_kernels.py's training steps and per-op host time against PyTorch CUDA
#            (BENCH_PARTS, default train,host; BENCH_ARGS, default "--repeat 6 --rounds 3 --no-counts --no-direct":
#            minigrad and PyTorch timed in turn three times, the median ratio reported), under BENCH_TIMEOUT s (200).
#   kernels: bench/gpu_kernels.py's kernel, matmul and conv tables (KERNEL_ARGS, default 16M float32).
#   profile: where a step's host time goes, bench/host_profile.py: each step of one call alone (--steps: CuPy's
#            primitives beside minigrad's layers), PROFILE_CASES (default the char GPT 2x64 step and the small
#            ResNet-style step) profiled by cumulative time, and the ResNet step's host, synced and device time
#            with its slowest kernels (--launches); under PROFILE_TIMEOUT s (240). PROFILE_ARGS go to each call
#            (--stand-in: the stand-in CuPy, to try the step without a GPU).
#   ab:      before and after a change, bench/gpu_ab.py: AB_BASE (a directory holding the older minigrad/, e.g.
#            made with `git archive BASE minigrad | tar -x -C .ab_base` and carried to the device, which has no
#            git history) against the checkout, AB_TURNS runs a side taken in turns (default 2), AB_ARGS
#            (default "--parts train,host --repeat 4"), under AB_TIMEOUT s (300).
# PARALLEL=1 (the default; 0 runs them one after another) runs tests, fuzz, conform and lesson5 at the same time (a
# device's minutes are few; timings come after, alone). On an H200 the default run takes about 3 minutes
# (the GPU suite 80 s beside 1,400 fuzzed programs, then the timings, about 80 s in three rounds). At most nine log files (ten with every step) are written to
# OUTDIR, each as it goes, so a run stopped by its caller's timeout still returns what it had.
# Uses the machine's python3 (which must already hold CuPy); installs minigrad without dependencies when they
# are present (the device has no network), and puts the checkout on PYTHONPATH in case the install cannot run.
set -uo pipefail
OUTDIR=${1:-${OUT:-gpu-logs}}
STEPS=${2:-env,install,tests,fuzz,conform,lesson5,bench}
mkdir -p "$OUTDIR"
export PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
has() { [[ ",$STEPS," == *",$1,"* ]]; }
stamp() { echo "== $1 at $(date +%T) (${SECONDS}s)"; }

if has env; then
  stamp env
  { nvidia-smi; python3 --version; python3 -c "import cupy, numpy; print('cupy', cupy.__version__, 'numpy', numpy.__version__, 'cuda runtime', cupy.cuda.runtime.runtimeGetVersion(), 'driver', cupy.cuda.runtime.driverGetVersion())";
    python3 -c "import torch; print('torch', torch.__version__, torch.cuda.is_available())";
    python3 -m pip list 2>/dev/null | grep -iE "^(textual|graphviz|rich|pytest|pytest-xdist|hypothesis|cupy.*|numpy|ml.dtypes|setuptools) "; } > "$OUTDIR/env.txt" 2>&1
  cat "$OUTDIR/env.txt"
fi
if has install; then
  stamp install
  # (its log is kept only when the install fails: OUTDIR's files are few)
  python3 -m pip install -q --no-deps --no-build-isolation -e . > /tmp/minigrad_install.txt 2>&1 \
    || { cp /tmp/minigrad_install.txt "$OUTDIR/install.txt"; tail -5 /tmp/minigrad_install.txt; }
  python3 -c "import minigrad as mg; print('gpu available:', mg.is_gpu_available())" 2>&1
fi

run_tests() {
  timeout "${TESTS_TIMEOUT:-150}" python3 -m pytest tests/gpu -m gpu -q -p no:cacheprovider -n "${TESTS_WORKERS:-7}" \
    --tb=short -W ignore -rfE > "$OUTDIR/pytest_gpu.txt" 2>&1
  echo "pytest rc=$?" >> "$OUTDIR/pytest_gpu.txt"
}
run_fuzz() {
  local programs=${FUZZ_PROGRAMS:-1200} shards=${FUZZ_SHARDS:-8} k
  local per=$(( (programs + shards - 1) / shards ))
  : > "$OUTDIR/fuzz.txt"
  for k in $(seq 1 "$shards"); do
    ( MINIGRAD_FUZZ=long MINIGRAD_FUZZ_DEVICE=gpu MINIGRAD_FUZZ_EXAMPLES=$per MINIGRAD_FUZZ_PROGRESS=1 MINIGRAD_FUZZ_SHRINK=0 \
        timeout "${FUZZ_TIMEOUT:-120}" python3 -m pytest tests/test_fuzz_torch.py -k on_the_gpu -q -s -p no:cacheprovider \
        -p no:xdist --tb=short -W ignore 2>&1; echo "rc=$?" ) | sed -u "s/^/[$k] /" >> "$OUTDIR/fuzz.txt" &
  done
  wait
}
run_conform() {
  MINIGRAD_CONFORMANCE_DEVICE=gpu timeout "${CONFORM_TIMEOUT:-200}" python3 -m pytest tests/test_conformance.py -q \
    -p no:cacheprovider -n "${CONFORM_WORKERS:-4}" --tb=line -W ignore -rfs > "$OUTDIR/conformance.txt" 2>&1
  echo "conformance rc=$?" >> "$OUTDIR/conformance.txt"
}
run_lesson5() {
  { rm -rf /tmp/l5 && python3 -m minigrad.lessons_cli build --out /tmp/l5 --lesson 5 --reference
    python3 -m minigrad.lessons_cli grade /tmp/l5
    (cd /tmp/l5/* && timeout 200 python3 -m pytest -q -p no:cacheprovider --tb=short); } > "$OUTDIR/lesson5.txt" 2>&1
}
fuzz_summary() {
  local k last
  for k in $(seq 1 "${FUZZ_SHARDS:-8}"); do
    row=$(grep -h "^\[$k\] differential fuzzer:" "$OUTDIR/fuzz.txt")
    last=$(grep -h "^\[$k\] differential fuzzer progress:" "$OUTDIR/fuzz.txt" | tail -1)
    if [[ -n "$row" ]]; then echo "shard $k: ${row#\[$k\] }"
    else echo "shard $k: no summary; last progress: ${last#\[$k\] }"; grep -h "^\[$k\]" "$OUTDIR/fuzz.txt" | grep -v "progress:" | tail -25; fi
  done
  grep -h "differential fuzzer:" "$OUTDIR/fuzz.txt" | awk '{p += $4; s += $6} END {print "fuzz device mode, finished shards:", p + 0, "programs,", s + 0, "steps without a mismatch"}'
  for k in $(seq 1 "${FUZZ_SHARDS:-8}"); do grep -h "^\[$k\] differential fuzzer progress:" "$OUTDIR/fuzz.txt" | tail -1; done \
    | awk '{p += $5; s += $7} END {print "fuzz device mode, every shard to its last program:", p + 0, "programs,", s + 0, "steps"}'
}

if [[ "${PARALLEL:-1}" == 1 ]]; then
  stamp "tests, fuzz, lesson5 (in parallel)"
  has tests && run_tests &
  has fuzz && run_fuzz &
  has conform && run_conform &
  has lesson5 && run_lesson5 &
  wait
else
  has tests && { stamp tests; run_tests; }
  has fuzz && { stamp fuzz; run_fuzz; }
  has conform && { stamp conform; run_conform; }
  has lesson5 && { stamp lesson5; run_lesson5; }
fi
if has tests; then stamp "tests done"; tail -40 "$OUTDIR/pytest_gpu.txt"; fi
if has fuzz; then stamp "fuzz done"; fuzz_summary; fi
if has conform; then stamp "conform done"; tail -15 "$OUTDIR/conformance.txt"; fi
if has lesson5; then stamp "lesson5 done"; tail -25 "$OUTDIR/lesson5.txt"; fi
if has bench; then
  stamp bench
  cp bench/RESULTS.md "$OUTDIR/RESULTS.md"
  timeout "${BENCH_TIMEOUT:-200}" python3 bench/gpu_kernels.py --results "$OUTDIR/RESULTS.md" \
    --parts "${BENCH_PARTS:-train,host}" ${BENCH_ARGS:---repeat 6 --rounds 3 --no-counts --no-direct} > "$OUTDIR/bench.txt" 2>&1
  echo "bench rc=$?"; sed -n '/^Training steps/,$p' "$OUTDIR/bench.txt" | head -60
fi
if has kernels; then
  stamp kernels
  timeout "${KERNELS_TIMEOUT:-200}" python3 bench/gpu_kernels.py --no-write --parts kernels,matmul,conv \
    ${KERNEL_ARGS:---sizes 16M --dtypes float32 --repeat 10} > "$OUTDIR/bench_kernels.txt" 2>&1
  echo "kernels rc=$?"; tail -50 "$OUTDIR/bench_kernels.txt"
fi
if has profile; then
  stamp profile
  export PROFILE_ARGS PROFILE_CASES
  { timeout "${PROFILE_TIMEOUT:-240}" bash -c '
      python3 bench/host_profile.py $PROFILE_ARGS --steps --calls 2000
      python3 bench/host_profile.py $PROFILE_ARGS --sort cumulative --top 60 --only "${PROFILE_CASES:-char GPT 2x64 step,small ResNet step}"
      python3 bench/host_profile.py $PROFILE_ARGS --launches --top 15 --only "small ResNet step"'; echo "profile rc=$?"; } > "$OUTDIR/profile.txt" 2>&1
  tail -5 "$OUTDIR/profile.txt"
fi
if has ab; then
  stamp ab
  timeout "${AB_TIMEOUT:-300}" python3 bench/gpu_ab.py "${AB_BASE:?ab needs AB_BASE, a directory holding the older minigrad/}" \
    --turns "${AB_TURNS:-2}" ${AB_ARGS:---parts train,host --repeat 4} > "$OUTDIR/ab.txt" 2>&1
  echo "ab rc=$?"; tail -30 "$OUTDIR/ab.txt"
fi
stamp end
