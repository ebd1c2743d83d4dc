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
expect "unknown subcommand" 2 "unknown subcommand 'frobnicate' \(expected one of: all, eval" -- "$cli" frobnicate
expect "unknown subcommand after a global option" 2 "unknown subcommand 'thm9'" -- "$cli" --seed 3 thm9
expect "version" 0 "^infoflow-verify [0-9]+\.[0-9]+\.[0-9]+ \(commit [0-9a-z-]+\)" -- "$cli" --version
# Every subcommand's help names the global options.
for sub in all eval bound certify check-certificate fit report regress plan mutants lemmas thm1 thm2 thm3 framework experiments; do
  expect "help of $sub lists the global options" 0 "Global options \(before or after the subcommand\): --seed N, --profile" -- "$cli" "$sub" --help
done
expect "per-suite executable names itself" 0 "^Usage: thm1-depth-separation \[OPTIONS\]" -- "$(dirname "$cli")/thm1-depth-separation" --help
expect "plan without --heads: one head per layer" 0 "cost exponent" -- "$cli" plan --target "min_{s,t} dot(x[s], x[t])" --layers 1 --d 2 --E 6 --T 8
expect "missing weights file" 2 "--weights: cannot open" -- "$cli" eval --weights "$work/nope.json" --inputs "$work/nope.json"
expect "malformed weights" 2 "--weights: .*not valid JSON" -- "$cli" eval --weights "$work/bad.json" --inputs "$work/bad.json"
expect "bad precision" 2 "--precision: expected double, mpfr:BITS or arb:BITS" -- "$cli" eval --weights "$work/bad.json" --inputs "$work/bad.json" --precision quad
expect "bad precision bits" 2 "--precision" -- "$cli" eval --weights "$work/bad.json" --inputs "$work/bad.json" --precision mpfr:abc
expect "bad profile" 2 "--profile: expected quick, full or nightly" -- "$cli" all --profile slow --out "$work/x"
expect "bad threads" 2 "--threads" -- "$cli" all --threads -3 --out "$work/x"
# --adopt-build takes a commit stamp of another build, for the commands that keep checkpoints.
own_build=$("$cli" --version | sed -n 's/.*(commit \(.*\))$/\1/p')
expect "adopt-build not a stamp" 2 "--adopt-build: expected a build's commit stamp" -- "$cli" all --only lemmas --adopt-build '../x' --out "$work/x"
expect "adopt-build of this build" 2 "--adopt-build: '$own_build' is this build" -- "$cli" all --only lemmas --adopt-build "$own_build" --out "$work/x"
expect "adopt-build of a 14-digit stamp (git's short hash grows when 12 are ambiguous)" 0 "suite 1/1: running lemmas" -- "$cli" all --only lemmas --adopt-build 0123456789abcd --out "$work/adopt"
expect "adopt-build without checkpoints" 2 "--adopt-build: only .all. and the suite commands" -- "$cli" plan --target "min_{s,t} dot(x[s], x[t])" --layers 1 --d 2 --E 6 --T 8 --adopt-build 0123456789ab
# eval on exported weights: a bad input value or token shape names the input's path.
"$cli" thm1 --T 2 --eps 0.1 --fit-T 2 --p 2 --n 1 --class-T 4 --class-fit-T 3 --class-fit-p 1,2 --out "$work/w" >/dev/null 2>&1
weights="$work/w/weights/thm1-two-layer-d2-T2-eps0.1.json"
echo '{"inputs": [[[0.1, 0.2], [0.3, "abc"]]]}' > "$work/in_bad.json"
echo '{"inputs": [[[0.1, 0.2], [0.3]]]}' > "$work/in_shape.json"
echo '{"tokens": []}' > "$work/in_key.json"
echo '{"inputs": [[[0.1, 0.2], [0.3, 0.9]]]}' > "$work/in_ok.json"
# bound: a single-layer model against the certified class bounds; two layers and bad requests exit 2.
single="$work/w/weights/thm1-single-min-dot_T_2_n_1-p2.json"
expect "bound fitted model" 0 "consistent with the class bounds" -- "$cli" bound --weights "$single" --T 4
expect "bound json" 0 '"respects_class_bounds": true' -- "$cli" bound --weights "$single" --T 4 --json
expect "bound two layers" 2 "--weights: the class bound speaks of single-layer models" -- "$cli" bound --weights "$weights" --T 4
expect "bound bad T" 2 "--T: expected 3 <= T <= 12" -- "$cli" bound --weights "$single" --T 99
expect "bound bad target" 2 "--target: expected min-dot or kth" -- "$cli" bound --weights "$single" --T 4 --target max
expect "bound kth needs d=1" 2 "--weights: kth takes scalar tokens" -- "$cli" bound --weights "$single" --T 4 --target kth --k 2
expect "certify two-layer" 4 "certified over the whole box" -- "$cli" certify --weights "$weights" --target 'min_{s,t} dot(x[s], x[t])' --T 2 --max-boxes 200
expect "certify json" 4 '"sup_error_upper"' -- "$cli" certify --weights "$weights" --target 'min_{s,t} dot(x[s], x[t])' --T 2 --max-boxes 50 --json
expect "certify unspecified function" 2 "--target: column .*unspecified function" -- "$cli" certify --weights "$weights" --target 'min_{s,t} bil_1(x[s], x[t])' --T 2
expect "certify bad box" 2 "--box: expected LO,HI" -- "$cli" certify --weights "$weights" --target 'min_{s,t} dot(x[s], x[t])' --T 2 --box 1
expect "certify wrong d" 2 "--d: the model's tokens have d = 2" -- "$cli" certify --weights "$weights" --target 'max_{t} norm(x[t])' --T 2 --d 3
expect "certify execution double" 4 "rounding of the double forward pass <=" -- "$cli" certify --weights "$weights" --target 'min_{s,t} dot(x[s], x[t])' --T 2 --max-boxes 100 --execution double
expect "certify rounding observed" 4 "rounding observed >=" -- "$cli" certify --weights "$weights" --target 'min_{s,t} dot(x[s], x[t])' --T 2 --max-boxes 100 --execution double --rounding-boxes 16
expect "certify bad rounding boxes" 2 "--rounding-boxes: expected 1 <= N <= 1e7" -- "$cli" certify --weights "$weights" --target 'min_{s,t} dot(x[s], x[t])' --T 2 --execution double --rounding-boxes 0
expect "certify bad execution" 2 "--execution: expected real or double" -- "$cli" certify --weights "$weights" --target 'min_{s,t} dot(x[s], x[t])' --T 2 --execution float
"$cli" certify --weights "$weights" --target 'min_{s,t} dot(x[s], x[t])' --T 2 --max-boxes 100 --checkpoint "$work/bnb.json" >/dev/null 2>&1
expect "certify resumes" 4 "resumed from a checkpoint" -- "$cli" certify --weights "$weights" --target 'min_{s,t} dot(x[s], x[t])' --T 2 --max-boxes 200 --checkpoint "$work/bnb.json"
expect "certify foreign checkpoint" 2 "--checkpoint: the checkpoint .* belongs to another model, target, box or build" -- "$cli" certify --weights "$weights" --target 'max_{t} norm(x[t])' --T 2 --checkpoint "$work/bnb.json"
echo '{"schema": 1}' > "$work/bnb_bad.json"
expect "certify malformed checkpoint" 2 "--checkpoint" -- "$cli" certify --weights "$weights" --target 'max_{t} norm(x[t])' --T 2 --checkpoint "$work/bnb_bad.json"
expect "certify big T" 2 "--T: expected 1 <= T <= 64" -- "$cli" certify --weights "$weights" --target 'max_{t} norm(x[t])' --T 100
# certify: exit 0 when the gap is reached; a proof certificate that check-certificate verifies (0), refuses when
# altered (1), and refuses as input when it is about another model (2).
expect "certify reaches the gap" 0 "requested gap reached" -- "$cli" certify --weights "$weights" --target 'min_{s,t} dot(x[s], x[t])' --T 1 --certificate "$work/cert.json"
expect "certify's certificate verified" 0 "verified by the independent checker" -- "$cli" certify --weights "$weights" --target 'min_{s,t} dot(x[s], x[t])' --T 1 --certificate "$work/cert.json"
expect "check-certificate" 0 "VERIFIED" -- "$cli" check-certificate "$work/cert.json" --weights "$weights" --threads 2
$py - "$work/cert.json" "$work/cert_low.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["claim"]["sup_error_upper"] = c["claim"]["sup_error_lower"]; json.dump(c, open(sys.argv[2], "w"))
PY
expect "check-certificate altered claim" 1 "NOT VERIFIED" -- "$cli" check-certificate "$work/cert_low.json" --weights "$weights"
expect "check-certificate out of time" 4 "NOT DECIDED: the time budget ran out" -- "$cli" check-certificate "$work/cert.json" --weights "$weights" --budget 1e-9
expect "check-certificate bad budget" 2 "--budget: expected 0 < S <= 86400" -- "$cli" check-certificate "$work/cert.json" --weights "$weights" --budget -3
expect "check-certificate other model" 2 "--weights: the certificate is about another model" -- "$cli" check-certificate "$work/cert.json" --weights "$single"
cp "$weights" "$work/w_copy.json"
expect "certificate over the weights" 2 "--certificate: is the same file as --weights" -- "$cli" certify --weights "$work/w_copy.json" --target 'min_{s,t} dot(x[s], x[t])' --T 1 --certificate "$work/w_copy.json"
expect "check-certificate names its box" 0 "box: \[0, 1\]\^2" -- "$cli" check-certificate "$work/cert.json" --weights "$weights"
expect "check-certificate not one" 2 "certificate: expected a document" -- "$cli" check-certificate "$work/in_ok.json" --weights "$weights"
expect "check-certificate says what it covers" 0 "covers: the real-number function the weights define" -- "$cli" check-certificate "$work/cert.json" --weights "$weights"
# execution: a real-number certificate edited to claim the float64 execution carries no rounding bound: not verified.
$py - "$work/cert.json" "$work/cert_double.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["problem"]["execution"] = "double"; json.dump(c, open(sys.argv[2], "w"))
PY
expect "check-certificate execution edited to double" 1 "float64 execution NOT VERIFIED: execution double, but no float64_rounding" -- "$cli" check-certificate "$work/cert_double.json" --weights "$weights"
# A certificate of the float64 execution carries its rounding bound, which the checker derives again; lowered, refused.
expect "certify double with a certificate" 0 "verified by the independent checker" -- "$cli" certify --weights "$weights" --target 'min_{s,t} dot(x[s], x[t])' --T 1 --execution double --rounding-boxes 8 --certificate "$work/cert_f64.json"
expect "check-certificate double" 0 "float64 rounding derived again: .* so sup \|model_double - F\| <=" -- "$cli" check-certificate "$work/cert_f64.json" --weights "$weights"
$py - "$work/cert_f64.json" "$work/cert_f64_low.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["float64_rounding"]["bound"] /= 2; json.dump(c, open(sys.argv[2], "w"))
PY
expect "check-certificate double, rounding lowered" 1 "float64 execution NOT VERIFIED: the rounding bound derived again" -- "$cli" check-certificate "$work/cert_f64_low.json" --weights "$weights"
# --box: a per-coordinate box (T*d numbers each side), refused with the count it expected.
expect "certify per-coordinate box" 0 "box \[0.5, 1\] x \[0, 0.25\]" -- "$cli" certify --weights "$weights" --target 'min_{s,t} dot(x[s], x[t])' --T 1 --box 0.5,0,1,0.25
expect "certify box of the wrong size" 2 "--box: expected LO,HI \(a cube\) or 2 lower ends then 2 upper ends" -- "$cli" certify --weights "$weights" --target 'min_{s,t} dot(x[s], x[t])' --T 1 --box 0,0,0,1,1,1
expect "certify box with a terminal escape" 2 'got .0,\\x1B\[31m' -- "$cli" certify --weights "$weights" --target 'min_{s,t} dot(x[s], x[t])' --T 1 --box $'0,\x1b[31m'
# certify-soundness: a few triples, none unsound; bad sizes are refused.
expect "certify-soundness" 0 "unsound: 0 of 3" -- "$cli" certify-soundness --triples 3 --threads 2
expect "certify-soundness bad size" 2 "--triples: expected 1 <= N <= 100000" -- "$cli" certify-soundness --triples 0
expect "bound bad class-T" 2 "--class-T" -- "$cli" thm1 --class-T 40 --out "$work/ct"
expect "eval bad value" 2 '--inputs inputs\[0\]\[1\]\[1\]: expected a decimal number' -- "$cli" eval --weights "$weights" --inputs "$work/in_bad.json"
expect "eval bad shape" 2 '--inputs inputs\[0\]\[1\]: expected a token of dimension d = 2' -- "$cli" eval --weights "$weights" --inputs "$work/in_shape.json"
expect "eval missing key" 2 '--inputs: expected an object with the key' -- "$cli" eval --weights "$weights" --inputs "$work/in_key.json"
expect "eval arb" 0 '"rad"' -- "$cli" eval --weights "$weights" --inputs "$work/in_ok.json" --precision arb:128
# The weights were certified at T = 2 on [0,1]^4: three tokens, or a value outside the box, are outside it.
echo '{"inputs": [[[0.1, 0.2], [0.3, 0.9], [0.5, 0.5]], [[0.1, 0.2], [0.3, 1.5]], [[0.1, 0.2], [0.3, 0.4]]]}' > "$work/in_outside.json"
expect "eval outside the certified domain" 0 "warning: 2 input\(s\) lie outside the certified domain \(T = 2" -- \
  "$cli" eval --weights "$weights" --inputs "$work/in_outside.json"
