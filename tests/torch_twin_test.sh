#!/usr/bin/env bash
# The experiments' trainer against PyTorch (docs/experiments.md §5.5): the (D,D) cell of the intrinsic-dimension
# experiment (D = 2, T = 8), trained full batch from the same initial model on the same data with the same AdamW,
# free temperatures, weight decay and cosine schedule, with ReLU and with GeLU units in the token FFN, must end at the
# same validation NMSE to 1e-9 relative, by two implementations that share no code. Skipped (exit 77) without Debian's python3-torch.
# usage: torch_twin_test.sh PATH/TO/bench-recipe SOURCE_DIR
set -uo pipefail
bench="$1"; src="$2"
py=/usr/bin/python3
"$py" -c "import torch" 2>/dev/null || { echo "python3-torch not installed: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# ReLU units, then GeLU units in the token FFN (torch.nn.functional.gelu against numerics/scalar/gelu.hpp).
for units in relu gelu; do
  flag=(); [[ $units == gelu ]] && flag=(--gelu)
  ours=$("$bench" --twin "$work/$units" --D 2 --T 8 --seeds 1 --steps 60 --train 300 --batch 300 --lr 3e-3 "${flag[@]}") \
    || { echo "FAIL: bench-recipe --twin ($units)"; exit 1; }
  torch_line=$("$py" "$src/bench/pytorch_train.py" "$work/$units/seed0" --threads 1 --lr 3e-3 --steps 60 --batch 300 \
               --eval-every 60 --weight-decay 1e-2 --free-temperatures) || { echo "FAIL: pytorch_train.py ($units)"; exit 1; }
  "$py" - "$units" "$ours" "$torch_line" <<'PY' || exit 1
import json, sys
units, ours, torch_ = sys.argv[1], json.loads(sys.argv[2])["valid_nmse"], json.loads(sys.argv[3])["valid_nmse"]
rel = abs(ours - torch_) / abs(ours)
print(f"{units} units, NMSE after 60 full-batch steps: ours {ours!r}, PyTorch {torch_!r}, relative difference {rel:.3g}")
# The two start equal and step alike: a difference beyond rounding is a defect in one of them.
sys.exit(0 if rel < 1e-9 and 0 < ours < 1.5 else 1)
PY
done
