// What the built-in bots share (common.cc): the player's view of the cards
// and plays picked from the legal ones. `moves` holds the current player's
// canonical plays (legal_moves()); the pass is legal where s.can_pass().
#pragma once

#include <memory>
#include <string>

#include "shuangkou/bots/bot.h"
#include "shuangkou/core/seats.h"

namespace shuangkou::detail {

// The heuristic's choice (heuristic.cc); the search bot's candidates and
// rollouts use it too.
Play heuristic_action(const Variant& v, const GameState& s, const MoveList& moves);

// What the player to act knows of the cards (docs/rules.md §13).
struct View {
  int seat = 0;
  int partner = 0;
  CardCounts hand;
  bool partner_shown = false;               // 双明: the partner's hand is visible
  CardCounts unseen;                        // neither in the hand, nor played, nor in a shown partner hand
  std::array<int, kNumSeats> cards_left{};  // public
  View(const Variant& v, const GameState& s);
  bool opponent(int other) const { return other != seat && other != partner; }
};

// The play of `moves` that empties the hand, if any (nullptr otherwise).
const Play* going_out(const GameState& s, const MoveList& moves);
// The weakest bomb of `moves` (nullptr if none).
const Play* weakest_bomb(const MoveList& moves);
// A lead: the non-bomb play holding the lowest card, the longest such; only
// bombs left, the weakest. `moves` is not empty.
const Play& lowest_lead(const MoveList& moves);

}  // namespace shuangkou::detail