names=$("$cli" eval --weights "$weights" --inputs "$work/in_outside.json" 2>/dev/null | $py -c "import json,sys; print(json.load(sys.stdin)['outside_certified_domain'])")
if [[ "$names" == "[0, 1]" ]]; then passes=$((passes+1)); else echo "FAIL eval names the inputs outside: $names"; fails=$((fails+1)); fi
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
expect "fit exact" 0 '"verdict": "pass"' -- "$cli" fit --csv "$work/exact.csv" --band 1.45,1.55 --json
expect "fit noisy" 0 '"verdict": "inconclusive"' -- "$cli" fit --csv "$work/noisy.csv" --band 1.45,1.55 --json
expect "fit table" 0 "band \[1\.45, 1\.55\]: verdict pass" -- "$cli" fit --csv "$work/exact.csv" --band 1.45,1.55
expect "fit outside its band exits 1" 1 "verdict fail" -- "$cli" fit --csv "$work/exact.csv" --band 1.9,2.1

# Determinism: the same seed gives byte-identical result JSON, timings aside.
"$cli" all --only lemmas --seed 11 --out "$work/a" >/dev/null 2>&1; rc_a=$?
"$cli" all --only lemmas --seed 11 --out "$work/b" --threads 1 >/dev/null 2>&1; rc_b=$?
if [[ $rc_a -ne 0 || $rc_b -ne 0 ]]; then echo "FAIL all: exit $rc_a / $rc_b"; fails=$((fails+1)); else passes=$((passes+1)); fi
# same_results A B: the two result files are identical once timings are removed.
same_results() {
  $py - "$1" "$2" <<'PY'
import json, sys
def strip(j):
    if isinstance(j, dict): return {k: strip(v) for k, v in j.items() if k not in ("elapsed_seconds", "timings")}
    if isinstance(j, list): return [strip(v) for v in j]
    return j
a, b = (json.dumps(strip(json.load(open(p))), sort_keys=True) for p in sys.argv[1:3])
sys.exit(0 if a == b else 1)
PY
}
if same_results "$work/a/results.json" "$work/b/results.json"; then passes=$((passes+1)); else echo "FAIL determinism: results differ for the same seed"; fails=$((fails+1)); fi
for f in index.html report.md results.json junit.xml; do
  if [[ -s "$work/a/$f" ]]; then passes=$((passes+1)); else echo "FAIL report: $f missing"; fails=$((fails+1)); fi
