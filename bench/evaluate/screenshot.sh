#!/usr/bin/env bash
# screenshot.sh — renders a `genesis evaluate --report` HTML file to a PNG with headless
# Chromium (Debian package `chromium`), the way a person would see it in a browser window
# 1400 px wide. Optionally only a band of the page (OFFSET px from the top).
#
#   bench/evaluate/screenshot.sh report.html out.png [HEIGHT=3000] [OFFSET=0]
#
# Rendering happens offline (file:// URL, --disable-gpu, no network needed: the report has
# no external resources).
set -euo pipefail
html=${1:?usage: screenshot.sh report.html out.png [height] [offset]}
png=${2:?usage: screenshot.sh report.html out.png [height] [offset]}
height=${3:-3000}
offset=${4:-0}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
    echo "screenshot.sh: no chromium found (apt-get install -y chromium)" >&2
    exit 77
fi
src=$(cd "$(dirname "$html")" && pwd)/$(basename "$html")
tmpd=$(mktemp -d)
trap 'rm -rf "$tmpd"' EXIT
if [ "$offset" != 0 ]; then
    # shift the page up by OFFSET pixels to look at a lower band
    sed "s|<main>|<main style=\"margin-top:-${offset}px\">|" "$src" >"$tmpd/page.html"
    src=$tmpd/page.html
fi
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$tmpd/profile" --window-size=1400,"$height" \
    --screenshot="$png" "file://$src" >/dev/null 2>&1
echo "screenshot.sh: wrote $png"
