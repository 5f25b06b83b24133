// Built-in bots. Each chooses an action for the current player of a state,
// drawing any randomness from a stream the caller keeps per game (seeded from
// the game's seed), so games stay reproducible from (variant, seed) whatever
// the thread count.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shuangkou/game.h"
#include "shuangkou/movegen.h"
#include "shuangkou/rng.h"

namespace shuangkou {

enum class BotKind : uint8_t {
  kRandom,     // uniform over the canonical plays and, when allowed, the pass
  kHeuristic,  // sheds low cards in long combinations, keeps bombs, lets the partner's tricks run
};

// "random", "heuristic".
const std::vector<std::string>& bot_names();
std::string_view bot_name(BotKind kind);
// Throws std::invalid_argument naming the unknown bot and the known ones.
BotKind parse_bot(std::string_view name);

// The bot's action for the current player (kPass to pass). `scratch` is
// working space; `rng` the game's agent stream.
Play choose_action(BotKind kind, const Variant& v, const GameState& s, MoveList& scratch, SplitMix64& rng);

inline Play random_action(const Variant& v, const GameState& s, MoveList& scratch, SplitMix64& rng) {
  return choose_action(BotKind::kRandom, v, s, scratch, rng);
}

}  // namespace shuangkou
