#!/usr/bin/env bash
# scripts/experiments-table lays out a run's own figures: on the committed quick baseline, the (2,2) row carries the
# paper's 5.89e-05 and the run's best-seed and mean NMSE from its table, the effect row carries the check's ratio and
# interval, the triangle table has a row per T, a suite's own result.json gives the same row, a cell holding a pipe or
# a line break stays one cell, an effect entry that is not a measurement reads "-", and a file that is not a
# results.json (no suite, a malformed table) is refused with exit 2 and no partial table.
set -uo pipefail
root="$1"
table="$root/scripts/experiments-table"
quick="$root/reports/baselines/quick.json"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

out=$("$table" "$quick") || fail "exit $? on the quick baseline"
expected=$(/usr/bin/python3 - "$quick" <<'PY'
import json, sys
s = [x for x in json.load(open(sys.argv[1]))["suites"] if x["suite"] == "paper-experiments"][0]
rows = [r for t in s["tables"] if t["title"].startswith("Intrinsic dimension (") for r in t["rows"]]
row = [r for r in rows if r[0] == "2" and r[1] == "(2,2)"][0]
print(f"| 2 | (2,2) | {row[6]} | {row[4]} | {row[3]} |")
PY
)
grep -qF "$expected" <<<"$out" || { echo "$out"; fail "no row starting '$expected'"; }
[[ $(grep -c '^| (2,2,24) | ' <<<"$out") -ge 3 ]] || { echo "$out"; fail "triangle rows missing"; }

# The effect row: the check's ratio, and its interval as exp() of the check's log-interval, from a second reader.
effect=$(/usr/bin/python3 - "$quick" <<'PY'
import json, math, sys
s = [x for x in json.load(open(sys.argv[1]))["suites"] if x["suite"] == "paper-experiments"][0]
c = [c for c in s["checks"] if c["id"] == "experiments.intrinsic-dimension.D2"][0]
first = [x for x in c["measured"]["separation_from_control"] if x["other"] == "(D-1,D)"][0]
lo, hi = (math.exp(v) for v in first["log_ratio_interval"])
print(f"| 2 | {first['effect_ratio_over_control']:.3g}× [{lo:.3g}, {hi:.3g}] |")
PY
)
grep -qF "$effect" <<<"$out" || { echo "$out"; fail "no effect row starting '$effect'"; }

# A suite's own result.json (what `experiments --out DIR` writes).
/usr/bin/python3 - "$quick" "$work/single.json" <<'PY'
import json, sys
suite = [s for s in json.load(open(sys.argv[1]))["suites"] if s["suite"] == "paper-experiments"][0]
json.dump(suite, open(sys.argv[2], "w"))
PY
grep -qF "$expected" <<<"$("$table" "$work/single.json")" || fail "a single suite's result.json lacks '$expected'"

# Hostile cells: a pipe, a line break, a number, NaN.
printf '%s' '{"suite": "paper-experiments", "tables": [{"title": "Intrinsic dimension (x)",
  "columns": ["D", "cell", "paper", "best seed", "NMSE (ours, mean)"],
  "rows": [["2", "(2,2)", "a|b\n`x`", 1e308, NaN]]}]}' > "$work/hostile.json"
row=$("$table" "$work/hostile.json" | grep '^| 2 | (2,2)') || fail "no row for a table with hostile cells"
[[ "$row" == '| 2 | (2,2) | a\|b `x` | 1e+308 | nan |'* ]] || fail "hostile cells not kept in their cells: $row"

# Checks whose separation holds what is not a measurement: text, a boolean, a log bound beyond a double's range, an
# integer beyond a double, the check's own placeholder for fewer than 2 seeds (ratio 0, interval null), a field of the
# wrong shape. Each entry reads "-" or its true value; none crashes the script.
printf '%s' '{"suite": "paper-experiments", "checks": [
  {"id": "experiments.intrinsic-dimension.D4", "verdict": "inconclusive", "measured": {"separation_from_control": [
    {"other": "(D-1,D)", "effect_ratio_over_control": 2, "log_ratio_interval": [-1e308, 1e308], "seeds": 5},
    {"other": "(D,D-1)", "effect_ratio_over_control": 0.0, "log_ratio_interval": [null, null], "seeds": 1}]}},
  {"id": "experiments.intrinsic-dimension.D3", "verdict": "pass", "measured": {"separation_from_control": [
    {"other": "(D-1,D)", "effect_ratio_over_control": "x|y", "log_ratio_interval": ["a", 1], "seeds": 5},
    {"other": "(D,D-1)", "effect_ratio_over_control": true, "log_ratio_interval": [0, 1], "seeds": 5},
    {"other": ["(D,D-1)"], "effect_ratio_over_control": 1, "log_ratio_interval": [0, 1], "seeds": 5}, 7]}},
  {"id": "experiments.intrinsic-dimension.D5", "measured": {"separation_from_control": [{"other": "(D-1,D)",
    "effect_ratio_over_control": 1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000,
    "log_ratio_interval": [0, 1], "seeds": 5}]}},
  {"id": "experiments.intrinsic-dimension.D6", "measured": {"separation_from_control": 7}},
  {"id": 5, "measured": {"separation_from_control": []}}]}' > "$work/hostile-effect.json"
printed=$("$table" "$work/hostile-effect.json") || fail "exit $? on a check with hostile separation fields"
rows=$(grep -E '^\| [0-9] \| ' <<<"$printed")
expected_rows='| 3 | - | 5 | - | 5 | pass |
| 4 | 2× [0, inf] | 5 | - | 1 | inconclusive |
| 5 | - | 5 | - | - | - |'
[[ "$rows" == "$expected_rows" ]] || fail "hostile effect fields: expected
$expected_rows
got
$rows"

echo '{}' > "$work/empty.json"
printf '%s' '{"suite": "paper-experiments", "tables": [{"title": "Triangle centre", "columns": [], "rows": 7}]}' \
  > "$work/malformed.json"
python3 -c 'print("[" * 100000 + "]" * 100000)' > "$work/deep.json"  # beyond Python's recursion limit
for bad in empty malformed deep; do
  printed=$("$table" "$work/$bad.json" 2>/dev/null)
  rc=$?
  [[ $rc -eq 2 && -z "$printed" ]] || fail "$bad.json gave exit $rc (expected 2) and printed '${printed:0:80}'"
done
echo "experiments-table: rows as in the run's tables"
