#!/usr/bin/env bash
# End-to-end checks of the CLI: exit codes and messages on bad input, fit on known data, the report,
# and determinism (same seed, same result JSON, timings aside).
# usage: cli_test.sh PATH/TO/infoflow-verify
set -uo pipefail
cli="$1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0; passes=0
py=/usr/bin/python3

expect() {  # expect NAME CODE PATTERN -- command...
  local name="$1" code="$2" pattern="$3"; shift 4
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [[ $rc -ne $code ]] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL $name: exit $rc (expected $code), output: $out"; fails=$((fails+1))
  else
    passes=$((passes+1))
  fi
}

echo '{"broken": ' > "$work/bad.json"
expect "help" 0 "Subcommands" -- "$cli" --help
expect "no subcommand" 2 "error" -- "$cli"
expect "unknown subcommand" 2 "error" -- "$cli" frobnicate
expect "missing weights file" 2 "--weights: cannot open" -- "$cli" eval --weights "$work/nope.json" --inputs "$work/nope.json"
expect "malformed weights" 2 "--weights: .*not valid JSON" -- "$cli" eval --weights "$work/bad.json" --inputs "$work/bad.json"
expect "bad precision" 2 "--precision: expected double, mpfr:BITS or arb:BITS" -- "$cli" eval --weights "$work/bad.json" --inputs "$work/bad.json" --precision quad
expect "bad precision bits" 2 "--precision" -- "$cli" eval --weights "$work/bad.json" --inputs "$work/bad.json" --precision mpfr:abc
expect "bad profile" 2 "--profile: expected quick, full or nightly" -- "$cli" all --profile slow --out "$work/x"
expect "bad threads" 2 "--threads" -- "$cli" all --threads -3 --out "$work/x"
expect "missing csv" 2 "--csv: cannot open" -- "$cli" fit --csv "$work/none.csv"
printf 'x,y\n1,2\n2,oops\n' > "$work/junk.csv"
expect "junk csv" 2 "--csv: line 3" -- "$cli" fit --csv "$work/junk.csv"
printf 'x,y\n1,1\n2,2\n4,4\n' > "$work/ok.csv"
expect "bad band" 2 "--band: expected LO,HI" -- "$cli" fit --csv "$work/ok.csv" --band 3
printf 'x,y\n1,-1\n2,2\n4,4\n' > "$work/neg.csv"
expect "negative y" 2 "--csv: .*positive" -- "$cli" fit --csv "$work/neg.csv"

# fit recovers a known slope (y = 5 x^1.5) and says inconclusive on very noisy data.
$py - "$work" <<'PY'
import math, random, sys
w = sys.argv[1]
with open(w + "/exact.csv", "w") as f:
    f.write("x,y\n")
    for i in range(8):
        x = 10 ** (i / 3); f.write(f"{x!r},{5 * x ** 1.5!r}\n")
random.seed(3)
with open(w + "/noisy.csv", "w") as f:
    f.write("x,y\n")
    for i in range(5):
        x = 10 ** (i / 4); f.write(f"{x!r},{5 * x ** 1.5 * math.exp(random.gauss(0, 2))!r}\n")
PY
expect "fit exact" 0 '"verdict": "pass"' -- "$cli" fit --csv "$work/exact.csv" --band 1.45,1.55
expect "fit noisy" 0 '"verdict": "inconclusive"' -- "$cli" fit --csv "$work/noisy.csv" --band 1.45,1.55

# Determinism: the same seed gives byte-identical result JSON, timings aside.
"$cli" all --seed 11 --out "$work/a" >/dev/null 2>&1; rc_a=$?
"$cli" all --seed 11 --out "$work/b" --threads 1 >/dev/null 2>&1; rc_b=$?
if [[ $rc_a -ne 0 || $rc_b -ne 0 ]]; then echo "FAIL all: exit $rc_a / $rc_b"; fails=$((fails+1)); else passes=$((passes+1)); fi
if $py - "$work/a/results.json" "$work/b/results.json" <<'PY'
import json, sys
def strip(j):
    if isinstance(j, dict): return {k: strip(v) for k, v in j.items() if k not in ("elapsed_seconds", "timings")}
    if isinstance(j, list): return [strip(v) for v in j]
    return j
a, b = (json.dumps(strip(json.load(open(p))), sort_keys=True) for p in sys.argv[1:3])
sys.exit(0 if a == b else 1)
PY
then passes=$((passes+1)); else echo "FAIL determinism: results differ for the same seed"; fails=$((fails+1)); fi
for f in index.html report.md results.json junit.xml; do
  if [[ -s "$work/a/$f" ]]; then passes=$((passes+1)); else echo "FAIL report: $f missing"; fails=$((fails+1)); fi
done
expect "report from results" 0 "report:" -- "$cli" report --results "$work/a" --out "$work/r"
expect "report from missing folder" 2 "--results" -- "$cli" report --results "$work/none" --out "$work/r"

echo "cli: $passes passed, $fails failed"
[[ $fails -eq 0 ]]
