// The bot interface and the registry of built-in bots (docs/heuristic.md
// describes them; docs/adding_a_bot.md shows how to add one).
//
// A bot is an object made once from its name ("heuristic", "search:400",
// "dmc:runs/dmc/model.safetensors") and then shared, read-only, by every
// thread that plays it: `step` is const and draws any randomness from the
// stream the caller keeps per game (seeded from the game's seed), so games
// stay reproducible from (variant, seed) whatever the thread count.
//
// Information: a bot is handed the full state but reads only what the player
// to act may know (its own hand, the partner's where the variant shows it,
// every seat's number of cards, all plays so far: the View of
// cpp/src/bots/bots_internal.h). The
// conformance test (tests/cpp/conformance_test.cc) checks this, legality and
// determinism for every bot of the registry on every preset.
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

namespace shuangkou {

class QNet;

// What a bot decides from: the position of the player to act and its legal
// plays. `moves` holds the current player's canonical plays (legal_moves());
// it may be empty, and then the pass is the only legal action. The pass is
// legal besides where state.can_pass().
struct Decision {
  const Variant& variant;
  const GameState& state;
  std::span<const Action> recent;  // the deal's last actions, oldest first (the observation's)
  const MoveList& moves;
  SplitMix64& rng;           // the game's agent stream
  const CancelFlag* cancel;  // slow bots poll it: once set, return any legal action at once
};

// A bot: one decision at a time (OpenSpiel's Bot::Step). Implementations are
// immutable after construction and safe to call from several threads at once.
class Bot {
 public:
  virtual ~Bot() = default;
  // The action for the current player (kPass to pass); it must be legal.
  virtual Play step(const Decision& d) const = 0;
  // The name make_bot reads back ("search:400"); labels results and reports.
  virtual std::string label() const = 0;
  // True for bots that take long over a move (seconds): runners then report
  // progress more often and run them interruptibly.
  virtual bool slow() const { return false; }
  // The bot's value of each legal action, for bots that rate every action
  // (the dmc bot: its Q values): writes d.moves.size() values, one per move in
  // d.moves' order, then the pass's where d.state.can_pass(), into `out`
  // (sized for them) and returns true. Bots that rate nothing return false
  // and leave `out` alone. Advice and tools read it; play never does.
  virtual bool values(const Decision& d, std::span<float> out) const {
    (void)d;
    (void)out;
    return false;
  }
};

using BotPtr = std::shared_ptr<const Bot>;

// One row of the registry: a bot's name, whether it takes an argument after
// a colon ("search:400"), and the factory that makes it.
struct BotEntry {
  enum class Arg : uint8_t { kNone, kOptional, kRequired };
  std::string_view name;
  Arg arg;
  std::string_view arg_name;  // what the argument is ("ROLLOUTS", "PATH"); "" for kNone
  std::string_view description;
  // Makes the bot from the text after the colon ("" when none was given);
  // throws std::invalid_argument naming what is wrong with it.
  BotPtr (*make)(std::string_view arg);
};

// The built-in bots, in the order help texts list them (cpp/src/bots/registry.inc).
std::span<const BotEntry> bot_registry();
// Their names, in the registry's order.
std::vector<std::string> bot_names();

// The bot a name stands for: "NAME" or "NAME:ARG" for a row of the registry.
// Throws std::invalid_argument naming an unknown bot (and the known ones), an
// argument given to a bot that takes none, or what the bot's factory rejects.
BotPtr make_bot(std::string_view name);

// The dmc bot playing `net` (shared, read-only), labelled `label`; throws
// std::invalid_argument if the network's input sizes are not this build's.
BotPtr make_dmc_bot(std::shared_ptr<const QNet> net, std::string label);
// The model file bot "dmc" without a path plays (the Python package registers
// the weights it ships at import). Loaded, and checked, on first use.
void set_builtin_model(std::string path);

// Rollouts a decision of the search bot when its name gives no budget.
inline constexpr int kDefaultRollouts = 128;
inline constexpr int kMaxRollouts = 1 << 20;

// The bot's action for the current player of `s` (kPass to pass): generates
// the legal plays into `scratch` and calls bot.step. The one place bots are
// asked to play.
Play choose_action(const Bot& bot, const Variant& v, const GameState& s, std::span<const Action> recent,
                   MoveList& scratch, SplitMix64& rng, const CancelFlag* cancel = nullptr);

// The random bot's action (for tests and tools).
Play random_action(const Variant& v, const GameState& s, MoveList& scratch, SplitMix64& rng);

}  // namespace shuangkou
