#include "shuangkou/qnet.h"

// One decision's products are small: Eigen must not spread them over OpenMP
// threads (the actors already run one thread per core).
#define EIGEN_DONT_PARALLELIZE
#include <Eigen/Core>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace shuangkou {
namespace {

static_assert(std::endian::native == std::endian::little, "model files hold little-endian float32");

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ColMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;

constexpr int kMaxWidth = 1 << 16;        // hidden layer widths and input sizes
constexpr uint64_t kMaxHeader = 1 << 24;  // bytes of JSON header

[[noreturn]] void refuse(const std::string& what, const std::string& why) {
  throw std::invalid_argument(what + ": " + why);
}

int positive_int(const std::string& what, const std::string& key, const std::string& text) {
  int v = 0;
  size_t used = 0;
  try {
    v = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || v < 1 || v > kMaxWidth)
    refuse(what, "metadata '" + key + "' must be an integer 1.." + std::to_string(kMaxWidth) + ", got '" +
                     text + "'");
  return v;
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
  if (s.hidden.empty()) throw std::invalid_argument("a Q network needs at least one hidden layer");
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

QNet::QNet(const QNetShape& shape, const std::map<std::string, std::vector<float>>& tensors,
           std::map<std::string, std::string> metadata)
    : shape_(shape), metadata_(std::move(metadata)) {
  if (shape.obs_size < 1 || shape.move_size < 1 || shape.obs_size > kMaxWidth || shape.move_size > kMaxWidth)
    throw std::invalid_argument("a Q network's obs_size and move_size must be 1.." +
                                std::to_string(kMaxWidth));
  for (int h : shape.hidden)
    if (h < 1 || h > kMaxWidth)
      throw std::invalid_argument("hidden layer widths must be 1.." + std::to_string(kMaxWidth));
  const auto expected = tensor_shapes(shape);
  if (tensors.size() != expected.size()) {
    for (const auto& [name, _] : tensors)
      if (std::none_of(expected.begin(), expected.end(), [&](const auto& e) { return e.first == name; }))
        throw std::invalid_argument("unexpected tensor '" + name + "' for this architecture");
  }
  for (const auto& [name, dims] : expected) {
    const auto it = tensors.find(name);
    if (it == tensors.end()) throw std::invalid_argument("missing tensor '" + name + "'");
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    if (static_cast<int64_t>(it->second.size()) != n)
      throw std::invalid_argument("tensor '" + name + "' holds " + std::to_string(it->second.size()) +
                                  " floats, its shape needs " + std::to_string(n));
    for (float x : it->second)
      if (!std::isfinite(x))
        throw std::invalid_argument("tensor '" + name + "' holds a NaN or infinite value");
    tensors_[name] = it->second;
  }
  metadata_["format"] = std::string(kQNetFormat);
  metadata_["obs_size"] = std::to_string(shape.obs_size);
  metadata_["move_size"] = std::to_string(shape.move_size);
  std::string hidden;
  for (int h : shape.hidden) hidden += (hidden.empty() ? "" : ",") + std::to_string(h);
  metadata_["hidden"] = hidden;
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
  if (bytes.size() < 8)
    refuse(what, "truncated: " + std::to_string(bytes.size()) + " bytes, not a model file");
  uint64_t header_size = 0;
  std::memcpy(&header_size, bytes.data(), 8);
  if (header_size > kMaxHeader || header_size > bytes.size() - 8)
    refuse(what, "not a model file (its header length " + std::to_string(header_size) + " does not fit its " +
                     std::to_string(bytes.size()) + " bytes; truncated or foreign)");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.substr(8, header_size));
  } catch (const nlohmann::json::exception&) {
    refuse(what, "not a model file (its header is not JSON)");
  }
  if (!header.is_object() || !header.contains("__metadata__") || !header["__metadata__"].is_object())
    refuse(what, "not a shuangkou model file (no __metadata__ in its header)");
  std::map<std::string, std::string> metadata;
  for (const auto& [k, v] : header["__metadata__"].items()) {
    if (!v.is_string()) refuse(what, "metadata '" + k + "' is not a string");
    metadata[k] = v.get<std::string>();
  }
  if (metadata["format"] != kQNetFormat)
    refuse(what, "not a shuangkou Q network (metadata format '" + metadata["format"] + "', expected '" +
                     std::string(kQNetFormat) + "')");
  QNetShape shape;
  for (const char* key : {"obs_size", "move_size", "hidden"})
    if (!metadata.count(key)) refuse(what, std::string("metadata '") + key + "' missing");
  shape.obs_size = positive_int(what, "obs_size", metadata["obs_size"]);
  shape.move_size = positive_int(what, "move_size", metadata["move_size"]);
  std::stringstream hidden(metadata["hidden"]);
  for (std::string part; std::getline(hidden, part, ',');)
    shape.hidden.push_back(positive_int(what, "hidden", part));
  if (shape.hidden.empty() || shape.hidden.size() > 64)
    refuse(what, "metadata 'hidden' must list 1..64 widths");

