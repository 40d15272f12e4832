#!/usr/bin/env python3
"""Continue in PyTorch: a heed checkpoint loaded into stock modules.

    python3 reference/pytorch/heed_checkpoint.py m.safetensors --source "3 1 4 1 5"

builds the model a heed checkpoint describes from stock PyTorch modules (nn.Embedding, nn.GRU /
nn.LSTM / nn.RNN, nn.GRUCell / nn.LSTMCell / nn.RNNCell, nn.Linear), loads the file's tensors
with load_state_dict(strict=True) -- no renaming: heed names them as these modules' state_dict
does (docs/checkpoints.md) -- and decodes the source greedily as `heed predict` does, in float64.
It prints one JSON line per checkpoint with the fields of `heed predict --json`: source, output
(the file's own words), attention (one row per output token) and log_prob. Every model kind
(plain, additive, general, dot, scaled, cosine, location), cell (gru, lstm, rnn) and
--bidirectional is expressed; tests/ch04_pytorch_test.cpp holds the two programs equal to 1e-12.

Needs only torch (Debian: apt-get install python3-torch); the safetensors file is read by hand.
"""
import argparse
import json
import math
import struct
import sys

import torch
from torch import nn

torch.set_default_dtype(torch.float64)

PAD, BOS, EOS = 0, 1, 2
TRAINING_PREFIX = "training."  # a run's optimiser state: not the model's


def read_safetensors(path):
    """(metadata, {name: tensor}) of a safetensors file."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", {})
    dtypes = {"F64": torch.float64, "F32": torch.float32}
    tensors = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        raw = bytearray(data[8 + n + begin:8 + n + end])
        t = torch.frombuffer(raw, dtype=dtypes[info["dtype"]]) if raw else torch.zeros(0)
        tensors[name] = t.reshape(info["shape"]).to(torch.float64)
    return meta, tensors


class Additive(nn.Module):
    """Bahdanau: e_i = v(tanh(W1 h_i + W2 s))."""

    def __init__(self, query, key, size):
        super().__init__()
        self.W1 = nn.Linear(key, size, bias=False)
        self.W2 = nn.Linear(query, size, bias=False)
        self.v = nn.Linear(size, 1, bias=False)

    def forward(self, s, h):  # s (B, Dq), h (B, S, Dk) -> (B, S)
        return self.v(torch.tanh(self.W1(h) + self.W2(s).unsqueeze(1))).squeeze(2)


class General(nn.Module):
    """Luong's general: e_i = s . W h_i."""

    def __init__(self, query, key):
        super().__init__()
        self.W = nn.Linear(key, query, bias=False)

    def forward(self, s, h):
        return torch.bmm(self.W(h), s.unsqueeze(2)).squeeze(2)


class Dot(nn.Module):
    """Luong's dot, or Vaswani's scaled dot (divided by sqrt(D))."""

    def __init__(self, scaled):
        super().__init__()
        self.scaled = scaled

    def forward(self, s, h):
        e = torch.bmm(h, s.unsqueeze(2)).squeeze(2)
        return e / math.sqrt(s.shape[1]) if self.scaled else e


class Cosine(nn.Module):
    """Graves' content-based addressing: e_i = beta cos(s, h_i), |x| as sqrt(x.x + 1e-16)."""

    def __init__(self):
        super().__init__()
        self.beta = nn.Parameter(torch.ones(1))

    def forward(self, s, h):
        def unit(x):
            return x / torch.sqrt((x * x).sum(-1, keepdim=True) + 1e-16)

        return torch.bmm(unit(h), unit(s).unsqueeze(2)).squeeze(2) * self.beta


class Location(nn.Module):
    """Luong's location-based: e = W_a s over the first S of S_max positions."""

    def __init__(self, query, positions):
        super().__init__()
        self.W_a = nn.Linear(query, positions, bias=False)

    def forward(self, s, h):
        return self.W_a(s)[:, : h.shape[1]]


