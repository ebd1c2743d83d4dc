#!/usr/bin/env bash
# A stale baseline fails CI: a fresh run of `all --profile quick` must pass (no failed check) and match the
# committed reports/baselines/quick.json under `regress` (no exponent moved beyond its intervals, no verdict
# lost, no certified bound looser). After a reviewed, intended change of results, refresh it with
#   build/verify/infoflow-verify all --profile quick --out DIR
#   build/verify/infoflow-verify regress --baseline reports/baselines/quick.json --current DIR --update-baseline
#
# The test runs one process with one thread (the baseline is written with two: the same figures by design, so the
# run checks the thread count's independence too). Given an MPI executable and mpirun it runs under 3 ranks instead.
# usage: quick_baseline_test.sh PATH/TO/infoflow-verify PATH/TO/quick.json [PATH/TO/infoflow-verify-mpi MPIRUN]
set -uo pipefail
cli="$(realpath "$1")"
baseline="$(realpath "$2")"
mpi_cli="${3:-}"
mpirun="${4:-}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -n "$mpi_cli" && -n "$mpirun" ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  export OMPI_MCA_mpi_yield_when_idle=1  # idle ranks yield the core: the tests share 2 cores
  echo "quick run under MPI: mpirun -np 3 $(basename "$mpi_cli") all --profile quick --threads 1"
  "$mpirun" -np 3 "$mpi_cli" all --profile quick --threads 1 --out "$work/run" >"$work/all.log" 2>&1
else
  "$cli" all --profile quick --threads 1 --out "$work/run" >"$work/all.log" 2>&1
fi
rc=$?
if [[ $rc -ne 0 ]]; then
  echo "FAIL: all --profile quick exited $rc"
  tail -20 "$work/all.log"
  exit 1
fi
"$cli" regress --baseline "$baseline" --current "$work/run" >"$work/regress.log" 2>&1
rc=$?
tail -3 "$work/regress.log"
if [[ $rc -ne 0 ]]; then
  grep -E "REGRESSED|error" "$work/regress.log"
  echo "FAIL: results moved against reports/baselines/quick.json (stale baseline, or a regression)"
  exit 1
fi
# Beyond regress's tolerances: a fresh run is the baseline exactly, timings, commands and build stamps aside (same
# seed, same report). The MPI test compares its quick run with the same file.
if ! /usr/bin/python3 "$(dirname "$0")/same_results.py" "$work/run/results.json" "$baseline"
then
  echo "FAIL: a fresh quick run differs from reports/baselines/quick.json beyond timings (stale baseline, or a nondeterminism)"
  exit 1
fi
echo "a fresh quick run equals the baseline (timings aside)"
