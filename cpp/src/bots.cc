#include "shuangkou/bots.h"

#include <stdexcept>

namespace shuangkou {
namespace {

Play random_choice(const GameState& s, const MoveList& moves, SplitMix64& rng) {
  const int options = moves.size() + (s.can_pass() ? 1 : 0);
  const int pick = static_cast<int>(rng.below(static_cast<uint32_t>(options)));
  return pick < moves.size() ? moves[pick] : kPass;
}

// Lowest rank a play's reading holds.
int lowest_rank(const Play& p) {
  for (int r = 0; r < kNumRanks; ++r)
    if (p.reading.count(r)) return r;
  return kNumRanks;
}

// A simple rule-of-thumb player, deterministic:
// - a play that empties the hand is always made;
// - leading: the non-bomb play holding the lowest card, the longest such;
// - following: pass on the partner's play; else the cheapest non-bomb that
//   beats; bombs only when the table's owner or this player is near the end.
Play heuristic(const GameState& s, const MoveList& moves) {
  const int seat = s.current_player();
  const int left = s.hand(seat).size();
  for (const Play& m : moves)
    if (m.size == left) return m;
  if (s.is_leading()) {
    const Play* best = nullptr;
    for (const Play& m : moves) {
      if (is_bomb(m.kind)) continue;
      if (!best || lowest_rank(m) < lowest_rank(*best) ||
          (lowest_rank(m) == lowest_rank(*best) && m.size > best->size))
        best = &m;
    }
    if (best) return *best;
    const Play* weakest = &moves[0];  // only bombs left
    for (const Play& m : moves)
      if (m.power < weakest->power) weakest = &m;
    return *weakest;
  }
  const int owner = s.top_owner();
  if (owner == partner_of(seat)) return kPass;
  const Play* cheapest = nullptr;
  const Play* weakest_bomb = nullptr;
  for (const Play& m : moves) {
    if (is_bomb(m.kind)) {
      if (!weakest_bomb || m.power < weakest_bomb->power) weakest_bomb = &m;
    } else if (!cheapest || m.key < cheapest->key) {
      cheapest = &m;
    }
  }
  if (cheapest) return *cheapest;
  if (weakest_bomb && (s.hand(owner).size() <= 8 || left <= 8)) return *weakest_bomb;
  return kPass;
}

}  // namespace

const std::vector<std::string>& bot_names() {
  static const std::vector<std::string> names = {"random", "heuristic"};
  return names;
}

std::string_view bot_name(BotKind kind) { return bot_names()[static_cast<int>(kind)]; }

BotKind parse_bot(std::string_view name) {
  for (size_t i = 0; i < bot_names().size(); ++i)
    if (bot_names()[i] == name) return static_cast<BotKind>(i);
  std::string known;
  for (const auto& n : bot_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown bot '" + std::string(name) + "' (built-in bots: " + known + ")");
}

Play choose_action(BotKind kind, const Variant& v, const GameState& s, MoveList& scratch, SplitMix64& rng) {
  s.legal_moves(v, scratch);
  switch (kind) {
    case BotKind::kRandom:
      return random_choice(s, scratch, rng);
    case BotKind::kHeuristic:
      return scratch.empty() ? kPass : heuristic(s, scratch);
  }
  return kPass;
}

}  // namespace shuangkou
