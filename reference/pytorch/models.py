"""heed's sequence-to-sequence models, built from stock PyTorch modules.

The same models as heed's models/seq2seq.h, with the equations of docs/models.md: separate
source and target embeddings, a one-layer recurrent encoder (nn.GRU, nn.LSTM or nn.RNN,
optionally bidirectional), a decoder cell (nn.GRUCell, nn.LSTMCell or nn.RNNCell) started from
the encoder's state at the last real source position, and one of seven decoders:

    plain     s_t = cell(emb(y_{t-1}), s_{t-1});             logits = W_out s_t + b
    additive  e_ti = v^T tanh(W1 h_i + W2 s_{t-1});           s_t = cell([emb(y_{t-1}); c_t], s_{t-1})
              logits = W_out [s_t; c_t] + b                   (Bahdanau et al. 2014)
    general   s_t = cell(emb(y_{t-1}), s_{t-1}); e_ti = s_t^T W h_i
              h~_t = tanh(W_c [c_t; s_t]);                    logits = W_out h~_t + b   (Luong et al. 2015)
    dot       e_ti = s_t^T h_i          scaled  e_ti = s_t^T h_i / sqrt(H)
    cosine    e_ti = beta cos(s_t, h_i) location e_t = (W_a s_t)[:S]

Transformer is heed's --model transformer: torch.nn.Transformer's encoder and decoder between
source and target embeddings (times sqrt(d)) plus positions, and an output layer.

Import it as a library (`from models import Seq2Seq, Transformer`); heed_checkpoint.py loads a
heed checkpoint into these models, bench_step.py times their training steps. Importing changes
nothing global (not torch's default dtype): a model is built in the default dtype and converted
with .double() or .float() by its user. Parameter names are heed's: heed's checkpoints carry
PyTorch's state_dict names.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

PAD, BOS, EOS = 0, 1, 2
NUM_SPECIALS = 3
MODELS = ("plain", "additive", "general", "dot", "scaled", "cosine", "location")
LUONG = ("general", "dot", "scaled", "cosine", "location")
CELLS = {"gru": (nn.GRU, nn.GRUCell, 3), "lstm": (nn.LSTM, nn.LSTMCell, 4), "rnn": (nn.RNN, nn.RNNCell, 1)}


class AdditiveScore(nn.Module):
    """e_i = v^T tanh(W1 h_i + W2 s), no biases; W1 h_i once per batch (prepare)."""

    def __init__(self, query_size, key_size, attention_size):
        super().__init__()
        self.W1 = nn.Linear(key_size, attention_size, bias=False)
        self.W2 = nn.Linear(query_size, attention_size, bias=False)
        self.v = nn.Linear(attention_size, 1, bias=False)  # v^T: weight (1, A), as heed's attention.v

    def prepare(self, keys):  # (B, S, D) -> (B, S, A)
        return self.W1(keys)

    def forward(self, query, prepared):  # (B, H), (B, S, A) -> (B, S)
        return self.v(torch.tanh(prepared + self.W2(query).unsqueeze(1))).squeeze(2)


class GeneralScore(nn.Module):
    """e_i = s^T W h_i, no bias; W h_i once per batch."""

    def __init__(self, query_size, key_size):
        super().__init__()
        self.W = nn.Linear(key_size, query_size, bias=False)

    def prepare(self, keys):  # (B, S, D) -> (B, S, H)
        return self.W(keys)

    def forward(self, query, prepared):  # (B, H), (B, S, H) -> (B, S)
        return torch.bmm(prepared, query.unsqueeze(2)).squeeze(2)


class DotScore(nn.Module):
    """e_i = s^T h_i, divided by sqrt(H) when scaled."""

    def __init__(self, scaled):
        super().__init__()
        self.scaled = scaled

    def prepare(self, keys):
        return keys

    def forward(self, query, prepared):
        e = torch.bmm(prepared, query.unsqueeze(2)).squeeze(2)
        return e / math.sqrt(query.shape[1]) if self.scaled else e


def _normalize(x):  # x / |x| on the last axis, |x| = sqrt(sum x^2 + 1e-16) as heed
    return x / torch.sqrt((x * x).sum(-1, keepdim=True) + 1e-16)


class CosineScore(nn.Module):
    """e_i = beta cos(s, h_i), beta one learned scalar starting at 1."""

    def __init__(self):
        super().__init__()
        self.beta = nn.Parameter(torch.ones(1))

    def prepare(self, keys):
        return _normalize(keys)

    def forward(self, query, prepared):
        return torch.bmm(prepared, _normalize(query).unsqueeze(2)).squeeze(2) * self.beta


class LocationScore(nn.Module):
    """e = (W_a s)[:S]: scores of positions, reading no key."""

    def __init__(self, query_size, max_positions):
        super().__init__()
        self.W_a = nn.Linear(query_size, max_positions, bias=False)

    def prepare(self, keys):
        return keys

    def forward(self, query, prepared):
        S = prepared.shape[1]
        if S > self.W_a.out_features:
            raise ValueError(f"location attention: source length {S} exceeds {self.W_a.out_features} positions")
        return self.W_a(query)[:, :S]


def make_score(kind, H, D, max_src_len):
    if kind == "additive":
        return AdditiveScore(H, D, H)
    if kind == "general":
        return GeneralScore(H, D)
    if kind in ("dot", "scaled", "cosine") and D != H:
        raise ValueError(f"{kind} attention compares states of sizes {H} and {D}; they must be equal")
    if kind in ("dot", "scaled"):
        return DotScore(kind == "scaled")
    if kind == "cosine":
        return CosineScore()
    if kind == "location":
        return LocationScore(H, max_src_len)
    raise ValueError(f"unknown score {kind!r}")


class Seq2Seq(nn.Module):
    """One of heed's seven recurrent models. Batches are (src (B, S), lengths (B), tgt_in (B, T)) of ids.

    input_feeding (Luong et al. 2015, section 3.3; Luong models only): the cell also reads the
    previous step's h~_{t-1} (zeros before the first step), so the state is (cell state, h~)."""

    def __init__(self, model, src_vocab, tgt_vocab, embed, hidden, cell="gru", bidirectional=False,
                 max_src_len=64, input_feeding=False):
        super().__init__()
        if model not in MODELS:
            raise ValueError(f"unknown model {model!r} (choose {', '.join(MODELS)})")
        if cell not in CELLS:
            raise ValueError(f"unknown cell {cell!r} (choose {', '.join(CELLS)})")
        if input_feeding and model not in LUONG:
            raise ValueError(f"input feeding is for Luong models ({', '.join(LUONG)}), not {model!r}")
        rnn, rnn_cell, _ = CELLS[cell]
        self.kind, self.cell_kind, self.hidden, self.feeding = model, cell, hidden, input_feeding
        D = 2 * hidden if bidirectional else hidden
        self.src_embed = nn.Embedding(src_vocab, embed, padding_idx=PAD)
        self.tgt_embed = nn.Embedding(tgt_vocab, embed, padding_idx=PAD)
        self.encoder = rnn(embed, hidden, batch_first=True, bidirectional=bidirectional)
        self.bridge = nn.Linear(D, hidden) if bidirectional else None
        self.decoder = rnn_cell(embed + (D if model == "additive" else 0) + (hidden if input_feeding else 0), hidden)
        self.attention = make_score(model, hidden, D, max_src_len) if model != "plain" else None
        self.combine = nn.Linear(D + hidden, hidden, bias=False) if model in LUONG else None
        self.out = nn.Linear(hidden + D if model == "additive" else hidden, tgt_vocab)

    def encode(self, src, lengths):
        """-> states h (B, S, D), zero at padding; the decoder's first state; the mask (B, S)."""
        B, S = src.shape
        x = self.src_embed(src)  # (B, S, E)
        lengths_t = torch.as_tensor(lengths)
        if bool((lengths_t == S).all()):
            states, last = self.encoder(x)
        else:  # packing runs each sequence to its own last position, as heed's mask does
            packed = nn.utils.rnn.pack_padded_sequence(x, lengths_t, batch_first=True, enforce_sorted=False)
            states, last = self.encoder(packed)
            states, _ = nn.utils.rnn.pad_packed_sequence(states, batch_first=True, total_length=S)
        h = last[0] if self.cell_kind == "lstm" else last  # (directions, B, H)
        if self.bridge is not None:  # s_0 = tanh(bridge [h_fwd; h_bwd]); an LSTM's memory starts at zero
            s = torch.tanh(self.bridge(torch.cat([h[0], h[1]], 1)))
            state = (s, torch.zeros_like(s)) if self.cell_kind == "lstm" else s
        else:
            state = (last[0][0], last[1][0]) if self.cell_kind == "lstm" else last[0]
        if self.feeding:  # no h~_0: zeros
            state = (state, torch.zeros(B, self.hidden, dtype=states.dtype))
        mask = torch.arange(S).unsqueeze(0) < lengths_t.unsqueeze(1)  # (B, S)
        return states, state, mask

    def step(self, y_prev, state, states, keys, mask):
        """One decoder step: -> (what W_out reads (B, .), new state, attention weights (B, S) or None)."""
        y = self.tgt_embed(y_prev)  # (B, E)
        h_of = (lambda st: st[0]) if self.cell_kind == "lstm" else (lambda st: st)
        if self.kind == "plain":
            state = self.decoder(y, state)
            return h_of(state), state, None
        if self.kind == "additive":  # attends with s_{t-1}
            w = self._weights(self.attention(h_of(state), keys), mask)
            c = torch.bmm(w.unsqueeze(1), states).squeeze(1)  # (B, D)
            state = self.decoder(torch.cat([y, c], 1), state)
            return torch.cat([h_of(state), c], 1), state, w
        if self.feeding:
            state, feed = state
            y = torch.cat([y, feed], 1)
        state = self.decoder(y, state)  # Luong: attends with s_t
        s = h_of(state)
        w = self._weights(self.attention(s, keys), mask)
        c = torch.bmm(w.unsqueeze(1), states).squeeze(1)
        h_tilde = torch.tanh(self.combine(torch.cat([c, s], 1)))
        return h_tilde, ((state, h_tilde) if self.feeding else state), w

    @staticmethod
    def _weights(scores, mask):  # softmax over the real positions; exactly 0 at padding
        return torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=1)

    def forward(self, src, lengths, tgt_in):
        """Teacher-forced logits (B, T, V)."""
        states, state, mask = self.encode(src, lengths)
        keys = self.attention.prepare(states) if self.attention is not None else None
        outs = []
        for t in range(tgt_in.shape[1]):
            o, state, _ = self.step(tgt_in[:, t], state, states, keys, mask)
            outs.append(o)
        return self.out(torch.stack(outs, 1))  # one product for every step

    def loss(self, src, lengths, tgt_in, tgt_out):
        """Cross-entropy averaged over the non-PAD target tokens."""
        logits = self.forward(src, lengths, tgt_in)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1), ignore_index=PAD)


