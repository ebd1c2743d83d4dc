#!/usr/bin/python3
"""Independent forward pass that follows docs/weights-format.md only (numpy, float64).

usage: reference_forward.py WEIGHTS.json INPUTS.json   -> prints {"outputs": [...]} as JSON
Exit codes: 0 done; 2 bad input (a file that is not JSON, nested too deep, or not of the format).
"""
import json, math, sys
import numpy as np

def arr(v):  # numbers are doubles; strings are decimals (read here at double precision)
    return np.array(v, dtype=object).astype(float) if not isinstance(v, (int, float)) else float(v)

def gelu(v):  # x·Φ(x), Φ the standard normal distribution function (math.erfc: no scipy needed)
    return np.array([x * 0.5 * math.erfc(-x / math.sqrt(2.0)) for x in v])

def apply_map(m, x):
    if m["kind"] == "affine":
        return arr(m["W"]) @ x + arr(m["b"])
    pre = arr(m["W1"]) @ x + arr(m["b1"])
    units = m.get("activation", "relu")
    if units not in ("relu", "gelu"):
        raise ValueError(f"an FFN's activation: expected 'relu' or 'gelu', got {units!r}")
    h = gelu(pre) if units == "gelu" else np.maximum(pre, 0.0)
    return arr(m["W2"]) @ h + arr(m["b2"])

def attend(layer, q, U):
    parts = []
    for h in layer["heads"]:
        logits = float(h["beta"]) * (U @ arr(h["K"]).T) @ (arr(h["Q"]) @ q)
        w = np.exp(logits - logits.max())
        parts.append((w / w.sum()) @ (U @ arr(h["V"]).T))
    return q + arr(layer["W_O"]) @ np.concatenate(parts)

def forward(W, X):
    X = np.array(X, dtype=object).astype(float)
    U = np.array([apply_map(W["encoder"], x) for x in X])
    if W.get("positions", 0) > 0:
        U = U + arr(W["positional"])[: len(X)]
    c = arr(W["cls0"])
    for l, layer in enumerate(W["layers"]):
        last = l == len(W["layers"]) - 1
        new_c = attend(layer, c, U)
        if not last:
            U = np.array([attend(layer, u, U) for u in U])
            if layer.get("ffn"):
                U = np.array([u + apply_map(layer["ffn"], u) for u in U])
                new_c = new_c + apply_map(layer["ffn"], new_c)
        c = new_c
    return float(apply_map(W["readout"], c)[0])

def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        W = json.load(open(argv[1]))
        I = json.load(open(argv[2]))
        seqs = I["inputs"] if isinstance(I, dict) else I
        print(json.dumps({"outputs": [forward(W, s) for s in seqs]}))
        return 0
    except RecursionError:  # JSON nested deeper than Python's reader follows: bad input, not a traceback
        print("error: a file is nested deeper than the reader can follow (not weights or inputs)", file=sys.stderr)
        return 2
    except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        return 2

if __name__ == "__main__":
    sys.exit(main(sys.argv))
