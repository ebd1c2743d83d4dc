#!/usr/bin/python3
"""The same single-layer training in PyTorch (float64), for scripts/bench-train (a benchmark, never a test).

usage: pytorch_train.py DIR --threads K [--target R] [--lr 1e-2] [--steps 3000] [--batch 800] [--eval-every 10] [--seed 1]
                         [--weight-decay WD] [--free-temperatures] [--gradient-clip C] [--pre-layernorm]
                         [--warmup-steps W] [--fresh-samples]

Also the twin of the experiments' training (scripts/bench-recipe --twin, docs/experiments.md §5.5): AdamW with
decoupled weight decay WD on the weights, never on the temperatures, which --free-temperatures trains too (kept
>= 1e-6, as the trainer does); the printed line then also has the validation NMSE (MSE over the population variance
of the validation targets). --gradient-clip C clips the minibatch gradient's norm to C, as the trainer's
--gradient-clip does (the temperatures' included).

--warmup-steps W raises the rate linearly to its peak over the first W steps, then the cosine runs over the rest, as
the trainer's --warmup-steps. --fresh-samples trains on new samples at every step, as the experiments' --fresh-samples,
drawn by PyTorch's own generator (never the suite's samples: the two sides compare over seeds) from the distribution
that DIR/fresh.json states: the intrinsic-dimension target F = sum_i max_{s,t} x(s)^T A_i x(t) with x ~ N(0, I_4), its
matrices "A" (row-major 4x4), the training set's "mean" and "sd" that standardise the targets, and "stage_T", the
curriculum's lengths (the steps cut into equal stages, the last at the cell's T); DIR/data.json then needs no training
set.

--pre-layernorm measures a layer kind the weights format does not have (docs/experiments.md §5.4): before each layer's
attention and before its FFN the token and CLS states go through a LayerNorm of their own (gain 1 and bias 0 at the
start, trained, no decay), and the CLS state through one more before the readout (the usual pre-LN transformer); the
rest of the model starts from DIR/init.json as without it, so the two runs compare paired.

Reads DIR/data.json and DIR/init.json (written by `bench-train write`, docs/weights-format.md: any number of layers,
heads, FFNs, positions), trains with Adam and the
same cosine schedule as numerics/train/trainer.cpp (minibatches in a seeded shuffled order; with --batch equal to the
training set it is full batch, as in the comparison), evaluates the validation RMSE every --eval-every steps, stops at
--target, and prints one JSON line like bench-train's.
"""
import argparse, json, math, sys, time

import torch

