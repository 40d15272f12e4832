// Atomic file writes: a file is replaced whole or not at all. The bytes go to a temporary file
// in the target's folder, named uniquely (process id and a process-wide counter, created with
// O_EXCL, so two writers never share one), which is fsynced and then renamed over the target;
// the folder is fsynced after the rename when the file system allows. On any failure the target
// keeps its previous content and the temporary file is removed. Errors are heed::Error naming
// the operation and the path.
//
// What is replaced: only a regular file (a folder, device, FIFO or socket at the path is refused
// before anything is written; so is a stream, io/paths.h's output_stream); a symlink is followed,
// so the link stays and its target is replaced; the new file gets the permission bits of the one
// it replaces (a write-protected file stays protected: check_writable is where it is refused). The temporary name
// is cut to fit the folder's longest name, and temporaries of the same path that a killed
// process left behind are removed by the next write. (A hard link to the old file keeps the
// old content: rename gives the path a new inode.)
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace heed {

// For tests only: runs once the temporary file (its path is the argument) is written and
// fsynced, just before the rename, so a test can throw there (or kill the process) and then
// check that the target still holds its previous content.
using BeforeRenameHook = std::function<void(const std::string& temp_path)>;

// A temporary file next to `path`, created by the constructor; removed by the destructor unless
// commit() renamed it into place. `op` names the caller in error messages ("write_safetensors").
class AtomicFile {
 public:
  AtomicFile(const std::string& path, const char* op);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::string& temp_path() const { return temp_; }
  void write(const void* data, size_t n);  // appends n bytes
  // fsync, close, then rename over the target. REQUIRES: called at most once.
  void commit(const BeforeRenameHook& before_rename = {});

 private:
  [[noreturn]] void fail(const std::string& what) const;

  std::string path_, op_, target_, dir_, temp_;  // target_: path_ with its symlinks followed
  int fd_ = -1;
  bool committed_ = false;
};

// Replaces `path` with `text` atomically (see above); an output that is a stream (`-`,
// /dev/stdout, ...: output_stream) gets `text` appended instead, after heed's own buffered
// stdout and stderr. heed::Error "write_text_file: PATH: ..." if anything fails.
void write_text_file(const std::string& path, std::string_view text, const BeforeRenameHook& before_rename = {});

// Throws heed::Error unless a file can be written at `path` now: the folder must exist and take
// a new file, `path` must not be a folder, nor (unless `force`) a write-protected file
// (check_not_protected). Finds out by creating and removing a temporary file next to it, so a
// long run can fail before it starts instead of at its end. A stream passes when its descriptor
// is open for writing.
void check_writable(const std::string& path, bool force = false);

}  // namespace heed
