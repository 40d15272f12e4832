// Chapter 04, checkpoints: the safetensors format and saving/loading a Module, including every
// kind of corrupt file the loader must refuse with a clear message. (JSON: ch04_json_test.cpp.)
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "io/safetensors.h"
#include "nn/checkpoint.h"
#include "tensor/random.h"
#include "tests/support/heed_cli.h"  // slurp
#include "tests/support/precision.h"

using namespace heed;
namespace fs = std::filesystem;

namespace {

// A fresh folder under the system temp folder, removed with everything in it.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() / ("heed-test-" + std::to_string(::getpid()) + "-ckpt" + std::to_string(counter++));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
};

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string le(uint64_t v, int n) {
  std::string s;
  for (int k = 0; k < n; ++k) s += static_cast<char>((v >> (8 * k)) & 0xFF);
  return s;
}

// A safetensors file by hand: size prefix, header text, data bytes.
std::string craft(const std::string& header, const std::string& data) { return le(header.size(), 8) + header + data; }

std::string f64_bytes(std::initializer_list<double> xs) {
  std::string s;
  for (double x : xs) s += le(std::bit_cast<uint64_t>(x), 8);
  return s;
}

std::string f32_bytes(std::initializer_list<float> xs) {
  std::string s;
  for (float x : xs) s += le(std::bit_cast<uint32_t>(x), 4);
  return s;
}

// The values' bits (a float widened to double exactly, so this holds in both builds).
std::vector<uint64_t> bits(const Tensor& t) {
  std::vector<uint64_t> b;
  for (real x : t.values()) b.push_back(std::bit_cast<uint64_t>(static_cast<double>(x)));
  return b;
}

struct Affine : Module {
  Var weight, bias;  // weight (out, in), bias (out)
  Affine(int64_t in, int64_t out, Generator& gen) {
    weight = register_parameter("weight", Tensor::normal({out, in}, 0, 1, gen));
    bias = register_parameter("bias", Tensor::normal({out}, 0, 1, gen));
  }
};

// Names: scale, encoder.weight, encoder.bias, decoder.weight, decoder.bias.
struct Net : Module {
  Var scale;  // a 0-d parameter
  Affine encoder, decoder;
  Net(uint64_t seed, int64_t hidden = 4) : Net(Generator(seed), hidden) {}
  Net(Generator gen, int64_t hidden) : encoder(3, hidden, gen), decoder(hidden, 2, gen) {
    scale = register_parameter("scale", Tensor::scalar(gen.uniform()));
    register_module("encoder", encoder);
    register_module("decoder", decoder);
  }
};

std::map<std::string, std::vector<uint64_t>> snapshot(const Module& m) {
  std::map<std::string, std::vector<uint64_t>> s;
  for (const auto& [name, v] : m.named_parameters()) s[name] = bits(v.value());
  return s;
}

}  // namespace

