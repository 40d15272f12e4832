#!/usr/bin/env python3
"""heed's named activations (docs/hooks.md) computed again in PyTorch, on the loader's model.

    /usr/bin/python3 reference/pytorch/heed_hooks.py m.safetensors --tokens "3 1 4" --compare cache.safetensors
    /usr/bin/python3 reference/pytorch/heed_hooks.py t.safetensors --source "3 1 4" --tokens "4 1 3" --compare c.safetensors

run_with_cache(model, tokens, source) runs the model heed_checkpoint.load builds (stock
nn.MultiheadAttention, nn.TransformerEncoderLayer, nn.Transformer's stacks) once over <bos> tokens,
with forward hooks on its modules, and returns {name: tensor} under heed's names: the residual
stream from the layers' inputs and outputs, the norms' and linears' outputs, each attention
module's output. What nn.MultiheadAttention does not hand out (each head's q, k, v, pattern, z and
result) is computed in its hook from the module's weights and the inputs it was called with.
--compare reads a file `heed trace --cache NAMES --out FILE` wrote and prints one JSON line:
for every tensor in it, the largest difference from PyTorch's relative to the largest element
("worst" per name), and the names PyTorch has no value for ("missing").
tests/models/ch14_trace_torch_test.cpp holds every name to 1e-12 for the decoder-only model and the
Transformer. Decoder-only and Transformer checkpoints only (the recurrent models' hook points are
heed's own steps, which models.Seq2Seq does not split the same way).
"""
import argparse
import json
import math
import sys

import torch

from heed_checkpoint import CheckpointError, load, read_safetensors, source_ids
from models import BOS, DecoderOnly, Transformer, sinusoidal_positions


def _heads(module, query, key, value, causal, prefix, cache):
    """Each head's q, k, v (B, h, L, d_k), pattern (B, h, T, S), z (B, h, T, d_k) and result
    (B, h, T, D) of nn.MultiheadAttention `module` on the inputs it was called with."""
    D, h = module.embed_dim, module.num_heads
    dk = D // h
    W, b = module.in_proj_weight, module.in_proj_bias

    def split(x, i):  # (B, L, D) through projection i -> (B, h, L, d_k)
        y = torch.nn.functional.linear(x, W[i * D:(i + 1) * D], b[i * D:(i + 1) * D])
        return y.view(y.shape[0], y.shape[1], h, dk).transpose(1, 2)

    q, k, v = split(query, 0), split(key, 1), split(value, 2)
    scores = q @ k.transpose(-1, -2) / math.sqrt(dk)
    if causal:
        T, S = scores.shape[-2:]
        scores = scores.masked_fill(torch.ones(T, S, dtype=torch.bool).triu(1), float("-inf"))
    pattern = torch.softmax(scores, -1)
    z = pattern @ v
    Wo = module.out_proj.weight  # (D, D): head i's columns i d_k .. (i+1) d_k
    result = torch.stack([z[:, i] @ Wo[:, i * dk:(i + 1) * dk].T for i in range(h)], 1)
    for name, t in (("q", q), ("k", k), ("v", v), ("pattern", pattern), ("z", z), ("result", result)):
        cache[prefix + "hook_" + name] = t


def _hook_attention(module, causal, prefix, cache, handles, out_name=None):
    def fn(mod, inputs, output):
        _heads(mod, inputs[0], inputs[1], inputs[2], causal, prefix, cache)
        if out_name:
            cache[out_name] = output[0]
    handles.append(module.register_forward_hook(fn))


def _hook_output(module, name, cache, handles):
    handles.append(module.register_forward_hook(lambda m, i, o: cache.__setitem__(name, o)))


def _hook_input(module, name, cache, handles):
    handles.append(module.register_forward_pre_hook(lambda m, i: cache.__setitem__(name, i[0])))


def _hook_layer(layer, prefix, cache, handles, causal, cross=False):
    """An nn.TransformerEncoderLayer (cross=False) or nn.TransformerDecoderLayer under heed's names."""
    _hook_input(layer, prefix + "hook_resid_pre", cache, handles)
    _hook_output(layer, prefix + "hook_resid_post", cache, handles)
    _hook_attention(layer.self_attn, causal, prefix + "attn.", cache, handles, prefix + "hook_attn_out")
    norms = [layer.norm1, layer.norm2] + ([layer.norm3] if cross else [])
    mids = ["hook_resid_mid"] + (["hook_resid_mid_cross"] if cross else [])
    if cross:
        _hook_attention(layer.multihead_attn, False, prefix + "cross_attn.", cache, handles,
                        prefix + "hook_cross_attn_out")
    if layer.norm_first:  # norm i reads the stream after sublayer i - 1 and outputs ln i
        for i, norm in enumerate(norms):
            _hook_output(norm, prefix + f"ln{i + 1}.hook_normalized", cache, handles)
            if i > 0:
                _hook_input(norm, prefix + mids[i - 1], cache, handles)
    else:  # post-norm: norm i's output is the stream itself
        for i, norm in enumerate(norms[:-1]):
            _hook_output(norm, prefix + mids[i], cache, handles)
    _hook_output(layer.linear1, prefix + "mlp.hook_pre", cache, handles)
    _hook_input(layer.linear2, prefix + "mlp.hook_post", cache, handles)
    _hook_output(layer.linear2, prefix + "hook_mlp_out", cache, handles)


