#include "shuangkou/model/qnet.h"

// One decision's products are small: Eigen must not spread them over OpenMP
// threads (the actors already run one thread per core).
#define EIGEN_DONT_PARALLELIZE
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <Eigen/Core>
#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <utility>

namespace shuangkou {
namespace {

static_assert(std::endian::native == std::endian::little, "model files hold little-endian float32");

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ColMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
using Json = nlohmann::json;

// Containers nested in a model header: the header object, a tensor's entry,
// its shape list. Deeper nesting is refused before anything recurses over it.
constexpr int kMaxDepth = 3;

[[noreturn]] void refuse(const std::string& what, const std::string& why) {
  throw std::invalid_argument(what + ": " + why);
}

// Text from a file, quoted in a message: cut to a readable length.
std::string shown(std::string_view text) {
  constexpr size_t kMax = 80;
  if (text.size() <= kMax) return std::string(text);
  return std::string(text.substr(0, kMax)) + "... (" + std::to_string(text.size()) + " bytes)";
}

std::string shown_json(const Json& value) { return shown(value.dump()); }

// A size in the metadata: digits only, no sign, space or leading zero, 1..kQNetMaxWidth.
int width_value(const std::string& what, const std::string& key, std::string_view text) {
  int v = 0;
  const bool digits = !text.empty() && text.size() <= 6 && text[0] != '0' &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits) std::from_chars(text.data(), text.data() + text.size(), v);
  if (!digits || v > kQNetMaxWidth)
    refuse(what, "metadata '" + key + "' must be an integer 1.." + std::to_string(kQNetMaxWidth) +
                     " written in plain digits, got '" + shown(text) + "'");
  return v;
}

void check_shape(const QNetShape& s) {
  if (s.obs_size < 1 || s.move_size < 1 || s.obs_size > kQNetMaxWidth || s.move_size > kQNetMaxWidth)
    throw std::invalid_argument("a Q network's obs_size and move_size must be 1.." +
                                std::to_string(kQNetMaxWidth));
  if (s.hidden.empty() || s.hidden.size() > static_cast<size_t>(kQNetMaxHidden))
    throw std::invalid_argument("a Q network needs 1.." + std::to_string(kQNetMaxHidden) +
                                " hidden layers, got " + std::to_string(s.hidden.size()));
  for (int h : s.hidden)
    if (h < 1 || h > kQNetMaxWidth)
      throw std::invalid_argument("hidden layer widths must be 1.." + std::to_string(kQNetMaxWidth) +
                                  ", got " + std::to_string(h));
}

uint64_t element_count(const std::vector<int64_t>& dims) {
  uint64_t n = 1;
  for (int64_t d : dims) n *= static_cast<uint64_t>(d);  // at most 2^32 (two widths of 2^16)
  return n;
}

// What a model file's header says: the architecture, the metadata (less
// "format") and where each tensor's data lies; the data is data_size bytes.
struct Header {
  QNetShape shape;
  std::map<std::string, std::string> metadata;
  std::vector<std::pair<std::string, uint64_t>> offsets;  // tensor_shapes order: name, first data byte
  uint64_t data_size = 0;
};

// The header length in the first 8 bytes of a file of `total` bytes; refused
// where the header could not fit.
uint64_t header_length(const char* first8, uint64_t total, const std::string& what) {
  if (total < 8) refuse(what, "truncated: " + std::to_string(total) + " bytes, not a model file");
  uint64_t n = 0;
  std::memcpy(&n, first8, 8);
  if (n > kQNetMaxHeader || n > total - 8)
    refuse(what, "not a model file (its header length " + std::to_string(n) + " does not fit its " +
                     std::to_string(total) + " bytes or the limit of " + std::to_string(kQNetMaxHeader) +
                     "; truncated or foreign)");
  return n;
}

// JSON, refusing a key given twice in one object (the safetensors reader of
// another tool might keep the other value) and nesting deeper than kMaxDepth.
Json parse_json(std::string_view text, const std::string& what) {
  std::vector<std::set<std::string>> keys;  // of each object being read
  const Json::parser_callback_t check = [&](int depth, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        if (depth >= kMaxDepth) refuse(what, "not a model file (its header is nested too deeply)");
        if (event == Json::parse_event_t::object_start) keys.emplace_back();
        break;
      case Json::parse_event_t::object_end:
        keys.pop_back();
        break;
      case Json::parse_event_t::key:
        if (!keys.back().insert(parsed.get<std::string>()).second)
          refuse(what, "its header gives the key '" + shown(parsed.get<std::string>()) + "' twice");
        break;
      default:
        break;
    }
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), check);
  } catch (const Json::exception&) {
    refuse(what, "not a model file (its header is not JSON)");
  }
}

