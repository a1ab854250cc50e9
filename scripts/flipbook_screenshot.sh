#!/usr/bin/env bash
# Open a minigrad flip-book in headless Chromium and take a screenshot.
#
#   scripts/flipbook_screenshot.sh backward.html [out.png] [frame]
#
# With no arguments it renders the committed example trace first
# (tests/viz/fixtures/two_layers.jsonl) into out/flipbook.html.
# `frame` (0-based) opens that frame through the page's #frame=N anchor.
# Needs Debian's `chromium` package (apt-get install -y chromium); no network is used.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-python3}; [ -z "${PYTHON:-}" ] && [ -x .venv/bin/python ] && py=.venv/bin/python

html=${1:-}
png=${2:-out/flipbook.png}
frame=${3:-}
if [ -z "$html" ]; then
  mkdir -p out
  html=out/flipbook.html
  "$py" -m minigrad.cli render tests/viz/fixtures/two_layers.jsonl --flipbook "$html"
fi
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
  echo "chromium not found: install it with 'apt-get install -y chromium'" >&2
  exit 2
fi
url="file://$(cd "$(dirname "$html")" && pwd)/$(basename "$html")"
[ -n "$frame" ] && url="$url#frame=$frame"
mkdir -p "$(dirname "$png")"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --screenshot="$(realpath -m "$png")" --window-size=1400,900 \
  "$url" 2>/dev/null
echo "screenshot: $png"
