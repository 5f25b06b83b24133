// The search bot (docs/heuristic.md): determinized Monte-Carlo search. For
// each sample it deals the cards the player cannot see to the seats that may
// hold them (each keeping its number of cards), plays every candidate move
// in a copy of the compact state, finishes the deal with a fast rollout
// policy and scores it; the candidate with the best mean deal score wins.
// Every candidate sees the same samples and rollout streams (common random
// numbers), so their differences are measured with less noise.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

#include "bots_internal.h"
#include "shuangkou/bots/hand_value.h"
#include "shuangkou/core/clip.h"
#include "shuangkou/rl/rewards.h"

namespace shuangkou::detail {
namespace {

constexpr int kMaxCandidates = 4;
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

// The rollout policy: the heuristic bot for every seat.
double rollout(const Variant& v, GameState x, int seat, MoveList& scratch) {
  while (!x.is_over()) {
    x.legal_moves(v, scratch);
    const Play a = scratch.empty() ? kPass : heuristic_action(v, x, scratch);
    x.apply_legal(v, a);
  }
  return deal_reward(RewardMode::kScore, x, v, seat);
}

// Determinized search: the candidates' paired mean scores over `rollouts`
// sampled deals of the unseen cards (stops sampling once `cancel` is set).
Play search_action(const Variant& v, const GameState& s, const MoveList& moves, SplitMix64& rng, int rollouts,
                   const CancelFlag* cancel) {
  if (moves.empty()) return kPass;
  if (const Play* out = going_out(s, moves)) return *out;
  if (moves.size() == 1 && !s.can_pass()) return moves[0];  // the only legal action
  const Candidates c = candidates(v, s, moves);
  if (c.size == 1) return c.plays[0];
  const View view(v, s);

  // The unseen cards, one entry a card, and the seats that hold them.
  std::array<uint8_t, kNumPhysicalCards> pool;
  int pool_size = 0;
  for (int r = 0; r < kNumRanks; ++r)
    for (int k = 0; k < view.unseen.count(r); ++k) pool[pool_size++] = static_cast<uint8_t>(r);
  std::array<int, kNumSeats> hidden{};
  int num_hidden = 0;
  for (int i = 0; i < kNumSeats; ++i)
    if (i != view.seat && !(view.partner_shown && i == view.partner) && view.cards_left[i] > 0)
      hidden[num_hidden++] = i;

  thread_local MoveList scratch;  // the caller's list holds `moves`
  // Per candidate: the sum, and the sum of squares, of its score minus the
  // heuristic choice's (candidate 0) on the same sample.
  std::array<double, kMaxCandidates> diff{}, diff_sq{};
  const int samples = std::max(1, rollouts / c.size);
  for (int d = 0; d < samples; ++d) {
    if (cancel_requested(cancel)) return c.plays[0];  // the run stops and discards the move
    // A deal of the unseen cards consistent with every seat's count.
    for (int i = pool_size - 1; i > 0; --i) std::swap(pool[i], pool[rng.below(static_cast<uint32_t>(i + 1))]);
    std::array<CardCounts, kNumSeats> hands;
    for (int i = 0; i < kNumSeats; ++i) hands[i] = s.hand(i);
    int next = 0;
    for (int h = 0; h < num_hidden; ++h) {
      CardCounts dealt;
      for (int k = 0; k < view.cards_left[hidden[h]]; ++k) dealt.add(pool[next++]);
      hands[hidden[h]] = dealt;
    }
    const GameState sample = s.redealt(hands);
    double first = 0;
    for (int i = 0; i < c.size; ++i) {
      GameState x = sample;
      x.apply_legal(v, c.plays[i]);
      const double value = rollout(v, x, view.seat, scratch);
      if (i == 0) first = value;
      diff[i] += value - first;
      diff_sq[i] += (value - first) * (value - first);
    }
  }
  // The heuristic's choice stands unless another candidate scores better by
  // more than kConfidence standard errors of the paired difference: a few
  // samples are noisy, and the heuristic is a good default.
  int best = 0;
  double best_mean = 0;
  for (int i = 1; i < c.size; ++i) {
    const double mean = diff[i] / samples;
    const double var = std::max(0.0, diff_sq[i] / samples - mean * mean);
    if (mean > best_mean && mean > kConfidence * std::sqrt(var / samples)) {
      best = i;
      best_mean = mean;
    }
  }
  return c.plays[best];
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
