// The inventories the documents list or count: heed's commands, the model kinds, tasks and cells
// heed train accepts, the chapters, the exercises and the pieces of make yours. Each is read from
// the code, never copied here: the commands from `heed --help`, the choices from heed's refusal of
// an unknown value (which names every one it accepts), the chapters from tutorials/NN_topic/main.cpp,
// the exercises from the stubs' contracts (exercises/NN_topic/exercises.h, numbered by the chapter's
// exercises README) and the pieces from exercises/yours/pieces. Every place in README.md, docs/,
// exercises/ and the chapters that lists or counts one is held to it, so an addition fails here
// until each of those places says so; a sentence checked here that is reworded fails too, naming
// itself, rather than leaving its count unchecked. Runs from the repository root with heed built.
#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "doctest/doctest.h"
#include "tests/support/heed_cli.h"
#include "tests/docs/inventory.h"

namespace fs = std::filesystem;
using heed::slurp;
using namespace inventory;

namespace {

NameSet as_set(const Names& v) { return NameSet(v.begin(), v.end()); }
std::string join(const NameSet& s) { return inventory::join(Names(s.begin(), s.end())); }
using inventory::join;

// The one count a sentence of `file` states: `pattern`'s first group (a number or a number word).
// Fails if the sentence is gone, so that a count checked here cannot slip out unnoticed.
int stated(const std::string& file, const std::string& pattern) {
  auto found = matches(slurp(file), pattern);
  CHECK_MESSAGE(found.size() == 1, file << ": the sentence /" << pattern << "/ is found " << found.size()
                                        << " times, not once: this test holds its count");
  return found.size() == 1 ? count_of(found[0][1]) : -1;
}

// What `heed COMMAND FLAG no-such-choice` refuses with, every choice it accepts, in its order:
// "FLAG: 'no-such-choice' is not one of a, b, c" (tools/args.h), or the library's own refusal
// "... (choose a, b or c)" (as models/config.cpp words an unknown model).
Names accepted(const std::string& command, const std::string& flag) {
  heed::Scratch s("inventory");
  const heed::CliRun r = s.heed(command + " " + flag + " no-such-choice");
  INFO("heed " << command << " " << flag << " no-such-choice: status " << r.status << ", stderr: " << r.err);
  REQUIRE(r.status == 2);
  const std::string line = r.err.substr(0, r.err.find('\n'));
  const auto one_of = matches(line, "is not one of (.*)$"), choose = matches(line, "\\(choose (.*) or ([^ ]*)\\)");
  REQUIRE((one_of.size() == 1 || choose.size() == 1));
  if (one_of.size() == 1) return split(one_of[0][1], ", ");
  Names out = split(choose[0][1], ", ");
  out.push_back(choose[0][2]);
  return out;
}

// The commands `heed --help` lists under "commands:".
Names commands() {
  heed::Scratch s("inventory");
  const heed::CliRun r = s.heed("--help");
  REQUIRE(r.status == 0);
  Names out;
  const size_t start = r.out.find("commands:\n");
  REQUIRE(start != std::string::npos);
  for (const std::string& line : split(r.out.substr(start + 10), "\n")) {
    if (line.rfind("  ", 0) != 0) break;
    out.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  return out;
}

}  // namespace

TEST_SUITE("docs") {
  TEST_CASE("inventory: heed's commands are the ones docs/cli.md and docs/architecture.md describe") {
    const Names cmds = commands();
    REQUIRE(cmds.size() >= 5);
    for (const std::string& c : cmds) {
      heed::Scratch s("inventory");
      CHECK_MESSAGE(s.heed(c + " --help").status == 0, "heed " << c << " --help");
    }
    NameSet documented;
    for (const std::string& line : lines_starting(slurp("docs/cli.md"), "## `heed "))
      documented.insert(line.substr(9, line.find('`', 9) - 9));
    CHECK_MESSAGE(documented == as_set(cmds), "docs/cli.md has a section for " << join(documented)
                                                                               << "; heed --help lists " << join(cmds));
    // The tools/ entry of the folder tree names each command.
    const std::string entry = tree_entry(slurp("docs/architecture.md"), "tools/");
    REQUIRE_MESSAGE(!entry.empty(), "docs/architecture.md's folder tree has no tools/ entry");
    for (const std::string& c : cmds)
      CHECK_MESSAGE(has_word(entry, c), "docs/architecture.md's tools/ entry does not name the command " << c);
  }

  TEST_CASE("inventory: the models, tasks and cells heed accepts are the ones its help and the documents list") {
    const Names models = accepted("train", "--model"), tasks = accepted("train", "--task"),
                cell_kinds = accepted("train", "--cell");
    REQUIRE(models.size() >= 9);
    REQUIRE(tasks.size() >= 6);
    INFO("heed train accepts --model " << join(models) << "; --task " << join(tasks) << "; --cell " << join(cell_kinds));

    // heed train --help: "--model a|b|c", in the same order.
    heed::Scratch s("inventory");
    const std::string help = s.heed("train --help").out;
    for (const auto& flag_list : {std::pair<std::string, Names>{"--model", models}, {"--task", tasks}, {"--cell", cell_kinds}}) {
      const std::string& flag = flag_list.first;
      auto found = matches(help, "\n  " + flag + " ([a-z|-]+)");
      REQUIRE_MESSAGE(found.size() == 1, "heed train --help has no line for " << flag);
      CHECK_MESSAGE(split(found[0][1], "|") == flag_list.second, "heed train --help: " << flag << " " << found[0][1]);
    }

    // README.md, "The command line": "Tasks: `copy`, ... Models: `plain`, ... `gru`, ... cells, ...".
    const std::string readme = section(slurp("README.md"), "## The command line");
    const size_t t = readme.find("Tasks: "), m = readme.find("Models: ");
    REQUIRE_MESSAGE(t != std::string::npos, "README.md's command line section has no \"Tasks: \" sentence");
    REQUIRE_MESSAGE(m != std::string::npos, "README.md's command line section has no \"Models: \" sentence");
    CHECK_MESSAGE(backticked(readme.substr(t, m - t)) == tasks,
                  "README.md names the tasks " << join(backticked(readme.substr(t, m - t))));
    const std::string model_sentence = readme.substr(m, readme.find(".\n", m) - m);
    Names named_models, named_cells;
    for (const std::string& n : backticked(model_sentence))
      (std::find(cell_kinds.begin(), cell_kinds.end(), n) != cell_kinds.end() ? named_cells : named_models).push_back(n);
    CHECK_MESSAGE(named_models == models, "README.md names the models " << join(named_models));
    CHECK_MESSAGE(named_cells == cell_kinds, "README.md names the cells " << join(named_cells));

    // docs/cli.md: each command's --model, --task and --cell rows give exactly what it accepts
    // (a row "as `train`" says train's list).
    const std::string cli = slurp("docs/cli.md");
    int rows = 0;
    for (const std::string& cmd : commands()) {
      const std::string sec = section(cli, "## `heed " + cmd + "`");
      for (const std::string flag : {"--model", "--task", "--cell"}) {
        const Names row = lines_starting(sec, "| `" + flag + "` |");
        if (row.empty()) continue;
        ++rows;
        const Names c = cells(row[0]);
        REQUIRE(c.size() >= 3);
        const Names listed = c[2].find("as `train`") != std::string::npos ? accepted("train", flag) : backticked(c[2]);
        const Names takes = accepted(cmd, flag);
        CHECK_MESSAGE(listed == takes, "docs/cli.md, heed " << cmd << " " << flag << ": " << c[2] << "; heed accepts " << join(takes));
      }
    }
    CHECK(rows >= 4);

    // docs/models.md: one row per task in the table of tasks, a heading naming each model.
    const std::string models_md = slurp("docs/models.md");
    Names task_rows;
    for (const std::string& row : lines_starting(section(models_md, "## Tasks"), "| `"))
      task_rows.push_back(backticked(cells(row)[0]).at(0));
    CHECK_MESSAGE(task_rows == tasks, "docs/models.md's table of tasks has " << join(task_rows));
    NameSet in_headings;
    for (const std::string& h : lines_starting(section(models_md, "## The models"), "### "))
      for (const std::string& n : backticked(h)) in_headings.insert(n);
    for (const std::string& model : models)
      CHECK_MESSAGE(in_headings.count(model) == 1, "docs/models.md has no heading for the model " << model);

    // docs/architecture.md: the models/ entry of the folder tree names each task.
    const std::string entry = tree_entry(slurp("docs/architecture.md"), "models/");
    REQUIRE_MESSAGE(!entry.empty(), "docs/architecture.md's folder tree has no models/ entry");
    for (const std::string& task : tasks)
      CHECK_MESSAGE(has_word(entry, task), "docs/architecture.md's models/ entry does not name the task " << task);

    // Chapter 12: "the model reference lists nine".
    CHECK(stated("tutorials/12_attention_zoo/README.md", "docs/models\\.md\\) lists " + count_group()) ==
          static_cast<int>(models.size()));
  }

  TEST_CASE("inventory: every chapter is in the README's table, the 12-week plan and the counts") {
    const Names chs = chapters();
    REQUIRE(chs.size() >= 14);
    const int n = static_cast<int>(chs.size());
    INFO("the chapters: " << join(chs));

    Names in_table;
    for (const std::string& row : lines_starting(section(slurp("README.md"), "## The chapters"), "| "))
      for (const auto& link : matches(row, "\\]\\(tutorials/([^/)]+)/README\\.md\\)")) in_table.push_back(link[1]);
    CHECK_MESSAGE(in_table == chs, "README.md's table of chapters links " << join(in_table));

    Names in_plan;
    for (const std::string& row : lines_starting(section(slurp("exercises/README.md"), "### A 12-week plan"), "| "))
      for (const auto& link : matches(row, "\\]\\(\\.\\./tutorials/([^/)]+)/README\\.md\\)")) in_plan.push_back(link[1]);
    CHECK_MESSAGE(in_plan == chs, "exercises/README.md's 12-week plan links " << join(in_plan));

    CHECK(stated("exercises/README.md", count_group() + " chapters, each with") == n);
    CHECK(stated("docs/contributing.md", "counts the chapters \\(" + count_group() + " today") == n);

    // Each chapter has its folder of exercises, and only they.
    NameSet folders;
    for (const auto& e : fs::directory_iterator("exercises"))
      if (e.is_directory() && fs::exists(e.path() / "exercises.h")) folders.insert(e.path().filename().string());
    CHECK_MESSAGE(folders == as_set(chs), "exercises/ has the folders " << join(folders));
  }

  TEST_CASE("inventory: the exercises, numbered, named and counted the same everywhere") {
    const Exercises ex = exercises();
    REQUIRE(ex.total >= 48);
    INFO(ex.total << " exercises");

    // Each chapter's README numbers exactly the functions its header declares, from 1 without a gap.
    for (const auto& e : fs::directory_iterator("exercises")) {
      const std::string dir = e.path().filename().string();
      if (!e.is_directory() || !fs::exists(e.path() / "exercises.h")) continue;
      const auto numbered = numbered_in_readme(dir);
      NameSet names;
      int expect = 1;
      for (const auto& mn : numbered) {
        CHECK_MESSAGE(mn.first == expect, "exercises/" << dir << "/README.md numbers " << mn.second << " " << mn.first
                                                       << ", not " << expect);
        ++expect;
        names.insert(mn.second);
      }
      CHECK_MESSAGE(names == as_set(declared_exercises(dir)),
                    "exercises/" << dir << "/README.md numbers " << join(names) << "; exercises.h declares "
                                 << join(declared_exercises(dir)));
    }

    // Wherever "NN.M `name`" is written, exercise NN.M is `name`.
    int references = 0;
    for (const std::string& doc : documents())
      for (const auto& m : matches(slurp(doc), "\\b([0-9][0-9])\\.([0-9]+) `([a-z_0-9]+)[`(]")) {
        ++references;
        CHECK_MESSAGE(ex.number(m[1], m[3]) == m[1] + "." + m[2],
                      doc << " writes " << m[0] << "; " << m[3] << " is exercise "
                          << (ex.number(m[1], m[3]).empty() ? "(none of chapter " + m[1] + ")" : ex.number(m[1], m[3])));
      }
    CHECK(references > 100);

    // exercises/README.md's table of chapters names every exercise in its chapter's row.
    const std::string ex_readme = slurp("exercises/README.md");
    for (const auto& chapter : ex.by_chapter) {
      const std::string& nn = chapter.first;
      const auto rows = matches(ex_readme, "\n\\| \\[" + nn + " [^\n]*");
      REQUIRE_MESSAGE(rows.size() == 1, "exercises/README.md's table of chapters has no row for " << nn);
      for (const std::string& name : chapter.second)
        CHECK_MESSAGE(has_word(rows[0][0], name), "exercises/README.md's row for " << nn << " does not name " << name);
    }

    // The counts.
    std::vector<Piece> ps = pieces();
    int in_pieces = 0;
    for (const Piece& p : ps) in_pieces += static_cast<int>(p.exercises.size());
    CHECK(stated("README.md", count_group() + " functions you write yourself") == ex.total);
    CHECK(stated("exercises/README.md", "\\), " + count_group() + " exercises checked") == ex.total);
    const auto other = matches(ex_readme, "The other " + count_group() + " of the " + count_group() + " exercises");
    REQUIRE_MESSAGE(other.size() == 1, "exercises/README.md: \"The other N of the M exercises\" is gone");
    CHECK(count_of(other[0][1]) == ex.total - in_pieces);
    CHECK(count_of(other[0][2]) == ex.total);
    int largest = 0;
    for (const auto& chapter : ex.by_chapter) largest = std::max(largest, static_cast<int>(chapter.second.size()));
    const auto longest = matches(ex_readme, "([0-9][0-9]) \\(" + count_group() + " exercises: with ([0-9][0-9]), the longest set\\)");
    REQUIRE_MESSAGE(longest.size() == 1, "exercises/README.md: the 12-week plan's \"(N exercises: with NN, the longest set)\" is gone");
    CHECK(count_of(longest[0][2]) == largest);
    CHECK(ex.count(longest[0][1]) == largest);
    CHECK(ex.count(longest[0][3]) == largest);
    int chapters_this_long = 0;
    for (const auto& chapter : ex.by_chapter) chapters_this_long += static_cast<int>(chapter.second.size()) == largest;
    CHECK_MESSAGE(chapters_this_long == 2, chapters_this_long << " chapters have " << largest << " exercises");
    // A chapter that counts its own: "this chapter's three exercises".
    int own = 0;
    for (const std::string& ch : chapters())
      for (const auto& m : matches(slurp("tutorials/" + ch + "/README.md"), "this chapter's " + count_group() + " exercises")) {
        ++own;
        CHECK_MESSAGE(count_of(m[1]) == ex.count(ch.substr(0, 2)), "tutorials/" << ch << "/README.md: " << m[0]);
      }
    CHECK(own >= 1);
  }

  TEST_CASE("inventory: the pieces of make yours, in every table and count") {
    const Exercises ex = exercises();
    const std::vector<Piece> ps = pieces();
    REQUIRE(ps.size() >= 25);
    const int n = static_cast<int>(ps.size());
    std::map<std::string, NameSet> by_chapter;  // "05" -> gru, lstm
    for (const Piece& p : ps) {
      for (const std::string& e : p.exercises)
        CHECK_MESSAGE(!ex.number(e.substr(0, 2), e.substr(3)).empty(),
                      "exercises/yours/pieces: " << p.name << " is made of " << e << ", which is no exercise");
      for (const std::string& nn : piece_chapters(p)) by_chapter[nn].insert(p.name);
    }

    CHECK(stated("README.md", count_group() + " of heed's own pieces") == n);
    CHECK(stated("exercises/README.md", count_group() + " pieces of heed's engine") == n);
    int all = 0;
    for (const std::string& ch : chapters())
      for (const auto& m : matches(slurp("tutorials/" + ch + "/README.md"), "\"Your own heed\", has all " + count_group())) {
        ++all;
        CHECK_MESSAGE(count_of(m[1]) == n, "tutorials/" << ch << "/README.md: " << m[0] << "; there are " << n);
      }
    CHECK(all >= 1);

    // exercises/README.md's table of the pieces: each piece with its exercises, numbered.
    std::map<std::string, NameSet> table;
    for (const std::string& row : lines_starting(section(slurp("exercises/README.md"), "## Your own heed"), "| ")) {
      const Names c = cells(row);
      if (c.size() < 4 || c[1] == "piece" || c[1].find("---") != std::string::npos) continue;
      for (const auto& m : matches(c[2], "([0-9][0-9])\\.[0-9]+ `([a-z_0-9]+)`")) table[c[1]].insert(m[1] + ":" + m[2]);
    }
    std::map<std::string, NameSet> listed;
    for (const Piece& p : ps) listed[p.name] = as_set(p.exercises);
    CHECK_MESSAGE(table == listed, "exercises/README.md's table of pieces has " << table.size() << " pieces; "
                                                                               << "exercises/yours/pieces lists " << n);

    // Each chapter's "Your own heed" table has the pieces its exercises make, and a chapter that
    // makes none says so; so do the chapters' exercise READMEs ("All five are pieces").
    for (const std::string& ch : chapters()) {
      const std::string nn = ch.substr(0, 2), readme = slurp("tutorials/" + ch + "/README.md");
      NameSet in_table;
      for (const std::string& row : lines_starting(section(readme, "## Your own heed"), "| ")) {
        const Names c = cells(row);
        if (c.size() >= 4 && c[0] != "piece" && c[0].find("---") == std::string::npos) in_table.insert(c[0]);
      }
      INFO("tutorials/" << ch << "/README.md");
      CHECK_MESSAGE(in_table == by_chapter[nn], "its table of pieces has " << join(in_table) << "; the chapter's exercises make "
                                                                          << join(by_chapter[nn]));
      if (by_chapter[nn].empty()) CHECK(readme.find("adds no piece") != std::string::npos);
      const std::string ex_readme = slurp("exercises/" + ch + "/README.md");
      for (const auto& m : matches(ex_readme, "All " + count_group() + " are pieces")) {
        CHECK(count_of(m[1]) == ex.count(nn));
        int made = 0;
        for (const Piece& p : ps)
          for (const std::string& e : p.exercises) made += e.rfind(nn + ":", 0) == 0;
        CHECK_MESSAGE(made == ex.count(nn), "exercises/" << ch << "/README.md: " << m[0] << "; " << made << " are");
      }
      if (ex_readme.find("adds no piece") != std::string::npos) CHECK(by_chapter[nn].empty());
    }
  }

  TEST_CASE("inventory: the helpers read what they are meant to") {
    CHECK(count_of("nine") == 9);
    CHECK(count_of("25") == 25);
    CHECK(count_of("many") == -1);
    CHECK(backticked("a `b` c `d`") == Names{"b", "d"});
    CHECK(section("# t\n## a\nx\n### b\ny\n## c\nz\n", "## a") == "## a\nx\n### b\ny");
    CHECK(section("## a\nx\n", "## a") == "## a\nx\n");
    CHECK(section("## a\nx\n", "## b").empty());
    CHECK(cells("| `--task` | `reverse` | `copy`, `sort` | the task |") ==
          Names{"`--task`", "`reverse`", "`copy`, `sort`", "the task"});
    CHECK(matches("x (choose a, b or c)", "\\(choose (.*) or ([^ ]*)\\)").at(0) == Names{"(choose a, b or c)", "a, b", "c"});
    CHECK(tree_entry("a/   x\n     y\nb/   z\n", "a/") == "a/   x\n     y");
    CHECK(has_word("copy, repeat", "repeat"));
    CHECK(!has_word("repeated", "repeat"));
  }
}
