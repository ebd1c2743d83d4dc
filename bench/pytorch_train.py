#!/usr/bin/python3
"""The same single-layer training in PyTorch (float64), for scripts/bench-train (a benchmark, never a test).

usage: pytorch_train.py DIR --threads K [--target R] [--lr 1e-2] [--steps 3000] [--batch 800] [--eval-every 10] [--seed 1]
                         [--weight-decay WD] [--free-temperatures] [--gradient-clip C] [--pre-layernorm]

Also the twin of the experiments' training (scripts/bench-recipe --twin, docs/experiments.md §5.5): AdamW with
decoupled weight decay WD on the weights, never on the temperatures, which --free-temperatures trains too (kept
>= 1e-6, as the trainer does); the printed line then also has the validation NMSE (MSE over the population variance
of the validation targets). --gradient-clip C clips the minibatch gradient's norm to C, as the trainer's
--gradient-clip does (the temperatures' included).

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
    a = ap.parse_args()
    if not (a.gradient_clip >= 0 and math.isfinite(a.gradient_clip)):
        ap.error(f"--gradient-clip: expected a finite number >= 0 (0: no clipping), got {a.gradient_clip}")
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    dt = torch.float64
    data = json.load(open(a.dir + "/data.json"))
    W = json.load(open(a.dir + "/init.json"))
    X = torch.tensor(data["train"]["X"], dtype=dt)   # N × T × d
    y = torch.tensor(data["train"]["y"], dtype=dt)
    Xv = torch.tensor(data["valid"]["X"], dtype=dt)
    yv = torch.tensor(data["valid"]["y"], dtype=dt)
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
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + math.cos(math.pi * s / a.steps)))
    g = torch.Generator().manual_seed(a.seed)
    N = X.shape[0]
    order, cursor = None, N
    start = time.perf_counter()
    reached, steps_run, vr = False, 0, float("nan")
    for step in range(1, a.steps + 1):
        if a.batch >= N:
            idx = None
        else:
            if cursor + a.batch > N:
                order, cursor = torch.randperm(N, generator=g), 0
            idx, cursor = order[cursor:cursor + a.batch], cursor + a.batch
        Xb, yb = (X, y) if idx is None else (X[idx], y[idx])
        opt.zero_grad()
        loss = ((forward(Xb) - yb) ** 2).mean()
        loss.backward()
        if a.gradient_clip > 0:
            torch.nn.utils.clip_grad_norm_([p for group in groups for p in group["params"]], a.gradient_clip)
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
        tr = float(torch.sqrt(((forward(X) - y) ** 2).mean()))
        nmse = float(((forward(Xv) - yv) ** 2).mean() / torch.var(yv, unbiased=False))
    print(json.dumps({"method": "pytorch", "threads": a.threads, "seconds": seconds, "steps": steps_run, "reached": reached,
                      "valid_rmse": vr, "train_rmse": tr, "valid_nmse": nmse}))

if __name__ == "__main__":
    main()
