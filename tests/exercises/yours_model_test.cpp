// Your own heed's model pieces (exercises/yours/pieces, issue 28): the GRU and LSTM steps
// (exercise 05), greedy decoding (06), the additive, general, scaled dot and cosine scores (07,
// 08, 12), the split into heads (12) and the layer norm (13). With their chapters' solutions,
// heed train on each model that uses them reaches heed's losses to 1e-9 and decodes the same
// tokens; a known wrong answer and an answer calling heed's own version are each named once,
// with the check's table; and each wrong answer linked in unchecked (YOURS_PIECES) changes what
// the model that uses that piece alone computes, so the student's function is what heed runs
// there (no inlined copy of heed's).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/chapter_check.h"
#include "tests/support/heed_cli.h"
#include "tests/support/precision.h"

namespace {

using heed::sh;
using heed::slurp;

// The answers of chapter `folder`: the solution with each (from, to) edit made once.
struct Answer {
  std::string folder;
  std::vector<std::pair<std::string, std::string>> edits;
  std::vector<std::string> includes;  // headers the edited answer needs, put first
};

// Writes each answer into DIR/folder/exercises.cpp, only when it changed (make then rebuilds
// only what did), and deletes chapters that are no longer in the list.
void write_answers(const std::string& dir, const std::vector<Answer>& answers) {
  for (const Answer& a : answers) {
    std::string text = slurp("exercises/solutions/" + a.folder + "/exercises.cpp");
    REQUIRE_MESSAGE(!text.empty(), a.folder);
    for (const auto& edit : a.edits) {
      const size_t at = text.find(edit.first);
      REQUIRE_MESSAGE(at != std::string::npos, a.folder << ": " << edit.first);
      text.replace(at, edit.first.size(), edit.second);
    }
    for (const std::string& header : a.includes) text = "#include \"" + header + "\"\n" + text;
    const std::string path = dir + "/" + a.folder + "/exercises.cpp";
    if (slurp(path) == text) continue;
    std::filesystem::create_directories(dir + "/" + a.folder);
    std::ofstream(path, std::ios::binary) << text;
  }
}

// make TARGET in the repository, in the tests' build, with the variables given.
heed::Shell make_yours(const heed::Scratch& s, const std::string& target, const std::string& vars) {
  return sh(s, std::filesystem::current_path().string(),
            "env -u MAKEFLAGS -u MFLAGS ${MAKE:-make} --no-print-directory -s " + target + " BUILD=" + build_dir() +
                " YOURS_CHAPTERS= " + vars);
}

// What a short training of PROGRAM reports (heed train --json): the loss (the mean of the last
// 50 steps) and the held-out exact and token accuracies of greedy decoding.
struct Trained {
  double loss = 0, exact = 0, token = 0;
};
Trained train(const heed::Scratch& s, const std::string& program, const std::string& model) {
  const heed::Shell r = sh(s, ".",
                           runner() + program +
                               " train --task reverse --min-len 3 --max-len 6 --embed 8 --batch 8 --steps 30 --seed 7"
                               " --eval-samples 20 --json " +
                               model);
  INFO(program << " " << model << "\n" << r.out);
  REQUIRE(r.status == 0);
  auto field = [&](const std::string& name) {
    const size_t at = r.out.rfind("\"" + name + "\":");
    REQUIRE(at != std::string::npos);
    return std::strtod(r.out.c_str() + at + name.size() + 3, nullptr);
  };
  return {field("loss"), field("exact"), field("token")};
}

// Each model, and the piece it alone runs on beside heed's own (an RNN cell is heed's).
const std::vector<std::pair<std::string, std::string>> kModelOfPiece = {
    {"gru", "--model plain --hidden 16"},
    {"lstm", "--model plain --cell lstm --hidden 16"},
    {"additive", "--model additive --cell rnn --hidden 16"},
    {"general", "--model general --cell rnn --hidden 16"},
    {"scaled", "--model scaled --cell rnn --hidden 16"},
    {"layer_norm", "--model transformer --layers 1 --heads 2 --ff 16"},
    {"cosine", "--model cosine --cell rnn --hidden 16"},
    {"greedy", "--model plain --cell rnn --hidden 16"},  // its losses heed's: greedy decodes after training
};

// Skipped in another build than build/ (make sanitize's), and in a class's edition (make
// student-edition), which has no solutions to build your heed from.
bool skipped_build() {
  return !make_builds_here() ||
         !std::filesystem::exists("exercises/solutions");
}

}  // namespace

