// Fuzz target for the model file reader, shuangkou::QNet::from_bytes.
//
// Property: from_bytes returns a network or throws std::invalid_argument; any
// other exception escapes (std::terminate aborts the run: std::bad_alloc
// included, which the driver's --memory-limit-mb turns unbounded allocation
// into), and crashes and sanitizer reports are failures too. A file that
// loads must write itself back: from_bytes(net.to_bytes()) is the same
// network, byte for byte.
//
// Raw bytes rarely get past the header length and the JSON, so most inputs
// mutate one of a few real model files built at start-up (small networks of
// one to three hidden layers), mostly through their parsed header:
//   byte 0      the mutation (below)
//   byte 1      which model
//   bytes 2..5  two 16-bit numbers: positions, lengths, table indices
//   bytes 6..   the payload the mutation inserts or draws from
// Builds as a libFuzzer target with clang (-fsanitize=fuzzer) or with the
// random-input driver record_driver.cc beside it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "shuangkou/model/qnet.h"

namespace {

using Json = nlohmann::json;
using shuangkou::QNet;

void check(bool ok, const char* what, const std::string& input) {
  if (ok) return;
  std::fprintf(stderr, "invariant broken: %s\ninput (%zu bytes)\n", what, input.size());
  std::abort();
}

// A real model file and its parts: the JSON header (unpadded) and the data.
struct Model {
  std::string bytes;
  Json header;
  std::string data;
  std::vector<std::string> keys;  // the header's keys: "__metadata__", then the tensors
};

Model make_model(const std::vector<int>& hidden, uint64_t seed) {
  const shuangkou::QNetShape shape{5, 3, hidden};
  std::map<std::string, std::vector<float>> tensors;
  for (const auto& [name, dims] : QNet::tensor_shapes(shape)) {
    size_t n = 1;
    for (int64_t d : dims) n *= static_cast<size_t>(d);
    std::vector<float> v(n);
    for (auto& x : v)
      x = static_cast<float>(static_cast<int>((seed = seed * 6364136223846793005ULL + 1) >> 40) % 200 - 100) /
          64.0f;
    tensors[name] = std::move(v);
  }
  const QNet net(shape, tensors, {{"variant", "baibian"}, {"note", "fuzz \xe5\x8f\x8c"}});
  Model m;
  m.bytes = net.to_bytes();
  uint64_t n = 0;
  std::memcpy(&n, m.bytes.data(), 8);
  m.header = Json::parse(m.bytes.substr(8, n));
  m.data = m.bytes.substr(8 + n);
  for (const auto& [key, _] : m.header.items()) m.keys.push_back(key);
  return m;
}

const std::vector<Model>& models() {
  static const std::vector<Model> all = [] {
    std::vector<Model> out = {make_model({4}, 1), make_model({3, 2}, 2), make_model({2, 3, 2}, 3)};
    for (const Model& m : out)
      check(QNet::from_bytes(m.bytes).to_bytes() == m.bytes, "a start-up model does not read back", m.bytes);
    return out;
  }();
  return all;
}

// Values worth splicing in: the sizes and limits the reader checks, wrong
// types, integers around the type boundaries, names it knows.
// clang-format off
const char* const kTokens[] = {
    "0", "1", "2", "3", "4", "5", "-1", "8", "16", "20", "24", "36", "1.0", "1e400", "-0", "65535", "65536",
    "65537", "16777216", "16777217", "2147483647", "2147483648", "4294967295", "4294967296",
    "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616", "true",
    "null", "\"\"", "\"F32\"", "\"F16\"", "\"F64\"", "\"I32\"", "\"shuangkou-qnet/1\"", "\"shuangkou-qnet/2\"",
    "\"4\"", "\"04\"", "\"+4\"", "\" 4\"", "\"4 \"", "\"4,\"", "\",4\"", "\"4,,3\"", "\"3,2\"", "\"2,3,2\"",
    "\"65536\"", "\"65537\"", "\"5\"", "\"3\"", "\"\\u0000\"", "\"\\ud800\"", "\"\xff\"", "[]", "{}", "[0]",
    "[4]", "[4,5]", "[4,3]", "[1,4]", "[3,2]", "[1]", "[0,0]", "[0,16]", "[16,0]", "[0,80]", "[80,96]",
    "[0,18446744073709551615]", "[18446744073709551615,0]", "[-1,3]", "[1.5,2]", "[[4]]", "{\"a\":1}",
    "\"l0.obs\"", "\"l0.move\"", "\"l0.bias\"", "\"l1.weight\"", "\"out.bias\"", "\"__metadata__\"",
};
// clang-format on
constexpr size_t kNumTokens = sizeof(kTokens) / sizeof(kTokens[0]);
const char* const kFields[] = {"dtype", "shape", "data_offsets"};
const char* const kMetaKeys[] = {"format", "obs_size", "move_size", "hidden", "variant"};

// A token as JSON (as a string where it is no JSON), or the payload as a string.
Json token_or_text(unsigned pick, std::string_view payload) {
  if (pick & 0x8000) return Json(std::string(payload.substr(0, 64)));
  const char* token = kTokens[pick % kNumTokens];
  return Json::parse(token, nullptr, false).is_discarded() ? Json(token) : Json::parse(token);
}

// The header's text; strings that are not UTF-8 (from the payload) as U+FFFD.
std::string dump(const Json& header) { return header.dump(-1, ' ', false, Json::error_handler_t::replace); }

// A model file from a header text and data: the length, the text, the data.
std::string assemble(const std::string& text, std::string_view data) {
  const uint64_t n = text.size();
  std::string out(8, '\0');
  std::memcpy(out.data(), &n, 8);
  return out + text + std::string(data);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<Model>& all = models();
  if (size == 0) return 0;
  const uint8_t op = data[0];
  const auto byte = [&](size_t i) -> unsigned { return i < size ? data[i] : 0; };
  const Model& m = all[byte(1) % all.size()];
  const unsigned a = byte(2) | byte(3) << 8;
  const unsigned b = byte(4) | byte(5) << 8;
  const std::string_view payload =
      size > 6 ? std::string_view(reinterpret_cast<const char*>(data) + 6, size - 6) : std::string_view();
  const std::string& key = m.keys[a % m.keys.size()];
  Json header = m.header;
  std::string text;  // the header text, when the mutation edits text
  std::string input;
  switch (op % 14) {
    case 0:  // raw bytes
      input.assign(reinterpret_cast<const char*>(data) + 1, size - 1);
      break;
    case 1: {  // bytes of the file overwritten with the payload
      input = m.bytes;
      const size_t at = a % (input.size() + 1);
      input.replace(at, std::min(input.size() - at, size_t{b % 16}), payload.substr(0, 16));
      break;
    }
    case 2:  // the file cut short
      input = m.bytes.substr(0, a % (m.bytes.size() + 1));
      break;
    case 3: {  // the header length replaced
      input = m.bytes;
      const uint64_t lengths[] = {0,
                                  7,
                                  8,
                                  input.size() - 8,
                                  input.size() - 7,
                                  input.size(),
                                  shuangkou::kQNetMaxHeader,
                                  shuangkou::kQNetMaxHeader + 1,
                                  uint64_t{1} << 32,
                                  ~uint64_t{0},
                                  ~uint64_t{0} - 7};
      const uint64_t n =
          (b & 1) ? lengths[a % (sizeof lengths / sizeof lengths[0])] : uint64_t{a} | uint64_t{b} << 16;
      std::memcpy(input.data(), &n, 8);
      break;
    }
    case 4:  // a metadata value replaced
      header["__metadata__"][kMetaKeys[a % 5]] = token_or_text(b, payload);
      break;
    case 5:  // a field of a tensor entry replaced
      header[key][kFields[b % 3]] = token_or_text(b >> 2, payload);
      break;
    case 6:  // an entry removed, or one added
      if (b & 1)
        header.erase(key);
      else
        header[std::string(payload.substr(0, 16))] = m.header[key];
      break;
    case 7: {  // a tensor's data moved
      auto& off = header[key]["data_offsets"];
      if (off.is_array() && off.size() == 2) {
        const int64_t shift = static_cast<int64_t>(b % 64) - 32;
        off[a & 1] = static_cast<uint64_t>(std::max<int64_t>(0, off[a & 1].get<int64_t>() + shift));
      }
      break;
    }
    case 8:  // a metadata key duplicated (the text keeps both)
      text = dump(m.header);
      text.insert(text.find("{\"format\"") + 1, "\"" + std::string(kMetaKeys[a % 5]) + "\":\"4\",");
      break;
    case 9: {  // any object's first key duplicated, or a token inserted after a brace
      text = dump(m.header);
      size_t at = 0;
      for (unsigned n = a % 12; n > 0 && at != std::string::npos; --n) at = text.find('{', at + 1);
      if (at == std::string::npos) at = 0;
      const size_t colon = text.find(':', at);
      const std::string dup = (b & 1) ? text.substr(at + 1, colon - at) + kTokens[b % kNumTokens] + ","
                                      : std::string(kTokens[b % kNumTokens]) + ":";
      text.insert(at + 1, dup);
      break;
    }
    case 10: {  // the header text edited: bytes inserted or removed
      text = dump(m.header);
      const size_t at = a % (text.size() + 1);
      if (b & 1)
        text.insert(at, payload.substr(0, 32));
      else
        text.erase(at, b % 24);
      break;
    }
    case 11: {  // a value nested deeply
      static const size_t kDepths[] = {1, 2, 3, 4, 16, 1000, 100000};
      const size_t depth = kDepths[b % 7];
      std::string nested(depth, '[');
      nested += kTokens[a % kNumTokens];
      nested.append(depth, ']');
      text = dump(m.header);
      const std::string target = "\"" + std::string(kFields[a % 3]) + "\":";
      const size_t at = text.find(target, (b >> 3) % text.size());
      text.insert(at == std::string::npos ? 1 : at + target.size(),
                  nested + (at == std::string::npos ? ":1," : ",\"x\":"));
      break;
    }
    case 12: {  // the data: bytes appended or removed, a NaN or an infinity written in
      std::string d = m.data;
      if (b % 3 == 0)
        d.append(payload.substr(0, 8));
      else if (b % 3 == 1)
        d.erase(a % (d.size() + 1), 1 + b % 8);
      else if (d.size() >= 4) {
        const uint32_t bits = (b & 8) ? 0x7FC00000u : 0x7F800000u;  // NaN, +inf
        std::memcpy(d.data() + (a % (d.size() / 4)) * 4, &bits, 4);
      }
      input = assemble(dump(m.header), d);
      break;
    }
    default:  // a string metadata value of many units
      header["__metadata__"]["note"] = std::string(size_t{1} << (b % 21), 'x');
      break;
  }
  if (input.empty() && !(op % 14 == 0 || op % 14 == 2)) {
    if (text.empty()) text = dump(header);
    if ((a >> 15) & 1) text.append((8 - text.size() % 8) % 8, ' ');  // padded as the writer pads, or not
    input = assemble(text, m.data);
  }

  std::string written;
  try {
    written = QNet::from_bytes(input, "fuzz input").to_bytes();
  } catch (const std::invalid_argument&) {
    return 0;  // refused cleanly; any other exception escapes
  }
  // It loaded: what it writes must load to the same network.
  std::string again;
  try {
    again = QNet::from_bytes(written, "written back").to_bytes();
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "refused: %s\n", e.what());
    check(false, "the file a loaded network writes does not load", written);
  }
  check(again == written, "a loaded network writes a different file the second time", written);
  return 0;
}
