// Built-in bots. Each chooses an action for the current player of a state,
// drawing any randomness from a stream the caller keeps per game (seeded from
// the game's seed), so games stay reproducible from (variant, seed) whatever
// the thread count.
#pragma once

#include "shuangkou/game.h"
#include "shuangkou/movegen.h"
#include "shuangkou/rng.h"

namespace shuangkou {

// Uniform over the canonical plays and, when allowed, the pass.
inline Play random_action(const Variant& v, const GameState& s, MoveList& scratch, SplitMix64& rng) {
  s.legal_moves(v, scratch);
  const int options = scratch.size() + (s.can_pass() ? 1 : 0);
  const int pick = static_cast<int>(rng.below(static_cast<uint32_t>(options)));
  return pick < scratch.size() ? scratch[pick] : kPass;
}

}  // namespace shuangkou
