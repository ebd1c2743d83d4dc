#!/usr/bin/python3
"""The same single-layer training in PyTorch (float64), for scripts/bench-train (a benchmark, never a test).

usage: pytorch_train.py DIR --threads K [--target R] [--lr 1e-2] [--steps 3000] [--batch 800] [--eval-every 10] [--seed 1]

Reads DIR/data.json and DIR/init.json (written by `bench-train write`, docs/weights-format.md), trains with Adam and the
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
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    dt = torch.float64
    data = json.load(open(a.dir + "/data.json"))
    W = json.load(open(a.dir + "/init.json"))
    X = torch.tensor(data["train"]["X"], dtype=dt)   # N × T × d
    y = torch.tensor(data["train"]["y"], dtype=dt)
    Xv = torch.tensor(data["valid"]["X"], dtype=dt)
    yv = torch.tensor(data["valid"]["y"], dtype=dt)
    if len(W["layers"]) != 1 or W["encoder"]["kind"] != "ffn" or W["readout"]["kind"] != "ffn" or W.get("positions", 0):
        sys.exit("pytorch_train.py: expects the single-layer FFN/FFN model of the benchmark")
    t = lambda v: torch.tensor([[float(x) for x in r] for r in v] if isinstance(v[0], list) else [float(x) for x in v],
                               dtype=dt, requires_grad=True)
    enc = {k: t(W["encoder"][k]) for k in ("W1", "b1", "W2", "b2")}
    ro = {k: t(W["readout"][k]) for k in ("W1", "b1", "W2", "b2")}
    layer = W["layers"][0]
    heads = [{k: t(h[k]) for k in ("Q", "K", "V")} for h in layer["heads"]]
    betas = [float(h["beta"]) for h in layer["heads"]]
    WO = t(layer["W_O"])
    c0 = t(W["cls0"])
    params = list(enc.values()) + list(ro.values()) + [p for h in heads for p in h.values()] + [WO, c0]

    def ffn(m, x):
        return torch.relu(x @ m["W1"].T + m["b1"]) @ m["W2"].T + m["b2"]

    def forward(Xb):
        U = ffn(enc, Xb)                                    # N × T × E
        parts = []
        for h, beta in zip(heads, betas):
            q = h["Q"] @ c0                                 # the one query: ĉ0
            w = torch.softmax(beta * ((U @ h["K"].T) @ q), dim=1)  # N × T
            parts.append(torch.einsum("nt,ntv->nv", w, U @ h["V"].T))
        c = c0 + torch.cat(parts, dim=1) @ WO.T             # N × E
        return ffn(ro, c)[:, 0]

    opt = torch.optim.Adam(params, lr=a.lr)
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
        opt.step()
        sched.step()
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
    print(json.dumps({"method": "pytorch", "threads": a.threads, "seconds": seconds, "steps": steps_run, "reached": reached,
                      "valid_rmse": vr, "train_rmse": tr}))

if __name__ == "__main__":
    main()