  const std::string_view data = bytes.substr(8 + header_size);
  std::map<std::string, std::vector<float>> tensors;
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (const auto& [name, dims] : tensor_shapes(shape)) {
    if (!header.contains(name)) refuse(what, "missing tensor '" + name + "'");
    const auto& t = header[name];
    if (!t.is_object() || !t.contains("dtype") || !t.contains("shape") || !t.contains("data_offsets"))
      refuse(what, "tensor '" + name + "' lacks dtype, shape or data_offsets");
    if (t["dtype"] != "F32") refuse(what, "tensor '" + name + "' is " + t["dtype"].dump() + ", not F32");
    if (!t["shape"].is_array() || t["shape"].size() != dims.size())
      refuse(what, "tensor '" + name + "' has shape " + t["shape"].dump() + ", expected " +
                       nlohmann::json(dims).dump());
    for (size_t i = 0; i < dims.size(); ++i)
      if (!t["shape"][i].is_number_integer() || t["shape"][i].get<int64_t>() != dims[i])
        refuse(what, "tensor '" + name + "' has shape " + t["shape"].dump() + ", expected " +
                         nlohmann::json(dims).dump() + " for the architecture in its metadata");
    const auto& off = t["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
      refuse(what, "tensor '" + name + "' has bad data_offsets");
    const uint64_t begin = off[0].get<uint64_t>(), end = off[1].get<uint64_t>();
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    if (end < begin || end - begin != static_cast<uint64_t>(n) * 4)
      refuse(what, "tensor '" + name + "' data_offsets do not match its shape");
    if (end > data.size())
      refuse(what, "truncated: tensor '" + name + "' ends at byte " + std::to_string(end) + " of " +
                       std::to_string(data.size()) + " data bytes");
    std::vector<float> values(static_cast<size_t>(n));
    std::memcpy(values.data(), data.data() + begin, end - begin);
    tensors[name] = std::move(values);
    spans.push_back({begin, end});
  }
  for (const auto& [name, _] : header.items())
    if (name != "__metadata__" && !tensors.count(name)) refuse(what, "unexpected tensor '" + name + "'");
  std::sort(spans.begin(), spans.end());
  uint64_t cursor = 0;
  for (const auto& [b, e] : spans) {
    if (b != cursor) refuse(what, "tensor data overlap or leave gaps");
    cursor = e;
  }
  if (cursor != data.size()) refuse(what, "trailing bytes after the tensors");
  metadata.erase("format");
  try {
    return QNet(shape, tensors, metadata);
  } catch (const std::invalid_argument& e) {
    refuse(what, e.what());
  }
}

QNet QNet::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot read model file '" + path + "'");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return from_bytes(buffer.str(), "model file '" + path + "'");
}

std::string QNet::to_bytes() const {
  nlohmann::json header;
  header["__metadata__"] = metadata_;
  std::string data;
  for (const auto& [name, dims] : tensor_shapes(shape_)) {
    const auto& t = tensors_.at(name);
    header[name] = {
        {"dtype", "F32"}, {"shape", dims}, {"data_offsets", {data.size(), data.size() + 4 * t.size()}}};
    data.append(reinterpret_cast<const char*>(t.data()), 4 * t.size());
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // safetensors pads the header to 8 bytes
  const uint64_t n = text.size();
  std::string out(8, '\0');
  std::memcpy(out.data(), &n, 8);
  return out + text + data;
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
