// What an answer calls, and what the library's pieces call, read from compiled objects (an ELF or
// Mach-O object, or an archive such as libheed.a) with objdump or llvm-objdump: each relocation is
// charged to the function whose address range holds it, and the disassembly adds the direct calls
// the assembler resolved itself (to a local function of the same section). Following those
// references from one function gives everything it can reach, through helpers and lambdas. A
// library function that a header defines inline and the compiler inlines leaves no reference; the
// pieces named are functions compiled into libheed, and the self-test (tests/exercises/) holds that
// each exercise's list catches a real call, and the holes a list of names left.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace heed::check {

// Each function (or datum) of one object file, by its mangled name, and what its section refers to.
struct ObjectReferences {
  std::string path;
  std::map<std::string, std::set<std::string>> refers_to;
};

// Reads `path` with objdump -rt and -dr (llvm-objdump where objdump cannot read it). Throws
// std::runtime_error naming the file and what went wrong (missing, not an object, no object reader).
ObjectReferences read_object_references(const std::string& path);

// "heed::softmax(heed::Tensor const&, long)" for "_ZN4heed7softmaxERKNS_6TensorEl"; the name
// itself when it is not a mangled C++ name.
std::string demangle(const std::string& name);

// Every symbol (demangled) that function `qualified` (e.g. "heed::student::softmax_rows") reaches
// through the object's references. Throws std::runtime_error when the object defines no such function.
std::set<std::string> reached_from(const ObjectReferences& object, const std::string& qualified);

// Whether a demangled symbol is the library function `pattern` names: "heed::softmax" matches any
// overload of heed::softmax, "heed::GRUCell" every member of that class, and a pattern holding a
// '(' ("heed::tanh(heed::Var const&)") the symbol that begins with it.
bool names_function(const std::string& symbol, const std::string& pattern);

// What one exercise may not call, computed from the library's own objects: its pieces (the
// patterns of its chapter's list: the library functions the check holds the answer to, the checker,
// the solutions) and the kernels in those pieces' call trees (functions on raw memory or on the
// autograd's machinery, heed::gemm under heed::matmul), found by following the library's references.
struct Refusals {
  std::vector<std::string> patterns;
  std::map<std::string, std::string> under_piece;  // demangled kernel -> the piece whose tree holds it
};
// The library's graph (libheed.a, read once and kept beside it as libheed.a.calls).
ObjectReferences library_references(const std::string& archive);
Refusals refusals(const ObjectReferences& library, const std::vector<std::string>& forbidden);

// An earlier exercise of the chapter, as an answer may call it: "07.2", "masked_softmax_rows", and
// what it may not call. What an answer reaches through it is judged by its refusals as well.
struct OwnAnswer {
  std::string id, name;
  const Refusals* refusals;
};

// Why function `qualified` may not be graded: the first refused function it reaches, as "it calls
// heed::gemm(...), a kernel of the library's heed::matmul ...", prefixed "through your 07.2
// masked_softmax_rows, " when it was reached through that answer; "" when it reaches none.
std::string refused_call(const ObjectReferences& answers, const std::string& qualified, const Refusals& own,
                         const std::vector<OwnAnswer>& earlier = {});

// The folder of the running program (build/, say), beside the objects make built it from: read
// from /proc/self/exe where Linux has it, else from the path it was started by (set_program_path).
void set_program_path(const std::string& argv0);
std::string program_dir();

}  // namespace heed::check
