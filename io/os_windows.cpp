// io/os.h on Windows (MinGW-w64): the Win32 and C runtime calls, paths turned from UTF-8 into
// UTF-16 for the wide-character APIs. POSIX's twin is io/os_posix.cpp.
#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>
#include <windows.h>
#include <psapi.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "io/os.h"

namespace heed::os {

namespace {

std::wstring wide(const std::string& utf8) {
  if (utf8.empty()) return {};
  const int n = MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), nullptr, 0);
  std::wstring w(static_cast<size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), w.data(), n);
  return w;
}

std::string utf8(const std::wstring& w) {
  if (w.empty()) return {};
  const int n = WideCharToMultiByte(CP_UTF8, 0, w.data(), static_cast<int>(w.size()), nullptr, 0, nullptr, nullptr);
  std::string s(static_cast<size_t>(n), '\0');
  WideCharToMultiByte(CP_UTF8, 0, w.data(), static_cast<int>(w.size()), s.data(), n, nullptr, nullptr);
  return s;
}

// The message of GetLastError's code.
std::string last_error() {
  const DWORD code = GetLastError();
  wchar_t* text = nullptr;
  FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr,
                 code, 0, reinterpret_cast<wchar_t*>(&text), 0, nullptr);
  std::string s = text ? utf8(text) : "error " + std::to_string(code);
  if (text) LocalFree(text);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == '.')) s.pop_back();
  return s;
}

bool handle_id(HANDLE h, uint64_t* dev, uint64_t* ino) {
  BY_HANDLE_FILE_INFORMATION info{};
  if (!GetFileInformationByHandle(h, &info)) return false;
  *dev = info.dwVolumeSerialNumber;
  *ino = (static_cast<uint64_t>(info.nFileIndexHigh) << 32) | info.nFileIndexLow;
  return true;
}

UINT g_console_cp = 0;  // the console's output code page before this program set UTF-8
void restore_console_cp() { SetConsoleOutputCP(g_console_cp); }

int set_up_streams() {
  if (!__builtin_cpu_supports("fma")) {  // (fma below)
    std::fputs("heed: this Windows build needs a processor with FMA (x86-64 since 2013); see docs/building.md\n", stderr);
    std::exit(2);
  }
  _fmode = _O_BINARY;
  for (int fd : {0, 1, 2}) ::_setmode(fd, _O_BINARY);
  if ((g_console_cp = GetConsoleOutputCP()) != 0 && g_console_cp != CP_UTF8) {
    SetConsoleOutputCP(CP_UTF8);
    std::atexit(restore_console_cp);
  }
  for (DWORD which : {STD_OUTPUT_HANDLE, STD_ERROR_HANDLE}) {
    HANDLE h = GetStdHandle(which);
    DWORD mode = 0;
    if (h != INVALID_HANDLE_VALUE && GetConsoleMode(h, &mode))
      SetConsoleMode(h, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING | ENABLE_PROCESSED_OUTPUT);
  }
  return 1;
}

}  // namespace

