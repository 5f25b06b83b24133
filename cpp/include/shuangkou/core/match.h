// A match: a sequence of deals with cumulative points per player (docs/rules.md
// §6, §15). Players 0..3 start in seats 0..3; the revealed-card
// rule moves players with their hands, and the previous_winner rule lets the
// previous deal's first finisher lead.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "shuangkou/core/game.h"
#include "shuangkou/core/scoring.h"
#include "shuangkou/core/variant.h"

namespace shuangkou {

class Match {
 public:
  // Deal k is dealt from derive_seed(seed, k).
  Match(const Variant& v, uint64_t seed, int num_deals);

  const Variant& variant() const { return variant_; }
  int num_deals() const { return num_deals_; }
  // Deals finished and credited.
  int deals_played() const { return static_cast<int>(results_.size()); }
  bool is_over() const { return deals_played() == num_deals_; }

  // The deal in progress (the last deal once the match is over).
  Game& game() { return game_; }
  const Game& game() const { return game_; }

  // Credits the finished current deal to the players and, unless the match is
  // over, deals the next. Throws std::invalid_argument if the deal is not
  // over or the match is.
  void next_deal();

  // Who sits where in the current deal.
  int player_in_seat(int seat) const { return player_in_seat_[seat]; }
  int seat_of(int player) const;
  // Cumulative points by player.
  const std::array<int64_t, kNumSeats>& totals() const { return totals_; }

  // A deal as the match credited it (not the batch runners' DealResult).
  struct CreditedDeal {
    std::array<int8_t, kNumSeats> player_in_seat;  // seating of that deal
    Places places;                                 // seats by place
    Outcome outcome;
    std::array<int64_t, kNumSeats> points_by_player;
  };
  const std::vector<CreditedDeal>& results() const { return results_; }

  // The whole match as JSON (format "shuangkou-match/1": variant, seed,
  // deals, and every action of every deal so far); from_json replays it to
  // an equal Match. Throws std::invalid_argument on a malformed record.
  std::string to_json() const;
  static Match from_json(const std::string& text);

 private:
  Game start_deal();

  Variant variant_;
  uint64_t seed_;
  int num_deals_;
  std::array<int8_t, kNumSeats> player_in_seat_{0, 1, 2, 3};
  std::array<int64_t, kNumSeats> totals_{};
  std::vector<CreditedDeal> results_;
  std::vector<std::vector<Action>> past_histories_;  // the actions of each credited deal
  Game game_;
};

}  // namespace shuangkou
