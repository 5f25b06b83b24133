// The guided search ("dmc+search", docs/heuristic.md): a bot that rates its
// moves (the dmc bot: its Q values) chooses, and a determinized search checks
// its choice where the choice is close. The search compares the guide's best
// few plays on the same sampled worlds, each world finished by the heuristic
// in every seat (compare_by_rollouts), and keeps the guide's choice unless
// another play scores better by a clear margin. "NAME+search:N:PLIES" makes
// the rollouts short: the guide plays PLIES actions after each candidate and
// its own value of the position reached is compared (RolloutLeaf, rollouts.h).
//
// Where it searches: when the guide's two best values lie within
// kTriggerGap of each other (or the gap the guide gives: Bot::search_gap, a
// network's calibrated "search_gap"). A clear preference of the network is trusted;
// a near tie is what rollouts can settle. The bot counts its decisions and
// searches (counters()).
#include <algorithm>
#include <array>
#include <atomic>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bots_internal.h"
#include "shuangkou/core/clip.h"

namespace shuangkou::detail {
namespace {

// The guide's plays compared: its best, and the next ones within kCandidateGap.
constexpr int kCandidates = 3;
static_assert(kCandidates <= kMaxCompared);  // (compare_by_rollouts' limit)

// Search when the best two values lie closer than this (Q of the win reward,
// in [-1, 1]).
constexpr float kTriggerGap = 0.04F;
constexpr float kCandidateGap = 0.15F;

class GuidedSearchBot final : public Bot {
 public:
  GuidedSearchBot(BotPtr guide, int rollouts, std::string label, int leaf_plies)
      : guide_(std::move(guide)), rollouts_(rollouts), leaf_plies_(leaf_plies), label_(std::move(label)) {}

  Play step(const Decision& d) const override {
    if (d.moves.empty()) return kPass;
    decisions_.fetch_add(1, std::memory_order_relaxed);
    if (rollouts_ == 0) return guide_->step(d);  // no budget: the guide's own choice
    if (const Play* out = going_out(d.state, d.moves)) return *out;
    const int n = d.moves.size() + (d.state.can_pass() ? 1 : 0);
    if (n == 1) return d.moves[0];
    const auto play_of = [&](int i) { return i < d.moves.size() ? d.moves[i] : kPass; };

    thread_local std::vector<float> q;
    thread_local std::vector<int> order;
    q.resize(static_cast<size_t>(n));
    order.resize(static_cast<size_t>(n));
    if (!guide_->values(d, q)) return guide_->step(d);
    std::iota(order.begin(), order.end(), 0);
    // The best kCandidates by value, ties to the lower index (the guide's own
    // tie rule), so the first is the guide's choice.
    const int k = std::min(n, kCandidates);
    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                      [&](int a, int b) { return q[a] > q[b] || (q[a] == q[b] && a < b); });
    const float best = q[order[0]];
    if (best - q[order[1]] >= guide_->search_gap(d.variant).value_or(kTriggerGap)) return play_of(order[0]);

    std::array<Play, kCandidates> plays;
    int size = 0;
    for (int i = 0; i < k && best - q[order[i]] < kCandidateGap; ++i) plays[size++] = play_of(order[i]);
    searched_.fetch_add(1, std::memory_order_relaxed);
    const int samples = std::max(1, rollouts_ / size);
    // (short rollouts compare the win alone: no heuristic finish for a score)
    const RolloutLeaf leaf{leaf_plies_ >= 0 ? guide_.get() : nullptr, std::max(0, leaf_plies_), d.recent,
                           false};
    const int chosen = compare_by_rollouts(d.variant, d.state, std::span<const Play>(plays.data(), size),
                                           samples, d.rng, d.cancel, leaf);
    if (chosen != 0) changed_.fetch_add(1, std::memory_order_relaxed);
    return plays[chosen];
  }

  std::string label() const override { return label_; }
  bool slow() const override { return rollouts_ > 0; }
  bool values(const Decision& d, std::span<float> out) const override { return guide_->values(d, out); }
  std::optional<float> position_value(const Decision& d) const override { return guide_->position_value(d); }
  void check_variant(const Variant& v) const override { guide_->check_variant(v); }
  std::optional<float> search_gap(const Variant& v) const override { return guide_->search_gap(v); }
  std::vector<std::pair<std::string, uint64_t>> counters() const override {
    return {{"decisions", decisions_.load()}, {"searched", searched_.load()}, {"changed", changed_.load()}};
  }

 private:
  BotPtr guide_;
  int rollouts_;    // a search's rollouts, shared among its candidates; 0: never search
  int leaf_plies_;  // short rollouts: the guide's plies before its value ends them; -1: the heuristic's to
                    // the end
  std::string label_;
  // Decisions with a legal play, those searched, those where the search
  // changed the guide's choice (relaxed: statistics only).
  mutable std::atomic<uint64_t> decisions_{0}, searched_{0}, changed_{0};
};

}  // namespace

// "<guide_name>+search[:ROLLOUTS[:PLIES]]" on `guide` (registry.cc parses the name).
BotPtr make_guided_search_bot(BotPtr guide, std::string_view guide_name, std::string_view arg) {
  static const std::string kRange = "an integer 0.." + std::to_string(kMaxRollouts) + " (0: never search)";
  const size_t colon = arg.find(':');
  const std::string_view budget = arg.substr(0, colon);
  const std::string_view plies = colon == std::string_view::npos ? std::string_view() : arg.substr(colon + 1);
  const std::string name = clip(guide_name, 60) + "+search:" + clip(arg, 60);
  const std::optional<int> n = arg.empty() ? kDefaultGuidedRollouts : whole_number(budget, 0, kMaxRollouts);
  if (!n)
    throw std::invalid_argument("bot '" + name +
                                "': the budget after '+search:' is rollouts a searched decision, " + kRange);
  const std::optional<int> leaf =
      colon == std::string_view::npos ? -1 : whole_number(plies, 0, kMaxLeafPlies);
  if (!leaf)
    throw std::invalid_argument(
        "bot '" + name + "': the PLIES after '+search:ROLLOUTS:' are the guide's actions " +
        "before its value ends a rollout, an integer 0.." + std::to_string(kMaxLeafPlies));
  std::string label = std::string(guide_name) + "+search";
  if (!arg.empty()) label += ":" + std::string(arg);
  return shuangkou::make_guided_search_bot(std::move(guide), *n, std::move(label), *leaf);
}

}  // namespace shuangkou::detail

namespace shuangkou {

BotPtr make_guided_search_bot(BotPtr guide, int rollouts, std::string label, int leaf_plies) {
  if (!guide) throw std::invalid_argument("make_guided_search_bot: no guide given");
  if (rollouts < 0 || rollouts > kMaxRollouts)
    throw std::invalid_argument("make_guided_search_bot: rollouts " + std::to_string(rollouts) +
                                " outside 0.." + std::to_string(kMaxRollouts));
  if (leaf_plies < -1 || leaf_plies > kMaxLeafPlies)
    throw std::invalid_argument("make_guided_search_bot: leaf_plies " + std::to_string(leaf_plies) +
                                " outside -1.." + std::to_string(kMaxLeafPlies));
  return std::make_shared<const detail::GuidedSearchBot>(std::move(guide), rollouts, std::move(label),
                                                         leaf_plies);
}

}  // namespace shuangkou
