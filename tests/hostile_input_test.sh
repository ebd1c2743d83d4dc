#!/usr/bin/env bash
# Hostile input (issue 11's reproducers): each must give exit 2 with a message naming the argument
# and the limit, or a correct answer; never a crash (exit >= 128), an internal error (exit 3), a
# hang, a wrapped number or a shell command built from user text.
# usage: hostile_input_test.sh PATH/TO/infoflow-verify
set -uo pipefail
cli="$(realpath "$1")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fails=0; passes=0
py=/usr/bin/python3

# expect NAME CODES PATTERN -- command...   (CODES a regex such as 2 or 0|1; every command gets 60 s,
# a timeout is a failure)
expect() {
  local name="$1" code="$2" pattern="$3"; shift 4
  local out rc
  out=$(timeout 60 "$@" 2>&1); rc=$?
  if [[ ! $rc =~ ^($code)$ ]] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL $name: exit $rc (expected $code), output: ${out:0:600}"; fails=$((fails+1))
  else
    passes=$((passes+1))
  fi
}

# --- no shell: a file name with quotes stays a file name ---
expect "dot name is not a shell command" 0 "bounded-cost plan" -- "$cli" plan --target 'sum_{t} x[t]' --dot "p'; touch pwned; echo '"
if [[ -e pwned ]]; then echo "FAIL shell injection: pwned exists"; fails=$((fails+1)); else passes=$((passes+1)); fi
if [[ -s "p'; touch pwned; echo '" ]]; then passes=$((passes+1)); else echo "FAIL dot file not written under its literal name"; fails=$((fails+1)); fi

# --- numbers that do not fit are errors, never wrapped ---
expect "family product overflow" 2 "--target: column [0-9]+: expected at most 1000000 comparison families in all" -- \
  "$cli" plan --target 'sum_{i=1..65536} sum_{j=1..65536} min_{s,t} dot(x[s],x[t])'
expect "family range too large" 2 "--target: column [0-9]+: expected an integer upper bound .*at most 1000000" -- \
  "$cli" plan --target 'sum_{i=0..2147483647} x[1]'
expect "huge kth rank" 2 "--target: column [0-9]+: expected a whole rank 1 <= k <= 1000000" -- \
  "$cli" plan --target 'kth_largest(99999999999, x[t])'
expect "fractional kth rank" 2 "--target: column [0-9]+: expected a whole rank" -- "$cli" plan --target 'kth_largest(1.5, x[t])'
expect "position too large" 2 "--target: column 3: expected an index name or a position" -- "$cli" plan --target 'x[2147483648]'
expect "long literal" 2 "--target: column 1: expected a number of at most 32 characters" -- \
  "$cli" plan --target "$($py -c "print('1'*400)")"
echo '{"format": "infoflow-verify/weights/1", "d": 4294967298, "E": 6}' > d_wrap.json
echo '{"inputs": [[[0.5, 0.2]]]}' > ok_inputs.json
expect "weights d wraps" 2 "weights d: expected an integer in \[1, 4096\]" -- "$cli" eval --weights d_wrap.json --inputs ok_inputs.json
expect "seed -1" 2 "--seed: expected a whole number" -- "$cli" all --seed -1 --only lemmas --out o

# --- deep nesting: an error, not a stack overflow ---
expect "nested parentheses" 2 "--target: column [0-9]+: expected at most 64 nested terms" -- \
  "$cli" plan --target "$($py -c "print('('*10000+'x[1]'+')'*10000)")"
expect "nested norm" 2 "--target: column [0-9]+: expected at most 64 nested terms" -- \
  "$cli" plan --target "$($py -c "print('norm('*9454+'x[1]'+')'*9454)")"
expect "nested sums" 2 "--target: expected at most 65536 characters" -- \
  "$cli" plan --target "$($py -c "print('sum_{t} '*9000+'x[t]')")"
expect "nested sums (short)" 2 "--target: column [0-9]+: expected at most 64 nested terms" -- \
  "$cli" plan --target "$($py -c "print('sum_{t} '*100+'x[t]')")"
