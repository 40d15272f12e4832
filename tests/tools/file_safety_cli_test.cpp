// Nothing a user has is ever lost or destroyed (docs/cli.md, "Files"): through the
// real program, an optional output that fails does not cost the run, no output overwrites an
// input or another output, only regular files are replaced (a symlink is written through, the
// permission bits kept), a write limit is a clean error, a closed terminal or pipe ends a run
// with a save, and inputs that are not regular files are refused instead of blocking.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <limits>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "io/utf8.h"
#include "tests/support/chapter_check.h"
#include "tests/support/heed_cli.h"
#include "viz/svg.h"

using namespace heed;
namespace fs = std::filesystem;

namespace {

const std::string kTiny = "--min-len 2 --max-len 4 --embed 4 --hidden 6 --batch 4 --eval-samples 4";

void spit(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

mode_t permission_bits(const std::string& path) {
  struct stat st{};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

bool is_fifo(const std::string& path) {
  struct stat st{};
  return ::lstat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

// The names in the scratch folder that look like heed's temporary files.
std::vector<std::string> temporaries(const Scratch& s) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(s.folder()))
    if (e.path().filename().string().find(".tmp-") != std::string::npos) out.push_back(e.path().filename().string());
  return out;
}

// A process id that no process has now: a child's, once it has exited and been reaped.
pid_t dead_pid() {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return pid;
}

}  // namespace

TEST_SUITE("file_safety") {
  TEST_CASE("train: a film that cannot be written costs nothing but its own exit status 2; the checkpoint is saved") {
    Scratch s("film-fails");
    const std::string m = s.path("m.safetensors"), film = s.path("film.html");
    // Under a file-size limit of 32 KiB (64 blocks of 512 bytes) the checkpoint (26 KiB) fits and
    // the film of 400 snapshots (about 100 KiB) does not.
    CliRun r = s.heed("train " + kTiny + " --steps 400 --watch-every 1 --save " + m + " --film " + film, "ulimit -f 64;");
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("heed train: --film: write_text_file: " + film) != std::string::npos);
    CHECK(r.err.find("File too large") != std::string::npos);
    CHECK(r.err.find("the run itself is saved to " + m) != std::string::npos);
    CHECK(r.out.find("held-out: exact") != std::string::npos);  // the rest of the run went on
    CHECK(s.heed("eval --load " + m + " --samples 4").status == 0);
    CHECK(temporaries(s).empty());
  }

  TEST_CASE("every command: an output that is an input or another output is refused before any work") {
    Scratch s("collide");
    const std::string m = s.path("m.safetensors");
    REQUIRE(s.heed("train " + kTiny + " --steps 3 --save " + m).status == 0);
    const std::string model = slurp(m);
    fs::create_symlink(m, s.path("link.safetensors"));
    fs::create_hard_link(m, s.path("hard.safetensors"));
    spit(s.path("points.json"), "");
    const std::string points = s.path("points.json");
    struct Case {
      std::string args, says;
    };
    const std::vector<Case> cases = {
        {"predict --load " + m + " --svg " + m + " \"1 2 3\"", "--load " + m + " and --svg " + m + " are the same file"},
        {"predict --load " + m + " --html " + m + " \"1 2 3\"", "and --html " + m + " are the same file"},
        {"predict --load " + m + " --svg " + s.path("link.safetensors") + " \"1 2\"", "are the same file"},
        {"predict --load " + m + " --html " + s.path("hard.safetensors") + " \"1 2\"", "are the same file"},
        {"predict --load " + m + " --svg " + s.path("a.svg") + " --html " + s.folder() + "/./a.svg \"1 2\"",
         "--svg " + s.path("a.svg") + " and --html"},
        {"train --resume " + m + " --film " + m, "--resume " + m + " and --film " + m + " are the same file"},
        {"train --resume " + m + " --save " + s.path("new.safetensors") + " --film " + s.path("link.safetensors"),
         "are the same file"},
        {"train " + kTiny + " --steps 3 --load " + m + " --film " + m, "--film " + m + " and --load " + m},
        {"train " + kTiny + " --steps 3 --save " + s.path("x") + " --film " + s.path("x"), "--save " + s.path("x") +
                                                                                              " and --film "},
        {"bench --from " + points + " --svg " + points, "--from " + points + " and --svg " + points + " are the same file"},
    };
    for (const Case& c : cases) {
      CliRun r = s.heed(c.args);
      INFO("heed " << c.args << "\n  -> " << r.status << ": " << r.err);
      CHECK(r.status == 2);
      CHECK(count_lines(r.err) == 1);
      CHECK(r.err.find(c.says) != std::string::npos);
      CHECK(r.out.empty());  // refused before any work
    }
    CHECK(slurp(m) == model);
    CHECK(fs::is_symlink(s.path("link.safetensors")));
    CHECK(slurp(points).empty());
    CHECK(!fs::exists(s.path("x")));
    // The one exception: the checkpoint saved over the one it started from.
    CHECK(s.heed("train " + kTiny + " --steps 3 --load " + m + " --save " + m).status == 0);
    CHECK(s.heed("train --resume " + m + " --steps 5 --save " + s.path("link.safetensors")).status == 0);
  }

