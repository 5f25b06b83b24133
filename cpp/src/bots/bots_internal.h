// What the built-in bots share (common.cc): the player's view of the cards
// and plays picked from the legal ones. `moves` holds the current player's
// canonical plays (legal_moves()); the pass is legal where s.can_pass().
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string>
#include <utility>

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

// Deals the cards the player to act cannot see anew, to the seats that may
// hold them, each seat keeping its number of cards: the worlds of
// determinized search. A world is consistent with everything the player
// knows (View), and only the hidden hands differ from `s`.
class WorldSampler {
 public:
  WorldSampler(const Variant& v, const GameState& s);
  // A world drawn from `rng` (one shuffle of the unseen cards, continuing the
  // previous draw's order).
  GameState sample(SplitMix64& rng);
  const View& view() const { return view_; }

 private:
  const GameState& state_;
  View view_;
  std::array<uint8_t, kNumPhysicalCards> pool_;  // the unseen cards, one entry a card
  int pool_size_ = 0;
  std::array<int, kNumSeats> hidden_{};  // the seats whose hands are unseen
  int num_hidden_ = 0;
};

// The most candidates compare_by_rollouts takes.
inline constexpr int kMaxCompared = 8;

// Determinized comparison of candidate plays (search.cc): on `samples` worlds
// (WorldSampler), each candidate is played in the same world and the deal
// finished by the heuristic in every seat, with the deal score as its value
// (common random numbers: the candidates' differences carry less noise).
// Returns the index of the chosen candidate: 0, the caller's default, unless
// another's mean paired gain over it exceeds one standard error. 0 at once
// once `cancel` is set. 1 <= plays.size() <= kMaxCompared; each must be legal
// in `s` (kPass where s.can_pass()).
int compare_by_rollouts(const Variant& v, const GameState& s, std::span<const Play> plays, int samples,
                        SplitMix64& rng, const CancelFlag* cancel);

// The play of `moves` that empties the hand, if any (nullptr otherwise).
const Play* going_out(const GameState& s, const MoveList& moves);
// The weakest bomb of `moves` (nullptr if none).
const Play* weakest_bomb(const MoveList& moves);
// A lead: the non-bomb play holding the lowest card, the longest such; only
// bombs left, the weakest. `moves` is not empty.
const Play& lowest_lead(const MoveList& moves);

}  // namespace shuangkou::detail
