// The fused recurrent steps (rnn_step, gru_step, lstm_step) are declared in nn/rnn_cell.h and
// defined in nn/rnn_cell.cpp, beside the composed steps they are tested against.
#pragma once

#include "nn/rnn_cell.h"
