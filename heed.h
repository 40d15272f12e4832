// heed's whole public API in one include: a program says #include <heed/heed.h> (make install
// puts this file at include/heed/heed.h; docs/library.md). Each line is one public header, by
// layer, from the tensor up; the headers left out are internals (kernels, the command line's
// helpers), which make install does not install.
#pragma once

#include "tensor/eigen.h"    // eigenvalues of a real square matrix
#include "tensor/ops.h"      // Tensor's maths, + - * / with NumPy broadcasting, argmax_ids
#include "tensor/random.h"   // Generator: the one source of randomness, seeded
#include "tensor/real.h"     // heed::real: double, or float with -DHEED_REAL_FLOAT
#include "tensor/tensor.h"   // Tensor: a shape and its values
#include "tensor/threads.h"  // set_threads

#include "autograd/dot.h"        // a graph in Graphviz DOT
#include "autograd/functions.h"  // every differentiable op on Var, + - * / included
#include "autograd/gradcheck.h"  // gradients against central differences
#include "autograd/var.h"        // Var, backward(), NoGradGuard

#include "io/atomic_file.h"  // files replaced whole or not at all
#include "io/json.h"         // JSON values
#include "io/safetensors.h"  // the safetensors format
#include "io/utf8.h"         // UTF-8 checks (JSON strings)

#include "nn/attention.h"              // Bahdanau's and Luong's scores
#include "nn/checkpoint.h"             // a Module's parameters in a safetensors file
#include "nn/dropout.h"                // Dropout
#include "nn/embedding.h"              // Embedding: ids (N) or (B, S) to vectors
#include "nn/encoder.h"                // RecurrentEncoder
#include "nn/hooks.h"                  // Hooks: activations read or replaced by name
#include "nn/init.h"                   // PyTorch's initialisers
#include "nn/layer_norm.h"             // LayerNorm
#include "nn/linear.h"                 // Linear
#include "nn/loss.h"                   // cross_entropy, nll
#include "nn/module.h"                 // Module: named parameters
#include "nn/optim.h"                  // SGD, Adam, clip_grad_norm
#include "nn/positions.h"              // sinusoidal and learned positions
#include "nn/rnn_cell.h"               // RNN, GRU and LSTM cells
#include "nn/self_attention.h"         // SelfAttention, MultiHeadAttention, multi_head_attention
#include "nn/sequential.h"             // Sequential: layers one after another
#include "nn/transformer_attention.h"  // TransformerAttention (a packed in_proj)
#include "nn/transformer_layers.h"     // the encoder and decoder layers of Vaswani et al.

#include "viz/diagram.h"     // box-and-arrow SVG
#include "viz/film.h"        // a film of attention while a model learns
#include "viz/heatmap.h"     // attention matrices as text
#include "viz/html.h"        // the attention explorer page
#include "viz/score_grid.h"  // signed scores as SVG grids (the heads' scores)
#include "viz/svg.h"         // heatmaps and line charts as SVG

#include "models/beam.h"                  // beam search
#include "models/analysis/circuits.h"              // the papers' circuit scores of a decoder's heads
#include "models/config.h"                // ModelConfig
#include "models/tasks/data.h"                  // your own sentence pairs as a Task
#include "models/tasks/text.h"                  // your own text as windows for a decoder-only model
#include "models/decoder_model.h"         // the decoder-only Transformer
#include "models/evaluate.h"              // accuracy, greedy decoding of prompts
#include "models/analysis/gradient_path.h"         // how far a gradient travels (chapter 10)
#include "models/analysis/heads.h"                 // finding a decoder's heads by what they do (chapter 14)
#include "models/model.h"                 // Model, make_model
#include "models/self_attention_model.h"  // the self-attention tagger
#include "models/seq2seq.h"               // the recurrent encoder-decoders
#include "models/tasks/tasks.h"                 // copy, reverse, sort, ...
#include "models/train.h"                 // train(), Trainer
#include "models/transformer.h"           // the encoder-decoder Transformer
#include "models/tasks/translate.h"             // the toy translation task
#include "models/tasks/vocab.h"                 // Vocab