// The metadata object of a header: every value a string, "format" the Q
// network's (then dropped), the architecture's keys present.
std::map<std::string, std::string> read_metadata(const Json& header, const std::string& what) {
  const auto meta = header.find("__metadata__");
  if (meta == header.end() || !meta->is_object())
    refuse(what, "not a shuangkou model file (no __metadata__ in its header)");
  std::map<std::string, std::string> metadata;
  for (const auto& [k, v] : meta->items()) {
    if (!v.is_string()) refuse(what, "metadata '" + shown(k) + "' is not a string");
    metadata[k] = v.get<std::string>();
  }
  if (metadata["format"] != kQNetFormat)
    refuse(what, "not a shuangkou Q network (metadata format '" + shown(metadata["format"]) +
                     "', expected '" + std::string(kQNetFormat) + "')");
  metadata.erase("format");
  for (const char* key : {"obs_size", "move_size", "hidden"})
    if (!metadata.count(key)) refuse(what, std::string("metadata '") + key + "' missing");
  return metadata;
}

// The hidden widths of metadata 'hidden': comma-separated, no empty part, 1..kQNetMaxHidden of them.
std::vector<int> hidden_widths(std::string_view hidden, const std::string& what) {
  std::vector<int> widths;
  for (size_t begin = 0;;) {
    const size_t comma = std::min(hidden.find(',', begin), hidden.size());
    if (widths.size() == static_cast<size_t>(kQNetMaxHidden))
      refuse(what, "metadata 'hidden' must list 1.." + std::to_string(kQNetMaxHidden) + " widths");
    widths.push_back(width_value(what, "hidden", hidden.substr(begin, comma - begin)));
    if (comma == hidden.size()) break;
    begin = comma + 1;
  }
  return widths;
}

// The data span [begin, end) of tensor `name`, checked: an F32 entry of shape `dims`.
std::pair<uint64_t, uint64_t> tensor_span(const Json& header, const std::string& name,
                                          const std::vector<int64_t>& dims, const std::string& what) {
  const auto t = header.find(name);
  if (t == header.end()) refuse(what, "missing tensor '" + name + "'");
  if (!t->is_object() || !t->contains("dtype") || !t->contains("shape") || !t->contains("data_offsets"))
    refuse(what, "tensor '" + name + "' lacks dtype, shape or data_offsets");
  const Json& dtype = t->at("dtype");
  if (dtype != "F32") refuse(what, "tensor '" + name + "' is " + shown_json(dtype) + ", not F32");
  const Json& shape = t->at("shape");
  bool same = shape.is_array() && shape.size() == dims.size();
  for (size_t i = 0; same && i < dims.size(); ++i)
    same = shape[i].is_number_integer() && shape[i].get<int64_t>() == dims[i];
  if (!same)
    refuse(what, "tensor '" + name + "' has shape " + shown_json(shape) + ", expected " + Json(dims).dump() +
                     " for the architecture in its metadata");
  const Json& off = t->at("data_offsets");
  if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
    refuse(what, "tensor '" + name + "' has bad data_offsets " + shown_json(off));
  const uint64_t begin = off[0].get<uint64_t>(), end = off[1].get<uint64_t>();
  if (end < begin || end - begin != element_count(dims) * 4)
    refuse(what, "tensor '" + name + "' data_offsets " + shown_json(off) + " do not match its shape");
  return {begin, end};
}

// The end of the tensor data: the spans must tile [0, end) without overlap or gap.
uint64_t tiled_size(std::vector<std::pair<uint64_t, uint64_t>> spans, const std::string& what) {
  std::sort(spans.begin(), spans.end());
  uint64_t size = 0;
  for (const auto& [b, e] : spans) {
    if (b != size) refuse(what, "tensor data overlap or leave gaps");
    size = e;
  }
  return size;
}

