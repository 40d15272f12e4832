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

// A program and the library it links must agree on real. A program compiled for double but linked
// with the float library (libheed-float.a) would otherwise meet a wall of undefined references
// (every function that takes a real is named for double in the program, for float in the library).
// So every file that includes this one refers to one symbol, whose name says what went wrong when
// it is missing; each library defines the one its own programs refer to (tensor/real.cpp).
// Linking a double program with the float library then fails with, as its first error:
//   undefined reference to `heed_library_is_float_but_this_program_was_compiled_for_double'
// (The compiler cannot see which library will be linked: the mismatch can only be caught here.)
//
// The reference is 4 bytes at the start of the file's code (.text), before any function, so that
// the linker, which reports a file's missing symbols in the order of its code, names this one
// first. The bytes are never run. ELF only (Linux, BSD); elsewhere (macOS) a plain reference does
// the same job, though the linker may list it after the others.
#ifdef HEED_REAL_FLOAT
#define HEED_PRECISION_CHECK heed_library_is_double_but_this_program_was_compiled_for_float
#else
#define HEED_PRECISION_CHECK heed_library_is_float_but_this_program_was_compiled_for_double
#endif
#define HEED_PRECISION_STRING_(x) #x
#define HEED_PRECISION_STRING(x) HEED_PRECISION_STRING_(x)
#if defined(__ELF__)
// .hidden: the symbol is in the program's own link (the static library), never in a shared one.
asm(".pushsection .text\n\t.hidden " HEED_PRECISION_STRING(HEED_PRECISION_CHECK) "\n\t.4byte "
    HEED_PRECISION_STRING(HEED_PRECISION_CHECK) " - .\n\t.popsection");
#else
extern "C" const char HEED_PRECISION_CHECK;
[[gnu::used]] static const char* const heed_precision_check = &HEED_PRECISION_CHECK;
#endif
