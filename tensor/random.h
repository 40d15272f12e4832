// Generator: heed's only source of randomness, an explicit seeded object.
// xoshiro256** seeded through splitmix64, with our own uniform and normal transforms, so
// the same seed gives the same numbers on every machine and standard library
// (std::*_distribution differs between libraries and is never used).
#pragma once

#include <cstdint>
#include <string>

#include "tensor/tensor.h"

namespace heed {

class Generator {
 public:
  explicit Generator(uint64_t seed = 0);

  uint64_t next_u64();
  real uniform();                      // [0, 1) with 53 random bits
  real uniform(real lo, real hi);      // [lo, hi)
  real normal();                       // N(0, 1) by Box-Muller
  int64_t randint(int64_t lo, int64_t hi);  // uniform integer in [lo, hi], unbiased
  // A generator whose stream is independent of this one's (for a sub-task).
  Generator split();

  // The whole state as text, "s0 s1 s2 s3 spare" (decimal words, the spare normal as a hex
  // float or "-"), and back: a generator restored from state() continues the same stream bit
  // for bit, which is how a training checkpoint resumes its data. A malformed text is a
  // heed::Error naming it.
  std::string state() const;
  static Generator from_state(const std::string& text);

 private:
  uint64_t s_[4];
  bool has_spare_ = false;  // Box-Muller makes two normals at a time
  real spare_ = 0;
};

}  // namespace heed
