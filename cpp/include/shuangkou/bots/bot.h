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
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
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
  // The bot's estimate of the position's value for the team to act, in the
  // units of its values (a network's Q of the win reward): the value of the
  // action it would play, without any prior that only steers its choice (a
  // dmc bot's heuristic_prior). Short rollouts end on it (rollouts.h).
  // nullopt: the bot has none.
  virtual std::optional<float> position_value(const Decision& d) const {
    (void)d;
    return std::nullopt;
  }
  // Where a guided search on this bot ("NAME+search") should search, in rule
  // set `v`: when its two best values lie closer than this. Bots whose values
  // carry their own scale say so (a network's model file may hold its
  // calibrated gap, the metadata key "search_gap"); nullopt: the guided
  // search's default.
  virtual std::optional<float> search_gap(const Variant& v) const {
    (void)v;
    return std::nullopt;
  }
  // Named statistics of the bot's play so far, summed over every thread (the
  // guided search: decisions, searched, changed); empty for most bots.
  virtual std::vector<std::pair<std::string, uint64_t>> counters() const { return {}; }
  // Throws std::invalid_argument naming the problem when the bot cannot play
  // rule set `v` (the built-in dmc where no network is shipped for it). Every
  // runner asks before its first deal (selfplay, the vector env, the actors,
  // Python's Bot.step and Bot.values), so `step` never meets a rule set it
  // cannot play.
  virtual void check_variant(const Variant& v) const { (void)v; }
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
  // Whether the bot rates its moves (Bot::values) and so can guide a search:
  // "NAME+search" (make_bot).
  bool guides_search;
  // Makes the bot from the text after the colon ("" when none was given);
  // throws std::invalid_argument naming what is wrong with it.
  BotPtr (*make)(std::string_view arg);
};

// The built-in bots, in the order help texts list them (cpp/src/bots/registry.inc).
std::span<const BotEntry> bot_registry();
// Their names, in the registry's order.
std::vector<std::string> bot_names();

// The bot a name stands for: "NAME" or "NAME:ARG" for a row of the registry,
// or "BOT+search" / "BOT+search:ROLLOUTS" for the guided search on a bot of
// a row that guides_search ("dmc+search", "dmc:PATH+search:64": see
// cpp/src/bots/guided.cc). Throws std::invalid_argument naming an unknown
// bot (and the known ones), an argument given to a bot that takes none, a
// bot that cannot guide a search, or what the bot's factory rejects.
BotPtr make_bot(std::string_view name);

// The dmc bot playing `net` (shared, read-only), labelled `label`; throws
// std::invalid_argument if the network's input sizes are not this build's.
BotPtr make_dmc_bot(std::shared_ptr<const QNet> net, std::string label);
// The guided search on `guide`, a bot that rates its moves (Bot::values; the
// dmc bot), labelled `label`: where the guide's two best values are close it
// compares its best few plays by `rollouts` determinized rollouts and keeps
// its choice unless another play scores clearly better (cpp/src/bots/guided.cc);
// with 0 rollouts it plays the guide's choice. The bot "NAME+search:N".
// `leaf_plies` >= 0 makes the rollouts short (rollouts.h: RolloutLeaf): the
// guide plays that many actions after each candidate and its value of the
// position reached is compared, in win units, instead of the heuristic's
// play to the end and its deal score: "NAME+search:N:PLIES". Throws
// std::invalid_argument for no guide, rollouts outside 0..kMaxRollouts or
// leaf_plies outside -1..kMaxLeafPlies (64).
BotPtr make_guided_search_bot(BotPtr guide, int rollouts, std::string label, int leaf_plies = -1);
// The networks the bot "dmc" without a path plays: one model file per preset,
// as (preset name, path) pairs; the Python package registers the weights it
// ships at import. The bot plays the network of the preset being played (with
// either team_formation: the arena fixes the seats) and cannot play a rule set
// without one (check_variant names those shipped).
// Throws std::invalid_argument, changing nothing, for an unknown or repeated
// preset; the files are loaded, and checked, when "dmc" is next made.
void set_builtin_models(std::vector<std::pair<std::string, std::string>> models);
// The registered (preset, path) pairs, in the order given.
std::vector<std::pair<std::string, std::string>> builtin_models();

// Rollouts a decision of the search bot when its name gives no budget.
inline constexpr int kDefaultRollouts = 128;
inline constexpr int kMaxRollouts = 1 << 20;
// Rollouts a searched decision of "BOT+search" when the name gives no budget.
inline constexpr int kDefaultGuidedRollouts = 64;
// What "BOT+search" does, for help texts (the registry's descriptions' kin).
inline constexpr std::string_view kGuidedSearchDescription =
    "the guided search: the bot's choice, checked by determinized rollouts where its two best values are "
    "close, ROLLOUTS a searched decision";
// What "BOT+search:ROLLOUTS:PLIES" adds, for the same texts.
inline constexpr std::string_view kGuidedLeafDescription =
    "ROLLOUTS:PLIES makes the rollouts short: the bot plays PLIES actions (0..64), then its own value ends "
    "them";

// The bot's action for the current player of `s` (kPass to pass): generates
// the legal plays into `scratch` and calls bot.step. The one place bots are
// asked to play.
Play choose_action(const Bot& bot, const Variant& v, const GameState& s, std::span<const Action> recent,
                   MoveList& scratch, SplitMix64& rng, const CancelFlag* cancel = nullptr);

// The random bot's action (for tests and tools).
Play random_action(const Variant& v, const GameState& s, MoveList& scratch, SplitMix64& rng);

}  // namespace shuangkou