def sinusoidal_positions(L, D, dtype):
    """heed's nn/positions.cpp: P[p, 2i] = sin(p f_i), P[p, 2i+1] = cos(p f_i), f_i = 10000^(-2i/D)."""
    P = torch.zeros(L, D, dtype=dtype)
    for i in range(0, D, 2):
        freq = 10000.0 ** (-i / D)
        for p in range(L):
            P[p, i] = math.sin(p * freq)
            if i + 1 < D:
                P[p, i + 1] = math.cos(p * freq)
    return P


class Transformer(nn.Module):
    """heed's --model transformer (Vaswani et al. 2017): token embeddings x sqrt(d) plus positions
    (sinusoidal, or a learned table of max_src_len source and max_src_len + 1 target rows),
    torch.nn.Transformer's encoder and decoder stacks (each with its final LayerNorm, ReLU, no
    dropout at inference), and a linear output layer. The stacks are kept as self.encoder and
    self.decoder so that the parameter names are heed's (encoder.layers.0.self_attn.in_proj_weight).
    share_embeddings (heed train --share-embeddings, the paper's section 3.4) ties out.weight to
    tgt_embed.weight: one Parameter, which state_dict() lists under both names; heed's checkpoint
    holds it once, as tgt_embed.weight, so loading gives the same tensor to out.weight too."""

    def __init__(self, src_vocab, tgt_vocab, embed, heads, layers, ff, norm_first=False,
                 positions="sinusoidal", max_src_len=64, share_embeddings=False):
        super().__init__()
        if positions not in ("sinusoidal", "learned"):
            raise ValueError(f"unknown positions {positions!r} (choose sinusoidal, learned)")
        self.d, self.max_src_len = embed, max_src_len
        self.src_embed = nn.Embedding(src_vocab, embed, padding_idx=PAD)
        self.tgt_embed = nn.Embedding(tgt_vocab, embed, padding_idx=PAD)
        self.src_pos = nn.Embedding(max_src_len, embed) if positions == "learned" else None
        self.tgt_pos = nn.Embedding(max_src_len + 1, embed) if positions == "learned" else None
        stacks = nn.Transformer(d_model=embed, nhead=heads, num_encoder_layers=layers, num_decoder_layers=layers,
                                dim_feedforward=ff, dropout=0.0, batch_first=True, norm_first=norm_first)
        self.encoder, self.decoder = stacks.encoder, stacks.decoder
        self.out = nn.Linear(embed, tgt_vocab)
        if share_embeddings:
            self.out.weight = self.tgt_embed.weight
            self._register_load_state_dict_pre_hook(self._tied_table)

    @staticmethod
    def _tied_table(state_dict, prefix, *args):
        """A state dict holding the shared table once (heed's) names it for out.weight too."""
        if prefix + "tgt_embed.weight" in state_dict and prefix + "out.weight" not in state_dict:
            state_dict[prefix + "out.weight"] = state_dict[prefix + "tgt_embed.weight"]

    def embed(self, table, positions, ids):  # ids (B, L) -> (B, L, d)
        L = ids.shape[1]
        x = table(ids) * math.sqrt(self.d)
        if positions is None:
            return x + sinusoidal_positions(L, self.d, x.dtype)
        if L > positions.num_embeddings:
            raise ValueError(f"transformer: position {L - 1} is beyond the {positions.num_embeddings} learned positions")
        return x + positions.weight[:L]

    def encode(self, src):  # src (B, S) ids of one length -> memory (B, S, d)
        return self.encoder(self.embed(self.src_embed, self.src_pos, src))

    def next_token(self, memory, prefix):
        """The decoder run over the whole prefix (B, T) of target ids, <bos> first, with the causal
        mask: -> (logits of the last position (B, V), the last layer's cross-attention weights of the
        last position averaged over the heads (B, S), as `heed predict` shows them)."""
        T = prefix.shape[1]
        causal = torch.triu(torch.full((T, T), float("-inf"), dtype=memory.dtype), diagonal=1)
        seen = []  # the last layer's cross-attention inputs (query, key, value), recorded by a hook
        last = self.decoder.layers[-1].multihead_attn
        hook = last.register_forward_hook(lambda module, inputs, output: seen.append(inputs))
        try:
            h = self.decoder(self.embed(self.tgt_embed, self.tgt_pos, prefix), memory, tgt_mask=causal)
        finally:
            hook.remove()
        query, key, value = seen[0]
        _, weights = last(query, key, value, need_weights=True, average_attn_weights=True)  # (B, T, S)
        return self.out(h[:, -1]), weights[:, -1]


