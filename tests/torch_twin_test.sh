#!/usr/bin/env bash
# The experiments' trainer against PyTorch (docs/experiments.md §5.5): the (D,D) cell of the intrinsic-dimension
# experiment (D = 2, T = 8), trained full batch from the same initial model on the same data with the same AdamW,
# free temperatures, weight decay and cosine schedule must end at the same validation NMSE to 1e-9 relative, by two
# implementations that share no code: with ReLU units, with GeLU units in the token FFN, with a warm-up (the lr1e-3
# variant) and with the gradient clipped (the clip variant). With fresh samples (the combined variant: fresh samples,
# a curriculum, clipping) each side draws its own samples, so the figures differ; there the twin must recompute the
# suite's validation targets from the distribution it was handed (pytorch_train.py refuses otherwise) and both must
# train to a finite NMSE. Skipped (exit 77) without Debian's python3-torch.
# usage: torch_twin_test.sh PATH/TO/bench-recipe SOURCE_DIR
set -uo pipefail
bench="$1"; src="$2"
py=/usr/bin/python3
"$py" -c "import torch" 2>/dev/null || { echo "python3-torch not installed: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# case name, then bench-recipe's flags for it.
cases=("relu|" "gelu|--gelu" "warmup|--variants lr1e-3" "clip|--variants clip" "fresh|--variants combined")
for c in "${cases[@]}"; do
  name=${c%%|*}
  read -r -a flags <<< "${c#*|}"
  batch=300
  [[ $name == fresh ]] && batch=32
  ours=$("$bench" --twin "$work/$name" --D 2 --T 8 --seeds 1 --steps 60 --train 300 --batch "$batch" --lr 3e-3 "${flags[@]}") \
    || { echo "FAIL: bench-recipe --twin ($name)"; exit 1; }
  # PyTorch with the settings bench-recipe resolved.
  read -r lr warmup clip fresh < <("$py" -c "import json,sys; s=json.load(open(sys.argv[1]))
print(repr(s['lr']), s['warmup_steps'], repr(s['gradient_clip']), int(s['fresh_samples']))" "$work/$name/seed0/settings.json")
  fresh_flag=(); [[ $fresh == 1 ]] && fresh_flag=(--fresh-samples)
  torch_line=$("$py" "$src/bench/pytorch_train.py" "$work/$name/seed0" --threads 1 --lr "$lr" --steps 60 --batch "$batch" \
               --eval-every 60 --weight-decay 1e-2 --warmup-steps "$warmup" --gradient-clip "$clip" --free-temperatures \
               "${fresh_flag[@]}") || { echo "FAIL: pytorch_train.py ($name)"; exit 1; }
  "$py" - "$name" "$fresh" "$ours" "$torch_line" <<'PY' || exit 1
import json, math, sys
name, fresh = sys.argv[1], sys.argv[2] == "1"
ours, torch_ = json.loads(sys.argv[3])["valid_nmse"], json.loads(sys.argv[4])["valid_nmse"]
rel = abs(ours - torch_) / abs(ours)
print(f"{name}: NMSE after 60 steps: ours {ours!r}, PyTorch {torch_!r}, relative difference {rel:.3g}")
if fresh:  # different samples: both must train, neither can be compared to rounding
    sys.exit(0 if all(math.isfinite(v) and 0 < v < 1.5 for v in (ours, torch_)) else 1)
# The two start equal and step alike: a difference beyond rounding is a defect in one of them.
sys.exit(0 if rel < 1e-9 and 0 < ours < 1.5 else 1)
PY
done
