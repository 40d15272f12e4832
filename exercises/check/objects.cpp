#include "exercises/check/objects.h"

#include <cxxabi.h>

#include <cctype>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <climits>
#include <sys/stat.h>
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

std::string demangle(const std::string& node) {
  const std::string name = node.substr(0, node.find('#'));  // a local symbol's member number dropped
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return name;
  std::string out = d;
  std::free(d);
  return out;
}

namespace {

// objdump's output for `args` on `path`: GNU binutils' objdump reads ELF (Linux); llvm-objdump (macOS's
// objdump, Debian's llvm) also reads Mach-O, and is tried when the first cannot read the file.
std::string objdump(const std::string& args, const std::string& path) {
  std::string why;
  for (const char* tool : {"objdump", "llvm-objdump"}) {
    FILE* p = popen((std::string(tool) + " " + args + " '" + path + "' 2>&1").c_str(), "r");
    if (!p) continue;
    std::string text;
    char buf[65536];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
    const int raw = pclose(p);
    if (raw != -1 && WIFEXITED(raw) && WEXITSTATUS(raw) == 0) return text;
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    if (why.empty()) why = std::string(tool) + ": " + text.substr(0, 400);
  }
  throw std::runtime_error("objdump could not read " + path + " (is binutils or llvm installed, and is it built?): " + why);
}

// One object file (or archive member) as objdump shows it: its symbols by section and address, its
// relocations by section and offset, and the calls its disassembly shows.
struct Member {
  bool macho = false;
  std::map<std::string, std::map<uint64_t, std::string>> at;  // section -> address -> symbol
  std::map<std::string, std::string> node;                    // symbol -> its node in the graph
  std::set<std::string> sections;
  std::string name;  // its heading in objdump's output ("matmul.o:     "), the same in both passes
};

uint64_t hex(const std::string& s) { return std::strtoull(s.c_str(), nullptr, 16); }

// "file format mach-o 64-bit x86-64" (llvm-objdump) or "file format elf64-x86-64"; archive members
// are headed "name.o:     file format ..." (GNU) or "name.o(member.o):	file format ..." (llvm).
bool format_line(const std::string& line, bool* macho) {
  const size_t at = line.find("file format ");
  if (at == std::string::npos || line.find(':') > at) return false;
  *macho = line.find("mach-o", at) != std::string::npos;
  return true;
}

// The symbol containing `address` of `section`: the last one at or before it.
std::string containing(const Member& m, const std::string& section, uint64_t address) {
  auto s = m.at.find(section);
  if (s == m.at.end() || s->second.empty()) return "";
  auto it = s->second.upper_bound(address);
  if (it == s->second.begin()) return "";
  return std::prev(it)->second;
}

}  // namespace