TEST_SUITE("exercises") {
  TEST_CASE("your heed's model pieces: with the solutions, every model trains to heed's losses" *
            DOUBLE_ONLY(kGradcheckReason) * doctest::skip(skipped_build())) {
    heed::Scratch s("yours-model");
    // The solutions of the chapters of these pieces alone: with every chapter's, the exercises'
    // suite makes yours-test already (tests/exercises/exercises_test.cpp), additive and the issue's
    // heed train --task reverse --model additive included; here the other models, and the tokens.
    const std::string dir = build_dir() + "/yours-model-solutions";
    write_answers(dir + "/answers", {{"05_recurrent_cells", {}, {}}, {"06_seq2seq", {}, {}},
                                     {"08_multiplicative_attention", {}, {}}, {"12_attention_zoo", {}, {}},
                                     {"13_transformer", {}, {}}});
    heed::Shell r = make_yours(s, "yours", "ANSWERS=" + dir + "/answers YOURS=" + dir);
    INFO(r.out);
    REQUIRE(r.status == 0);
    for (const char* line : {"  gru             yours   05.1 gru_step", "  lstm            yours   05.2 lstm_step",
                             "  general         yours   08.1 general_scores",
                             "  scaled          yours   08.2 scaled_dot_scores",
                             "  layer_norm      yours   13.1 layer_norm_rows",
                             "  greedy          yours   06.2 greedy_decode",
                             "  cosine          yours   12.1 cosine_scores",
                             "  split_heads     yours   12.3 split_heads"})
      CHECK_MESSAGE(r.out.find(line) != std::string::npos, line);
    for (const std::string model :
         {"--model plain --hidden 16", "--model plain --cell lstm --hidden 16", "--model general --hidden 16",
          "--model scaled --cell lstm --hidden 16", "--model cosine --hidden 16",
          "--model transformer --layers 1 --heads 2 --ff 16",
          "--model transformer --layers 1 --heads 2 --ff 16 --norm-first"}) {
      const Trained heed = train(s, build_dir() + "/heed", model), yours = train(s, dir + "/heed", model);
      CHECK_MESSAGE(std::fabs(heed.loss - yours.loss) <= 1e-9, model << ": heed " << heed.loss << ", yours " << yours.loss);
      CHECK_MESSAGE(heed.exact == yours.exact, model);  // the same tokens, decoded by your greedy_decode
      CHECK_MESSAGE(heed.token == yours.token, model);
    }
  }

  TEST_CASE("your heed's model pieces: a wrong or refused piece is named once; linked, each changes its model" *
            DOUBLE_ONLY(kGradcheckReason) * doctest::skip(skipped_build())) {
    heed::Scratch s("yours-model");
    // Known wrong answers (the kinds tests/exercises/wrong/NN_wrong.cpp holds), one for every piece.
    const std::vector<Answer> wrong = {
        {"06_seq2seq",  // always feeds BOS
         {{"prev[b] = static_cast<int64_t>(best[b]);\n      tokens[b].push_back(prev[b]);",
           "tokens[b].push_back(static_cast<int64_t>(best[b]));"}},
         {}},
        {"05_recurrent_cells",
         {{"return (1.0 - z) * n + z * h;", "return z * n + (1.0 - z) * h;"},  // z and 1 - z swapped
          {"return {o * tanh(c2), c2};", "return {o * c2, c2};"}},            // no tanh on c'
         {}},
        {"07_additive_attention", {{"Var t = tanh(keys + query);", "Var t = keys + query;"}}, {}},  // no tanh
        {"08_multiplicative_attention",
         {{"return reshape(matmul(h, q), {B, S});", "return reshape(matmul(h, q), {B, S}) / std::sqrt(static_cast<real>(Dk));"},
          {"{B, S}) / std::sqrt(static_cast<real>(D));", "{B, S}) / static_cast<real>(D);"}},  // scaled by D
         {}},
        {"12_attention_zoo",
         {{"reshape(unit(s), {B, D, 1})", "reshape(s, {B, D, 1})"},  // s not normalised
          {"x[(b * S + t) * D + j * d + f]", "x[(b * S + t) * D + f * heads + j]"}},  // the heads interleaved
         {}},
        {"13_transformer", {{"xc / sqrt(var + 1e-5)", "xc / (sqrt(var) + 1e-5)"}}, {}},  // eps outside the root
    };
    // Answers that hand their piece to heed's own version of it: linked, each would call itself.
    const std::vector<Answer> refused = {
        {"06_seq2seq",
         {{"DecoderState st = model.start(batch);", "return model.greedy(batch, steps).tokens;\n  DecoderState st = model.start(batch);"}},
         {}},
        {"05_recurrent_cells",
         {{"return (1.0 - z) * n + z * h;", "return heed::gru_step(xp, h, W_hh, b_hh);"},
          {"return {o * tanh(c2), c2};",
           "Var hc = heed::lstm_step(matmul_nt(x, W_ih) + b_ih, h, c, W_hh, b_hh);\n"
           "  return {slice(hc, 1, 0, H), slice(hc, 1, H, 2 * H)};"}},
         {}},
        {"07_additive_attention",
         {{"Var t = tanh(keys + query);",
           "return heed::additive_score(keys, matmul_nt(s, W2), v);\n  Var t = tanh(keys + query);"}},
         {"nn/attention.h"}},
        {"08_multiplicative_attention",
         {{"Var q = reshape(matmul(s, W), {B, Dk, 1});",
           "Generator gen(1);\n  GeneralScore layer(s.shape()[1], Dk, gen);\n  layer.W.weight = W;\n"
           "  return layer.score(s, layer.prepare(h));\n  Var q = reshape(matmul(s, W), {B, Dk, 1});"},
          {"return reshape(matmul(h, reshape(s, {B, D, 1})), {B, S}) / std::sqrt(static_cast<real>(D));",
           "(void)B; (void)S; (void)D; return DotScore(true).score(s, h);"}},
         {"nn/attention.h"}},
        {"12_attention_zoo",
         {{"Var e = reshape(matmul(unit(h)",
           "CosineScore layer;\n  layer.beta = beta;\n  return layer.score(s, layer.prepare(h));\n  Var e = reshape(matmul(unit(h)"},
          {"Tensor out = Tensor::zeros({B, heads, S, d});",
           "return reshape(heed::split_heads(Var(x), heads).value(), {B, heads, S, d});\n  Tensor out = Tensor::zeros({B, heads, S, d});"}},
         {"nn/attention.h", "nn/self_attention.h"}},
        {"13_transformer", {{"return xc / sqrt(var + 1e-5) * weight + bias;", "return heed::layer_norm(x, weight, bias);"}}, {}},
    };
    const std::string wrong_dir = build_dir() + "/yours-model-wrong", refused_dir = build_dir() + "/yours-model-refused";
    write_answers(wrong_dir + "/answers", wrong);
    write_answers(refused_dir + "/answers", refused);

    heed::Shell r = make_yours(s, "yours-test", "ANSWERS=" + wrong_dir + "/answers YOURS=" + wrong_dir);
    {
      INFO(r.out);
      CHECK(r.status != 0);
      for (const char* named : {"the piece gru is not right: 05.1 gru_step: wrong",
                                "the piece lstm is not right: 05.2 lstm_step: wrong",
                                "the piece additive is not right: 07.1 additive_scores: wrong",
                                "the piece general is not right: 08.1 general_scores: wrong",
                                "the piece scaled is not right: 08.2 scaled_dot_scores: wrong",
                                "the piece layer_norm is not right: 13.1 layer_norm_rows: wrong",
                                "the piece greedy is not right: 06.2 greedy_decode: wrong",
                                "the piece cosine is not right: 12.1 cosine_scores: wrong",
                                "the piece split_heads is not right: 12.3 split_heads: wrong"}) {
        CHECK_MESSAGE(r.out.find(named) != std::string::npos, named);
        CHECK_MESSAGE(r.out.find(named) == r.out.rfind(named), named);  // once
      }
      // The check's table under each.
      for (const char* table : {"  05.1 gru_step ", "  05.2 lstm_step ", "  07.1 additive_scores ",
                                "  08.1 general_scores ", "  08.2 scaled_dot_scores ", "  13.1 layer_norm_rows ",
                                "  06.2 greedy_decode ", "  12.1 cosine_scores ",
                                "  12.3 split_heads "})
        CHECK_MESSAGE(r.out.find(std::string(table)) != std::string::npos, table);
      CHECK(r.out.find("differs") != std::string::npos);
      CHECK(r.out.find("gradcheck") == std::string::npos);  // nothing built on them ran
      CHECK(r.out.find("training steps") == std::string::npos);
    }
    r = make_yours(s, "yours-test", "ANSWERS=" + refused_dir + "/answers YOURS=" + refused_dir);
    {
      INFO(r.out);
      CHECK(r.status != 0);
      for (const char* named : {"the piece gru is not right: 05.1 gru_step: refused, it calls heed's own version",
                                "the piece lstm is not right: 05.2 lstm_step: refused",
                                "the piece additive is not right: 07.1 additive_scores: refused",
                                "the piece general is not right: 08.1 general_scores: refused",
                                "the piece scaled is not right: 08.2 scaled_dot_scores: refused",
                                "the piece layer_norm is not right: 13.1 layer_norm_rows: refused",
                                "the piece greedy is not right: 06.2 greedy_decode: refused",
                                "the piece cosine is not right: 12.1 cosine_scores: refused",
                                "the piece split_heads is not right: 12.3 split_heads: refused"}) {
        CHECK_MESSAGE(r.out.find(named) != std::string::npos, named);
        CHECK_MESSAGE(r.out.find(named) == r.out.rfind(named), named);
      }
      for (const char* calls : {"it calls heed::gru_step(", "it calls heed::lstm_step(", "it calls heed::additive_score(",
                                "it calls heed::GeneralScore::", "it calls heed::DotScore::", "it calls heed::layer_norm(",
                                "it calls heed::Model::greedy(", "it calls heed::CosineScore::",
                                "it calls heed::split_heads("})
        CHECK_MESSAGE(r.out.find(calls) != std::string::npos, calls);
    }

    // The wrong pieces linked in unchecked: each changes the losses of the model that runs on it
    // alone (its other pieces heed's), so that model runs the student's function in build-yours,
    // not an inlined copy of heed's own.
    r = make_yours(s, "yours",
                   "ANSWERS=" + wrong_dir + "/answers YOURS=" + wrong_dir +
                       " YOURS_PIECES='gru lstm additive general scaled layer_norm greedy cosine'");
    INFO(r.out);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("8 of ") != std::string::npos);
    for (const auto& piece_model : kModelOfPiece) {  // not a structured binding: clang 14 cannot capture one
      const std::string &piece = piece_model.first, &model = piece_model.second;
      const Trained heed = train(s, build_dir() + "/heed", model), yours = train(s, wrong_dir + "/heed", model);
      if (piece == "greedy") {  // the same training, other tokens decoded
        CHECK(heed.loss == yours.loss);
        CHECK_MESSAGE(heed.token != yours.token, "greedy: token accuracy " << heed.token << " on heed and on yours");
      } else {
        CHECK_MESSAGE(std::fabs(heed.loss - yours.loss) > 1e-6,
                      piece << " (" << model << "): heed " << heed.loss << ", yours " << yours.loss);
      }
    }
    // The Transformer's other piece, linked alone (with the layer norm, which it also runs, the
    // change could be either's): the heads interleaved change its losses.
    r = make_yours(s, "yours", "ANSWERS=" + wrong_dir + "/answers YOURS=" + wrong_dir + " YOURS_PIECES=split_heads");
    INFO(r.out);
    REQUIRE(r.status == 0);
    const std::string transformer = "--model transformer --layers 1 --heads 2 --ff 16";
    const double heed = train(s, build_dir() + "/heed", transformer).loss, yours = train(s, wrong_dir + "/heed", transformer).loss;
    CHECK_MESSAGE(std::fabs(heed - yours) > 1e-6, "split_heads: heed " << heed << ", yours " << yours);
  }
}