class FreshSamples:
    """The experiments' fresh samples (--fresh-samples): see the module's docstring."""

    def __init__(self, A, mean, sd, stage_T, dt):
        self.A, self.mean, self.sd, self.stage_T, self.dt = A, mean, sd, stage_T, dt

    def draw(self, step, steps, count, generator):
        # The stage of step `step` (1-based), as the suite's drawer cuts the steps: equal stages, the last at the cell's T.
        stage = min(len(self.stage_T) - 1, (max(step, 1) - 1) * len(self.stage_T) // steps)
        X = torch.randn(count, self.stage_T[stage], 4, generator=generator, dtype=self.dt)
        return X, self.standardised_targets(X)

    def standardised_targets(self, X):
        scores = torch.einsum("nsa,iab,ntb->nist", X, self.A, X)          # x(s)^T A_i x(t)
        F = scores.flatten(start_dim=2).max(dim=2).values.sum(dim=1)
        return (F - self.mean) / self.sd


def load_fresh(path, dt):
    spec = json.load(open(path))
    A = torch.tensor(spec["A"], dtype=dt)
    stage_T = [int(T) for T in spec["stage_T"]]
    if A.dim() != 2 or A.shape[1] != 16 or not stage_T or min(stage_T) < 1 or not spec["sd"] > 0:
        raise ValueError(f"{path}: expected A as rows of 16 numbers, stage_T as lengths >= 1 and sd > 0")
    return FreshSamples(A.reshape(-1, 4, 4), float(spec["mean"]), float(spec["sd"]), stage_T, dt)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--target", type=float, default=0.0)
    ap.add_argument("--lr", type=float, default=1e-2)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=800)
    ap.add_argument("--eval-every", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--weight-decay", type=float, default=0.0)
    ap.add_argument("--free-temperatures", action="store_true")
    ap.add_argument("--gradient-clip", type=float, default=0.0)
    ap.add_argument("--pre-layernorm", action="store_true")
    ap.add_argument("--warmup-steps", type=int, default=0)
    ap.add_argument("--fresh-samples", action="store_true")
    a = ap.parse_args()
    if not 0 <= a.warmup_steps < a.steps:
        ap.error(f"--warmup-steps: expected a number in [0, --steps), got {a.warmup_steps}")
    if not (a.gradient_clip >= 0 and math.isfinite(a.gradient_clip)):
        ap.error(f"--gradient-clip: expected a finite number >= 0 (0: no clipping), got {a.gradient_clip}")
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    dt = torch.float64
    data = json.load(open(a.dir + "/data.json"))
    W = json.load(open(a.dir + "/init.json"))
    fresh = load_fresh(a.dir + "/fresh.json", dt) if a.fresh_samples else None
    X = None if fresh else torch.tensor(data["train"]["X"], dtype=dt)   # N × T × d
    y = None if fresh else torch.tensor(data["train"]["y"], dtype=dt)
    Xv = torch.tensor(data["valid"]["X"], dtype=dt)
    yv = torch.tensor(data["valid"]["y"], dtype=dt)
    if fresh:
        # Every stage is at most the cell's T, the validation set's length, and the last is that T: a file that says
        # otherwise is not the suite's (and would size the draws).
        if max(fresh.stage_T) > Xv.shape[1] or fresh.stage_T[-1] != Xv.shape[1]:
            sys.exit(f"pytorch_train.py: fresh.json: expected stage lengths <= {Xv.shape[1]} (the validation set's T), "
                     f"the last equal to it, got {fresh.stage_T}")
        # The suite drew the validation set from the distribution fresh.json states: its targets, recomputed here by
        # the twin's own formula, must agree, or the two sides would train on different tasks.
        F = fresh.standardised_targets(Xv)
        worst = float((F - yv).abs().max())
        if not worst <= 1e-9 * max(1.0, float(yv.abs().max())):
            sys.exit(f"pytorch_train.py: fresh.json does not give the validation targets of data.json "
                     f"(largest difference {worst:.3g})")
    def t(v):
        rows = v if isinstance(v[0], list) else [v]
        x = torch.tensor([[float(e) for e in r] for r in rows], dtype=dt)
        return (x if isinstance(v[0], list) else x[0]).requires_grad_(True)

    def map_params(m):
        keys = ("W", "b") if m["kind"] == "affine" else ("W1", "b1", "W2", "b2")
        return {k: t(m[k]) for k in keys}

    def units_of(m):  # an FFN's hidden units, as the weights format says (absent: ReLU); GeLU is the exact erf form
        units = m.get("activation", "relu")
        if units not in ("relu", "gelu"):
            raise ValueError(f"an FFN's activation: expected 'relu' or 'gelu', got {units!r}")
        return torch.nn.functional.gelu if units == "gelu" else torch.relu

    enc = map_params(W["encoder"])
    ro = map_params(W["readout"])
    enc_units, ro_units = units_of(W["encoder"]), units_of(W["readout"])
    layers = []
    for layer in W["layers"]:
        layers.append({"heads": [{k: t(h[k]) for k in ("Q", "K", "V")} for h in layer["heads"]],
                       "betas": [torch.tensor(float(h["beta"]), dtype=dt, requires_grad=a.free_temperatures)
                                 for h in layer["heads"]],
                       "W_O": t(layer["W_O"]),
                       "ffn": map_params(layer["ffn"]) if layer.get("ffn") else None,
                       "ffn_units": units_of(layer["ffn"]) if layer.get("ffn") else None})
    E = len(W["cls0"])
    def layernorm():  # gain and bias of one LayerNorm over the E coordinates of a state
        return {"g": torch.ones(E, dtype=dt, requires_grad=True), "b": torch.zeros(E, dtype=dt, requires_grad=True)}
    # One before each attention, one before each FFN that runs (the last layer updates only the CLS state, without
    # its FFN), one before the readout (index -1).
    last_layer = len(W["layers"]) - 1
    norms = ([{"attention": layernorm(), **({"ffn": layernorm()} if layer.get("ffn") and i < last_layer else {})}
              for i, layer in enumerate(W["layers"])] + [{"readout": layernorm()}] if a.pre_layernorm else None)

    def norm(which, i, x):
        if norms is None:
            return x
        n = norms[i][which]
        return torch.nn.functional.layer_norm(x, (E,), n["g"], n["b"], eps=1e-5)

    pos = t(W["positional"]) if W.get("positions", 0) else None
    c0 = t(W["cls0"])
    params = list(enc.values()) + list(ro.values()) + [c0] + ([pos] if pos is not None else [])
    for l in layers:
        params += [p for h in l["heads"] for p in h.values()] + [l["W_O"]] + (list(l["ffn"].values()) if l["ffn"] else [])

    def apply(m, x, units):
        if "W" in m:
            return x @ m["W"].T + m["b"]
        return units(x @ m["W1"].T + m["b1"]) @ m["W2"].T + m["b2"]

    def forward(Xb):
        U = apply(enc, Xb, enc_units)                        # N × T × E
        if pos is not None:
            U = U + pos[: Xb.shape[1]]
        C = c0.expand(Xb.shape[0], -1)                       # N × E
        for i, l in enumerate(layers):
            last = i == len(layers) - 1
            cls_parts, tok_parts = [], []
            Un, Cn = norm("attention", i, U), norm("attention", i, C)
            for h, beta in zip(l["heads"], l["betas"]):
                K, V = Un @ h["K"].T, Un @ h["V"].T          # N × T × kd, N × T × vd
                w = torch.softmax(beta * torch.einsum("ntk,nk->nt", K, Cn @ h["Q"].T), dim=1)
                cls_parts.append(torch.einsum("nt,ntv->nv", w, V))
                if not last:
                    P = torch.softmax(beta * ((Un @ h["Q"].T) @ K.transpose(1, 2)), dim=2)  # query × key
                    tok_parts.append(P @ V)
            C = C + torch.cat(cls_parts, dim=1) @ l["W_O"].T
            if not last:
                U = U + torch.cat(tok_parts, dim=2) @ l["W_O"].T
                if l["ffn"] is not None:
                    U = U + apply(l["ffn"], norm("ffn", i, U), l["ffn_units"])
                    C = C + apply(l["ffn"], norm("ffn", i, C), l["ffn_units"])
        return apply(ro, norm("readout", -1, C), ro_units)[:, 0]

    betas = [b for l in layers for b in l["betas"]] if a.free_temperatures else []
    # Decoupled decay (AdamW, as numerics/train/trainer.cpp) on the weights only.
    gains = [v for n in norms for ln in n.values() for v in ln.values()] if norms else []
    groups = ([{"params": params, "weight_decay": a.weight_decay}] + ([{"params": betas, "weight_decay": 0.0}] if betas else [])
              + ([{"params": gains, "weight_decay": 0.0}] if gains else []))
    opt = torch.optim.AdamW(groups, lr=a.lr, eps=1e-8)
    # The trainer's schedule: step s + 1 (LambdaLR counts from 0) is in the warm-up while s + 1 <= W.
    w = a.warmup_steps
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (s + 1) / w if s + 1 <= w else 0.5 * (1 + math.cos(math.pi * (s - w) / (a.steps - w))))
    g = torch.Generator().manual_seed(a.seed)
    N = 0 if fresh else X.shape[0]
    order, cursor = None, N
    start = time.perf_counter()
    reached, steps_run, vr = False, 0, float("nan")
    stages = []          # with fresh samples: [first step, length] of each stage, as trained
    clipped_steps = 0    # steps whose gradient was clipped
    for step in range(1, a.steps + 1):
        if fresh:
            Xb, yb = fresh.draw(step, a.steps, a.batch, g)
            if not stages or stages[-1][1] != Xb.shape[1]:
                stages.append([step, Xb.shape[1]])
        elif a.batch >= N:
            Xb, yb = X, y
        else:
            if cursor + a.batch > N:
                order, cursor = torch.randperm(N, generator=g), 0
            idx, cursor = order[cursor:cursor + a.batch], cursor + a.batch
            Xb, yb = X[idx], y[idx]
        opt.zero_grad()
        loss = ((forward(Xb) - yb) ** 2).mean()
        loss.backward()
        if a.gradient_clip > 0:
            # As the trainer clips: the norm over every trained number, scaled to C when above it (no epsilon, unlike
            # clip_grad_norm_, so that full-batch runs stay equal to rounding).
            grads = [p.grad for group in groups for p in group["params"] if p.grad is not None]
            grad_norm = math.sqrt(sum(float((g_ ** 2).sum()) for g_ in grads))
            if grad_norm > a.gradient_clip:
                clipped_steps += 1
                for g_ in grads:
                    g_.mul_(a.gradient_clip / grad_norm)
        opt.step()
        sched.step()
        with torch.no_grad():
            for b in betas:
                b.clamp_(min=1e-6)
        steps_run = step
        if step % a.eval_every == 0 or step == a.steps:
            with torch.no_grad():
                vr = float(torch.sqrt(((forward(Xv) - yv) ** 2).mean()))
            if a.target > 0 and vr <= a.target:
                reached = True
                break
    seconds = time.perf_counter() - start
    with torch.no_grad():
        if fresh:  # samples no step trained on, from the last stage's distribution, as the trainer reports
            X, y = fresh.draw(max(1, steps_run), a.steps, Xv.shape[0], g)
        tr = float(torch.sqrt(((forward(X) - y) ** 2).mean()))
        nmse = float(((forward(Xv) - yv) ** 2).mean() / torch.var(yv, unbiased=False))
    print(json.dumps({"method": "pytorch", "threads": a.threads, "seconds": seconds, "steps": steps_run, "reached": reached,
                      "valid_rmse": vr, "train_rmse": tr, "valid_nmse": nmse, "clipped_steps": clipped_steps,
                      **({"stages": stages} if fresh else {})}))

if __name__ == "__main__":
    main()
