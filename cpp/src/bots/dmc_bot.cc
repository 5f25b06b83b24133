// The dmc bot: the legal move of highest Q under a trained network (qnet.h),
// the moves scored in the order the bots get them (the canonical plays, then
// the pass where legal), ties to the first; a network whose metadata gives a
// "heuristic_prior" adds it to the Q of the heuristic's choice. Exact ties need equal move
// features, which only moves of one action id have.
#include <algorithm>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "bots_internal.h"
#include "shuangkou/core/clip.h"
#include "shuangkou/model/encode.h"
#include "shuangkou/model/qnet.h"

namespace shuangkou {
namespace detail {
namespace {

// Adds `prior` to the Q of the heuristic's choice among the legal moves of `s`
// (q in dmc_values' order): the network's values decide, the heuristic's play
// wins where none leads it by more than the prior.
void add_prior(float prior, const Variant& v, const GameState& s, const MoveList& moves, std::span<float> q) {
  const Play h = heuristic_action(v, s, moves);
  if (h == kPass) {
    if (s.can_pass()) q[static_cast<size_t>(moves.size())] += prior;
    return;
  }
  for (int i = 0; i < moves.size(); ++i)
    if (moves[i] == h) {
      q[static_cast<size_t>(i)] += prior;
      return;
    }
}

// The network's Q value of each legal move of `s` (moves' order, then the pass
// where legal) into `q`, sized for them, `prior` added to the heuristic's
// choice (a network's "heuristic_prior"; 0: the network alone).
void dmc_values(const QNet& net, float prior, const Variant& v, const GameState& s,
                std::span<const Action> recent, const MoveList& moves, std::span<float> q) {
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
  if (prior > 0) add_prior(prior, v, s, moves, q);
}

Play dmc_action(const QNet& net, float prior, const Variant& v, const GameState& s,
                std::span<const Action> recent, const MoveList& moves) {
  thread_local std::vector<float> q;  // grown once, then reused
  const int n = moves.size() + (s.can_pass() ? 1 : 0);
  if (q.size() < static_cast<size_t>(n)) q.resize(static_cast<size_t>(n));
  dmc_values(net, prior, v, s, recent, moves, std::span<float>(q.data(), static_cast<size_t>(n)));
  int best = 0;
  for (int i = 1; i < n; ++i)
    if (q[i] > q[best]) best = i;
  return best < moves.size() ? moves[best] : kPass;
}

// The network's value of `s` for the team to act: the Q, without the prior,
// of the action dmc_action plays (chosen with it).
float dmc_position_value(const QNet& net, float prior, const Variant& v, const GameState& s,
                         std::span<const Action> recent, const MoveList& moves) {
  thread_local std::vector<float> q, steered;  // grown once, then reused
  const auto n = static_cast<size_t>(moves.size() + (s.can_pass() ? 1 : 0));
  q.resize(n);
  dmc_values(net, 0, v, s, recent, moves, q);
  steered = q;
  if (prior > 0) add_prior(prior, v, s, moves, steered);
  size_t best = 0;
  for (size_t i = 1; i < n; ++i)
    if (steered[i] > steered[best]) best = i;
  return q[best];
}

// One shipped network and the rule set it plays.
struct ShippedNet {
  std::string preset;
  std::string path;
  Variant variant;
  std::shared_ptr<const QNet> net;
  std::optional<float> gap;  // its calibrated "search_gap", if any
  float prior = 0;           // its "heuristic_prior" (0: none)
};

// Whether `v` is preset `p` for a network: equal but for team_formation,
// which only fixes who sits with whom (the arena's duplicate deals play every
// preset with fixed seats) and changes no play or score.
bool same_game(Variant v, const Variant& p) {
  v.team_formation = p.team_formation;
  return v == p;
}

// The name of the preset `v` is (as same_game reads it), or "" for a rule set
// of its own.
std::string preset_of(const Variant& v) {
  for (const std::string& name : preset_names())
    if (same_game(v, preset(name))) return name;
  return "";
}

// The presets a network's metadata says it was trained for: its "variant"
// (one name, or several separated by commas); names that are no preset (a
// variant file's path) are left out, and then nothing is known.
std::vector<std::string> trained_presets(const QNet& net) {
  std::vector<std::string> out;
  const auto it = net.metadata().find("variant");
  if (it == net.metadata().end()) return out;
  const std::vector<std::string> presets = preset_names();
  size_t start = 0;
  while (start <= it->second.size()) {
    const size_t comma = std::min(it->second.find(',', start), it->second.size());
    const std::string name = it->second.substr(start, comma - start);
    if (std::find(presets.begin(), presets.end(), name) == presets.end()) return {};
    out.push_back(name);
    start = comma + 1;
  }
  return out;
}

// A network's calibrated gap for the guided search: its metadata's
// "search_gap", a number in (0, 1]; nullopt where it has none (or a bad one).
std::optional<float> metadata_gap(const QNet& net) {
  const auto it = net.metadata().find("search_gap");
  if (it == net.metadata().end()) return std::nullopt;
  try {
    size_t used = 0;
    const float gap = std::stof(it->second, &used);
    if (used == it->second.size() && gap > 0 && gap <= 1) return gap;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// A network's prior on the heuristic's choice: its metadata's
// "heuristic_prior", a number in [0, 1] added to that play's Q (0 where it has
// none); std::invalid_argument naming `what` for any other value.
float metadata_prior(const QNet& net, const std::string& what) {
  const auto it = net.metadata().find("heuristic_prior");
  if (it == net.metadata().end()) return 0;
  try {
    size_t used = 0;
    const float prior = std::stof(it->second, &used);
    if (used == it->second.size() && prior >= 0 && prior <= 1) return prior;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(what + ": its metadata's heuristic_prior must be a number in [0, 1], got '" +
                              clip(it->second, 40) + "'");
}

class DmcBot final : public Bot {
 public:
  // One network (dmc:PATH, Bot.dmc): it plays the rule sets its metadata names
  // (all of them where it names none, or with any_variant) ...
  DmcBot(std::shared_ptr<const QNet> net, std::string label, bool any_variant = false)
      : net_(std::move(net)), label_(std::move(label)) {
    if (!any_variant) trained_ = trained_presets(*net_);
    search_gap_ = metadata_gap(*net_);
    prior_ = metadata_prior(*net_, "network '" + label_ + "'");
  }
  // ... or the built-in networks, each for its preset.
  DmcBot(std::vector<ShippedNet> shipped, std::string label)
      : shipped_(std::move(shipped)), label_(std::move(label)) {}

  Play step(const Decision& d) const override {
    if (d.moves.empty()) return kPass;
    return dmc_action(net_for(d.variant), prior_for(d.variant), d.variant, d.state, d.recent, d.moves);
  }
  std::string label() const override { return label_; }
  std::optional<float> search_gap(const Variant& v) const override {
    if (net_) return search_gap_;
    for (const ShippedNet& s : shipped_)
      if (same_game(v, s.variant)) return s.gap;
    return std::nullopt;
  }
  bool values(const Decision& d, std::span<float> out) const override {
    dmc_values(net_for(d.variant), prior_for(d.variant), d.variant, d.state, d.recent, d.moves, out);
    return true;
  }
  std::optional<float> position_value(const Decision& d) const override {
    return dmc_position_value(net_for(d.variant), prior_for(d.variant), d.variant, d.state, d.recent,
                              d.moves);
  }
  void check_variant(const Variant& v) const override {
    if (net_) return check_trained(v);
    if (find(v)) return;
    std::string known;
    for (const ShippedNet& s : shipped_) known += (known.empty() ? "" : ", ") + s.preset;
    const std::string name = preset_of(v);
    throw std::invalid_argument(
        "bot '" + label_ + "': no network is shipped for " +
        (name.empty() ? std::string("this rule set (it is none of the presets)")
                      : "the rule set '" + name + "'") +
        "; the built-in dmc plays " + (known.empty() ? std::string("none") : known) +
        " (docs/dmc_model.md). To play a network trained for another rule set here, name its file: "
        "dmc:PATH?variant=any" +
        (shipped_.empty()
             ? std::string()
             : " (the " + shipped_[0].preset + " network: dmc:" + shipped_[0].path + "?variant=any)"));
  }

 private:
  // A network of its own plays only the rule sets it was trained for, unless asked.
  void check_trained(const Variant& v) const {
    std::string names;
    for (const std::string& name : trained_) {
      if (same_game(v, preset(name))) return;
      names += (names.empty() ? "" : ", ") + name;
    }
    if (trained_.empty()) return;
    const std::string here = preset_of(v);
    throw std::invalid_argument("bot '" + label_ + "': the network was trained for " + names + ", not for " +
                                (here.empty() ? std::string("this rule set (none of the presets)") : here) +
                                "; to play it here anyway, add ?variant=any to its name: " + label_ +
                                "?variant=any (docs/dmc_model.md)");
  }
  const QNet* find(const Variant& v) const {
    if (net_) return net_.get();
    for (const ShippedNet& s : shipped_)  // (a few presets: a scan of small structs)
      if (same_game(v, s.variant)) return s.net.get();
    return nullptr;
  }
  float prior_for(const Variant& v) const {
    if (net_) return prior_;
    for (const ShippedNet& s : shipped_)
      if (same_game(v, s.variant)) return s.prior;
    return 0;
  }
  const QNet& net_for(const Variant& v) const {
    const QNet* net = find(v);
    if (!net) check_variant(v);  // (runners ask first; this names the problem all the same)
    return *net;
  }
  std::shared_ptr<const QNet> net_;   // shared, read-only (q_values is const and thread-safe)
  std::vector<std::string> trained_;  // the presets net_ plays (empty: any)
  std::optional<float> search_gap_;   // net_'s calibrated "search_gap" (the built-in bot: none)
  float prior_ = 0;                   // net_'s "heuristic_prior"
  std::vector<ShippedNet> shipped_;   // for the built-in bot (net_ null)
  std::string label_;
};

void check_model(const QNet& net, const std::string& what) {
  if (net.shape().obs_size != observation_size() || net.shape().move_size != kMoveFeatureSize)
    throw std::invalid_argument(what + " takes observations of " + std::to_string(net.shape().obs_size) +
                                " floats and moves of " + std::to_string(net.shape().move_size) +
                                "; this build's are " + std::to_string(observation_size()) + " and " +
                                std::to_string(kMoveFeatureSize));
}

// The registered model files and, once "dmc" is made, their networks.
struct BuiltinModels {
  std::mutex mutex;
  std::vector<std::pair<std::string, std::string>> paths;  // (preset, file)
  std::vector<ShippedNet> nets;                            // loaded on first use
};

BuiltinModels& builtin() {
  static BuiltinModels models;
  return models;
}

std::vector<ShippedNet> builtin_nets() {
  BuiltinModels& b = builtin();
  std::lock_guard<std::mutex> lock(b.mutex);
  if (b.paths.empty())
    throw std::invalid_argument("bot 'dmc': no built-in model is registered; give a model file: dmc:PATH");
  if (b.nets.empty()) {
    std::vector<ShippedNet> nets;
    for (const auto& [name, path] : b.paths) {
      auto net = std::make_shared<const QNet>(QNet::load(path));
      check_model(*net, "model file '" + path + "'");
      const auto trained = net->metadata().find("variant");
      if (trained != net->metadata().end() && trained->second != name)
        throw std::invalid_argument("model file '" + path + "' is registered for " + name +
                                    " but was trained for " + clip(trained->second, 60));
      const std::optional<float> gap = metadata_gap(*net);
      const float prior = metadata_prior(*net, "model file '" + path + "'");
      nets.push_back({name, path, preset(name), std::move(net), gap, prior});
    }
    b.nets = std::move(nets);
  }
  return b.nets;
}

}  // namespace

// "dmc" (the built-in networks), "dmc:PATH" (a model file, loaded here; it
// plays the rule sets its metadata names) or "dmc:PATH?variant=any" (any rule set).
BotPtr make_dmc_bot(std::string_view arg) {
  if (arg.empty()) return std::make_shared<const DmcBot>(builtin_nets(), "dmc");
  constexpr std::string_view kAny = "?variant=any";
  const bool any = arg.size() > kAny.size() && arg.substr(arg.size() - kAny.size()) == kAny;
  const std::string path(any ? arg.substr(0, arg.size() - kAny.size()) : arg);
  auto net = std::make_shared<const QNet>(QNet::load(path));
  check_model(*net, "model file '" + path + "'");
  return std::make_shared<const DmcBot>(std::move(net), "dmc:" + path + (any ? std::string(kAny) : ""), any);
}

}  // namespace detail

BotPtr make_dmc_bot(std::shared_ptr<const QNet> net, std::string label) {
  if (!net) throw std::invalid_argument("make_dmc_bot: no network given");
  detail::check_model(*net, "network '" + label + "'");
  return std::make_shared<const detail::DmcBot>(std::move(net), std::move(label));
}

void set_builtin_models(std::vector<std::pair<std::string, std::string>> models) {
  for (size_t i = 0; i < models.size(); ++i) {
    models[i].first = detail::preset_of(preset(models[i].first));  // (throws naming an unknown preset)
    for (size_t j = 0; j < i; ++j)
      if (models[j].first == models[i].first)
        throw std::invalid_argument("set_builtin_models: preset '" + models[i].first + "' is given twice");
  }
  detail::BuiltinModels& b = detail::builtin();
  std::lock_guard<std::mutex> lock(b.mutex);
  b.paths = std::move(models);
  b.nets.clear();
}

std::vector<std::pair<std::string, std::string>> builtin_models() {
  detail::BuiltinModels& b = detail::builtin();
  std::lock_guard<std::mutex> lock(b.mutex);
  return b.paths;
}

}  // namespace shuangkou
