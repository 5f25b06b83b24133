// The registry of built-in bots (registry.inc) and the one place bots are
// asked to play.
#include <stdexcept>
#include <string>

#include "shuangkou/bots/bot.h"
#include "shuangkou/core/clip.h"

namespace shuangkou {
namespace detail {

#define SHUANGKOU_BOT(name, arg, arg_name, description) BotPtr make_##name##_bot(std::string_view arg);
#include "registry.inc"
#undef SHUANGKOU_BOT

}  // namespace detail

namespace {

constexpr BotEntry kRegistry[] = {
#define SHUANGKOU_BOT(name, arg, arg_name, description) \
  {#name, BotEntry::Arg::arg, arg_name, description, &detail::make_##name##_bot},
#include "registry.inc"
#undef SHUANGKOU_BOT
};

// "search:ROLLOUTS, dmc:PATH": how the bots that take an argument are named.
std::string with_arguments() {
  std::string out;
  for (const BotEntry& e : kRegistry)
    if (e.arg != BotEntry::Arg::kNone)
      out += (out.empty() ? "" : ", ") + std::string(e.name) + ":" + std::string(e.arg_name);
  return out;
}

}  // namespace

std::span<const BotEntry> bot_registry() { return kRegistry; }

std::vector<std::string> bot_names() {
  std::vector<std::string> names;
  for (const BotEntry& e : kRegistry) names.emplace_back(e.name);
  return names;
}

BotPtr make_bot(std::string_view name) {
  const size_t colon = name.find(':');
  const std::string_view base = name.substr(0, colon);
  const bool has_arg = colon != std::string_view::npos;
  const std::string_view arg = has_arg ? name.substr(colon + 1) : std::string_view();
  for (const BotEntry& e : kRegistry) {
    if (e.name != base) continue;
    const std::string usage = std::string(e.name) + ":" + std::string(e.arg_name);
    if (has_arg && e.arg == BotEntry::Arg::kNone)
      throw std::invalid_argument("bot '" + std::string(base) + "' takes no argument (got '" +
                                  clip(name, 60) + "'); those that do: " + with_arguments());
    if (has_arg && arg.empty())
      throw std::invalid_argument("bot '" + std::string(base) + ":' needs its " + std::string(e.arg_name) +
                                  " after the colon: " + usage);
    if (!has_arg && e.arg == BotEntry::Arg::kRequired)
      throw std::invalid_argument("bot '" + std::string(base) + "' needs an argument: " + usage);
    return e.make(arg);
  }
  std::string known;
  for (const BotEntry& e : kRegistry) known += (known.empty() ? "" : ", ") + std::string(e.name);
  throw std::invalid_argument("unknown bot '" + clip(name, 60) + "' (built-in bots: " + known +
                              "; with an argument: " + with_arguments() + ")");
}

Play choose_action(const Bot& bot, const Variant& v, const GameState& s, std::span<const Action> recent,
                   MoveList& scratch, SplitMix64& rng, const CancelFlag* cancel) {
  s.legal_moves(v, scratch);
  return bot.step(Decision{v, s, recent, scratch, rng, cancel});
}

Play random_action(const Variant& v, const GameState& s, MoveList& scratch, SplitMix64& rng) {
  static const BotPtr random = make_bot("random");
  return choose_action(*random, v, s, {}, scratch, rng);
}

}  // namespace shuangkou
