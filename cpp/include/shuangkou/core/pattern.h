// Patterns (docs/rules.md §3, §4, §5): reading a card set, with wild jokers,
// and comparing plays.
//
// One reader serves move generation, validation and replays: `read_as` gives
// the highest reading of a card set as one kind, `read_all` every kind at
// once, `read_best` the strongest. The precise readings chosen where the rules
// leave a detail open are listed in docs/rule_readings.md.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "shuangkou/core/cards.h"
#include "shuangkou/core/variant.h"

namespace shuangkou {

enum class Kind : uint8_t {
  kSingle,
  kPair,
  kTriple,
  kStraight,
  kPairChain,
  kTripleChain,
  kBomb,
  kChainBomb,
  kUnevenChainBomb,
  kThreeKings,
  kHeavenlyKings,
};
inline constexpr int kNumKinds = 11;

constexpr bool is_bomb(Kind k) { return k >= Kind::kBomb; }
// "single", "pair", ..., "heavenly_kings".
std::string_view kind_name(Kind k);
// Throws std::invalid_argument for an unknown name.
Kind parse_kind(std::string_view name);

// A play: a card set with one reading. 24 bytes, trivially copyable.
struct Play {
  CardCounts cards;    // the physical cards, by rank (jokers at 13, 14)
  CardCounts reading;  // the cards after wild substitution
  Kind kind = Kind::kSingle;
  uint8_t key = 0;    // rank of the key (BJ for three/heavenly kings)
  uint8_t size = 0;   // number of cards
  uint8_t stars = 0;  // 0 for non-bombs; see bomb_stars()
  // Comparison value within the variant: for non-bombs the key; for bombs a
  // number that orders bombs exactly as docs/rules.md §5 does.
  uint32_t power = 0;

  bool operator==(const Play&) const = default;
};

// A pass, as an action: an empty play.
inline constexpr Play kPass{};
constexpr bool is_pass(const Play& p) { return p.cards.empty(); }
static_assert(sizeof(Play) == 24);

// Stars of a bomb reading (0 for non-bombs). Under `bomb_order: stars` as in
// docs/rules.md §5; under `count`, the card count (three kings 6, heavenly kings 7).
int bomb_stars(const Variant& v, Kind kind, CardCounts reading);

// Builds a play from its parts, computing size, stars and power. `reading`
// must be a valid reading of `kind`; `cards` the cards that realise it.
Play make_play(const Variant& v, Kind kind, CardCounts cards, CardCounts reading);

// True iff `a` may be played on `b` (strictly greater; docs/rules.md §5). Both plays
// must have been read under the same variant.
constexpr bool beats(const Play& a, const Play& b) {
  if (is_bomb(b.kind)) return is_bomb(a.kind) && a.power > b.power;
  if (is_bomb(a.kind)) return true;
  return a.kind == b.kind && a.size == b.size && a.power > b.power;
}

// The highest reading of `cards` as `kind`, if it has one.
std::optional<Play> read_as(const Variant& v, CardCounts cards, Kind kind);

// Every kind `cards` can be read as, each with its highest reading.
struct Readings {
  std::array<Play, kNumKinds> by_kind;  // valid where `mask` has bit (int)kind
  uint32_t mask = 0;
  bool has(Kind k) const { return mask >> static_cast<int>(k) & 1; }
  const Play& operator[](Kind k) const { return by_kind[static_cast<int>(k)]; }
};
Readings read_all(const Variant& v, CardCounts cards);

// The strongest reading over all kinds: a bomb before a non-bomb, bombs by
// docs/rules.md §5; two non-bomb kinds by the order of Kind (later wins).
std::optional<Play> read_best(const Variant& v, CardCounts cards);

// Top rank of the highest sequence of `length` ranks whose lowest natural
// rank is `lowest`: wilds extend a sequence upwards until the ace.
constexpr int highest_sequence_top(int lowest, int length) {
  return lowest + length - 1 < kRankAce ? lowest + length - 1 : kRankAce;
}

}  // namespace shuangkou
