#!/usr/bin/python3
"""PyTorch <-> infoflow-verify weights (docs/weights-format.md, "From and to PyTorch").

The module `InfoflowTransformer` is the documented architecture in torch (float64): an encoder, an optional positional
table, the CLS vector, layers of heads with W_O and an optional token-wise FFN, and a readout. `to_weights(module)`
writes the weights JSON object from it, `from_weights(obj)` builds it back; `from_state_dict(sd, betas)` reads a
state_dict with this module's parameter names and shapes. Anything else is refused with an error naming the key.

    python3 scripts/infoflow_torch.py export MODEL.pt WEIGHTS.json    # {"config", "state_dict"} as `import` writes it
                                                                      # (read with weights_only=True: no code runs)
    python3 scripts/infoflow_torch.py export MODEL.pt WEIGHTS.json --trust-pickle   # a torch.save'd module (runs its pickle)
    python3 scripts/infoflow_torch.py import WEIGHTS.json MODEL.pt    # torch.save of {"config": JSON text, "state_dict"}
    python3 scripts/infoflow_torch.py --help

Exit codes: 0 done; 2 bad input (the message names the key or shape); 3 PyTorch is not installed.
"""
import json, math, pickle, re, sys

try:
    import torch
except ImportError:  # the module is still importable for its docstring; the CLI says what is missing
    torch = None

FORMAT = "infoflow-verify/weights/1"


class ConversionError(ValueError):
    """Bad input: a missing key, a wrong shape, a non-finite number, a layer the format does not have."""


def _require_torch():
    if torch is None:
        raise RuntimeError("PyTorch is not installed (Debian: apt-get install python3-torch)")


ACTIVATIONS = ("relu", "gelu")


def _map_module(kind, n_in, n_out, width=0, activation="relu"):
    if kind == "affine":
        return torch.nn.Linear(n_in, n_out, dtype=torch.float64)
    if kind == "ffn":
        if activation not in ACTIVATIONS:
            raise ConversionError(f"an FFN's activation: expected 'relu' or 'gelu', got {activation!r}")
        # GeLU is the exact (erf) form, as the C++ side's (docs/theory.md §1).
        units = torch.nn.GELU(approximate="none") if activation == "gelu" else torch.nn.ReLU()
        return torch.nn.Sequential(torch.nn.Linear(n_in, width, dtype=torch.float64), units,
                                   torch.nn.Linear(width, n_out, dtype=torch.float64))
    raise ConversionError(f"map kind '{kind}': expected 'affine' or 'ffn'")


def _activation_of(m):
    """'gelu' or 'relu' for an FFN module, None for an affine one. Any other unit (Tanh, SiLU, the tanh approximation
    of GELU) is refused: the weights format has no name for it, and writing it as one of these would change the model."""
    if isinstance(m, torch.nn.Linear):
        return None
    units = m[1]
    if type(units) is torch.nn.ReLU:
        return "relu"
    if type(units) is torch.nn.GELU and getattr(units, "approximate", "none") == "none":
        return "gelu"
    raise ConversionError(f"an FFN's units: expected ReLU() or GELU() (the exact form), got {units!r}")


class Head(torch.nn.Module if torch else object):
    def __init__(self, E, key_dim, value_dim, beta):
        super().__init__()
        self.Q = torch.nn.Linear(E, key_dim, bias=False, dtype=torch.float64)
        self.K = torch.nn.Linear(E, key_dim, bias=False, dtype=torch.float64)
        self.V = torch.nn.Linear(E, value_dim, bias=False, dtype=torch.float64)
        self.register_buffer("beta", torch.tensor(float(beta), dtype=torch.float64))