Header parse_header(std::string_view text, const std::string& what) {
  const Json header = parse_json(text, what);
  if (!header.is_object()) refuse(what, "not a model file (its header is not a JSON object)");
  Header h;
  h.metadata = read_metadata(header, what);
  h.shape.obs_size = width_value(what, "obs_size", h.metadata["obs_size"]);
  h.shape.move_size = width_value(what, "move_size", h.metadata["move_size"]);
  h.shape.hidden = hidden_widths(h.metadata["hidden"], what);
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (const auto& [name, dims] : QNet::tensor_shapes(h.shape)) {
    spans.push_back(tensor_span(header, name, dims, what));
    h.offsets.push_back({name, spans.back().first});
  }
  for (const auto& [name, _] : header.items())
    if (name != "__metadata__" &&
        std::none_of(h.offsets.begin(), h.offsets.end(), [&](const auto& o) { return o.first == name; }))
      refuse(what, "unexpected tensor '" + shown(name) + "'");
  h.data_size = tiled_size(std::move(spans), what);
  return h;
}

// The data after the header must be exactly what the header describes.
void check_data_size(uint64_t have, const Header& h, const std::string& what) {
  if (have < h.data_size)
    refuse(what, "truncated: " + std::to_string(have) + " data bytes, its header describes " +
                     std::to_string(h.data_size));
  if (have > h.data_size)
    refuse(what, "trailing bytes after the tensors (" + std::to_string(have - h.data_size) + ")");
}

// The network of a checked header; read(offset, dest, n) copies n data bytes.
QNet assemble(Header&& h, const std::function<void(uint64_t, char*, size_t)>& read, const std::string& what) {
  std::map<std::string, std::vector<float>> tensors;
  for (const auto& [name, dims] : QNet::tensor_shapes(h.shape)) {
    std::vector<float> values(element_count(dims));
    const auto offset = std::find_if(h.offsets.begin(), h.offsets.end(), [&](const auto& o) {
                          return o.first == name;
                        })->second;
    read(offset, reinterpret_cast<char*>(values.data()), values.size() * 4);
    tensors[name] = std::move(values);
  }
  try {
    return QNet(h.shape, std::move(tensors), std::move(h.metadata));
  } catch (const std::invalid_argument& e) {
    refuse(what, e.what());
  }
}

// Closes a file descriptor on the way out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Exactly n bytes at `offset` of the file, or std::invalid_argument.
void read_at(int fd, uint64_t offset, char* dest, size_t n, const std::string& what) {
  while (n > 0) {
    const ssize_t got = ::pread(fd, dest, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) refuse(what, std::string("cannot read: ") + std::strerror(errno));
    if (got == 0) refuse(what, "truncated (the file shrank while being read)");
    dest += got;
    offset += static_cast<uint64_t>(got);
    n -= static_cast<size_t>(got);
  }
}

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Per-thread activations: grown to the largest decision seen, then reused.
struct Workspace {
  std::vector<float> state, a, b;
  float* ensure(std::vector<float>& v, size_t n) {
    if (v.size() < n) v.resize(n);
    return v.data();
  }
};

}  // namespace

std::vector<std::pair<std::string, std::vector<int64_t>>> QNet::tensor_shapes(const QNetShape& s) {
  check_shape(s);
  std::vector<std::pair<std::string, std::vector<int64_t>>> out;
  out.push_back({"l0.obs", {s.hidden[0], s.obs_size}});
  out.push_back({"l0.move", {s.hidden[0], s.move_size}});
  out.push_back({"l0.bias", {s.hidden[0]}});
  for (size_t i = 1; i < s.hidden.size(); ++i) {
    out.push_back({"l" + std::to_string(i) + ".weight", {s.hidden[i], s.hidden[i - 1]}});
    out.push_back({"l" + std::to_string(i) + ".bias", {s.hidden[i]}});
  }
  out.push_back({"out.weight", {1, s.hidden.back()}});
  out.push_back({"out.bias", {1}});
  return out;
}

