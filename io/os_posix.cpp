// io/os.h on POSIX (Linux, macOS): the calls themselves. Windows's twin is io/os_windows.cpp.
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "io/os.h"

namespace heed::os {

int open_input(const std::string& path) { return ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC); }

int create_new(const std::string& path) { return ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666); }

bool copy_permissions(int fd, const std::string& like) {
  struct stat st{};
  return ::stat(like.c_str(), &st) != 0 || ::fchmod(fd, st.st_mode & 07777) == 0;
}

bool flush_to_disk(int fd) { return ::fsync(fd) == 0; }

bool replace_file(const std::string& from, const std::string& to, std::string* why) {
  if (std::rename(from.c_str(), to.c_str()) == 0) return true;
  *why = std::strerror(errno);
  return false;
}

void sync_folder(const std::string& dir) {
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    (void)::fsync(dir_fd);
    ::close(dir_fd);
  }
}

bool descriptor_writable(int fd, std::string* why) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0) *why = "is not open";
  else if ((flags & O_ACCMODE) == O_RDONLY) *why = "is open for reading only";
  return flags >= 0 && (flags & O_ACCMODE) != O_RDONLY;
}

bool may_write(const std::string& path) { return ::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) == 0; }

std::string file_type_name(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string device_name(const std::string&) { return {}; }  // POSIX devices are files: stat tells

bool file_id(const std::string& path, uint64_t* dev, uint64_t* ino) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return false;
  *dev = static_cast<uint64_t>(st.st_dev);
  *ino = static_cast<uint64_t>(st.st_ino);
  return true;
}

bool descriptor_id(int fd, uint64_t* dev, uint64_t* ino) {
  struct stat st{};
  if (::fstat(fd, &st) != 0) return false;
  *dev = static_cast<uint64_t>(st.st_dev);
  *ino = static_cast<uint64_t>(st.st_ino);
  return true;
}

long long process_id() { return ::getpid(); }

bool process_running(long long pid) {
  return pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
}

std::string program_path(const std::string& argv0) {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);  // Linux; macOS has no /proc
  return !ec && !self.empty() ? self.string() : argv0;
}

void set_env(const std::string& name, const std::string& value) { ::setenv(name.c_str(), value.c_str(), 1); }

void prepare_process() { std::signal(SIGXFSZ, SIG_IGN); }

double peak_rss_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
#ifdef __APPLE__
  return static_cast<double>(ru.ru_maxrss) / 1024;  // macOS counts bytes
#else
  return static_cast<double>(ru.ru_maxrss);  // Linux and the BSDs count KiB
#endif
}

bool run_capture(const std::vector<std::string>& args, std::string* out, int* status, std::string* why) {
  int fds[2];
  if (pipe(fds) != 0) return *why = std::string("pipe: ") + std::strerror(errno), false;
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) return *why = std::string("fork: ") + std::strerror(errno), false;
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> cargs;
    for (const std::string& s : args) cargs.push_back(const_cast<char*>(s.c_str()));
    cargs.push_back(nullptr);
    execvp(cargs[0], cargs.data());
    std::fprintf(stderr, "heed bench: --sweep: cannot run %s: %s\n", cargs[0], std::strerror(errno));
    _exit(2);
  }
  close(fds[1]);
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out->append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  return true;
}

bool is_terminal(int fd) { return ::isatty(fd) == 1; }

TerminalSize terminal_size() {
  winsize ws{};
  if (ioctl(1, TIOCGWINSZ, &ws) != 0) ws = {};
  TerminalSize size;
  if (ws.ws_col > 0) size.columns = ws.ws_col;
  if (ws.ws_row > 0) size.rows = ws.ws_row;
  return size;
}

}  // namespace heed::os
