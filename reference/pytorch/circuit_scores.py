#!/usr/bin/env python3
"""The papers' head scores of a heed decoder-only checkpoint, computed again in PyTorch.

    /usr/bin/python3 reference/pytorch/circuit_scores.py d.safetensors --rows "1 6 4 7 6 4 7|1 5 8 5 8"

loads a file written by `heed train --model decoder --save` with heed_checkpoint.load (stock
modules, float64) and prints one JSON line per checkpoint with, for each head (layer-major):
  copying         Olsson et al.'s copying score: sum(lambda) / sum(|lambda|) over the eigenvalues
                  of the full OV circuit W_U W_O W_V W_E (V x V), torch.linalg.eigvals (heed
                  solves the small d_head x d_head matrix with its own solver instead)
  composition     Elhage et al.'s Q-, K- and V-composition of every pair of heads of an earlier and
                  a later layer, by layer1, layer2, head1, head2 (models/analysis/circuits.h)
  dla             direct logit attribution on the rows given: each head's output, per position,
                  through the final LayerNorm's scale of this forward pass and W_U onto the
                  correct next token, the mean over the real positions
  previous_token, prefix_matching
                  the attention scores of models/analysis/heads.h on the rows, each read as a repeat
                  sequence BOS s s (prefix matching: heed's "induction score")
--rows gives the rows the model reads (BOS first), separated by '|'; each row's targets are the
row shifted by one with EOS last. tests/models/ch14_circuits_torch_test.cpp holds every number equal to
heed's to 1e-12.
"""
import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heed_checkpoint import CheckpointError, load  # noqa: E402
from models import EOS, PAD, sinusoidal_positions  # noqa: E402

sys.path.pop(0)


def attention_of(model, i):
    return model.layers[i] if model.attention_only else model.layers[i].self_attn


def head_matrices(model, i, h):
    """W_Q, W_K, W_V (d_head, D) and W_O (D, d_head) of head h of layer i."""
    attn = attention_of(model, i)
    D = attn.embed_dim
    dk = D // attn.num_heads
    w = attn.in_proj_weight.detach()
    rows = slice(h * dk, (h + 1) * dk)
    return (w[:D][rows], w[D:2 * D][rows], w[2 * D:][rows],
            attn.out_proj.weight.detach()[:, h * dk:(h + 1) * dk])


def copying(model, i, h):
    _, _, wv, wo = head_matrices(model, i, h)
    w_e = model.embed.weight.detach().T  # (D, V)
    w_u = model.out.weight.detach()      # (V, D)
    lam = torch.linalg.eigvals(w_u @ wo @ wv @ w_e)
    return (lam.real.sum() / lam.abs().sum()).item()


def composition(model):
    def score(a, b):
        return (torch.linalg.norm(a @ b) / (torch.linalg.norm(a) * torch.linalg.norm(b))).item()

    L, H = len(model.layers), attention_of(model, 0).num_heads
    out = []
    for l1 in range(L):
        for l2 in range(l1 + 1, L):
            for h1 in range(H):
                for h2 in range(H):
                    _, _, wv1, wo1 = head_matrices(model, l1, h1)
                    wq2, wk2, wv2, wo2 = head_matrices(model, l2, h2)
                    ov1, qk2, ov2 = wo1 @ wv1, wq2.T @ wk2, wo2 @ wv2
                    out.append({"layer1": l1, "head1": h1, "layer2": l2, "head2": h2,
                                "q": score(qk2.T, ov1), "k": score(qk2, ov1), "v": score(ov2, ov1)})
    return out