QNet::QNet(const QNetShape& shape, std::map<std::string, std::vector<float>> tensors,
           std::map<std::string, std::string> metadata)
    : shape_(shape), metadata_(std::move(metadata)) {
  const auto expected = tensor_shapes(shape);  // checks the shape
  if (tensors.size() != expected.size()) {
    for (const auto& [name, _] : tensors)
      if (std::none_of(expected.begin(), expected.end(), [&](const auto& e) { return e.first == name; }))
        throw std::invalid_argument("unexpected tensor '" + shown(name) + "' for this architecture");
  }
  for (const auto& [name, dims] : expected) {
    const auto it = tensors.find(name);
    if (it == tensors.end()) throw std::invalid_argument("missing tensor '" + name + "'");
    const uint64_t n = element_count(dims);
    if (it->second.size() != n)
      throw std::invalid_argument("tensor '" + name + "' holds " + std::to_string(it->second.size()) +
                                  " floats, its shape needs " + std::to_string(n));
    for (float x : it->second)
      if (!std::isfinite(x))
        throw std::invalid_argument("tensor '" + name + "' holds a NaN or infinite value");
    tensors_[name] = std::move(it->second);
  }
  metadata_["format"] = std::string(kQNetFormat);
  metadata_["obs_size"] = std::to_string(shape.obs_size);
  metadata_["move_size"] = std::to_string(shape.move_size);
  std::string hidden;
  for (int h : shape.hidden) hidden += (hidden.empty() ? "" : ",") + std::to_string(h);
  metadata_["hidden"] = hidden;
  // What the reader refuses, refused here: the file this network writes reads back.
  size_t header_size = 0;
  try {
    header_size = header_json().size();
  } catch (const Json::exception&) {
    throw std::invalid_argument("the metadata holds text that is not valid UTF-8");
  }
  if (header_size > kQNetMaxHeader)
    throw std::invalid_argument("the metadata is too large: the file's header would be " +
                                std::to_string(header_size) + " bytes, the limit is " +
                                std::to_string(kQNetMaxHeader));
  bind();
}

QNet::QNet(const QNet& other) : shape_(other.shape_), tensors_(other.tensors_), metadata_(other.metadata_) {
  bind();
}

QNet& QNet::operator=(const QNet& other) {
  if (this != &other) {
    shape_ = other.shape_;
    tensors_ = other.tensors_;
    metadata_ = other.metadata_;
    bind();
  }
  return *this;
}

void QNet::bind() {
  weights_.clear();
  biases_.clear();
  first_obs_ = tensors_.at("l0.obs").data();
  first_move_ = tensors_.at("l0.move").data();
  biases_.push_back(tensors_.at("l0.bias").data());
  weights_.push_back(nullptr);  // layer 0's weights are first_obs_ / first_move_
  for (size_t i = 1; i < shape_.hidden.size(); ++i) {
    weights_.push_back(tensors_.at("l" + std::to_string(i) + ".weight").data());
    biases_.push_back(tensors_.at("l" + std::to_string(i) + ".bias").data());
  }
  weights_.push_back(tensors_.at("out.weight").data());
  biases_.push_back(tensors_.at("out.bias").data());
}

QNet QNet::from_bytes(std::string_view bytes, const std::string& what) {
  const uint64_t header_size = header_length(bytes.data(), bytes.size(), what);
  Header h = parse_header(bytes.substr(8, header_size), what);
  const std::string_view data = bytes.substr(8 + header_size);
  check_data_size(data.size(), h, what);
  return assemble(
      std::move(h),
      [&](uint64_t offset, char* dest, size_t n) { std::memcpy(dest, data.data() + offset, n); }, what);
}

