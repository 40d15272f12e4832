#include "io/atomic_file.h"

#include <unistd.h>  // write, close, unlink (the C runtime has them on Windows too)

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "io/os.h"
#include "io/paths.h"
#include "tensor/tensor.h"  // heed::Error

namespace heed {

namespace {

// The temporary file's name for the file `name`, given its `suffix` ".tmp-PID-N" (process id
// and counter): ".NAME.tmp-PID-N", with NAME cut short when the whole would exceed the longest
// name a folder takes (255 bytes on Linux; 255 UTF-16 units on Windows), so any name a user can
// give has one.
constexpr size_t kNameMax = 255;
std::string temp_name(const std::string& name, const std::string& suffix) {
  const size_t room = kNameMax - 1 - suffix.size();
  return "." + name.substr(0, std::min(name.size(), room)) + suffix;
}

// Removes the temporaries of `name` in `dir` that a process no longer running left behind
// (a kill -9 during a save): ".NAME.tmp-PID-N" whose PID is not alive. Best effort.
void remove_stale_temporaries(const std::filesystem::path& dir, const std::string& name) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string file = entry.path().filename().string();
    size_t tmp = file.rfind(".tmp-");
    if (tmp == std::string::npos) continue;
    const std::string suffix = file.substr(tmp);  // ".tmp-PID-N"
    long long pid = 0, n = 0;
    char extra = 0;
    if (std::sscanf(suffix.c_str(), ".tmp-%lld-%lld%c", &pid, &n, &extra) != 2 || pid <= 0) continue;
    if (file != temp_name(name, suffix) || suffix != ".tmp-" + std::to_string(pid) + "-" + std::to_string(n)) continue;
    if (os::process_running(pid)) continue;  // may be writing
    std::filesystem::remove(entry.path(), ec);
  }
}

}  // namespace

AtomicFile::AtomicFile(const std::string& path, const char* op) : path_(path), op_(op) {
  if (const int fd = output_stream(path); fd >= 0)
    fail("is a stream (descriptor " + std::to_string(fd) + "), not a file to replace whole; give a file name");
  std::filesystem::path target = write_target(path);
  target_ = target.string();
  check_replaceable(target_, op_);  // names the file itself, the target of a link
  std::filesystem::path dir = target.parent_path().empty() ? "." : target.parent_path();
  dir_ = dir.string();
  const std::string name = target.filename().string();
  remove_stale_temporaries(dir, name);
  // Unique per process (the counter is shared by all threads) and across processes (the pid);
  // O_EXCL makes a leftover file from an earlier process with the same pid a retry, not a share.
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
    temp_ = (dir / temp_name(name, ".tmp-" + std::to_string(os::process_id()) + "-" + std::to_string(counter++))).string();
    fd_ = os::create_new(temp_);
    if (fd_ < 0 && errno != EEXIST) break;
  }
  if (fd_ < 0) fail("cannot create a temporary file in '" + dir_ + "': " + std::strerror(errno));
  // The file it replaces keeps its permission bits (a private 0600 checkpoint stays private).
  if (!os::copy_permissions(fd_, target_)) {
    const int err = errno;
    ::close(fd_);  // a constructor that throws runs no destructor: clean up here
    ::unlink(temp_.c_str());
    fail(std::string("cannot give the temporary file the permissions of the file it replaces: ") + std::strerror(err));
  }
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_.c_str());
}

void AtomicFile::write(const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd_, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) fail(std::string("cannot write the temporary file: ") + std::strerror(errno));
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void AtomicFile::commit(const BeforeRenameHook& before_rename) {
  if (!os::flush_to_disk(fd_)) fail(std::string("cannot fsync the temporary file: ") + std::strerror(errno));
  int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) fail(std::string("cannot close the temporary file: ") + std::strerror(errno));
  if (before_rename) before_rename(temp_);
  if (std::string why; !os::replace_file(temp_, target_, &why)) fail("cannot rename the temporary file over it: " + why);
  committed_ = true;
  os::sync_folder(dir_);  // best effort: persist the rename itself (some file systems refuse)
}

void AtomicFile::fail(const std::string& what) const { throw Error(op_ + ": " + path_ + ": " + what); }

namespace {

// Appends `text` to descriptor `fd`, after what heed's own stdout and stderr hold back.
void write_stream(int fd, const std::string& path, std::string_view text) {
  std::fflush(stdout);
  std::fflush(stderr);
  const char* p = text.data();
  size_t n = text.size();
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw Error("write_text_file: " + path + ": cannot write: " + std::strerror(errno));
    p += w;
    n -= static_cast<size_t>(w);
  }
}

// The descriptor a stream output writes to is open for writing (heed::Error otherwise).
void check_stream(int fd, const std::string& path) {
  if (std::string why; !os::descriptor_writable(fd, &why))
    throw Error("check_writable: " + path + ": descriptor " + std::to_string(fd) + " " + why);
}

}  // namespace

void write_text_file(const std::string& path, std::string_view text, const BeforeRenameHook& before_rename) {
  if (const int fd = output_stream(path); fd >= 0) return write_stream(fd, path, text);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error("write_text_file: " + path + ": is a folder; give a file name");
  AtomicFile out(path, "write_text_file");
  out.write(text.data(), text.size());
  out.commit(before_rename);
}

void check_writable(const std::string& path, bool force) {
  if (const int fd = output_stream(path); fd >= 0) return check_stream(fd, path);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error("check_writable: " + path + ": is a folder; give a file name");
  if (!force) check_not_protected(path, "check_writable");
  AtomicFile probe(path, "check_writable");  // created, then removed when it goes out of scope
}

}  // namespace heed
