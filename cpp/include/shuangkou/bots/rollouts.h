// Determinized rollouts of candidate plays: what the search bots compare
// (docs/heuristic.md) and what the expert labeller scores (docs/labels.md).
//
// For one position of the player to act, each world is a deal of the cards
// the player cannot see to the seats that may hold them (WorldSampler); every
// candidate is played in that same world and the deal finished by the
// heuristic in every seat. All candidates see the same worlds (common random
// numbers), so their differences carry less noise than their values.
#pragma once

#include <cstdint>
#include <span>

#include "shuangkou/bots/bot.h"
#include "shuangkou/core/cancel.h"
#include "shuangkou/core/game.h"
#include "shuangkou/core/movegen.h"
#include "shuangkou/core/rng.h"

namespace shuangkou {

// The most candidates one call of rollout_candidates takes.
inline constexpr int kMaxRolloutCandidates = 256;  // the most legal actions seen in a baibian deal: 140
// The most candidates the search bot compares (its own candidate list).
inline constexpr int kMaxSearchCandidates = 4;

// Sums over the worlds of one candidate's rollouts, for the deciding seat.
struct RolloutTally {
  double win = 0, win_sq = 0;      // the win reward: +1 / -1 by team result, 0 for a draw
  double score = 0, score_sq = 0;  // the deal score
  double gain = 0, gain_sq = 0;    // score minus the first candidate's score in the same world
  double lead = 0, lead_sq = 0;    // win minus the first candidate's win in the same world
  double rel = 0, rel_sq = 0;      // win minus the mean win of all candidates in the same world
};

// How a rollout ends. By default (no bot) the heuristic plays every seat to
// the end of the deal. With a bot that values positions (Bot::position_value:
// the dmc bot, its network's Q of the play it makes, without its prior), the
// rollout is short: that bot plays every seat for `plies` actions after the
// candidate, and the win is its value of the position then reached, for the
// team to act (negated for the other team; clipped to [-1, 1]), or the deal's
// result where the deal ended sooner (or the bot values no positions). The
// heuristic then finishes the deal for the score (unless `finish` is false:
// the score is then 0, for callers that compare the win). The bot's own
// stream is drawn from each world's stream, the same for every candidate.
// The bot must not search (a slow bot): the labeller refuses one.
struct RolloutLeaf {
  const Bot* bot = nullptr;
  int plies = 0;
  std::span<const Action> recent;  // the position's last actions, oldest first (the bot's observation)
  bool finish = true;
};
// The most plies a leaf may take.
inline constexpr int kMaxLeafPlies = 64;

// Plays each of `plays` (legal in `s`; kPass where s.can_pass()) in `worlds`
// worlds drawn from `rng`, each finished as `leaf` says (by default the
// heuristic in every seat, to the end), and adds each candidate's results
// into out[i] (out.size() >= plays.size()). Returns the worlds played: fewer
// once `cancel` is set (checked before each world). 1 <= plays.size() <=
// kMaxRolloutCandidates. Without a leaf bot it allocates nothing once a
// thread has played a deal.
int rollout_candidates(const Variant& v, const GameState& s, std::span<const Play> plays, int worlds,
                       SplitMix64& rng, const CancelFlag* cancel, std::span<RolloutTally> out,
                       const RolloutLeaf& leaf = {});

// The heuristic bot's play in `s` from its legal plays `moves` (canonical,
// legal_moves()); `moves` is not empty.
Play heuristic_play(const Variant& v, const GameState& s, const MoveList& moves);

// The plays the search bot compares in `s` (`moves` its legal plays, not
// empty): the heuristic's choice first, then the pass where legal, the weakest
// bomb, and the non-bombs that leave the cheapest hand, without repeats.
// Writes them into `out` and returns how many (1..kMaxSearchCandidates).
int search_candidates(const Variant& v, const GameState& s, const MoveList& moves,
                      std::span<Play, kMaxSearchCandidates> out);

}  // namespace shuangkou
