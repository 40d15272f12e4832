// Every differentiable function on Vars, one header per concept; each op is read whole (forward,
// backward with its derivative, the reference it is tested against) in the matching .cpp:
//   autograd/elementwise   neg exp log tanh sigmoid relu sqrt pow, + - * / (broadcasting), where, masked_fill
//   autograd/reduce        sum mean max
//   autograd/matmul        matmul matmul_nt matmul_tn linear
//   autograd/layout        transpose reshape concat stack slice index_select
//   autograd/softmax       softmax (optionally masked) log_softmax masked_softmax cross_entropy nll
// Gradients always accumulate (+=). The layers' fused ops live with their layers: the recurrent
// steps in nn/rnn_cell.cpp, the attention score and weighted sum in nn/attention.cpp.
#pragma once

#include "autograd/elementwise.h"
#include "autograd/layout.h"
#include "autograd/matmul.h"
#include "autograd/reduce.h"
#include "autograd/softmax.h"