done
expect "unknown suite" 2 "--only: unknown suite 'nope'" -- "$cli" all --only nope --out "$work/x"
expect "unknown skipped suite" 2 "--skip: unknown suite 'nope'" -- "$cli" all --skip nope --out "$work/x"
expect "only and skip" 2 "--skip: expected either --only or --skip" -- "$cli" all --only lemmas --skip thm1 --out "$work/x"
expect "skip every suite" 2 "--skip: expected at least one suite left" -- "$cli" all --skip lemmas,thm1,thm2,thm3,framework,experiments --out "$work/x"
# A baseline this build cannot read is refused before any suite runs (not after hours of work).
expect "all with an unreadable baseline" 2 "--baseline: cannot open" -- "$cli" all --only lemmas --baseline "$work/none.json" --out "$work/x"
if "$cli" all --only lemmas --baseline "$work/none.json" --out "$work/x" 2>&1 | grep -q "running lemmas"; then
  echo "FAIL all with an unreadable baseline: a suite ran first"; fails=$((fails+1)); else passes=$((passes+1)); fi
# --skip leaves the named suites out (aliases too) and runs the rest: here lemmas alone.
expect "skip" 0 "suite 1/1: running lemmas" -- "$cli" all --skip thm1,thm2,thm3,framework,experiments --out "$work/skip"
# Off a terminal, every progress line carries a UTC time stamp and where the run stands among the suites.
expect "log lines" 0 "^20[0-9-]+T[0-9:]+Z \[all\] suite 1/1: running lemmas" -- "$cli" all --only lemmas --out "$work/logs"
expect "report from results" 0 "report:" -- "$cli" report --results "$work/a" --out "$work/r"
expect "report from missing folder" 2 "--results" -- "$cli" report --results "$work/none" --out "$work/r"

