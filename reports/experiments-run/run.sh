#!/usr/bin/env bash
# The paper-size run of the paper's two experiments (docs/experiments.md §3), carried across machines.
# Its checkpoint lives in this folder and is committed as the run goes, so a run of up to 17.8 hours on 2 cores survives
# machines that last a few hours. Every leg uses one frozen build (FROZEN below), built in a worktree when missing,
# and the record key of this folder (README.md says why that key is not a secret); it keeps the points of the run's
# first build (ADOPTED_BUILD) after recomputing two of them to the same bits (README.md, "Two builds").
#   reports/experiments-run/run.sh            resume (or start) the run in the background; logs to legs.txt, run.log
#   reports/experiments-run/run.sh --status   points kept so far
#   D=2,3,4 THREADS=2 run.sh                   a leg over fewer intrinsic dimensions (default 2,3,4,5,6)
#   INFOFLOW_RUN_BIN=DIR                       where the frozen binary and the key's private copy go (default /work/run-bin)
source "$(dirname "$0")/../../scripts/lib/help.sh"
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
FROZEN=b77fd62
FROZEN_VERSION="commit b77fd623d88d"
# The run's points up to the leg of 2026-12-07 that switched builds (legs.txt) were computed by build 8f5042b2aa2f.
# Its successor computes the same records faster at D = 5, 6 (the kernels' passes over the columns, 7f134c8,
# give the same bits), so it adopts them: --adopt-build, after recomputing the first and the last to the same bits
# (docs/input-limits.md, "Another build's points"; README.md here).
ADOPTED_BUILD=8f5042b2aa2f
bin_dir=${INFOFLOW_RUN_BIN:-/work/run-bin}
bin="$bin_dir/infoflow-verify-$FROZEN"
checkpoint="$here/out/experiment-cells.checkpoint.jsonl"
if [[ "${1:-}" == "--status" ]]; then
  # Points, not lines: an adopted point has a line of each build (README.md, "Two builds").
  kept=$(grep -o '"key":"[^"]*"' "$checkpoint" 2>/dev/null | sort -u | wc -l) || true
  echo "${kept:-0} points kept in $checkpoint"
  exit 0
fi
[[ $# -eq 0 ]] || { echo "run.sh: unknown argument '$1' (expected --status or nothing)" >&2; exit 2; }
D=${D:-2,3,4,5,6}
THREADS=${THREADS:-2}
[[ "$D" =~ ^[2-8](,[2-8])*$ ]] || { echo "run.sh: D must be a list such as 2,3,4" >&2; exit 2; }
[[ "$THREADS" =~ ^[1-9][0-9]?$ ]] || { echo "run.sh: THREADS must be a whole number in [1, 99]" >&2; exit 2; }
# A leg already writing to out/ holds its lock: say so before touching the logs.
mkdir -p "$here/out"
if [[ -e "$here/out/.infoflow-lock" ]] && ! flock -n "$here/out/.infoflow-lock" true; then
  echo "run.sh: a leg is already running (out/.infoflow-lock is held)" >&2
  exit 2
fi
if [[ ! -x "$bin" ]]; then
  work="$bin_dir/src-$FROZEN"
  [[ -d "$work" ]] || git -C "$repo" worktree add --detach "$work" "$FROZEN"
  cmake -S "$work" -B "$work/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$work/build" -j "$THREADS" --target infoflow-verify
  install -D -m 755 "$work/build/verify/infoflow-verify" "$bin"
fi
# Lines sealed by one build are not resumed by another build's fingerprint: refuse a binary of another commit.
if [[ "$("$bin" --version)" != *"$FROZEN_VERSION"* ]]; then
  echo "run.sh: $bin is not the frozen build ($FROZEN_VERSION): remove it and run again" >&2
  exit 2
fi
# The tool refuses a key file others can read, and git keeps no file modes: a private copy, named for this run so
# that it can never overwrite a user's own record key.
key="$bin_dir/experiments-run-$FROZEN.record-key"
install -m 600 "$here/record-key" "$key"
echo "leg started $(date -u +%FT%TZ) D=$D THREADS=$THREADS build=$FROZEN" >> "$here/legs.txt"
cd "$here"
INFOFLOW_KEY_FILE="$key" setsid nohup "$bin" experiments --profile nightly --seeds 5 --fresh-samples 1 \
  --curriculum-T 32 --gradient-clip 1 --gelu 1 --id-ffn-width 64 --construction-arm 0 --D "$D" \
  --threads "$THREADS" --adopt-build "$ADOPTED_BUILD" --out out >> run.log 2>&1 &
echo "run.sh: running as pid $! (log $here/run.log)"