class Layer(torch.nn.Module if torch else object):
    def __init__(self, E, heads, ffn_width, ffn_activation="relu"):
        super().__init__()
        self.heads = torch.nn.ModuleList(Head(E, k, n, b) for (k, n, b) in heads)
        self.W_O = torch.nn.Linear(sum(n for (_, n, _) in heads), E, bias=False, dtype=torch.float64)
        self.ffn = _map_module("ffn", E, E, ffn_width, ffn_activation) if ffn_width else None

    def attend(self, q, keys, values):
        """q: N × E queries; keys[i], values[i]: N × T × (n'|n). Returns q + W_O [a_1; a_2; ...]."""
        outs = []
        for h, k, v in zip(self.heads, keys, values):
            z = h.beta * torch.einsum("nk,ntk->nt", h.Q(q), k)
            w = torch.exp(z - z.max(dim=1, keepdim=True).values)
            outs.append(torch.einsum("nt,ntv->nv", w / w.sum(dim=1, keepdim=True), v))
        return q + self.W_O(torch.cat(outs, dim=1))


class InfoflowTransformer(torch.nn.Module if torch else object):
    """The architecture of docs/weights-format.md. `encoder`/`readout` are ('affine', 0), ('ffn', width) or
    ('ffn', width, 'gelu')."""

    def __init__(self, d, E, layers, encoder=("affine", 0), readout=("affine", 0), positions=0):
        super().__init__()
        _require_torch()
        self.d, self.E, self.positions = d, E, positions
        self.encoder = _map_module(encoder[0], d, E, encoder[1], *encoder[2:])
        self.positional = torch.nn.Parameter(torch.zeros(positions, E, dtype=torch.float64)) if positions else None
        self.cls0 = torch.nn.Parameter(torch.zeros(E, dtype=torch.float64))
        # layers: [(heads [(key_dim, value_dim, beta)], ffn_width[, 'gelu'])], the last with ffn_width 0.
        self.layers = torch.nn.ModuleList(Layer(E, *layer) for layer in layers)
        self.readout = _map_module(readout[0], E, 1, readout[1], *readout[2:])

    def forward(self, X):
        """X: N × T × d (float64). Returns the N outputs."""
        N, T, _ = X.shape
        if self.positions and T > self.positions:
            raise ConversionError(f"T = {T} exceeds the positional table ({self.positions} rows)")
        u = self.encoder(X)
        if self.positional is not None:
            u = u + self.positional[:T]
        c = self.cls0.expand(N, self.E)
        for i, layer in enumerate(self.layers):
            keys = [h.K(u) for h in layer.heads]
            values = [h.V(u) for h in layer.heads]
            new_c = layer.attend(c, keys, values)
            if i + 1 < len(self.layers):
                new_u = layer.attend(u.reshape(N * T, self.E), [k.repeat_interleave(T, 0) for k in keys],
                                     [v.repeat_interleave(T, 0) for v in values]).reshape(N, T, self.E)
                if layer.ffn is not None:
                    new_u = new_u + layer.ffn(new_u)
                    new_c = new_c + layer.ffn(new_c)
                u = new_u
            c = new_c
        return self.readout(c)[:, 0]


# ---- to and from the weights JSON ----

def _rows(t):
    return [[float(v) for v in row] for row in t.detach().cpu().tolist()]


def _vec(t):
    return [float(v) for v in t.detach().cpu().reshape(-1).tolist()]


def _map_to_json(m):
    if isinstance(m, torch.nn.Linear):
        return {"kind": "affine", "W": _rows(m.weight), "b": _vec(m.bias)}
    j = {"kind": "ffn", "W1": _rows(m[0].weight), "b1": _vec(m[0].bias), "W2": _rows(m[2].weight), "b2": _vec(m[2].bias)}
    if _activation_of(m) == "gelu":  # a ReLU FFN is written without the key, as the C++ side writes it
        j["activation"] = "gelu"
    return j


