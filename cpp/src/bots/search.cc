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
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bots_internal.h"
#include "shuangkou/bots/hand_value.h"
#include "shuangkou/bots/rollouts.h"
#include "shuangkou/core/clip.h"
#include "shuangkou/core/rewards.h"
#include "shuangkou/model/encode.h"

namespace shuangkou {

int search_candidates(const Variant& v, const GameState& s, const MoveList& moves,
                      std::span<Play, kMaxSearchCandidates> out) {
  int size = 0;
  const auto add = [&](const Play& p) {
    if (size < kMaxSearchCandidates && std::find(out.begin(), out.begin() + size, p) == out.begin() + size)
      out[size++] = p;
  };
  add(detail::heuristic_action(v, s, moves));
  if (s.can_pass()) add(kPass);
  if (const Play* bomb = detail::weakest_bomb(moves)) add(*bomb);
  const CardCounts hand = s.hand(s.current_player());
  std::array<std::pair<float, int>, kMaxMoves> order;
  int n = 0;
  for (int i = 0; i < moves.size(); ++i)
    if (!is_bomb(moves[i].kind)) order[n++] = {hand_cost(v, hand - moves[i].cards), i};
  std::sort(order.begin(), order.begin() + n);
  for (int i = 0; i < n && size < kMaxSearchCandidates; ++i) add(moves[order[i].second]);
  return size;
}

Play heuristic_play(const Variant& v, const GameState& s, const MoveList& moves) {
  return detail::heuristic_action(v, s, moves);
}

namespace {

// The rollout policy: the heuristic bot for every seat, to the end of the deal.
GameState rollout(const Variant& v, GameState x, MoveList& scratch) {
  while (!x.is_over()) {
    x.legal_moves(v, scratch);
    const Play a = scratch.empty() ? kPass : detail::heuristic_action(v, x, scratch);
    x.apply_legal(v, a);
  }
  return x;
}

}  // namespace

namespace {

// The value of `x` for `seat` by the leaf bot (RolloutLeaf): its
// position_value for the team to act, negated for the other team (nullopt:
// the bot values no positions).
std::optional<double> leaf_value(const Variant& v, const GameState& x, int seat, const RolloutLeaf& leaf,
                                 std::span<const Action> recent, MoveList& moves, SplitMix64& rng,
                                 const CancelFlag* cancel) {
  x.legal_moves(v, moves);
  const std::optional<float> value = leaf.bot->position_value(Decision{v, x, recent, moves, rng, cancel});
  if (!value) return std::nullopt;
  const double clipped = std::clamp(static_cast<double>(*value), -1.0, 1.0);
  return team_of(x.current_player()) == team_of(seat) ? clipped : -clipped;
}

// A short rollout (RolloutLeaf) of `x`, the candidate just played: the leaf
// bot plays leaf.plies actions, then values the position. Returns the win for
// `seat` (the deal's where it ended within the plies or the bot values no
// positions) and its deal score, the heuristic finishing the deal (0 unless
// leaf.finish).
std::pair<double, double> short_rollout(const Variant& v, GameState x, int seat, const RolloutLeaf& leaf,
                                        RecentActions recent, uint64_t bot_seed, const CancelFlag* cancel,
                                        MoveList& scratch) {
  SplitMix64 rng(bot_seed);
  MoveList moves;  // the bot's own (scratch is the caller's)
  for (int p = 0; p < leaf.plies && !x.is_over(); ++p) {
    const int actor = x.current_player();
    const Play a = choose_action(*leaf.bot, v, x, recent.view(), moves, rng, cancel);
    x.apply_legal(v, a);
    recent.push(actor, a);
  }
  const std::optional<double> value =
      x.is_over() ? std::nullopt : leaf_value(v, x, seat, leaf, recent.view(), moves, rng, cancel);
  if (value && !leaf.finish) return {*value, 0.0};
  const GameState end = rollout(v, x, scratch);
  return {value ? *value : deal_reward(RewardMode::kWin, end, v, seat),
          deal_reward(RewardMode::kScore, end, v, seat)};
}

}  // namespace

int rollout_candidates(const Variant& v, const GameState& s, std::span<const Play> plays, int worlds,
                       SplitMix64& rng, const CancelFlag* cancel, std::span<RolloutTally> out,
                       const RolloutLeaf& leaf) {
  WorldSampler sampler(v, s);
  const int seat = s.current_player();
  const int n = static_cast<int>(plays.size());
  thread_local MoveList scratch;  // the caller's list holds the legal moves
  std::array<double, kMaxRolloutCandidates> win{};
  RecentActions recent;
  for (const Action& a : leaf.recent) recent.push(a.seat, a.play);
  for (int w = 0; w < worlds; ++w) {
    if (cancel_requested(cancel)) return w;       // the caller stops and discards the move
    const GameState world = sampler.sample(rng);  // a deal of the unseen cards, every count kept
    const uint64_t bot_seed =
        leaf.bot ? rng.next() : 0;  // (drawn only with a leaf: the default keeps its stream)
    double first = 0, first_win = 0, mean_win = 0;
    for (int i = 0; i < n; ++i) {
      GameState x = world;
      x.apply_legal(v, plays[i]);
      double score = 0;
      if (leaf.bot) {
        RecentActions after = recent;
        after.push(seat, plays[i]);
        std::tie(win[i], score) = short_rollout(v, x, seat, leaf, after, bot_seed, cancel, scratch);
      } else {
        const GameState end = rollout(v, x, scratch);
        win[i] = deal_reward(RewardMode::kWin, end, v, seat);
        score = deal_reward(RewardMode::kScore, end, v, seat);
      }
      if (i == 0) first = score, first_win = win[i];
      RolloutTally& t = out[i];
      t.score += score;
      t.score_sq += score * score;
      t.gain += score - first;
      t.gain_sq += (score - first) * (score - first);
      t.win += win[i];
      t.win_sq += win[i] * win[i];
      t.lead += win[i] - first_win;
      t.lead_sq += (win[i] - first_win) * (win[i] - first_win);
      mean_win += win[i];
    }
    mean_win /= n;
    for (int i = 0; i < n; ++i) {
      out[i].rel += win[i] - mean_win;
      out[i].rel_sq += (win[i] - mean_win) * (win[i] - mean_win);
    }
  }
  return worlds;
}

}  // namespace shuangkou

