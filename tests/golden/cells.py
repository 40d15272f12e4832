# Golden values for tests/nn/ch05_recurrent_test.cpp: PyTorch's RNNCell, GRUCell and LSTMCell
# in float64 with weights and inputs set by the formula fill() below (the C++ test uses the
# same formula). Run: /usr/bin/python3 tests/golden/cells.py
import math
import torch

def fill(shape, k):
    n = 1
    for d in shape:
        n *= d
    vals = [0.5 * math.sin(0.7 * i + k) for i in range(n)]
    return torch.tensor(vals, dtype=torch.float64).reshape(shape)

I, H, B = 3, 4, 2
for name, cls, G in [("rnn", torch.nn.RNNCell, 1), ("gru", torch.nn.GRUCell, 3), ("lstm", torch.nn.LSTMCell, 4)]:
    cell = cls(I, H).double()
    with torch.no_grad():
        cell.weight_ih.copy_(fill((G * H, I), 1))
        cell.weight_hh.copy_(fill((G * H, H), 2))
        cell.bias_ih.copy_(fill((G * H,), 3))
        cell.bias_hh.copy_(fill((G * H,), 4))
    x = fill((B, I), 5)
    h = fill((B, H), 6)
    if name == "lstm":
        c = fill((B, H), 7)
        h2, c2 = cell(x, (h, c))
        print(name, "h", ", ".join("%.17g" % v for v in h2.flatten().tolist()))
        print(name, "c", ", ".join("%.17g" % v for v in c2.flatten().tolist()))
    else:
        h2 = cell(x, h)
        print(name, "h", ", ".join("%.17g" % v for v in h2.flatten().tolist()))
