#!/usr/bin/env bash
# Opens the report in headless Chromium (Debian's package, `scripts/setup --with-browser`) in a 1400 px window and
# checks what the page measures about itself once loaded: every plot decoded, the claims ledger filled, no script
# error, the page no wider than the window and no element whose text overflows its box. Saves a screenshot of the
# first screen (1400 x 900: the ledger and the certified separation plot) and one of the whole page.
# usage: browser_test.sh PATH/TO/infoflow-verify OUTPUT_DIR     (exit 77 = skipped: no chromium)
set -uo pipefail
cli="$1"; keep="$2"
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$browser" ]]; then echo "chromium not installed (scripts/setup --with-browser): skipped"; exit 77; fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$cli" lemmas --out "$work/lemmas" >/dev/null 2>&1 || { echo "FAIL: lemmas suite did not run"; exit 1; }
"$cli" thm1 --T 2,4 --eps 0.1,0.01,0.001 --fit-T 2,3,4 --p 2,4 --n 1 --class-T 5 --class-fit-T 3,4 --class-fit-p 1,2,4,8 --out "$work/thm1-depth-separation" >/dev/null 2>&1
[[ $? -le 1 ]] || { echo "FAIL: thm1 did not run"; exit 1; }
"$cli" report --results "$work" --out "$work" >/dev/null || { echo "FAIL: report"; exit 1; }
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$work/profile" --virtual-time-budget=10000
       --hide-scrollbars)
timeout 120 "$browser" "${flags[@]}" --window-size=1400,900 --dump-dom "file://$work/index.html" > "$work/dom.html" 2>/dev/null
check=$(grep -o 'data-render-check="[^"]*"' "$work/dom.html" | head -1)
echo "render check at 1400 px: $check"
mkdir -p "$keep"
timeout 120 "$browser" "${flags[@]}" --window-size=1400,900 --screenshot="$keep/report-first-screen.png" \
  "file://$work/index.html" >/dev/null 2>&1
timeout 120 "$browser" "${flags[@]}" --window-size=1400,4000 --screenshot="$keep/report-screenshot.png" \
  "file://$work/index.html" >/dev/null 2>&1
fails=0; passes=0
pass() { passes=$((passes+1)); }
fail() { echo "FAIL: $1"; fails=$((fails+1)); }
if [[ "$check" =~ images=([0-9]+)/([0-9]+)\ ledger-rows=([0-9]+)\ errors=([0-9]+)\ page-width=([0-9]+)\ overflow=([0-9]+) ]]; then
  ok=${BASH_REMATCH[1]}; total=${BASH_REMATCH[2]}; rows=${BASH_REMATCH[3]}; errors=${BASH_REMATCH[4]}
  width=${BASH_REMATCH[5]}; overflow=${BASH_REMATCH[6]}
  plots=$(ls "$work/plots"/*.svg | wc -l)
  # Every plot is drawn once in its suite, and the separation plot once more beside the ledger.
  if [[ $total -ge 2 && $ok -eq $total && $total -eq $((plots + 1)) ]]; then pass; else fail "$ok of $total images rendered, $plots plots written"; fi
  if [[ $rows -ge 5 ]]; then pass; else fail "the claims ledger has $rows rows, expected Theorem 1's five"; fi
  if [[ $errors -eq 0 ]]; then pass; else fail "$errors script errors"; fi
  if [[ $width -le 1400 ]]; then pass; else fail "the page is $width px wide in a 1400 px window"; fi
  if [[ $overflow -eq 0 ]]; then pass; else fail "$overflow elements whose text overflows their box"; fi
else
  fail "the page did not report its render check"
fi
# The first screen shows the ledger and, beside it, the separation plot (both in the DOM's first part of the page).
if grep -q 'id="ledger"' "$work/dom.html" && grep -q 'The headline' "$work/dom.html"; then pass; else fail "ledger or separation plot missing"; fi
for shot in report-first-screen.png report-screenshot.png; do
  if [[ -s "$keep/$shot" ]]; then pass; else fail "no screenshot $shot"; fi
done
echo "browser: $passes passed, $fails failed (screenshots: $keep/report-first-screen.png, $keep/report-screenshot.png)"
[[ $fails -eq 0 ]]
