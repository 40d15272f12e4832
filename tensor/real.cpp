// The symbol that every file including tensor/real.h refers to: defined once, in the library of
// the same precision, so that a program compiled for the other one is refused by the linker with
// the reason in the symbol's name (see tensor/real.h). Its value is never read.
#include "tensor/real.h"

extern "C" [[gnu::visibility("hidden")]] const char HEED_PRECISION_CHECK = 0;