class DecoderOnly(nn.Module):
    """heed's --model decoder (models/decoder_model.h), a decoder-only Transformer language model:
    token embeddings plus positions (no sqrt(d) factor, as GPT-2), N layers of causal
    self-attention, and a linear output layer over the vocabulary. attention_only: each layer is
    an nn.MultiheadAttention added to the residual stream, x = x + attn(x) (Elhage et al. 2021: no
    feed-forward, no LayerNorm); else each is an nn.TransformerEncoderLayer run with a causal mask
    (post-norm, or pre-norm with norm_first), followed by a final nn.LayerNorm. Learned positions
    are a table of max_len rows. The attribute names are heed's parameter names.
    share_embeddings (heed train --model decoder --share-embeddings) ties out.weight to
    embed.weight, as GPT-2 does: one Parameter, which state_dict() lists under both names and
    which gets the gradients of both uses; heed's checkpoint holds it once, as embed.weight, and
    loading gives the same tensor to out.weight too (as Transformer's share_embeddings)."""

    def __init__(self, vocab, embed, heads, layers, ff, attention_only=False, norm_first=False,
                 positions="sinusoidal", max_len=64, share_embeddings=False):
        super().__init__()
        if positions not in ("sinusoidal", "learned"):
            raise ValueError(f"unknown positions {positions!r} (choose sinusoidal, learned)")
        self.d = embed
        self.embed = nn.Embedding(vocab, embed, padding_idx=PAD)
        self.pos = nn.Embedding(max_len, embed) if positions == "learned" else None
        if attention_only:
            self.layers = nn.ModuleList(
                nn.MultiheadAttention(embed, heads, dropout=0.0, batch_first=True) for _ in range(layers))
            self.norm = None
        else:
            self.layers = nn.ModuleList(
                nn.TransformerEncoderLayer(embed, heads, dim_feedforward=ff, dropout=0.0, batch_first=True,
                                           norm_first=norm_first) for _ in range(layers))
            self.norm = nn.LayerNorm(embed)
        self.out = nn.Linear(embed, vocab)
        if share_embeddings:
            self.out.weight = self.embed.weight
            self._register_load_state_dict_pre_hook(self._tied_table)
        self.attention_only = attention_only

    @staticmethod
    def _tied_table(state_dict, prefix, *args):
        """A state dict holding the shared table once (heed's) names it for out.weight too."""
        if prefix + "embed.weight" in state_dict and prefix + "out.weight" not in state_dict:
            state_dict[prefix + "out.weight"] = state_dict[prefix + "embed.weight"]

    def forward(self, ids, lengths=None):
        """ids (B, T), <bos> first; lengths (B) real positions per row (None: all) -> logits (B, T, V)."""
        B, T = ids.shape
        x = self.embed(ids)
        if self.pos is None:
            x = x + sinusoidal_positions(T, self.d, x.dtype)
        else:
            if T > self.pos.num_embeddings:
                raise ValueError(f"decoder: position {T - 1} is beyond the {self.pos.num_embeddings} learned positions")
            x = x + self.pos.weight[:T]
        causal = torch.triu(torch.full((T, T), float("-inf"), dtype=x.dtype), diagonal=1)
        padding = None if lengths is None else torch.tensor([[i >= n for i in range(T)] for n in lengths])
        for layer in self.layers:
            if self.attention_only:
                x = x + layer(x, x, x, attn_mask=causal, key_padding_mask=padding, need_weights=False)[0]
            else:
                x = layer(x, src_mask=causal, src_key_padding_mask=padding)
        if self.norm is not None:
            x = self.norm(x)
        return self.out(x)

    def loss(self, ids, lengths, targets):
        """Cross-entropy of the next tokens, averaged over the non-PAD targets."""
        logits = self.forward(ids, lengths)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=PAD)


