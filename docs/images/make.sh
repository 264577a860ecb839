#!/usr/bin/env bash
# Makes the book's pictures from a real run (docs/src/images/*.jpg):
#   report.jpg  the HTML matrix `pi-conformance report` writes, after the steering scenarios ran
#               on pi-agent, on the reference 0.84.1 and on the reference 1.6.0
#   diff.jpg    what a failing scenario prints: prompt.001 run on a "port" that forgets the
#               `contentIndex` of text deltas (pi-agent behind a filter that drops it)
# (steering.svg, the sequence diagram, is drawn by steering.py.)
# Needs the reference releases installed (conformance/reference/install.sh 0.84.1 1.6.0), a
# debug build (cargo build -p pi-agent -p pi-conformance) and wkhtmltoimage (Debian:
# wkhtmltopdf). Run it from anywhere; it overwrites the two images.
set -euo pipefail
cd "$(dirname "$0")/../.."
runner=target/debug/pi-conformance
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
images=docs/src/images
mkdir -p "$images"

for agent in ours reference reference@1.6.0; do
  "$runner" run --agent "$agent" --out "$out/runs" scenarios/steer >/dev/null 2>&1 || true
done
"$runner" report --out "$out/runs" >/dev/null
XDG_RUNTIME_DIR=$out wkhtmltoimage --quiet --width 1100 --format jpg --quality 85 "$out/runs/index.html" "$images/report.jpg"

# The runner's text, coloured as a terminal shows a diff.
printf '#!/bin/sh\n"%s" "$@" | sed -u "s/,\\"contentIndex\\":0//"\n' "$PWD/target/debug/pi-agent" >"$out/port.sh"
"$runner" run --agent "sh $out/port.sh" scenarios/prompt/prompt.001-text-reply.yaml \
  >"$out/diff.txt" 2>/dev/null || true
python3 - "$out/diff.txt" "$out/diff.html" <<'PY'
import html, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
start = next((i for i, line in enumerate(lines) if line.startswith("== ")), 0)
rows = []
for line in lines[start:]:
    colour = {"+": "#1a7f37", "-": "#cf222e", "@": "#8250df", "=": "#0550ae"}.get(line[:1], "#1f2328")
    rows.append(f'<span style="color:{colour}">{html.escape(line)}</span>')
page = ('<html><body style="margin:0;background:#f6f8fa"><pre style="font:14px monospace;'
        'padding:16px;margin:0">' + "\n".join(rows) + "</pre></body></html>")
open(sys.argv[2], "w", encoding="utf-8").write(page)
PY
XDG_RUNTIME_DIR=$out wkhtmltoimage --quiet --width 900 --format jpg --quality 85 "$out/diff.html" "$images/diff.jpg"
echo "wrote $images/report.jpg and $images/diff.jpg"
