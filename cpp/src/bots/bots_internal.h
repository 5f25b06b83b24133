// The built-in bots' decision functions, shared by bots.cc (the dispatch),
// heuristic.cc and search.cc. `moves` holds the current player's canonical
// plays (legal_moves()); the pass is legal where s.can_pass().
#pragma once

#include "shuangkou/bots/bots.h"
#include "shuangkou/core/seats.h"

namespace shuangkou::detail {

Play simple_action(const GameState& s, const MoveList& moves);
Play greedy_action(const GameState& s, const MoveList& moves);
Play heuristic_action(const Variant& v, const GameState& s, const MoveList& moves);
// Stops sampling once `cancel` is set (see choose_action).
Play search_action(const Variant& v, const GameState& s, const MoveList& moves, SplitMix64& rng, int rollouts,
                   const CancelFlag* cancel);
Play dmc_action(const QNet& net, const Variant& v, const GameState& s, std::span<const Action> recent,
                const MoveList& moves);

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

}  // namespace shuangkou::detail
