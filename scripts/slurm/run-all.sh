# The body of the Slurm batch scripts (nightly.sbatch, experiments.sbatch), sourced by them with
#   out          the output folder (resumed when it holds checkpoints)
#   select_args  `all`'s suite selection (--skip ... or --only ...)
#   baseline     the baseline file, relative to the source folder
# One MPI rank per node runs `infoflow-verify-mpi all --profile nightly` with every core of its node for OpenMP
# (rank 0 hands out sweep points and owns the checkpoints and the report), then `regress` against the baseline:
# green unless something regressed, as scripts/nightly.
src="${SLURM_SUBMIT_DIR:-$(pwd)}"
[[ -x "$src/build/verify/infoflow-verify-mpi" ]] || { echo "build first: cmake -S . -B build && cmake --build build (with libopenmpi-dev installed)" >&2; exit 2; }
threads="${SLURM_CPUS_ON_NODE:-$(nproc)}"
export OMP_NUM_THREADS="$threads"
# Near the time limit: requeue this job (same id, same output folder), which resumes from the checkpoints.
requeue() {
  echo "[$(date -u +%FT%TZ)] time limit near: requeueing job ${SLURM_JOB_ID:-?} to resume in $out" >&2
  scontrol requeue "${SLURM_JOB_ID}"
  exit 0
}
trap requeue USR1
# srun starts one rank per node with every CPU of it; Open MPI picks up Slurm's allocation. In the background, so
# the batch shell can take the signal while it runs.
srun --kill-on-bad-exit=1 --cpus-per-task="$threads" \
  "$src/build/verify/infoflow-verify-mpi" all --profile nightly "${select_args[@]}" --threads "$threads" --out "$out" &
all_rc=0
wait $! || all_rc=$?
[[ $all_rc -le 1 ]] || exit "$all_rc"  # bad input or an internal error: no results to compare
if [[ ! -f "$src/$baseline" ]]; then
  echo "no $baseline yet: after review, keep this run with infoflow-verify regress --baseline $baseline --current $out --update-baseline" >&2
  exit 0  # a failed check is in the report; red only on a regression, and there is nothing to regress against
fi
"$src/build/verify/infoflow-verify" regress --baseline "$src/$baseline" --current "$out"