// From the start of every program (the Makefile links this in with
// -Wl,--undefined=heed_windows_binary): every file in binary, the standard streams too, so heed
// writes the bytes it writes on Linux ("\n", never "\r\n") and outputs, checkpoints and the
// chapters' texts compare equal; and a console takes UTF-8 (heed writes UTF-8: the heatmap's
// shades, file names; its own code page is put back at exit) and the terminal sequences of
// --watch and the progress line (Windows 10 and later; older consoles print them as text).
extern "C" {
int heed_windows_binary = set_up_streams();

// MinGW-w64's fma and fmaf (libmingwex) are not correctly rounded: they round twice where IEEE
// 754 rounds once (a million random fma's in [1, 2) hash differently from glibc's, measured), and
// heed's same bits rest on fma (tensor/math.h). These take their place in every program: the
// processor's FMA instruction, which rounds once; set_up_streams refuses a processor without it.
[[gnu::target("fma")]] double fma(double x, double y, double z) { return __builtin_fma(x, y, z); }
[[gnu::target("fma")]] float fmaf(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
}

int open_input(const std::string& path) { return ::_wopen(wide(path).c_str(), _O_RDONLY | _O_BINARY | _O_NOINHERIT); }

int create_new(const std::string& path) {
  return ::_wopen(wide(path).c_str(), _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY | _O_NOINHERIT, _S_IREAD | _S_IWRITE);
}

// Windows has one permission bit a file keeps: read-only, which check_not_protected refuses to
// replace before this is reached; so there is nothing to copy.
bool copy_permissions(int, const std::string&) { return true; }

bool flush_to_disk(int fd) { return ::_commit(fd) == 0; }

bool replace_file(const std::string& from, const std::string& to, std::string* why) {
  if (MoveFileExW(wide(from).c_str(), wide(to).c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) return true;
  *why = last_error();
  return false;
}

void sync_folder(const std::string&) {}  // no such call: MOVEFILE_WRITE_THROUGH is what Windows offers

bool descriptor_writable(int fd, std::string* why) {
  HANDLE h = reinterpret_cast<HANDLE>(::_get_osfhandle(fd));
  if (h == INVALID_HANDLE_VALUE) return *why = "is not open", false;
  return true;  // the C runtime keeps no access mode a program can ask for; a write says it
}

bool may_write(const std::string& path) { return ::_waccess(wide(path).c_str(), 2) == 0; }

std::string file_type_name(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISCHR(mode)) return "a character device";
  return "not a regular file";
}

std::string device_name(const std::string& path) {
  // The last name, before its first dot and without trailing spaces, compared without case.
  std::string name = std::filesystem::u8path(path).filename().string();
  name = name.substr(0, name.find('.'));
  while (!name.empty() && name.back() == ' ') name.pop_back();
  std::string upper;
  for (char c : name) upper += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  static const char* const kDevices[] = {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"};
  for (const char* d : kDevices)
    if (upper == d) return "the device " + upper;
  if (upper.size() == 4 && (upper.rfind("COM", 0) == 0 || upper.rfind("LPT", 0) == 0) && upper[3] >= '0' && upper[3] <= '9')
    return "the device " + upper;
  return {};
}

bool file_id(const std::string& path, uint64_t* dev, uint64_t* ino) {
  HANDLE h = CreateFileW(wide(path).c_str(), 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                         OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr);  // (BACKUP_SEMANTICS: folders too)
  if (h == INVALID_HANDLE_VALUE) return false;
  const bool ok = handle_id(h, dev, ino);
  CloseHandle(h);
  return ok;
}

bool descriptor_id(int fd, uint64_t* dev, uint64_t* ino) {
  HANDLE h = reinterpret_cast<HANDLE>(::_get_osfhandle(fd));
  return h != INVALID_HANDLE_VALUE && handle_id(h, dev, ino);
}

long long process_id() { return static_cast<long long>(GetCurrentProcessId()); }

bool process_running(long long pid) {
  if (pid == process_id()) return true;
  HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, static_cast<DWORD>(pid));
  if (!h) return GetLastError() != ERROR_INVALID_PARAMETER;  // no such process; access denied: it runs
  DWORD code = 0;
  const bool running = GetExitCodeProcess(h, &code) && code == STILL_ACTIVE;
  CloseHandle(h);
  return running;
}

std::string program_path(const std::string& argv0) {
  std::wstring buf(32768, L'\0');
  const DWORD n = GetModuleFileNameW(nullptr, buf.data(), static_cast<DWORD>(buf.size()));
  if (n == 0 || n >= buf.size()) return argv0;
  buf.resize(n);
  return utf8(buf);
}

void set_env(const std::string& name, const std::string& value) {
  ::_wputenv_s(wide(name).c_str(), wide(value).c_str());
}

void prepare_process() {}  // heed_windows_binary above did it, before main, for every program

double peak_rss_kb() {
  PROCESS_MEMORY_COUNTERS pmc{};
  if (!GetProcessMemoryInfo(GetCurrentProcess(), &pmc, sizeof pmc)) return -1;
  return static_cast<double>(pmc.PeakWorkingSetSize) / 1024;
}

bool run_capture(const std::vector<std::string>&, std::string*, int*, std::string* why) {
  *why = "this Windows build does not start child processes (run each point as its own heed bench)";
  return false;
}

bool is_terminal(int fd) {
  DWORD mode = 0;  // a console, not the NUL device (which the C runtime's isatty also calls a terminal)
  return GetConsoleMode(reinterpret_cast<HANDLE>(::_get_osfhandle(fd)), &mode) != 0;
}

TerminalSize terminal_size() {
  CONSOLE_SCREEN_BUFFER_INFO info{};
  TerminalSize size;
  if (GetConsoleScreenBufferInfo(GetStdHandle(STD_OUTPUT_HANDLE), &info)) {
    size.columns = info.srWindow.Right - info.srWindow.Left + 1;
    size.rows = info.srWindow.Bottom - info.srWindow.Top + 1;
  }
  return size;
}

}  // namespace heed::os
