#!/usr/bin/env python3
"""Continue in PyTorch: any heed checkpoint loaded into stock modules and decoded.

    /usr/bin/python3 reference/pytorch/heed_checkpoint.py m.safetensors --source "3 1 4 1 5"

reads a file written by `heed train --save` (every model: the seven recurrent ones, the
Transformer and the decoder-only model; with the run's training state or --weights-only; any
task, translate included), builds the model its metadata describes from the stock PyTorch modules of models.py, loads the
file's tensors with load_state_dict(strict=True) -- no renaming: heed names them as these
modules' state_dict does (docs/checkpoints.md); the `training.` tensors, Adam's state, are left
out, and a --share-embeddings file holds its tied table once, as models.Transformer and
models.DecoderOnly take it --
and decodes the source greedily as `heed predict` does, in float64. It prints one JSON line per
checkpoint with the fields of `heed predict --json`: source, output (in the file's own
words), attention (one row per output token; for the Transformer the last decoder layer's
cross-attention averaged over the heads) and log_prob. tests/io/ch04_pytorch_test.cpp holds the two
programs equal to 1e-12. A decoder-only model (--model decoder) reads no source: its words start
the sequence, and the line gives each word's loss given the words before it ("nll") and the
greedy continuation ("output", "log_prob"); tests/models/ch14_decoder_torch_test.cpp holds them equal to
heed's to 1e-12.

As a library (with this folder on sys.path):

    from heed_checkpoint import load, greedy
    model, src_words, tgt_words = load("m.safetensors")     # a float64 torch.nn.Module, eval mode

Importing changes nothing global (not torch's default dtype). A file that is not a heed
checkpoint, an unknown model or a word outside the vocabulary raises CheckpointError, whose
message names the file and what is wrong; the command prints it and exits with status 1.
Needs only torch (Debian: apt-get install python3-torch); the safetensors file is read by hand.
"""
import argparse
import json
import struct
import sys

import torch

from models import BOS, EOS, MODELS, DecoderOnly, Seq2Seq, Transformer

FORMAT = "heed-seq2seq-2"
TRAINING_PREFIX = "training."  # a run's optimiser state: not the model's
DTYPES = {"F64": (torch.float64, 8), "F32": (torch.float32, 4)}  # safetensors name: (dtype, bytes)


class CheckpointError(Exception):
    """A checkpoint that cannot be read or run, or a source it cannot take; the message says why."""


