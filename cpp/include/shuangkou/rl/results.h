// The result of one finished deal, as batch runners (self-play, the vector
// env, the arena) keep it: scores, places, outcome, bombs, length.
#pragma once

#include <array>
#include <cstdint>

#include "shuangkou/core/game.h"
#include "shuangkou/core/scoring.h"
#include "shuangkou/core/seats.h"
#include "shuangkou/core/variant.h"

namespace shuangkou {

// What the summary needs of one deal (88 bytes).
struct DealResult {
  std::array<int64_t, kNumSeats> scores{};
  Places places{};
  std::array<uint8_t, kNumSeats> bombs{};      // bombs played, by seat
  std::array<uint8_t, kNumSeats> max_stars{};  // most stars of one bomb, by seat
  std::array<uint8_t, 24> bombs_by_stars{};    // bombs of each star count (0..23)
  std::array<uint8_t, kNumSeats> overtakes{};  // plays made over the partner's play on the table, by seat
  uint16_t actions = 0;                        // plays and passes
  uint16_t plays = 0;
  Outcome outcome = Outcome::kDouble;
  int8_t leader = 0;
};

// What a runner counts while a deal is played, for its DealResult: call
// count() with each action before applying it.
struct DealTally {
  int plays = 0;
  std::array<uint8_t, kNumSeats> overtakes{};
  void count(const GameState& before, const Play& action) {
    if (is_pass(action)) return;
    ++plays;
    const int seat = before.current_player();
    if (!before.is_leading() && before.top_owner() == partner_of(seat)) ++overtakes[seat];
  }
};

// The result of a finished deal.
DealResult make_deal_result(const Variant& v, const GameState& s, int leader, const DealTally& tally);

}  // namespace shuangkou
