#!/usr/bin/env bash
# The gene-family report in a real browser: runs the whole pipeline on the
# example genome, opens report.html in headless Chromium (a fresh profile, no
# network), and checks that the screenshot shows a rendered page (not blank)
# and that every figure is inline. The screenshot is kept as a test artifact.
# Usage: report_screenshot.sh BIOAGENT_BINARY ARTIFACT_DIR
set -uo pipefail
bin=$1 artifacts=$2
chromium=$(command -v chromium || true)
[ -n "$chromium" ] || { echo "FAIL: chromium is missing (scripts/setup.sh installs it)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$artifacts"
"$bin" genefamily example "$tmp/data" > /dev/null || { echo "FAIL: example genome"; exit 1; }
"$bin" genefamily run --data "$tmp/data" --run-dir "$tmp/run" --cpus 2 \
  --params '{"phylogeny": {"method": "fasttree"}, "report": {"lang": "en"}}' > "$tmp/out.json" 2> "$tmp/progress.txt" \
  || { echo "FAIL: the pipeline did not finish"; tail -20 "$tmp/progress.txt"; exit 1; }
report="$tmp/run/final/Exam.GLOBIN.report.html"
"$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
  --disable-sync --no-first-run --user-data-dir="$tmp/profile" --hide-scrollbars --window-size=1200,5200 \
  --screenshot="$artifacts/genefamily_report.png" "file://$report" > "$tmp/chromium.log" 2>&1
/usr/bin/python3 - "$artifacts/genefamily_report.png" "$report" <<'PY'
import re, struct, sys, zlib
png, html = sys.argv[1], open(sys.argv[2], encoding="utf-8").read()
data = open(png, "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "no PNG screenshot"
w, h = struct.unpack(">II", data[16:24])
# Decode the image to count non-white pixels (filter type per row, RGB or RGBA, 8-bit).
idat = b"".join(data[i + 8:i + 8 + struct.unpack(">I", data[i:i + 4])[0]]
                for i in [m.start() - 4 for m in re.finditer(b"IDAT", data)])
raw = zlib.decompress(idat)
bpp = 4 if data[25] == 6 else 3
stride = w * bpp
ink, rows, prev, pos = 0, 0, bytearray(stride), 0
for y in range(h):
    f, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride]); pos += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    if y % 4 == 0:
        ink += sum(1 for x in range(0, stride, bpp * 4) if line[x] < 200)
coverage = ink / ((h // 4) * (w // 4))
figures = len(re.findall(r"<figure[ >]", html))
inline = len(re.findall(r"<figure[^>]*><svg", html))
captions = re.findall(r"<figcaption>([^<]*)</figcaption>", html)
assert all(c.startswith(f"Figure {i + 1}. ") and ".svg" not in c for i, c in enumerate(captions)), \
    f"numbered captions that are not file names: {captions}"
assert figures >= 8 and inline == figures, f"{inline} of {figures} figures inline"
assert not re.search(r'(src|href)="https?:', html), "the report loads nothing from the network"
assert coverage > 0.02, f"the page looks blank ({coverage:.3%} ink)"
print(f"ok: {w}x{h} screenshot, {coverage:.1%} of it drawn, {figures} inline figures")
PY