def read_safetensors(path):
    """(metadata, {name: float64 tensor}) of a safetensors file: an 8-byte little-endian header
    length n, n bytes of JSON header, then the tensors' raw little-endian data."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise CheckpointError(f"{path}: cannot read it: {e.strerror}") from None
    if len(data) < 8:
        raise CheckpointError(f"{path}: {len(data)} bytes, too short for a safetensors file (8-byte header length first)")
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8:
        raise CheckpointError(f"{path}: not a safetensors file: the header length at offset 0 says {n} bytes, "
                              f"the file has {len(data) - 8} after it")
    try:
        header = json.loads(data[8:8 + n])
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"{path}: not a safetensors file: the header (offset 8, {n} bytes) is not JSON: {e}") from None
    if not isinstance(header, dict):
        raise CheckpointError(f"{path}: not a safetensors file: the header at offset 8 is not a JSON object")
    meta = header.pop("__metadata__", {})
    body = len(data) - 8 - n
    tensors = {}
    for name, info in header.items():
        if info.get("dtype") not in DTYPES:
            raise CheckpointError(f"{path}: tensor {name} is {info.get('dtype')}; heed writes F64 (F32 also read)")
        dtype, size = DTYPES[info["dtype"]]
        begin, end = info["data_offsets"]
        count = 1
        for d in info["shape"]:
            count *= d
        if not 0 <= begin <= end <= body or end - begin != count * size:
            raise CheckpointError(f"{path}: tensor {name}: data bytes {begin}..{end} (file offsets {8 + n + begin}.."
                                  f"{8 + n + end}) do not hold shape {info['shape']} within the file's {body} data bytes")
        raw = bytearray(data[8 + n + begin:8 + n + end])
        t = torch.frombuffer(raw, dtype=dtype) if raw else torch.zeros(0, dtype=dtype)
        tensors[name] = t.reshape(info["shape"]).to(torch.float64)
    return meta, tensors


def build(meta, path="checkpoint"):
    """The untrained model a heed checkpoint's metadata describes, in the default dtype."""
    model = meta.get("model")
    try:
        if model == "decoder":
            return DecoderOnly(int(meta["tgt_vocab"]), int(meta["embed"]), int(meta["heads"]), int(meta["layers"]),
                               int(meta["ff"]), attention_only=meta["attention_only"] == "1",
                               norm_first=meta["norm_first"] == "1", positions=meta["positions"],
                               max_len=int(meta["max_src_len"]),
                               share_embeddings=meta.get("share_embeddings") == "1")
        if model == "transformer":
            return Transformer(int(meta["src_vocab"]), int(meta["tgt_vocab"]), int(meta["embed"]), int(meta["heads"]),
                               int(meta["layers"]), int(meta["ff"]), norm_first=meta["norm_first"] == "1",
                               positions=meta["positions"], max_src_len=int(meta["max_src_len"]),
                               share_embeddings=meta.get("share_embeddings") == "1")
        if model in MODELS:
            return Seq2Seq(model, int(meta["src_vocab"]), int(meta["tgt_vocab"]), int(meta["embed"]),
                           int(meta["hidden"]), cell=meta["cell"], bidirectional=meta["bidirectional"] == "1",
                           max_src_len=int(meta["max_src_len"]), input_feeding=meta.get("input_feeding") == "1")
    except KeyError as e:
        raise CheckpointError(f"{path}: the metadata has no {e.args[0]!r}, which a {model} model needs") from None
    except ValueError as e:
        raise CheckpointError(f"{path}: {e}") from None
    raise CheckpointError(f"{path}: unknown model {model!r} (this loader knows {', '.join(MODELS)}, transformer, decoder)")


def load(path):
    """(model, source words, target words) of a heed checkpoint: the model in float64 and eval
    mode with the file's weights, loaded strictly (every name and shape must agree)."""
    meta, tensors = read_safetensors(path)
    if meta.get("format") != FORMAT:
        raise CheckpointError(f"{path}: format {meta.get('format')!r} is not {FORMAT}, heed's checkpoint format")
    model = build(meta, path).double()
    weights = {k: v for k, v in tensors.items() if not k.startswith(TRAINING_PREFIX)}
    try:
        model.load_state_dict(weights, strict=True)
    except RuntimeError as e:
        raise CheckpointError(f"{path}: its tensors do not fit the {meta['model']} model its metadata describes: {e}") from None
    if "src_tokens" not in meta or "tgt_tokens" not in meta:
        raise CheckpointError(f"{path}: the metadata holds no word lists (src_tokens, tgt_tokens)")
    return model.eval(), meta["src_tokens"].split(" "), meta["tgt_tokens"].split(" ")


def source_ids(words, vocabulary, path="checkpoint"):
    """The ids of a source's words; a word outside the vocabulary is a CheckpointError."""
    if not words:
        raise CheckpointError("the source is empty")
    index = {w: i for i, w in enumerate(vocabulary)}
    for w in words:
        if w not in index or index[w] <= EOS:  # <pad>, <bos>, <eos> are not source words
            known = " ".join(vocabulary[EOS + 1:EOS + 13])
            raise CheckpointError(f"{path}: the source word {w!r} is not in its source vocabulary "
                                  f"({len(vocabulary) - EOS - 1} words: {known} ...)")
    return [index[w] for w in words]