  TEST_CASE("outputs: only regular files are replaced; a symlink is written through; permission bits are kept") {
    Scratch s("special-outputs");
    const std::string fifo = s.path("fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
    CliRun r = s.heed("train " + kTiny + " --steps 2 --save " + fifo);
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find(fifo + ": is a FIFO; heed replaces only regular files") != std::string::npos);
    CHECK(r.out.empty());  // before training
    CHECK(is_fifo(fifo));
    if (::geteuid() == 0) {  // only root may make a device: a copy of /dev/null, which --save must not replace
      const std::string device = s.path("null");
      REQUIRE(::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);
      r = s.heed("train " + kTiny + " --steps 2 --save " + device);
      CHECK(r.status == 2);
      CHECK(r.err.find(device + ": is a character device; heed replaces only regular files") != std::string::npos);
      struct stat st{};
      CHECK((::lstat(device.c_str(), &st) == 0 && S_ISCHR(st.st_mode)));
    }
    const std::string m = s.path("m.safetensors");
    REQUIRE(s.heed("train " + kTiny + " --steps 2 --save " + m).status == 0);
    r = s.heed("predict --load " + m + " --svg " + fifo + " \"1 2\"");
    CHECK(r.status == 2);
    CHECK(is_fifo(fifo));

    // A symlink: the link stays, its target gets the new file (by --save and by --resume).
    fs::create_directory(s.path("runs"));
    const std::string target = s.path("runs/real.safetensors"), link = s.path("link.safetensors");
    REQUIRE(s.heed("train " + kTiny + " --steps 4 --save " + target).status == 0);
    fs::create_symlink("runs/real.safetensors", link);  // relative, as users make them
    r = s.heed("train --resume " + link + " --steps 6");
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK(fs::is_symlink(link));
    CHECK(fs::read_symlink(link) == "runs/real.safetensors");
    CHECK(s.heed("train --resume " + target + " --steps 6").out.find("resuming " + target + " at step 6") !=
          std::string::npos);

    // A private checkpoint stays private when it is replaced.
    fs::permissions(m, fs::perms::owner_read | fs::perms::owner_write);
    REQUIRE(permission_bits(m) == 0600);
    CHECK(s.heed("train --resume " + m + " --steps 3").status == 0);
    CHECK(permission_bits(m) == 0600);
    CHECK(temporaries(s).empty());
  }

  TEST_CASE("writes: a file-size limit is a clean error; any file name has a temporary; stale temporaries go") {
    Scratch s("write-limits");
    const std::string m = s.path("m.safetensors");
    spit(m, "the old content");
    CliRun r = s.heed("train " + kTiny + " --steps 2 --save " + m, "ulimit -f 1;");
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("\nheed train: write_safetensors: " + m + ": cannot write the temporary file: File too large\n") !=
          std::string::npos);  // the last line, after the progress lines
    CHECK(slurp(m) == "the old content");
    CHECK(temporaries(s).empty());

    // A name of 250 bytes (the longest most file systems take is 255) can be saved to.
    const std::string name = s.path(std::string(238, 'n') + ".safetensors");
    r = s.heed("train " + kTiny + " --steps 2 --save " + name);
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK(fs::file_size(name) > 0);

