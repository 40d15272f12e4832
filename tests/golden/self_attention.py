# Golden values for tests/nn/ch12_self_attention_test.cpp: PyTorch's nn.MultiheadAttention in
# float64 (batch_first, per-head weights) with weights and inputs set by fill() below, the
# formula the C++ test uses too. heed's q_proj, k_proj, v_proj are the three (D, D) blocks of
# PyTorch's in_proj_weight. Padding: sequence 1 has 2 real positions of 3; heed zeroes padded
# query rows, so only real rows are compared. Run: /usr/bin/python3 tests/golden/self_attention.py
import math
import torch

def fill(shape, k):
    n = 1
    for d in shape:
        n *= d
    vals = [0.5 * math.sin(0.7 * i + k) for i in range(n)]
    return torch.tensor(vals, dtype=torch.float64).reshape(shape)

B, S, D = 2, 3, 4
x = fill((B, S, D), 9)
pad = torch.tensor([[False, False, False], [False, False, True]])  # True = padding (PyTorch)
for heads in (1, 2):
    mha = torch.nn.MultiheadAttention(D, heads, batch_first=True).double()
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([fill((D, D), 1), fill((D, D), 3), fill((D, D), 5)]))
        mha.in_proj_bias.copy_(torch.cat([fill((D,), 2), fill((D,), 4), fill((D,), 6)]))
        mha.out_proj.weight.copy_(fill((D, D), 7))
        mha.out_proj.bias.copy_(fill((D,), 8))
    out, w = mha(x, x, x, key_padding_mask=pad, need_weights=True, average_attn_weights=False)
    print("heads", heads, "out", ", ".join("%.17g" % v for v in out.flatten().tolist()))
    print("heads", heads, "weights", ", ".join("%.17g" % v for v in w.flatten().tolist()))
