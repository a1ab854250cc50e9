#!/usr/bin/env bash
# Drive the real minigrad-tui in tmux as a person would, and print what the screen shows.
#
#   scripts/tui_tmux.sh [OUTDIR]      (default OUTDIR: out/tui-captures)
#
# Opens the built-in demo at 160x48 and at 80x24, steps through it (events, node runs,
# help, quiz, the grad() pass with GeneralGrad marks, the forward tab), then
# opens a truncated trace, a script that raises and a script followed live. Each screen is saved as
# OUTDIR/NN-name.txt (tmux capture-pane -p) and printed. Read them.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-out/tui-captures}"
TUI="${MINIGRAD_TUI:-$PWD/.venv/bin/minigrad-tui}"
SESSION="minigrad-tui-$$"
mkdir -p "$OUT"

if ! command -v tmux >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null
    else
        echo "tmux is missing: install it (Debian/Ubuntu: sudo apt-get install tmux)" >&2
        exit 1
    fi
fi
if [ ! -x "$TUI" ]; then
    echo "$TUI not found: run 'make setup' first" >&2
    exit 1
fi

cleanup() { tmux kill-session -t "$SESSION" 2>/dev/null || true; }
trap cleanup EXIT

n=0
start() {  # start ARGS...: launch the app in a fresh tmux session and wait for it to draw
    cleanup
    tmux new-session -d -s "$SESSION" -x "${COLS:-160}" -y "${ROWS:-48}" "$TUI $*; sleep 30"
    wait_for "${WAIT_FOR:-Backward [1]}"; sleep 0.5
}
wait_for() {  # wait_for TEXT: until TEXT is on screen (10 s at most)
    for _ in $(seq 1 100); do
        if tmux capture-pane -t "$SESSION" -p | grep -qF -- "$1"; then return 0; fi
        sleep 0.1
    done
    echo "timed out waiting for: $1" >&2
    return 1
}
keys() {  # keys KEY...: one key at a time, as fingers do (a burst can split escape sequences)
    if [ "$1" = "-l" ]; then tmux send-keys -t "$SESSION" -l "$2"; sleep 0.4; return; fi
    for k in "$@"; do tmux send-keys -t "$SESSION" "$k"; sleep "${KEY_DELAY:-0.3}"; done
    sleep 0.5
}
capture() {  # capture NAME: save and print the screen
    n=$((n + 1))
    local file
    file=$(printf "%s/%02d-%s.txt" "$OUT" "$n" "$1")
    tmux capture-pane -t "$SESSION" -p > "$file"
    echo "=================== $file"
    cat "$file"
}

# 1. The built-in demo, as `make tui` opens it (SVG exports go to OUTDIR).
start --export-dir "$OUT"
capture demo-start
keys Right Right Right
capture demo-in-degree-map
keys n n n n n n
capture demo-sixth-node-run
keys b
capture demo-back-one-run
keys '?'
capture help
keys Escape
keys j; keys -l "TanhGrad"; keys Enter
capture jump-to-tanh
keys Home t n
capture quiz-question
keys -l "AddBackward0#14"; keys Enter
capture quiz-after-node-answer
keys -l "0 0"; keys Enter
capture quiz-after-in-degree-answer
keys Enter t
keys c Down Enter
keys End
capture grad-pass-end-with-marks
keys 3
capture general-grad-tab
keys 2
capture forward-tab
keys 1 s
capture export-svg
keys q

# 2. The smallest supported terminal, 80x24: one view at a time, v cycles them.
COLS=80 ROWS=24 start
keys n n n n n n
capture small-80x24-graph
keys v
capture small-80x24-engine-panes
keys v
capture small-80x24-node-detail
keys q

# 3. A truncated trace file.
head -c 2000 tests/tui/fixtures/demo.jsonl > "$OUT/truncated.jsonl"
WAIT_FOR="could not open" start "$OUT/truncated.jsonl"
capture truncated-trace
keys q

# 4. A script that raises half-way (--wait: run it to the end, then open what it recorded).
WAIT_FOR="could not open" start tests/tui/fixtures/scripts/raises.py --wait
capture script-raises
keys Enter
capture script-raises-recorded-events
keys q
# 5. A script followed live: it opens at once; passes appear as they are recorded.
WAIT_FOR="ok_script.py" start tests/tui/fixtures/scripts/ok_script.py
capture live-script-opens
wait_for "recording finished" || true; sleep 1
capture live-script-finished
keys q
echo "captures in $OUT"