def _positions(table, L, D):
    return sinusoidal_positions(L, D, torch.float64) if table is None else table.weight[:L]


def run_with_cache(model, tokens, source=None):
    """{heed's name: activation} of one pass over <bos> tokens (and the source, for the
    Transformer), batch 1, float64. Grad stays enabled: PyTorch's fused inference path for
    encoder layers would otherwise skip the submodules, and their hooks with them."""
    cache, handles = {}, []
    ids = torch.tensor([[BOS] + tokens])
    T = ids.shape[1]
    try:
        if isinstance(model, DecoderOnly):
            cache["hook_embed"] = model.embed(ids)
            cache["hook_pos_embed"] = _positions(model.pos, T, model.d)
            for i, layer in enumerate(model.layers):
                prefix = f"blocks.{i}."
                if model.attention_only:  # x + attn(x): the stream before and after
                    def fn(mod, inputs, output, prefix=prefix):
                        _heads(mod, inputs[0], inputs[1], inputs[2], True, prefix + "attn.", cache)
                        cache[prefix + "hook_resid_pre"] = inputs[0]
                        cache[prefix + "hook_attn_out"] = output[0]
                        cache[prefix + "hook_resid_post"] = inputs[0] + output[0]
                    handles.append(layer.register_forward_hook(fn))
                else:
                    _hook_layer(layer, prefix, cache, handles, causal=True)
            if model.norm is not None:
                _hook_output(model.norm, "ln_final.hook_normalized", cache, handles)
            cache["logits"] = model(ids)
        elif isinstance(model, Transformer):
            src = torch.tensor([source])
            S = src.shape[1]
            scale = math.sqrt(model.d)
            cache["encoder.hook_embed"] = model.src_embed(src) * scale
            cache["encoder.hook_pos_embed"] = _positions(model.src_pos, S, model.d)
            cache["hook_embed"] = model.tgt_embed(ids) * scale
            cache["hook_pos_embed"] = _positions(model.tgt_pos, T, model.d)
            for i, layer in enumerate(model.encoder.layers):
                _hook_layer(layer, f"encoder.blocks.{i}.", cache, handles, causal=False)
            for i, layer in enumerate(model.decoder.layers):
                _hook_layer(layer, f"blocks.{i}.", cache, handles, causal=True, cross=True)
            _hook_output(model.encoder.norm, "encoder.ln_final.hook_normalized", cache, handles)
            _hook_output(model.decoder.norm, "ln_final.hook_normalized", cache, handles)
            causal = torch.triu(torch.full((T, T), float("-inf"), dtype=torch.float64), diagonal=1)
            memory = model.encode(src)
            y = model.embed(model.tgt_embed, model.tgt_pos, ids)
            cache["logits"] = model.out(model.decoder(y, memory, tgt_mask=causal))
        else:
            raise CheckpointError("heed_hooks: decoder-only and Transformer checkpoints only")
    finally:
        for h in handles:
            h.remove()
    return {k: v.detach() for k, v in cache.items()}


def compare(path, tokens, source, heed_cache):
    model, src_words, tgt_words = load(path)
    tgt = source_ids(tokens.split(), tgt_words, path)
    src = source_ids(source.split(), src_words, path) if source else None
    if isinstance(model, Transformer) and src is None:
        raise CheckpointError(f"{path}: a Transformer reads a source: give --source")
    torch_cache = run_with_cache(model, tgt, src)
    _, heed = read_safetensors(heed_cache)
    worst, missing = {}, []
    for name, value in heed.items():
        if name not in torch_cache:
            missing.append(name)
            continue
        want = torch_cache[name].reshape(value.shape)
        scale = max(float(want.abs().max()), 1e-300)
        worst[name] = float((value - want).abs().max()) / scale
    return {"compared": len(worst), "missing": missing, "worst": worst}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoint")
    p.add_argument("--tokens", required=True)
    p.add_argument("--source", default="")
    p.add_argument("--compare", required=True, help="a file heed trace --cache ... --out wrote")
    args = p.parse_args(argv)
    try:
        print(json.dumps(compare(args.checkpoint, args.tokens, args.source, args.compare)))
    except CheckpointError as e:
        print(f"heed_hooks: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
