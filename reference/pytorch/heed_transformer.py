# Runs a heed Transformer checkpoint (heed train --model transformer --save FILE) in stock
# PyTorch: the safetensors file is read by hand (8-byte header length, JSON header, raw
# little-endian data), its tensors load into torch.nn.Transformer's encoder and decoder under the
# very same names, and greedy decoding prints what `heed predict` prints, with the log-probability.
#
#   /usr/bin/python3 reference/pytorch/heed_transformer.py model.safetensors "3 1 4 1 5"
#
# Needs python3-torch. The toy tasks' tokens are the symbols 0 .. V-1 (ids 3 .. V+2); translate
# checkpoints hold no word list, so this script reads the toy tasks only.
import json
import math
import struct
import sys

import torch

PAD, BOS, EOS = 0, 1, 2
DTYPES = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16}


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    meta = header.pop("__metadata__", {})
    body = data[8 + n :]
    tensors = {}
    for name, info in header.items():
        start, stop = info["data_offsets"]
        t = torch.frombuffer(bytearray(body[start:stop]), dtype=DTYPES[info["dtype"]])
        tensors[name] = t.reshape(info["shape"]).to(torch.float64)
    return tensors, meta


def sinusoidal(L, D):
    P = torch.zeros(L, D, dtype=torch.float64)
    for i in range(0, D, 2):
        freq = 10000.0 ** (-i / D)
        for p in range(L):
            P[p, i] = math.sin(p * freq)
            if i + 1 < D:
                P[p, i + 1] = math.cos(p * freq)
    return P


class HeedTransformer(torch.nn.Module):
    """heed's --model transformer: embeddings x sqrt(D) + positions, nn.Transformer, out."""

    def __init__(self, meta):
        super().__init__()
        if meta.get("model") != "transformer":
            raise SystemExit("not a transformer checkpoint (model %s)" % meta.get("model"))
        V_src, V_tgt, D = int(meta["src_vocab"]), int(meta["tgt_vocab"]), int(meta["embed"])
        layers, max_len = int(meta["layers"]), int(meta["max_src_len"])
        self.D = D
        self.learned = meta["positions"] == "learned"
        self.src_embed = torch.nn.Embedding(V_src, D, padding_idx=PAD)
        self.tgt_embed = torch.nn.Embedding(V_tgt, D, padding_idx=PAD)
        if self.learned:
            self.src_pos = torch.nn.Embedding(max_len, D)
            self.tgt_pos = torch.nn.Embedding(max_len + 1, D)
        t = torch.nn.Transformer(d_model=D, nhead=int(meta["heads"]), num_encoder_layers=layers,
                                 num_decoder_layers=layers, dim_feedforward=int(meta["ff"]), dropout=0.0,
                                 batch_first=True, norm_first=meta["norm_first"] == "1")
        self.encoder, self.decoder = t.encoder, t.decoder  # so the names are heed's
        self.out = torch.nn.Linear(D, V_tgt)

    def embed(self, table, pos, ids):  # ids (B, L) -> (B, L, D)
        x = table(ids) * math.sqrt(self.D)
        L = ids.shape[1]
        return x + (pos.weight[:L] if self.learned else sinusoidal(L, self.D))

    @torch.no_grad()
    def greedy(self, src_ids, steps):
        src = torch.tensor([src_ids])
        memory = self.encoder(self.embed(self.src_embed, getattr(self, "src_pos", None), src))
        out, log_prob = [BOS], 0.0
        for _ in range(steps):
            tgt = torch.tensor([out])
            T = tgt.shape[1]
            causal = torch.triu(torch.full((T, T), float("-inf"), dtype=torch.float64), diagonal=1)
            h = self.decoder(self.embed(self.tgt_embed, getattr(self, "tgt_pos", None), tgt), memory, tgt_mask=causal)
            logp = torch.log_softmax(self.out(h[0, -1]), dim=-1)
            token = int(torch.argmax(logp))
            out.append(token)
            log_prob += float(logp[token])
            if token == EOS:
                break
        return out[1:], log_prob


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: heed_transformer.py CHECKPOINT \"SOURCE SYMBOLS\"")
    tensors, meta = read_safetensors(sys.argv[1])
    model = HeedTransformer(meta).double()
    model.load_state_dict(tensors, strict=True)  # every name and shape must agree
    model.eval()
    src = [int(s) + 3 for s in sys.argv[2].split()]
    tokens, log_prob = model.greedy(src, 2 * len(src) + 10)
    words = ["<eos>" if t == EOS else "<pad>" if t == PAD else "<bos>" if t == BOS else str(t - 3) for t in tokens]
    print(" ".join(words))
    print("log_prob %.12f" % log_prob)


main()
