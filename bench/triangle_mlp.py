#!/usr/bin/python3
"""An independent route for the triangle centre (docs/experiments.md §5.6; a benchmark, not a test).

usage: bench/triangle_mlp.py [--T 8] [--repeats] [--steps 8000] [--seed 0] [--moments]
A generic model, sharing no code with the suite: an MLP (three hidden layers of 512 GeLU units, PyTorch, float32) on
the tokens sorted by angle (the target is permutation invariant; sorting gives the MLP one order to learn), trained
with AdamW (lr 1e-3, weight decay 1e-2, cosine schedule) on fresh minibatches of 256 at every step, and scored on
20000 held-out sequences. The target is the suite's: F = min over t1 < t2 < t3 of |x(t1) + x(t2) + x(t3)|, x ~ N(0, 2 I_2)
with its norm clamped to [0.2, 4] (the direction kept); with --repeats the min runs over t1 <= t2 <= t3 instead.
Prints the validation NMSE five times during the run, one JSON line each: MSE / Var(F), the suite's normalisation,
and MSE / E[F^2], the other common one (docs/experiments.md §5.6 compares the two readings with the paper's table).
With --moments, trains nothing: prints the target's mean, standard deviation and Var(F) / E[F^2] on the 20000
held-out sequences (a constant predictor's NMSE under the second normalisation). Needs Debian's python3-torch.
"""
import argparse, itertools, json, math, sys, time

def whole_in(lo, hi):
    def parse(text):
        v = int(text)
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"expected a whole number in [{lo}, {hi}], got {v}")
        return v
    return parse


p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--T", type=whole_in(3, 64), default=8)
p.add_argument("--repeats", action="store_true")
p.add_argument("--steps", type=whole_in(5, 1000000), default=8000)
p.add_argument("--seed", type=whole_in(0, 2**63 - 1), default=0)
p.add_argument("--moments", action="store_true")
a = p.parse_args()
try:
    import torch
except ImportError:
    sys.exit("bench/triangle_mlp.py: needs python3-torch (apt-get install python3-torch)")
torch.manual_seed(a.seed)
torch.set_num_threads(1)
T = a.T
pick = itertools.combinations_with_replacement if a.repeats else itertools.combinations
triples = torch.tensor(list(pick(range(T), 3)))


def draw(n):
    x = torch.randn(n, T, 2) * math.sqrt(2.0)
    r = x.norm(dim=-1, keepdim=True)
    x = x / r * r.clamp(0.2, 4.0)
    y = torch.full((n,), math.inf)
    for chunk in triples.split(256):  # n × 256 sums at a time: T = 64 has 41664 triples
        s = x[:, chunk[:, 0]] + x[:, chunk[:, 1]] + x[:, chunk[:, 2]]
        y = torch.minimum(y, s.norm(dim=-1).min(dim=1).values)
    order = torch.atan2(x[..., 1], x[..., 0]).argsort(dim=1)
    return torch.gather(x, 1, order.unsqueeze(-1).expand(-1, -1, 2)).reshape(n, -1), y


X_valid, y_valid = draw(20000)
mean, sd = y_valid.mean(), y_valid.std()
mean_square = (y_valid ** 2).mean()
if a.moments:
    print(json.dumps({"T": T, "repeats": a.repeats, "mean": round(mean.item(), 5), "sd": round(sd.item(), 5),
                      "var_over_mean_square": round((y_valid.var() / mean_square).item(), 5)}))
    sys.exit(0)
net = torch.nn.Sequential(torch.nn.Linear(2 * T, 512), torch.nn.GELU(), torch.nn.Linear(512, 512), torch.nn.GELU(),
                          torch.nn.Linear(512, 512), torch.nn.GELU(), torch.nn.Linear(512, 1))
opt = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=1e-2)
schedule = torch.optim.lr_scheduler.CosineAnnealingLR(opt, a.steps)
t0 = time.time()
for step in range(1, a.steps + 1):
    X, y = draw(256)
    loss = ((net(X).squeeze(-1) - (y - mean) / sd) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    schedule.step()
    if step % max(1, a.steps // 5) == 0 or step == a.steps:
        with torch.no_grad():
            mse = ((net(X_valid).squeeze(-1) * sd + mean - y_valid) ** 2).mean()
        print(json.dumps({"T": T, "repeats": a.repeats, "step": step, "steps": a.steps,
                          "valid_nmse": round((mse / y_valid.var()).item(), 5),
                          "valid_mse_over_mean_square": round((mse / mean_square).item(), 5),
                          "seconds": round(time.time() - t0, 1)}), flush=True)