def make_optimizer(model, lr=3e-3):
    return torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.999), eps=1e-8)


def train_step(model, optimizer, batch, clip=1.0):
    """Forward with teacher forcing, loss, backward, gradient-norm clip, Adam: heed bench's step."""
    loss = model.loss(*batch)
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
    optimizer.step()
    return loss.item()


def reverse_batch(V, B, L, generator):
    """A batch of the reverse task, every source L symbols: (src, lengths, tgt_in, tgt_out)."""
    src = torch.randint(0, V, (B, L), generator=generator) + NUM_SPECIALS
    tgt = src.flip(1)
    bos = torch.full((B, 1), BOS)
    eos = torch.full((B, 1), EOS)
    return src, [L] * B, torch.cat([bos, tgt], 1), torch.cat([tgt, eos], 1)


def matmul_flops_forward(kind, cell, E, H, B, S, V, bidirectional=False, max_src_len=64):
    """Matrix-product FLOPs (2 m n k each) of one teacher-forced forward pass, counted as heed
    bench counts them (tools/bench_cmd.cpp); a training step is taken as 3x this."""
    G = CELLS[cell][2]
    T = S + 1
    D = (2 if bidirectional else 1) * H
    f = 2 * B * S * E * G * H * (D / H) + 2 * B * S * H * G * H * (D / H)  # encoder
    din = E + D if kind == "additive" else E
    f += 2 * B * T * din * G * H + 2 * B * T * H * G * H  # decoder cell
    if kind == "plain":
        return f + 2 * B * T * H * V
    if kind == "additive":  # W1 keys, W2 query, v, context, out
        return f + 2 * B * S * D * H + 2 * B * T * H * H + 2 * B * T * S * H + 2 * B * T * S * D + 2 * B * T * (H + D) * V
    if kind == "general":
        f += 2 * B * S * D * H
    f += 2 * B * T * H * max_src_len if kind == "location" else 2 * B * T * S * H  # scores
    return f + 2 * B * T * S * D + 2 * B * T * (D + H) * H + 2 * B * T * H * V  # context, W_c, out


def heed_name(name):
    """The name heed gives a parameter of this module: since checkpoint format heed-seq2seq-2,
    heed names its tensors as PyTorch's state_dict does, so the names are the same."""
    return name


def num_parameters(model):
    return sum(p.numel() for p in model.parameters())
