// What heed asks of the operating system where POSIX and Windows answer differently, in one
// place: io/os_posix.cpp is Linux's and macOS's answer, io/os_windows.cpp Windows's (MinGW-w64;
// the Makefile builds one of the two). Everything else in heed calls these and the C++ library.
// Paths are UTF-8 strings on both; errors come back as false (with errno set where POSIX sets it).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace heed::os {

// ---- Files
// An input opened read-only, in binary, not inherited by children; a FIFO opens without waiting
// for a writer (so that the caller can refuse it). -1 with errno on failure.
int open_input(const std::string& path);
// A new file for writing (it must not exist: O_EXCL), in binary, not inherited. -1 with errno.
int create_new(const std::string& path);
// Gives descriptor `fd` the permission bits of the file at `like` (when it exists); false on failure.
bool copy_permissions(int fd, const std::string& like);
// Writes the file's data through to the disk (fsync; Windows: _commit). false on failure.
bool flush_to_disk(int fd);
// Puts `from` in place of `to` in one step (rename; Windows: MoveFileExW with
// MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH). false, and *why, on failure.
bool replace_file(const std::string& from, const std::string& to, std::string* why);
// Makes a rename in `dir` durable where the file system allows (fsync of the folder; Windows has
// no such call: MOVEFILE_WRITE_THROUGH is what it offers). Best effort.
void sync_folder(const std::string& dir);
// True when descriptor `fd` is open and may be written; else false and *why.
bool descriptor_writable(int fd, std::string* why);
// True when this user may write the existing file `path` (its effective rights).
bool may_write(const std::string& path);
// "a FIFO", "a character device", "a folder", ... for the file type bits of a stat's st_mode.
std::string file_type_name(mode_t mode);
// What a name means that no file holds: Windows's device names (NUL, CON, COM1, "nul.txt", ...)
// name devices in every folder: "the device NUL". Empty elsewhere, and for any other name.
std::string device_name(const std::string& path);
// The identity of an existing file (symlinks followed): the device (volume) and file number. For
// a descriptor, the file it is open on. false when it cannot be had.
bool file_id(const std::string& path, uint64_t* dev, uint64_t* ino);
bool descriptor_id(int fd, uint64_t* dev, uint64_t* ino);

// ---- The process
long long process_id();
// False when no process `pid` is running (so its temporary files are leftovers).
bool process_running(long long pid);
// This program's own file (/proc/self/exe; Windows: GetModuleFileNameW), else `argv0`.
std::string program_path(const std::string& argv0);
void set_env(const std::string& name, const std::string& value);
// Called first in heed's main: on POSIX, a write past the file-size limit (ulimit -f) becomes the
// error EFBIG (the writer reports it, the old file intact) rather than SIGXFSZ. Nothing on
// Windows, where every program sets its console up before main (io/os_windows.cpp: binary
// streams, UTF-8 output, the terminal sequences --watch draws with).
void prepare_process();
// Peak resident memory of this process so far, in KiB (getrusage; Windows: the peak working set).
double peak_rss_kb();
// Runs `args` (argv[0] first) with its standard output read into *out and its standard error
// left to ours; the exit status, or 128 + the signal that ended it. false (and *why) when it
// cannot run at all.
bool run_capture(const std::vector<std::string>& args, std::string* out, int* status, std::string* why);

// ---- The terminal
bool is_terminal(int fd);
// The size of the terminal on standard output; 80 x 24 where it does not say.
struct TerminalSize {
  int columns = 80, rows = 24;
};
TerminalSize terminal_size();

}  // namespace heed::os
