// Seats and teams: four players in turn order, partners opposite
// (docs/rules.md §1).
#pragma once

namespace shuangkou {

inline constexpr int kNumSeats = 4;

// Partners sit opposite: teams are {0, 2} and {1, 3}.
constexpr int partner_of(int seat) { return seat ^ 2; }
constexpr int team_of(int seat) { return seat & 1; }

}  // namespace shuangkou