def to_weights(model):
    """The weights JSON object (a dict) of an InfoflowTransformer."""
    _require_torch()
    # By name: a module saved by a program that imported this file as `infoflow_torch` unpickles to that module's class,
    # not to the class of this file run as a script.
    if type(model).__name__ != "InfoflowTransformer" or not all(hasattr(model, a) for a in ("encoder", "layers", "readout")):
        raise ConversionError(f"expected an InfoflowTransformer (this module's architecture), got {type(model).__name__}: "
                              "build one and copy the weights in, or save its state_dict with model_config(model)")
    out = {"format": FORMAT, "d": model.d, "E": model.E, "positions": model.positions,
           "encoder": _map_to_json(model.encoder), "cls0": _vec(model.cls0), "layers": [],
           "readout": _map_to_json(model.readout)}
    if model.positional is not None:
        out["positional"] = _rows(model.positional)
    for layer in model.layers:
        out["layers"].append({
            "heads": [{"Q": _rows(h.Q.weight), "K": _rows(h.K.weight), "V": _rows(h.V.weight), "beta": float(h.beta)}
                      for h in layer.heads],
            "W_O": _rows(layer.W_O.weight),
            "ffn": _map_to_json(layer.ffn) if layer.ffn is not None else None})
    for v in _all_numbers(out):
        if not math.isfinite(v):
            raise ConversionError("a weight is not finite (NaN or infinity): the format holds finite numbers only")
    # The reader's rule (docs/weights-format.md): every temperature > 0. A file `eval` would refuse is not written.
    for i, layer in enumerate(out["layers"]):
        for j, h in enumerate(layer["heads"]):
            if not h["beta"] > 0:
                raise ConversionError(f"layers[{i}].heads[{j}].beta: expected a finite number > 0, got {h['beta']!r} "
                                      "(infoflow-verify's reader refuses it)")
    return out


