// The greedy bot: the weakest play that beats.
#include "bots_internal.h"

namespace shuangkou::detail {
namespace {

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

class GreedyBot final : public Bot {
 public:
  Play step(const Decision& d) const override {
    return d.moves.empty() ? kPass : greedy_action(d.state, d.moves);
  }
  std::string label() const override { return "greedy"; }
};

}  // namespace

BotPtr make_greedy_bot(std::string_view) { return std::make_shared<const GreedyBot>(); }

}  // namespace shuangkou::detail