namespace shuangkou::detail {

constexpr double kConfidence = 1.0;
static_assert(kMaxCompared <= kMaxRolloutCandidates);

int compare_by_rollouts(const Variant& v, const GameState& s, std::span<const Play> plays, int samples,
                        SplitMix64& rng, const CancelFlag* cancel, const RolloutLeaf& leaf) {
  std::array<RolloutTally, kMaxCompared> tally{};
  if (rollout_candidates(v, s, plays, samples, rng, cancel, tally, leaf) < samples) return 0;  // cancelled
  // The first candidate stands unless another scores better by more than
  // kConfidence standard errors of the paired difference: a few samples are
  // noisy, and the first is the guide's choice, a good default.
  int best = 0;
  double best_mean = 0;
  for (int i = 1; i < static_cast<int>(plays.size()); ++i) {
    // Short rollouts end on a value in win units: their gain is the win's.
    const double sum = leaf.bot ? tally[i].lead : tally[i].gain;
    const double sum_sq = leaf.bot ? tally[i].lead_sq : tally[i].gain_sq;
    const double mean = sum / samples;
    const double var = std::max(0.0, sum_sq / samples - mean * mean);
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
  std::array<Play, kMaxSearchCandidates> c;
  const int size = search_candidates(v, s, moves, c);
  if (size == 1) return c[0];
  const int samples = std::max(1, rollouts / size);
  return c[compare_by_rollouts(v, s, std::span<const Play>(c.data(), size), samples, rng, cancel)];
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
    const std::optional<int> given = whole_number(arg, 1, kMaxRollouts);
    if (!given)
      throw std::invalid_argument("bot 'search:" + clip(arg, 60) +
                                  "': the budget after 'search:' is rollouts a decision, an integer 1.." +
                                  std::to_string(kMaxRollouts));
    n = *given;
  }
  return std::make_shared<const SearchBot>(n);
}

}  // namespace shuangkou::detail
