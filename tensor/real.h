// heed::real, the one scalar type, on its own: the kernels compiled once per instruction set
// (tensor/kernels.h) include this and nothing of Tensor.
#pragma once

namespace heed {

// real is float in the float build (`make float`: everything built with -DHEED_REAL_FLOAT, in build-float/).
#ifdef HEED_REAL_FLOAT
using real = float;
#else
// The one scalar type. Gradient checks need double; nothing else may hard-code it.
using real = double;
#endif
// real's name as PyTorch spells it, for what heed reports (heed bench, --json): "float64" or "float32".
inline constexpr const char* kRealName = sizeof(real) == 8 ? "float64" : "float32";

}  // namespace heed
