// What heed asks of a path before it reads or writes one, in one place for every command:
// is it a regular file, a stream (`-`, /dev/stdout), write-protected, and is it the same file as
// another path (by identity: the device and inode numbers of the file a write finally reaches,
// so through symlinks, dangling ones too, hard links and different spellings of a folder)?
// docs/cli.md, "Files", states the rules the commands build on these.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
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

// The file a write to `path` replaces or creates: `path` with its symlinks followed one by one,
// through chains and relative targets (each relative to its own link's folder), so that the link
// is kept and its target written; a dangling link's target is the file made.
std::filesystem::path write_target(const std::filesystem::path& path);

// The descriptor an output path means, or -1 when it names a file: `-` is standard output, and
// /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N (or a link that leads to one) are this
// process's descriptors 1, 2 and N. Such an output is written as a stream (appended where the
// shell appends, into a pipe too), never replaced by a rename.
int output_stream(const std::string& path);

// Throws heed::Error "OP: PATH: is write-protected (r--r--r--); give another file name, or
// --force to replace it" when `path` (symlinks followed) is a file its owner may not write (no w
// for the owner, as chmod 444 leaves it: root included) or this user may not write (another
// user's file). Nothing there yet, or a stream, passes.
void check_not_protected(const std::string& path, const std::string& op);

// The file a path names, as the kernel sees it. For a path that exists (symlinks followed):
// its device and inode. For one that does not exist yet: the folder and last name of the file a
// write would make (write_target), so that two spellings of one new file ("a/x", "a/./x", a
// dangling link to it) are still the same. An output that is a stream: the descriptor's file.
struct FileIdentity {
  bool exists = false;
  uint64_t dev = 0;  // the device (Windows: the volume's serial number)
  uint64_t ino = 0;  // the inode (Windows: the file index)
  std::string name;  // the last component, for a file that does not exist yet
  bool operator==(const FileIdentity&) const = default;
};
// ok == false when neither the path nor its folder can be looked at (then nothing collides).
// `output`: the path is written (then `-` is standard output; an input named `-` is a file).
FileIdentity file_identity(const std::string& path, bool* ok, bool output = false);

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
// is the same file as an input or another output (empty paths are skipped; two streams may share
// a descriptor, as appending destroys nothing).
void check_no_collisions(const std::vector<PathUse>& uses, const std::string& op);

}  // namespace heed
