#!/usr/bin/python3
"""Check that models.py computes what heed computes: load a heed checkpoint's weights into the
PyTorch model, decode one source greedily in float64, and compare the tokens, the summed
log-probability and the attention weights with `heed predict --json` on the same checkpoint.

    /usr/bin/python3 reference/pytorch/check_models.py m.safetensors "3 1 4 1 5"   # from the repository root

Exit status 0 when the tokens agree and the numbers agree to 1e-9; 1 otherwise.
Symbol tasks only (copy, reverse, sort): the source is symbols, as heed predict reads them.
"""
import json
import os
import struct
import subprocess
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from models import BOS, NUM_SPECIALS, Seq2Seq, heed_name  # noqa: E402


def read_safetensors(path):
    """-> ({name: float64 tensor}, metadata) of a heed checkpoint (every tensor is F64)."""
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__", {})
    tensors = {}
    for name, e in header.items():
        if e["dtype"] != "F64":
            raise ValueError(f"{path}: {name} is {e['dtype']}, heed writes F64")
        a, b = e["data_offsets"]
        tensors[name] = torch.frombuffer(bytearray(raw[8 + n + a:8 + n + b]), dtype=torch.float64).reshape(e["shape"])
    return tensors, meta


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    path, source = sys.argv[1], sys.argv[2]
    heed = os.environ.get("HEED", os.path.join(HERE, "..", "..", "build", "heed"))
    run = subprocess.run([heed, "predict", "--load", path, "--json", source], capture_output=True, text=True, check=True)
    want = json.loads(run.stdout.strip().splitlines()[-1])

    tensors, meta = read_safetensors(path)
    torch.set_default_dtype(torch.float64)
    model = Seq2Seq(meta["model"], int(meta["src_vocab"]), int(meta["tgt_vocab"]), int(meta["embed"]),
                    int(meta["hidden"]), cell=meta["cell"], bidirectional=meta["bidirectional"] == "1",
                    max_src_len=int(meta["max_src_len"]))
    model.load_state_dict({name: tensors[heed_name(name)] for name, _ in model.named_parameters()})

    src = torch.tensor([[int(t) + NUM_SPECIALS for t in source.split()]])
    tokens, attention, log_prob = [], [], 0.0
    with torch.no_grad():
        states, state, mask = model.encode(src, [src.shape[1]])
        keys = model.attention.prepare(states) if model.attention is not None else None
        y = torch.tensor([BOS])
        for _ in range(len(want["output"])):  # heed stops at <eos>; so does its output list
            o, state, w = model.step(y, state, states, keys, mask)
            logp = torch.log_softmax(model.out(o), 1)
            y = logp.argmax(1)
            log_prob += logp[0, y].item()
            tokens.append("<eos>" if y.item() == 2 else str(y.item() - NUM_SPECIALS))
            if w is not None:
                attention.append(w[0].tolist())

    diff = max((abs(a - b) for r, s in zip(attention, want["attention"]) for a, b in zip(r, s)), default=0.0)
    ok = tokens == want["output"] and abs(log_prob - want["log_prob"]) < 1e-9 and diff < 1e-9
    print(f"{meta['model']} {meta['cell']}: tokens {'equal' if tokens == want['output'] else 'DIFFER'}; "
          f"log_prob heed {want['log_prob']:.12f}, PyTorch {log_prob:.12f}; max attention difference {diff:.1e}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
