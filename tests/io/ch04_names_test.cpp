// Checkpoint names a PyTorch user recognises (docs/checkpoints.md): every tensor is named and
// shaped as in the state_dict of the stock module computing the same thing -- the encoder as a
// one-layer nn.GRU / nn.LSTM / nn.RNN, the decoder cell as nn.GRUCell / nn.LSTMCell / nn.RNNCell,
// Bahdanau's v as the weight of nn.Linear(A, 1, bias=False) -- and the vocabularies travel in
// the file: predict reads and prints the file's words.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "models/seq2seq.h"
#include "nn/checkpoint.h"
#include "tests/support/heed_cli.h"

using namespace heed;

namespace {

using Names = std::vector<std::pair<std::string, Shape>>;

Names names_of(const ModelConfig& c) {
  Generator gen(1);
  Seq2Seq m(c, gen);
  Names out;
  for (const auto& [name, v] : m.named_parameters()) out.push_back({name, v.shape()});
  return out;
}

}  // namespace

TEST_SUITE("ch04_names") {
  TEST_CASE("checkpoint names: nn.GRU's and nn.GRUCell's state_dict names and shapes") {
    ModelConfig c;  // V 13, E 32, H 64 by default; smaller here
    c.embed = 6;
    c.hidden = 8;
    c.model = "plain";
    c.cell = "gru";
    // (3H, E) etc.: nn.GRU(6, 8, batch_first=True) and nn.GRUCell(6, 8)
    const Names plain = {{"src_embed.weight", {13, 6}},     {"tgt_embed.weight", {13, 6}},
                         {"encoder.weight_ih_l0", {24, 6}}, {"encoder.weight_hh_l0", {24, 8}},
                         {"encoder.bias_ih_l0", {24}},      {"encoder.bias_hh_l0", {24}},
                         {"decoder.weight_ih", {24, 6}},    {"decoder.weight_hh", {24, 8}},
                         {"decoder.bias_ih", {24}},         {"decoder.bias_hh", {24}},
                         {"out.weight", {13, 8}},           {"out.bias", {13}}};
    CHECK(names_of(c) == plain);

    // Bahdanau with a bidirectional LSTM encoder: nn.LSTM(6, 8, bidirectional=True) (4H rows),
    // a bridge nn.Linear(16, 8), nn.LSTMCell(6 + 16, 8), v as nn.Linear(8, 1, bias=False).
    c.model = "additive";
    c.cell = "lstm";
    c.bidirectional = true;
    const Names additive = {{"src_embed.weight", {13, 6}},
                            {"tgt_embed.weight", {13, 6}},
                            {"encoder.weight_ih_l0", {32, 6}},
                            {"encoder.weight_hh_l0", {32, 8}},
                            {"encoder.bias_ih_l0", {32}},
                            {"encoder.bias_hh_l0", {32}},
                            {"encoder.weight_ih_l0_reverse", {32, 6}},
                            {"encoder.weight_hh_l0_reverse", {32, 8}},
                            {"encoder.bias_ih_l0_reverse", {32}},
                            {"encoder.bias_hh_l0_reverse", {32}},
                            {"bridge.weight", {8, 16}},
                            {"bridge.bias", {8}},
                            {"decoder.weight_ih", {32, 22}},
                            {"decoder.weight_hh", {32, 8}},
                            {"decoder.bias_ih", {32}},
                            {"decoder.bias_hh", {32}},
                            {"attention.v.weight", {1, 8}},
                            {"attention.W1.weight", {8, 16}},
                            {"attention.W2.weight", {8, 8}},
                            {"out.weight", {13, 24}},
                            {"out.bias", {13}}};
    CHECK(names_of(c) == additive);

    // Luong's: W as nn.Linear(D, H, bias=False), combine nn.Linear(D + H, H, bias=False),
    // location's W_a nn.Linear(H, S_max, bias=False), cosine's beta a parameter of shape (1).
    c.bidirectional = false;
    c.cell = "rnn";
    c.max_src_len = 20;
    for (const auto& kind : std::vector<std::pair<std::string, Names>>{
             {"general", {{"attention.W.weight", {8, 8}}}},
             {"dot", {}},
             {"scaled", {}},
             {"cosine", {{"attention.beta", {1}}}},
             {"location", {{"attention.W_a.weight", {20, 8}}}}}) {
      const std::string& model = kind.first;  // not a structured binding: CAPTURE captures it,
      const Names& extra = kind.second;       // which clang before 16 refuses
      CAPTURE(model);
      c.model = model;
      Names want = {{"src_embed.weight", {13, 6}},    {"tgt_embed.weight", {13, 6}}, {"encoder.weight_ih_l0", {8, 6}},
                    {"encoder.weight_hh_l0", {8, 8}}, {"encoder.bias_ih_l0", {8}},   {"encoder.bias_hh_l0", {8}},
                    {"decoder.weight_ih", {8, 6}},    {"decoder.weight_hh", {8, 8}}, {"decoder.bias_ih", {8}},
                    {"decoder.bias_hh", {8}}};
      want.insert(want.end(), extra.begin(), extra.end());
      want.push_back({"combine.weight", {8, 16}});
      want.push_back({"out.weight", {13, 8}});
      want.push_back({"out.bias", {13}});
      CHECK(names_of(c) == want);
    }
  }

  TEST_CASE("checkpoint vocabulary: a translate file holds its words; predict prints the file's words") {
    Scratch s("vocab");
    const std::string m = s.path("m.st"), renamed = s.path("renamed.st"), old = s.path("old.st");
    REQUIRE(s.heed("train --task translate --model additive --embed 6 --hidden 8 --batch 4 --steps 2 "
                   "--eval-samples 4 --weights-only --save " + m)
                .status == 0);
    SafetensorsFile f = read_safetensors(m);
    const std::string src = f.metadata.at("src_tokens"), tgt = f.metadata.at("tgt_tokens");
    CHECK(src.rfind("<pad> <bos> <eos> ", 0) == 0);
    CHECK(src.find(" habe ") != std::string::npos);
    CHECK(tgt.find(" hungry ") != std::string::npos);
    CHECK(std::count(tgt.begin(), tgt.end(), ' ') + 1 == std::stoll(f.metadata.at("tgt_vocab")));

    // Every target word renamed in the file only: predict speaks the file's words.
    std::string upper;
    for (char ch : tgt) upper += ch == '<' || ch == '>' ? ch : static_cast<char>(std::toupper(ch));
    upper.replace(0, upper.find(" ", upper.find("<EOS>")), "<pad> <bos> <eos>");
    f.metadata["tgt_tokens"] = upper;
    write_safetensors(renamed, f.tensors, f.metadata);
    CliRun a = s.heed("predict --load " + m + " --json \"ich habe hunger .\"");
    CliRun b = s.heed("predict --load " + renamed + " --json \"ich habe hunger .\"");
    REQUIRE(a.status == 0);
    REQUIRE(b.status == 0);
    const Json ja = a.json(), jb = b.json();
    const Json::Array &wa = ja.find("output")->as_array(), &wb = jb.find("output")->as_array();
    REQUIRE(wa.size() == wb.size());
    for (size_t i = 0; i < wa.size(); ++i) {
      std::string w = wa[i].as_string();
      if (w != "<eos>")
        for (char& ch : w) ch = static_cast<char>(std::toupper(ch));
      CHECK(wb[i].as_string() == w);
    }
    // eval draws sentences from the grammar compiled into heed: it refuses other words.
    CliRun e = s.heed("eval --load " + renamed + " --samples 2");
    CHECK(e.status == 2);
    CHECK(e.err.find("the file's vocabularies differ from those of this heed's task translate") != std::string::npos);

    // A file of the first format is refused with the change that made it old.
    f = read_safetensors(m);
    f.metadata["format"] = "heed-seq2seq-1";
    write_safetensors(old, f.tensors, f.metadata);
    for (const std::string& cmd : {"eval --load " + old, "predict --load " + old + " \"ich\"", "train --resume " + old,
                                  "train --task translate --load " + old}) {
      CliRun r = s.heed(cmd);
      INFO(cmd << ": " << r.err);
      CHECK(r.status == 2);
      CHECK(count_lines(r.err) == 1);
      CHECK(r.err.find("format 'heed-seq2seq-1' is from before heed named its tensors as PyTorch's state_dict does "
                       "(encoder.cell.weight_ih became encoder.weight_ih_l0") != std::string::npos);
    }
  }
}  // TEST_SUITE
