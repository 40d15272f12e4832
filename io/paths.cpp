#include "io/paths.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "tensor/tensor.h"  // heed::Error

namespace heed {

std::string file_type_name(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

void check_regular_input(const std::string& path, const std::string& op) {
  struct stat st{};
  const std::string at = op + " " + path + ": ";  // "load m.safetensors: ", "--from points.json: "
  if (::stat(path.c_str(), &st) != 0) throw Error(at + "cannot open: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw Error(at + "is a folder, not a file");
  if (!S_ISREG(st.st_mode))
    throw Error(at + "is " + file_type_name(st.st_mode) + ", not a regular file; heed reads only regular files");
}

void check_replaceable(const std::string& path, const std::string& op) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return;  // nothing there yet (or a dangling link: its target is made)
  if (S_ISDIR(st.st_mode)) throw Error(op + ": " + path + ": is a folder; give a file name");
  if (!S_ISREG(st.st_mode))
    throw Error(op + ": " + path + ": is " + file_type_name(st.st_mode) +
                "; heed replaces only regular files, so it leaves this one alone");
}

FileIdentity file_identity(const std::string& path, bool* ok) {
  FileIdentity id;
  struct stat st{};
  *ok = true;
  if (::stat(path.c_str(), &st) == 0) {
    id.exists = true;
    id.dev = st.st_dev;
    id.ino = st.st_ino;
    return id;
  }
  std::filesystem::path p(path);
  std::filesystem::path dir = p.parent_path().empty() ? "." : p.parent_path();
  if (::stat(dir.c_str(), &st) != 0) {
    *ok = false;
    return id;
  }
  id.dev = st.st_dev;
  id.ino = st.st_ino;
  id.name = p.filename().string();
  return id;
}

bool same_file(const std::string& a, const std::string& b) {
  bool ok_a = false, ok_b = false;
  FileIdentity ia = file_identity(a, &ok_a), ib = file_identity(b, &ok_b);
  return ok_a && ok_b && ia == ib;
}

void check_no_collisions(const std::vector<PathUse>& uses, const std::string& op) {
  for (size_t i = 0; i < uses.size(); ++i) {
    for (size_t j = i + 1; j < uses.size(); ++j) {
      const PathUse &a = uses[i], &b = uses[j];
      if (a.path.empty() || b.path.empty() || (!a.output && !b.output)) continue;  // two inputs may share
      if (a.checkpoint && b.checkpoint && a.output != b.output) continue;       // saved over itself: allowed
      if (!same_file(a.path, b.path)) continue;
      const PathUse& out = a.output ? a : b;
      const PathUse& other = a.output ? b : a;
      throw Error(op + ": " + a.flag + " " + a.path + " and " + b.flag + " " + b.path +
                  " are the same file; writing " + out.flag + " would destroy " +
                  (other.output ? "the other output" : "the input") + ", so give " + out.flag + " another name");
    }
  }
}

}  // namespace heed
