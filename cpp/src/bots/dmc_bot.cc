// The dmc bot: the legal move of highest Q under a trained network (qnet.h),
// the moves scored in the order the bots get them (the canonical plays, then
// the pass where legal), ties to the first. Exact ties need equal move
// features, which only moves of one action id have.
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "bots_internal.h"
#include "shuangkou/rl/encode.h"
#include "shuangkou/rl/qnet.h"

namespace shuangkou {
namespace detail {
namespace {

// The network's Q value of each legal move of `s` (moves' order, then the pass
// where legal) into `q`, sized for them.
void dmc_values(const QNet& net, const Variant& v, const GameState& s, std::span<const Action> recent,
                const MoveList& moves, std::span<float> q) {
  thread_local std::vector<float> obs, features;  // grown once, then reused
  const int n = moves.size() + (s.can_pass() ? 1 : 0);
  obs.resize(static_cast<size_t>(observation_size()));
  if (features.size() < static_cast<size_t>(n) * kMoveFeatureSize)
    features.resize(static_cast<size_t>(n) * kMoveFeatureSize);
  encode_observation(v, s, recent, s.current_player(), obs.data());
  for (int i = 0; i < moves.size(); ++i)
    encode_move(moves[i], features.data() + static_cast<size_t>(i) * kMoveFeatureSize);
  if (s.can_pass())
    encode_move(kPass, features.data() + static_cast<size_t>(moves.size()) * kMoveFeatureSize);
  net.q_values(obs.data(), features.data(), n, q.data());
}

Play dmc_action(const QNet& net, const Variant& v, const GameState& s, std::span<const Action> recent,
                const MoveList& moves) {
  thread_local std::vector<float> q;  // grown once, then reused
  const int n = moves.size() + (s.can_pass() ? 1 : 0);
  if (q.size() < static_cast<size_t>(n)) q.resize(static_cast<size_t>(n));
  dmc_values(net, v, s, recent, moves, std::span<float>(q.data(), static_cast<size_t>(n)));
  int best = 0;
  for (int i = 1; i < n; ++i)
    if (q[i] > q[best]) best = i;
  return best < moves.size() ? moves[best] : kPass;
}

class DmcBot final : public Bot {
 public:
  DmcBot(std::shared_ptr<const QNet> net, std::string label)
      : net_(std::move(net)), label_(std::move(label)) {}
  Play step(const Decision& d) const override {
    return d.moves.empty() ? kPass : dmc_action(*net_, d.variant, d.state, d.recent, d.moves);
  }
  std::string label() const override { return label_; }
  bool values(const Decision& d, std::span<float> out) const override {
    dmc_values(*net_, d.variant, d.state, d.recent, d.moves, out);
    return true;
  }

 private:
  std::shared_ptr<const QNet> net_;  // shared, read-only (q_values is const and thread-safe)
  std::string label_;
};

void check_model(const QNet& net, const std::string& what) {
  if (net.shape().obs_size != observation_size() || net.shape().move_size != kMoveFeatureSize)
    throw std::invalid_argument(what + " takes observations of " + std::to_string(net.shape().obs_size) +
                                " floats and moves of " + std::to_string(net.shape().move_size) +
                                "; this build's are " + std::to_string(observation_size()) + " and " +
                                std::to_string(kMoveFeatureSize));
}

struct BuiltinModel {
  std::mutex mutex;
  std::string path;
  std::shared_ptr<const QNet> net;  // loaded on first use
};

BuiltinModel& builtin() {
  static BuiltinModel model;
  return model;
}

std::shared_ptr<const QNet> builtin_model() {
  BuiltinModel& b = builtin();
  std::lock_guard<std::mutex> lock(b.mutex);
  if (!b.net) {
    if (b.path.empty())
      throw std::invalid_argument("bot 'dmc': no built-in model is registered; give a model file: dmc:PATH");
    auto net = std::make_shared<const QNet>(QNet::load(b.path));
    check_model(*net, "model file '" + b.path + "'");
    b.net = std::move(net);
  }
  return b.net;
}

}  // namespace

// "dmc" (the built-in model) or "dmc:PATH" (a model file, loaded here).
BotPtr make_dmc_bot(std::string_view arg) {
  if (arg.empty()) return std::make_shared<const DmcBot>(builtin_model(), "dmc");
  const std::string path(arg);
  auto net = std::make_shared<const QNet>(QNet::load(path));
  check_model(*net, "model file '" + path + "'");
  return std::make_shared<const DmcBot>(std::move(net), "dmc:" + path);
}

}  // namespace detail

BotPtr make_dmc_bot(std::shared_ptr<const QNet> net, std::string label) {
  if (!net) throw std::invalid_argument("make_dmc_bot: no network given");
  detail::check_model(*net, "network '" + label + "'");
  return std::make_shared<const detail::DmcBot>(std::move(net), std::move(label));
}

void set_builtin_model(std::string path) {
  detail::BuiltinModel& b = detail::builtin();
  std::lock_guard<std::mutex> lock(b.mutex);
  b.path = std::move(path);
  b.net.reset();
}

}  // namespace shuangkou
