// The Q network of Deep Monte-Carlo agents, evaluated with Eigen: Q(s, a) for
// every legal move of one decision (docs/model_format.md).
//
// Architecture: an MLP over [observation ; move features]. The first layer is
// split into its observation part and its move part, so the observation part
// is computed once per decision and the move part for all legal moves in one
// matrix product; ReLU after every hidden layer; one output.
//
// Model files are safetensors files (little-endian float32 tensors after a
// JSON header) whose metadata says `"format": "shuangkou-qnet/1"` and gives
// the architecture. Loading reads data only, never code, and refuses a
// truncated, foreign or wrong-shaped file with std::invalid_argument naming
// the problem (docs/model_format.md lists what it refuses).
//
// Threads: a QNet is immutable after construction; q_values may run on one
// network from any number of threads at once.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace shuangkou {

inline constexpr std::string_view kQNetFormat = "shuangkou-qnet/1";

// Limits of the format, one set for the constructor, the writer and the
// reader: a network that can be built can be written and read back.
inline constexpr int kQNetMaxWidth = 1 << 16;           // obs_size, move_size and each hidden width: 1..this
inline constexpr int kQNetMaxHidden = 64;               // hidden layers: 1..this
inline constexpr uint64_t kQNetMaxHeader = 1ULL << 24;  // bytes of the JSON header (metadata included)

struct QNetShape {
  int obs_size = 0;
  int move_size = 0;
  std::vector<int> hidden;  // hidden layer widths, first to last (at least one)
  bool operator==(const QNetShape&) const = default;
};

class QNet {
 public:
  // The tensor names and shapes a network of this shape has, in file order:
  // "l0.obs" [h0, obs_size], "l0.move" [h0, move_size], "l0.bias" [h0], then
  // for i >= 1 "l{i}.weight" [h_i, h_{i-1}] and "l{i}.bias" [h_i], then
  // "out.weight" [1, h_last] and "out.bias" [1]. Weights are [out, in], as
  // PyTorch's nn.Linear keeps them. std::invalid_argument for a shape outside
  // the limits above.
  static std::vector<std::pair<std::string, std::vector<int64_t>>> tensor_shapes(const QNetShape& shape);

  // From named arrays (row-major float32), checked against the shape; the
  // metadata must be valid UTF-8 and the file's header within kQNetMaxHeader.
  QNet(const QNetShape& shape, std::map<std::string, std::vector<float>> tensors,
       std::map<std::string, std::string> metadata = {});
  // Parses the bytes of a model file; `what` names the source in errors.
  // Allocates no more than the bytes hold.
  static QNet from_bytes(std::string_view bytes, const std::string& what = "model");
  // Reads a model file: it must be a regular file (opened without blocking,
  // so a FIFO is refused, not waited on), and no read goes past the sizes its
  // header gives and the file's own size. The path must hold no NUL.
  static QNet load(const std::string& path);
  QNet(const QNet& other);
  QNet& operator=(const QNet& other);
  QNet(QNet&&) noexcept = default;  // (the tensors' storage moves with them)
  QNet& operator=(QNet&&) noexcept = default;
  // The model file's bytes (safetensors, with this network's metadata).
  std::string to_bytes() const;

  const QNetShape& shape() const { return shape_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  const std::map<std::string, std::vector<float>>& tensors() const { return tensors_; }

  // q[i] = Q(obs, row i of moves) for `count` rows of move_size floats each.
  // Allocates nothing once a thread has seen its largest `count`.
  void q_values(const float* obs, const float* moves, int count, float* q) const;
  // Multiply-adds of one decision with `moves` legal moves.
  int64_t multiply_adds(int moves) const;

 private:
  QNetShape shape_;
  std::map<std::string, std::vector<float>> tensors_;
  std::map<std::string, std::string> metadata_;
  void bind();                      // sets the pointers below
  std::string header_json() const;  // the model file's JSON header (unpadded)
  // Pointers into tensors_, by layer, for the forward pass.
  std::vector<const float*> weights_, biases_;
  const float* first_obs_ = nullptr;
  const float* first_move_ = nullptr;
};

}  // namespace shuangkou
