// The search bot (docs/heuristic.md): determinized Monte-Carlo search, and
// the rollout comparison of candidate plays that the guided search
// (guided.cc) shares with it. For each sample it deals the cards the player
// cannot see to the seats that may hold them (each keeping its number of
// cards), plays every candidate move in a copy of the compact state,
// finishes the deal with a fast rollout policy and scores it; the candidate with the best mean deal score
// wins. Every candidate sees the same samples and rollout streams (common random numbers), so their
// differences are measured with less noise.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

#include "bots_internal.h"
#include "shuangkou/bots/hand_value.h"
#include "shuangkou/core/clip.h"
#include "shuangkou/core/rewards.h"

namespace shuangkou::detail {
namespace {

constexpr int kMaxCandidates = 4;
static_assert(kMaxCandidates <= kMaxCompared);
constexpr double kConfidence = 1.0;

struct Candidates {
  std::array<Play, kMaxCandidates> plays;
  int size = 0;
  bool contains(const Play& p) const {
    return std::find(plays.begin(), plays.begin() + size, p) != plays.begin() + size;
  }
  void add(const Play& p) {
    if (size < kMaxCandidates && !contains(p)) plays[size++] = p;
  }
};

// The heuristic's choice first, then the pass, the weakest bomb, and the
// non-bombs that leave the cheapest hand (hand_cost), up to kMaxCandidates.
Candidates candidates(const Variant& v, const GameState& s, const MoveList& moves) {
  Candidates c;
  c.add(heuristic_action(v, s, moves));
  if (s.can_pass()) c.add(kPass);
  if (const Play* bomb = weakest_bomb(moves)) c.add(*bomb);
  const CardCounts hand = s.hand(s.current_player());
  std::array<std::pair<float, int>, kMaxMoves> order;
  int n = 0;
  for (int i = 0; i < moves.size(); ++i)
    if (!is_bomb(moves[i].kind)) order[n++] = {hand_cost(v, hand - moves[i].cards), i};
  std::sort(order.begin(), order.begin() + n);
  for (int i = 0; i < n && c.size < kMaxCandidates; ++i) c.add(moves[order[i].second]);
  return c;
}

// The rollout policy: the heuristic bot for every seat; the deal score of
// `seat` once the deal is over.
double rollout(const Variant& v, GameState x, int seat, MoveList& scratch) {
  while (!x.is_over()) {
    x.legal_moves(v, scratch);
    const Play a = scratch.empty() ? kPass : heuristic_action(v, x, scratch);
    x.apply_legal(v, a);
  }
  return deal_reward(RewardMode::kScore, x, v, seat);
}

}  // namespace

int compare_by_rollouts(const Variant& v, const GameState& s, std::span<const Play> plays, int samples,
                        SplitMix64& rng, const CancelFlag* cancel) {
  WorldSampler worlds(v, s);
  const int seat = s.current_player();
  const int n = static_cast<int>(plays.size());
  thread_local MoveList scratch;  // the caller's list holds the legal moves
  // Per candidate: the sum, and the sum of squares, of its score minus the
  // first candidate's on the same sample.
  std::array<double, kMaxCompared> diff{}, diff_sq{};
  for (int d = 0; d < samples; ++d) {
    if (cancel_requested(cancel)) return 0;       // the run stops and discards the move
    const GameState sample = worlds.sample(rng);  // a deal of the unseen cards, every count kept
    double first = 0;
    for (int i = 0; i < n; ++i) {
      GameState x = sample;
      x.apply_legal(v, plays[i]);
      const double value = rollout(v, x, seat, scratch);
      if (i == 0) first = value;
      diff[i] += value - first;
      diff_sq[i] += (value - first) * (value - first);
    }
  }
  // The first candidate stands unless another scores better by more than
  // kConfidence standard errors of the paired difference: a few samples are
  // noisy, and the first is the guide's choice, a good default.
  int best = 0;
  double best_mean = 0;
  for (int i = 1; i < n; ++i) {
    const double mean = diff[i] / samples;
    const double var = std::max(0.0, diff_sq[i] / samples - mean * mean);
    if (mean > best_mean && mean > kConfidence * std::sqrt(var / samples)) {
      best = i;
      best_mean = mean;
    }
  }
  return best;
}

namespace {

// Determinized search over the heuristic's candidates, `rollouts` rollouts
// shared among them.
Play search_action(const Variant& v, const GameState& s, const MoveList& moves, SplitMix64& rng, int rollouts,
                   const CancelFlag* cancel) {
  if (moves.empty()) return kPass;
  if (const Play* out = going_out(s, moves)) return *out;
  if (moves.size() == 1 && !s.can_pass()) return moves[0];  // the only legal action
  const Candidates c = candidates(v, s, moves);
  if (c.size == 1) return c.plays[0];
  const int samples = std::max(1, rollouts / c.size);
  return c
      .plays[compare_by_rollouts(v, s, std::span<const Play>(c.plays.data(), c.size), samples, rng, cancel)];
}

class SearchBot final : public Bot {
 public:
  explicit SearchBot(int rollouts) : rollouts_(rollouts) {}
  Play step(const Decision& d) const override {
    return search_action(d.variant, d.state, d.moves, d.rng, rollouts_ > 0 ? rollouts_ : kDefaultRollouts,
                         d.cancel);
  }
  std::string label() const override {
    return rollouts_ > 0 ? "search:" + std::to_string(rollouts_) : "search";
  }
  bool slow() const override { return true; }

 private:
  int rollouts_;  // 0: kDefaultRollouts
};

}  // namespace

// "search" or "search:N", N rollouts a decision in 1..kMaxRollouts.
BotPtr make_search_bot(std::string_view arg) {
  int n = 0;
  if (!arg.empty()) {
    const auto [end, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), n);
    if (ec != std::errc() || end != arg.data() + arg.size() || n < 1 || n > kMaxRollouts)
      throw std::invalid_argument("bot 'search:" + clip(arg, 60) +
                                  "': the budget after 'search:' is rollouts a decision, an integer 1.." +
                                  std::to_string(kMaxRollouts));
  }
  return std::make_shared<const SearchBot>(n);
}

}  // namespace shuangkou::detail
