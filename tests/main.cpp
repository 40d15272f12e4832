// The test runner: doctest's main. Suites carry their chapter number (ch01_tensor, ...);
// run one chapter with: build/tests -ts=ch03*
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
