#!/usr/bin/env bash
# scripts/experiments-table lays out a run's own figures: on the committed quick baseline, the (2,2) row carries the
# paper's 5.89e-05 and the run's best-seed and mean NMSE from its table, the triangle table has a row per T, and a
# file that is not a results.json is refused with exit 2.
set -uo pipefail
root="$1"
out=$("$root/scripts/experiments-table" "$root/reports/baselines/quick.json") || { echo "FAIL: exit $?"; exit 1; }
expected=$(/usr/bin/python3 - "$root/reports/baselines/quick.json" <<'PY'
import json, sys
s = [x for x in json.load(open(sys.argv[1]))["suites"] if x["suite"] == "paper-experiments"][0]
rows = [r for t in s["tables"] if t["title"].startswith("Intrinsic dimension (") for r in t["rows"]]
row = [r for r in rows if r[0] == "2" and r[1] == "(2,2)"][0]
print(f"| 2 | (2,2) | {row[6]} | {row[4]} | {row[3]} |")
PY
)
grep -qF "$expected" <<<"$out" || { echo "FAIL: no row starting '$expected' in:"; echo "$out"; exit 1; }
[[ $(grep -c '^| (2,2,24) | ' <<<"$out") -ge 3 ]] || { echo "FAIL: triangle rows missing"; echo "$out"; exit 1; }
# A suite's own result.json (what `experiments --out DIR` writes) gives the same row.
single="${TMPDIR:-/tmp}/experiments-table-single.json"
/usr/bin/python3 -c 'import json, sys; json.dump([s for s in json.load(open(sys.argv[1]))["suites"] if s["suite"] == "paper-experiments"][0], open(sys.argv[2], "w"))' \
  "$root/reports/baselines/quick.json" "$single"
out_single=$("$root/scripts/experiments-table" "$single")
rm -f "$single"
grep -qF "$expected" <<<"$out_single" || { echo "FAIL: a single suite's result.json lacks '$expected'"; exit 1; }
echo '{}' > "${TMPDIR:-/tmp}/experiments-table-empty.json"
"$root/scripts/experiments-table" "${TMPDIR:-/tmp}/experiments-table-empty.json" >/dev/null 2>&1
rc=$?
rm -f "${TMPDIR:-/tmp}/experiments-table-empty.json"
[[ $rc -eq 2 ]] || { echo "FAIL: a results.json without the suite gave exit $rc, expected 2"; exit 1; }
echo "experiments-table: rows as in the run's tables"