TEST_SUITE("ch04_layers") {

TEST_CASE("checkpoint: a round trip is bit-identical in values and metadata") {
  TempDir dir;
  std::string path = dir.file("net.safetensors");
  Net net(1);
  // Values whose text or float forms are easy to get wrong.
  Tensor& w = net.encoder.weight.value();
  w[0] = -0.0;
  w[1] = std::numeric_limits<real>::denorm_min();
  w[2] = std::numeric_limits<real>::max();
  w[3] = 1.0 / 3.0;
  w[4] = -std::numeric_limits<real>::min();
  std::map<std::string, std::string> meta = {
      {"model", "net"}, {"hidden", "4"}, {"note", "quote \" backslash \\ newline \n caf\xC3\xA9"}, {"empty", ""}};
  save_checkpoint(net, path, meta);
  CHECK(dir.listing() == std::vector<std::string>{"net.safetensors"});  // no temporary left behind

  Net other(2);
  REQUIRE(snapshot(other) != snapshot(net));
  CHECK(load_checkpoint(other, path) == meta);
  CHECK(snapshot(other) == snapshot(net));
  CHECK(read_checkpoint_metadata(path) == meta);

  SafetensorsFile raw = read_safetensors(path);
  REQUIRE(raw.tensors.size() == 5);
  const char* names[] = {"scale", "encoder.weight", "encoder.bias", "decoder.weight", "decoder.bias"};
  for (int i = 0; i < 5; ++i) CHECK(raw.tensors[i].name == names[i]);
  CHECK(raw.tensors[0].value.shape() == Shape{});
  CHECK(raw.tensors[1].value.shape() == Shape{4, 3});
}

TEST_CASE("safetensors: the bytes follow the reference layout") {
  TempDir dir;
  std::string path = dir.file("t.safetensors");
  write_safetensors(path, {{"b", Tensor({2}, {1.5, -2})}, {"a", Tensor({1, 1}, {0.25})}}, {{"k", "v"}});
  std::string bytes = slurp(path);
  REQUIRE(bytes.size() >= 8);
  uint64_t n = 0;
  for (int k = 7; k >= 0; --k) n = (n << 8) | static_cast<unsigned char>(bytes[k]);
  CHECK(n % 8 == 0);  // padded so the data is 8-byte aligned
  REQUIRE(bytes.size() == 8 + n + 3 * sizeof(real));  // 3 values of real's width
  std::string header = bytes.substr(8, n);
  std::string expected =
      R"({"__metadata__":{"k":"v"},"b":{"dtype":"F64","shape":[2],"data_offsets":[0,16]},)"
      R"("a":{"dtype":"F64","shape":[1,1],"data_offsets":[16,24]}})";
  std::string data = f64_bytes({1.5, -2, 0.25});
  if (test::kFloatBuild) {  // heed writes real as it is: F32, half the bytes
    expected = R"({"__metadata__":{"k":"v"},"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
               R"("a":{"dtype":"F32","shape":[1,1],"data_offsets":[8,12]}})";
    data = f32_bytes({1.5, -2, 0.25});
  }
  CHECK(header.substr(0, expected.size()) == expected);
  CHECK(header.find_first_not_of(' ', expected.size()) == std::string::npos);  // spaces pad it
  CHECK(bytes.substr(8 + n) == data);
}

TEST_CASE("safetensors: F64 loads into float rounded to nearest, F32 into double exactly") {
  TempDir dir;
  std::string path = dir.file("convert.safetensors");
  // 1 + 2^-24 lies halfway between two floats (1 and 1 + 2^-23): to nearest, ties to even, is 1;
  // 1 + 3 * 2^-24 is halfway too, and goes up to 1 + 2^-22; 0.1 is no float at all.
  const double halfway = 1 + std::ldexp(1.0, -24), halfway_up = 1 + 3 * std::ldexp(1.0, -24);
  write_bytes(path, craft(R"({"w":{"dtype":"F64","shape":[3],"data_offsets":[0,24]}})", f64_bytes({halfway, halfway_up, 0.1})));
  Tensor w = read_safetensors(path).tensors.at(0).value;
  if (test::kFloatBuild) {
    CHECK(bits(w) == bits(Tensor({3}, {1, 1 + std::ldexp(real(1), -22), 0.1f})));
  } else {
    CHECK(bits(w) == bits(Tensor({3}, {real(halfway), real(halfway_up), real(0.1)})));  // F64 into double: as it is
  }
  // F32 values come in exactly in both builds (every float is a double).
  write_bytes(path, craft(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", f32_bytes({0.1f, 1 + 0x1p-23f})));
  w = read_safetensors(path).tensors.at(0).value;
  CHECK(static_cast<double>(w[0]) == static_cast<double>(0.1f));
  CHECK(static_cast<double>(w[1]) == 1 + std::ldexp(1.0, -23));
  // And what heed writes it reads back bit for bit, in its own width.
  write_safetensors(path, {{"w", w}}, {});
  CHECK(bits(read_safetensors(path).tensors.at(0).value) == bits(w));
}

TEST_CASE("safetensors: F32, F16 and BF16 tensors are read and converted") {
  TempDir dir;
  std::string path = dir.file("mixed.safetensors");
  std::string f32;
  for (float x : {1.5f, -2.25f, 0.1f}) f32 += le(std::bit_cast<uint32_t>(x), 4);
  // F16: 1, -2, 2^-24 (smallest subnormal), 65504 (largest); BF16: 1, -3.
  std::string f16 = le(0x3C00, 2) + le(0xC000, 2) + le(0x0001, 2) + le(0x7BFF, 2);
  std::string bf16 = le(0x3F80, 2) + le(0xC040, 2);
  std::string header =
      R"({"f32":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},)"
      R"("f16":{"dtype":"F16","shape":[2,2],"data_offsets":[12,20]},)"
      R"("bf16":{"dtype":"BF16","shape":[2],"data_offsets":[20,24]},)"
      R"("f64":{"dtype":"F64","shape":[1],"data_offsets":[24,32]}})";
  write_bytes(path, craft(header, f32 + f16 + bf16 + f64_bytes({7})));
  SafetensorsFile file = read_safetensors(path);
  CHECK(file.metadata.empty());
  REQUIRE(file.tensors.size() == 4);
  CHECK(file.tensors[0].name == "f32");
  CHECK(bits(file.tensors[0].value) ==
        bits(Tensor({3}, {1.5, -2.25, static_cast<real>(0.1f)})));  // exactly the float's value
  CHECK(file.tensors[1].value.shape() == Shape{2, 2});
  CHECK(bits(file.tensors[1].value) == bits(Tensor({2, 2}, {1, -2, 5.9604644775390625e-08, 65504})));
  CHECK(bits(file.tensors[2].value) == bits(Tensor({2}, {1, -3})));
  CHECK(bits(file.tensors[3].value) == bits(Tensor({1}, {7})));

  // An F32 checkpoint loads into a module, converted.
  struct Small : Module {
    Var w;
    Small() { w = register_parameter("w", Tensor::zeros({3})); }
  } small;
  write_bytes(path, craft(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}})", f32));
  load_checkpoint(small, path);
  CHECK(small.w.value()[1] == -2.25);
}

TEST_CASE("safetensors: every corrupt file is refused with what and where") {
  TempDir dir;
  std::string path = dir.file("bad.safetensors");
  auto refuses = [&](const std::string& bytes, const std::string& message) {
    write_bytes(path, bytes);
    CAPTURE(message);
    CHECK_THROWS_WITH_AS(read_safetensors(path), doctest::Contains(message.c_str()), Error);
    CHECK_THROWS_WITH_AS(read_safetensors(path), doctest::Contains(path.c_str()), Error);
  };
  auto entry = [](const std::string& name, const std::string& dtype, const std::string& shape, int b, int e) {
    return "\"" + name + R"(":{"dtype":")" + dtype + R"(","shape":)" + shape + R"(,"data_offsets":[)" +
           std::to_string(b) + "," + std::to_string(e) + "]}";
  };
  std::string two = f64_bytes({1, 2});
  std::string good = craft("{" + entry("w", "F64", "[2]", 0, 16) + "}", two);
  write_bytes(path, good);
  CHECK(read_safetensors(path).tensors.size() == 1);

  // Truncated: anywhere in the size field, the header or the data.
  refuses(good.substr(0, 5), "file is 5 bytes, too short for the 8-byte header size");
  refuses(good.substr(0, 20), "is larger than the 12 bytes that follow the size field");
  refuses(good.substr(0, good.size() - 8), "run past the end of the 8-byte data section");
  // The header size.
  refuses(le(uint64_t(1) << 40, 8) + "{}", "header size 1099511627776 exceeds the limit of 100000000 bytes");
  refuses(le(1000, 8) + "{}", "header size 1000 is larger than the 2 bytes that follow");
  // The header's JSON and structure.
  refuses(craft(R"({"w": )", ""), "invalid JSON header (offsets count from file byte 8): json: offset 6: expected a value");
  refuses(craft("[1]", ""), "header is not a JSON object");
  refuses(craft(R"({"__metadata__":{"k":1}})", ""), "__metadata__: the value of \"k\" is not a string");
  refuses(craft(R"({"__metadata__":[]})", ""), "__metadata__ is not an object of strings");
  refuses(craft(R"({"w":3})", ""), "tensor \"w\": its entry is not an object");
  refuses(craft(R"({"w":{"shape":[2],"data_offsets":[0,16]}})", two), "tensor \"w\": no \"dtype\"");
  refuses(craft(R"({"w":{"dtype":"F64","data_offsets":[0,16]}})", two), "tensor \"w\": no \"shape\"");
  refuses(craft(R"({"w":{"dtype":"F64","shape":[2]}})", two), "tensor \"w\": no \"data_offsets\"");
  refuses(craft(R"({"w":{"dtype":"F64","shape":[2],"data_offsets":[0,16],"x":1}})", two),
          "tensor \"w\": unknown field \"x\"");
  refuses(craft("{" + entry("w", "Q7", "[2]", 0, 16) + "}", two),
          "tensor \"w\": unsupported dtype \"Q7\" (heed reads F64, F32, F16 and BF16)");
  refuses(craft("{" + entry("w", "I64", "[2]", 0, 16) + "}", two), "unsupported dtype \"I64\"");
  refuses(craft("{" + entry("w", "F64", "[-2]", 0, 16) + "}", two),
          "tensor \"w\": shape entry 0 is not a non-negative integer: -2");
  refuses(craft("{" + entry("w", "F64", "[1,2.0]", 0, 16) + "}", two), "shape entry 1 is not a non-negative integer: 2.0");
  refuses(craft("{" + entry("w", "F64", "[\"2\"]", 0, 16) + "}", two), "shape entry 0 is not a non-negative integer");
  refuses(craft("{" + entry("w", "F64", "[4294967296,4294967296,4294967296]", 0, 16) + "}", two),
          "shape [4294967296,4294967296,4294967296] is too large");
  refuses(craft(R"({"w":{"dtype":"F64","shape":[2],"data_offsets":[0]}})", two),
          "\"data_offsets\" is not a pair [begin, end] of non-negative integers: [0]");
  refuses(craft(R"({"w":{"dtype":"F64","shape":[2],"data_offsets":[-8,8]}})", two), "\"data_offsets\" is not a pair");
  // Shape, offsets and the data section disagree.
  refuses(craft("{" + entry("w", "F64", "[2]", 0, 8) + "}", two.substr(0, 8)),
          "tensor \"w\": shape [2] of F64 needs 16 bytes but data_offsets [0, 8] hold 8");
  refuses(craft("{" + entry("w", "F32", "[2]", 0, 16) + "}", two), "shape [2] of F32 needs 8 bytes");
  refuses(craft("{" + entry("w", "F64", "[2]", 16, 0) + "}", two), "tensor \"w\": data_offsets [16, 0]: begin is after end");
  refuses(craft("{" + entry("w", "F64", "[2]", 8, 24) + "}", two),
          "tensor \"w\": data_offsets [8, 24] run past the end of the 16-byte data section");
  refuses(craft("{" + entry("a", "F64", "[2]", 0, 16) + "," + entry("b", "F64", "[2]", 8, 24) + "}", two + two.substr(0, 8)),
          "tensors \"a\" (data bytes [0, 16)) and \"b\" ([8, 24)) overlap");
  refuses(craft("{" + entry("a", "F64", "[1]", 0, 8) + "," + entry("b", "F64", "[1]", 0, 8) + "}", two.substr(0, 8)),
          "overlap");
  refuses(craft("{" + entry("a", "F64", "[1]", 0, 8) + "," + entry("b", "F64", "[1]", 16, 24) + "}", two + two.substr(0, 8)),
          "data bytes [8, 16) belong to no tensor");
  refuses(craft("{" + entry("a", "F64", "[1]", 0, 8) + "}", two), "data bytes [8, 16) after the last tensor belong to no tensor");
  refuses(craft("{" + entry("a", "F64", "[1]", 0, 8) + "," + entry("a", "F64", "[1]", 8, 16) + "}", two),
          "duplicate key \"a\"");
  // Not a file at all.
  CHECK_THROWS_WITH_AS(read_safetensors(dir.file("absent.safetensors")), doctest::Contains("cannot open"), Error);
  CHECK_THROWS_WITH_AS(read_safetensors(dir.path.string()), doctest::Contains("is a folder, not a file"), Error);
  CHECK_THROWS_WITH_AS(read_checkpoint_metadata(path), doctest::Contains("duplicate key"), Error);
}

TEST_CASE("checkpoint: a file that does not match the module is refused and the module kept") {
  TempDir dir;
  std::string path = dir.file("net.safetensors");
  Net saved(1, 4);
  save_checkpoint(saved, path);

  Net wider(2, 5);  // encoder [5, 3] and [5], decoder [2, 5]
  auto before = snapshot(wider);
  CHECK_THROWS_WITH_AS(load_checkpoint(wider, path),
                       doctest::Contains("the file does not match the module; shape mismatch: encoder.weight (file [4, 3], "
                                         "module [5, 3]), encoder.bias (file [4], module [5]), decoder.weight (file "
                                         "[2, 4], module [2, 5])"),
                       Error);
  CHECK(snapshot(wider) == before);  // scale and decoder.bias matched, but nothing was copied

  struct Renamed : Module {
    Var scale, gain;
    Affine encoder;
    Renamed(Generator gen) : encoder(3, 4, gen) {
      scale = register_parameter("scale", Tensor::scalar(1));
      gain = register_parameter("gain", Tensor::zeros({2}));
      register_module("encoder", encoder);
    }
  } renamed(Generator(3));
  auto before_renamed = snapshot(renamed);
  CHECK_THROWS_WITH_AS(load_checkpoint(renamed, path),
                       doctest::Contains("missing from the file: gain [2]; unexpected in the file: decoder.weight "
                                         "[2, 4], decoder.bias [2]"),
                       Error);
  CHECK(snapshot(renamed) == before_renamed);

  // A checkpoint may not hold a NaN, whoever wrote it.
  std::string nan_file = dir.file("nan.safetensors");
  struct One : Module {
    Var w;
    One() { w = register_parameter("w", Tensor({2}, {5, 6})); }
  } one;
  write_bytes(nan_file, craft(R"({"w":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}})",
                              f64_bytes({1, std::numeric_limits<real>::quiet_NaN()})));
  CHECK_THROWS_WITH_AS(load_checkpoint(one, nan_file), doctest::Contains("parameter 'w' [2] holds nan at flat index 1"),
                       Error);
  CHECK(bits(one.w.value()) == bits(Tensor({2}, {5, 6})));
}

TEST_CASE("checkpoint: a failed save leaves the previous file intact and no temporary file") {
  TempDir dir;
  std::string path = dir.file("net.safetensors");
  Net net(1);
  save_checkpoint(net, path, {{"step", "1"}});
  std::string before = slurp(path);

  net.encoder.weight.value()[5] = std::numeric_limits<real>::quiet_NaN();
  CHECK_THROWS_WITH_AS(save_checkpoint(net, path, {{"step", "2"}}),
                       doctest::Contains("parameter 'encoder.weight' [4, 3] holds nan at flat index 5; not saved"), Error);
  net.encoder.weight.value()[5] = -std::numeric_limits<real>::infinity();
  CHECK_THROWS_WITH_AS(save_checkpoint(net, path), doctest::Contains("holds -inf"), Error);
  CHECK(slurp(path) == before);
  CHECK(read_checkpoint_metadata(path).at("step") == "1");

  // A name the writer refuses, and metadata that is not UTF-8: refused before the file is touched.
  CHECK_THROWS_WITH_AS(write_safetensors(path, {{"a", Tensor::scalar(1)}, {"a", Tensor::scalar(2)}}, {}),
                       doctest::Contains("duplicate tensor name \"a\""), Error);
  CHECK_THROWS_WITH_AS(write_safetensors(path, {}, {{"k", "\xFF"}}), doctest::Contains("not valid UTF-8"), Error);
  CHECK(slurp(path) == before);

  // A folder at the path: refused before a temporary file is made (only regular files are replaced).
  fs::create_directory(dir.path / "folder");
  CHECK_THROWS_WITH_AS(save_checkpoint(Net(2), dir.file("folder")), doctest::Contains("folder: is a folder; give a file name"),
                       Error);
  CHECK(fs::is_directory(dir.path / "folder"));
  // No folder to write in.
  CHECK_THROWS_WITH_AS(save_checkpoint(Net(2), dir.file("nowhere/net.safetensors")),
                       doctest::Contains("cannot create a temporary file"), Error);
  // A folder we may not write in (root may write anywhere, so only checked for other users).
  if (::geteuid() != 0) {
    fs::path locked = dir.path / "locked";
    fs::create_directory(locked);
    write_bytes((locked / "net.safetensors").string(), before);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
    CHECK_THROWS_WITH_AS(save_checkpoint(Net(2), (locked / "net.safetensors").string()),
                         doctest::Contains("cannot create a temporary file"), Error);
    fs::permissions(locked, fs::perms::owner_all);
    CHECK(slurp((locked / "net.safetensors").string()) == before);
    fs::remove_all(locked);
  }
  CHECK(slurp(path) == before);
  CHECK(dir.listing() == std::vector<std::string>{"folder", "net.safetensors"});
}

}  // TEST_SUITE
