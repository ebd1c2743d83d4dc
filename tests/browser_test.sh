#!/usr/bin/env bash
# Opens the report in headless Chromium (Debian's package, `scripts/setup --with-browser`), checks that
# the verdict table and every plot render with no script error, and saves a screenshot.
# usage: browser_test.sh PATH/TO/infoflow-verify OUTPUT_DIR     (exit 77 = skipped: no chromium)
set -uo pipefail
cli="$1"; keep="$2"
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$browser" ]]; then echo "chromium not installed (scripts/setup --with-browser): skipped"; exit 77; fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$cli" lemmas --out "$work/lemmas" >/dev/null 2>&1 || { echo "FAIL: lemmas suite did not run"; exit 1; }
"$cli" thm1 --T 2,4 --eps 0.1,0.01,0.001 --fit-T 2,3,4 --p 2,4 --n 1 --out "$work/thm1-depth-separation" >/dev/null 2>&1
[[ $? -le 1 ]] || { echo "FAIL: thm1 did not run"; exit 1; }
"$cli" report --results "$work" --out "$work" >/dev/null || { echo "FAIL: report"; exit 1; }
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$work/profile" --virtual-time-budget=10000)
timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$work/index.html" > "$work/dom.html" 2>/dev/null
check=$(grep -o 'data-render-check="[^"]*"' "$work/dom.html" | head -1)
echo "render check: $check"
mkdir -p "$keep"
timeout 120 "$browser" "${flags[@]}" --window-size=1280,3200 --screenshot="$keep/report-screenshot.png" \
  "file://$work/index.html" >/dev/null 2>&1
fails=0; passes=0
if [[ "$check" =~ images=([0-9]+)/([0-9]+)\ verdict-rows=([0-9]+)\ errors=([0-9]+) ]]; then
  ok=${BASH_REMATCH[1]}; total=${BASH_REMATCH[2]}; rows=${BASH_REMATCH[3]}; errors=${BASH_REMATCH[4]}
  plots=$(ls "$work/plots"/*.svg | wc -l)
  if [[ $total -ge 1 && $ok -eq $total && $total -eq $plots ]]; then passes=$((passes+1)); else echo "FAIL: $ok of $total images rendered, $plots plots written"; fails=$((fails+1)); fi
  if [[ $rows -eq 2 ]]; then passes=$((passes+1)); else echo "FAIL: verdict table has $rows rows, expected 2"; fails=$((fails+1)); fi
  if [[ $errors -eq 0 ]]; then passes=$((passes+1)); else echo "FAIL: $errors script errors"; fails=$((fails+1)); fi
else
  echo "FAIL: the page did not report its render check"; fails=$((fails+1))
fi
if [[ -s "$keep/report-screenshot.png" ]]; then passes=$((passes+1)); else echo "FAIL: no screenshot"; fails=$((fails+1)); fi
echo "browser: $passes passed, $fails failed (screenshot: $keep/report-screenshot.png)"
[[ $fails -eq 0 ]]
