// Your heed's cosine score: heed::CosineScore::score(query, prepared), Graves' beta cos(s, h_i)
// at every decoder step (nn/attention.cpp), on your cosine_scores (exercise 12.1). make yours
// links this file in place of heed's when 12.1 has passed; every cosine attention of heed
// (--model cosine) then scores the source positions with yours.
// heed divides each key by its norm once per batch (CosineScore::prepare, still heed's) and hands
// each step those unit keys; yours is handed them as its h. The cosine of s and h_i / |h_i| is the
// cosine of s and h_i, and a zero key (padding) stays zero, so its score is 0 as before; yours
// divides them by their norm (1, to rounding) once more.
#include "exercises/12_attention_zoo/exercises.h"
#include "nn/attention.h"

namespace heed {

Var CosineScore::score(const Var& query, const Var& prepared) const {
  if (query.value().dim() != 2 || prepared.value().dim() != 3 || query.shape()[0] != prepared.shape()[0] ||
      query.shape()[1] != prepared.shape()[2])
    throw Error("cosine attention (yours, exercise 12.1): query " + shape_str(query.shape()) + " and keys " +
                shape_str(prepared.shape()) + " must be (B, D) and (B, S, D)");
  return student::cosine_scores(query, prepared, beta);
}

}  // namespace heed
