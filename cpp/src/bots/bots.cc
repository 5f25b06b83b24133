#include "shuangkou/bots/bots.h"

#include <charconv>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "bots_internal.h"
#include "shuangkou/core/clip.h"
#include "shuangkou/rl/encode.h"

namespace shuangkou {
namespace detail {

View::View(const Variant& v, const GameState& s)
    : seat(s.current_player()), partner(partner_of(s.current_player())), hand(s.hand(s.current_player())) {
  partner_shown = v.partner_visible;
  CardCounts known = hand;
  if (partner_shown) known = known + s.hand(partner);
  for (int i = 0; i < kNumSeats; ++i) {
    known = known + s.played(i);
    cards_left[i] = s.hand(i).size();
  }
  uint64_t full = 0;
  for (int r = 0; r < kNumRanks; ++r) full |= static_cast<uint64_t>(copies_in_two_decks(r)) << (4 * r);
  unseen = CardCounts(full) - known;
}

const Play* going_out(const GameState& s, const MoveList& moves) {
  const int left = s.hand(s.current_player()).size();
  for (const Play& m : moves)
    if (m.size == left) return &m;
  return nullptr;
}

const Play* weakest_bomb(const MoveList& moves) {
  const Play* best = nullptr;
  for (const Play& m : moves)
    if (is_bomb(m.kind) && (!best || m.power < best->power)) best = &m;
  return best;
}

namespace {

// Lowest rank a play's reading holds.
int lowest_rank(const Play& p) {
  for (int r = 0; r < kNumRanks; ++r)
    if (p.reading.count(r)) return r;
  return kNumRanks;
}

// Leading: the non-bomb play holding the lowest card, the longest such;
// only bombs left: the weakest.
const Play& lowest_lead(const MoveList& moves) {
  const Play* best = nullptr;
  for (const Play& m : moves) {
    if (is_bomb(m.kind)) continue;
    if (!best || lowest_rank(m) < lowest_rank(*best) ||
        (lowest_rank(m) == lowest_rank(*best) && m.size > best->size))
      best = &m;
  }
  return best ? *best : *weakest_bomb(moves);
}

}  // namespace

// The rule of thumb kept as a weak baseline:
// - a play that empties the hand is always made;
// - leading: the non-bomb play holding the lowest card, the longest such;
// - following: pass on the partner's play; else the cheapest non-bomb that
//   beats; bombs only when the table's owner or this player is near the end.
Play simple_action(const GameState& s, const MoveList& moves) {
  const int seat = s.current_player();
  if (const Play* out = going_out(s, moves)) return *out;
  if (s.is_leading()) return lowest_lead(moves);
  const int owner = s.top_owner();
  if (owner == partner_of(seat)) return kPass;
  const Play* cheapest = nullptr;
  for (const Play& m : moves)
    if (!is_bomb(m.kind) && (!cheapest || m.key < cheapest->key)) cheapest = &m;
  if (cheapest) return *cheapest;
  const Play* bomb = weakest_bomb(moves);
  if (bomb && (s.hand(owner).size() <= 8 || s.hand(seat).size() <= 8)) return *bomb;
  return kPass;
}

// Greedy: follows with the weakest play that beats, whoever made the play on
// the table; a bomb only when no other play beats and the table's owner is
// an opponent who holds at most 6 cards (who could otherwise lead and go
// out). Leads its weakest pattern: the non-bomb play with the lowest card,
// the longest such.
Play greedy_action(const GameState& s, const MoveList& moves) {
  const int seat = s.current_player();
  if (s.is_leading()) return lowest_lead(moves);
  const Play* weakest = nullptr;
  for (const Play& m : moves)
    if (!is_bomb(m.kind) && (!weakest || m.power < weakest->power)) weakest = &m;
  if (weakest) return *weakest;
  const int owner = s.top_owner();
  const Play* bomb = weakest_bomb(moves);
  if (bomb && owner != partner_of(seat) && s.hand(owner).size() <= 6) return *bomb;
  return kPass;
}

}  // namespace detail

namespace {

Play random_choice(const GameState& s, const MoveList& moves, SplitMix64& rng) {
  const int options = moves.size() + (s.can_pass() ? 1 : 0);
  const int pick = static_cast<int>(rng.below(static_cast<uint32_t>(options)));
  return pick < moves.size() ? moves[pick] : kPass;
}

}  // namespace

namespace {

void check_model(const QNet& net, const std::string& path) {
  if (net.shape().obs_size != observation_size() || net.shape().move_size != kMoveFeatureSize)
    throw std::invalid_argument(
        "model file '" + path + "' takes observations of " + std::to_string(net.shape().obs_size) +
        " floats and moves of " + std::to_string(net.shape().move_size) + "; this build's are " +
        std::to_string(observation_size()) + " and " + std::to_string(kMoveFeatureSize));
}

struct BuiltinModel {
  std::mutex mutex;
  std::string path;
  std::shared_ptr<const QNet> net;  // loaded on first use
};

BuiltinModel& builtin() {
  static BuiltinModel model;
  return model;
}

std::shared_ptr<const QNet> builtin_model() {
  BuiltinModel& b = builtin();
  std::lock_guard<std::mutex> lock(b.mutex);
  if (!b.net) {
    if (b.path.empty())
      throw std::invalid_argument("bot 'dmc': no built-in model is registered; give a model file: dmc:PATH");
    auto net = std::make_shared<const QNet>(QNet::load(b.path));
    check_model(*net, b.path);
    b.net = std::move(net);
  }
  return b.net;
}

}  // namespace

void set_builtin_model(std::string path) {
  BuiltinModel& b = builtin();
  std::lock_guard<std::mutex> lock(b.mutex);
  b.path = std::move(path);
  b.net.reset();
}

const std::vector<std::string>& bot_names() {
  static const std::vector<std::string> names = {"random", "simple", "greedy", "heuristic", "search", "dmc"};
  return names;
}

std::string_view bot_name(BotKind kind) { return bot_names()[static_cast<int>(kind)]; }

std::string bot_label(const Bot& bot) {
  std::string label(bot_name(bot.kind));
  if (bot.kind == BotKind::kSearch && bot.budget > 0) label += ":" + std::to_string(bot.budget);
  if (bot.kind == BotKind::kDmc && !bot.model.empty()) label += ":" + bot.model;
  return label;
}

Bot parse_bot(std::string_view name) {
  const size_t colon = name.find(':');
  const std::string_view base = name.substr(0, colon);
  for (size_t i = 0; i < bot_names().size(); ++i) {
    if (bot_names()[i] != base) continue;
    Bot bot(static_cast<BotKind>(i));
    if (bot.kind == BotKind::kDmc) {
      if (colon != std::string_view::npos && colon + 1 == name.size())
        throw std::invalid_argument("bot 'dmc:' needs its model file: dmc:PATH (docs/model_format.md)");
      const bool builtin = colon == std::string_view::npos;
      if (builtin) {
        bot.net = builtin_model();
        return bot;
      }
      bot.model = std::string(name.substr(colon + 1));
      auto net = std::make_shared<const QNet>(QNet::load(bot.model));
      check_model(*net, bot.model);
      bot.net = std::move(net);
      return bot;
    }
    if (colon == std::string_view::npos) return bot;
    const std::string_view budget = name.substr(colon + 1);
    if (bot.kind != BotKind::kSearch)
      throw std::invalid_argument("bot '" + std::string(base) + "' takes no budget (got '" +
                                  std::string(name) + "'); only search does: search:ROLLOUTS");
    int n = 0;
    const auto [end, ec] = std::from_chars(budget.data(), budget.data() + budget.size(), n);
    if (ec != std::errc() || end != budget.data() + budget.size() || n < 1 || n > kMaxRollouts)
      throw std::invalid_argument("bot '" + std::string(name) +
                                  "': the budget after 'search:' is rollouts a " +
                                  "decision, an integer 1.." + std::to_string(kMaxRollouts));
    bot.budget = n;
    return bot;
  }
  std::string known;
  for (const auto& n : bot_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown bot '" + clip(name, 60) + "' (built-in bots: " + known +
                              "; search takes a budget: search:ROLLOUTS; dmc a model file: dmc:PATH)");
}

Play choose_action(const Bot& bot, const Variant& v, const GameState& s, std::span<const Action> recent,
                   MoveList& scratch, SplitMix64& rng, const CancelFlag* cancel) {
  s.legal_moves(v, scratch);
  if (bot.kind == BotKind::kRandom) return random_choice(s, scratch, rng);
  if (scratch.empty()) return kPass;
  switch (bot.kind) {
    case BotKind::kRandom:
      break;
    case BotKind::kSimple:
      return detail::simple_action(s, scratch);
    case BotKind::kGreedy:
      return detail::greedy_action(s, scratch);
    case BotKind::kHeuristic:
      return detail::heuristic_action(v, s, scratch);
    case BotKind::kSearch:
      return detail::search_action(v, s, scratch, rng, bot.budget > 0 ? bot.budget : kDefaultRollouts,
                                   cancel);
    case BotKind::kDmc:
      return detail::dmc_action(*bot.net, v, s, recent, scratch);
  }
  return kPass;
}

}  // namespace shuangkou
