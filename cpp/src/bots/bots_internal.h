// What the built-in bots share (common.cc): plays picked from the legal ones;
// what a seat knows and its worlds are in shuangkou/core/infoset.h. `moves` holds the current player's
// canonical plays (legal_moves()); the pass is legal where s.can_pass().
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "shuangkou/bots/bot.h"
#include "shuangkou/bots/rollouts.h"
#include "shuangkou/core/infoset.h"
#include "shuangkou/core/seats.h"

namespace shuangkou::detail {

// The heuristic's choice (heuristic.cc); the search bot's candidates and
// rollouts use it too.
Play heuristic_action(const Variant& v, const GameState& s, const MoveList& moves);

// The most candidates compare_by_rollouts takes.
inline constexpr int kMaxCompared = 8;

// Determinized comparison of candidate plays (search.cc): the candidates'
// rollouts on `samples` shared worlds (rollout_candidates, rollouts.h), scored
// by the deal score, or by the win where `leaf` makes them short. Returns the
// index of the chosen candidate: 0, the caller's default, unless another's
// mean paired gain over it exceeds one standard error. 0 at once once
// `cancel` is set. 1 <= plays.size() <= kMaxCompared; each must be legal in
// `s` (kPass where s.can_pass()).
int compare_by_rollouts(const Variant& v, const GameState& s, std::span<const Play> plays, int samples,
                        SplitMix64& rng, const CancelFlag* cancel, const RolloutLeaf& leaf = {});

// The play of `moves` that empties the hand, if any (nullptr otherwise).
const Play* going_out(const GameState& s, const MoveList& moves);

// The whole number lo..hi that `text` spells (digits alone), or nullopt: a
// bot name's argument.
std::optional<int> whole_number(std::string_view text, int lo, int hi);
// The weakest bomb of `moves` (nullptr if none).
const Play* weakest_bomb(const MoveList& moves);
// A lead: the non-bomb play holding the lowest card, the longest such; only
// bombs left, the weakest. `moves` is not empty.
const Play& lowest_lead(const MoveList& moves);

}  // namespace shuangkou::detail