def _all_numbers(obj):
    if isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield float(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _all_numbers(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _all_numbers(v)


def _get(obj, key, where):
    if not isinstance(obj, dict) or key not in obj:
        raise ConversionError(f"{where}: missing key '{key}'")
    return obj[key]


# A decimal number as infoflow-verify's reader takes it (a JSON number, or a string of decimal digits with an optional
# sign, point and exponent): never true/false (JSON booleans are not numbers there), nor "inf", "nan" or "1_000".
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _number(x, where):
    if isinstance(x, bool) or not isinstance(x, (int, float, str)):
        raise ConversionError(f"{where}: expected a number or a decimal string, got {json.dumps(x)[:40]}")
    if isinstance(x, str) and not _DECIMAL.fullmatch(x):
        raise ConversionError(f"{where}: expected a decimal number, got {json.dumps(x)[:40]}")
    v = float(x)
    if not math.isfinite(v):
        raise ConversionError(f"{where}: expected a finite number")
    return v


def _tensor(value, shape, where):
    try:
        t = torch.tensor([_number(x, where) for x in value] if shape[0] == -1
                         else [[_number(x, where) for x in r] for r in value], dtype=torch.float64)
    except TypeError:
        raise ConversionError(f"{where}: expected {'a vector' if shape[0] == -1 else 'a matrix'} of numbers")
    want = tuple(s for s in shape if s != -1)
    if tuple(t.shape) != want:
        raise ConversionError(f"{where}: expected shape {list(want)}, got {list(t.shape)}")
    if not torch.isfinite(t).all():
        raise ConversionError(f"{where}: not finite")
    return t


def _map_shape(m, where):
    """('affine', 0), ('ffn', width) or ('ffn', width, 'gelu')."""
    kind = _get(m, "kind", where)
    activation = m.get("activation", "relu") if isinstance(m, dict) else "relu"
    if kind == "affine":
        if isinstance(m, dict) and "activation" in m:
            raise ConversionError(f"{where}.activation: an affine map has no activation")
        return ("affine", 0)
    if kind == "ffn":
        if activation not in ACTIVATIONS:
            raise ConversionError(f"{where}.activation: expected 'relu' or 'gelu', got {activation!r}")
        width = len(_get(m, "W1", where))
        return ("ffn", width, "gelu") if activation == "gelu" else ("ffn", width)
    raise ConversionError(f"{where}.kind: expected 'affine' or 'ffn', got '{kind}'")


def _load_map(module, m, n_in, n_out, where):
    with torch.no_grad():
        if isinstance(module, torch.nn.Linear):
            module.weight.copy_(_tensor(_get(m, "W", where), (n_out, n_in), where + ".W"))
            module.bias.copy_(_tensor(_get(m, "b", where), (-1, n_out), where + ".b"))
        else:
            p = module[0].out_features
            module[0].weight.copy_(_tensor(_get(m, "W1", where), (p, n_in), where + ".W1"))
            module[0].bias.copy_(_tensor(_get(m, "b1", where), (-1, p), where + ".b1"))
            module[2].weight.copy_(_tensor(_get(m, "W2", where), (n_out, p), where + ".W2"))
            module[2].bias.copy_(_tensor(_get(m, "b2", where), (-1, n_out), where + ".b2"))


# The limits of infoflow-verify's own reader (docs/input-limits.md): sizes beyond them are refused before anything is
# allocated.
MAX_DIM, MAX_POSITIONS = 4096, 1 << 20


def _size(obj, key, lo, hi, default=None):
    value = obj.get(key, default) if default is not None else _get(obj, key, "weights")
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ConversionError(f"{key}: expected an integer in [{lo}, {hi}], got {value!r}")
    return value


def _rows_of(obj, key, count, where):
    """The document must hold `count` rows under `key` before a tensor of that size is allocated."""
    value = _get(obj, key, where)
    if not isinstance(value, list) or len(value) != count:
        raise ConversionError(f"{where}.{key}: expected {count} rows, got "
                              f"{len(value) if isinstance(value, list) else type(value).__name__}")


def _named_errors(where, build, *args):
    """build(*args), with a malformed document (a list where an object belongs, a string size, a layer that does not
    unpack...) turned into a ConversionError naming `where` instead of a traceback."""
    try:
        return build(*args)
    except ConversionError:
        raise
    except (TypeError, ValueError, AttributeError, KeyError) as e:
        raise ConversionError(f"{where}: malformed ({type(e).__name__}: {e})") from None


def from_weights(obj):
    """An InfoflowTransformer holding the weights JSON object's values (numbers as doubles; decimal strings rounded)."""
    _require_torch()
    return _named_errors("weights", _from_weights, obj)


def _from_weights(obj):
    fmt = obj.get("format", FORMAT) if isinstance(obj, dict) else None
    if fmt != FORMAT:
        raise ConversionError(f"format: expected '{FORMAT}', got {fmt!r}")
    d, E = _size(obj, "d", 1, MAX_DIM), _size(obj, "E", 1, MAX_DIM)
    positions = _size(obj, "positions", 0, MAX_POSITIONS, default=0)
    _rows_of(obj, "cls0", E, "weights")
    if positions:
        _rows_of(obj, "positional", positions, "weights")
    layers_json = _get(obj, "layers", "weights")
    if not isinstance(layers_json, list) or not layers_json:
        raise ConversionError("layers: expected a non-empty array")
    shapes = []
    for i, layer in enumerate(layers_json):
        heads = []
        for j, h in enumerate(_get(layer, "heads", f"layers[{i}]")):
            where = f"layers[{i}].heads[{j}]"
            beta = _number(_get(h, "beta", where), where + ".beta")
            if not beta > 0:
                raise ConversionError(f"{where}.beta: expected a finite number > 0")
            heads.append((len(_get(h, "Q", where)), len(_get(h, "V", where)), beta))
        ffn = layer.get("ffn")
        last = i + 1 == len(layers_json)
        if ffn is not None and last:
            raise ConversionError(f"layers[{i}].ffn: the last layer has no FFN")
        shape = _map_shape(ffn, f"layers[{i}].ffn") if ffn is not None else ("ffn", 0)
        if ffn is not None and ffn.get("kind") != "ffn":
            raise ConversionError(f"layers[{i}].ffn.kind: expected 'ffn'")
        shapes.append((heads, *shape[1:]))
    model = InfoflowTransformer(d, E, shapes, _map_shape(_get(obj, "encoder", "weights"), "encoder"),
                                _map_shape(_get(obj, "readout", "weights"), "readout"), positions)
    _load_map(model.encoder, obj["encoder"], d, E, "encoder")
    _load_map(model.readout, obj["readout"], E, 1, "readout")
    with torch.no_grad():
        model.cls0.copy_(_tensor(_get(obj, "cls0", "weights"), (-1, E), "cls0"))
        if positions:
            model.positional.copy_(_tensor(_get(obj, "positional", "weights"), (positions, E), "positional"))
        for i, (layer, lj) in enumerate(zip(model.layers, layers_json)):
            for j, (h, hj) in enumerate(zip(layer.heads, lj["heads"])):
                where = f"layers[{i}].heads[{j}]"
                h.Q.weight.copy_(_tensor(hj["Q"], (h.Q.out_features, E), where + ".Q"))
                h.K.weight.copy_(_tensor(_get(hj, "K", where), (h.K.out_features, E), where + ".K"))
                h.V.weight.copy_(_tensor(hj["V"], (h.V.out_features, E), where + ".V"))
            layer.W_O.weight.copy_(_tensor(_get(lj, "W_O", f"layers[{i}]"), (E, layer.W_O.in_features), f"layers[{i}].W_O"))
            if layer.ffn is not None:
                _load_map(layer.ffn, lj["ffn"], E, E, f"layers[{i}].ffn")
    return model


def _check_config(config, state_dict):
    """Sizes in range, and the large ones (E, the positional table) held by the state_dict itself, before the module
    they describe is allocated."""
    if not isinstance(config, dict) or not isinstance(state_dict, dict):
        raise ConversionError("expected a config dict and a state_dict")
    E = _size(config, "E", 1, MAX_DIM)
    _size(config, "d", 1, MAX_DIM)
    positions = _size(config, "positions", 0, MAX_POSITIONS, default=0)
    held = {k: tuple(v.shape) for k, v in state_dict.items() if hasattr(v, "shape")}
    if held.get("cls0") != (E,):
        raise ConversionError(f"state_dict['cls0']: expected shape [{E}] (config E), got {held.get('cls0')}")
    if positions and held.get("positional") != (positions, E):
        raise ConversionError(f"state_dict['positional']: expected shape [{positions}, {E}], got {held.get('positional')}")
    layers = config.get("layers")
    if not isinstance(layers, (list, tuple)) or not 1 <= len(layers) <= 64:
        raise ConversionError("config layers: expected 1 to 64 layers")
    for i, layer in enumerate(layers):
        if not isinstance(layer, (list, tuple)) or len(layer) not in (2, 3):
            raise ConversionError(f"config layers[{i}]: expected (heads, FFN width) or (heads, FFN width, 'gelu')")
        heads, width = layer[:2]
        if not 1 <= len(heads) <= 64 or not (isinstance(width, int) and 0 <= width <= MAX_DIM):
            raise ConversionError(f"config layers[{i}]: expected 1 to 64 heads and an FFN width in [0, {MAX_DIM}]")
        if len(layer) == 3 and (layer[2] not in ACTIVATIONS or width == 0):
            raise ConversionError(f"config layers[{i}]: expected an FFN activation 'relu' or 'gelu' with a width > 0")
        for key_dim, value_dim, beta in heads:
            if not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_DIM for v in (key_dim, value_dim)):
                raise ConversionError(f"config layers[{i}]: head dimensions must be integers in [1, {MAX_DIM}]")
            if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not (math.isfinite(beta) and beta > 0):
                raise ConversionError(f"config layers[{i}]: a head's beta must be a finite number > 0, got {beta!r}")
    for key in ("encoder", "readout"):
        spec = config.get(key, ("affine", 0))
        if not isinstance(spec, (list, tuple)) or len(spec) not in (2, 3):
            raise ConversionError(f"config {key}: expected ('affine', 0) or ('ffn', width[, 'gelu'])")
        kind, width = spec[:2]
        if kind not in ("affine", "ffn") or not (isinstance(width, int) and 0 <= width <= MAX_DIM):
            raise ConversionError(f"config {key}: expected ('affine', 0) or ('ffn', width <= {MAX_DIM})")
        if len(spec) == 3 and (kind != "ffn" or spec[2] not in ACTIVATIONS):
            raise ConversionError(f"config {key}: an activation ('relu' or 'gelu') belongs to an FFN")


def from_state_dict(state_dict, config):
    """An InfoflowTransformer from a state_dict with this module's names and shapes. `config` is the constructor's
    arguments as a dict (d, E, layers, encoder, readout, positions): a state_dict alone does not say which maps are
    FFNs or what the temperatures are. Unknown or missing keys, and shape mismatches, are refused by name."""
    _require_torch()
    return _named_errors("config", _from_state_dict, state_dict, config)


def _from_state_dict(state_dict, config):
    _check_config(config, state_dict)
    model = InfoflowTransformer(**config)
    expected = model.state_dict()
    unknown = sorted(set(state_dict) - set(expected))
    missing = sorted(set(expected) - set(state_dict))
    if unknown or missing:
        raise ConversionError(f"state_dict: unknown keys {unknown}, missing keys {missing} "
                              f"(expected the keys of InfoflowTransformer: {sorted(expected)})")
    for k, v in state_dict.items():
        if tuple(v.shape) != tuple(expected[k].shape):
            raise ConversionError(f"state_dict['{k}']: expected shape {list(expected[k].shape)}, got {list(v.shape)}")
    model.load_state_dict({k: v.to(torch.float64) for k, v in state_dict.items()})
    return model


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    try:
        _require_torch()
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 3
    try:
        if argv[1] == "export" and (len(argv) == 4 or argv[4:] == ["--trust-pickle"]):
            # A full pickled module runs code while it loads: only with --trust-pickle, for a file the user made.
            trusted = "--trust-pickle" in argv[4:]
            obj = torch.load(argv[2], weights_only=not trusted)
            if isinstance(obj, dict) and "config" in obj and "state_dict" in obj:
                obj = from_state_dict(obj["state_dict"], _config_from_file(obj["config"]))
            with open(argv[3], "w") as f:
                json.dump(to_weights(obj), f)
            return 0
        if argv[1] == "import" and len(argv) == 4:
            with open(argv[2]) as f:
                model = from_weights(json.load(f))
            # The config as a JSON string: torch.load(weights_only=True) reads strings, dicts and tensors only (Debian's
            # torch 1.13 refuses a pickled float), so `export` reads this file back without --trust-pickle.
            torch.save({"config": json.dumps(model_config(model)), "state_dict": model.state_dict()}, argv[3])
            return 0
        print("error: expected `export MODEL.pt WEIGHTS.json` or `import WEIGHTS.json MODEL.pt` (--help)", file=sys.stderr)
        return 2
    except (ConversionError, OSError, json.JSONDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except RecursionError:
        print(f"error: {argv[2]}: nested deeper than the reader can follow (not a weights file)", file=sys.stderr)
        return 2
    except pickle.UnpicklingError as e:  # weights_only refused a pickled module
        print(f"error: {argv[2]}: not a {{'config', 'state_dict'}} file ({e}); a pickled module loads only with "
              "--trust-pickle, since unpickling runs code", file=sys.stderr)
        return 2


def _config_from_file(config):
    """The config as `import` stores it (a JSON string) or as a dict (a file saved by a program, read with
    --trust-pickle)."""
    if isinstance(config, str):
        try:
            config = json.loads(config)
        except json.JSONDecodeError as e:
            raise ConversionError(f"config: expected the JSON of model_config(model) ({e})") from None
    if not isinstance(config, dict):
        raise ConversionError("config: expected a dict or its JSON (model_config(model))")
    return config


def model_config(model):
    """The constructor's arguments of an InfoflowTransformer (what from_state_dict needs beside the state_dict)."""
    def kind(m):
        if isinstance(m, torch.nn.Linear):
            return ("affine", 0)
        return ("ffn", m[0].out_features) + (("gelu",) if _activation_of(m) == "gelu" else ())

    def layer(l):
        heads = [(h.Q.out_features, h.V.out_features, float(h.beta)) for h in l.heads]
        return (heads, *kind(l.ffn)[1:]) if l.ffn is not None else (heads, 0)
    return {"d": model.d, "E": model.E, "positions": model.positions, "encoder": kind(model.encoder),
            "readout": kind(model.readout), "layers": [layer(l) for l in model.layers]}


if __name__ == "__main__":
    sys.exit(main(sys.argv))
