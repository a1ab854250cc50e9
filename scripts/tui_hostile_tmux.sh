#!/usr/bin/env bash
# The real minigrad-tui and minigrad CLI on hostile input, in tmux, as a person would meet it.
#
#   scripts/tui_hostile_tmux.sh [OUTDIR]      (default OUTDIR: out/tui-hostile)
#
# 1. Records (x.log() * x).sum().backward() at x = [0, 1] (a -inf value and a NaN
#    gradient), opens it in minigrad-tui at 80x24, steps through the whole backward
#    pass event by event and node run by node run, and checks that a gradient
#    preview shows '[nan' and the app is still running.
# 2. Opens hostile files (200 000 nested '[', a binary file, "version": true,
#    an in-degree key that is not an id) and checks each error screen names the line.
# 3. Runs 'minigrad log' on /dev/zero and on the hostile files: one line, exit 2.
# Each screen is saved as OUTDIR/NN-name.txt and printed. Exits non-zero on the first failed check.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-out/tui-hostile}"
PY="${MINIGRAD_PYTHON:-$PWD/.venv/bin/python}"
TUI="$(dirname "$PY")/minigrad-tui"
CLI="$(dirname "$PY")/minigrad"
SESSION="minigrad-hostile-$$"
mkdir -p "$OUT"

if ! command -v tmux >/dev/null 2>&1; then
    echo "tmux is missing: install it (Debian/Ubuntu: sudo apt-get install tmux)" >&2
    exit 1
fi
[ -x "$TUI" ] || { echo "$TUI not found: run 'make setup' first" >&2; exit 1; }

cleanup() { tmux kill-session -t "$SESSION" 2>/dev/null || true; }
trap cleanup EXIT
n=0
start() {  # start FILE: launch the app on FILE in a fresh 80x24 tmux session
    cleanup
    tmux new-session -d -s "$SESSION" -x 80 -y 24 "$TUI $1; echo EXITED; sleep 30"
    wait_for "$2"
}
wait_for() {
    for _ in $(seq 1 150); do
        if tmux capture-pane -t "$SESSION" -p | grep -qF -- "$1"; then return 0; fi
        sleep 0.1
    done
    echo "FAILED: timed out waiting for: $1" >&2
    tmux capture-pane -t "$SESSION" -p >&2
    exit 1
}
keys() { for k in "$@"; do tmux send-keys -t "$SESSION" "$k"; sleep "${KEY_DELAY:-0.15}"; done; sleep 0.4; }
capture() {
    n=$((n + 1))
    file=$(printf "%s/%02d-%s.txt" "$OUT" "$n" "$1")
    tmux capture-pane -t "$SESSION" -p > "$file"
    echo "=================== $file"
    cat "$file"
}
expect() {  # expect TEXT: the last capture shows TEXT, and the app has not crashed
    grep -qF -- "$1" "$file" || { echo "FAILED: '$1' not on screen ($file)" >&2; exit 1; }
    if grep -qE "Traceback|EXITED" "$file"; then echo "FAILED: the app crashed ($file)" >&2; exit 1; fi
}

# 1. NaN gradients.
"$PY" - "$OUT/nan.jsonl" <<'PYEOF'
import sys
import minigrad as mg
x = mg.tensor([0.0, 1.0], requires_grad=True)
with mg.trace(values=True) as tr:
    (x.log() * x).sum().backward()
tr.save(sys.argv[1])
PYEOF
start "$OUT/nan.jsonl" "pass 0 of"
capture nan-start
for _ in $(seq 1 60); do keys Right; done  # every event of the pass, one at a time
capture nan-stepped
keys End b v  # at 80x24 'v' shows the queue, in-degree, buffers and log view
capture nan-accumulation-node-run
expect "[nan"
keys End v v  # back to the graph view
capture nan-end
tmux send-keys -t "$SESSION" -N 200 Left; sleep 2  # back to the first event: the forward tab opens at its first call
keys 2
capture nan-forward-tab
expect "log(t"
keys q

# 2. Hostile files open an error screen.
printf '{"schema": "minigrad.trace", "version": 1}\n' > "$OUT/nested.jsonl"
"$PY" -c "import sys; sys.stdout.write('[' * 200000 + '\n')" >> "$OUT/nested.jsonl"
head -c 4096 "$PY" > "$OUT/binary.jsonl"
printf '{"schema": "minigrad.trace", "version": true}\n' > "$OUT/version_true.jsonl"
printf '{"schema": "minigrad.trace", "version": 1}\n{"seq": 0, "ts_ns": 1, "kind": "backward.in_degree", "in_degree": {"abc": 1}}\n' \
    > "$OUT/in_degree.jsonl"
for name in nested binary version_true in_degree; do
    start "$OUT/$name.jsonl" "could not open"
    capture "error-$name"
    expect "line"
    keys q
done

# 3. The CLI: one line and exit status 2, also for /dev/zero.
for f in /dev/zero "$OUT/nested.jsonl" "$OUT/binary.jsonl" "$OUT/version_true.jsonl" "$OUT/in_degree.jsonl"; do
    set +e
    msg=$(timeout 60 "$CLI" log "$f" 2>&1 >/dev/null)
    code=$?
    set -e
    echo "minigrad log $f -> exit $code: $msg"
    [ "$code" = 2 ] || { echo "FAILED: expected exit status 2" >&2; exit 1; }
    [ "$(printf '%s\n' "$msg" | wc -l)" = 1 ] || { echo "FAILED: expected one line" >&2; exit 1; }
done
echo "all hostile-input checks passed; captures in $OUT"
