#include "io/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "tensor/tensor.h"  // heed::Error

namespace heed {

AtomicFile::AtomicFile(const std::string& path, const char* op) : path_(path), op_(op) {
  std::filesystem::path target(path);
  std::filesystem::path dir = target.parent_path().empty() ? "." : target.parent_path();
  dir_ = dir.string();
  // Unique per process (the counter is shared by all threads) and across processes (the pid);
  // O_EXCL makes a leftover file from an earlier process with the same pid a retry, not a share.
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
    temp_ = (dir / ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                    std::to_string(counter++)))
                .string();
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ < 0 && errno != EEXIST) break;
  }
  if (fd_ < 0) fail("cannot create a temporary file in '" + dir_ + "': " + std::strerror(errno));
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
  if (::fsync(fd_) != 0) fail(std::string("cannot fsync the temporary file: ") + std::strerror(errno));
  int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) fail(std::string("cannot close the temporary file: ") + std::strerror(errno));
  if (before_rename) before_rename(temp_);
  if (std::rename(temp_.c_str(), path_.c_str()) != 0)
    fail("cannot rename the temporary file over it: " + std::string(std::strerror(errno)));
  committed_ = true;
  // Best effort: persist the rename itself (some file systems refuse to fsync a folder).
  int dir_fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    (void)::fsync(dir_fd);
    ::close(dir_fd);
  }
}

void AtomicFile::fail(const std::string& what) const { throw Error(op_ + ": " + path_ + ": " + what); }

void write_text_file(const std::string& path, std::string_view text, const BeforeRenameHook& before_rename) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error("write_text_file: " + path + ": is a folder; give a file name");
  AtomicFile out(path, "write_text_file");
  out.write(text.data(), text.size());
  out.commit(before_rename);
}

void check_writable(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error("check_writable: " + path + ": is a folder; give a file name");
  AtomicFile probe(path, "check_writable");  // created, then removed when it goes out of scope
}

}  // namespace heed
