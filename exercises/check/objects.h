// What an answer calls, read from its compiled object file. The exercises are compiled with
// -ffunction-sections, so each function sits in a section of its own, and that section's
// relocations (objdump -r) name every function and datum it refers to: those it calls, its
// lambdas, helpers of the same file, and the library functions it leaves for the linker. Following
// those references from one function gives everything that function can reach, even through a
// helper or a lambda of the student's own. A library function that a header defines inline and the
// compiler inlines leaves no reference; the lists of forbidden calls name only functions compiled
// into libheed, and the self-test (tests/exercises/) holds that each list catches a real call.
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

// Reads `path` with objdump -r. Throws std::runtime_error naming the file and what went wrong
// (missing, not an object, no objdump, or compiled without -ffunction-sections).
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

// Why function `qualified` may not be graded: the first forbidden function it reaches, as
// "it calls heed::softmax(heed::Tensor const&, long), which ...", or "" when it reaches none.
std::string forbidden_call(const ObjectReferences& object, const std::string& qualified,
                           const std::vector<std::string>& forbidden);

// The folder of the running program (build/, say), beside the objects make built it from: read
// from /proc/self/exe, which Linux has; elsewhere "build".
std::string program_dir();

}  // namespace heed::check