    // A temporary that a killed run left (its process gone) is removed by the next save there;
    // one of a process still running is not.
    const std::string stale = s.path(".m.safetensors.tmp-" + std::to_string(dead_pid()) + "-0");
    const std::string live = s.path(".m.safetensors.tmp-" + std::to_string(::getpid()) + "-0");
    spit(stale, "half a checkpoint");
    spit(live, "being written");
    REQUIRE(s.heed("train " + kTiny + " --steps 2 --save " + m).status == 0);
    CHECK(!fs::exists(stale));
    CHECK(fs::exists(live));
  }

  TEST_CASE("train: SIGHUP and a closed pipe end the run with a save it resumes from") {
    Scratch s("hangup");
    const std::string m = s.path("m.safetensors");
    CliRun r = s.heed_with_faults("train " + kTiny + " --steps 20 --save " + m, "HEED_FAULT_SIGNAL=HUP@7");
    INFO(r.err);
    CHECK(r.status == 129);
    CHECK(r.err.find("heed train: SIGHUP at step 7/20; saved to " + m) != std::string::npos);
    CHECK(s.heed("train --resume " + m).out.find("resuming " + m + " at step 7") != std::string::npos);

    // `heed train ... 2>&1 | head -1`: head leaves after the first line; the progress lines that
    // follow meet a closed pipe.
    const std::string p = s.path("p.safetensors"), status = s.path("status");
    const std::string cmd = "(" + runner() + build_dir() + "/heed train " + kTiny + " --steps 100000 --save " + p +
                            "; echo $? >" + status + ") 2>&1 | head -1 >/dev/null";
    REQUIRE(std::system(cmd.c_str()) == 0);
    CHECK(slurp(status) == "141\n");  // 128 + SIGPIPE, as when the signal kills: but the run is saved
    REQUIRE(fs::exists(p));
    CliRun resumed = s.heed("train --resume " + p + " --steps 0");  // below the step reached, which is at least 1
    CHECK(resumed.err.find("which " + p + " has reached") != std::string::npos);
  }

  TEST_CASE("resume: a checkpoint replaced while it is read gives the old one whole, never a mix") {
    Scratch s("replaced-in-load");
    const std::string a = s.path("a.safetensors"), b = s.path("b.safetensors"), ref = s.path("ref.safetensors");
    const std::string a_copy = s.path("a-copy.safetensors"), out = s.path("out.safetensors");
    REQUIRE(s.heed("train " + kTiny + " --steps 4 --save " + a).status == 0);
    REQUIRE(s.heed("train --resume " + a + " --steps 6 --save " + b).status == 0);  // the same run, 2 steps on
    fs::copy_file(a, a_copy);
    REQUIRE(s.heed("train --resume " + a_copy + " --steps 8 --save " + ref).status == 0);
    // b is renamed over a after a's header is read and before its tensors are.
    CliRun r = s.heed_with_faults("train --resume " + a + " --steps 8 --save " + out, "HEED_FAULT_REPLACE_IN_LOAD=" + b);
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK(!fs::exists(b));  // the replacement happened
    CHECK(slurp(out) == slurp(ref));  // step 4's file, read whole: the run continued from step 4 exactly
  }

  TEST_CASE("charts: values no axis can hold are refused by name; the tiniest spans draw without NaN") {
    // 1e30 (not 1e308, which float cannot hold): far past any axis, in both builds.
    const std::string what = "svg_line_chart: series 'ms' has the point (5, 1e+30) (point 0); a chart draws values within +-1e12";
    CHECK_THROWS_WITH_AS(svg_line_chart({{"ms", {5, 10}, {1e30, -1e30}}}, "t", "x", "y"), what.c_str(), Error);
    CHECK_THROWS_AS(svg_line_chart({{"ms", {-1e13, 10}, {1, 2}}}, "t", "x", "y"), Error);
    const real tiny = std::numeric_limits<real>::denorm_min();
    for (const std::vector<real>& ys : std::vector<std::vector<real>>{{tiny, 0}, {tiny, tiny}, {1e-300, 2e-300}, {1e12, -1e12}}) {
      const std::string svg = svg_line_chart({{"ms", {5, 10}, ys}}, "t", "x", "y");
      INFO(svg);
      CHECK(svg.find("nan") == std::string::npos);
      CHECK(svg.find("inf") == std::string::npos);
    }
    // Through heed bench --from: a clear error, exit 2.
    Scratch s("chart-range");
    const std::string points = s.path("points.json");
    for (const char* ms : {"1e30", "1"})
      std::ofstream(points, std::ios::app)
          << R"({"program": "heed", "model": "dot", "dtype": "float64", "embed": 4, "hidden": 8, "batch": 2, "len": )"
          << (ms[1] ? 4 : 8) << R"(, "ms_per_step": )" << ms
          << R"(, "ms_p10": 1, "ms_p90": 2, "tokens_per_second": 1, "gflops_per_second": 1, "step_peak_mb": 1})" << "\n";
    CliRun r = s.heed("bench --from " + points + " --svg " + s.path("a.svg"));
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("a chart draws values within +-1e12") != std::string::npos);
  }

  TEST_CASE("text from files and arguments reaches the terminal with its control characters escaped") {
    CHECK(terminal_safe("a\x1b[2Jb\x07\x7f\xff\xc2\x9b\xc3\xa9") == "a\\x1B[2Jb\\x07\\x7F\\xFF\\u{9B}\xc3\xa9");
    Scratch s("escapes");
    const std::string m = s.path("m.safetensors"), odd = s.path("odd.safetensors");
    REQUIRE(s.heed("train " + kTiny + " --steps 2 --save " + m).status == 0);
    SafetensorsFile f = read_safetensors(m);
    std::string tokens = "<pad> <bos> <eos>";
    for (int k = 0; k < 10; ++k) tokens += " \x1b[3" + std::to_string(k) + "m";  // the symbols as colour codes
    f.metadata["tgt_tokens"] = tokens;
    write_safetensors(odd, f.tensors, f.metadata);
    CliRun r = s.heed("predict --load " + odd + " \"1 2 3\"");
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find('\x1b') == std::string::npos);
    CHECK(r.out.find("\\x1B[3") != std::string::npos);
    // A source with an escape sequence and a byte that is not UTF-8: the error line shows them.
    r = s.heed("predict --load " + m + " \"1 \x1b]0;title\x07 \xff\"");
    CHECK(r.status == 2);
    CHECK(r.err.find('\x1b') == std::string::npos);
    CHECK(r.err.find("unknown token '\\x1B]0;title\\x07'") != std::string::npos);
    // A file name with an escape sequence (legal on disk) is shown escaped.
    const std::string odd_name = s.path("a\x1b[2Jb.safetensors");
    r = s.heed("train " + kTiny + " --steps 2 --save \"" + odd_name + "\"");
    CHECK(r.status == 0);
    CHECK(fs::exists(odd_name));
    CHECK(r.out.find('\x1b') == std::string::npos);
    CHECK(r.out.find("saved to " + s.path("a\\x1B[2Jb.safetensors")) != std::string::npos);
  }

  TEST_CASE("resume: the film is continued, the hint repeats the outputs, a finished run and longer runs say so") {
    Scratch s("resume-niceties");
    const std::string m = s.path("m.safetensors"), film = s.path("f.html");
    CliRun r = s.heed_with_faults("train " + kTiny + " --steps 40 --watch-every 10 --save " + m + " --film " + film,
                                  "HEED_FAULT_SIGNAL=INT@20");
    INFO(r.out << r.err);
    REQUIRE(r.status == 130);
    CHECK(r.err.find("resume with: " + build_dir() + "/heed-faults train --resume " + m + " --film " + film +
                     " --watch-every 10\n") != std::string::npos);
    CHECK(slurp(film).find("\"steps\":[0,10,20]") != std::string::npos);
    // Resumed as the hint says: the earlier snapshots are kept, the new ones follow.
    r = s.heed("train --resume " + m + " --film " + film + " --watch-every 10");
    CHECK(r.status == 0);
    CHECK(r.out.find("continuing the film " + film + " (2 snapshots, to step 10)") != std::string::npos);
    CHECK(slurp(film).find("\"steps\":[0,10,20,30,40]") != std::string::npos);

    // A film of another example is not replaced.
    const std::string other = s.path("other.html");
    REQUIRE(s.heed("train --task copy " + kTiny + " --steps 10 --watch-every 5 --film " + other).status == 0);
    const std::string other_bytes = slurp(other);
    r = s.heed("train --resume " + m + " --steps 50 --film " + other);
    CHECK(r.status == 2);
    CHECK(r.err.find("--film " + other + ": the file exists and films another example") != std::string::npos);
    CHECK(slurp(other) == other_bytes);

    // A finished run says so, and how to go on; a longer run says what its rate becomes.
    r = s.heed("train --resume " + m);
    CHECK(r.status == 0);
    CHECK(r.out.find(m + " is a finished run (step 40 of 40): nothing left to train; give --steps above 40") !=
          std::string::npos);
    CHECK(r.out.find("trained in") == std::string::npos);
    r = s.heed("train --resume " + m + " --steps 80");
    CHECK(r.status == 0);
    CHECK(r.out.find("--steps raised from 40 to 80: the linear schedule now decays the rate to 0 at step 80, so at "
                     "step 40 it is 0.0015 (it was 0)") != std::string::npos);

    // A new run saved over a training checkpoint names the run it replaces.
    r = s.heed("train " + kTiny + " --steps 2 --save " + m);
    CHECK(r.status == 0);
    CHECK(r.out.find("replacing " + m + ", the training checkpoint of a run (model additive, task reverse) at step 80 of 80") != std::string::npos);
  }

  TEST_CASE("inputs that are not regular files are refused up front (a FIFO does not block)") {
    Scratch s("special-inputs");
    const std::string fifo = s.path("fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
    // `timeout` turns the old behaviour, blocking forever, into a failure instead of a hang.
    for (const std::string& args : {"eval --load " + fifo, "predict --load " + fifo + " \"1 2\"", "bench --from " + fifo,
                                    "train --resume " + fifo, "train " + kTiny + " --load " + fifo}) {
      CliRun r = s.heed(args, "timeout 20");
      INFO("heed " << args << "\n  -> " << r.status << ": " << r.err);
      CHECK(r.status == 2);
      CHECK(count_lines(r.err) == 1);
      CHECK(r.err.find(fifo + ": ") != std::string::npos);
      CHECK((r.err.find("is a FIFO, not a regular file") != std::string::npos ||
             r.err.find("not a regular file") != std::string::npos));
    }
  }
}
