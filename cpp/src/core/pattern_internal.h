// Internals shared by the pattern reader and the move generator.
#pragma once

#include <cstdint>
#include <optional>

#include "shuangkou/core/pattern.h"

namespace shuangkou {

// What the reader needs to know about a card set, computed once.
struct SetInfo {
  CardCounts cards;
  int n = 0;         // cards in all
  int naturals = 0;  // cards other than jokers
  int sj = 0, bj = 0;
  int wilds = 0;  // jokers, all wild when jokers_all_wild
  bool jokers_all_wild = true;
  int lo = -1, hi = -1;  // lowest and highest natural rank
  int cmax = 0;          // largest count of a natural rank
  int distinct = 0;      // natural ranks held
};

SetInfo analyse(const Variant& v, CardCounts cards);
std::optional<Play> read_kind(const Variant& v, const SetInfo& s, Kind kind);

// Mask of `length` ranks starting at `bottom`.
constexpr uint32_t window_mask(int bottom, int length) { return ((1u << length) - 1) << bottom; }

// Orders plays of one comparison class: non-bombs by key; bombs as docs/rules.md §5
// (docs/rule_readings.md item 6 for `count` order). Layout, high to low:
// stars (5 bits) | tier (2 bits) | 127 - size (7 bits) | key (4 bits).
constexpr uint32_t bomb_power(const Variant& v, Kind kind, int key, int size, int stars) {
  if (!is_bomb(kind)) return static_cast<uint32_t>(key);
  const bool by_stars = v.bomb_order == BombOrder::kStars;
  if (kind == Kind::kHeavenlyKings && !by_stars) return 0xFFFFFFu;  // beats everything
  int tier = 1;
  if (kind == Kind::kThreeKings) tier = 0;  // lowest of its stars
  if (kind == Kind::kHeavenlyKings) tier = v.tianwang == Tianwang::kTop ? 2 : 0;
  const uint32_t fewer_cards = by_stars ? static_cast<uint32_t>(127 - size) : 0u;
  return static_cast<uint32_t>(stars) << 13 | static_cast<uint32_t>(tier) << 11 | fewer_cards << 4 |
         static_cast<uint32_t>(key);
}

}  // namespace shuangkou
