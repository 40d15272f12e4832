// Nothing a user has is lost, round 2 (docs/cli.md, "Files"), through the real program: outputs
// are compared by the file they will finally write, so a dangling symlink (or a chain of them,
// relative targets included) between two outputs is refused naming both flags; `-`, /dev/stdout,
// /dev/stderr and /proc/self/fd/N are written as streams, appended where the shell appends and
// working into a pipe, never replaced by a rename; a write-protected file is refused unless
// --force is given, and so is a file of another user.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/chapter_check.h"
#include "tests/support/heed_cli.h"

using namespace heed;
namespace fs = std::filesystem;

namespace {

const std::string kTiny = "--min-len 2 --max-len 4 --embed 4 --hidden 6 --batch 4 --eval-samples 4";
const std::string kData = "--embed 4 --hidden 6 --batch 4 --eval-samples 4";

void spit(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

// `PREFIX heed ARGS REDIRECT` run by /bin/sh in `dir` (the scratch folder by default): its exit
// status, stdout (unless REDIRECT sends it elsewhere: ">>log.txt", "| cat >x") and stderr.
CliRun heed_in(const Scratch& s, const std::string& args, const std::string& redirect = "",
               const std::string& dir = "", const std::string& prefix = "") {
  const std::string out = s.path("run.out"), err = s.path("run.err"), status = s.path("run.status");
  const std::string heed = fs::absolute(build_dir() + "/heed").string();
  // stderr's file comes first, so that ARGS may send it elsewhere ("2>>e.txt").
  const std::string cmd = "cd '" + (dir.empty() ? s.folder() : dir) + "' && { " + prefix + " " + runner() + heed +
                          " 2>'" + err + "' " + args + " " + (redirect.empty() ? ">'" + out + "'" : redirect) +
                          "; echo $? >'" + status + "'; } </dev/null";
  fs::remove(out);
  std::system(cmd.c_str());
  CliRun r;
  r.status = std::atoi(slurp(status).c_str());
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

bool holds(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_SUITE("file_safety") {
  TEST_CASE("outputs: a dangling symlink (a chain, relative targets) between any two outputs is refused, naming both") {
    Scratch s("dangling");
    const std::string m = s.path("m.safetensors");
    REQUIRE(s.heed("train " + kTiny + " --steps 2 --save " + m).status == 0);
    const std::string model = slurp(m);
    fs::create_directory(s.path("sub"));
    // Every command's pairs of paths of which one is written: train (--save, --film, with the
    // inputs --load, --resume, --data, --valid), predict (--svg, --html with --load), eval (--svg
    // with --load, --csv with --film), data (--out alone), bench (--svg with --from).
    REQUIRE(s.heed("data --task reverse --count 20 --min-len 2 --max-len 4 --out " + s.path("pairs.tsv")).status == 0);
    const std::string d = s.path("d.safetensors");
    REQUIRE(s.heed("train --data " + s.path("pairs.tsv") + " " + kData + " --steps 2 --save " + d).status == 0);
    REQUIRE(s.heed("train --model decoder --task repeat --vocab 6 --min-len 3 --max-len 5 --embed 8 --heads 2 "
                   "--batch 4 --eval-samples 4 --steps 4 --watch-every 2 --film " + s.path("dec.html")).status == 0);
    spit(s.path("points.json"), "");
    struct Case {
      std::string args, first, second;  // the two flags the refusal names
      std::vector<std::string> links;   // "name -> target" made before the run
    };
    const std::string model_name = "m.safetensors";
    const std::vector<Case> cases = {
        // the issue's own: the film's name a dangling link to the checkpoint's, and the reverse
        {"train " + kTiny + " --steps 2 --save new.safetensors --film film.html", "--save", "--film",
         {"film.html -> new.safetensors"}},
        {"train " + kTiny + " --steps 2 --save new.safetensors --film film.html", "--save", "--film",
         {"new.safetensors -> film.html"}},
        // a chain through a folder, its targets relative to each link's own folder
        {"train " + kTiny + " --steps 2 --save new.safetensors --film film.html", "--save", "--film",
         {"film.html -> sub/hop", "sub/hop -> ../new.safetensors"}},
        // both names dangling links to one new file
        {"train " + kTiny + " --steps 2 --save a.safetensors --film b.html", "--save", "--film",
         {"a.safetensors -> both", "b.html -> sub/../both"}},
        {"train --resume " + model_name + " --steps 4 --film film.html", "--resume", "--film",
         {"film.html -> sub/../m.safetensors"}},
        {"train " + kTiny + " --steps 2 --load " + model_name + " --save new.safetensors --film film.html", "--save",
         "--film", {"new.safetensors -> sub/x", "sub/x -> y", "film.html -> sub/y"}},
        {"train --data pairs.tsv " + kData + " --steps 2 --save out.safetensors", "--save", "--data",
         {"out.safetensors -> sub/../pairs.tsv"}},
        {"train --data pairs.tsv --valid pairs.tsv " + kData + " --steps 2 --film f.html", "--film", "--data",
         {"f.html -> sub/v", "sub/v -> ../pairs.tsv"}},
        {"predict --load " + model_name + " --svg p.svg --html p.html \"1 2 3\"", "--svg", "--html",
         {"p.svg -> p.html"}},
        {"predict --load " + model_name + " --svg p.svg --html p.html \"1 2 3\"", "--svg", "--html",
         {"p.html -> p.svg"}},
        {"predict --load " + model_name + " --svg p.svg --html p.html \"1 2 3\"", "--svg", "--html",
         {"p.svg -> sub/q", "sub/q -> ../sub/r", "p.html -> sub/r"}},
        {"predict --load " + model_name + " --svg p.svg \"1 2 3\"", "--load", "--svg",
         {"p.svg -> sub/hop", "sub/hop -> ../m.safetensors"}},
        {"eval --load dec.html --svg h.svg --heads", "--load", "--svg", {"h.svg -> sub/../dec.html"}},
        {"eval --film dec.html --csv c.csv", "--film", "--csv", {"c.csv -> sub/h", "sub/h -> ../dec.html"}},
        {"bench --from points.json --svg b.svg", "--from", "--svg", {"b.svg -> sub/../points.json"}},
    };
    for (const Case& c : cases) {
      std::vector<std::string> made;
      for (const std::string& l : c.links) {
        const size_t arrow = l.find(" -> ");
        const std::string name = s.path(l.substr(0, arrow));
        fs::create_symlink(l.substr(arrow + 4), name);
        made.push_back(name);
      }
      const std::vector<std::string> before = {slurp(m), slurp(s.path("pairs.tsv")), slurp(s.path("dec.html"))};
      CliRun r = heed_in(s, c.args);
      std::string links;
      for (const std::string& l : c.links) links += "  " + l;
      INFO("heed " << c.args << "  (links:" << links << ")\n  -> " << r.status << ": " << r.err << r.out);
      CHECK(r.status == 2);
      CHECK(count_lines(r.err) == 1);
      CHECK(holds(r.err, c.first + " "));
      CHECK(holds(r.err, c.second + " "));
      CHECK(holds(r.err, "are the same file"));
      CHECK(r.out.empty());  // before any work
      CHECK(std::vector<std::string>{slurp(m), slurp(s.path("pairs.tsv")), slurp(s.path("dec.html"))} == before);
      for (const std::string& name : made) {
        CHECK(fs::is_symlink(name));
        fs::remove(name);
      }
      for (const char* out : {"new.safetensors", "film.html", "both", "sub/y", "sub/r", "p.html", "p.svg", "f.html"}) {
        CHECK(!fs::exists(s.path(out)));
        fs::remove(s.path(out));  // (what a failing run wrote, so that the next case starts clean)
      }
    }
    CHECK(slurp(m) == model);
    // Links that do not meet still work: the output written through its link.
    fs::create_symlink("sub/real.svg", s.path("p.svg"));
    CliRun ok = heed_in(s, "predict --load m.safetensors --svg p.svg --html p.html \"1 2 3\"");
    INFO(ok.err);
    CHECK(ok.status == 0);
    CHECK(holds(slurp(s.path("sub/real.svg")), "<svg"));
    CHECK(holds(slurp(s.path("p.html")), "<html"));
  }

  TEST_CASE("outputs: -, /dev/stdout, /dev/stderr and /proc/self/fd/N are streams: appended to, piped, never replaced") {
    Scratch s("streams");
    const std::string m = s.path("m.safetensors");
    REQUIRE(s.heed("train " + kTiny + " --steps 2 --save " + m).status == 0);
    const std::string model = slurp(m);

    // predict --svg /dev/stdout >> log.txt: the earlier line stays; the SVG and the answer follow it.
    spit(s.path("log.txt"), "an earlier line\n");
    CliRun r = heed_in(s, "predict --load m.safetensors --svg /dev/stdout \"1 2 3\"", ">>log.txt");
    INFO(r.err);
    CHECK(r.status == 0);
    std::string log = slurp(s.path("log.txt"));
    CHECK(log.rfind("an earlier line\n", 0) == 0);
    CHECK(holds(log, "<svg"));
    CHECK(holds(log, "\noutput: "));  // the answer, printed before the picture
    CHECK(fs::is_regular_file(s.path("log.txt")));

    // data --out /dev/stdout >> d.tsv, and --out - : the pairs follow the earlier ones.
    spit(s.path("d.tsv"), "1 2\t2 1\n");
    r = heed_in(s, "data --task reverse --count 3 --out /dev/stdout", ">>d.tsv");
    CHECK(r.status == 0);
    r = heed_in(s, "data --task reverse --count 3 --out -", ">>d.tsv");
    CHECK(r.status == 0);
    CHECK(!fs::exists(s.path("-")));  // `-` is standard output, not a file named -
    const std::string pairs = slurp(s.path("d.tsv"));
    CHECK(pairs.rfind("1 2\t2 1\n", 0) == 0);
    CHECK(count_lines(pairs) >= 1 + 3 + 3);

    // /dev/stderr and a numbered descriptor, each appended where the shell appends.
    spit(s.path("e.txt"), "kept\n");
    spit(s.path("three.txt"), "kept too\n");
    r = heed_in(s, "predict --load m.safetensors --svg /dev/stderr --html /proc/self/fd/3 \"1 2\" 2>>e.txt 3>>three.txt",
                ">/dev/null");
    CHECK(r.status == 0);
    CHECK(slurp(s.path("e.txt")).rfind("kept\n<", 0) == 0);
    CHECK(slurp(s.path("three.txt")).rfind("kept too\n<", 0) == 0);

    // Into a pipe: it works.
    r = heed_in(s, "data --task copy --count 2 --min-len 2 --max-len 2 --out /dev/stdout", "| cat >piped.tsv");
    INFO(r.err);
    CHECK(r.err.empty());
    CHECK(count_lines(slurp(s.path("piped.tsv"))) == 3);  // two pairs and the "wrote" line

    // A checkpoint is a file heed replaces whole and resumes from: a stream is refused, in words.
    spit(s.path("ckpt.log"), "keep me\n");
    r = heed_in(s, "train " + kTiny + " --steps 2 --save /dev/stdout", ">>ckpt.log");
    CHECK(r.status == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(holds(r.err, "--save /dev/stdout"));
    CHECK(holds(r.err, "give a file name"));
    CHECK(slurp(s.path("ckpt.log")) == "keep me\n");

    // A stream that is a file another output or an input names: refused, nothing written.
    r = heed_in(s, "predict --load m.safetensors --svg /dev/stdout --html log.txt \"1 2\"", ">>log.txt");
    CHECK(r.status == 2);
    CHECK(holds(r.err, "are the same file"));
    r = heed_in(s, "predict --load m.safetensors --svg /dev/stdout \"1 2\"", ">>m.safetensors");
    CHECK(r.status == 2);
    CHECK(holds(r.err, "--load m.safetensors and --svg /dev/stdout are the same file"));
    CHECK(slurp(m) == model);
  }

  TEST_CASE("outputs: a write-protected file is refused (how to go on in one line), --force replaces it") {
    Scratch s("protected");
    const std::string good = s.path("good.safetensors");
    REQUIRE(s.heed("train " + kTiny + " --steps 2 --save " + good).status == 0);
    const std::string model = slurp(good);
    fs::permissions(good, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);  // chmod 444
    struct stat before{};
    REQUIRE(::stat(good.c_str(), &before) == 0);
    spit(s.path("p.svg"), "mine");
    spit(s.path("d.tsv"), "mine");
    fs::permissions(s.path("p.svg"), fs::perms::owner_read);
    fs::permissions(s.path("d.tsv"), fs::perms::owner_read);
    const std::vector<std::string> refused = {
        "train " + kTiny + " --steps 2 --save " + good,
        "train --resume " + good + " --steps 4",  // the resume saves over its checkpoint
        "train --resume " + good + " --steps 4 --checkpoint-every 1",
        "predict --load " + good + " --svg " + s.path("p.svg") + " \"1 2\"",
        "data --task copy --count 2 --out " + s.path("d.tsv"),
    };
    for (const std::string& args : refused) {
      CliRun r = s.heed(args);
      INFO("heed " << args << "\n  -> " << r.status << ": " << r.err);
      CHECK(r.status == 2);
      CHECK(count_lines(r.err) == 1);
      CHECK(holds(r.err, "write-protected"));
      CHECK(holds(r.err, "--force"));
      CHECK(r.out.empty());
    }
    CHECK(slurp(good) == model);
    CHECK(slurp(s.path("p.svg")) == "mine");
    CHECK(slurp(s.path("d.tsv")) == "mine");
    // A new name, or --force.
    CHECK(s.heed("train --resume " + good + " --steps 4 --save " + s.path("next.safetensors")).status == 0);
    CliRun forced = s.heed("train --resume " + good + " --steps 4 --force");
    INFO(forced.err);
    CHECK(forced.status == 0);
    CHECK(slurp(good) != model);
    struct stat after{};
    REQUIRE(::stat(good.c_str(), &after) == 0);
    CHECK((after.st_mode & 07777) == 0444);  // still protected
    CHECK(s.heed("predict --load " + good + " --svg " + s.path("p.svg") + " --force \"1 2\"").status == 0);
    CHECK(holds(slurp(s.path("p.svg")), "<svg"));
    CHECK(s.heed("data --task copy --count 2 --force --out " + s.path("d.tsv")).status == 0);

    // Another user's file in a folder anyone may write: refused, and its owner unchanged.
    if (::geteuid() == 0 && std::system("command -v setpriv >/dev/null 2>&1") == 0) {
      const std::string shared = s.path("shared");
      fs::create_directory(shared);
      fs::permissions(shared, fs::perms::all);  // 0777, not sticky: anyone may rename over a file in it
      const std::string theirs = shared + "/theirs.safetensors";
      fs::copy_file(s.path("next.safetensors"), theirs);
      fs::permissions(theirs, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                                  fs::perms::others_read);  // 0644, root's
      const std::string as_nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups";
      // The program must be reachable by that user: skip (saying so) where the build is private.
      if (std::system((as_nobody + " test -x " + fs::absolute(build_dir()).string() + "/heed").c_str()) == 0) {
        const std::string theirs_bytes = slurp(theirs);
        CliRun r = heed_in(s, "train --resume " + theirs + " --steps 4", "", shared, as_nobody);
        INFO("as user 65534: " << r.status << ": " << r.err);
        CHECK(r.status == 2);
        CHECK(holds(r.err, "write-protected"));
        struct stat st{};
        REQUIRE(::stat(theirs.c_str(), &st) == 0);
        CHECK(st.st_uid == 0);
        CHECK(slurp(theirs) == theirs_bytes);
      } else {
        MESSAGE("the other user's case is skipped: user 65534 cannot run " << build_dir() << "/heed");
      }
    }
  }
}
