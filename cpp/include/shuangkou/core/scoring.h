// Scoring of a deal (docs/rules.md §8–12): places and outcome, base
// points, multipliers, contributions and collected stars.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "shuangkou/core/seats.h"
#include "shuangkou/core/variant.h"

namespace shuangkou {

enum class Outcome : uint8_t { kDouble, kSingle, kDraw };
std::string_view outcome_name(Outcome o);  // "double", "single", "draw"

// Seats by place: places[0] finished first.
using Places = std::array<int8_t, kNumSeats>;

// The outcome, from the places of the first finisher's team.
Outcome outcome_of(const Places& places);

// Base points of the player in `place` (0 = first) under a base table.
int base_points(BaseTable table, Outcome outcome, int place);

// The bombs played in a deal: each seat's bomb stars, largest first. A seat
// plays at most 7 bombs in a deal (27 cards: six bombs of 4 and three kings).
struct BombTally {
  static constexpr int kMaxPerSeat = 8;
  std::array<std::array<uint8_t, kMaxPerSeat>, kNumSeats> stars{};
  std::array<uint8_t, kNumSeats> count{};

  void add(int seat, int bomb_stars);
  int max_stars(int seat) const { return count[seat] ? stars[seat][0] : 0; }
  bool operator==(const BombTally&) const = default;
};

// A seat's star level under star collection (docs/rules.md §12): the largest of its
// bombs' stars, n + 2 for n >= 4 bombs, and X + n - 1 for n >= 2 bombs of at
// least X >= 5 stars each.
int star_level(const BombTally& bombs, int seat);

// Contribution points of a star level: +6/+12/+18 to the bomber (and partner
// under `team`), -2/-4/-6 to each other player, for 6/7/>=8 stars.
void add_contribution(const Variant& v, int seat, int stars, std::array<int64_t, kNumSeats>& out);

// Contributions credited so far: at the moment of each bomb, or (with
// collect_stars) nothing until the deal ends.
std::array<int64_t, kNumSeats> running_contribution(const Variant& v, const BombTally& bombs);

// The score of a finished deal, by seat: total = base * multiplier + contribution.
struct DealScore {
  Outcome outcome = Outcome::kDouble;
  std::array<int64_t, kNumSeats> base{};
  int64_t multiplier = 1;
  std::array<int64_t, kNumSeats> contribution{};
  std::array<int64_t, kNumSeats> total{};
};

// `places` must be a permutation of the four seats.
DealScore score_deal(const Variant& v, const Places& places, const BombTally& bombs);

// Level titles of accumulated points (docs/rules.md §15): level 1..23 and its title.
struct LevelTitle {
  int level;
  std::string_view title;
};
LevelTitle level_title(int64_t total_points);

}  // namespace shuangkou