def forward_by_head(model, ids, lengths):
    """Each layer's per-head outputs (B, h, T, D) and attention weights (B, h, T, T), and the
    stream after the last layer (B, T, D), from the modules' own forward."""
    B, T = ids.shape
    x = model.embed(ids)
    x = x + (sinusoidal_positions(T, model.d, x.dtype) if model.pos is None else model.pos.weight[:T])
    causal = torch.triu(torch.full((T, T), float("-inf"), dtype=x.dtype), diagonal=1)
    padding = torch.tensor([[t >= n for t in range(T)] for n in lengths])
    results, weights = [], []
    for i, layer in enumerate(model.layers):
        attn = attention_of(model, i)
        inp = x if model.attention_only or not layer.norm_first else layer.norm1(x)
        _, w = attn(inp, inp, inp, attn_mask=causal, key_padding_mask=padding, need_weights=True,
                    average_attn_weights=False)  # (B, h, T, T)
        H, D = attn.num_heads, attn.embed_dim
        dk = D // H
        v = inp @ attn.in_proj_weight[2 * D:].T + attn.in_proj_bias[2 * D:]  # (B, T, D)
        v = v.view(B, T, H, dk).transpose(1, 2)                               # (B, h, T, dk)
        z = w @ v                                                              # (B, h, T, dk)
        wo = attn.out_proj.weight.view(D, H, dk)
        results.append(torch.einsum("bhtk,dhk->bhtd", z, wo))
        weights.append(w)
        if model.attention_only:
            x = x + layer(x, x, x, attn_mask=causal, key_padding_mask=padding, need_weights=False)[0]
        else:
            x = layer(x, src_mask=causal, src_key_padding_mask=padding)
    return results, weights, x


def dla(model, results, residual, targets, lengths):
    w_u = model.out.weight
    B, T = targets.shape
    real = torch.tensor([[t < n and targets[b, t].item() != PAD for t in range(T)] for b, n in enumerate(lengths)])
    unembed = w_u[targets]  # (B, T, D): W_U[y] at each position
    out = []
    for r in results:  # (B, h, T, D)
        if model.norm is not None:
            scale = torch.sqrt(residual.var(-1, unbiased=False, keepdim=True) + model.norm.eps)  # (B, T, 1)
            r = (r - r.mean(-1, keepdim=True)) / scale.unsqueeze(1) * model.norm.weight
        per = (r * unembed.unsqueeze(1)).sum(-1)  # (B, h, T)
        out += [per[:, h][real].mean().item() for h in range(per.shape[1])]
    return out


def attention_scores(weights, lengths):
    """Previous-token and prefix-matching scores of models/analysis/heads.h, rows read as BOS s s."""
    prev, prefix = [], []
    for w in weights:  # (B, h, T, T)
        for h in range(w.shape[1]):
            p = q = 0.0
            np_ = nq = 0
            for b, length in enumerate(lengths):
                n = (length - 1) // 2
                for t in range(1, 2 * n + 1):
                    p += w[b, h, t, t - 1].item()
                    np_ += 1
                for t in range(n + 1, 2 * n + 1):
                    q += w[b, h, t, t - n + 1].item()
                    nq += 1
            prev.append(p / np_)
            prefix.append(q / nq)
    return prev, prefix


def scores(path, rows):
    model, _, _ = load(path)
    if not isinstance(model.layers, torch.nn.ModuleList) or not hasattr(model, "attention_only"):
        raise CheckpointError(f"{path}: not a decoder-only model")
    ids_rows = [[int(t) for t in r.split()] for r in rows.split("|")]
    lengths = [len(r) for r in ids_rows]
    T = max(lengths)
    ids = torch.tensor([r + [PAD] * (T - len(r)) for r in ids_rows])
    targets = torch.tensor([r[1:] + [EOS] + [PAD] * (T - len(r)) for r in ids_rows])
    L, H = len(model.layers), attention_of(model, 0).num_heads
    with torch.no_grad():
        results, weights, residual = forward_by_head(model, ids, lengths)
        prev, prefix = attention_scores(weights, lengths)
        line = {"copying": [copying(model, i, h) for i in range(L) for h in range(H)],
                "composition": composition(model), "previous_token": prev, "prefix_matching": prefix}
        if model.attention_only or model.layers[0].norm_first:
            line["dla"] = dla(model, results, residual, targets, lengths)
    return line


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoints", nargs="+", help="files written by heed train --model decoder --save")
    p.add_argument("--rows", required=True, help='token ids, BOS first, rows separated by "|"')
    args = p.parse_args(argv)
    for path in args.checkpoints:
        try:
            print(json.dumps(scores(path, args.rows)), flush=True)
        except CheckpointError as e:
            print(f"circuit_scores: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
