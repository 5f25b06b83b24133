// A seat's information set (docs/infoset.md): what the seat may know of a
// deal, and the worlds consistent with it. The built-in search bots draw their
// determinized worlds here (WorldSampler), and Python agents and the OpenSpiel
// game see a deal through an InfoView, which draws worlds with the same
// sampler, so the two agree.
//
// What a seat knows: its own hand, the partner's where the variant shows it
// (双明), every play so far (so every seat's cards played and cards left), the
// leader and the rules. The sampler deals the cards the seat cannot see anew,
// each seat keeping its count. Under the revealed-card first lead the deal
// also showed who held one card; the worlds do not keep that card with its
// holder, and the view leaves it out (docs/infoset.md).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "shuangkou/core/cards.h"
#include "shuangkou/core/game.h"
#include "shuangkou/core/rng.h"
#include "shuangkou/core/variant.h"

namespace shuangkou {

// What a seat knows of the cards in a position.
struct SeatKnowledge {
  int seat = 0;
  int partner = 0;
  CardCounts hand;
  bool partner_shown = false;               // 双明: the partner's hand is visible
  CardCounts unseen;                        // neither in the hand, nor played, nor in a shown partner hand
  std::array<int, kNumSeats> cards_left{};  // public
  SeatKnowledge(const Variant& v, const GameState& s, int seat);
  // The player to act's (s must not be over).
  SeatKnowledge(const Variant& v, const GameState& s) : SeatKnowledge(v, s, s.current_player()) {}
  bool opponent(int other) const { return other != seat && other != partner; }
};

// Deals the cards a seat cannot see anew, to the seats that may hold them,
// each seat keeping its number of cards: the worlds of determinized search.
// A world differs from `s` only in the hidden hands. Keeps a reference to `s`.
class WorldSampler {
 public:
  WorldSampler(const Variant& v, const GameState& s, int seat);
  // For the player to act.
  WorldSampler(const Variant& v, const GameState& s) : WorldSampler(v, s, s.current_player()) {}
  // A world drawn from `rng`: one shuffle of the unseen cards, continuing the
  // previous draw's order. Allocates nothing.
  GameState sample(SplitMix64& rng);
  const SeatKnowledge& knowledge() const { return known_; }

 private:
  const GameState& state_;
  SeatKnowledge known_;
  std::array<uint8_t, kNumPhysicalCards> pool_;  // the unseen cards, one entry a card
  int pool_size_ = 0;
  std::array<int, kNumSeats> hidden_{};  // the seats whose hands are unseen
  int num_hidden_ = 0;
};

// A seat's view of a Game. It keeps the Game privately, and nothing it gives
// out depends on a card the seat cannot see: two games that differ only there
// give equal views (to_string() and ==). Not on any hot path: it copies the
// game.
class InfoView {
 public:
  // Throws std::invalid_argument for a seat outside 0..3.
  InfoView(const Game& game, int seat);

  int seat() const { return seat_; }
  const Rules& rules() const { return game_.rules(); }
  // Own hand, the partner's where shown, cards left and played, the trick,
  // places and points so far.
  const Observation& observation() const { return obs_; }
  const std::vector<Action>& history() const { return game_.history(); }
  // The seat that led the deal.
  int leader() const { return game_.setup().leader; }
  int current_player() const { return game_.state().current_player(); }
  bool is_over() const { return game_.state().is_over(); }
  // The seat's legal action ids (ascending, the pass first where legal)
  // when it is the player to act; empty otherwise.
  std::vector<int32_t> legal_action_ids() const;

  // A complete game consistent with everything the seat knows: this game
  // with the hidden hands dealt anew by WorldSampler from SplitMix64(seed).
  // The same seed gives the same world; the player to act is this game's.
  Game sample_world(uint64_t seed) const;

  // Everything the view holds, as text: rules, seat, leader, own hand, the
  // partner's where shown, and every action. Equal exactly when the views are.
  std::string to_string() const;
  bool operator==(const InfoView& other) const;

 private:
  Game game_;
  int seat_;
  Observation obs_;
};

}  // namespace shuangkou
