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

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shuangkou/core/cancel.h"
#include "shuangkou/core/game.h"
#include "shuangkou/core/movegen.h"
#include "shuangkou/core/rng.h"
#include "shuangkou/rl/qnet.h"

namespace shuangkou {

enum class BotKind : uint8_t {
  kRandom,     // uniform over the canonical plays and, when allowed, the pass
  kSimple,     // a rule of thumb: sheds low cards, keeps bombs, lets the partner's tricks run
  kGreedy,     // the weakest play that beats; leads its weakest pattern
  kHeuristic,  // plans its hand's split, keeps bombs, cooperates, counts cards
  kSearch,     // determinized Monte-Carlo search over the heuristic's candidates
  kDmc,        // a trained Q network (qnet.h): the legal move of highest Q
};

// Rollouts a decision of the search bot when its name gives no budget.
inline constexpr int kDefaultRollouts = 128;
inline constexpr int kMaxRollouts = 1 << 20;

// A built-in bot, its budget or its model.
struct Bot {
  Bot() = default;
  explicit(false) Bot(BotKind k, int rollouts = 0) : kind(k), budget(rollouts) {}
  BotKind kind = BotKind::kRandom;
  int budget = 0;                   // search: rollouts a decision (0: kDefaultRollouts); 0 for the others
  std::string model;                // dmc: the model file it was loaded from ("" for the built-in one)
  std::shared_ptr<const QNet> net;  // dmc: the network (shared, read-only)
  bool operator==(const Bot&) const = default;
};

// "random", "simple", "greedy", "heuristic", "search", "dmc": the one table of names.
const std::vector<std::string>& bot_names();
std::string_view bot_name(BotKind kind);
// The bot's name as parse_bot reads it back: "heuristic", "search:400",
// "dmc:runs/dmc/model.safetensors".
std::string bot_label(const Bot& bot);
// "heuristic", "search:N" for N rollouts a decision (1..kMaxRollouts), or
// "dmc:PATH" for the Q network in the model file PATH (loaded here), or
// "dmc" for the built-in model (set_builtin_model; its label is "dmc"). Throws
// std::invalid_argument naming the unknown bot and the known ones, the bad
// budget, or what is wrong with the model file.
Bot parse_bot(std::string_view name);
// The model file bot "dmc" without a path plays (the Python package registers
// the weights it ships at import). Loaded, and checked, on first use.
void set_builtin_model(std::string path);

// The bot's action for the current player (kPass to pass). `recent` holds
// the deal's last actions, oldest first (the observation's; only dmc reads
// them); `scratch` is working space; `rng` the game's agent stream. The
// search bot polls `cancel` between its rollout samples: once it is set it
// returns a legal move at once (the heuristic's), which the caller, stopping,
// discards.
Play choose_action(const Bot& bot, const Variant& v, const GameState& s, std::span<const Action> recent,
                   MoveList& scratch, SplitMix64& rng, const CancelFlag* cancel = nullptr);

inline Play random_action(const Variant& v, const GameState& s, MoveList& scratch, SplitMix64& rng) {
  return choose_action(Bot{BotKind::kRandom}, v, s, {}, scratch, rng);
}

}  // namespace shuangkou