# Theorem 1: bad arguments exit 2 naming the argument.
expect "thm1 eps 0" 2 "--eps: expected comma-separated numbers strictly between 0 and 1" -- "$cli" thm1 --eps 0 --out "$work/x"
expect "thm1 eps 1" 2 "--eps" -- "$cli" thm1 --eps 0.1,1 --out "$work/x"
expect "thm1 d 0" 2 "--d: expected comma-separated integers >= 1" -- "$cli" thm1 --d 0 --out "$work/x"
expect "thm1 T 0" 2 "--T: expected" -- "$cli" thm1 --T 0 --out "$work/x"
expect "thm1 p 0" 2 "--p: expected" -- "$cli" thm1 --p 0 --out "$work/x"
expect "thm1 fit-T junk" 2 "--fit-T: expected" -- "$cli" thm1 --fit-T 2,x --out "$work/x"
expect "thm1 d 1 is no separation" 2 "--d: expected d >= 2 .*--d1-control yes" -- "$cli" thm1 --d 1 --out "$work/x"
expect "thm1 d1-control junk" 2 "--d1-control: expected yes" -- "$cli" thm1 --d 1 --d1-control maybe --out "$work/x"
# Decoding from the CLS state is priced against (n+1)·(heads) numbers (here 2 layers × 1 head × 2): 0.25·T − 1,
# negative at T = 2 before the clamp.
expect "plan exponent never negative" 0 "max\(0, 0.25\*T - 1\) \(0.000000 at T = 2\)" -- "$cli" plan --target 'min_{t1,t2,t3} norm(x[t1]+x[t2]+x[t3])' --T 2

