#!/usr/bin/env bash
# The experiments' trainer against PyTorch (docs/experiments.md §5.5): the (D,D) cell of the intrinsic-dimension
# experiment (D = 2, T = 8), trained full batch from the same initial model on the same data with the same AdamW,
# free temperatures, weight decay and cosine schedule must end at the same validation NMSE to 1e-9 relative, by two
# implementations that share no code: with ReLU units, with GeLU units in the token FFN, with a warm-up (the lr1e-3
# variant) and with the gradient clipped (the clip variant). With fresh samples (the combined variant: fresh samples,
# a curriculum, clipping) each side draws its own samples, so the figures differ; there the twin must recompute the
# suite's validation targets from the distribution it was handed (pytorch_train.py refuses otherwise) and both must
# train to a finite NMSE with the same curriculum (each stage's first step and length). Every case must exercise what it
# names (a warm-up, clipped steps). Skipped (exit 77) without Debian's python3-torch.
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
  read -r steps lr wd warmup clip fresh < <("$py" -c "import json,sys; s=json.load(open(sys.argv[1]))
print(s['steps'], repr(s['lr']), repr(s['weight_decay']), s['warmup_steps'], repr(s['gradient_clip']),
      int(s['fresh_samples']))" "$work/$name/seed0/settings.json")
  fresh_flag=(); [[ $fresh == 1 ]] && fresh_flag=(--fresh-samples)
  torch_line=$("$py" "$src/bench/pytorch_train.py" "$work/$name/seed0" --threads 1 --lr "$lr" --steps "$steps" \
               --batch "$batch" --eval-every "$steps" --weight-decay "$wd" --warmup-steps "$warmup" --gradient-clip "$clip" \
               --free-temperatures "${fresh_flag[@]}") || { echo "FAIL: pytorch_train.py ($name)"; exit 1; }
  "$py" - "$name" "$warmup" "$clip" "$fresh" "$ours" "$torch_line" <<'PY' || exit 1
import json, math, sys
name, warmup, clip, fresh = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "1"
ours_line, torch_line = json.loads(sys.argv[5]), json.loads(sys.argv[6])
ours, torch_ = ours_line["valid_nmse"], torch_line["valid_nmse"]
rel = abs(ours - torch_) / abs(ours)
print(f"{name}: NMSE after {torch_line['steps']} steps: ours {ours!r}, PyTorch {torch_!r}, relative difference {rel:.3g}; "
      f"warm-up {warmup} steps, {torch_line['clipped_steps']} steps clipped")
# Each case must exercise what it names, or agreeing would show nothing.
if name == "warmup" and warmup <= 0:
    sys.exit("FAIL: the warm-up case has no warm-up")
if name in ("clip", "fresh") and not (clip > 0 and torch_line["clipped_steps"] > 0):
    sys.exit(f"FAIL: the {name} case clipped no step")
if fresh:
    # Different samples: the figures differ, but the curriculum must be the same on both sides (each stage's first
    # step and length), and both must train.
    print(f"  stages: ours {ours_line['stages']}, PyTorch {torch_line['stages']}")
    if ours_line["stages"] != torch_line["stages"] or len(ours_line["stages"]) < 2:
        sys.exit("FAIL: the two curricula differ, or there is none")
    sys.exit(0 if all(math.isfinite(v) and 0 < v < 1.5 for v in (ours, torch_)) else 1)
# The two start equal and step alike: a difference beyond rounding is a defect in one of them.
sys.exit(0 if rel < 1e-9 and 0 < ours < 1.5 else 1)
PY
done
