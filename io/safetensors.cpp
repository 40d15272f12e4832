#include "io/safetensors.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <string_view>
#include <type_traits>

#include "io/atomic_file.h"
#include "io/json.h"
#include "io/os.h"
#include "io/paths.h"

namespace heed {

namespace {

// The file's element types are fixed-width IEEE formats whatever heed::real is.
using f64 = double;  // the format's F64: IEEE binary64
using f32 = float;   // the format's F32: IEEE binary32
static_assert(sizeof(f64) == 8 && sizeof(f32) == 4 && std::numeric_limits<f64>::is_iec559);

struct Dtype {
  const char* name;
  uint64_t size;  // bytes per element
};
constexpr Dtype kDtypes[] = {{"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}};
// What heed writes: heed::real as it is, F64 by default and F32 in the float build (-DHEED_REAL_FLOAT),
// so that a write never rounds. Reading converts: F64 into float rounds to nearest, F32 into double is exact.
constexpr Dtype kWriteDtype = sizeof(real) == 8 ? kDtypes[0] : kDtypes[1];
using Stored = std::conditional_t<sizeof(real) == 8, f64, f32>;
using StoredBits = std::conditional_t<sizeof(real) == 8, uint64_t, uint32_t>;

uint64_t load_le(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int k = n - 1; k >= 0; --k) v = (v << 8) | p[k];
  return v;
}

void store_le(unsigned char* p, uint64_t v, int n) {
  for (int k = 0; k < n; ++k) p[k] = static_cast<unsigned char>(v >> (8 * k));
}

real half_to_real(uint16_t h) {  // IEEE binary16: 1 sign, 5 exponent, 10 mantissa bits
  int exponent = (h >> 10) & 0x1F;
  int mantissa = h & 0x3FF;
  real x;
  if (exponent == 0) x = std::ldexp(static_cast<real>(mantissa), -24);  // zero or subnormal
  else if (exponent == 31) x = mantissa ? std::numeric_limits<real>::quiet_NaN() : std::numeric_limits<real>::infinity();
  else x = std::ldexp(static_cast<real>(mantissa + 1024), exponent - 25);
  return (h & 0x8000) ? -x : x;
}

real decode(const unsigned char* p, const std::string& dtype) {
  if (dtype == "F64") return static_cast<real>(std::bit_cast<f64>(load_le(p, 8)));
  if (dtype == "F32") return static_cast<real>(std::bit_cast<f32>(static_cast<uint32_t>(load_le(p, 4))));
  if (dtype == "BF16") return static_cast<real>(std::bit_cast<f32>(static_cast<uint32_t>(load_le(p, 2) << 16)));
  return half_to_real(static_cast<uint16_t>(load_le(p, 2)));  // F16
}

struct Entry {
  std::string name;
  std::string dtype;
  Shape shape;
  uint64_t begin = 0, end = 0;  // bytes of the data section, [begin, end)
};

struct Header {
  std::map<std::string, std::string> metadata;
  std::vector<Entry> entries;  // sorted by position in the data section
  uint64_t data_start = 0;     // file offset of the data section
};

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// Reads a file, or bytes already in memory (then path_ only names them in messages).
class Reader {
 public:
  // Opens the file once; its type and size are the open file's (fstat), so they describe the
  // bytes read even if the path is replaced meanwhile. os::open_input: opening a FIFO does not wait
  // for a writer, and the FIFO is then refused as not a regular file.
  explicit Reader(const std::string& path) : path_(path) {
    int fd = os::open_input(path_);
    if (fd < 0) fail(std::string("cannot open: ") + std::strerror(errno));
    file_.reset(::fdopen(fd, "rb"));
    if (!file_) {
      ::close(fd);
      fail(std::string("cannot open: ") + std::strerror(errno));
    }
    struct stat st{};
    if (::fstat(fd, &st) != 0) fail(std::string("cannot read its size: ") + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) fail("is a folder, not a file");
    if (!S_ISREG(st.st_mode)) fail("is " + file_type_name(st.st_mode) + ", not a regular file");
    file_size_ = static_cast<uint64_t>(st.st_size);
  }
  Reader(std::string_view bytes, const std::string& name) : path_(name), memory_(bytes), file_size_(bytes.size()) {}

  [[noreturn]] void fail(const std::string& what) const { throw Error("safetensors: " + path_ + ": " + what); }
  uint64_t file_size() const { return file_size_; }

  Header read_header() {
    if (file_size_ < 8) fail("file is " + std::to_string(file_size_) + " bytes, too short for the 8-byte header size");
    unsigned char prefix[8];
    read_exact(prefix, 8, 0);
    uint64_t n = load_le(prefix, 8);
    if (n > kSafetensorsMaxHeader)
      fail("header size " + std::to_string(n) + " exceeds the limit of " + std::to_string(kSafetensorsMaxHeader) + " bytes");
    if (n > file_size_ - 8)
      fail("header size " + std::to_string(n) + " is larger than the " + std::to_string(file_size_ - 8) +
           " bytes that follow the size field");
    std::string text(n, '\0');
    read_exact(reinterpret_cast<unsigned char*>(text.data()), n, 8);
    Json json;
    try {
      json = parse_json(text, kJsonMaxDepth, kSafetensorsMaxHeaderValues);
    } catch (const Error& e) {
      fail(std::string("invalid JSON header (offsets count from file byte 8): ") + e.what());
    }
    Header h;
    h.data_start = 8 + n;
    parse_entries(json, h);
    check_layout(h.entries, file_size_ - h.data_start);
    return h;
  }

  std::vector<NamedTensor> read_data(const Header& h) {
    std::vector<NamedTensor> out;
    std::vector<unsigned char> bytes;
    for (const Entry& e : h.entries) {
      uint64_t size = e.end - e.begin;  // checked against the file size in read_header
      bytes.resize(size);
      read_exact(bytes.data(), size, h.data_start + e.begin);
      uint64_t elem = dtype_size(e.dtype);
      std::vector<real> values(size / elem);
      for (size_t i = 0; i < values.size(); ++i) values[i] = decode(bytes.data() + i * elem, e.dtype);
      out.push_back({e.name, Tensor(e.shape, std::move(values))});
    }
    return out;
  }

 private:
  void read_exact(unsigned char* dst, uint64_t n, uint64_t offset) {
    if (n == 0) return;
    if (!file_) {
      if (offset > memory_.size() || n > memory_.size() - offset) fail("internal: read past the end of the bytes");
      std::memcpy(dst, memory_.data() + offset, n);
      return;
    }
    if (std::fseek(file_.get(), static_cast<long>(offset), SEEK_SET) != 0 ||
        std::fread(dst, 1, n, file_.get()) != n)
      fail("cannot read bytes [" + std::to_string(offset) + ", " + std::to_string(offset + n) + ") of the file");
  }

  static uint64_t dtype_size(const std::string& dtype) {
    for (const Dtype& d : kDtypes)
      if (dtype == d.name) return d.size;
    return 0;
  }

  void parse_entries(const Json& json, Header& h) {
    if (!json.is_object()) fail("header is not a JSON object");
    for (const auto& [name, value] : json.items()) {
      if (name == "__metadata__") {
        if (!value.is_object()) fail("__metadata__ is not an object of strings");
        for (const auto& [key, v] : value.items()) {
          if (!v.is_string()) fail("__metadata__: the value of " + json_quote(key) + " is not a string");
          h.metadata[key] = v.as_string();
        }
        continue;
      }
      h.entries.push_back(parse_entry(name, value));
    }
  }

  Entry parse_entry(const std::string& name, const Json& info) {
    std::string where = "tensor " + json_quote(name) + ": ";
    if (!info.is_object()) fail(where + "its entry is not an object");
    for (const auto& [key, v] : info.items())
      if (key != "dtype" && key != "shape" && key != "data_offsets") fail(where + "unknown field " + json_quote(key));
    const Json* dtype = info.find("dtype");
    const Json* shape = info.find("shape");
    const Json* offsets = info.find("data_offsets");
    if (!dtype) fail(where + "no \"dtype\"");
    if (!shape) fail(where + "no \"shape\"");
    if (!offsets) fail(where + "no \"data_offsets\"");
    Entry e;
    e.name = name;
    if (!dtype->is_string()) fail(where + "\"dtype\" is not a string");
    e.dtype = dtype->as_string();
    uint64_t elem = dtype_size(e.dtype);
    if (elem == 0) fail(where + "unsupported dtype " + json_quote(e.dtype) + " (heed reads F64, F32, F16 and BF16)");
    if (!shape->is_array()) fail(where + "\"shape\" is not an array");
    uint64_t bytes = elem;  // shape product x element size, checked for overflow
    for (size_t i = 0; i < shape->size(); ++i) {
      const Json& d = shape->as_array()[i];
      if (!d.is_int() || d.as_int() < 0)
        fail(where + "shape entry " + std::to_string(i) + " is not a non-negative integer: " + d.dump());
      uint64_t size = static_cast<uint64_t>(d.as_int());
      if (size != 0 && bytes > std::numeric_limits<uint64_t>::max() / size)
        fail(where + "shape " + shape->dump() + " is too large");
      bytes *= size;
      e.shape.push_back(d.as_int());
    }
    if (!offsets->is_array() || offsets->size() != 2 || !offsets->as_array()[0].is_int() ||
        !offsets->as_array()[1].is_int() || offsets->as_array()[0].as_int() < 0 || offsets->as_array()[1].as_int() < 0)
      fail(where + "\"data_offsets\" is not a pair [begin, end] of non-negative integers: " + offsets->dump());
    e.begin = static_cast<uint64_t>(offsets->as_array()[0].as_int());
    e.end = static_cast<uint64_t>(offsets->as_array()[1].as_int());
    std::string span = "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
    if (e.begin > e.end) fail(where + span + ": begin is after end");
    if (e.end - e.begin != bytes)
      fail(where + "shape " + shape_str(e.shape) + " of " + e.dtype + " needs " + std::to_string(bytes) + " bytes but " +
           span + " hold " + std::to_string(e.end - e.begin));
    return e;
  }

  // The spans must tile [0, data_size) exactly, in some order.
  void check_layout(std::vector<Entry>& entries, uint64_t data_size) {
    for (const Entry& e : entries)
      if (e.end > data_size)
        fail("tensor " + json_quote(e.name) + ": data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
             "] run past the end of the " + std::to_string(data_size) + "-byte data section");
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry& a, const Entry& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
    uint64_t covered = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
      const Entry& e = entries[i];
      if (e.begin < covered) {
        const Entry& p = entries[i - 1];
        fail("tensors " + json_quote(p.name) + " (data bytes [" + std::to_string(p.begin) + ", " + std::to_string(p.end) +
             ")) and " + json_quote(e.name) + " ([" + std::to_string(e.begin) + ", " + std::to_string(e.end) + ")) overlap");
      }
      if (e.begin > covered)
        fail("data bytes [" + std::to_string(covered) + ", " + std::to_string(e.begin) + ") belong to no tensor");
      covered = e.end;
    }
    if (covered != data_size)
      fail("data bytes [" + std::to_string(covered) + ", " + std::to_string(data_size) +
           ") after the last tensor belong to no tensor");
  }

  std::string path_;
  File file_;               // empty when reading from memory_
  std::string_view memory_;
  uint64_t file_size_ = 0;
};

}  // namespace

void write_safetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                       const std::map<std::string, std::string>& metadata, const SafetensorsWriteHook& before_rename) {
  auto fail = [&](const std::string& what) { throw Error("write_safetensors: " + path + ": " + what); };
  // The header first, so that a bad name or value fails before any file is touched.
  Json::Object meta;
  for (const auto& [key, value] : metadata) meta.emplace_back(key, Json(value));
  Json::Object members{{"__metadata__", Json::object(std::move(meta))}};
  std::set<std::string> names;
  uint64_t offset = 0;
  for (const NamedTensor& t : tensors) {
    if (t.name.empty() || t.name == "__metadata__") fail("invalid tensor name " + json_quote(t.name));
    if (!names.insert(t.name).second) fail("duplicate tensor name " + json_quote(t.name));
    Json shape{Json::Array{}};
    for (int64_t d : t.value.shape()) shape.push_back(Json(d));
    uint64_t bytes = static_cast<uint64_t>(t.value.numel()) * kWriteDtype.size;
    Json info = Json::object({{"dtype", Json(kWriteDtype.name)},
                              {"shape", std::move(shape)},
                              {"data_offsets", Json(Json::Array{Json(static_cast<int64_t>(offset)),
                                                                Json(static_cast<int64_t>(offset + bytes))})}});
    members.emplace_back(t.name, std::move(info));
    offset += bytes;
  }
  std::string header;
  try {
    header = Json::object(std::move(members)).dump();
  } catch (const Error& e) {
    fail(e.what());  // a name or metadata string that is not valid UTF-8
  }
  header.append((8 - header.size() % 8) % 8, ' ');  // data starts 8-byte aligned

  AtomicFile out(path, "write_safetensors");
  unsigned char prefix[8];
  store_le(prefix, header.size(), 8);
  out.write(prefix, 8);
  out.write(header.data(), header.size());
  std::vector<unsigned char> bytes;
  for (const NamedTensor& t : tensors) {
    constexpr int size = sizeof(Stored);
    bytes.resize(static_cast<size_t>(t.value.numel()) * size);
    for (int64_t i = 0; i < t.value.numel(); ++i)
      store_le(bytes.data() + size * i, std::bit_cast<StoredBits>(static_cast<Stored>(t.value[i])), size);
    out.write(bytes.data(), bytes.size());
  }
  out.commit(before_rename);
}

SafetensorsFile read_safetensors(const std::string& path, const SafetensorsHeaderCheck& after_header) {
  Reader reader(path);
  Header h = reader.read_header();
  if (after_header) after_header(h.metadata, reader.file_size());
  return {std::move(h.metadata), reader.read_data(h)};
}

SafetensorsFile parse_safetensors(std::string_view bytes, const std::string& name) {
  Reader reader(bytes, name);
  Header h = reader.read_header();
  return {std::move(h.metadata), reader.read_data(h)};
}

std::map<std::string, std::string> read_safetensors_metadata(const std::string& path) {
  return Reader(path).read_header().metadata;
}

}  // namespace heed