# regress: an unchanged rerun with the same seed passes; a moved exponent and a flipped check are named.
expect "regress unchanged" 0 "0 regression\(s\)" -- "$cli" regress --baseline "$work/a/results.json" --current "$work/b"
cp -r "$work/b" "$work/perturbed"
$py - "$work/perturbed/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["suites"][0]
for se in s["series"]:
    if se["fit"] is not None:
        se["fit"]["slope"] += 1.0
        se["fit"]["interval"] = [x + 1.0 for x in se["fit"]["interval"]]
        break
s["checks"][0]["verdict"] = "fail"
json.dump(d, open(sys.argv[1], "w"))
PY
expect "regress moved exponent" 1 "REGRESSED exponent" -- "$cli" regress --baseline "$work/a/results.json" --current "$work/perturbed"
expect "regress flipped check" 1 "REGRESSED verdict +lemmas +L1.sup-closed-form +pass +fail" -- "$cli" regress --baseline "$work/a/results.json" --current "$work/perturbed"
if grep -q "<failure" "$work/perturbed/regress-junit.xml"; then passes=$((passes+1)); else echo "FAIL regress junit has no failure"; fails=$((fails+1)); fi
# Both JUnit files follow the common schema CI servers read (tests/junit_schema.xsd; xmllint from libxml2-utils).
schema="$(dirname "$0")/junit_schema.xsd"
for f in "$work/a/junit.xml" "$work/perturbed/regress-junit.xml"; do
  expect "junit schema: $(basename "$f")" 0 "validates" -- xmllint --noout --schema "$schema" "$f"