class Seq2Seq(nn.Module):
    """heed's Seq2Seq (models/seq2seq.h) from stock modules, configured by a checkpoint's metadata."""

    def __init__(self, meta):
        super().__init__()
        self.kind, self.cell = meta["model"], meta["cell"]
        E, H = int(meta["embed"]), int(meta["hidden"])
        bi = meta["bidirectional"] == "1"
        self.feeding = meta.get("input_feeding") == "1"  # Luong section 3.3: the cell reads h~_{t-1}
        D = 2 * H if bi else H
        self.src_embed = nn.Embedding(int(meta["src_vocab"]), E, padding_idx=PAD)
        self.tgt_embed = nn.Embedding(int(meta["tgt_vocab"]), E, padding_idx=PAD)
        rnn = {"gru": nn.GRU, "lstm": nn.LSTM, "rnn": nn.RNN}[self.cell]
        self.encoder = rnn(E, H, batch_first=True, bidirectional=bi)
        self.bridge = nn.Linear(D, H) if bi else None
        cell = {"gru": nn.GRUCell, "lstm": nn.LSTMCell, "rnn": nn.RNNCell}[self.cell]
        self.decoder = cell(E + (D if self.kind == "additive" else 0) + (H if self.feeding else 0), H)
        self.attention = {
            "plain": lambda: None,
            "additive": lambda: Additive(H, D, H),
            "general": lambda: General(H, D),
            "dot": lambda: Dot(False),
            "scaled": lambda: Dot(True),
            "cosine": lambda: Cosine(),
            "location": lambda: Location(H, int(meta["max_src_len"])),
        }[self.kind]()
        luong = self.kind not in ("plain", "additive")
        self.combine = nn.Linear(D + H, H, bias=False) if luong else None
        self.out = nn.Linear(H + D if self.kind == "additive" else H, int(meta["tgt_vocab"]))

    def start(self, src):  # src (1, S) ids -> encoder states (1, S, D), the decoder's first state
        states, last = self.encoder(self.src_embed(src))
        h_n = last[0] if self.cell == "lstm" else last  # (directions, 1, H)
        if self.bridge is not None:  # both directions' last states, bridged
            h = torch.tanh(self.bridge(torch.cat([h_n[0], h_n[1]], 1)))
            state = (h, torch.zeros_like(h)) if self.cell == "lstm" else h
        elif self.cell == "lstm":
            state = (h_n[0], last[1][0])
        else:
            state = h_n[0]
        if self.feeding:  # the state carries h~_{t-1} too, zeros before the first step
            state = (state, torch.zeros(1, self.decoder.hidden_size, dtype=states.dtype))
        return states, state

    def step(self, prev, state, states):  # -> (logits (1, V), attention (1, S) or None, state)
        y = self.tgt_embed(prev)
        h_of = (lambda st: st[0]) if self.cell == "lstm" else (lambda st: st)
        if self.kind == "plain":
            state = self.decoder(y, state)
            return self.out(h_of(state)), None, state
        if self.kind == "additive":  # attends with s_{t-1}, feeds the context into the cell
            a = torch.softmax(self.attention(h_of(state), states), 1)
            c = torch.bmm(a.unsqueeze(1), states).squeeze(1)
            state = self.decoder(torch.cat([y, c], 1), state)
            return self.out(torch.cat([h_of(state), c], 1)), a, state
        if self.feeding:
            state, feed = state
            y = torch.cat([y, feed], 1)
        state = self.decoder(y, state)  # Luong: attends with s_t
        a = torch.softmax(self.attention(h_of(state), states), 1)
        c = torch.bmm(a.unsqueeze(1), states).squeeze(1)
        h_tilde = torch.tanh(self.combine(torch.cat([c, h_of(state)], 1)))
        return self.out(h_tilde), a, ((state, h_tilde) if self.feeding else state)


def load(path):
    """The model of a heed checkpoint with its weights (strict), and its two vocabularies."""
    meta, tensors = read_safetensors(path)
    if meta.get("format") != "heed-seq2seq-2":
        sys.exit(f"{path}: format {meta.get('format')!r} is not heed-seq2seq-2")
    if meta.get("model") == "transformer":
        sys.exit(f"{path}: a transformer checkpoint; reference/pytorch/heed_transformer.py runs it")
    model = Seq2Seq(meta)
    weights = {k: v for k, v in tensors.items() if not k.startswith(TRAINING_PREFIX)}
    model.load_state_dict(weights, strict=True)
    return model.eval(), meta["src_tokens"].split(" "), meta["tgt_tokens"].split(" ")


@torch.no_grad()
def greedy(model, src_ids, max_steps):
    """heed predict's decoding: argmax until <eos>, at most max_steps tokens."""
    states, state = model.start(torch.tensor([src_ids]))
    prev, tokens, attention, log_prob = BOS, [], [], 0.0
    for _ in range(max_steps):
        logits, a, state = model.step(torch.tensor([prev]), state, states)
        logp = torch.log_softmax(logits, 1)[0]
        prev = int(torch.argmax(logp))  # the first of equal maxima, as heed
        tokens.append(prev)
        log_prob += float(logp[prev])
        if a is not None:
            attention.append([float(w) for w in a[0]])
        if prev == EOS:
            break
    return tokens, attention, log_prob


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoints", nargs="+", help="files written by heed train --save")
    p.add_argument("--source", required=True, help='source tokens, e.g. "3 1 4 1 5"')
    args = p.parse_args()
    for path in args.checkpoints:
        model, src_tokens, tgt_tokens = load(path)
        words = args.source.split()
        ids = [src_tokens.index(w) for w in words]
        tokens, attention, log_prob = greedy(model, ids, 2 * len(ids) + 10)
        print(json.dumps({"source": words, "output": [tgt_tokens[t] for t in tokens],
                          "attention": attention, "log_prob": log_prob}))


if __name__ == "__main__":
    main()
