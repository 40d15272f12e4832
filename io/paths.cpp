#include "io/paths.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "io/os.h"
#include "tensor/tensor.h"  // heed::Error

namespace heed {

std::string file_type_name(mode_t mode) { return os::file_type_name(mode); }

void check_regular_input(const std::string& path, const std::string& op) {
  struct stat st{};
  const std::string at = op + " " + path + ": ";  // "load m.safetensors: ", "--from points.json: "
  if (const std::string device = os::device_name(path); !device.empty())
    throw Error(at + "is " + device + ", not a regular file; heed reads only regular files");
  if (::stat(path.c_str(), &st) != 0) throw Error(at + "cannot open: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw Error(at + "is a folder, not a file");
  if (!S_ISREG(st.st_mode))
    throw Error(at + "is " + file_type_name(st.st_mode) + ", not a regular file; heed reads only regular files");
}

void check_replaceable(const std::string& path, const std::string& op) {
  if (const std::string device = os::device_name(path); !device.empty())
    throw Error(op + ": " + path + ": is " + device + "; heed replaces only regular files, so it leaves this one alone");
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return;  // nothing there yet (or a dangling link: its target is made)
  if (S_ISDIR(st.st_mode)) throw Error(op + ": " + path + ": is a folder; give a file name");
  if (!S_ISREG(st.st_mode))
    throw Error(op + ": " + path + ": is " + file_type_name(st.st_mode) +
                "; heed replaces only regular files, so it leaves this one alone");
}

namespace {

constexpr int kMaxLinks = 40;  // the kernel's own limit on links followed

// Where the symlink `p` points (a relative target read from p's own folder); empty when `p` is
// not a link.
std::filesystem::path link_target(const std::filesystem::path& p) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(std::filesystem::symlink_status(p, ec))) return {};
  std::filesystem::path to = std::filesystem::read_symlink(p, ec);
  if (ec) return {};
  return to.is_absolute() ? to : p.parent_path() / to;
}

// N when `p` is one of this process's descriptors by name (/dev/stdout, /dev/fd/N,
// /proc/self/fd/N, /proc/PID/fd/N of this process, however the folder is spelled), else -1.
int descriptor_named(const std::filesystem::path& p) {
  const std::string s = p.lexically_normal().string();
  if (s == "/dev/stdin") return 0;
  if (s == "/dev/stdout") return 1;
  if (s == "/dev/stderr") return 2;
  const std::string name = p.filename().string(), dir = p.parent_path().lexically_normal().string();
  if (name.empty() || name.size() > 9 || name.find_first_not_of("0123456789") != std::string::npos) return -1;
  bool fd_folder = dir == "/dev/fd" || dir == "/proc/self/fd";
  uint64_t a_dev = 0, a_ino = 0, b_dev = 0, b_ino = 0;
  if (!fd_folder && os::file_id(dir, &a_dev, &a_ino) && os::file_id("/proc/self/fd", &b_dev, &b_ino))
    fd_folder = a_dev == b_dev && a_ino == b_ino;
  return fd_folder ? std::atoi(name.c_str()) : -1;
}

// "rw-r--r--": the permission bits as ls shows them.
std::string permissions(mode_t mode) {
  const char* letters = "rwxrwxrwx";
  std::string s;
  for (int i = 0; i < 9; ++i) s += (mode & (0400u >> i)) ? letters[i] : '-';
  return s;
}

}  // namespace

std::filesystem::path write_target(const std::filesystem::path& path) {
  std::filesystem::path p = path;
  for (int hops = 0; hops < kMaxLinks; ++hops) {
    std::filesystem::path next = link_target(p);
    if (next.empty()) return p;
    p = next;
  }
  return p;
}

int output_stream(const std::string& path) {
  if (path == "-") return 1;
  std::filesystem::path p = path;
  for (int hops = 0; hops <= kMaxLinks && !p.empty(); ++hops, p = link_target(p))  // each name write_target meets
    if (const int fd = descriptor_named(p); fd >= 0) return fd;
  return -1;
}

void check_not_protected(const std::string& path, const std::string& op) {
  if (output_stream(path) >= 0) return;
  const std::string target = write_target(path).string();
  struct stat st{};
  if (::stat(target.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;  // nothing to protect
  // The owner's w bit decides even for root, who may write anything: a file nobody may write
  // was protected on purpose. For other users, their own right to write it.
  const bool owner_may = (st.st_mode & S_IWUSR) != 0;
  if (owner_may && os::may_write(target)) return;
  throw Error(op + ": " + path + ": is write-protected (" + permissions(st.st_mode) +
              (owner_may ? ", and not yours to write" : "") + "); give another file name, or --force to replace it");
}

FileIdentity file_identity(const std::string& path, bool* ok, bool output) {
  FileIdentity id;
  *ok = true;
  if (const int fd = output ? output_stream(path) : -1; fd >= 0) {  // a stream: the file it writes to
    *ok = os::descriptor_id(fd, &id.dev, &id.ino);
    id.exists = true;
    return id;
  }
  if (os::file_id(path, &id.dev, &id.ino)) {
    id.exists = true;
    return id;
  }
  // Not there yet (or a dangling link): the file a write makes, as the writer finds it.
  std::filesystem::path p = write_target(path);
  std::filesystem::path dir = p.parent_path().empty() ? "." : p.parent_path();
  if (!os::file_id(dir.string(), &id.dev, &id.ino)) {
    *ok = false;
    return id;
  }
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
      const bool stream_a = a.output && output_stream(a.path) >= 0, stream_b = b.output && output_stream(b.path) >= 0;
      if (stream_a && stream_b) continue;  // two streams: appended one after the other
      bool ok_a = false, ok_b = false;
      const FileIdentity ia = file_identity(a.path, &ok_a, a.output), ib = file_identity(b.path, &ok_b, b.output);
      if (!ok_a || !ok_b || !(ia == ib)) continue;
      const PathUse& out = a.output ? a : b;
      const PathUse& other = a.output ? b : a;
      throw Error(op + ": " + a.flag + " " + a.path + " and " + b.flag + " " + b.path +
                  " are the same file; writing " + out.flag + " would destroy " +
                  (other.output ? "the other output" : "the input") + ", so give " + out.flag + " another name");
    }
  }
}

}  // namespace heed