$py -c "print('['*100000 + ']'*100000)" > deep.json
mkdir -p deepres/s && cp deep.json deepres/s/result.json
expect "deep result JSON" 2 "--results: .*nested deeper than 64 levels" -- "$cli" report --results deepres --out rep
truncate -s 5G huge.json  # sparse: takes no disk space
expect "JSON file too large" 2 "--weights: 'huge.json' is 5368709120 bytes; expected a JSON file of at most 4294967296 bytes" -- "$cli" eval --weights huge.json --inputs ok_inputs.json
rm -f huge.json
expect "deep weights JSON" 2 "--weights: .*nested deeper than 64 levels" -- "$cli" eval --weights deep.json --inputs ok_inputs.json

# --- threads: bounded ---
expect "threads 100000" 2 "--threads: expected a thread count between 1 and 256" -- "$cli" all --threads 100000 --out o
expect "threads 2^31-1" 2 "--threads: expected a thread count between 1 and 256" -- "$cli" all --threads 2147483647 --out o

# --- declared shapes are checked against the file before anything is allocated ---
"$cli" thm1 --T 2 --eps 0.1 --fit-T 2 --p 2 --n 1 --class-fit-T 3 --class-fit-p 1 --out w >/dev/null 2>&1
weights=w/weights/thm1-two-layer-d2-T2-eps0.1.json
expect "deep baseline JSON" 2 "--baseline: .*nested deeper than 64 levels" -- "$cli" regress --baseline deep.json --current w
$py - "$weights" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
def variant(name, f):
    a = json.loads(json.dumps(w)); f(a); json.dump(a, open(name, "w"))
variant("E_big.json", lambda a: a.__setitem__("E", 2000000000))
variant("d_pos.json", lambda a: (a.__setitem__("d", 10**6), a.__setitem__("positions", 3)))
variant("Q_rows.json", lambda a: a["layers"][0]["heads"][0].__setitem__("Q", [[] for _ in range(10**6)]))
open("inf_inputs.json", "w").write('{"inputs": [[[1e999, 0.2], [0.1, 0.2]]]}')
open("bad_checkpoint.jsonl", "w").write('{"key": 5, "fingerprint": [], "value": "x"}\n')
PY
expect "E 2e9" 2 "weights E: expected an integer in \[1, 4096\]" -- "$cli" eval --weights E_big.json --inputs ok_inputs.json
expect "d 1e6 with positions" 2 "weights d: expected an integer in \[1, 4096\]" -- "$cli" eval --weights d_pos.json --inputs ok_inputs.json
expect "1e6 empty rows of Q" 2 "weights: the declared shapes need [0-9]+ numbers but the document holds only [0-9]+" -- \
  "$cli" eval --weights Q_rows.json --inputs ok_inputs.json

# --- plain bad input is exit 2 naming the argument, not exit 3 ---
expect "1e999 in inputs" 2 "--inputs: .*not valid JSON .*number overflow" -- "$cli" eval --weights "$weights" --inputs inf_inputs.json
expect "inputs is a folder" 2 "--inputs: '/' is not a regular file" -- "$cli" eval --weights "$weights" --inputs /
touch FILE
expect "out under a file" 2 "--out: cannot create the folder 'FILE/x'" -- "$cli" all --only lemmas --out FILE/x
expect "empty out" 2 "--out: expected a folder name" -- "$cli" all --only lemmas --out ''
expect "dot under /dev/null" 2 "--dot: cannot create the folder '/dev/null'" -- "$cli" plan --target 'x[1]' --dot /dev/null/p.dot
expect "results from an empty tree" 2 "--results: no result.json found" -- "$cli" report --results "$(mktemp -d)" --out rep3
expect "duplicate T" 2 "--T: expected distinct values, got 2 twice" -- "$cli" thm1 --T 2,2 --out o
expect "duplicate E" 2 "--E: expected distinct values, got 2 twice" -- "$cli" thm3 --E 2,2 --out o
printf 'x,y\n1e-320,1\n2,2\n4,3\n8,3.5\n' > subnormal.csv
expect "subnormal in csv is a number" 0 '"slope"' -- "$cli" fit --csv subnormal.csv
printf 'x,y\n1,1\n2,inf\n' > inf.csv
expect "inf in csv" 2 "--csv: line 3: expected finite numbers" -- "$cli" fit --csv inf.csv

