// What heed asks of a path before it reads or writes one, in one place for every command:
// is it a regular file, and is it the same file as another path (by identity: the device and
// inode numbers, so through symlinks, hard links and different spellings of a folder)?
// docs/cli.md, "Files", states the rules the commands build on these.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace heed {

// "a FIFO", "a character device", "a folder", ... for the file type bits of a stat's st_mode.
std::string file_type_name(mode_t mode);

// Throws heed::Error "OP PATH: is a FIFO, not a regular file; ..." unless `path` (symlinks
// followed) is a regular file; "OP PATH: cannot open: ..." when it does not exist. Called
// before opening an input, so that a FIFO cannot block the reader forever.
void check_regular_input(const std::string& path, const std::string& op);

// Throws heed::Error unless heed may replace `path`: nothing is there yet, or a regular file
// is (symlinks followed). A folder, device, FIFO or socket is refused, naming what it is.
void check_replaceable(const std::string& path, const std::string& op);

// The file a path names, as the kernel sees it. For a path that exists (symlinks followed):
// its device and inode. For one that does not exist yet: its folder's device and inode and its
// last name, so that two spellings of one new file ("a/x", "a/./x") are still the same.
struct FileIdentity {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  std::string name;  // the last component, for a file that does not exist yet
  bool operator==(const FileIdentity&) const = default;
};
// ok == false when neither the path nor its folder can be looked at (then nothing collides).
FileIdentity file_identity(const std::string& path, bool* ok);

// True when `a` and `b` name the same file (see FileIdentity).
bool same_file(const std::string& a, const std::string& b);

// One path a command was given: the flag that gave it, and whether heed writes it.
struct PathUse {
  std::string flag;  // "--save", "--film", "--load", ...
  std::string path;
  bool output = false;
  // The checkpoint itself: an output and an input that both set this may be the same file (a
  // run saved over the checkpoint it resumed or started from, replaced atomically).
  bool checkpoint = false;
};

// Throws heed::Error "OP: FLAG1 PATH1 and FLAG2 PATH2 are the same file; ..." when an output
// is the same file as an input or another output (empty paths are skipped).
void check_no_collisions(const std::vector<PathUse>& uses, const std::string& op);

}  // namespace heed
