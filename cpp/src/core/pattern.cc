#include "shuangkou/core/pattern.h"

#include <algorithm>
#include <array>
#include <bit>
#include <stdexcept>
#include <string>

#include "pattern_internal.h"

namespace shuangkou {
namespace {

constexpr std::array<std::string_view, kNumKinds> kKindNames = {
    "single",        "pair", "triple",     "straight",          "pair_chain",
    "triple_chain",  "bomb", "chain_bomb", "uneven_chain_bomb", "three_kings",
    "heavenly_kings"};

CardCounts joker_pair(int joker) { return CardCounts(uint64_t{2} << (4 * joker)); }

// Jokers-only sets are read naturally (docs/rules.md §3), with the `SJ BJ` exception.
std::optional<Play> read_jokers_only(const Variant& v, const SetInfo& s, Kind kind) {
  const CardCounts cards = s.cards;
  switch (s.n) {
    case 1:
      if (kind != Kind::kSingle) return std::nullopt;
      return make_play(v, kind, cards, cards);
    case 2:
      if (kind != Kind::kPair) return std::nullopt;
      if (s.sj == 2 || s.bj == 2) return make_play(v, kind, cards, cards);
      if (v.wild_jokers == WildJokers::kBigOnly) return make_play(v, kind, cards, joker_pair(kSmallJoker));
      if (v.wild_jokers == WildJokers::kBoth) return make_play(v, kind, cards, joker_pair(kBigJoker));
      return std::nullopt;
    case 3:
      if (kind != Kind::kThreeKings || !v.three_kings) return std::nullopt;
      return make_play(v, kind, cards, cards);
    case 4:
      if (kind != Kind::kHeavenlyKings) return std::nullopt;
      return make_play(v, kind, cards, cards);
    default:
      return std::nullopt;
  }
}

// A run of `per_rank` cards on each of the ranks of the highest window of
// `length` sequence ranks that holds every natural card.
std::optional<CardCounts> sequence_reading(const SetInfo& s, int length, int per_rank) {
  if (s.cmax > per_rank || s.hi > kRankAce || s.hi - s.lo + 1 > length) return std::nullopt;
  const int top = highest_sequence_top(s.lo, length);
  return CardCounts(spread_mask(window_mask(top - length + 1, length)) * per_rank);
}

// Keeps the greater of two bomb readings of one kind: power first, then more
// cards at the higher ranks (docs/rule_readings.md item 4).
void keep_higher(std::optional<Play>& best, const Play& candidate) {
  if (!best || candidate.power > best->power ||
      (candidate.power == best->power && candidate.reading.bits() > best->reading.bits()))
    best = candidate;
}

std::optional<Play> read_chain_bomb(const Variant& v, const SetInfo& s) {
  std::optional<Play> best;
  for (int y = 3; y <= 6; ++y) {
    if (s.n % y) continue;
    const int x = s.n / y;
    if (x < 4 || x > v.max_bomb) continue;
    if (auto r = sequence_reading(s, y, x)) keep_higher(best, make_play(v, Kind::kChainBomb, s.cards, *r));
  }
  return best;
}

// Distributes `extra` wild cards over counts[i..y) (each at most max_bomb) and
// offers every resulting uneven reading.
void distribute_uneven(const Variant& v, const SetInfo& s, int bottom, int y, std::array<int, 6>& counts,
                       int i, int extra, std::optional<Play>& best) {
  if (i == y - 1) {
    if (counts[i] + extra > v.max_bomb) return;
    counts[i] += extra;
    bool all_equal = true;
    uint64_t bits = 0;
    for (int j = 0; j < y; ++j) {
      all_equal &= counts[j] == counts[0];
      bits |= static_cast<uint64_t>(counts[j]) << (4 * (bottom + j));
    }
    if (!all_equal) keep_higher(best, make_play(v, Kind::kUnevenChainBomb, s.cards, CardCounts(bits)));
    counts[i] -= extra;
    return;
  }
  for (int add = 0; add <= extra && counts[i] + add <= v.max_bomb; ++add) {
    counts[i] += add;
    distribute_uneven(v, s, bottom, y, counts, i + 1, extra - add, best);
    counts[i] -= add;
  }
}

std::optional<Play> read_uneven_chain_bomb(const Variant& v, const SetInfo& s) {
  if (s.hi > kRankAce || s.cmax > v.max_bomb) return std::nullopt;
  std::optional<Play> best;
  for (int y = 3; y <= 6; ++y) {
    if (s.hi - s.lo + 1 > y) continue;
    for (int bottom = std::max(0, s.hi - y + 1); bottom <= std::min(s.lo, kNumSequenceRanks - y); ++bottom) {
      std::array<int, 6> counts{};
      int deficit = 0;
      for (int j = 0; j < y; ++j) {
        const int c = s.cards.count(bottom + j);
        counts[j] = std::max(4, c);
        deficit += counts[j] - c;
      }
      if (deficit > s.wilds) continue;
      distribute_uneven(v, s, bottom, y, counts, 0, s.wilds - deficit, best);
    }
  }
  return best;
}

}  // namespace

SetInfo analyse(const Variant& v, CardCounts cards) {
  SetInfo s;
  s.cards = cards;
  s.n = cards.size();
  s.sj = cards.count(kSmallJoker);
  s.bj = cards.count(kBigJoker);
  s.naturals = s.n - s.sj - s.bj;
  s.jokers_all_wild = (s.sj == 0 || v.small_joker_wild()) && (s.bj == 0 || v.big_joker_wild());
  s.wilds = s.sj + s.bj;
  for (int r = 0; r < kNumNaturalRanks; ++r) {
    const int c = cards.count(r);
    if (!c) continue;
    if (s.lo < 0) s.lo = r;
    s.hi = r;
    s.cmax = std::max(s.cmax, c);
    ++s.distinct;
  }
  return s;
}

std::optional<Play> read_kind(const Variant& v, const SetInfo& s, Kind kind) {
  if (s.naturals == 0) return read_jokers_only(v, s, kind);
  if (!s.jokers_all_wild) return std::nullopt;
  auto plain = [&](CardCounts reading) { return make_play(v, kind, s.cards, reading); };
  auto one_rank = [&]() { return CardCounts(static_cast<uint64_t>(s.n) << (4 * s.lo)); };
  switch (kind) {
    case Kind::kSingle:
      if (s.n == 1) return plain(s.cards);
      return std::nullopt;
    case Kind::kPair:
      if (s.n == 2 && s.distinct == 1) return plain(one_rank());
      return std::nullopt;
    case Kind::kTriple:
      if (s.n == 3 && s.distinct == 1) return plain(one_rank());
      return std::nullopt;
    case Kind::kBomb:
      if (s.distinct == 1 && s.n >= 4 && s.n <= v.max_bomb) return plain(one_rank());
      return std::nullopt;
    case Kind::kStraight:
      if (s.n < 5 || s.n > kNumSequenceRanks) return std::nullopt;
      if (auto r = sequence_reading(s, s.n, 1)) return plain(*r);
      return std::nullopt;
    case Kind::kPairChain:
      if (s.n % 2 || s.n / 2 < 3 || s.n / 2 > kNumSequenceRanks) return std::nullopt;
      if (auto r = sequence_reading(s, s.n / 2, 2)) return plain(*r);
      return std::nullopt;
    case Kind::kTripleChain:
      if (s.n % 3 || s.n / 3 < 3 || s.n / 3 > kNumSequenceRanks) return std::nullopt;
      if (auto r = sequence_reading(s, s.n / 3, 3)) return plain(*r);
      return std::nullopt;
    case Kind::kChainBomb:
      if (!v.chain_bomb) return std::nullopt;
      return read_chain_bomb(v, s);
    case Kind::kUnevenChainBomb:
      if (!v.uneven_chain) return std::nullopt;
      return read_uneven_chain_bomb(v, s);
    case Kind::kThreeKings:
    case Kind::kHeavenlyKings:
      return std::nullopt;
  }
  return std::nullopt;
}

std::string_view kind_name(Kind k) { return kKindNames[static_cast<int>(k)]; }

Kind parse_kind(std::string_view name) {
  for (int k = 0; k < kNumKinds; ++k)
    if (kKindNames[k] == name) return static_cast<Kind>(k);
  throw std::invalid_argument("unknown play kind '" + std::string(name) + "'");
}

int bomb_stars(const Variant& v, Kind kind, CardCounts reading) {
  switch (kind) {
    case Kind::kThreeKings:
      return 6;
    case Kind::kHeavenlyKings:
      return 7;
    case Kind::kBomb:
      return reading.size();
    case Kind::kChainBomb:
    case Kind::kUnevenChainBomb: {
      if (v.bomb_order == BombOrder::kCount) return reading.size();
      int y = 0, lo = 99, hi = 0;
      for (int r = 0; r < kNumSequenceRanks; ++r) {
        const int c = reading.count(r);
        if (!c) continue;
        ++y;
        lo = std::min(lo, c);
        hi = std::max(hi, c);
      }
      const bool use_min = kind == Kind::kUnevenChainBomb && v.uneven_star == UnevenStar::kMin;
      return (use_min ? lo : hi) + y;
    }
    default:
      return 0;
  }
}

Play make_play(const Variant& v, Kind kind, CardCounts cards, CardCounts reading) {
  Play p;
  p.cards = cards;
  p.reading = reading;
  p.kind = kind;
  p.size = static_cast<uint8_t>(cards.size());
  p.key = static_cast<uint8_t>(kind >= Kind::kThreeKings ? kBigJoker
                                                         : (63 - std::countl_zero(reading.bits())) >> 2);
  p.stars = static_cast<uint8_t>(bomb_stars(v, kind, reading));
  p.power = bomb_power(v, kind, p.key, p.size, p.stars);
  return p;
}

std::optional<Play> read_as(const Variant& v, CardCounts cards, Kind kind) {
  if (cards.empty()) return std::nullopt;
  return read_kind(v, analyse(v, cards), kind);
}

Readings read_all(const Variant& v, CardCounts cards) {
  Readings out;
  if (cards.empty()) return out;
  const SetInfo s = analyse(v, cards);
  for (int k = 0; k < kNumKinds; ++k)
    if (auto p = read_kind(v, s, static_cast<Kind>(k))) {
      out.by_kind[k] = *p;
      out.mask |= 1u << k;
    }
  return out;
}

std::optional<Play> read_best(const Variant& v, CardCounts cards) {
  const Readings all = read_all(v, cards);
  std::optional<Play> best;
  for (int k = 0; k < kNumKinds; ++k) {
    if (!all.has(static_cast<Kind>(k))) continue;
    const Play& p = all.by_kind[k];
    // Later non-bomb kinds win over earlier ones; any bomb over a non-bomb.
    if (!best || !is_bomb(best->kind) || p.power > best->power) best = p;
  }
  return best;
}

}  // namespace shuangkou