done
$py - "$work/a/results.json" "$work/otherprofile.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["suites"]:
    s["profile"] = "nightly"
json.dump(d, open(sys.argv[2], "w"))
PY
expect "regress across profiles is refused" 2 "profile 'quick', the baseline .* with 'nightly'" -- "$cli" regress --baseline "$work/otherprofile.json" --current "$work/a"
expect "regress --json" 1 '"regressions": [1-9]' -- "$cli" regress --baseline "$work/a/results.json" --current "$work/perturbed" --json
expect "regress bad baseline" 2 "--baseline: cannot open" -- "$cli" regress --baseline "$work/none.json" --current "$work/b"
expect "regress update" 0 "baseline written" -- "$cli" regress --baseline "$work/newbase.json" --current "$work/b" --update-baseline

# Theorem 2: bad arguments.
expect "thm2 k 0" 2 "--k: expected comma-separated integers >= 1" -- "$cli" thm2 --k 0 --out "$work/x"
expect "thm2 k > T" 2 "--k: expected k <= T" -- "$cli" thm2 --k 4 --T 3 --out "$work/x"
expect "thm2 eps" 2 "--eps" -- "$cli" thm2 --eps -1 --out "$work/x"

# Theorem 3: bad arguments.
expect "thm3 T0 0" 2 "--T0: expected comma-separated integers >= 1" -- "$cli" thm3 --T0 0 --out "$work/x"
expect "thm3 E 0" 2 "--E: expected" -- "$cli" thm3 --E 0 --out "$work/x"
expect "thm3 eps" 2 "--eps: expected comma-separated numbers strictly between 0 and 0.333" -- "$cli" thm3 --eps 0.5 --out "$work/x"

# The paper's experiments: bad arguments exit 2 before any training.
expect "experiments D 1" 2 "--D: expected comma-separated integers >= 2" -- "$cli" experiments --D 1 --out "$work/x"
expect "experiments id-T 65" 2 "--id-T: expected one integer in" -- "$cli" experiments --id-T 65 --out "$work/x"
expect "experiments triangle-T 2" 2 "--triangle-T" -- "$cli" experiments --triangle-T 2 --out "$work/x"
expect "experiments lr" 2 "--lr" -- "$cli" experiments --lr 0 --out "$work/x"

