// Encodings for learning agents: the fixed action catalogue of a variant, the
// observation vector of a seat, and per-move feature rows (DouZero style).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "shuangkou/game.h"
#include "shuangkou/pattern.h"
#include "shuangkou/variant.h"

namespace shuangkou {

// Every pattern a hand of at most 27 cards can play under a variant (kind +
// per-rank counts of the reading), indexed; id 0 is the pass. A canonical
// move maps to the id of its reading; all three-king bombs share one id.
class ActionCatalogue {
 public:
  static constexpr int kPass = 0;

  explicit ActionCatalogue(const Variant& v);

  int size() const { return static_cast<int>(patterns_.size()); }
  // The id of a play's pattern (kPass for a pass); -1 if the catalogue has
  // no such pattern (more than 27 cards, or a play this variant cannot make,
  // e.g. a 10-card bomb where max_bomb is 8). Checked: the id returned always
  // holds a pattern of the play's kind and reading.
  int id_of(const Play& p) const;
  // The pattern of an id: kind and reading; `cards` equals the reading (the
  // natural cards a hand without wilds would play), except for joker-only
  // patterns, which hold their jokers. Id 0 is kPass.
  const Play& pattern(int id) const { return patterns_[id]; }

 private:
  void add(const Variant& v, Kind kind, CardCounts reading);
  // Where the pattern of `p` sits if it is one of this catalogue's (unchecked).
  int index_of(const Play& p) const;

  std::vector<Play> patterns_;
  // First id of each kind; straights and chains by length; bombs by rank.
  std::array<int, kNumKinds> base_{};
  std::array<int, 13> straight_base_{}, pair_chain_base_{}, triple_chain_base_{};
  std::array<std::array<int, 7>, 16> chain_bomb_base_{};  // [x][y]
  int max_bomb_ = 8;
  std::vector<std::pair<uint64_t, int>> uneven_;  // reading bits -> id, sorted
};

// One named slice of the observation vector.
struct ObservationSlice {
  std::string name;
  int offset;
  int size;
  std::string meaning;
};

// How many past actions the observation shows.
inline constexpr int kRecentActions = 8;
// Size of an observation vector, and its slices in order.
int observation_size();
const std::vector<ObservationSlice>& observation_layout();

// Writes the observation of `seat` (observation_size() floats): only what
// that seat may know. Players are listed relative to the seat: self, next,
// partner, previous. `recent` holds the last actions of the deal, oldest
// first (only the last kRecentActions are used).
void encode_observation(const Variant& v, const GameState& s, std::span<const Action> recent, int seat,
                        float* out);

// Per-move features (one row per legal move, pass included as a row of its
// own): reading counts, cards used, kind one-hot, size, stars, pass flag.
inline constexpr int kMoveFeatureSize = 15 + 15 + kNumKinds + 3;
void encode_move(const Play& p, float* out);

}  // namespace shuangkou