ObjectReferences read_object_references(const std::string& path) {
  if (path.find('\'') != std::string::npos) throw std::runtime_error("cannot read " + path + ": a quote in its name");
  // Two passes: symbols and relocations (-rt), then the disassembly (-d) for the direct calls the
  // assembler resolved itself (an ELF object's calls within one section, to its own local functions).
  const std::string table = objdump("-rt", path), code = objdump("-dr", path);
  ObjectReferences obj;
  obj.path = path;
  std::vector<Member> members;
  auto add = [&](const std::string& from, const std::string& to) {
    if (!from.empty() && !to.empty() && from != to) obj.refers_to[from].insert(to);
  };
  {
    std::istringstream in(table);
    enum { kNone, kSymbols, kRelocations } part = kNone;
    std::string section;
    struct Reloc { std::string section; uint64_t offset; std::string type, target; };
    std::vector<std::vector<Reloc>> relocs;
    for (std::string line; std::getline(in, line);) {
      bool macho = false;
      if (format_line(line, &macho)) {
        members.emplace_back().macho = macho;
        members.back().name = line.substr(0, line.find("file format"));
        relocs.emplace_back();
        part = kNone;
        continue;
      }
      if (members.empty()) continue;
      Member& m = members.back();
      if (line.rfind("SYMBOL TABLE:", 0) == 0) { part = kSymbols; continue; }
      if (line.rfind("RELOCATION RECORDS FOR [", 0) == 0) {
        part = kRelocations;
        section = line.substr(24, line.find(']') - 24);
        continue;
      }
      std::vector<std::string> w = words(line);
      if (part == kSymbols && w.size() >= 4) {
        // ELF: address, flags, section, size, [.hidden], name; Mach-O: address, flags, section, name.
        const size_t n = w.size();
        std::string name = w[n - 1], sec = m.macho ? w[n - 2] : w[n - 3];
        if (!m.macho && n >= 5 && (w[n - 2] == ".hidden" || w[n - 2] == ".protected" || w[n - 2] == ".internal"))
          sec = w[n - 4];
        if (m.macho) {
          sec = sec.substr(sec.find(',') + 1);  // "__TEXT,__text" -> "__text", as its relocations name it
          if (name.rfind("_", 0) == 0) name = name.substr(1);  // Mach-O puts '_' before every C++ name
        }
        if (sec == "*UND*" || sec == "*ABS*" || sec == "*COM*") continue;
        m.sections.insert(sec);
        if (name.rfind("_Z", 0) != 0) continue;  // C++ functions and data only (not .LC0, ltmp0, the sections)
        // A local symbol is known only in its own member (two files' anonymous helpers may share a name).
        const bool local = line.size() > 17 && line[17] == 'l';
        std::string node = node_of(name);
        if (local && members.size() > 1) node += "#" + std::to_string(members.size() - 1);
        m.node[name] = node;
        m.at[sec][hex(w[0])] = node;
        obj.refers_to[node];
        if (!m.macho && name.rfind("_Z", 0) == 0 && node_of(sec) != node_of(name) && node_of(sec) != sec)
          add(node, node_of(sec));  // a clone (.cold) lives in a section named after its function
      } else if (part == kRelocations && w.size() == 3 && w[0] != "OFFSET") {
        relocs.back().push_back({section, hex(w[0]), w[1], w[2]});
      }
    }
    if (members.empty()) throw std::runtime_error(path + ": objdump showed no object in it");
    for (size_t i = 0; i < members.size(); ++i) {
      Member& m = members[i];
      for (const Reloc& r : relocs[i]) {
        const std::string from = containing(m, r.section, r.offset);
        std::string target = r.target;
        if (m.macho && target.rfind("_", 0) == 0) target = target.substr(1);
        std::string base = target;
        uint64_t addend = 0;
        for (const char* sign : {"+0x", "-0x"})
          if (size_t at = base.rfind(sign); at != std::string::npos && at > 0) {
            addend = sign[0] == '+' ? hex(base.substr(at + 3)) : 0;
            base.resize(at);
          }
        if (m.sections.count(base)) {  // a place in a section of this member: the symbol there
          const uint64_t pc = r.type.find("PC") != std::string::npos || r.type.find("PLT") != std::string::npos ? 4 : 0;
          add(from, containing(m, base, addend + pc));
        } else if (auto it = m.node.find(base); it != m.node.end()) {
          add(from, it->second);
        } else if (base.rfind("_Z", 0) == 0) {
          add(from, node_of(base));  // defined in another object: the library's, the standard library's
        }
      }
    }
  }
  {
    // The disassembly: "0000000000000010 <name>:" opens a symbol; "call 10 <name>" on an instruction
    // line is a direct call the assembler resolved. Only a target in the same section is one (the
    // assembler resolves no other), and only on an instruction without a relocation (objdump names
    // the placeholder of a relocated call after whatever symbol lies at its address).
    std::istringstream in(code);
    std::map<std::string, size_t> seen;
    size_t member = members.size();
    std::string current, section, pending;
    for (std::string line; std::getline(in, line);) {
      bool macho = false;
      if (format_line(line, &macho)) {
        // A member is found by its heading (a member without code may be left out of the
        // disassembly); an archive may hold two members of one name (tensor/ and autograd/matmul.o).
        const std::string heading = line.substr(0, line.find("file format"));
        size_t skip = seen[heading]++;
        member = members.size();
        for (size_t i = 0; i < members.size(); ++i)
          if (members[i].name == heading && skip-- == 0) {
            member = i;
            break;
          }
        current.clear();
        pending.clear();
        continue;
      }
      if (member >= members.size()) continue;
      const Member& m = members[member];
      if (line.find("RELOC") != std::string::npos || line.find("\tR_") != std::string::npos || line.find(" R_") != std::string::npos) {
        pending.clear();  // the instruction above is relocated: its <name> is a placeholder's
        continue;
      }
      if (!pending.empty()) add(current, pending);
      pending.clear();
      if (line.rfind("Disassembly of section ", 0) == 0) {
        section = line.substr(23, line.size() - 24);
        if (m.macho) section = section.substr(section.find(',') + 1);
        current.clear();
        continue;
      }
      auto symbol = [&](std::string name) -> std::string {
        for (const char* sign : {"+0x", "-0x"})
          if (size_t at = name.rfind(sign); at != std::string::npos && at > 0) name.resize(at);
        if (m.macho && name.rfind("_", 0) == 0) name = name.substr(1);
        auto it = m.node.find(name);
        return it == m.node.end() ? "" : it->second;
      };
      if (!line.empty() && std::isxdigit(static_cast<unsigned char>(line[0])) && line.back() == ':') {
        const size_t open = line.find(" <");
        const std::string name = open == std::string::npos ? "" : line.substr(open + 2, line.size() - open - 4);
        current = name.find("+0x") == std::string::npos && name.find("-0x") == std::string::npos ? symbol(name) : "";
        continue;
      }
      if (current.empty()) continue;
      const size_t open = line.find('<'), close = line.find('>', open);
      if (open == std::string::npos || close == std::string::npos) continue;
      const std::string target = symbol(line.substr(open + 1, close - open - 1));
      auto here = m.at.find(section);
      if (target.empty() || here == m.at.end()) continue;
      for (const auto& [address, sym] : here->second)
        if (sym == target) pending = target;
    }
    if (!pending.empty()) add(current, pending);
  }
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

namespace {

// Whether a library function is one of the kernels a piece is made of: it works on raw memory (a
// pointer to the numbers: gemm, softmax_row, the vector math), on the autograd's own machinery
// (heed::Backward, heed::Node, a std::function of a backward rule), or is a kernel set's. What is left
// of a piece's call tree is the vocabulary every answer speaks: the tensor's and the variable's own
// members, the differentiable ops, the modules and the data an exercise hands over.
bool is_kernel(const std::string& symbol) {
  if (function_name(symbol).rfind("heed::kernel_set::", 0) == 0) return true;
  const size_t open = symbol.find('(');
  if (open == std::string::npos) return false;
  const std::string params = symbol.substr(open);
  for (const char* t : {"double*", "double const*", "float*", "float const*", "heed::Backward", "heed::Node",
                        "std::function<"})
    if (params.find(t) != std::string::npos) return true;
  return false;
}

}  // namespace

ObjectReferences library_references(const std::string& archive) {
  // objdump over the whole library takes seconds; its graph is kept beside it (libheed.a.calls), one
  // line per function: the function, then what it refers to, tab-separated. Rebuilt when older than
  // the library; written to a temporary name and renamed, so that two checkers never read half a file.
  // Beside the library itself (a grader's checker reaches it through a link: tools/grade_exercises.sh).
  char real[PATH_MAX];
  const std::string cache = (realpath(archive.c_str(), real) ? std::string(real) : archive) + ".calls";
  struct stat lib {}, kept {};
  if (stat(archive.c_str(), &lib) != 0) throw std::runtime_error("cannot read the library " + archive + ": it is not built");
  ObjectReferences graph;
  graph.path = archive;
  if (stat(cache.c_str(), &kept) == 0 && kept.st_mtime >= lib.st_mtime) {
    std::ifstream in(cache);
    for (std::string line; std::getline(in, line);) {
      std::istringstream fields(line);
      std::string from, to;
      std::getline(fields, from, '\t');
      std::set<std::string>& refs = graph.refers_to[from];
      while (std::getline(fields, to, '\t')) refs.insert(to);
    }
    if (!graph.refers_to.empty()) return graph;
  }
  graph = read_object_references(archive);
  const std::string tmp = cache + "." + std::to_string(getpid());
  {
    std::ofstream out(tmp);
    for (const auto& [from, refs] : graph.refers_to) {
      out << from;
      for (const std::string& to : refs) out << '\t' << to;
      out << '\n';
    }
  }
  if (std::rename(tmp.c_str(), cache.c_str()) != 0) std::remove(tmp.c_str());
  return graph;
}

Refusals refusals(const ObjectReferences& library, const std::vector<std::string>& forbidden) {
  Refusals out;
  out.patterns = forbidden;
  std::deque<std::string> frontier;
  std::map<std::string, std::string> piece_of;  // node -> the piece whose tree holds it
  for (const auto& [node, refs] : library.refers_to) {
    const std::string name = demangle(node);
    for (const std::string& p : forbidden)
      if (names_function(name, p)) {
        piece_of[node] = p;
        frontier.push_back(node);
        break;
      }
  }
  while (!frontier.empty()) {
    const std::string node = frontier.front();
    frontier.pop_front();
    auto it = library.refers_to.find(node);
    if (it == library.refers_to.end()) continue;
    for (const std::string& next : it->second)
      if (piece_of.emplace(next, piece_of[node]).second) frontier.push_back(next);
  }
  for (const auto& [node, piece] : piece_of) {
    const std::string name = demangle(node);
    if (name.rfind("heed::", 0) == 0 && is_kernel(name)) out.under_piece[name] = piece;
  }
  return out;
}

std::string refused_call(const ObjectReferences& answers, const std::string& qualified, const Refusals& own,
                         const std::vector<OwnAnswer>& earlier) {
  // Everything the answer reaches, each with the node it was reached from (for the message).
  std::deque<std::string> frontier;
  std::map<std::string, std::string> parent;
  for (const auto& [node, refs] : answers.refers_to)
    if (demangle(node).rfind(qualified + "(", 0) == 0 && parent.emplace(node, "").second) frontier.push_back(node);
  if (frontier.empty()) throw std::runtime_error(answers.path + " defines no function " + qualified);
  std::vector<std::string> order;
  while (!frontier.empty()) {
    const std::string node = frontier.front();
    frontier.pop_front();
    order.push_back(node);
    auto it = answers.refers_to.find(node);
    if (it == answers.refers_to.end()) continue;
    for (const std::string& next : it->second)
      if (parent.emplace(next, node).second) frontier.push_back(next);
  }
  // The answer's own namespace (heed::student) is its own code, whatever the names in it.
  const std::string ns = qualified.substr(0, qualified.rfind("::") + 2);
  // The answer's other exercises on the path to a node, nearest to the answer first.
  auto through = [&](const std::string& node) {
    std::vector<const OwnAnswer*> path;
    for (std::string at = parent[node]; !at.empty(); at = parent[at]) {
      const std::string name = demangle(at);
      for (const OwnAnswer& e : earlier)
        if (ns + e.name != qualified && name.rfind(ns + e.name + "(", 0) == 0) path.insert(path.begin(), &e);
    }
    return path;
  };
  auto judge = [&](const std::string& symbol, const Refusals& r) -> std::string {
    for (const std::string& pattern : r.patterns)
      if (names_function(symbol, pattern)) {
        if (pattern == "heed::check" || pattern == "heed::solution")
          return "it calls " + symbol + ", part of " + (pattern == "heed::check" ? "the checker" : "the solutions") +
                 ", which no answer may call";
        return "it calls " + symbol + ": the library's " + pattern + " does what this exercise asks you to write; " +
               "write it from the pieces its README names";
      }
    if (auto it = r.under_piece.find(symbol); it != r.under_piece.end())
      return "it calls " + symbol + ", a kernel under the library's " + it->second + " (in its call tree), which " +
             "does what this exercise asks you to write; write it from the pieces its README names";
    return "";
  };
  for (const std::string& node : order) {
    const std::string symbol = demangle(node);
    if (function_name(symbol).rfind(ns, 0) == 0) continue;
    // Reached through another of the answers, what that exercise may not call counts too.
    const std::vector<const OwnAnswer*> via = through(node);
    std::string why = judge(symbol, own);
    for (size_t i = 0; why.empty() && i < via.size(); ++i) why = judge(symbol, *via[i]->refusals);
    if (!why.empty()) return via.empty() ? why : "through your " + via[0]->id + " " + via[0]->name + ", " + why;
  }
  return "";
}

namespace {
std::string& program_path() {
  static std::string path;
  return path;
}
}  // namespace

void set_program_path(const std::string& argv0) { program_path() = argv0; }

std::string program_dir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  // Without /proc (macOS), the path the program was started by: make runs it as build/exercise-NN.
  std::string path = n > 0 ? std::string(buf, static_cast<size_t>(n)) : program_path();
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace heed::check
