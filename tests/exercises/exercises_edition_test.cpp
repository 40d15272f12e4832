// make student-edition (exercises/exercises.mk) hands a class every file of the repository but the
// solutions and the self-test: the user's own files too, whatever their names (letters beyond
// ASCII, a tab, a leading space, a name that starts with "build"), and it refuses a DIR that is
// there already, a dangling symlink included, with its own message. Runs in the repository only
// (this file is left out of the edition, with the self-test).
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/heed_cli.h"

using namespace heed;
namespace fs = std::filesystem;

namespace {

// Files made in the repository for the test, removed at the end whatever happens.
struct RepoFiles {
  std::vector<fs::path> made;
  ~RepoFiles() {
    for (const fs::path& p : made) fs::remove_all(p);
  }
};

// `make ARGS` in the repository, as a user types it (not the make running the tests).
std::string make(const std::string& args) {
  return "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C '" + fs::current_path().string() +
         "' " + args;
}

}  // namespace

TEST_SUITE("exercises") {
  TEST_CASE("make student-edition: the user's files of any name are in the edition; an existing DIR is refused") {
    Scratch s("edition-names");
    const std::string tag = std::to_string(::getpid());
    RepoFiles repo;
    const fs::path folder = "edition-names-" + tag, top = "buildnotes-" + tag + ".md", lead = " leading-" + tag + ".txt";
    repo.made = {folder, top, lead};
    fs::create_directory(folder);
    const std::vector<std::string> names = {top.string(), lead.string(), folder.string() + "/\xc3\xa9t\xc3\xa9.txt",
                                            folder.string() + "/a\ttab.txt", folder.string() + "/ leading space.txt",
                                            folder.string() + "/build-log.txt"};
    for (const std::string& n : names) std::ofstream(n) << "the user's own: " << n << "\n";
    const std::string ed = s.path("ed");
    Shell made = sh(s, ".", make("student-edition DIR='" + ed + "'"));
    INFO(made.out);
    REQUIRE(made.status == 0);
    for (const std::string& n : names) {
      INFO(n);
      CHECK(slurp(ed + "/" + n) == "the user's own: " + n + "\n");
    }
    CHECK(fs::exists(ed + "/Makefile"));
    CHECK(!fs::exists(ed + "/exercises/solutions"));
    CHECK(!fs::exists(ed + "/build"));

    // DIR a dangling symlink: "exists", status 2, and the link is left alone.
    const std::string link = s.path("link");
    fs::create_symlink(s.path("nowhere"), link);
    Shell again = sh(s, ".", make("student-edition DIR='" + link + "'"));
    CHECK((again.status >> 8) == 2);
    CHECK(again.out.find("student-edition: " + link + " exists; name a new folder") != std::string::npos);
    CHECK(fs::is_symlink(link));
    CHECK(!fs::exists(s.path("nowhere")));
  }
}
