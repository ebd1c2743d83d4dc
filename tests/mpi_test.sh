#!/usr/bin/env bash
# MPI runs give the plain run's results (timings aside), and a worker killed mid-sweep loses nothing: the rerun
# resumes from the root's checkpoints and completes with the same results (docs/scaling.md).
# usage: mpi_test.sh PATH/TO/infoflow-verify PATH/TO/infoflow-verify-mpi MPIRUN
set -uo pipefail
cli="$1"; mpi_cli="$2"; mpirun="$3"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Idle ranks yield the core instead of polling for messages: the tests share 2 cores with other tests.
export OMPI_MCA_mpi_yield_when_idle=1
fails=0
py=/usr/bin/python3

# The one-process run every MPI run is compared with: Theorem 3's suite in the committed quick baseline (a one-process
# run of the same seed and profile; regress.quick_baseline checks that a fresh run still equals it).
baseline="$(dirname "$0")/../reports/baselines/quick.json"
same() {  # same NAME FILE: its thm3 result equals the baseline's once timings are removed
  if "$py" "$(dirname "$0")/same_results.py" --suite thm3-aggregation-decoding "$2" "$baseline"
  then echo "ok   $1"; else echo "FAIL $1: $2 and the quick baseline's thm3 differ"; fails=$((fails+1)); fi
}

# 1-2. Kill a worker (SIGKILL) of a 3-rank run once the root has checkpointed some points; the run stops, and the rerun
# with 2 ranks resumes: the results equal one process's, across process counts and a lost worker.
"$mpirun" -np 3 "$mpi_cli" all --only thm3 --out "$work/mpi3" >"$work/killed.log" 2>&1 &
runner=$!
killed=""
for _ in $(seq 1 600); do
  if [[ -s "$work/mpi3/thm3-aggregation-decoding/closest-pairs.checkpoint.jsonl" ]]; then
    for pid in $(pgrep -f "infoflow-verify-mpi all --only thm3 --out $work/mpi3" || true); do
      if tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1"; then kill -9 "$pid" && killed="$pid"; break; fi
    done
    [[ -n "$killed" ]] && break
  fi
  sleep 0.02
done
wait "$runner"; rc=$?
if [[ -z "$killed" ]]; then
  echo "FAIL kill: no worker to kill was found before the run ended (rc $rc)"; fails=$((fails+1))
else
  before=$(cat "$work/mpi3/"*/*.checkpoint.jsonl 2>/dev/null | wc -l)
  echo "ok   killed worker rank 1 (pid $killed); mpirun exited $rc with $before checkpointed points"
  "$mpirun" -np 2 "$mpi_cli" all --only thm3 --out "$work/mpi3" >"$work/resumed.log" 2>&1 || { echo "FAIL the rerun (2 ranks) after the kill"; tail -5 "$work/resumed.log"; fails=$((fails+1)); }
  after=$(cat "$work/mpi3/"*/*.checkpoint.jsonl | wc -l)
  if [[ $after -lt $before ]]; then echo "FAIL checkpointed points were lost ($before -> $after)"; fails=$((fails+1)); fi
  same "kill (3 ranks) + rerun (2 ranks) = one process" "$work/mpi3/results.json"
fi

# 3. A failure on the root alone (the output folder is locked by another run) ends every rank at once: no hang.
mkdir -p "$work/locked"
# The holder's output goes nowhere, and its sleep is ended with it: an orphaned sleep holding the test's output open
# would keep ctest waiting for it.
flock "$work/locked/.infoflow-lock" sleep 60 </dev/null >/dev/null 2>&1 &
holder=$!
sleep 0.3
timeout 60 "$mpirun" -np 3 "$mpi_cli" all --only thm3 --out "$work/locked" >"$work/locked.log" 2>&1; rc=$?
pkill -P "$holder" 2>/dev/null; kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
if [[ $rc -eq 0 || $rc -eq 124 ]]; then echo "FAIL locked folder: exit $rc (expected an error, not success or a hang)"; fails=$((fails+1));
elif ! grep -q "another infoflow-verify run is writing" "$work/locked.log"; then echo "FAIL locked folder: no lock message"; fails=$((fails+1));
else echo "ok   a lock held elsewhere ends every rank (exit $rc)"; fi
# 4. Only `all` and the suites run under MPI.
"$mpirun" -np 2 "$mpi_cli" plan --target 'max_{t} dot(x[t], x[t])' >"$work/plan.log" 2>&1; rc=$?
if [[ $rc -ne 2 ]] || ! grep -q "only \`all\` and the suite commands run under MPI" "$work/plan.log"; then
  echo "FAIL plan under MPI: exit $rc"; cat "$work/plan.log"; fails=$((fails+1)); else echo "ok   plan under MPI is refused (exit 2)"; fi
[[ $fails -eq 0 ]] && echo "MPI tests: all passed" || { echo "MPI tests: $fails failed"; exit 1; }
