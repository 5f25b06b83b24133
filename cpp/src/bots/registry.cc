// The registry of built-in bots (registry.inc) and the one place bots are
// asked to play.
#include <stdexcept>
#include <string>

#include "shuangkou/bots/bot.h"
#include "shuangkou/core/clip.h"

namespace shuangkou {
namespace detail {

#define SHUANGKOU_BOT(name, arg, arg_name, description, guides) \
  BotPtr make_##name##_bot(std::string_view arg);
#include "registry.inc"
#undef SHUANGKOU_BOT

// The guided search on `guide` (guided.cc), named "<guide_name>+search[:arg]".
BotPtr make_guided_search_bot(BotPtr guide, std::string_view guide_name, std::string_view arg);

}  // namespace detail

namespace {

constexpr BotEntry kRegistry[] = {
#define SHUANGKOU_BOT(name, arg, arg_name, description, guides) \
  {#name, BotEntry::Arg::arg, arg_name, description, guides, &detail::make_##name##_bot},
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

namespace {

constexpr std::string_view kSearchSuffix = "+search";

// "BOT+search[:ROLLOUTS[:PLIES]]": the guided search on the bot BOT names.
BotPtr make_guided(std::string_view name, size_t plus) {
  const std::string_view guide_name = name.substr(0, plus);
  std::string_view arg = name.substr(plus + kSearchSuffix.size());
  if (arg == ":")
    throw std::invalid_argument("bot '" + clip(name, 80) + "' needs its ROLLOUTS after the colon: " +
                                std::string(guide_name) + "+search:ROLLOUTS");
  if (!arg.empty()) arg.remove_prefix(1);  // the colon
  const std::string_view base = guide_name.substr(0, guide_name.find(':'));
  std::string guides;
  bool found = false;
  for (const BotEntry& e : kRegistry) {
    if (e.guides_search) guides += (guides.empty() ? "" : ", ") + std::string(e.name);
    found = found || (e.name == base && e.guides_search);
  }
  if (!found)
    throw std::invalid_argument("bot '" + clip(name, 80) +
                                "': '+search' follows a bot that rates its moves (" + guides +
                                ", with its argument if any), not '" + clip(guide_name, 60) + "'");
  BotPtr guide;
  try {
    guide = make_bot(guide_name);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("bot '" + clip(name, 80) + "': " + e.what());
  }
  return detail::make_guided_search_bot(std::move(guide), guide_name, arg);
}

}  // namespace

BotPtr make_bot(std::string_view name) {
  // "...+search", "...+search:N" or "...+search:N:PLIES" (the last "+search" in the name).
  if (const size_t plus = name.rfind(kSearchSuffix); plus != std::string_view::npos) {
    const std::string_view after = name.substr(plus + kSearchSuffix.size());
    if (after.empty() || after.front() == ':') return make_guided(name, plus);
  }
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
