// The simple bot: a weak baseline.
#include "bots_internal.h"

namespace shuangkou::detail {
namespace {

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

class SimpleBot final : public Bot {
 public:
  Play step(const Decision& d) const override {
    return d.moves.empty() ? kPass : simple_action(d.state, d.moves);
  }
  std::string label() const override { return "simple"; }
};

}  // namespace

BotPtr make_simple_bot(std::string_view) { return std::make_shared<const SimpleBot>(); }

}  // namespace shuangkou::detail
