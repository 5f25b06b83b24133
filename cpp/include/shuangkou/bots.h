// Built-in bots (docs/heuristic.md describes them). Each chooses an action for
// the current player of a state, drawing any randomness from a stream the
// caller keeps per game (seeded from the game's seed), so games stay
// reproducible from (variant, seed) whatever the thread count.
//
// Information: a bot is handed the full state but reads only what the player
// to act may know (observe(): its own hand, the partner's where the variant
// shows it, every seat's number of cards, all plays so far). The search bot
// deals the cards it cannot see anew for each of its samples.
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
  kSimple,     // a rule of thumb: sheds low cards, keeps bombs, lets the partner's tricks run
  kGreedy,     // the weakest play that beats; leads its weakest pattern
  kHeuristic,  // plans its hand's split, keeps bombs, cooperates, counts cards
  kSearch,     // determinized Monte-Carlo search over the heuristic's candidates
};

// Rollouts a decision of the search bot when its name gives no budget.
inline constexpr int kDefaultRollouts = 128;
inline constexpr int kMaxRollouts = 1 << 20;

// A built-in bot and its budget.
struct Bot {
  BotKind kind = BotKind::kRandom;
  int budget = 0;  // search: rollouts a decision (0: kDefaultRollouts); 0 for the others
  bool operator==(const Bot&) const = default;
};

// "random", "simple", "greedy", "heuristic", "search": the one table of names.
const std::vector<std::string>& bot_names();
std::string_view bot_name(BotKind kind);
// The bot's name as parse_bot reads it back: "heuristic", "search:400".
std::string bot_label(const Bot& bot);
// "heuristic", or "search:N" for N rollouts a decision (1..kMaxRollouts).
// Throws std::invalid_argument naming the unknown bot and the known ones, or
// the bad budget.
Bot parse_bot(std::string_view name);

// The bot's action for the current player (kPass to pass). `scratch` is
// working space; `rng` the game's agent stream.
Play choose_action(const Bot& bot, const Variant& v, const GameState& s, MoveList& scratch, SplitMix64& rng);

inline Play random_action(const Variant& v, const GameState& s, MoveList& scratch, SplitMix64& rng) {
  return choose_action(Bot{BotKind::kRandom}, v, s, scratch, rng);
}

}  // namespace shuangkou
