#!/usr/bin/python3
"""Round trip between PyTorch and infoflow-verify (scripts/infoflow_torch.py, docs/weights-format.md):
random models of the documented architecture in torch (one and two layers, FFN or affine maps, positions, several
heads of different sizes) are written as weights JSON, evaluated by `infoflow-verify eval --precision double`, and
compared with torch's own forward pass: |y_torch - y_eval| <= 1e-12 max(1, |y|). The JSON read back into torch gives the
same parameters bit for bit. Bad inputs are refused by name. Skipped (exit 77) where PyTorch is not installed.

usage: torch_roundtrip_test.py PATH/TO/infoflow-verify SOURCE_DIR
"""
import contextlib, io, json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(sys.argv[2], "scripts"))
import infoflow_torch as it

if it.torch is None:
    if os.environ.get("INFOFLOW_REQUIRE_TORCH") == "1":  # scripts/test --with-torch (CI): a skip would hide the test
        print("FAIL: PyTorch is not installed but INFOFLOW_REQUIRE_TORCH=1 (scripts/test --with-torch) requires the round trip")
        sys.exit(1)
    print("SKIP: PyTorch is not installed (Debian: apt-get install python3-torch); the round trip was not run")
    sys.exit(77)
torch = it.torch

cli = sys.argv[1]
seed = int(os.environ.get("INFOFLOW_SEED", "20260529"))
print(f"randomized test: INFOFLOW_SEED={seed}")
gen = torch.Generator().manual_seed(seed)
fails = 0
largest = 0.0  # the largest relative difference seen, printed at the end