QNet QNet::load(const std::string& path) {
  if (path.find('\0') != std::string::npos)
    throw std::invalid_argument("model file path '" + shown(path.substr(0, path.find('\0'))) +
                                "\\0...' holds a NUL character");
  const std::string what = "model file '" + path + "'";
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is then refused).
  const Fd file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (file.fd < 0) throw std::invalid_argument("cannot read " + what + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) refuse(what, std::string("cannot read: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) refuse(what, std::string("is ") + file_kind(st.st_mode) + ", not a regular file");
  const auto size = static_cast<uint64_t>(st.st_size);
  char first8[8] = {};
  if (size >= 8) read_at(file.fd, 0, first8, 8, what);
  const uint64_t header_size = header_length(first8, size, what);
  std::string text(header_size, '\0');
  read_at(file.fd, 8, text.data(), text.size(), what);
  Header h = parse_header(text, what);
  check_data_size(size - 8 - header_size, h, what);  // before any data is read
  return assemble(
      std::move(h),
      [&](uint64_t offset, char* dest, size_t n) {
        read_at(file.fd, 8 + header_size + offset, dest, n, what);
      },
      what);
}

std::string QNet::header_json() const {
  Json header;
  header["__metadata__"] = metadata_;
  uint64_t offset = 0;
  for (const auto& [name, dims] : tensor_shapes(shape_)) {
    const uint64_t bytes = element_count(dims) * 4;
    header[name] = {{"dtype", "F32"}, {"shape", dims}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  return header.dump();
}

std::string QNet::to_bytes() const {
  std::string text = header_json();
  text.append((8 - text.size() % 8) % 8, ' ');  // safetensors pads the header to 8 bytes
  const uint64_t n = text.size();
  std::string out(8, '\0');
  std::memcpy(out.data(), &n, 8);
  out += text;
  for (const auto& [name, dims] : tensor_shapes(shape_)) {
    const auto& t = tensors_.at(name);
    out.append(reinterpret_cast<const char*>(t.data()), 4 * t.size());
  }
  return out;
}

void QNet::q_values(const float* obs, const float* moves, int count, float* q) const {
  if (count <= 0) return;
  thread_local Workspace ws;
  const int h0 = shape_.hidden[0];
  // Layer 0: the observation part once, the move part for every move at once.
  const Eigen::Map<const RowMatrix> w_obs(first_obs_, h0, shape_.obs_size);
  const Eigen::Map<const RowMatrix> w_move(first_move_, h0, shape_.move_size);
  const Eigen::Map<const Eigen::VectorXf> x(obs, shape_.obs_size);
  const Eigen::Map<const RowMatrix> m(moves, count, shape_.move_size);
  Eigen::Map<Eigen::VectorXf> state(ws.ensure(ws.state, h0), h0);
  state.noalias() = w_obs * x;
  state += Eigen::Map<const Eigen::VectorXf>(biases_[0], h0);
  std::vector<float>* current = &ws.a;
  std::vector<float>* next = &ws.b;
  Eigen::Map<ColMatrix> first(ws.ensure(*current, static_cast<size_t>(h0) * count), h0, count);
  first.noalias() = w_move * m.transpose();
  first.colwise() += state;
  first = first.cwiseMax(0.0f);
  int width = h0;
  for (size_t i = 1; i < shape_.hidden.size(); ++i) {
    const int out_width = shape_.hidden[i];
    Eigen::Map<ColMatrix> out(ws.ensure(*next, static_cast<size_t>(out_width) * count), out_width, count);
    const Eigen::Map<const ColMatrix> in(current->data(), width, count);
    out.noalias() = Eigen::Map<const RowMatrix>(weights_[i], out_width, width) * in;
    out.colwise() += Eigen::Map<const Eigen::VectorXf>(biases_[i], out_width);
    out = out.cwiseMax(0.0f);
    std::swap(current, next);
    width = out_width;
  }
  Eigen::Map<Eigen::RowVectorXf> result(q, count);
  result.noalias() = Eigen::Map<const Eigen::RowVectorXf>(weights_.back(), width) *
                     Eigen::Map<const ColMatrix>(current->data(), width, count);
  result.array() += biases_.back()[0];
}

int64_t QNet::multiply_adds(int moves) const {
  int64_t total = static_cast<int64_t>(shape_.hidden[0]) * shape_.obs_size;
  int64_t per_move = static_cast<int64_t>(shape_.hidden[0]) * shape_.move_size;
  for (size_t i = 1; i < shape_.hidden.size(); ++i)
    per_move += static_cast<int64_t>(shape_.hidden[i]) * shape_.hidden[i - 1];
  per_move += shape_.hidden.back();
  return total + per_move * moves;
}

}  // namespace shuangkou