@torch.no_grad()
def greedy(model, src_ids, max_steps):
    """heed predict's decoding: the most probable token at each step (the first of equal maxima,
    as heed) until <eos>, at most max_steps tokens. -> (tokens, attention rows, summed log_prob)."""
    src = torch.tensor([src_ids])
    tokens, attention, log_prob = [], [], 0.0
    if isinstance(model, Transformer):
        memory = model.encode(src)

        def step(prev):  # the decoder reads the whole prefix again: nn.TransformerDecoder keeps no cache
            return model.next_token(memory, torch.tensor([[BOS] + tokens]))
    else:
        states, state, mask = model.encode(src, [len(src_ids)])
        keys = model.attention.prepare(states) if model.attention is not None else None

        def step(prev):  # one step of the recurrent decoder, carrying its state
            nonlocal state
            o, state, w = model.step(torch.tensor([prev]), state, states, keys, mask)
            return model.out(o), w

    prev = BOS
    for _ in range(max_steps):
        logits, w = step(prev)
        logp = torch.log_softmax(logits, 1)[0]
        prev = int(torch.argmax(logp))
        tokens.append(prev)
        log_prob += float(logp[prev])
        if w is not None:
            attention.append([float(x) for x in w[0]])
        if prev == EOS:
            break
    return tokens, attention, log_prob


@torch.no_grad()
def continue_sequence(model, ids, max_steps):
    """A decoder-only model on <bos> ids: -> (the loss of each word given those before it, the
    greedy continuation until <eos> (at most max_steps tokens), its summed log_prob). Each step
    runs the whole sequence again (heed keeps each layer's inputs instead: the same numbers)."""
    seq = [BOS] + ids
    logp = torch.log_softmax(model(torch.tensor([seq])), 2)[0]  # (T, V)
    nll = [-float(logp[i, w]) for i, w in enumerate(ids)]
    tokens, log_prob = [], 0.0
    for _ in range(max_steps):
        last = torch.log_softmax(model(torch.tensor([seq + tokens]))[0, -1], 0)
        prev = int(torch.argmax(last))
        tokens.append(prev)
        log_prob += float(last[prev])
        if prev == EOS:
            break
    return nll, tokens, log_prob


def predict(path, source):
    """`heed predict --json`'s fields for one checkpoint and one source (words split on spaces).
    A decoder-only model has no source: the words are the start of its sequence, scored word by
    word ("nll") and continued greedily ("output")."""
    model, src_words, tgt_words = load(path)
    words = source.split()
    if isinstance(model, DecoderOnly):
        ids = source_ids(words, tgt_words, path)
        try:
            nll, tokens, log_prob = continue_sequence(model, ids, len(ids) + 10)
        except ValueError as e:  # a position beyond those the model learned
            raise CheckpointError(f"{path}: {e}") from None
        return {"source": words, "nll": nll, "output": [tgt_words[t] for t in tokens], "attention": [],
                "log_prob": log_prob}
    ids = source_ids(words, src_words, path)
    if isinstance(model, Transformer) and model.src_pos is not None and len(ids) > model.max_src_len:
        raise CheckpointError(f"{path}: a source of {len(ids)} words; the model learned {model.max_src_len} positions")
    try:
        tokens, attention, log_prob = greedy(model, ids, 2 * len(ids) + 10)
    except ValueError as e:  # a position beyond those the model learned (location attention, learned positions)
        raise CheckpointError(f"{path}: {e}") from None
    return {"source": words, "output": [tgt_words[t] for t in tokens], "attention": attention, "log_prob": log_prob}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoints", nargs="+", help="files written by heed train --save")
    p.add_argument("--source", required=True, help='source words, e.g. "3 1 4 1 5"')
    args = p.parse_args(argv)
    for path in args.checkpoints:
        try:
            print(json.dumps(predict(path, args.source)), flush=True)
        except CheckpointError as e:
            print(f"heed_checkpoint: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