def main_in_process(*args):
    """infoflow_torch.py's main(argv) in this process: its exit status and what it wrote to stderr. The refusals are
    checked this way (each fresh interpreter would import torch again, about a second); the CLI's own exits are
    checked by the subprocess runs below."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = it.main(["infoflow_torch.py", *args])
    return rc, err.getvalue()


def check(name, ok, detail=""):
    global fails
    if not ok:
        fails += 1
        print(f"FAIL {name}: {detail}")


configs = [
    dict(d=2, E=4, layers=[([(2, 2, 1.5)], 0)], encoder=("ffn", 5), readout=("ffn", 3)),
    dict(d=3, E=5, layers=[([(2, 1, 0.7), (3, 2, 4.0)], 6), ([(1, 3, 2.0)], 0)], encoder=("affine", 0),
         readout=("ffn", 4), positions=6),
    dict(d=2, E=6, layers=[([(2, 2, 9.0)], 8), ([(2, 2, 9.0)], 0)], encoder=("ffn", 4), readout=("affine", 0), positions=5),
    # GeLU units (torch.nn.GELU, the exact erf form) in every FFN, beside ReLU ones.
    dict(d=2, E=5, layers=[([(2, 2, 1.2)], 6, "gelu"), ([(2, 2, 1.0)], 0)], encoder=("ffn", 4, "gelu"),
         readout=("ffn", 3), positions=5),
]
multiplier = int(os.environ.get("INFOFLOW_TEST_MULTIPLIER", "1"))
with tempfile.TemporaryDirectory() as tmp:
    for ci, cfg in enumerate(configs):
        for trial in range(2 * multiplier):
            model = it.InfoflowTransformer(**cfg)
            with torch.no_grad():
                for p in model.parameters():
                    p.copy_(torch.rand(p.shape, generator=gen, dtype=torch.float64) * 2 - 1)
            T = min(cfg.get("positions", 0) or 5, 5)
            X = torch.rand(16, T, cfg["d"], generator=gen, dtype=torch.float64)
            y_torch = model(X).detach()
            weights = os.path.join(tmp, f"w{ci}-{trial}.json")
            inputs = os.path.join(tmp, f"x{ci}-{trial}.json")
            with open(weights, "w") as f:
                json.dump(it.to_weights(model), f)
            with open(inputs, "w") as f:
                json.dump({"inputs": X.tolist()}, f)
            run = subprocess.run([cli, "eval", "--weights", weights, "--inputs", inputs, "--precision", "double"],
                                 capture_output=True, text=True)
            check(f"eval config {ci}", run.returncode == 0, run.stderr)
            if run.returncode != 0:
                continue
            y_eval = torch.tensor(json.loads(run.stdout)["outputs"], dtype=torch.float64)
            worst = float(((y_torch - y_eval).abs() / y_torch.abs().clamp(min=1.0)).max())
            largest = max(largest, worst)
            check(f"torch forward == eval, config {ci} trial {trial}", worst <= 1e-12, f"relative difference {worst:.3e}")
            back = it.from_weights(json.load(open(weights)))
            same = all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), back.state_dict().values()))
            check(f"JSON read back gives the same parameters, config {ci}", same)
            # And through a state_dict with its config, as `import`/`export` store it.
            again = it.from_state_dict(back.state_dict(), it.model_config(back))
            check(f"state_dict round trip, config {ci}", torch.equal(again(X), back(X)))

    # Refusals, each naming what is wrong.
    good = it.to_weights(it.InfoflowTransformer(**configs[0]))
    def refused(name, alter, needle):
        obj = json.loads(json.dumps(good))
        alter(obj)
        try:
            it.from_weights(obj)
            check(name, False, "accepted")
        except it.ConversionError as e:
            check(name, needle in str(e), f"message '{e}' lacks '{needle}'")
    refused("wrong shape", lambda o: o["layers"][0]["heads"][0]["K"].pop(), "layers[0].heads[0].K")
    refused("missing key", lambda o: o["layers"][0].pop("W_O"), "missing key 'W_O'")
    refused("bad kind", lambda o: o["encoder"].update(kind="conv"), "encoder.kind")
    refused("unknown activation", lambda o: o["encoder"].update(activation="tanh"), "encoder.activation")
    refused("activation of an affine map",
            lambda o: o.update(encoder={"kind": "affine", "activation": "gelu", "W": [[0.0] * 2] * 4, "b": [0.0] * 4}),
            "encoder.activation")
    refused("zero beta", lambda o: o["layers"][0]["heads"][0].update(beta=0), "beta")
    refused("FFN in the last layer", lambda o: o["layers"][0].update(ffn=good["encoder"]), "the last layer has no FFN")
    # Sizes an attacker controls are refused before anything is allocated.
    refused("huge positional table", lambda o: o.update(positions=1 << 20), "positional")
    refused("positional shorter than declared", lambda o: o.update(positions=1 << 20, positional=[[0.0] * 4]), "expected 1048576 rows")
    refused("positions beyond the limit", lambda o: o.update(positions=10 ** 12), "positions: expected an integer")
    refused("E as a string", lambda o: o.update(E="4"), "E: expected an integer")
    refused("E as a float", lambda o: o.update(E=4.0), "E: expected an integer")
    refused("heads not a list", lambda o: o["layers"][0].update(heads=7), "malformed")
    try:
        it.from_weights([1, 2])
        check("a list is not weights", False, "accepted")
    except it.ConversionError as e:
        check("a list is not weights", "format" in str(e), str(e))
    huge = it.model_config(it.InfoflowTransformer(**configs[0]))
    huge["positions"] = 1 << 20
    try:
        it.from_state_dict(it.InfoflowTransformer(**configs[0]).state_dict(), huge)
        check("a config bigger than its state_dict", False, "accepted")
    except it.ConversionError as e:
        check("a config bigger than its state_dict", "positional" in str(e), str(e))
    for what, change in (("a layer that does not unpack", lambda cfg: cfg.update(layers=[7])),
                         ("an unknown config key", lambda cfg: cfg.update(depth=3)),
                         ("a layer of four entries", lambda cfg: cfg.update(layers=[(cfg["layers"][0][0], 0, "gelu", 1)])),
                         ("an unknown activation", lambda cfg: cfg.update(encoder=("ffn", 5, "tanh"))),
                         ("an activation without an FFN", lambda cfg: cfg.update(layers=[(cfg["layers"][0][0], 0, "gelu")])),
                         ("an activation on an affine map", lambda cfg: cfg.update(readout=("affine", 0, "gelu")))):
        bad = it.model_config(it.InfoflowTransformer(**configs[0]))
        change(bad)
        try:
            it.from_state_dict(it.InfoflowTransformer(**configs[0]).state_dict(), bad)
            check(what, False, "accepted")
        except it.ConversionError as e:
            check(what, "config" in str(e), str(e))
    # Units the format has no name for are refused on export, never written as ReLU or exact GeLU.
    for what, units in (("Tanh units", torch.nn.Tanh()), ("GELU's tanh approximation", torch.nn.GELU(approximate="tanh"))):
        other = it.InfoflowTransformer(**configs[0])
        other.encoder[1] = units
        try:
            it.to_weights(other)
            check(f"export refuses {what}", False, "accepted")
        except it.ConversionError as e:
            check(f"export refuses {what}", "units" in str(e), str(e))
    sd = it.InfoflowTransformer(**configs[0]).state_dict()
    sd["extra.weight"] = torch.zeros(1)
    try:
        it.from_state_dict(sd, configs[0])
        check("unknown state_dict key", False, "accepted")
    except it.ConversionError as e:
        check("unknown state_dict key", "extra.weight" in str(e), str(e))
    # The CLI: export then import, and a bad file exits 2.
    path_pt, path_json, path_back = (os.path.join(tmp, n) for n in ("m.pt", "m.json", "back.pt"))
    m = it.InfoflowTransformer(**configs[1])
    torch.save(m, path_pt)
    script = os.path.join(sys.argv[2], "scripts", "infoflow_torch.py")
    run = subprocess.run([sys.executable, script, "export", path_pt, path_json], capture_output=True, text=True)
    check("a pickled module is not unpickled without --trust-pickle", run.returncode == 2 and "--trust-pickle" in run.stderr,
          run.stderr)
    rc = subprocess.run([sys.executable, script, "export", path_pt, path_json, "--trust-pickle"]).returncode
    check("export CLI", rc == 0 and it.to_weights(m) == json.load(open(path_json)), f"exit {rc}")
    rc = subprocess.run([sys.executable, script, "import", path_json, path_back]).returncode
    check("import CLI", rc == 0, f"exit {rc}")
    # The tool's own output reads back with the protection on: import, then export without --trust-pickle, gives the
    # same weights (the config is stored as JSON text, which weights_only=True loads).
    path_json2 = os.path.join(tmp, "m2.json")
    run = subprocess.run([sys.executable, script, "export", path_back, path_json2], capture_output=True, text=True)
    check("import then export without --trust-pickle", run.returncode == 0 and
          json.load(open(path_json2)) == json.load(open(path_json)), f"exit {run.returncode}: {run.stderr}")
    # A model whose temperature is 0 is not exported (eval would refuse the file), by the CLI or the function.
    zero = it.InfoflowTransformer(**configs[0])
    with torch.no_grad():
        zero.layers[0].heads[0].beta.zero_()
    torch.save({"config": json.dumps(it.model_config(zero)), "state_dict": zero.state_dict()}, path_pt)
    rc, err = main_in_process("export", path_pt, path_json2)
    check("export of beta = 0 exits 2 naming it", rc == 2 and "beta" in err, f"exit {rc}: {err}")
    try:
        it.to_weights(zero)
        check("to_weights refuses beta = 0", False, "accepted")
    except it.ConversionError as e:
        check("to_weights refuses beta = 0", "layers[0].heads[0].beta" in str(e), str(e))
    # import applies the C++ reader's rules: numbers or decimal strings only (true is not 1.0), beta > 0.
    for name, alter, needle in (
            ("true as a weight", lambda o: o["layers"][0]["W_O"][0].__setitem__(0, True), "layers[0].W_O"),
            ("a non-decimal string", lambda o: o["cls0"].__setitem__(0, "0x10"), "cls0"),
            ("infinity as a string", lambda o: o["cls0"].__setitem__(0, "inf"), "cls0"),
            ("true as beta", lambda o: o["layers"][0]["heads"][0].update(beta=True), "beta"),
            ("negative beta", lambda o: o["layers"][0]["heads"][0].update(beta=-1.0), "beta")):
        obj = json.loads(json.dumps(good))
        alter(obj)
        bad_path = os.path.join(tmp, "refused.json")
        with open(bad_path, "w") as f:
            json.dump(obj, f)
        rc, err = main_in_process("import", bad_path, path_back)
        check(f"import refuses {name}", rc == 2 and needle in err, f"exit {rc}: {err}")
    obj = json.loads(json.dumps(good))
    obj["cls0"][0] = "0.25"  # a decimal string, as the C++ reader takes it
    check("a decimal string is a number", float(it.from_weights(obj).cls0[0]) == 0.25)
    # JSON nested 100,000 deep is bad input (exit 2), never a traceback.
    deep = os.path.join(tmp, "deep.json")
    with open(deep, "w") as f:
        f.write("[" * 100000 + "]" * 100000)
    run = subprocess.run([sys.executable, script, "import", deep, path_back], capture_output=True, text=True)
    check("deep JSON exits 2", run.returncode == 2 and "Traceback" not in run.stderr, f"exit {run.returncode}: {run.stderr[-300:]}")
    with open(os.path.join(tmp, "bad.json"), "w") as f:
        f.write('{"format": "something else"}')
    rc, err = main_in_process("import", os.path.join(tmp, "bad.json"), path_back)
    check("import of a bad file exits 2 naming the key", rc == 2 and "format" in err, err)

print(f"torch round trip: largest |torch - eval| / max(1, |y|) = {largest:.3e}; " + ("ok" if fails == 0 else f"{fails} failure(s)"))
sys.exit(1 if fails else 0)