# plan: a plan for Theorem 1's target, and malformed targets/architectures exit 2 naming the problem.
expect "plan thm1" 0 "bounded-cost plan" -- "$cli" plan --target 'min_{s,t} dot(x[s], x[t])' --layers 2 --heads 1,1 --E 6 --T 64 --d 2
expect "plan json" 0 '"bounded": true' -- "$cli" plan --target 'min_{s,t} dot(x[s], x[t])' --layers 2 --heads 1,1 --json
expect "plan unbalanced" 2 "--target: column 10: expected '}'" -- "$cli" plan --target 'min_{s,t dot(x[s], x[t])'
expect "plan unknown function" 2 "--target: column 1: expected .*known function" -- "$cli" plan --target 'frob(x[1])'
expect "plan heads short" 2 "--heads: expected one head count per layer" -- "$cli" plan --target 'x[1]' --layers 3 --heads 1,1
expect "plan T" 2 "--T: expected a sequence length" -- "$cli" plan --target 'x[1]' --T 0

# Theorem 1 is resumable: kill it mid-sweep, rerun, and the result equals an uninterrupted run.
small=(thm1 --seed 5 --T 2,4 --eps 0.1,0.01,0.001 --fit-T 2,3 --p 2,4 --n 1 --class-T 5 --class-fit-T 3 --class-fit-p 1,2)
"$cli" "${small[@]}" --out "$work/fresh" >/dev/null 2>&1
"$cli" "${small[@]}" --out "$work/killed" --threads 1 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  [[ -s "$work/killed/single-layer-fits.checkpoint.jsonl" ]] && break
  sleep 0.1
done
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
before=$(cat "$work/killed"/*.checkpoint.jsonl 2>/dev/null | wc -l)
out=$("$cli" "${small[@]}" --out "$work/killed" 2>&1); rc=$?
after=$(cat "$work/killed"/*.checkpoint.jsonl | wc -l)
if [[ $rc -ne 1 && $rc -ne 0 ]] || [[ $after -lt $before ]] || ! grep -q "resuming" <<<"$out"; then
  echo "FAIL resume: rc $rc, checkpoint lines $before -> $after, output: $out"; fails=$((fails+1))
else passes=$((passes+1)); fi
if same_results "$work/fresh/result.json" "$work/killed/result.json"; then passes=$((passes+1)); else echo "FAIL resume determinism: resumed result differs from a fresh run"; fails=$((fails+1)); fi
if $py -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if all(c['verdict']=='pass' for c in d['checks'] if c['id'].startswith('construction.')) else 1)" "$work/fresh/result.json"; then
  passes=$((passes+1)); else echo "FAIL thm1 construction checks did not all pass"; fails=$((fails+1)); fi

# An FFN readout of the triangle's models reaches every name the report gives them: the cells, the check (and its
# control's) and the training curve, not only the architecture (a series rebuilt without it once dropped it).
"$cli" experiments --profile quick --steps 20 --train-samples 64 --construction-arm 0 --triangle-readout-width 8 \
  --threads 2 --out "$work/ro8" >/dev/null 2>&1
if $py -c "
import json, sys
d = json.load(open(sys.argv[1]))
ids = {c['id'] for c in d['checks']}
text = json.dumps(d)
want = ['experiments.triangle-centre.(2,2,24,ro8)', 'experiments.triangle-centre.(2,2,24,ro8).control']
sys.exit(0 if all(w in ids for w in want) and 'experiments.triangle-centre.(2,2,24)' not in ids
         and 'triangle-curve-2-2-24-ro8' in text else 1)" "$work/ro8/result.json"; then
  passes=$((passes+1)); else echo "FAIL --triangle-readout-width: the report does not name the readout everywhere"; fails=$((fails+1)); fi

echo "cli: $passes passed, $fails failed"
[[ $fails -eq 0 ]]
