// The fixed action space of a variant: every pattern a hand can play, by id.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "shuangkou/core/pattern.h"
#include "shuangkou/core/variant.h"

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
  // The id of a move the generator made under this catalogue's variant (the
  // hot path of the envs): the same answer as id_of, without its check.
  int id_of_generated(const Play& p) const { return is_pass(p) ? kPass : index_of(p); }
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

}  // namespace shuangkou
