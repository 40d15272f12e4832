#include "exercises/check/objects.h"

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <sstream>
#include <stdexcept>
#include <climits>
#include <sys/wait.h>
#include <unistd.h>

namespace heed::check {
namespace {

// The symbol a section or relocation target stands for: ".text._ZN4heed3fooEv" and
// "_ZN4heed3fooEv.cold" are both "_ZN4heed3fooEv"; "_ZN..-0x4" loses its addend.
std::string node_of(std::string name) {
  for (const char* sign : {"+0x", "-0x"})
    if (size_t at = name.rfind(sign); at != std::string::npos && at > 0) name.resize(at);
  static const char* const kPrefixes[] = {".text.unlikely.", ".text.startup.", ".text.hot.", ".text.exit.",
                                          ".data.rel.ro.local.", ".data.rel.ro.", ".data.rel.local.", ".data.rel.",
                                          ".rodata.", ".data.", ".bss.", ".tbss.", ".tdata.", ".gcc_except_table.",
                                          ".text."};
  for (const char* p : kPrefixes) {
    const std::string prefix = p;
    if (name.rfind(prefix, 0) == 0 && name.size() > prefix.size()) {
      name = name.substr(prefix.size());
      break;
    }
  }
  // A mangled name holds no '.': what follows one is a compiler's clone (.cold, .constprop.0, .isra.0).
  if (name.rfind("_Z", 0) == 0)
    if (size_t dot = name.find('.'); dot != std::string::npos) name.resize(dot);
  return name;
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The function's name without its parameters, "heed::softmax" for "heed::softmax(heed::Tensor const&, long)";
// "vtable for heed::GRUCell" is heed::GRUCell's.
std::string function_name(std::string symbol) {
  for (const char* p : {"vtable for ", "typeinfo for ", "typeinfo name for ", "VTT for ", "construction vtable for ",
                        "guard variable for "}) {
    const std::string prefix = p;
    if (symbol.rfind(prefix, 0) == 0) {
      symbol = symbol.substr(prefix.size());
      break;
    }
  }
  return symbol.substr(0, symbol.find('('));
}

}  // namespace

std::string demangle(const std::string& name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return name;
  std::string out = d;
  std::free(d);
  return out;
}

ObjectReferences read_object_references(const std::string& path) {
  if (path.find('\'') != std::string::npos) throw std::runtime_error("cannot read " + path + ": a quote in its name");
  FILE* p = popen(("objdump -rt '" + path + "' 2>&1").c_str(), "r");
  if (!p) throw std::runtime_error("cannot run objdump to read " + path);
  std::string text;
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  const int raw = pclose(p);
  if (raw == -1 || !WIFEXITED(raw) || WEXITSTATUS(raw) != 0) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    throw std::runtime_error("objdump could not read " + path + " (is binutils installed, and is the exercise built?): " +
                             text.substr(0, 400));
  }
  ObjectReferences obj;
  obj.path = path;
  std::istringstream in(text);
  enum { kNone, kSymbols, kRelocations } part = kNone;
  std::string section;
  bool function_sections = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("SYMBOL TABLE:", 0) == 0) {
      part = kSymbols;
      continue;
    }
    if (line.rfind("RELOCATION RECORDS FOR [", 0) == 0) {
      part = kRelocations;
      section = node_of(line.substr(24, line.find(']') - 24));
      continue;
    }
    std::vector<std::string> w = words(line);
    if (part == kSymbols && w.size() >= 4) {
      // address, flags, section, size, [.hidden], name: a symbol the object defines.
      size_t n = w.size();
      std::string name = w[n - 1], sec = w[n - 3];
      if (n >= 5 && (w[n - 2] == ".hidden" || w[n - 2] == ".protected" || w[n - 2] == ".internal")) sec = w[n - 4];
      if (sec == "*UND*" || sec == "*ABS*" || name.rfind("_Z", 0) != 0) continue;
      if (sec.rfind(".text.", 0) == 0) function_sections = true;
      const std::string node = node_of(name), home = node_of(sec);
      obj.refers_to[node];  // defined here, perhaps referring to nothing
      if (home != node) obj.refers_to[node].insert(home);
    } else if (part == kRelocations && w.size() == 3 && w[0] != "OFFSET") {
      obj.refers_to[section].insert(node_of(w[2]));
    }
  }
  if (!function_sections)
    throw std::runtime_error(path + " was compiled without -ffunction-sections, so its calls cannot be told apart by "
                             "function; delete it and build again (exercises/exercises.mk compiles exercises with it)");
  return obj;
}

std::set<std::string> reached_from(const ObjectReferences& object, const std::string& qualified) {
  std::deque<std::string> frontier;
  std::set<std::string> seen;
  // The function itself and everything defined inside it (its lambdas, its static locals).
  for (const auto& [node, refs] : object.refers_to)
    if (demangle(node).rfind(qualified + "(", 0) == 0 && seen.insert(node).second) frontier.push_back(node);
  if (frontier.empty()) throw std::runtime_error(object.path + " defines no function " + qualified);
  while (!frontier.empty()) {
    const std::string node = frontier.front();
    frontier.pop_front();
    auto it = object.refers_to.find(node);
    if (it == object.refers_to.end()) continue;  // defined elsewhere: the library, the standard library
    for (const std::string& next : it->second)
      if (seen.insert(next).second) frontier.push_back(next);
  }
  std::set<std::string> out;
  for (const std::string& s : seen) out.insert(demangle(s));
  return out;
}

bool names_function(const std::string& symbol, const std::string& pattern) {
  if (pattern.find('(') != std::string::npos) return symbol.rfind(pattern, 0) == 0;
  const std::string name = function_name(symbol);
  return name == pattern || name.rfind(pattern + "::", 0) == 0;
}

std::string forbidden_call(const ObjectReferences& object, const std::string& qualified,
                           const std::vector<std::string>& forbidden) {
  // The answer's own namespace (heed::student) is its own code, whatever the names in it.
  const std::string own = qualified.substr(0, qualified.rfind("::") + 2);
  const std::set<std::string> reached = reached_from(object, qualified);
  for (const std::string& pattern : forbidden)
    for (const std::string& symbol : reached) {
      if (function_name(symbol).rfind(own, 0) == 0 || !names_function(symbol, pattern)) continue;
      const bool library = pattern != "heed::check" && pattern != "heed::solution";
      return "it calls " + symbol + (library ? ": the library's " + pattern + " does what this exercise asks you to write; " +
                                                   "write it from the pieces its README names"
                                             : ", part of " + (pattern == "heed::check" ? std::string("the checker") : std::string("the solutions")) +
                                                   ", which no answer may call");
    }
  return "";
}

std::string program_dir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "build";
  std::string path(buf, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/'));
}

}  // namespace heed::check