# --- a checkpoint line of valid JSON but the wrong types is skipped, not an internal error ---
small=(thm1 --T 2 --eps 0.1 --fit-T 2 --p 2 --n 1 --class-fit-T 3 --class-fit-p 1)
# (The real checkpoint names; a fingerprint cannot be forged here, so the record-level case, a valid line
# whose value has the wrong types, is tested in test_sweep.cpp.)
mkdir -p ck && for f in construction thm1-single-layer-fits thm1-witnesses thm1-class-fits thm1-class-fit-errors; do cp bad_checkpoint.jsonl "ck/$f.checkpoint.jsonl"; done
expect "wrong-typed checkpoint line" "0|1" "result:" -- "$cli" "${small[@]}" --out ck

# --- a ball too wide to be finite is an answer with a hint, not an internal error ---
$py -c "
import json, random
random.seed(7)
json.dump({'inputs': [[[random.random()*1e6, random.random()*1e6] for _ in range(1000)]]}, open('long_inputs.json', 'w'))"
expect "arb:16 on 1000 tokens" 0 '"(precision_too_low|rad)"' -- "$cli" eval --weights "$weights" --inputs long_inputs.json --precision arb:16

# --- cubic printing is gone, and long sums are bounded (a left-deep tree is walked recursively) ---
start=$(date +%s%N)
expect "500 terms" 0 "comparison structure" -- "$cli" plan --target "$($py -c "print('+'.join(['x[1]']*500))")"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
if (( ms < 5000 )); then passes=$((passes+1)); else echo "FAIL 500 terms took ${ms} ms"; fails=$((fails+1)); fi
expect "4000 terms" 2 "--target: column [0-9]+: expected at most 512 \\+ and - operators in a target" -- \
  "$cli" plan --target "$($py -c "print('+'.join(['x[1]']*4000))")"
# Nesting times chain length: 40 levels of 511-term sums stayed within both earlier limits and overflowed the stack.
expect "nested long sums" 2 "--target: column [0-9]+: expected at most 512 \\+ and - operators" -- \
  "$cli" plan --target "$($py -c "
s = '1'
for _ in range(40): s = '(' + s + '+1' * 511 + ')'
print(s)")"
start=$(date +%s%N)
expect "large plan search" 2 "--heads: the plan search exceeds 500000 states" -- \
  "$cli" plan --target 'sum_{i=1..10} max_{s,t} bil_i(x[s],x[t])' --E 24 --d 4 --layers 3 --heads 64,64,64
ms=$(( ($(date +%s%N) - start) / 1000000 ))
if (( ms < 30000 )); then passes=$((passes+1)); else echo "FAIL large plan search took ${ms} ms"; fails=$((fails+1)); fi
expect "300 layers" 2 "--layers: expected 1 <= layers <= 64" -- "$cli" plan --target 'x[1]' --layers 300

# --- concurrent runs: the second waits for nothing, it exits 2 naming --out ---
"$cli" thm1 --T 2,3 --eps 0.1,0.01 --fit-T 2,3 --p 2,4 --n 1 --class-fit-T 3 --class-fit-p 1 --out shared-out >/dev/null 2>&1 &
first=$!
for _ in $(seq 1 100); do [[ -e shared-out/.infoflow-lock ]] && break; sleep 0.05; done
expect "second run on one --out" 2 "--out: another infoflow-verify run is writing to 'shared-out'" -- \
  "$cli" thm1 --T 2,3 --eps 0.1,0.01 --fit-T 2,3 --p 2,4 --n 1 --class-fit-T 3 --class-fit-p 1 --out shared-out
wait $first; rc=$?
if [[ $rc -le 1 ]]; then passes=$((passes+1)); else echo "FAIL first run exit $rc"; fails=$((fails+1)); fi
if find shared-out -name '*.tmp*' | grep -q .; then echo "FAIL temporary files left behind"; fails=$((fails+1)); else passes=$((passes+1)); fi

echo "hostile input: $passes passed, $fails failed"
[[ $fails -eq 0 ]]
