// The test runner: doctest's main. Suites carry their chapter number (ch01_tensor, ...);
// run one chapter with: build/tests -ts=ch03*
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "tensor/tensor.h"

int main(int argc, char** argv) {
  heed::tune_allocator();  // as every heed program: keep freed tensors with the process
  doctest::Context context(argc, argv);
  return context.run();
}
